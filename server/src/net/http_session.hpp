#pragma once
/// \file http_session.hpp
/// Starts the HTTP role of a fresh connection: static files from --web-root, /healthz, /readyz,
/// /metrics, and the upgrade to WebSocket on /ws (Beast advanced_server layout). The session
/// class itself lives in the .cpp so only one translation unit instantiates Beast's HTTP code.
#include <cstdint>

#include <boost/asio/ip/tcp.hpp>

#include "net/server_context.hpp"

namespace flockstep::server::net {

/// What a listener's connections may ask for.
enum class PortRole : std::uint8_t {
  kGame,     ///< the game port: everything (and /metrics unless metrics_port is set)
  kMetrics,  ///< metrics_port: /metrics (and /healthz) only; everything else 404
};

/// Take ownership of an accepted socket and serve HTTP on it until it closes or upgrades. `slot`
/// counts the connection for its client address (max_sessions_per_address) when the listener
/// already knows it (the peer is not a trusted proxy); otherwise the session counts it per
/// request, once a trusted proxy's header named the client.
void start_http_session(boost::asio::ip::tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard,
                        AddressSlot slot = {}, PortRole role = PortRole::kGame);

}  // namespace flockstep::server::net
