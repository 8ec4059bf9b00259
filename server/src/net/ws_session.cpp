#include "net/ws_session.hpp"

#include <atomic>
#include <chrono>
#include <deque>
#include <span>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "game/game.hpp"
#include "game/rooms.hpp"
#include "net/frame_writer.hpp"
#include "net/ws_frame.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using game::CloseReason;

namespace {

std::uint64_t now_us() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count());
}

websocket::close_code ws_code(CloseReason r) {
  switch (r) {
    case CloseReason::kNormal: return websocket::close_code::normal;
    case CloseReason::kShutdown: return websocket::close_code::going_away;
    case CloseReason::kMalformed: return websocket::close_code::bad_payload;
    case CloseReason::kTooBig: return websocket::close_code::too_big;
    case CloseReason::kRoomFull: return websocket::close_code::try_again_later;
    case CloseReason::kProtocol:
    case CloseReason::kViolations:
    case CloseReason::kTooSlow:
    case CloseReason::kTimeout:
    case CloseReason::kBadResume:
    case CloseReason::kUnknownRoom: return websocket::close_code::policy_error;
  }
  return websocket::close_code::policy_error;
}

v1::Close::Code wire_code(CloseReason r) {
  switch (r) {
    case CloseReason::kNormal: return v1::Close::CODE_NORMAL;
    case CloseReason::kShutdown: return v1::Close::CODE_SHUTDOWN;
    case CloseReason::kMalformed:
    case CloseReason::kProtocol: return v1::Close::CODE_MALFORMED;
    case CloseReason::kTooBig: return v1::Close::CODE_TOO_BIG;
    case CloseReason::kViolations: return v1::Close::CODE_RATE_LIMITED;
    case CloseReason::kTooSlow: return v1::Close::CODE_TOO_SLOW;
    case CloseReason::kRoomFull: return v1::Close::CODE_ROOM_FULL;
    case CloseReason::kTimeout: return v1::Close::CODE_TIMEOUT;
    case CloseReason::kBadResume: return v1::Close::CODE_BAD_RESUME;
    case CloseReason::kUnknownRoom: return v1::Close::CODE_UNKNOWN_ROOM;
  }
  return v1::Close::CODE_UNSPECIFIED;
}

