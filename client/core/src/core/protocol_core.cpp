#include "core/protocol_core.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace flockstep::client {

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

// ---- session and link ----

void ProtocolCore::start(CoreConfig config, double now_ms) {
  stop();
  config_ = std::move(config);
  config_.max_input_frames = std::clamp<std::uint32_t>(config_.max_input_frames, 1, CoreConfig::kMaxInputFrames);
  had_welcome_ = false;
  resume_next_ = true;
  attempt_ = 0;
  predictor_.reset();
  respawn_pending_ = false;
  state_ = LinkState::kConnecting;
  attempt_started_ms_ = now_ms;
  server_close_ = v1::Close::CODE_UNSPECIFIED;
}

void ProtocolCore::stop() {
  state_ = LinkState::kIdle;
  welcomed_ = false;
  resume_token_.clear();
}

const std::string& ProtocolCore::opened(double now_ms) {
  state_ = LinkState::kJoining;
  last_message_ms_ = now_ms;
  welcomed_ = false;
  server_close_ = v1::Close::CODE_UNSPECIFIED;
  codec::JoinRequest j;
  j.role = config_.role;
  j.display_name = config_.display_name;
  j.room = config_.room;
  // The receiver keeps its 32 newest decoded frames from the first one on, so any snapshot
  // written to this connection can be the next one's baseline (and a client that does not
  // decode, decode_snapshots off, reads no baseline at all).
  j.delivered_baselines = true;
  resuming_ = player() && resume_next_ && !resume_token_.empty();
  if (resuming_) j.resume_token = resume_token_;
  out_.clear();
  if (!codec::encode_join(j, out_)) out_.clear();  // a name/room the codec refuses: nothing to send
  return out_;
}

ReconnectDecision ProtocolCore::closed(const std::string& reason, double now_ms, double unit_random) {
  if (state_ == LinkState::kIdle) {
    ReconnectDecision d;
    d.why = "closed by the user";
    return d;
  }
  if (welcomed_) lost_at_ms_ = now_ms;
  welcomed_ = false;
  LinkEnd end;
  end.had_welcome = had_welcome_;
  end.server_code = server_close_;
  end.server_reason = server_close_ != v1::Close::CODE_UNSPECIFIED ? last_close_ : std::string();
  end.lost_for_ms = now_ms - lost_at_ms_;
  if (server_close_ == v1::Close::CODE_UNSPECIFIED) last_close_ = reason;
  const ReconnectDecision d =
      config_.reconnect.decide(end, attempt_, unit_random, static_cast<double>(welcome_.resume_window_ms()));
  if (!d.retry) {
    state_ = LinkState::kIdle;
    return d;
  }
  resume_next_ = d.resume;
  if (!d.resume) resume_token_.clear();
  state_ = LinkState::kWaitingRetry;
  retry_at_ms_ = now_ms + d.delay_ms;
  ++attempt_;
  return d;
}

UpdateResult ProtocolCore::update(double now_ms) {
  UpdateResult r;
  switch (state_) {
    case LinkState::kWaitingRetry:
      if (now_ms >= retry_at_ms_) {
        state_ = LinkState::kConnecting;
        attempt_started_ms_ = now_ms;
        server_close_ = v1::Close::CODE_UNSPECIFIED;
        r.connect = true;
      }
      break;
    case LinkState::kConnecting:
    case LinkState::kJoining:
      if (now_ms - attempt_started_ms_ > kConnectTimeoutMs) {
        last_close_ = "no answer from the server within 5 s";
        r.lost = true;
      }
      break;
    case LinkState::kLive:
      if (now_ms - last_message_ms_ > kSilenceTimeoutMs) {
        last_close_ = "no data from the server for 5 s";
        r.lost = true;
        break;
      }
      if (now_ms >= next_ping_ms_) {
        // Quick pings at first so the round-trip time is known within a second, then 1 Hz.
        next_ping_ms_ = now_ms + (pongs_this_connection_ < 4 ? kPingIntervalMs / 4 : kPingIntervalMs);
        r.send = ping(now_ms);
      }
      break;
    case LinkState::kIdle: break;
  }
  return r;
}

// ---- messages ----

