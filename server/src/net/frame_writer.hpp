#pragma once
/// \file frame_writer.hpp
/// The TCP layer under a WsSession's websocket::stream, with one gate for every write to the
/// socket: Beast's (handshake reply, control frames it sends on its own: pong replies to the
/// peer's pings, keep-alive pings, the close frame) and the session's raw writes of complete
/// frames built once for many clients (ws_frame.hpp).
///
/// Why a gate: the session writes its data frames straight to the TCP stream, beside Beast, so
/// that a frame built once goes to every socket unchanged (Beast frames each write itself and
/// has no API for that). Two writers on one socket must never interleave inside a frame. The
/// session writes data only through write_frames() (Beast writes no data messages on these
/// sessions), one batch at a time, and Beast writes only whole control frames; the gate runs
/// at most one of them at a time:
/// - a raw batch asked for while a Beast write_some is in flight waits until Beast's write is
///   complete (Beast continues a partial write from the completion of the previous write_some,
///   on the same strand, so "no write_some in flight" means "not inside a Beast frame");
/// - a Beast write_some asked for while a raw batch is in flight waits until the whole batch is
///   written (asio::async_write: every byte, or an error), then runs before the next batch, so
///   a session that always has data queued cannot starve Beast's pongs.
/// Every call happens on the session's strand (the socket's executor), so the gate needs no lock.
#include <cstddef>
#include <deque>
#include <memory>
#include <utility>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/teardown.hpp>

namespace flockstep::server::net {

class GatedStream : public boost::beast::tcp_stream {
 public:
  using boost::beast::tcp_stream::tcp_stream;
  using error_code = boost::beast::error_code;

  /// Beast's writes (websocket::stream calls this on its next layer).
  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, const ConstBuffers& b) {
          if (raw_busy_) {
            parked_.push_back(
                std::make_unique<ParkedBeastWrite<ConstBuffers, decltype(handler)>>(b, std::move(handler)));
            return;
          }
          start_beast_write(b, std::move(handler));
        },
        token, buffers);
  }

  /// The session's write of whole frames (a batch: one writev). `handler(ec, bytes)` runs on
  /// the stream's executor once every byte is written. At most one batch at a time; the buffers
  /// must stay valid until the handler runs.
  template <class ConstBuffers, class Handler>
  void write_frames(const ConstBuffers& buffers, Handler&& handler) {
    if (beast_busy_ > 0) {
      parked_raw_ = std::make_unique<ParkedRawWrite<ConstBuffers, std::decay_t<Handler>>>(
          buffers, std::forward<Handler>(handler));
      return;
    }
    start_raw_write(buffers, std::forward<Handler>(handler));
  }

  /// Writes in flight (tests and asserts): Beast's write_some calls, and whether a raw batch is.
  int beast_writes_in_flight() const { return beast_busy_; }
  bool raw_write_in_flight() const { return raw_busy_; }

 private:
  struct Parked {
    virtual ~Parked() = default;
    virtual void resume(GatedStream& s) = 0;
  };
  template <class B, class H>
  struct ParkedBeastWrite final : Parked {
    ParkedBeastWrite(const B& b, H&& h) : buffers(b), handler(std::move(h)) {}
    void resume(GatedStream& s) override { s.start_beast_write(buffers, std::move(handler)); }
    B buffers;
    H handler;
  };
  template <class B, class H>
  struct ParkedRawWrite final : Parked {
    ParkedRawWrite(const B& b, H&& h) : buffers(b), handler(std::move(h)) {}
    void resume(GatedStream& s) override { s.start_raw_write(buffers, std::move(handler)); }
    B buffers;
    H handler;
  };

  boost::beast::tcp_stream& base() { return *this; }

  template <class B, class H>
  void start_beast_write(const B& buffers, H&& handler) {
    ++beast_busy_;
    auto ex = boost::asio::get_associated_executor(handler, get_executor());
    base().async_write_some(
        buffers, boost::asio::bind_executor(ex, [this, h = std::move(handler)](error_code ec, std::size_t n) mutable {
          --beast_busy_;
          // A parked raw batch holds its session (and so this stream) alive; without one, Beast's
          // handler may release the last reference, so `this` is not touched after it then.
          const bool raw_waiting = parked_raw_ != nullptr;
          std::move(h)(ec, n);  // Beast may continue its frame here (the next write_some)
          if (raw_waiting && beast_busy_ == 0) {
            auto p = std::move(parked_raw_);
            p->resume(*this);
          }
        }));
  }

  template <class B, class H>
  void start_raw_write(const B& buffers, H&& handler) {
    raw_busy_ = true;
    boost::asio::async_write(base(), buffers,
                             [this, h = std::forward<H>(handler)](error_code ec, std::size_t n) mutable {
                               raw_busy_ = false;
                               // Beast's parked control frames go first (they hold their
                               // session alive), then the session may write its next batch.
                               while (!parked_.empty()) {
                                 auto p = std::move(parked_.front());
                                 parked_.pop_front();
                                 p->resume(*this);
                               }
                               std::move(h)(ec, n);
                             });
  }

  bool raw_busy_ = false;
  int beast_busy_ = 0;
  std::deque<std::unique_ptr<Parked>> parked_;  // Beast writes waiting for a raw batch
  std::unique_ptr<Parked> parked_raw_;          // the raw batch waiting for Beast
};

/// Beast's WebSocket close tears the connection down through these customisation points (found
/// by argument-dependent lookup): as for a tcp_stream, on the socket (no write involved).
template <class TeardownHandler>
void async_teardown(boost::beast::role_type role, GatedStream& stream, TeardownHandler&& handler) {
  using boost::beast::websocket::async_teardown;
  async_teardown(role, stream.socket(), std::forward<TeardownHandler>(handler));
}
inline void teardown(boost::beast::role_type role, GatedStream& stream, boost::beast::error_code& ec) {
  using boost::beast::websocket::teardown;
  teardown(role, stream.socket(), ec);
}

}  // namespace flockstep::server::net
