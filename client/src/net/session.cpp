#include "net/session.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include <emscripten/emscripten.h>

#include "codec/server_codec.hpp"

namespace flockstep::client {

namespace {

constexpr double kConnectTimeoutMs = 5000;  // socket open + Welcome
constexpr double kSilenceTimeoutMs = 5000;  // the server pings every second
constexpr double kPingIntervalMs = 1000;
constexpr double kBackoffBaseMs = 250;
constexpr double kBackoffMaxMs = 8000;

std::uint64_t now_us() { return static_cast<std::uint64_t>(emscripten_get_now() * 1000.0); }

}  // namespace

const char* to_string(LinkState s) {
  switch (s) {
    case LinkState::kIdle: return "idle";
    case LinkState::kConnecting: return "connecting";
    case LinkState::kJoining: return "joining";
    case LinkState::kLive: return "live";
    case LinkState::kWaitingRetry: return "reconnecting";
  }
  return "?";
}

void Session::configure(std::string url, Handlers handlers) {
  url_ = std::move(url);
  handlers_ = std::move(handlers);
}

void Session::start(codec::Role role, std::string display_name, double now_ms, std::string room) {
  stop();
  role_ = role;
  name_ = std::move(display_name);
  room_ = std::move(room);
  resume_token_.clear();
  had_welcome_ = false;
  attempt_ = 0;
  connect(now_ms);
}

void Session::stop() {
  if (conn_.active()) conn_.close(1000, "leaving");
  bytes_received_total_ += conn_.bytes_received();
  bytes_sent_total_ += conn_.bytes_sent();
  conn_.reset();
  state_ = LinkState::kIdle;
  resume_token_.clear();
}

void Session::connect(double now_ms) {
  bytes_received_total_ += conn_.bytes_received();
  bytes_sent_total_ += conn_.bytes_sent();
  state_ = LinkState::kConnecting;
  attempt_started_ms_ = now_ms;
  server_said_bad_resume_ = false;
  refused_ = false;
  Connection::Handlers h;
  h.on_open = [this] { on_open(emscripten_get_now()); };
  h.on_message = [this](const std::uint8_t* d, std::uint32_t n) { on_message(d, n); };
  h.on_close = [this](std::uint16_t code, const std::string& reason, bool) { on_close(code, reason); };
  if (!conn_.open(url_, std::move(h))) lost("cannot create a WebSocket for " + url_, false);
}

void Session::send(const std::string& bytes) { conn_.send(bytes); }

void Session::on_open(double now_ms) {
  state_ = LinkState::kJoining;
  last_message_ms_ = now_ms;
  codec::JoinRequest j;
  j.role = role_;
  j.display_name = name_;
  resuming_ = role_ == codec::Role::kPlayer && !resume_token_.empty();
  if (resuming_) j.resume_token = resume_token_;
  j.room = room_;
  out_.clear();
  if (!codec::encode_join(j, out_)) return;
  send(out_);
}

void Session::on_message(const std::uint8_t* data, std::uint32_t size) {
  const double now = emscripten_get_now();
  last_message_ms_ = now;
  const codec::Result r =
      codec::decode_server_message(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size), msg_);
  if (!r.usable()) {
    ++bad_messages_;
    return;
  }
  if (msg_.payload_case() == v1::ServerMessage::kDeltaSnapshot)
    snapshot_parse_ms_ = snapshot_parse_ms_ * 0.9 + (emscripten_get_now() - now) * 0.1;
  switch (msg_.payload_case()) {
    case v1::ServerMessage::kWelcome: {
      welcome_ = msg_.welcome();
      state_ = LinkState::kLive;
      const bool resumed = resuming_;
      if (role_ == codec::Role::kPlayer) resume_token_ = welcome_.resume_token();
      if (had_welcome_) ++reconnects_;
      if (resumed) ++resumes_;
      had_welcome_ = true;
      attempt_ = 0;
      next_ping_ms_ = now;
      pongs_this_connection_ = 0;
      last_close_.clear();
      {
        // Delta baselines belong to one connection: a new one starts with a full snapshot.
        sim::Scenario scenario;
        if (codec::decode_world_spec(welcome_.world(), scenario).ok()) receiver_.configure(scenario);
        else receiver_.reset();
      }
      if (role_ == codec::Role::kSpectator) view_dirty_ = view_dirty_ || view_.max_x > view_.min_x;
      inspect_sent_ = 0;  // a new connection: the room traces nothing for it yet
      if (handlers_.on_welcome) handlers_.on_welcome(welcome_, resumed);
      break;
    }
    case v1::ServerMessage::kDeltaSnapshot: {
      if (state_ != LinkState::kLive) break;
      const v1::DeltaSnapshot& d = msg_.delta_snapshot();
      const codec::Result rr = receiver_.receive(d);
      if (rr.status == codec::Status::kEmpty) ++baseline_misses_;
      else if (!rr.ok()) ++bad_messages_;
      // Acknowledge what was decoded (0 after a missing baseline: the server sends a full one).
      out_.clear();
      if (codec::encode_ack(receiver_.ack_tick(), view_dirty_ ? &view_ : nullptr, out_)) {
        send(out_);
        view_dirty_ = false;
      }
      if (rr.ok() && receiver_.tick() == d.server_tick() && handlers_.on_snapshot) {
        SnapshotFrame f;
        f.server_tick = d.server_tick();
        f.last_input_sequence = d.last_input_sequence();
        f.input_held_ticks = d.input_held_ticks();
        f.input_slips = d.input_slips();
        f.state_hash = d.state_hash();
        f.baseline_tick = d.baseline_tick();
        f.agents = &receiver_.agents();
        handlers_.on_snapshot(f, size);
      }
      break;
    }
    case v1::ServerMessage::kEvents:
      if (state_ == LinkState::kLive && handlers_.on_events) handlers_.on_events(msg_.events());
      break;
    case v1::ServerMessage::kPing:
      out_.clear();
      if (codec::encode_pong(msg_.ping().sender_time_us(), out_)) send(out_);
      break;
    case v1::ServerMessage::kPong: {
      const std::uint64_t t = now_us();
      const std::uint64_t echo = msg_.pong().echo_time_us();
      // The first answers of a connection come while the page is still busy starting up (first
      // frames, the world arriving): they measure the page, not the network. Skip two.
      if (echo <= t && ++pongs_this_connection_ > 2) {
        last_rtt_ms_ = static_cast<double>(t - echo) / 1000.0;
        // Median of the last 8: one slow answer (page start-up, a GC pause) does not linger.
        rtt_samples_[rtt_count_++ % rtt_samples_.size()] = last_rtt_ms_;
        const std::size_t n = rtt_count_ < rtt_samples_.size() ? rtt_count_ : rtt_samples_.size();
        std::array<double, 8> sorted = rtt_samples_;
        std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n));
        rtt_ms_ = sorted[n / 2];
      }
      break;
    }
    case v1::ServerMessage::kClose:
      last_close_ = msg_.close().reason();
      if (last_close_.empty()) last_close_ = "server closed the connection";
      if (msg_.close().code() == v1::Close::CODE_BAD_RESUME) server_said_bad_resume_ = true;
      if (msg_.close().code() == v1::Close::CODE_UNKNOWN_ROOM) refused_ = true;
      break;
    case v1::ServerMessage::kSteeringTrace:
      if (state_ == LinkState::kLive && handlers_.on_steering_trace) handlers_.on_steering_trace(msg_.steering_trace());
      break;
    case v1::ServerMessage::kGroupUpdate:
      if (state_ == LinkState::kLive && handlers_.on_group_update) handlers_.on_group_update(msg_.group_update());
      break;
    default: break;
  }
}