ReceiveResult ProtocolCore::receive(std::span<const std::byte> bytes, double now_ms) {
  last_message_ms_ = now_ms;
  const codec::Result r = codec::decode_server_message(bytes, msg_);
  if (!r.usable()) {
    ++bad_messages_;
    ReceiveResult e;
    e.detail = r.detail;
    return e;
  }
  ReceiveResult res;
  res.type = Received::kIgnored;
  switch (msg_.payload_case()) {
    case v1::ServerMessage::kWelcome: return on_welcome(msg_.welcome());
    case v1::ServerMessage::kDeltaSnapshot:
      if (welcomed_) return on_delta(msg_.delta_snapshot());
      res.detail = "a snapshot before the Welcome";
      break;
    case v1::ServerMessage::kSnapshot:
      // The plain stream (no baselines, nothing to acknowledge): only the input window moves.
      res.type = Received::kPlainSnapshot;
      if (welcomed_ && player()) predictor_.acknowledge(msg_.player().last_input_sequence());
      break;
    case v1::ServerMessage::kEvents:
      if (!welcomed_) break;
      on_events(msg_.events());
      res.type = Received::kEvents;
      break;
    case v1::ServerMessage::kPing:
      res.type = Received::kPing;
      out_.clear();
      if (codec::encode_pong(msg_.ping().sender_time_us(), out_)) res.reply = &out_;
      break;
    case v1::ServerMessage::kPong:
      res.type = Received::kPong;
      on_pong(msg_.pong().echo_time_us(), now_ms);
      break;
    case v1::ServerMessage::kClose:
      res.type = Received::kClose;
      server_close_ = msg_.close().code();
      last_close_ = msg_.close().reason().empty() ? "server closed the connection" : msg_.close().reason();
      break;
    case v1::ServerMessage::kSteeringTrace:
      if (welcomed_) res.type = Received::kSteeringTrace;
      break;
    case v1::ServerMessage::kGroupUpdate:
      if (welcomed_) return on_group_update(msg_.group_update());
      break;
    default:
      // A payload newer than this client.
      res.detail = "unexpected ServerMessage payload " + std::to_string(msg_.payload_case());
      break;
  }
  return res;
}

ReceiveResult ProtocolCore::on_welcome(const v1::Welcome& w) {
  ReceiveResult res;
  res.type = Received::kWelcome;
  welcome_ = w;
  welcomed_ = true;
  state_ = LinkState::kLive;
  res.resumed = resuming_;
  if (player()) resume_token_ = w.resume_token();
  if (had_welcome_) ++reconnects_;
  if (res.resumed) ++resumes_;
  had_welcome_ = true;
  resume_next_ = true;
  attempt_ = 0;
  next_ping_ms_ = last_message_ms_;
  pongs_this_connection_ = 0;
  last_close_.clear();
  entity_ = w.entity_id();
  player_id_ = w.player_id();
  tick_rate_hz_ = w.tick_rate_hz() > 0 ? w.tick_rate_hz() : 60;
  snapshot_rate_hz_ = w.snapshot_rate_hz() > 0 ? w.snapshot_rate_hz() : 20;
  window_max_ = std::clamp<std::uint32_t>(
      std::min(config_.max_input_frames, w.max_input_frames() > 0 ? w.max_input_frames() : CoreConfig::kMaxInputFrames),
      1, CoreConfig::kMaxInputFrames);
  inspect_sent_ = 0;  // a new connection: the room traces nothing for it yet
  ack_every_ = std::clamp<std::uint32_t>(w.ack_every_snapshots(), 1, codec::kMaxAckEverySnapshots);
  since_ack_ = -1;           // its first snapshot is acknowledged at once
  view_dirty_ = have_view_;  // ... and knows no view rectangle
  respawn_pending_ = false;
  // The one decode of the world: the receiver's geometry, the prediction's craft, obstacles and
  // borders, and what the transport draws or reports all come from this scenario.
  sim::Scenario sc;
  const codec::Result r = codec::decode_world_spec(w.world(), sc);
  if (r.ok()) {
    // The world steps with dt = 1.0 / tick_rate_hz; prediction must use the very same double.
    sc.tick_rate_hz = static_cast<std::int32_t>(tick_rate_hz_);
    scenario_ = std::move(sc);
    world_spec_ = w.world();
    receiver_.configure(scenario_);  // delta baselines belong to one connection
    predictor_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
    res.world_ok = true;
  } else {
    receiver_.reset();
    res.detail = "bad world in Welcome: " + r.detail;
  }
  // Sequences keep growing across connections: the server skips sequences it already has.
  predictor_.reset_keep_sequence();
  return res;
}