/// One WebSocket client. Every member is touched only on the connection's strand; the
/// ClientSink methods (called by the game thread) post onto it.
class WsSession : public game::ClientSink, public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard, ClientIdentity client)
      : ws_(std::move(socket)),
        ctx_(ctx),
        guard_(std::move(guard)),
        client_(std::move(client)),
        id_(ctx.next_connection.fetch_add(1)),
        join_timer_(ws_.get_executor()),
        ping_timer_(ws_.get_executor()),
        kill_timer_(ws_.get_executor()),
        tokens_(ctx.config.input_burst),
        last_refill_(Clock::now()) {
    limits_.max_message_bytes = ctx.config.max_message_bytes;
    limits_.max_input_frames = ctx.config.max_input_frames;
    limits_.max_name_bytes = ctx.config.max_name_bytes;
    write_buffers_.reserve(kBuffersPerMessage * kMaxWriteBatch);  // the write path allocates nothing after this
  }

  ~WsSession() override {
    // Runs when the last handler let go: the one place that tells the game and the registry.
    ctx_.sessions.remove(id_);
    if (game_) game_->post_leave(id_, ended_);
  }

  // run: configure limits and timeouts, then accept the upgrade.
  void run(http::request<http::string_body> req) {
    beast::get_lowest_layer(ws_).expires_never();  // websocket::stream_base::timeout takes over
    websocket::stream_base::timeout t{};
    t.handshake_timeout = std::chrono::milliseconds(ctx_.config.handshake_timeout_ms);
    t.idle_timeout = std::chrono::milliseconds(ctx_.config.idle_timeout_ms);
    t.keep_alive_pings = true;
    ws_.set_option(t);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "flockstep"); }));
    ws_.read_message_max(ctx_.config.max_message_bytes);
    ws_.binary(true);
    // The session writes its own frames (write path below): they carry no RSV1 bit, so
    // permessage-deflate must never be negotiated for it. Off is Beast's default; stated here
    // so that turning compression on fails review rather than corrupting every stream.
    websocket::permessage_deflate no_deflate;
    no_deflate.server_enable = false;
    no_deflate.client_enable = false;
    ws_.set_option(no_deflate);
    ws_.async_accept(req, beast::bind_front_handler(&WsSession::on_accept, shared_from_this()));
  }

  // ---- game::ClientSink (any thread) ----
  void send_snapshot(std::uint64_t tick, std::shared_ptr<const std::string> body, std::string suffix) override {
    asio::post(ws_.get_executor(),
               [self = shared_from_this(), tick, body = std::move(body), suffix = std::move(suffix)]() mutable {
                 self->enqueue_snapshot(tick, std::move(body), std::move(suffix), nullptr);
               });
  }
  void send_frame(std::uint64_t tick, std::shared_ptr<const std::string> body,
                  std::shared_ptr<const std::string> frame) override {
    asio::post(ws_.get_executor(),
               [self = shared_from_this(), tick, body = std::move(body), frame = std::move(frame)]() mutable {
                 self->enqueue_snapshot(tick, std::move(body), {}, std::move(frame));
               });
  }
  /// Set by on_write (the strand) once a batch holding the snapshot is written in full, read by
  /// the game thread: the value alone matters, no other memory is published through it.
  std::uint64_t delivered_snapshot() const override { return delivered_.load(std::memory_order_relaxed); }
  /// Published by the strand after every change to the queue (publish_queue); figures only.
  game::SendQueue send_queue() const override {
    return {queued_messages_.load(std::memory_order_relaxed), queued_bytes_.load(std::memory_order_relaxed),
            queued_peak_bytes_.load(std::memory_order_relaxed)};
  }
  void send_message(std::shared_ptr<const std::string> message) override {
    asio::post(ws_.get_executor(),
               [self = shared_from_this(), m = std::move(message)]() mutable { self->enqueue_message(std::move(m)); });
  }
  void close(CloseReason reason, std::string detail) override {
    asio::post(ws_.get_executor(), [self = shared_from_this(), reason, d = std::move(detail)]() mutable {
      self->start_close(reason, std::move(d));
    });
  }

 private:
  /// One queued message: either `frame`, a whole frame built once for many sessions, or
  /// `body` + `suffix` framed here (`header`, in place: no allocation).
  struct Outgoing {
    std::shared_ptr<const std::string> body;
    std::string suffix;
    std::shared_ptr<const std::string> frame;
    FrameHeader header;
    bool snapshot = false;
    std::uint64_t tick = 0;  // a snapshot's server tick (delivered_snapshot)

    /// Bytes this message puts on the wire.
    std::size_t size() const { return frame ? frame->size() : header.size + body->size() + suffix.size(); }

    /// A message: a snapshot of server tick `t`, or (t = 0, not a snapshot) any other message.
    void set(std::shared_ptr<const std::string> b, std::string s, std::shared_ptr<const std::string> f,
             bool is_snapshot, std::uint64_t t) {
      body = std::move(b);
      suffix = std::move(s);
      frame = std::move(f);
      snapshot = is_snapshot;
      tick = t;
      if (!frame) header = binary_frame_header(body->size() + suffix.size());
    }
  };
  /// Messages written in one batch (one writev): everything queued when the previous write
  /// ended, up to this many (the queue holds at most send_queue_snapshots +
  /// send_queue_messages, so a batch usually takes it all).
  static constexpr std::size_t kMaxWriteBatch = 16;
  /// Buffers per message: header, body, suffix (a prebuilt frame takes one).
  static constexpr std::size_t kBuffersPerMessage = 3;

  // on_accept: register, start the Join deadline and the RTT pings, start reading.
  void on_accept(beast::error_code ec) {
    if (ec) return fail(ec, "ws_accept");
    ctx_.sessions.add(id_, weak_from_this(), client_.remote, client_.address);
    ctx_.log.info("ws_open", {{"conn", id_}, {"address", client_.address}, {"remote", client_.remote}});
    if (ctx_.shutting_down) return start_close(CloseReason::kShutdown, "server shutting down");
    join_timer_.expires_after(std::chrono::milliseconds(ctx_.config.handshake_timeout_ms));
    join_timer_.async_wait(beast::bind_front_handler(&WsSession::on_join_timer, shared_from_this()));
    do_ping_timer();
    do_read();
  }

  // on_join_timer: a connection that never joins is closed.
  void on_join_timer(beast::error_code ec) {
    if (ec || join_sent_ || closing_) return;
    start_close(CloseReason::kTimeout, "no Join within " + std::to_string(ctx_.config.handshake_timeout_ms) + " ms");
  }

  // do_ping_timer: an application Ping every ping_interval_ms (RTT metric).
  void do_ping_timer() {
    ping_timer_.expires_after(std::chrono::milliseconds(ctx_.config.ping_interval_ms));
    ping_timer_.async_wait(beast::bind_front_handler(&WsSession::on_ping_timer, shared_from_this()));
  }
  void on_ping_timer(beast::error_code ec) {
    if (ec || closing_) return;
    std::string bytes;
    codec::encode_server_ping(now_us(), bytes);
    enqueue_message(std::make_shared<const std::string>(std::move(bytes)));
    do_ping_timer();
  }

  // do_read: the next whole message (at most read_message_max bytes; Beast closes with 1009 beyond).
  void do_read() { ws_.async_read(buffer_, beast::bind_front_handler(&WsSession::on_read, shared_from_this())); }

  // on_read: rate limit, decode + validate, act; then read on (also while closing, so the close
  // handshake can complete).
  void on_read(beast::error_code ec, std::size_t bytes) {
    if (ec == websocket::error::message_too_big) {
      ctx_.metrics.malformed_messages.inc();
      ctx_.metrics.kicked_too_big.inc();
      ctx_.log.warn("ws_close", {{"conn", id_}, {"reason", "too_big"}, {"limit", ctx_.config.max_message_bytes}});
      return teardown();  // Beast has already sent close 1009 and torn the connection down
    }
    if (ec) {
      // Resume tokens: a close 1000 the client started (not an echo of ours) ends its session.
      if (ec == websocket::error::closed && !closing_ && ws_.reason().code == websocket::close_code::normal)
        ended_ = true;
      teardown();
      return fail(ec, "ws_read");
    }
    ctx_.metrics.messages_received.inc();
    ctx_.metrics.bytes_received.inc(bytes);
    if (!closing_) handle_frame();
    buffer_.consume(buffer_.size());
    do_read();
  }

  bool take_token() {
    const auto now = Clock::now();
    const double dt = std::chrono::duration<double>(now - last_refill_).count();
    last_refill_ = now;
    tokens_ = std::min<double>(ctx_.config.input_burst, tokens_ + dt * ctx_.config.input_rate_hz);
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

  void handle_frame() {
    if (!ws_.got_binary())
      return start_close(CloseReason::kProtocol, "text frames are not accepted: send binary ClientMessage");
    if (!take_token()) {
      // Flooding: drop (counted), never queue. Others' ticks are unaffected.
      ctx_.metrics.inputs_rate_limited.inc();
      return;
    }
    const auto data = buffer_.cdata();
    codec::ClientCommand cmd;
    const codec::Result r = codec::decode_client_message(
        std::span<const std::byte>(static_cast<const std::byte*>(data.data()), data.size()), limits_, cmd);
    if (!r.usable()) {
      ctx_.metrics.malformed_messages.inc();
      ctx_.metrics.kicked_malformed.inc();
      return start_close(CloseReason::kMalformed, std::string(codec::to_string(r.status)) + ": " + r.detail);
    }
    if (r.status == codec::Status::kClamped) {
      ctx_.metrics.violations.inc();
      if (++violations_ >= ctx_.config.max_violations) {
        ctx_.metrics.kicked_violations.inc();
        return start_close(CloseReason::kViolations, "out-of-range values: " + r.detail);
      }
    }
    handle(cmd);
  }

  void handle(codec::ClientCommand& cmd) {
    switch (cmd.type) {
      case codec::ClientCommand::Type::kJoin:
        if (join_sent_) return start_close(CloseReason::kProtocol, "Join sent twice");
        join_sent_ = true;
        role_ = cmd.join.role;
        join_timer_.cancel();
        {
          // The room: started on demand; unknown or over max_rooms closes.
          std::string why;
          game_ = ctx_.rooms.acquire(cmd.join.room, why);
          if (!game_) return start_close(CloseReason::kUnknownRoom, why);
        }
        ctx_.sessions.set_joined(id_, role_ == codec::Role::kPlayer ? "player" : "spectator", cmd.join.display_name);
        game_->post_join(id_, shared_from_this(), std::move(cmd.join));
        return;
      case codec::ClientCommand::Type::kInput:
        if (!join_sent_) return start_close(CloseReason::kProtocol, "Input before Join");
        if (role_ != codec::Role::kPlayer) return start_close(CloseReason::kProtocol, "spectators do not send Input");
        if (game_) game_->post_inputs(id_, std::move(cmd.inputs));
        return;
      case codec::ClientCommand::Type::kPing: {
        std::string bytes;
        codec::encode_server_pong(cmd.time_us, game_ ? game_->tick() : ctx_.game.tick(), bytes);
        enqueue_message(std::make_shared<const std::string>(std::move(bytes)));
        return;
      }
      case codec::ClientCommand::Type::kPong: {
        const std::uint64_t now = now_us();
        // Only echoes of our own recent pings count; anything else is ignored.
        if (cmd.time_us <= now && now - cmd.time_us < 60'000'000)
          ctx_.metrics.rtt_seconds.observe(static_cast<double>(now - cmd.time_us) * 1e-6);
        return;
      }
      case codec::ClientCommand::Type::kClose:
        ended_ = true;  // resume tokens: the client's Close ends its session
        return start_close(CloseReason::kNormal, "client closed");
      case codec::ClientCommand::Type::kAck:
        // Snapshot acknowledgement (+ view rectangle): the room deltas against it.
        if (!join_sent_) return start_close(CloseReason::kProtocol, "Ack before Join");
        if (game_) game_->post_ack(id_, cmd.ack);
        return;
      case codec::ClientCommand::Type::kInspect:
        // The inspector: the room sends this agent's steering trace with each snapshot.
        if (!join_sent_) return start_close(CloseReason::kProtocol, "Inspect before Join");
        if (game_) game_->post_inspect(id_, cmd.inspect_id);
        return;
    }
  }

  // ---- outbound queue (strand only) ----

  /// True (and the client is dropped) when its in-flight write is older than max_send_lag_ms.
  bool too_slow() {
    if (!writing_) return false;
    if (Clock::now() - write_started_ <= std::chrono::milliseconds(ctx_.config.max_send_lag_ms)) return false;
    // Logged before counted: whoever sees the count can also read the line.
    ctx_.log.warn("ws_close", {{"conn", id_}, {"reason", "too_slow"}, {"lag_ms", ctx_.config.max_send_lag_ms}});
    ctx_.metrics.kicked_slow.inc();
    hard_close();
    return true;
  }

  void enqueue_snapshot(std::uint64_t tick, std::shared_ptr<const std::string> body, std::string suffix,
                        std::shared_ptr<const std::string> frame) {
    if (closing_ || too_slow()) return;
    std::size_t snapshots = 0;
    for (const Outgoing& o : queue_) snapshots += o.snapshot ? 1 : 0;
    if (snapshots >= ctx_.config.send_queue_snapshots) {
      // Latest wins: the newest snapshot that is not being written is replaced.
      ctx_.metrics.snapshots_dropped.inc();
      for (std::size_t i = queue_.size(); i-- > in_flight_;) {
        if (queue_[i].snapshot) {
          queue_[i].set(std::move(body), std::move(suffix), std::move(frame), true, tick);
          return publish_queue();
        }
      }
      return;  // every queued snapshot is being written: drop the new one
    }
    queue_.emplace_back().set(std::move(body), std::move(suffix), std::move(frame), true, tick);
    publish_queue();
    maybe_write();
  }

  /// The queue's figures for send_queue(): a few entries at most (send_queue_snapshots +
  /// send_queue_messages), summed after each change rather than kept by every path that edits it.
  void publish_queue() {
    std::size_t bytes = 0;
    for (const Outgoing& o : queue_) bytes += o.size();
    queued_messages_.store(queue_.size(), std::memory_order_relaxed);
    queued_bytes_.store(bytes, std::memory_order_relaxed);
    if (bytes > queued_peak_bytes_.load(std::memory_order_relaxed))
      queued_peak_bytes_.store(bytes, std::memory_order_relaxed);
  }

  void enqueue_message(std::shared_ptr<const std::string> message, bool even_if_closing = false) {
    if ((closing_ && !even_if_closing) || too_slow()) return;
    std::size_t others = 0;
    for (const Outgoing& o : queue_) others += o.snapshot ? 0 : 1;
    if (others >= ctx_.config.send_queue_messages) {
      ctx_.log.warn("ws_close", {{"conn", id_}, {"reason", "too_slow"}, {"queued_messages", others}});
      ctx_.metrics.kicked_slow.inc();
      return hard_close();
    }
    queue_.emplace_back().set(std::move(message), {}, nullptr, false, 0);
    publish_queue();
    maybe_write();
  }

  void maybe_write() {
    if (writing_ || hard_closed_) return;
    if (queue_.empty()) {
      if (closing_ && !close_sent_) do_ws_close();
      return;
    }
    do_write();
  }

  // do_write: everything queued (up to kMaxWriteBatch messages) as one raw write of whole
  // frames straight to the TCP stream (docs/protocol.md, "Framing once, writing to many"): a frame built once
  // for many sessions goes out as is, other messages as header + shared body + suffix; nothing
  // is copied. Beast writes only control frames here; GatedStream keeps the two apart.
  void do_write() {
    writing_ = true;
    write_started_ = Clock::now();
    write_buffers_.clear();
    in_flight_ = std::min(queue_.size(), kMaxWriteBatch);
    for (std::size_t i = 0; i < in_flight_; ++i) {
      const Outgoing& o = queue_[i];
      if (o.frame) {
        write_buffers_.push_back(asio::buffer(*o.frame));
        continue;
      }
      write_buffers_.push_back(asio::buffer(o.header.bytes.data(), o.header.size));
      write_buffers_.push_back(asio::buffer(*o.body));
      if (!o.suffix.empty()) write_buffers_.push_back(asio::buffer(o.suffix));
    }
    ws_.next_layer().write_frames(std::span<const asio::const_buffer>(write_buffers_),
                                  beast::bind_front_handler(&WsSession::on_write, shared_from_this()));
  }

  // on_write: count, pop the batch, next.
  void on_write(beast::error_code ec, std::size_t bytes) {
    writing_ = false;
    if (ec) {
      in_flight_ = 0;
      teardown();
      return fail(ec, "ws_write");
    }
    ctx_.metrics.messages_sent.inc(in_flight_);
    ctx_.metrics.bytes_sent.inc(bytes);
    // Every byte of the batch is in the socket: its snapshots will reach the client in order.
    for (std::size_t i = 0; i < in_flight_; ++i)
      if (queue_[i].snapshot && queue_[i].tick > delivered_.load(std::memory_order_relaxed))
        delivered_.store(queue_[i].tick, std::memory_order_relaxed);
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(in_flight_));
    in_flight_ = 0;
    publish_queue();
    maybe_write();
  }

  // start_close: tell the client why (ServerMessage.close), then the WebSocket close handshake.
  void start_close(CloseReason reason, std::string detail) {
    if (closing_) return;
    closing_ = true;
    close_reason_ = reason;
    close_detail_ = detail.substr(0, 120);
    join_timer_.cancel();
    ping_timer_.cancel();
    // Unsent snapshots are pointless now.
    for (std::size_t i = queue_.size(); i-- > in_flight_;)
      if (queue_[i].snapshot) queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    publish_queue();
    const auto level =
        reason == CloseReason::kNormal || reason == CloseReason::kShutdown ? ops::Level::kInfo : ops::Level::kWarn;
    ctx_.log.log(level, "ws_close", {{"conn", id_}, {"reason", game::to_string(reason)}, {"detail", close_detail_}});
    std::string bytes;
    codec::encode_close(wire_code(reason), close_detail_, bytes);
    enqueue_message(std::make_shared<const std::string>(std::move(bytes)), true);
    // A peer that never completes the close handshake is cut off.
    kill_timer_.expires_after(std::chrono::milliseconds(ctx_.config.handshake_timeout_ms));
    kill_timer_.async_wait([self = shared_from_this()](beast::error_code e) {
      if (!e) self->hard_close();
    });
    maybe_write();
  }

  // do_ws_close: the close frame with code and reason.
  void do_ws_close() {
    close_sent_ = true;
    websocket::close_reason cr(ws_code(close_reason_));
    cr.reason = close_detail_;
    ws_.async_close(cr, beast::bind_front_handler(&WsSession::on_close, shared_from_this()));
  }
  void on_close(beast::error_code ec) {
    kill_timer_.cancel();
    if (ec) fail(ec, "ws_close");
  }

  /// The connection is over (read or write failed, or closed): stop the timers so nothing
  /// keeps the session alive; the destructor then tells the game and the registry.
  void teardown() {
    closing_ = true;
    join_timer_.cancel();
    ping_timer_.cancel();
    kill_timer_.cancel();
  }

  /// Drop the TCP connection at once (slow or unresponsive peers); pending operations abort.
  void hard_close() {
    teardown();
    hard_closed_ = true;
    beast::get_lowest_layer(ws_).close();
  }

  // fail: the one error sink; aborted operations and normal closes are not errors.
  void fail(beast::error_code ec, const char* what) {
    if (ec == asio::error::operation_aborted || ec == websocket::error::closed) return;
    if (ec == beast::error::timeout) {
      ctx_.log.info("ws_timeout", {{"conn", id_}, {"op", what}});
      return;
    }
    ctx_.log.debug("ws_error", {{"conn", id_}, {"op", what}, {"error", ec.message()}});
  }

  websocket::stream<GatedStream> ws_;
  beast::flat_buffer buffer_;
  ServerContext& ctx_;
  ConnectionGuard guard_;
  ClientIdentity client_;  // peer and client address; holds the per-address session count
  const game::ConnectionId id_;
  asio::steady_timer join_timer_;
  asio::steady_timer ping_timer_;
  asio::steady_timer kill_timer_;
  codec::DecodeLimits limits_;
  double tokens_;
  Clock::time_point last_refill_;
  std::uint32_t violations_ = 0;
  bool join_sent_ = false;
  bool ended_ = false;                // resume tokens: the client left on purpose, its token ends (Room::leave)
  std::shared_ptr<game::Game> game_;  // the joined room (keeps it from closing while we are in it)
  codec::Role role_ = codec::Role::kSpectator;
  std::deque<Outgoing> queue_;
  std::atomic<std::uint64_t> delivered_{0};        // newest snapshot tick written in full (delivered_snapshot)
  std::atomic<std::uint64_t> queued_messages_{0};  // send_queue(), written by publish_queue only
  std::atomic<std::uint64_t> queued_bytes_{0};
  std::atomic<std::uint64_t> queued_peak_bytes_{0};
  std::size_t in_flight_ = 0;                      // queue_'s first in_flight_ messages are being written
  std::vector<asio::const_buffer> write_buffers_;  // the batch being written (reserved once)
  bool writing_ = false;
  Clock::time_point write_started_;
  bool closing_ = false;
  bool close_sent_ = false;
  bool hard_closed_ = false;
  CloseReason close_reason_ = CloseReason::kNormal;
  std::string close_detail_;
};

