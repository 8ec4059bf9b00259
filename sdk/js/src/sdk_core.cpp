/// \file sdk_core.cpp
/// The wasm core of the JavaScript SDK (@flockstep/client): the client's protocol core
/// (client/core: Join, Welcome, snapshots and acks, pings, the input window, the own craft's
/// prediction and reconciliation, the same one the viewer and the bot run) behind one small
/// embind class that turns its results into plain JavaScript objects. JavaScript only moves bytes
/// between the WebSocket and this class, so there is one implementation of the wire format, of
/// the prediction and of the reconcile rule, not two.
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
#include "core/protocol_core.hpp"

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

/// One client's protocol state: the client's protocol core (core/protocol_core.hpp) behind
/// embind. See file comment.
class Core {
 public:
  /// Bytes of a Join (protocol codec::kProtocolVersion). role: "player" or "spectator";
  /// resume_token: empty for the first join (a new session: prediction and token forgotten), or
  /// the Welcome's token to take the same craft back on a new connection (the reconnect of
  /// index.mjs; the core sends the token of the last Welcome, which is that one). Returns null for
  /// a bad role or a name/room/token the codec cannot encode.
  val join(const std::string& role, const std::string& name, const std::string& room, const std::string& resume_token) {
    codec::Role r;
    if (role == "player") r = codec::Role::kPlayer;
    else if (role == "spectator") r = codec::Role::kSpectator;
    else return val::null();
    if (resume_token.empty() || r != core_.role() || core_.resume_token().empty()) {
      client::CoreConfig c;
      c.role = r;
      c.display_name = name;
      c.room = room;
      c.reconnect = client::ReconnectPolicy::sdk();
      core_.start(std::move(c), 0);
    }
    const std::string& bytes = core_.opened(0);
    if (bytes.empty()) return val::null();
    return bytes_to_js(bytes);
  }

