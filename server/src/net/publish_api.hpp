#pragma once
/// \file publish_api.hpp
/// The publishing routes of the admin API (after check_admin), as a pure function without
/// Beast, like lobby_api.hpp (http_session.cpp routes here; the tests call it over loopback):
///   GET    /api/admin/published         every published room and the limits
///   PUT    /api/admin/published/<name>  publish a scenario file (the body) as room <name>
///   DELETE /api/admin/published/<name>  unpublish it (a running room closes)
/// JSON shapes: docs/server.md ("Publishing from the lab").
#include <chrono>
#include <string_view>

#include "net/lobby_api.hpp"

namespace flockstep::server::game {
class Rooms;
}

namespace flockstep::server::net {

/// The route prefix (http_session.cpp hands every path under it to published_route).
inline constexpr std::string_view kPublishedPrefix = "/api/admin/published";

/// Answer `method` ("GET", "HEAD", "PUT", "DELETE") on `path` (starting with kPublishedPrefix)
/// with request `body`. 405 for another method, 404 for another path.
ApiResponse published_route(game::Rooms& rooms, std::string_view method, std::string_view path, std::string_view body,
                            std::chrono::milliseconds timeout = kTuneTimeout);

}  // namespace flockstep::server::net
