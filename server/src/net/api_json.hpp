#pragma once
// The JSON body of an HTTP API answer (lobby, admin and publish routes): one line, invalid UTF-8
// replaced rather than thrown, so a room or file name a stranger chose can never fail a reply.
// Kept out of lobby_api.hpp, whose includers need no nlohmann_json.

#include <nlohmann/json.hpp>

#include "net/lobby_api.hpp"

namespace flockstep::server::net {

inline ApiResponse reply(unsigned status, const nlohmann::json& j) {
  return {status, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"};
}

}  // namespace flockstep::server::net
