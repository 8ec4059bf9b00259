/// \file sdk_core.cpp
/// The wasm core of the JavaScript SDK (@flockstep/client): the project's own codec
/// (proto/codec: protobuf envelopes, the bit-packed delta snapshots, SnapshotReceiver) and the
/// viewer's own-craft prediction (client/src/predict/player_prediction) behind one small embind
/// class. JavaScript only moves bytes between the WebSocket and this class and gets plain objects
/// back, so there is one implementation of the wire format and of the prediction, not two.
///
/// Every call that has something to send back (Ack after a snapshot, Pong after a Ping, the input
/// window) returns it as `reply` (a Uint8Array copy) for the JS side to write to the socket.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "predict/player_prediction.hpp"

namespace flockstep::sdk {
namespace {

using emscripten::val;

/// A Uint8Array holding a copy of `bytes` (the wasm heap may move when it grows).
val bytes_to_js(const std::string& bytes) {
  val view(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data())));
  return val::global("Uint8Array").new_(view);
}

val vec2(double x, double y) {
  val v = val::object();
  v.set("x", x);
  v.set("y", y);
  return v;
}

/// uint64 values that may exceed 2^53 (hashes, tokens) travel as decimal strings; ticks are
/// far below 2^53 (4.7 million years at 60 Hz) and travel as numbers.
val u64_string(std::uint64_t v) { return val(std::to_string(v)); }
double tick(std::uint64_t v) { return static_cast<double>(v); }

const char* kind_str(sim::AgentKind k) {
  switch (k) {
    case sim::AgentKind::kPlayer: return "player";
    case sim::AgentKind::kFlock: return "flock";
    case sim::AgentKind::kPursuer: return "pursuer";
    case sim::AgentKind::kPatrol: return "patrol";
    case sim::AgentKind::kWanderer: return "wanderer";
    case sim::AgentKind::kCount: break;
  }
  return "unknown";
}

const char* state_str(sim::BehaviorState s) {
  switch (s) {
    case sim::BehaviorState::kNone: return "none";
    case sim::BehaviorState::kSeeking: return "seeking";
    case sim::BehaviorState::kIntercepting: return "intercepting";
    case sim::BehaviorState::kLosFallback: return "los_fallback";
    case sim::BehaviorState::kFleeing: return "fleeing";
    case sim::BehaviorState::kAvoiding: return "avoiding";
    case sim::BehaviorState::kPatrolling: return "patrolling";
    case sim::BehaviorState::kHiding: return "hiding";
    case sim::BehaviorState::kCaptured: return "captured";
  }
  return "unknown";
}

const char* close_str(v1::Close::Code c) {
  switch (c) {
    case v1::Close::CODE_NORMAL: return "normal";
    case v1::Close::CODE_SHUTDOWN: return "shutdown";
    case v1::Close::CODE_MALFORMED: return "malformed";
    case v1::Close::CODE_TOO_BIG: return "too_big";
    case v1::Close::CODE_RATE_LIMITED: return "rate_limited";
    case v1::Close::CODE_TOO_SLOW: return "too_slow";
    case v1::Close::CODE_ROOM_FULL: return "room_full";
    case v1::Close::CODE_TIMEOUT: return "timeout";
    case v1::Close::CODE_BAD_RESUME: return "bad_resume";
    case v1::Close::CODE_UNKNOWN_ROOM: return "unknown_room";
    default: return "unspecified";
  }
}

val agent_to_js(const sim::AgentView& a) {
  val o = val::object();
  o.set("id", a.id.value);
  o.set("kind", val(kind_str(a.kind)));
  o.set("group", a.group);
  o.set("position", vec2(a.position.x, a.position.y));
  o.set("velocity", vec2(a.velocity.x, a.velocity.y));
  o.set("heading", a.orientation);
  o.set("angularVelocity", a.angular_velocity);
  o.set("targetId", a.target.value);
  o.set("aim", vec2(a.aim.x, a.aim.y));
  o.set("state", val(state_str(a.state)));
  o.set("spawnTick", tick(a.spawn_tick));
  return o;
}

