#pragma once
/// \file listener.hpp
/// Accepts TCP connections and hands each to an HttpSession on its own strand. Over
/// max_connections a connection gets a canned HTTP 503 and is closed (Beast's listener role).
/// Out of file descriptors (EMFILE), the listener gives back two descriptors it keeps in
/// reserve, uses them to answer the connections waiting in the backlog with the same 503 (they
/// would otherwise hang until their own timeout), logs, takes the reserve again and retries
/// after a pause (libuv's and nginx's answer to EMFILE). A client address (a peer that is not a
/// trusted proxy; IPv6 per /64) at max_sessions_per_address gets a canned 429 the same way.
#include <array>
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "net/http_session.hpp"
#include "net/server_context.hpp"

namespace flockstep::server::net {

/// The accept loop.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  /// Opens, binds and listens; throws boost::system::system_error (start-up) on failure.
  Listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint, ServerContext& ctx,
           PortRole role = PortRole::kGame);
  /// Start accepting.
  void run();
  /// Stop accepting (shutdown); thread-safe.
  void stop();
  ~Listener();
  /// The bound port (useful with port 0).
  unsigned short port() const { return port_; }

 private:
  void do_accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);
  /// EMFILE: free the reserve, shed up to kMaxShedPerPause backlogged connections with a 503,
  /// take the reserve back. Returns the connections shed.
  int shed_backlog();
  void take_reserve();

  /// Descriptors kept open (on /dev/null) for shed_backlog. Two: one for an accepted socket,
  /// one spare for whatever else needs one meanwhile (the sanitizers' memory probe uses a pipe).
  static constexpr std::size_t kReserveFds = 2;
  /// Backlogged connections answered per EMFILE pause (the accept loop pauses 50 ms between).
  static constexpr int kMaxShedPerPause = 64;

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer backoff_;  // pause after a failed accept (e.g. EMFILE)
  ServerContext& ctx_;
  PortRole role_;  // what the connections it accepts may ask for (http_session.hpp)
  unsigned short port_ = 0;
  std::array<int, kReserveFds> reserve_{-1, -1};
};

}  // namespace flockstep::server::net
