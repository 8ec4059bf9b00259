#pragma once
/// \file ws_session.hpp
/// Starts the WebSocket role of a connection whose HTTP upgrade request has been read. The
/// session class lives in ws_session.cpp (the one translation unit with Beast's WebSocket code).
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "net/server_context.hpp"

namespace flockstep::server::net {

/// Accept the upgrade `request` on `socket` and run the session until it closes.
void start_ws_session(boost::asio::ip::tcp::socket&& socket,
                      boost::beast::http::request<boost::beast::http::string_body>&& request, ServerContext& ctx,
                      ConnectionGuard guard);

}  // namespace flockstep::server::net