val craft_to_js(const behavior::CraftState& s) {
  val o = val::object();
  o.set("position", vec2(s.position.x, s.position.y));
  o.set("velocity", vec2(s.velocity.x, s.velocity.y));
  o.set("heading", s.orientation);
  o.set("angularVelocity", s.angular_velocity);
  return o;
}

val world_to_js(const v1::WorldSpec& w) {
  val o = val::object();
  o.set("name", w.name());
  o.set("description", w.description());
  o.set("width", w.width());
  o.set("height", w.height());
  o.set("wrap", w.wrap());
  o.set("tickRateHz", w.tick_rate_hz());
  val obstacles = val::array();
  for (const v1::Circle& c : w.obstacles()) {
    val ob = vec2(c.center().x(), c.center().y());
    ob.set("radius", c.radius());
    obstacles.call<void>("push", ob);
  }
  o.set("obstacles", obstacles);
  val walls = val::array();
  for (const v1::Wall& wl : w.walls()) {
    val wo = val::object();
    wo.set("a", vec2(wl.a().x(), wl.a().y()));
    wo.set("b", vec2(wl.b().x(), wl.b().y()));
    walls.call<void>("push", wo);
  }
  o.set("walls", walls);
  val groups = val::array();
  for (const v1::AgentGroup& g : w.groups()) {
    val go = val::object();
    go.set("name", g.name());
    go.set("technique", g.technique());
    go.set("count", g.count());
    groups.call<void>("push", go);
  }
  o.set("groups", groups);
  return o;
}

val events_to_js(const v1::Events& e) {
  val o = val::object();
  o.set("serverTick", tick(e.server_tick()));
  val captures = val::array();
  for (const v1::Capture& c : e.captures()) {
    val x = val::object();
    x.set("playerId", c.player_id());
    x.set("entityId", c.entity_id());
    x.set("pursuerId", c.pursuer_id());
    x.set("tick", tick(c.tick()));
    x.set("survivedTicks", tick(c.survived_ticks()));
    captures.call<void>("push", x);
  }
  o.set("captures", captures);
  val respawns = val::array();
  for (const v1::Respawn& r : e.respawns()) {
    val x = val::object();
    x.set("playerId", r.player_id());
    x.set("entityId", r.entity_id());
    x.set("tick", tick(r.tick()));
    respawns.call<void>("push", x);
  }
  o.set("respawns", respawns);
  val scores = val::array();
  for (const v1::Score& s : e.scores()) {
    val x = val::object();
    x.set("playerId", s.player_id());
    x.set("displayName", s.display_name());
    x.set("aliveTicks", tick(s.alive_ticks()));
    x.set("bestTicks", tick(s.best_ticks()));
    x.set("captures", s.captures());
    x.set("bot", s.bot());
    scores.call<void>("push", x);
  }
  o.set("scores", scores);
  val presence = val::array();
  for (const v1::PlayerPresence& p : e.presence()) {
    val x = val::object();
    x.set("playerId", p.player_id());
    x.set("entityId", p.entity_id());
    x.set("displayName", p.display_name());
    x.set("joined", p.joined());
    x.set("bot", p.bot());
    presence.call<void>("push", x);
  }
  o.set("presence", presence);
  return o;
}

}  // namespace

/// One connection's protocol state. See file comment.
class Core {
 public:
  /// Bytes of a Join (protocol codec::kProtocolVersion). role: "player" or "spectator";
  /// resume_token: empty, or the Welcome's token to take the same craft back on a new connection
  /// (the reconnect of index.mjs). Returns null for a bad role or a name/room/token the codec
  /// cannot encode.
  val join(const std::string& role, const std::string& name, const std::string& room, const std::string& resume_token) {
    codec::JoinRequest j;
    j.resume_token = resume_token;
    if (role == "player") j.role = codec::Role::kPlayer;
    else if (role == "spectator") j.role = codec::Role::kSpectator;
    else return val::null();
    player_ = j.role == codec::Role::kPlayer;
    j.display_name = name;
    j.room = room;
    out_.clear();
    if (!codec::encode_join(j, out_)) return val::null();
    return bytes_to_js(out_);
  }