void Session::on_close(std::uint16_t code, const std::string& reason) {
  if (state_ == LinkState::kIdle) return;  // the user left
  if (last_close_.empty())
    last_close_ = reason.empty() ? "connection closed (WebSocket code " + std::to_string(code) + ")" : reason;
  if (refused_) {
    // No such room (or no room left): retrying cannot help; the viewer goes back to the lobby.
    state_ = LinkState::kIdle;
    if (handlers_.on_refused) handlers_.on_refused(last_close_);
    return;
  }
  if (server_said_bad_resume_) {
    // The craft is gone (window expired or the server restarted): join again as a new player.
    resume_token_.clear();
    lost(last_close_, true);
    return;
  }
  lost(last_close_, false);
}

void Session::lost(const std::string& reason, bool retry_now) {
  state_ = LinkState::kWaitingRetry;
  double delay = 0;
  if (!retry_now) {
    const double base = std::fmin(kBackoffMaxMs, kBackoffBaseMs * std::pow(2.0, attempt_));
    delay =
        base * (0.8 + 0.4 * static_cast<double>(emscripten_random()));  // jitter: clients do not come back in lockstep
  }
  ++attempt_;
  const double now = emscripten_get_now();
  retry_at_ms_ = now + delay;
  if (handlers_.on_lost) handlers_.on_lost(reason);
}

void Session::update(double now_ms) {
  now_ms_ = now_ms;
  switch (state_) {
    case LinkState::kWaitingRetry:
      if (now_ms >= retry_at_ms_) connect(now_ms);
      break;
    case LinkState::kConnecting:
    case LinkState::kJoining:
      if (now_ms - attempt_started_ms_ > kConnectTimeoutMs) {
        conn_.reset();
        last_close_ = "no answer from the server within 5 s";
        lost(last_close_, false);
      }
      break;
    case LinkState::kLive:
      if (now_ms - last_message_ms_ > kSilenceTimeoutMs) {
        conn_.reset();
        last_close_ = "no data from the server for 5 s";
        lost(last_close_, false);
        break;
      }
      if (now_ms >= next_ping_ms_) {
        // Quick pings at first so the round-trip time is known within a second, then 1 Hz.
        next_ping_ms_ = now_ms + (pongs_this_connection_ < 4 ? kPingIntervalMs / 4 : kPingIntervalMs);
        out_.clear();
        if (codec::encode_ping(now_us(), out_)) send(out_);
      }
      break;
    case LinkState::kIdle: break;
  }
}

bool Session::send_inputs(std::span<const codec::InputFrame> frames) {
  if (state_ != LinkState::kLive || frames.empty()) return false;
  out_.clear();
  if (!codec::encode_input(frames, out_)) return false;
  return conn_.send(out_);
}

void Session::set_inspect(std::uint32_t agent) {
  if (state_ != LinkState::kLive || agent == inspect_sent_) return;
  out_.clear();
  if (codec::encode_inspect(agent, out_) && conn_.send(out_)) inspect_sent_ = agent;
}

void Session::set_view(const codec::ViewRect& view) {
  if (role_ != codec::Role::kSpectator || view == view_) return;
  view_ = view;
  view_dirty_ = true;
}

void Session::drop(double now_ms) {
  if (state_ == LinkState::kIdle) return;
  (void)now_ms;
  conn_.reset();
  last_close_ = "connection dropped by the client (test)";
  lost(last_close_, false);
}

}  // namespace flockstep::client