const std::string* ProtocolCore::ack() {
  const std::uint64_t tick = config_.decode_snapshots ? receiver_.ack_tick() : msg_.delta_snapshot().server_tick();
  ++deltas_received_;
  // Due on a connection's first snapshot (a client that acknowledges gets deltas), after a
  // missing baseline (0 asks for a full snapshot: no reason to wait), with a new view, and every
  // ack_every_-th snapshot. In between nothing: the server codes against the newest snapshot it
  // wrote to the socket, which TCP delivers in order, so an ack only tells it the client keeps
  // up (pacing, docs/protocol.md "Ack"); skipping it saves a message, a read and a hand-off to
  // the game thread per snapshot on both ends.
  const bool due = since_ack_ < 0 || tick == 0 || view_dirty_ || ++since_ack_ >= ack_every_;
  if (!due) return nullptr;
  out_.clear();
  if (!codec::encode_ack(tick, view_dirty_ ? &view_ : nullptr, out_)) return nullptr;
  view_dirty_ = false;
  // After Ack{0} the first snapshot decoded again is acknowledged at once, like a connection's first.
  since_ack_ = tick == 0 ? -1 : 0;
  ++acks_sent_;
  return &out_;
}

ReceiveResult ProtocolCore::on_delta(const v1::DeltaSnapshot& d) {
  ReceiveResult res;
  res.type = Received::kSnapshotSkipped;
  const v1::PlayerSnapshot& p = msg_.player();  // all zero for a spectator
  if (player() && !config_.predict) predictor_.acknowledge(p.last_input_sequence());
  if (!config_.decode_snapshots) {
    res.detail = "not decoded";
    res.reply = ack();
    return res;
  }
  const codec::Result rr = receiver_.receive(msg_);
  if (rr.status == codec::Status::kEmpty) {
    ++baseline_misses_;
    res.baseline_missing = true;
  } else if (!rr.ok()) {
    ++bad_messages_;
  }
  // Acknowledge what was decoded (0 after a missing baseline: the server sends a full one).
  res.reply = ack();
  if (!rr.ok() || receiver_.tick() != d.server_tick()) {
    res.stale = rr.ok();
    res.detail = rr.ok() ? "stale: not newer than the last snapshot" : rr.detail;
    return res;
  }
  res.type = Received::kSnapshot;
  if (player() && config_.predict && entity_ != 0) {
    for (const sim::AgentView& a : receiver_.agents()) {
      if (a.id.value != entity_) continue;
      reconcile_own(a, p, res.own);
      break;
    }
  }
  return res;
}

void ProtocolCore::reconcile_own(const sim::AgentView& own, const v1::PlayerSnapshot& p, OwnUpdate& out) {
  out.server = {own.position, own.velocity, own.orientation, own.angular_velocity};
  out.before = predictor_.state();
  out.had_state = predictor_.has_state();
  // A capture respawns the craft where only the server decides: rebase, never a misprediction.
  out.respawned = out.had_state && respawn_pending_;
  out.result = predictor_.reconcile(
      out.server, ServerProgress{p.last_input_sequence(), p.input_held_ticks(), p.input_slips(), !respawn_pending_});
  respawn_pending_ = false;
  out.reconciled = true;
}

void ProtocolCore::on_events(const v1::Events& e) {
  if (!player() || entity_ == 0) return;
  for (const v1::Capture& c : e.captures())
    if (c.entity_id() == entity_) respawn_pending_ = true;
  for (const v1::Respawn& r : e.respawns())
    if (r.entity_id() == entity_) respawn_pending_ = true;
}