  /// Decode one server frame. Returns {type, ..., reply?}; type is one of welcome, snapshot,
  /// events, group_update, close, pong, ping, error.
  val receive(const std::string& bytes) {
    val r = val::object();
    const codec::Result res =
        codec::decode_server_message(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), msg_);
    if (!res.usable()) {
      r.set("type", val("error"));
      r.set("detail", res.detail);
      return r;
    }
    switch (msg_.payload_case()) {
      case v1::ServerMessage::kWelcome: welcome(msg_.welcome(), r); break;
      case v1::ServerMessage::kDeltaSnapshot: snapshot(msg_.delta_snapshot(), r); break;
      case v1::ServerMessage::kEvents:
        r.set("type", val("events"));
        r.set("events", events_to_js(msg_.events()));
        break;
      case v1::ServerMessage::kGroupUpdate:
        r.set("type", val("group_update"));
        r.set("serverTick", tick(msg_.group_update().server_tick()));
        r.set("group", msg_.group_update().group());
        r.set("name", msg_.group_update().spec().name());
        r.set("count", msg_.group_update().spec().count());
        break;
      case v1::ServerMessage::kSteeringTrace: {
        sim::SteeringTrace t;
        const codec::Result tr = codec::decode_steering_trace(msg_.steering_trace(), t);
        if (!tr.ok()) {
          r.set("type", val("error"));
          r.set("detail", tr.detail);
          break;
        }
        r.set("type", val("steering_trace"));
        val o = val::object();
        o.set("serverTick", tick(t.tick));
        o.set("agentId", t.agent.value);
        o.set("group", t.group);
        o.set("available", msg_.steering_trace().available());
        val rows = val::array();
        for (std::int32_t q = 0; q < t.count; ++q) {
          const sim::BehaviorTrace& b = t.behaviors[q];
          val x = val::object();
          x.set("type", val(sim::behavior_name(b.type)));
          x.set("weight", b.weight);
          x.set("evaluated", b.evaluated);
          x.set("linear", vec2(b.raw.linear.x, b.raw.linear.y));
          x.set("angular", b.raw.angular);
          rows.call<void>("push", x);
        }
        o.set("behaviours", rows);
        o.set("linear", vec2(t.result.linear.x, t.result.linear.y));
        o.set("angular", t.result.angular);
        r.set("trace", o);
        break;
      }
      case v1::ServerMessage::kClose:
        r.set("type", val("close"));
        r.set("code", val(close_str(msg_.close().code())));
        r.set("reason", msg_.close().reason());
        break;
      case v1::ServerMessage::kPing:
        r.set("type", val("ping"));
        out_.clear();
        if (codec::encode_pong(msg_.ping().sender_time_us(), out_)) r.set("reply", bytes_to_js(out_));
        break;
      case v1::ServerMessage::kPong:
        r.set("type", val("pong"));
        r.set("echoTimeUs", static_cast<double>(msg_.pong().echo_time_us()));
        r.set("serverTick", tick(msg_.pong().server_tick()));
        break;
      default:
        // A plain Snapshot (this SDK never asks for one) or a payload newer than this SDK.
        r.set("type", val("error"));
        r.set("detail", std::string("unexpected ServerMessage payload ") + std::to_string(msg_.payload_case()));
        break;
    }
    return r;
  }

  /// One local tick of a player's control: records the input (next sequence), steps the own-craft
  /// prediction, and returns {sequence, reply} with every input the server has not acknowledged
  /// (at most Welcome.max_input_frames, the newest). Values are clamped to turn [-1, 1], throttle
  /// [0, 1]; NaN becomes 0. Null before the Welcome or for spectators.
  val input(double turn, double throttle) {
    if (!player_ || !welcomed_) return val::null();
    turn = turn == turn ? std::clamp(turn, -1.0, 1.0) : 0.0;
    throttle = throttle == throttle ? std::clamp(throttle, 0.0, 1.0) : 0.0;
    const std::uint32_t seq = predictor_.advance(sim::PlayerInput{turn, throttle});
    const std::int32_t n = predictor_.unacked(window_);
    const std::int32_t max = static_cast<std::int32_t>(std::max<std::uint32_t>(1, max_input_frames_));
    const std::int32_t first = n > max ? n - max : 0;
    std::vector<codec::InputFrame> frames;
    frames.reserve(static_cast<std::size_t>(n - first));
    for (std::int32_t i = first; i < n; ++i) {
      const client::InputRecord& rec = window_[static_cast<std::size_t>(i)];
      frames.push_back({rec.sequence, rec.input.turn, rec.input.throttle});
    }
    out_.clear();
    val r = val::object();
    r.set("sequence", seq);
    if (codec::encode_input(frames, out_)) r.set("reply", bytes_to_js(out_));
    r.set("unacked", n);
    return r;
  }

  /// The predicted own craft after the newest input, or null (spectator, or no state yet).
  val prediction() const {
    if (!player_ || !predictor_.has_state()) return val::null();
    return craft_to_js(predictor_.state());
  }

  /// Spectators: the area of interest (world metres), sent with the next Ack; the server then
  /// streams only the agents inside it (plus its hysteresis margin) and every player craft. False for a rectangle the
  /// server would refuse (NaN/Inf, min > max) or for players (their area is around the craft).
  bool set_view(double min_x, double min_y, double max_x, double max_y) {
    if (player_) return false;
    for (double v : {min_x, min_y, max_x, max_y})
      if (!std::isfinite(v)) return false;
    if (min_x > max_x || min_y > max_y) return false;
    view_ = {min_x, min_y, max_x, max_y};
    view_dirty_ = true;
    have_view_ = true;
    return true;
  }

  /// Bytes of an Inspect: the server sends agent `agent_id`'s steering breakdown with each
  /// snapshot (0 stops).
  val inspect(double agent_id) {
    out_.clear();
    if (!(agent_id >= 0 && agent_id <= 4294967295.0)) return val::null();
    if (!codec::encode_inspect(static_cast<std::uint32_t>(agent_id), out_)) return val::null();
    return bytes_to_js(out_);
  }

  /// Bytes of a Ping (the server answers with a Pong carrying its tick).
  val ping(double time_us) {
    out_.clear();
    if (!codec::encode_ping(static_cast<std::uint64_t>(std::max(0.0, time_us)), out_)) return val::null();
    return bytes_to_js(out_);
  }

  /// Bytes of a client Close (CODE_NORMAL), sent before leaving.
  val leave() {
    v1::ClientMessage m;
    m.mutable_close()->set_code(v1::Close::CODE_NORMAL);
    out_.clear();
    m.SerializeToString(&out_);
    return bytes_to_js(out_);
  }

 private:
  void welcome(const v1::Welcome& w, val& r) {
    r.set("type", val("welcome"));
    val o = val::object();
    o.set("playerId", w.player_id());
    o.set("entityId", w.entity_id());
    o.set("role", val(w.role() == v1::ROLE_PLAYER ? "player" : "spectator"));
    o.set("tickRateHz", w.tick_rate_hz());
    o.set("snapshotRateHz", w.snapshot_rate_hz());
    o.set("serverTick", tick(w.server_tick()));
    o.set("resumeToken", bytes_to_js(w.resume_token()));
    o.set("resumeWindowMs", w.resume_window_ms());
    o.set("maxInputFrames", w.max_input_frames());
    o.set("room", w.room());
    o.set("protocolVersion", w.protocol_version());
    o.set("world", world_to_js(w.world()));
    // The receiver needs the world's geometry; the predictor the whole scenario (craft constants,
    // obstacles, borders), kept alive here because the predictor points at it.
    const codec::Result res = codec::decode_world_spec(w.world(), scenario_);
    if (!res.ok()) {
      r.set("type", val("error"));
      r.set("detail", "welcome: " + res.detail);
      return;
    }
    receiver_.configure(scenario_);
    predictor_.configure(&scenario_, 1.0 / std::max<std::uint32_t>(1, scenario_.tick_rate_hz));
    predictor_.reset_keep_sequence();  // sequences keep growing across connections
    entity_ = w.entity_id();
    max_input_frames_ = w.max_input_frames();
    // A new connection (reconnect) starts without the view: send it again with the first Ack.
    view_dirty_ = have_view_;
    have_spawn_ = false;
    welcomed_ = true;
    r.set("welcome", o);
  }

  void snapshot(const v1::DeltaSnapshot& d, val& r) {
    r.set("type", val("snapshot"));
    const codec::Result res = receiver_.receive(msg_);  // msg_.player: a player's own craft
    // Acknowledge what was decoded: 0 after a missing baseline asks for a full snapshot.
    out_.clear();
    if (codec::encode_ack(receiver_.ack_tick(), view_dirty_ ? &view_ : nullptr, out_)) {
      r.set("reply", bytes_to_js(out_));
      view_dirty_ = false;
    }
    if (!res.ok() || receiver_.tick() != d.server_tick()) {
      // kEmpty: baseline gone (the ack above asks for a full one); older than the newest: skip.
      r.set("type", val(res.ok() ? "stale" : res.status == codec::Status::kEmpty ? "baseline_missing" : "error"));
      r.set("detail", res.detail);
      return;
    }
    val s = val::object();
    s.set("serverTick", tick(d.server_tick()));
    s.set("baselineTick", tick(d.baseline_tick()));
    s.set("stateHash", d.state_hash() ? u64_string(d.state_hash()) : val::null());
    const v1::PlayerSnapshot& p = msg_.player();  // all zero for a spectator
    s.set("lastInputSequence", p.last_input_sequence());
    s.set("inputHeldTicks", p.input_held_ticks());
    s.set("inputSlips", p.input_slips());
    val agents = val::array();
    const sim::AgentView* own = nullptr;
    for (const sim::AgentView& a : receiver_.agents()) {
      agents.call<void>("push", agent_to_js(a));
      if (entity_ != 0 && a.id.value == entity_) own = &a;
    }
    s.set("agents", agents);
    s.set("own", own ? agent_to_js(*own) : val::null());
    if (player_ && own) reconcile(*own, p, s);
    r.set("snapshot", s);
  }

  /// Compare the server's craft with the prediction for the same input and replay the rest
  /// (exactly the viewer's rule; a respawn is never a misprediction).
  void reconcile(const sim::AgentView& own, const v1::PlayerSnapshot& d, val& s) {
    const behavior::CraftState server{own.position, own.velocity, own.orientation, own.angular_velocity};
    const bool respawned = have_spawn_ && own.spawn_tick != spawn_tick_;
    const client::ReconcileResult rr = predictor_.reconcile(
        server, client::ServerProgress{d.last_input_sequence(), d.input_held_ticks(), d.input_slips(), !respawned});
    spawn_tick_ = own.spawn_tick;
    have_spawn_ = true;
    val p = val::object();
    p.set("compared", rr.compared);
    p.set("corrected", rr.corrected);
    p.set("errorM", rr.error_m);
    p.set("replayed", rr.replayed);
    p.set("respawned", respawned);
    p.set("corrections", static_cast<double>(predictor_.corrections()));
    p.set("state", predictor_.has_state() ? craft_to_js(predictor_.state()) : val::null());
    s.set("prediction", p);
  }

  v1::ServerMessage msg_;
  codec::SnapshotReceiver receiver_;
  client::PlayerPredictor predictor_;
  sim::Scenario scenario_;
  std::string out_;
  bool player_ = false;
  bool welcomed_ = false;
  std::uint32_t entity_ = 0;
  std::uint32_t max_input_frames_ = 64;
  std::uint64_t spawn_tick_ = 0;
  bool have_spawn_ = false;
  codec::ViewRect view_{};
  bool view_dirty_ = false;
  bool have_view_ = false;
  std::array<client::InputRecord, client::PlayerPredictor::kCapacity> window_{};  // scratch of input()
};

}  // namespace flockstep::sdk

EMSCRIPTEN_BINDINGS(flockstep_sdk) {
  using flockstep::sdk::Core;
  emscripten::class_<Core>("Core")
      .constructor<>()
      .function("join", &Core::join)
      .function("receive", &Core::receive)
      .function("input", &Core::input)
      .function("prediction", &Core::prediction)
      .function("setView", &Core::set_view)
      .function("ping", &Core::ping)
      .function("inspect", &Core::inspect)
      .function("leave", &Core::leave);
  emscripten::constant("protocolVersion", flockstep::codec::kProtocolVersion);
}
