#pragma once
/// \file listener.hpp
/// Accepts TCP connections and hands each to an HttpSession on its own strand. Over
/// max_connections a connection gets a canned HTTP 503 and is closed (Beast's listener role).
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "net/server_context.hpp"

namespace flockstep::server::net {

/// The accept loop.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  /// Opens, binds and listens; throws boost::system::system_error (start-up) on failure.
  Listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint, ServerContext& ctx);
  /// Start accepting.
  void run();
  /// Stop accepting (shutdown); thread-safe.
  void stop();
  /// The bound port (useful with port 0).
  unsigned short port() const { return port_; }

 private:
  void do_accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer backoff_;  // pause after a failed accept (e.g. EMFILE)
  ServerContext& ctx_;
  unsigned short port_ = 0;
};

}  // namespace flockstep::server::net
