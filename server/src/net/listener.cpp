#include "net/listener.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config/trusted_proxies.hpp"
#include "net/client_address.hpp"
#include "net/http_session.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
// A canned 503 without reading the request: cheapest possible refusal.
constexpr char kBusy[] =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n"
    "Retry-After: 1\r\nConnection: close\r\n\r\nserver full\n";
// The same for a client address at max_sessions_per_address.
constexpr char kAddressBusy[] =
    "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nContent-Length: 39\r\n"
    "Retry-After: 1\r\nConnection: close\r\n\r\ntoo many connections from this address\n";

/// Answer `socket` with the canned `text` and close it, without reading anything.
template <std::size_t N>
void refuse(tcp::socket&& socket, const char (&text)[N]) {
  auto sock = std::make_shared<tcp::socket>(std::move(socket));
  asio::async_write(*sock, asio::buffer(text, N - 1), [sock](boost::system::error_code, std::size_t) {
    boost::system::error_code ignored;
    sock->shutdown(tcp::socket::shutdown_both, ignored);
    sock->close(ignored);
  });
}
}  // namespace

ConnectionGuard::ConnectionGuard(ServerContext* ctx) : ctx_(ctx) {
  ctx_->open_connections.fetch_add(1, std::memory_order_relaxed);
  ctx_->metrics.connections.add(1);
}

ConnectionGuard& ConnectionGuard::operator=(ConnectionGuard&& o) noexcept {
  if (this != &o) {
    this->~ConnectionGuard();
    ctx_ = o.ctx_;
    o.ctx_ = nullptr;
  }
  return *this;
}

ConnectionGuard::~ConnectionGuard() {
  if (!ctx_) return;
  ctx_->open_connections.fetch_sub(1, std::memory_order_relaxed);
  ctx_->metrics.connections.add(-1);
  ctx_ = nullptr;
}

Listener::Listener(asio::io_context& ioc, const tcp::endpoint& endpoint, ServerContext& ctx, PortRole role)
    : ioc_(ioc), acceptor_(asio::make_strand(ioc)), backoff_(acceptor_.get_executor()), ctx_(ctx), role_(role) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(asio::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
  take_reserve();
}

Listener::~Listener() {
  for (int& fd : reserve_)
    if (fd >= 0) ::close(fd);
}

void Listener::take_reserve() {
  for (int& fd : reserve_)
    if (fd < 0) fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // may fail at EMFILE: retried next time
}

int Listener::shed_backlog() {
  for (int& fd : reserve_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int shed = 0;
  for (; shed < kMaxShedPerPause; ++shed) {
    // Plain accept4 on the listening socket: non-blocking, so an empty backlog ends the loop.
    const int s = ::accept4(acceptor_.native_handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (s < 0) break;
    [[maybe_unused]] const ssize_t n = ::send(s, kBusy, sizeof kBusy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);  // best effort
    ::close(s);
  }
  return shed;
}

void Listener::run() {
  asio::dispatch(acceptor_.get_executor(), [self = shared_from_this()] { self->do_accept(); });
}

void Listener::stop() {
  asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ec;
    self->backoff_.cancel();
    self->acceptor_.close(ec);
  });
}

// do_accept: wait for the next connection, each on its own strand.
void Listener::do_accept() {
  acceptor_.async_accept(
      asio::make_strand(ioc_),
      [self = shared_from_this()](boost::system::error_code ec, tcp::socket s) { self->on_accept(ec, std::move(s)); });
}

// on_accept: hand the socket to an HTTP session, or refuse it when over max_connections.
void Listener::on_accept(boost::system::error_code ec, tcp::socket socket) {
  if (ec) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;  // stopped
    // EMFILE and friends: answer what waits in the backlog with the reserve descriptors, log
    // (rate limited) and retry after a pause, so running out of file descriptors neither turns
    // the accept loop into a busy loop nor leaves clients hanging in the backlog.
    int shed = 0;
    if (ec == asio::error::no_descriptors || ec.value() == ENFILE) {
      shed = shed_backlog();
      ctx_.metrics.connections_rejected.inc(static_cast<std::uint64_t>(shed));
    }
    ctx_.log.warn("accept_failed", {{"error", ec.message()}, {"shed", shed}});
    take_reserve();
    backoff_.expires_after(std::chrono::milliseconds(50));
    backoff_.async_wait([self = shared_from_this()](boost::system::error_code e) {
      if (!e) self->do_accept();
    });
    return;
  }
  if (ctx_.open_connections.load(std::memory_order_relaxed) >= ctx_.config.max_connections || ctx_.shutting_down) {
    ctx_.metrics.connections_rejected.inc();
    ctx_.log.warn("connection_refused", {{"reason", ctx_.shutting_down ? "shutting_down" : "max_connections"},
                                         {"limit", ctx_.config.max_connections}});
    refuse(std::move(socket), kBusy);
  } else {
    // Per-address accounting: a peer that is not a trusted proxy is the client, counted from
    // now on; a trusted proxy's connection is counted per request, once its header named the
    // client (http_session.cpp).
    boost::system::error_code ignored;
    AddressSlot slot;
    const tcp::endpoint peer = socket.remote_endpoint(ignored);
    if (!ignored && !ctx_.trusted_proxies.contains(peer.address())) {
      const std::string key = address_key(peer.address());
      if (!ctx_.sessions_per_address.acquire(key, ctx_.config.max_sessions_per_address)) {
        ctx_.metrics.address_limit_refused.inc();
        ctx_.log.warn("address_limit", {{"address", key}, {"limit", ctx_.config.max_sessions_per_address}});
        refuse(std::move(socket), kAddressBusy);
        return do_accept();
      }
      slot = AddressSlot(&ctx_.sessions_per_address, key);
    }
    socket.set_option(tcp::no_delay(true), ignored);  // Nagle + delayed ACK would pair up snapshots
    if (ctx_.config.socket_send_buffer_bytes > 0)     // bounded kernel memory per slow reader
      socket.set_option(asio::socket_base::send_buffer_size(static_cast<int>(ctx_.config.socket_send_buffer_bytes)),
                        ignored);
    start_http_session(std::move(socket), ctx_, ConnectionGuard(&ctx_), std::move(slot), role_);
  }
  do_accept();
}

}  // namespace flockstep::server::net