ReceiveResult ProtocolCore::on_group_update(const v1::GroupUpdate& u) {
  ReceiveResult res;
  res.type = Received::kGroupUpdate;
  res.group = u.group();
  if (u.group() < 0 || static_cast<std::size_t>(u.group()) >= scenario_.groups.size() ||
      u.group() >= world_spec_.groups_size()) {
    res.detail = "group update: no group " + std::to_string(u.group());
    return res;
  }
  // Only the named group is decoded; the whole scenario is validated again because a group
  // refers to others (targets, paths, formations) and the world's limits.
  sim::GroupSpec g;
  const codec::Result r = codec::decode_group(u.spec(), "group_update.spec", g);
  if (!r.ok()) {
    res.detail = r.detail;
    return res;
  }
  sim::GroupSpec& slot = scenario_.groups[static_cast<std::size_t>(u.group())];
  std::swap(slot, g);
  if (std::string why = sim::validate(scenario_); !why.empty()) {
    std::swap(slot, g);  // keep the world as it was
    res.detail = "group update: " + why;
    return res;
  }
  *world_spec_.mutable_groups(u.group()) = u.spec();
  res.applied = true;
  return res;
}

void ProtocolCore::on_pong(std::uint64_t echo_us, double now_ms) {
  const auto t = static_cast<std::uint64_t>(std::max(0.0, now_ms) * 1000.0);
  // The first answers of a connection come while the page is still busy starting up (first
  // frames, the world arriving): they measure the page, not the network. Skip them.
  if (echo_us > t || ++pongs_this_connection_ <= kRttWarmupPongs) return;
  last_rtt_ms_ = static_cast<double>(t - echo_us) / 1000.0;
  // Median of the last few: one slow answer (page start-up, a GC pause) does not linger.
  rtt_samples_[rtt_count_++ % rtt_samples_.size()] = last_rtt_ms_;
  const std::size_t n = std::min(rtt_count_, rtt_samples_.size());
  std::array<double, kRttSamples> sorted = rtt_samples_;
  std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n));
  rtt_ms_ = sorted[n / 2];
}

// ---- outgoing ----

std::uint32_t ProtocolCore::advance(sim::PlayerInput input) {
  if (!player() || !welcomed_) return 0;
  return predictor_.advance(input);
}

const std::string* ProtocolCore::input_message() {
  input_count_ = 0;
  if (!live() || !player()) return nullptr;
  const std::int32_t n = predictor_.unacked(std::span<InputRecord>(window_.data(), window_max_));
  if (n == 0) return nullptr;
  for (std::int32_t k = 0; k < n; ++k) {
    const InputRecord& rec = window_[static_cast<std::size_t>(k)];
    frames_[static_cast<std::size_t>(k)] = {rec.sequence, rec.input.turn, rec.input.throttle};
  }
  out_.clear();
  if (!codec::encode_input(std::span<const codec::InputFrame>(frames_.data(), static_cast<std::size_t>(n)), out_))
    return nullptr;
  input_count_ = n;
  return &out_;
}

const std::string* ProtocolCore::ping(double now_ms) {
  out_.clear();
  if (!codec::encode_ping(static_cast<std::uint64_t>(std::max(0.0, now_ms) * 1000.0), out_)) return nullptr;
  return &out_;
}

const std::string* ProtocolCore::inspect(std::uint32_t agent) {
  out_.clear();
  if (!codec::encode_inspect(agent, out_)) return nullptr;
  return &out_;
}

const std::string* ProtocolCore::inspect_if_changed(std::uint32_t agent) {
  if (!live() || agent == inspect_sent_) return nullptr;
  const std::string* bytes = inspect(agent);
  if (bytes) inspect_sent_ = agent;
  return bytes;
}

bool ProtocolCore::set_view(const codec::ViewRect& v) {
  if (player()) return false;
  for (double x : {v.min_x, v.min_y, v.max_x, v.max_y})
    if (!std::isfinite(x)) return false;
  if (v.min_x > v.max_x || v.min_y > v.max_y) return false;
  if (have_view_ && v == view_) return true;
  view_ = v;
  have_view_ = true;
  view_dirty_ = true;
  return true;
}

const std::string& ProtocolCore::leave_message() {
  v1::ClientMessage m;
  m.mutable_close()->set_code(v1::Close::CODE_NORMAL);
  out_.clear();
  m.SerializeToString(&out_);
  return out_;
}

}  // namespace flockstep::client