  /// Decode one server frame. Returns {type, ..., reply?}; type is one of welcome, snapshot,
  /// events, group_update, steering_trace, close, pong, ping, baseline_missing, stale, ignored, error.
  val receive(const std::string& bytes) {
    val r = val::object();
    // The core's clock only times its own pings and link timers, which index.mjs does not use.
    const client::ReceiveResult res =
        core_.receive(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), 0);
    if (res.reply) r.set("reply", bytes_to_js(*res.reply));
    const v1::ServerMessage& m = core_.message();
    switch (res.type) {
      case client::Received::kWelcome:
        if (!res.world_ok) return error(r, "welcome: " + res.detail);
        r.set("type", val("welcome"));
        r.set("welcome", welcome_to_js(core_.welcome()));
        break;
      case client::Received::kSnapshot: snapshot(m, res, r); break;
      case client::Received::kSnapshotSkipped:
        // Baseline gone (the ack above asks for a full one), or older than the newest: skip.
        r.set("type", val(res.baseline_missing                ? "baseline_missing"
                          : res.detail.rfind("stale", 0) == 0 ? "stale"
                                                              : "error"));
        r.set("detail", res.detail);
        break;
      case client::Received::kEvents:
        r.set("type", val("events"));
        r.set("events", events_to_js(m.events()));
        break;
      case client::Received::kGroupUpdate:
        r.set("type", val("group_update"));
        r.set("serverTick", tick(m.group_update().server_tick()));
        r.set("group", m.group_update().group());
        r.set("name", m.group_update().spec().name());
        r.set("count", m.group_update().spec().count());
        break;
      case client::Received::kSteeringTrace: steering_trace(m.steering_trace(), r); break;
      case client::Received::kClose:
        r.set("type", val("close"));
        r.set("code", val(close_str(m.close().code())));
        r.set("reason", m.close().reason());
        break;
      case client::Received::kPing: r.set("type", val("ping")); break;
      case client::Received::kPong:
        r.set("type", val("pong"));
        r.set("echoTimeUs", static_cast<double>(m.pong().echo_time_us()));
        r.set("serverTick", tick(m.pong().server_tick()));
        break;
      case client::Received::kIgnored:
        if (!res.detail.empty()) return error(r, res.detail);  // a payload newer than this SDK
        r.set("type", val("ignored"));
        break;
      case client::Received::kPlainSnapshot:
        // This SDK never asks for the plain stream.
        return error(r, "unexpected ServerMessage payload " + std::to_string(m.payload_case()));
      case client::Received::kError: return error(r, res.detail);
    }
    return r;
  }

  /// One local tick of a player's control: records the input (next sequence), steps the own-craft
  /// prediction, and returns {sequence, reply, unacked} with every input the server has not
  /// acknowledged (at most Welcome.max_input_frames, the newest). Values are clamped to turn
  /// [-1, 1], throttle [0, 1]; NaN becomes 0. Null before the Welcome or for spectators.
  val input(double turn, double throttle) {
    turn = turn == turn ? std::clamp(turn, -1.0, 1.0) : 0.0;
    throttle = throttle == throttle ? std::clamp(throttle, 0.0, 1.0) : 0.0;
    const std::uint32_t seq = core_.advance(sim::PlayerInput{turn, throttle});
    if (seq == 0) return val::null();
    val r = val::object();
    r.set("sequence", seq);
    if (const std::string* bytes = core_.input_message()) r.set("reply", bytes_to_js(*bytes));
    r.set("unacked", core_.predictor().unacked_count());
    return r;
  }

  /// The predicted own craft after the newest input, or null (spectator, or no state yet).
  val prediction() const {
    if (!core_.player() || !core_.predictor().has_state()) return val::null();
    return craft_to_js(core_.predictor().state());
  }

  /// Spectators: the area of interest (world metres), sent with the next Ack; the server then
  /// streams only the agents inside it (plus its hysteresis margin) and every player craft. False
  /// for a rectangle the server would refuse (NaN/Inf, min > max) or for players (their area is
  /// around the craft).
  bool set_view(double min_x, double min_y, double max_x, double max_y) {
    return core_.set_view({min_x, min_y, max_x, max_y});
  }

  /// Bytes of an Inspect: the server sends agent `agent_id`'s steering breakdown with each
  /// snapshot (0 stops).
  val inspect(double agent_id) {
    if (!(agent_id >= 0 && agent_id <= 4294967295.0)) return val::null();
    const std::string* bytes = core_.inspect(static_cast<std::uint32_t>(agent_id));
    return bytes ? bytes_to_js(*bytes) : val::null();
  }

  /// Bytes of a Ping (the server answers with a Pong carrying its tick).
  val ping(double time_us) {
    const std::string* bytes = core_.ping(std::max(0.0, time_us) / 1000.0);
    return bytes ? bytes_to_js(*bytes) : val::null();
  }

  /// Bytes of a client Close (CODE_NORMAL), sent before leaving.
  val leave() { return bytes_to_js(core_.leave_message()); }

  /// The reconnect policy index.mjs applies: RECONNECT_DEFAULTS with the caller's overrides
  /// (client::ReconnectPolicy::sdk() otherwise: no jitter, refusals final, within the resume window).
  void set_reconnect_policy(double initial_delay_ms, double factor, double max_delay_ms, double max_attempts) {
    client::ReconnectPolicy p = client::ReconnectPolicy::sdk();
    p.initial_delay_ms = std::max(0.0, initial_delay_ms);
    p.factor = std::max(1.0, factor);
    p.max_delay_ms = std::max(0.0, max_delay_ms);
    p.max_attempts = static_cast<std::int32_t>(std::clamp(max_attempts, 1.0, 1e9));
    policy_ = p;
  }

  /// The policy's decision before reconnect attempt `attempt` (0-based) after a connection end
  /// {code, reason} (code as in CloseInfo: the server's Close.Code as a word, or
  /// "connection_lost"), `lost_for_ms` after the loss; `resume_window_ms` 0 = unbounded
  /// (spectators). Returns {retry, delayMs, why}.
  val reconnect_plan(double attempt, const std::string& code, const std::string& reason, double lost_for_ms,
                     double resume_window_ms) const {
    client::LinkEnd end;
    end.had_welcome = true;
    end.server_code = close_code(code);
    end.server_reason = reason;
    end.lost_for_ms = lost_for_ms;
    const client::ReconnectDecision d = policy_.decide(end, static_cast<std::int32_t>(std::clamp(attempt, 0.0, 1e9)),
                                                       0.5, std::max(0.0, resume_window_ms));
    val o = val::object();
    o.set("retry", d.retry);
    o.set("delayMs", d.delay_ms);
    o.set("why", d.why);
    return o;
  }

  /// Whether a connection the server closed with {code, reason} (code as in CloseInfo) ends the
  /// session instead of being reconnected: the policy's rule (ReconnectPolicy::is_final), so the
  /// SDK and the viewer decide from one list of final close codes.
  bool is_final_close(const std::string& code, const std::string& reason) const {
    return policy_.is_final(close_code(code), reason);
  }

 private:
  /// A CloseInfo code word ("room_full") as the wire's Close.Code; "connection_lost" or any word
  /// that names no code is CODE_UNSPECIFIED (the socket just ended).
  static v1::Close::Code close_code(const std::string& code) {
    for (int c = v1::Close::Code_MIN; c <= v1::Close::Code_MAX; ++c)
      if (v1::Close::Code_IsValid(c) && code == close_str(static_cast<v1::Close::Code>(c)) && code != "unspecified")
        return static_cast<v1::Close::Code>(c);
    return v1::Close::CODE_UNSPECIFIED;
  }

  static val error(val& r, const std::string& detail) {
    r.set("type", val("error"));
    r.set("detail", detail);
    return r;
  }

  val welcome_to_js(const v1::Welcome& w) const {
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
    return o;
  }

  void steering_trace(const v1::SteeringTrace& in, val& r) const {
    sim::SteeringTrace t;
    const codec::Result tr = codec::decode_steering_trace(in, t);
    if (!tr.ok()) {
      error(r, tr.detail);
      return;
    }
    r.set("type", val("steering_trace"));
    val o = val::object();
    o.set("serverTick", tick(t.tick));
    o.set("agentId", t.agent.value);
    o.set("group", t.group);
    o.set("available", in.available());
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
  }

  void snapshot(const v1::ServerMessage& m, const client::ReceiveResult& res, val& r) const {
    r.set("type", val("snapshot"));
    const v1::DeltaSnapshot& d = m.delta_snapshot();
    val s = val::object();
    s.set("serverTick", tick(d.server_tick()));
    s.set("baselineTick", tick(d.baseline_tick()));
    s.set("stateHash", d.state_hash() ? u64_string(d.state_hash()) : val::null());
    const v1::PlayerSnapshot& p = m.player();  // all zero for a spectator
    s.set("lastInputSequence", p.last_input_sequence());
    s.set("inputHeldTicks", p.input_held_ticks());
    s.set("inputSlips", p.input_slips());
    val agents = val::array();
    const sim::AgentView* own = nullptr;
    const std::uint32_t entity = core_.entity();
    for (const sim::AgentView& a : core_.agents()) {
      agents.call<void>("push", agent_to_js(a));
      if (entity != 0 && a.id.value == entity) own = &a;
    }
    s.set("agents", agents);
    s.set("own", own ? agent_to_js(*own) : val::null());
    if (res.own.reconciled) s.set("prediction", prediction_to_js(res.own));
    r.set("snapshot", s);
  }

  /// What the core's reconciliation found (the viewer's rule: a capture or respawn event of the
  /// own craft makes the next state a respawn, rebased on and never compared).
  val prediction_to_js(const client::OwnUpdate& own) const {
    const client::ReconcileResult& rr = own.result;
    val p = val::object();
    p.set("compared", rr.compared);
    p.set("corrected", rr.corrected);
    p.set("errorM", rr.error_m);
    p.set("replayed", rr.replayed);
    p.set("respawned", own.respawned);
    p.set("corrections", static_cast<double>(core_.predictor().corrections()));
    p.set("state", core_.predictor().has_state() ? craft_to_js(core_.predictor().state()) : val::null());
    return p;
  }

  client::ProtocolCore core_;
  client::ReconnectPolicy policy_ = client::ReconnectPolicy::sdk();
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
      .function("leave", &Core::leave)
      .function("setReconnectPolicy", &Core::set_reconnect_policy)
      .function("reconnectPlan", &Core::reconnect_plan)
      .function("isFinalClose", &Core::is_final_close);
  emscripten::constant("protocolVersion", flockstep::codec::kProtocolVersion);
}
