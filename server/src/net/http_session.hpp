#pragma once
/// \file http_session.hpp
/// Starts the HTTP role of a fresh connection: static files from --web-root, /healthz, /readyz,
/// /metrics, and the upgrade to WebSocket on /ws (Beast advanced_server layout). The session
/// class itself lives in the .cpp so only one translation unit instantiates Beast's HTTP code.
#include <boost/asio/ip/tcp.hpp>

#include "net/server_context.hpp"

namespace flockstep::server::net {

/// Take ownership of an accepted socket and serve HTTP on it until it closes or upgrades.
void start_http_session(boost::asio::ip::tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard);

}  // namespace flockstep::server::net
