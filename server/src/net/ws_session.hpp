#pragma once
/// \file ws_session.hpp
/// Starts the WebSocket role of a connection whose HTTP upgrade request has been read. The
/// session class lives in ws_session.cpp (the one translation unit with Beast's WebSocket code).
#include <cstddef>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "net/server_context.hpp"

namespace flockstep::server::net {

/// Who a WebSocket session talks to: the TCP peer and the client address (after trusted
/// proxies), whose per-address count the session holds while it lives.
struct ClientIdentity {
  std::string remote;   ///< TCP peer address:port
  AddressSlot slot;     ///< the connection's count for its address key (IPv6 per /64)
  std::string address;  ///< the client address (what logs and the admin API show)
};

/// Accept the upgrade `request` on `socket` and run the session until it closes.
void start_ws_session(boost::asio::ip::tcp::socket&& socket,
                      boost::beast::http::request<boost::beast::http::string_body>&& request, ServerContext& ctx,
                      ConnectionGuard guard, ClientIdentity client);

/// Largest message the diagnostics echo accepts, bytes: 16 MiB, the biggest message in the
/// Autobahn|Testsuite's performance cases (9.x). Only reachable with echo_endpoint=on.
inline constexpr std::size_t kEchoMaxMessageBytes = 16u << 20;

/// Accept the upgrade on /echo and send every message back unchanged (same text/binary type)
/// until the peer closes: a diagnostics endpoint so WebSocket conformance tools exercise the
/// server's own WebSocket stack (timeouts, limits and close handling as for /ws).
void start_echo_session(boost::asio::ip::tcp::socket&& socket,
                        boost::beast::http::request<boost::beast::http::string_body>&& request, ServerContext& ctx,
                        ConnectionGuard guard);

}  // namespace flockstep::server::net