/// The diagnostics echo (echo_endpoint=on): no game, no protocol, just WebSocket. Same
/// timeouts as /ws; messages up to kEchoMaxMessageBytes; one message in flight at a time, so
/// memory per connection is bounded by that limit.
class EchoSession : public std::enable_shared_from_this<EchoSession> {
 public:
  EchoSession(tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard)
      : ws_(std::move(socket)), ctx_(ctx), guard_(std::move(guard)) {}

  // run: limits and timeouts as for /ws, then accept the upgrade.
  void run(http::request<http::string_body> req) {
    beast::get_lowest_layer(ws_).expires_never();
    websocket::stream_base::timeout t{};
    t.handshake_timeout = std::chrono::milliseconds(ctx_.config.handshake_timeout_ms);
    t.idle_timeout = std::chrono::milliseconds(ctx_.config.idle_timeout_ms);
    t.keep_alive_pings = true;
    ws_.set_option(t);
    ws_.read_message_max(kEchoMaxMessageBytes);
    ws_.async_accept(req, beast::bind_front_handler(&EchoSession::on_accept, shared_from_this()));
  }

 private:
  // on_accept: start the read/echo loop.
  void on_accept(beast::error_code ec) {
    if (ec) return fail(ec, "echo_accept");
    ctx_.log.info("echo_open", {});
    do_read();
  }
  // do_read: the next whole message.
  void do_read() { ws_.async_read(buffer_, beast::bind_front_handler(&EchoSession::on_read, shared_from_this())); }
  // on_read: send it back with the same type.
  void on_read(beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "echo_read");
    ws_.text(ws_.got_text());
    ws_.async_write(buffer_.data(), beast::bind_front_handler(&EchoSession::on_write, shared_from_this()));
  }
  // on_write: drop the echoed message, read on.
  void on_write(beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "echo_write");
    buffer_.consume(buffer_.size());
    do_read();
  }
  void fail(beast::error_code ec, const char* what) {
    if (ec == asio::error::operation_aborted || ec == websocket::error::closed) return;
    ctx_.log.debug("echo_error", {{"op", what}, {"error", ec.message()}});
  }

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
  ServerContext& ctx_;
  ConnectionGuard guard_;
};

}  // namespace

void start_echo_session(tcp::socket&& socket, http::request<http::string_body>&& request, ServerContext& ctx,
                        ConnectionGuard guard) {
  std::make_shared<EchoSession>(std::move(socket), ctx, std::move(guard))->run(std::move(request));
}

void start_ws_session(tcp::socket&& socket, http::request<http::string_body>&& request, ServerContext& ctx,
                      ConnectionGuard guard, ClientIdentity client) {
  std::make_shared<WsSession>(std::move(socket), ctx, std::move(guard), std::move(client))->run(std::move(request));
}

}  // namespace flockstep::server::net
