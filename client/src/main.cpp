// The Flockstep browser viewer: play as a craft with exact client-side prediction, or spectate
// with annotations. One Viewer object lives for the page; the browser drives it through
// requestAnimationFrame, WebSocket callbacks, html5 input callbacks and the fs_* functions the
// page's JavaScript calls (see client/web/viewer-glue.js and docs/viewer.md).
//
// Every frame it publishes its state as window.__flockstep (JSON-compatible), so tests and
// people can read fps, rtt, tick, entities, predicted and server positions, corrections, ...
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

// EM_ASM blocks are JavaScript: their $0, $1 arguments are not C++ identifiers (-Wpedantic).
#pragma clang diagnostic ignored "-Wdollar-in-identifier-extension"

#include "codec/group_fields.hpp"
#include "codec/server_codec.hpp"
#include "flockstep/behavior/avoid.hpp"
#include "flockstep/math/angle.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/math/transform.hpp"
#include "input/input.hpp"
#include "net/session.hpp"
#include "predict/player_prediction.hpp"
#include "predict/remote_agents.hpp"
#include "view/renderer.hpp"

namespace flockstep::client {
namespace {

using math::real;
using math::Vec2;

constexpr const char* kCanvas = "#canvas";
constexpr double kInterpolationDelayMs = 100;  // two snapshot intervals at 20 Hz (Source: 100 ms)
constexpr std::int32_t kInitialLeadTicks = 3;  // inputs queued at the server from the start
constexpr std::int32_t kMaxLeadTicks = 7;      // the server keeps at most 8 pending inputs

// Colours (kept in one place so docs/viewer.md can describe them).
constexpr Rgba kBackground{11, 16, 32, 255};
constexpr Rgba kGridMinor{22, 30, 52, 255};
constexpr Rgba kGridMajor{30, 42, 72, 255};
constexpr Rgba kBorder{80, 100, 140, 255};
constexpr Rgba kObstacleFill{43, 53, 80, 255};
constexpr Rgba kObstacleEdge{96, 112, 150, 255};
constexpr Rgba kWall{170, 185, 215, 255};
constexpr Rgba kOwnCraft{57, 230, 255, 255};
constexpr Rgba kOtherPlayer{125, 255, 138, 255};
constexpr Rgba kPursuer{255, 90, 79, 255};
constexpr Rgba kPursuerIntercept{255, 159, 64, 255};
constexpr Rgba kFlock{184, 199, 255, 230};
constexpr Rgba kPatrol{255, 216, 74, 255};
constexpr Rgba kWanderer{208, 139, 255, 255};
constexpr Rgba kCaptured{255, 255, 255, 255};

Rgba with_alpha(Rgba c, std::uint8_t a) { return {c.r, c.g, c.b, a}; }

void json_escape(std::string& out, const std::string& s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') { out += '\\'; out += ch; }
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); out += b; }
    else out += ch;
  }
  out += '"';
}

void jnum(std::string& out, const char* key, double v, bool comma = true) {
  char b[96];
  if (!std::isfinite(v)) v = 0;
  std::snprintf(b, sizeof b, "\"%s\":%.17g%s", key, v, comma ? "," : "");
  out += b;
}

void jbool(std::string& out, const char* key, bool v) {
  out += '"';
  out += key;
  out += v ? "\":true," : "\":false,";
}

void jstr(std::string& out, const char* key, const std::string& v) {
  out += '"';
  out += key;
  out += "\":";
  json_escape(out, v);
  out += ',';
}

/// Events counted over a sliding window (snapshots per second, corrections per minute, ...).
struct RateWindow {
  std::deque<std::pair<double, double>> samples;  // time ms, amount
  double window_ms = 1000;
  void add(double t, double amount = 1) { samples.push_back({t, amount}); }
  double sum(double now) {
    while (!samples.empty() && samples.front().first < now - window_ms) samples.pop_front();
    double s = 0;
    for (const auto& p : samples) s += p.second;
    return s;
  }
};

struct ScoreRow {
  std::uint32_t player_id = 0;
  std::string name;
  double alive_s = 0, best_s = 0;
  std::uint32_t captures = 0;
  bool bot = false;
};

enum class Screen : std::uint8_t { kStart, kPlay, kSpectate };

/// One record of a recording file ("FSREC001" + [u32 LE length][ServerMessage]...).
struct ReplayRecord {
  std::size_t offset = 0;        ///< of the ServerMessage bytes in the file
  std::uint32_t size = 0;
  v1::ServerMessage::PayloadCase type = v1::ServerMessage::PAYLOAD_NOT_SET;
  std::uint64_t tick = 0;        ///< snapshots and group updates: their server tick
  bool keyframe = false;         ///< a full DeltaSnapshot (baseline_tick 0)
};

class Viewer {
 public:
  bool init();
  void frame(double now);
  // fs_* API
  void play(const std::string& name);
  void spectate();
  void leave();
  void set_option(const std::string& name, double value);
  void step_once() { if (paused_) paused_tick_ += 1; }
  void feed_paused(bool all);
  void follow(std::uint32_t id) { follow_id_ = id; }
  void cycle_player(int dir);
  void touch(double turn, double throttle, bool active) { input_.touch(turn, throttle, active); }
  void set_url(const std::string& url) { url_ = url; }
  void drop() { session_.drop(emscripten_get_now()); }
  void set_room(const std::string& room) { room_ = room; }
  // Replay of a recording (issue 6)
  std::uint8_t* replay_buffer(std::size_t n) {
    replay_data_.assign(n, 0);
    return replay_data_.data();
  }
  bool replay_open();
  void replay_control(const std::string& what, double value);
  void bench(std::int32_t n, bool run_sim);
  // html5 callbacks
  bool on_key(const EmscriptenKeyboardEvent* e, bool down);
  bool on_mouse(int type, const EmscriptenMouseEvent* e);
  bool on_wheel(const EmscriptenWheelEvent* e);
  void on_blur() { input_.clear(); }
  void end_drag() { dragging_ = false; }

 private:
  void start_session(codec::Role role, const std::string& name);
  void on_welcome(const v1::Welcome& w, bool resumed);
  void on_snapshot(const SnapshotFrame& s, std::uint32_t bytes);
  void on_events(const v1::Events& e);
  void on_lost(const std::string& reason);
  void on_refused(const std::string& reason);
  bool apply_group_update(const v1::GroupUpdate& u);
  bool rebuild_scenario(const v1::WorldSpec& spec);
  void publish_world();
  void replay_seek(double tick);
  void replay_feed(double limit_tick, bool quiet);
  void replay_frame(double frame_ms);
  void replay_close();
  void input_ticks(double frame_ms);
  void send_inputs();
  void update_camera(double frame_ms);
  void send_view();
  void fit_world();
  void bench_step(double frame_ms, double now);
  void render();
  void render_world(const Camera& cam, bool minimap);
  void build_instances(const Camera& cam, bool minimap);
  void annotate(const Camera& cam);
  void publish(double now);
  void toast(const std::string& msg);
  Rgba color_of(const DrawAgent& a) const;
  Shape shape_of(const DrawAgent& a) const;
  float scale_of(const DrawAgent& a) const;
  const DrawAgent* drawn(std::uint32_t id) const;
  double server_tick_now(double now) const;
  behavior::CraftState own_pose() const;

  Renderer gl_;
  Session session_;
  PlayerPredictor predictor_;
  RemoteAgents remote_;
  InputState input_;
  sim::Scenario scenario_;
  v1::WorldSpec world_spec_;       // as received in Welcome, with every GroupUpdate applied
  std::string room_;               // room asked for (fs_set_room; empty = the server's default)
  std::string welcome_room_;       // Welcome.room: the room this connection is in
  bool have_world_ = false;
  std::string url_;
  std::string name_ = "pilot";
  Screen screen_ = Screen::kStart;
  std::string world_error_;

  // Welcome
  std::uint32_t entity_ = 0, player_id_ = 0;
  std::uint32_t tick_rate_ = 60, snapshot_rate_ = 20, max_input_frames_ = 64;
  double dt_ms_ = 1000.0 / 60;

  // Clocks
  double last_frame_ms_ = 0;
  double accum_ms_ = 0;
  double offset_ms_ = 0;  // estimated server time (ticks * dt) minus local time
  bool have_offset_ = false;
  std::uint64_t last_snapshot_tick_ = 0;
  double last_snapshot_ms_ = 0;

  // Prediction bookkeeping
  behavior::CraftState pred_prev_{}, pred_cur_{};
  Vec2 smooth_offset_{};   // visual correction smoothing, m (decays)
  behavior::CraftState server_state_{};
  bool have_server_state_ = false;
  std::uint64_t server_state_tick_ = 0;
  std::uint32_t server_state_seq_ = 0;
  double last_pred_error_m_ = 0;
  double max_pred_error_m_ = 0;
  std::uint64_t compared_ = 0;
  std::uint64_t corrections_ = 0;       // mispredictions (not counting captures/respawns)
  std::uint64_t teleports_ = 0;         // respawns seen in the prediction
  std::uint64_t held_states_ = 0;       // server states after ticks that held a late input
  bool expect_teleport_ = false;
  RateWindow corrections_window_{{}, 60000};
  std::int32_t owed_ticks_ = 0, skip_ticks_ = 0;
  std::int64_t last_tick_minus_seq_ = -1;
  double queue_min_ = 1e9;
  double queue_window_start_ = 0;
  std::int32_t lead_adjustments_ = 0;
  std::uint64_t inputs_sent_msgs_ = 0;
  std::uint32_t captures_ = 0;
  std::uint64_t spawn_tick_ = 0;

  bool antialias_ = true;

  // Offline benchmark (no server): synthetic agents, or a local sim::World
  std::int32_t bench_n_ = 0;
  std::unique_ptr<sim::World> bench_world_;
  std::vector<sim::AgentView> bench_agents_;
  std::uint64_t bench_tick_ = 0;
  double bench_accum_ms_ = 0;
  double bench_sim_ms_ = 0;

  // Others
  std::vector<DrawAgent> agents_;
  mutable std::unordered_map<std::uint32_t, std::int32_t> agent_index_;  // id -> agents_ index
  mutable bool agent_index_valid_ = false;
  bool extrapolate_ = false;
  double buffer_beyond_ticks_ = 0;

  // View
  Camera cam_;
  std::uint32_t follow_id_ = 0;
  bool annotations_ = false;
  std::uint32_t annotation_mask_ = 0x1F;  // per AgentKind bit
  bool trails_ = true;
  bool minimap_ = true;
  bool paused_ = false;
  double paused_tick_ = 0;
  static constexpr std::size_t kPausedAgentViews = 400000;  // ~40 MB of queued snapshots at most
  std::deque<std::pair<std::uint64_t, std::vector<sim::AgentView>>> paused_queue_;
  std::size_t paused_agents_ = 0;
  bool dragging_ = false, drag_moved_ = false;
  double drag_x_ = 0, drag_y_ = 0;
  std::deque<Vec2> trail_own_, trail_follow_;
  double trail_last_ms_ = 0;
  std::uint32_t trail_follow_id_ = 0;

  // Replay (fs_replay_*): the whole file, its record index, a receiver of its own
  bool replay_ = false;
  bool replay_playing_ = false;
  double replay_speed_ = 1;
  double replay_tick_ = 0;
  std::uint64_t replay_first_ = 0, replay_last_ = 0;
  std::vector<std::uint8_t> replay_data_;
  std::vector<ReplayRecord> replay_records_;
  std::size_t replay_next_ = 0;  // next record to feed
  v1::WorldSpec replay_spec0_;   // the recording's Welcome world
  std::string replay_room_;
  std::string replay_error_;
  codec::SnapshotReceiver replay_rx_;
  v1::ServerMessage replay_msg_;

  // Scratch buffers (reused every frame)
  std::vector<Instance> inst_[static_cast<int>(Shape::kCount)];
  std::vector<ColorVertex> lines_, tris_;

  // Stats
  RateWindow frames_window_, snapshot_window_, bytes_window_;
  RateWindow frame_cost_window_;
  double frame_cost_ms_ = 0;
  double snapshot_cost_ms_ = 0;
  std::int32_t visible_ = 0;
  std::vector<ScoreRow> scores_;
  std::unordered_map<std::uint32_t, std::string> names_;
  std::string json_;
  std::string toast_;
};

Viewer g_viewer;

// ---------------------------------------------------------------------------------------------
// Set-up and sessions
// ---------------------------------------------------------------------------------------------

bool Viewer::init() {
  // Multisampling: on, except on software GL (SwiftShader, llvmpipe: headless browsers, VMs),
  // which pays dearly for it; ?aa=1 / ?aa=0 forces it. The probe uses a throwaway canvas because
  // context attributes cannot change once the real context exists.
  const bool antialias = EM_ASM_INT({
    var v = new URLSearchParams(location.search).get('aa');
    if (v !== null) return v === '0' ? 0 : 1;
    try {
      var gl = document.createElement('canvas').getContext('webgl2');
      if (!gl) return 1;
      var ext = gl.getExtension('WEBGL_debug_renderer_info');
      var name = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      var lose = gl.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
      return /SwiftShader|llvmpipe|Software/i.test(name) ? 0 : 1;
    } catch (e) { return 1; }
  }) != 0;
  antialias_ = antialias;
  if (!gl_.init(kCanvas, antialias)) {
    EM_ASM({ if (window.flockstepUi) window.flockstepUi.fatal('This browser has no WebGL2.'); });
    return false;
  }
  // ?instanced=1 / 0 forces instanced or CPU-expanded shapes (default: expanded only on software GL).
  const int instanced = EM_ASM_INT({ var v = new URLSearchParams(location.search).get('instanced'); return v === null ? -1 : Number(v); });
  if (instanced >= 0) gl_.set_expanded(instanced == 0);
  // Default server: the page's own host, /ws (the server serves the viewer and the socket on
  // one port). ?server=ws://host:port/ws overrides it.
  char url[512] = {0};
  EM_ASM({
    var u = new URLSearchParams(location.search).get('server');
    if (!u) u = (location.protocol === 'https:' ? 'wss://' : 'ws://') + (location.host || 'localhost:8080') + '/ws';
    stringToUTF8(u, $0, $1);
  }, url, static_cast<int>(sizeof url));
  url_ = url;
  cam_.zoom = 6;
  return true;
}

void Viewer::start_session(codec::Role role, const std::string& name) {
  replay_close();
  bench_n_ = 0;
  bench_world_.reset();
  Session::Handlers h;
  h.on_welcome = [this](const v1::Welcome& w, bool resumed) { on_welcome(w, resumed); };
  h.on_snapshot = [this](const SnapshotFrame& s, std::uint32_t bytes) { on_snapshot(s, bytes); };
  h.on_events = [this](const v1::Events& e) { on_events(e); };
  h.on_lost = [this](const std::string& reason) { on_lost(reason); };
  h.on_refused = [this](const std::string& reason) { on_refused(reason); };
  h.on_group_update = [this](const v1::GroupUpdate& u) { apply_group_update(u); };
  session_.configure(url_, std::move(h));
  have_world_ = false;
  predictor_.reset();
  remote_.reset();
  corrections_ = 0;
  teleports_ = 0;
  held_states_ = 0;
  compared_ = 0;
  captures_ = 0;
  follow_id_ = 0;
  scores_.clear();
  welcome_room_.clear();
  session_.start(role, name, emscripten_get_now(), room_);
}

void Viewer::play(const std::string& name) {
  name_ = name.empty() ? "pilot" : name;
  screen_ = Screen::kPlay;
  start_session(codec::Role::kPlayer, name_);
}

void Viewer::spectate() {
  screen_ = Screen::kSpectate;
  start_session(codec::Role::kSpectator, "spectator");
}

void Viewer::leave() {
  session_.stop();
  replay_close();
  bench_n_ = 0;
  bench_world_.reset();
  screen_ = Screen::kStart;
  have_world_ = false;
  input_.clear();
}

void Viewer::on_welcome(const v1::Welcome& w, bool resumed) {
  sim::Scenario sc;
  const codec::Result r = codec::decode_world_spec(w.world(), sc);
  if (!r.usable()) {
    world_error_ = "bad world in Welcome: " + r.detail;
    toast(world_error_);
    return;
  }
  world_error_.clear();
  world_spec_ = w.world();
  welcome_room_ = w.room();
  const bool same_world = have_world_ && sc.name == scenario_.name && sc.width == scenario_.width;
  scenario_ = std::move(sc);
  tick_rate_ = w.tick_rate_hz() > 0 ? w.tick_rate_hz() : 60;
  snapshot_rate_ = w.snapshot_rate_hz() > 0 ? w.snapshot_rate_hz() : 20;
  max_input_frames_ = std::clamp<std::uint32_t>(w.max_input_frames() > 0 ? w.max_input_frames() : 64, 1, 64);
  // The world steps with dt = 1.0 / tick_rate_hz; prediction must use the very same double.
  scenario_.tick_rate_hz = static_cast<std::int32_t>(tick_rate_);
  dt_ms_ = 1000.0 / tick_rate_;
  predictor_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  // Sequences keep growing across reconnects: the server skips sequences it already has.
  predictor_.reset_keep_sequence();
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  remote_.reset();
  paused_queue_.clear();
  paused_agents_ = 0;
  paused_tick_ = 0;
  have_world_ = true;
  have_offset_ = false;
  have_server_state_ = false;
  entity_ = w.entity_id();
  player_id_ = w.player_id();
  accum_ms_ = 0;
  owed_ticks_ = screen_ == Screen::kPlay ? kInitialLeadTicks : 0;
  skip_ticks_ = 0;
  last_tick_minus_seq_ = -1;
  queue_min_ = 1e9;
  queue_window_start_ = emscripten_get_now();
  smooth_offset_ = {};
  trail_own_.clear();
  if (!same_world) {
    if (screen_ == Screen::kPlay) {
      cam_.zoom = 0;  // set from the canvas size in update_camera
    } else {
      fit_world();
    }
  }
  publish_world();
  if (resumed) toast("Reconnected: your craft is back");
  else if (session_.reconnects() > 0) toast("Reconnected");
}

void Viewer::on_lost(const std::string& reason) {
  input_.clear();
  (void)reason;
}

void Viewer::on_refused(const std::string& reason) {
  // Close CODE_UNKNOWN_ROOM: back to the lobby with the server's reason.
  screen_ = Screen::kStart;
  have_world_ = false;
  input_.clear();
  EM_ASM({ if (window.flockstepUi) window.flockstepUi.refused(UTF8ToString($0), UTF8ToString($1)); },
         reason.c_str(), room_.c_str());
}

/// Decode `spec` into the scenario the prediction and extrapolation use (in place: they keep a
/// pointer to scenario_). The tick rate stays the Welcome's.
bool Viewer::rebuild_scenario(const v1::WorldSpec& spec) {
  sim::Scenario sc;
  const codec::Result r = codec::decode_world_spec(spec, sc);
  if (!r.usable()) {
    world_error_ = "bad world: " + r.detail;
    toast(world_error_);
    return false;
  }
  sc.tick_rate_hz = static_cast<std::int32_t>(tick_rate_);
  scenario_ = std::move(sc);
  return true;
}

/// ServerMessage.group_update: replace WorldSpec.groups[group] (live tuning, or a recording).
bool Viewer::apply_group_update(const v1::GroupUpdate& u) {
  if (u.group() < 0 || u.group() >= world_spec_.groups_size()) return false;
  v1::WorldSpec spec = world_spec_;
  *spec.mutable_groups(u.group()) = u.spec();
  if (!rebuild_scenario(spec)) return false;
  world_spec_ = std::move(spec);
  publish_world();
  return true;
}

/// The world's description and every group's tunable parameters (by their group_fields names,
/// which are also the admin API's keys), to the page's lobby/tuning code. Sent on Welcome and on
/// every GroupUpdate, not every frame.
void Viewer::publish_world() {
  std::string j = "{";
  jstr(j, "room", replay_ ? replay_room_ : (welcome_room_.empty() ? room_ : welcome_room_));
  jstr(j, "name", scenario_.name);
  jstr(j, "description", scenario_.description);
  jnum(j, "tick", static_cast<double>(last_snapshot_tick_));
  jbool(j, "replay", replay_);
  j += "\"groups\":[";
  for (std::size_t i = 0; i < scenario_.groups.size(); ++i) {
    const sim::GroupSpec& g = scenario_.groups[i];
    if (i) j += ',';
    j += '{';
    jnum(j, "index", static_cast<double>(i));
    jstr(j, "name", g.name);
    jstr(j, "kind", sim::kind_name(g.kind));
    jstr(j, "technique", sim::technique_name(g.technique));
    jnum(j, "count", g.count);
    j += "\"params\":[";
    bool first = true;
    for (const codec::GroupField& f : codec::group_fields()) {
      if (!first) j += ',';
      first = false;
      j += '[';
      json_escape(j, std::string(f.name));
      char b[64];
      double v = f.get(g);
      if (!std::isfinite(v)) v = 0;
      std::snprintf(b, sizeof b, ",%.17g,%d]", v, f.is_bool ? 1 : 0);
      j += b;
    }
    j += "]}";
  }
  j += "]}";
  EM_ASM({ if (window.flockstepUi && window.flockstepUi.world) window.flockstepUi.world(UTF8ToString($0)); }, j.c_str());
}

double Viewer::server_tick_now(double now) const {
  if (!have_offset_) return static_cast<double>(last_snapshot_tick_);
  return (now + offset_ms_) / dt_ms_;
}

void Viewer::on_snapshot(const SnapshotFrame& s, std::uint32_t bytes) {
  if (!have_world_) return;
  const double now = emscripten_get_now();
  struct Timer {  // CPU time of handling one snapshot (decode, reconcile, buffer), for the HUD
    double start;
    double& out;
    ~Timer() { out = out * 0.9 + (emscripten_get_now() - start) * 0.1; }
  } timer{now, snapshot_cost_ms_};
  snapshot_window_.add(now);
  // Session decoded the delta against its baseline (own craft exact, the rest dequantised).
  std::vector<sim::AgentView> views(*s.agents);
  (void)bytes;
  const std::uint64_t tick = s.server_tick;
  if (tick <= last_snapshot_tick_ && remote_.ready()) return;
  last_snapshot_tick_ = tick;
  last_snapshot_ms_ = now;

  // Server clock: the least-delayed snapshot gives the best offset; follow later samples slowly
  // (clock drift) and snap when far off (a stall or a new server).
  const double sample = static_cast<double>(tick) * dt_ms_ - now;
  if (!have_offset_ || std::fabs(sample - offset_ms_) > 250) {
    offset_ms_ = sample;
    have_offset_ = true;
  } else if (sample > offset_ms_) {
    offset_ms_ = sample;
  } else {
    offset_ms_ += (sample - offset_ms_) * 0.02;
  }

  // The player's craft: compare with the prediction for the same input and replay the rest.
  if (screen_ == Screen::kPlay && entity_ != 0) {
    for (const sim::AgentView& v : views) {
      if (v.id.value != entity_) continue;
      const behavior::CraftState server{v.position, v.velocity, v.orientation, v.angular_velocity};
      const std::uint32_t applied = s.last_input_sequence;
      const behavior::CraftState before = predictor_.state();
      const bool had = predictor_.has_state();
      // A capture respawns the craft where only the server decides: not a misprediction.
      const bool respawned = had && v.spawn_tick != spawn_tick_;
      const ReconcileResult r =
          predictor_.reconcile(server, ServerProgress{applied, s.input_held_ticks, s.input_slips, !(respawned || expect_teleport_)});
      server_state_ = server;
      have_server_state_ = true;
      server_state_tick_ = tick;
      server_state_seq_ = applied;
      spawn_tick_ = v.spawn_tick;
      if (r.compared) {
        ++compared_;
        last_pred_error_m_ = r.error_m;
        max_pred_error_m_ = std::max(max_pred_error_m_, r.error_m);
      }
      if (r.held) ++held_states_;
      const bool respawn = had && (respawned || expect_teleport_);
      if (respawn) ++teleports_;
      if (r.corrected) {  // compared bit for bit (held ticks included) and different
        ++corrections_;
        corrections_window_.add(now);
      }
      expect_teleport_ = false;
      // A respawn or a large jump is drawn at once; small corrections fade.
      const bool teleport = respawn || r.jump_m > 8;
      const behavior::CraftState after = predictor_.state();
      if (!had || teleport) {
        pred_prev_ = pred_cur_ = after;
        smooth_offset_ = {};
        trail_own_.clear();
      } else {
        // Keep the drawn craft where it was and let the difference fade (no visible snap).
        const Vec2 d = after.position - before.position;
        pred_prev_.position += d;
        pred_cur_ = after;
        smooth_offset_ -= d;
      }
      // Input lead: the server holds the last input when its queue runs dry (a starved tick),
      // which shifts (tick - applied sequence) by one. Put one more input in flight each time.
      if (applied > 0) {
        const std::int64_t tms = static_cast<std::int64_t>(tick) - static_cast<std::int64_t>(applied);
        if (last_tick_minus_seq_ >= 0 && tms > last_tick_minus_seq_) {
          const std::int64_t starved = tms - last_tick_minus_seq_;
          owed_ticks_ += static_cast<std::int32_t>(std::min<std::int64_t>(starved, 3));
          ++lead_adjustments_;
        }
        last_tick_minus_seq_ = tms;
        // Inputs waiting at the server, roughly: unacked minus those still in flight.
        const double in_flight = session_.rtt_ms() / dt_ms_;
        const double queued = static_cast<double>(predictor_.last_sequence() - applied) - in_flight;
        queue_min_ = std::min(queue_min_, queued);
        if (now - queue_window_start_ > 2000) {
          // Too much lead only adds latency (and the server drops beyond 8): trim it slowly.
          if (queue_min_ > kMaxLeadTicks) {
            ++skip_ticks_;
            ++lead_adjustments_;
          }
          queue_min_ = 1e9;
          queue_window_start_ = now;
        }
      }
      break;
    }
  }
  if (paused_) {
    // The view is frozen: keep what arrives (bounded) so single steps can move through it.
    paused_agents_ += views.size();
    paused_queue_.push_back({tick, std::move(views)});
    while (paused_agents_ > kPausedAgentViews && paused_queue_.size() > 1) {
      paused_agents_ -= paused_queue_.front().second.size();
      paused_queue_.pop_front();
    }
    return;
  }
  remote_.push(tick, std::move(views));
}

void Viewer::feed_paused(bool all) {
  // Hand queued snapshots to the buffer up to the first one after the paused view's tick (the
  // interpolation needs a snapshot on each side), or all of them when the pause ends.
  while (!paused_queue_.empty()) {
    auto& [tick, views] = paused_queue_.front();
    if (!all && remote_.ready() && static_cast<double>(remote_.newest_tick()) > paused_tick_) break;
    paused_agents_ -= views.size();
    remote_.push(tick, std::move(views));
    paused_queue_.pop_front();
  }
}

void Viewer::on_events(const v1::Events& e) {
  for (const v1::Capture& c : e.captures()) {
    if (c.entity_id() == entity_ && screen_ == Screen::kPlay) {
      expect_teleport_ = true;
      ++captures_;
      char b[96];
      std::snprintf(b, sizeof b, "Caught! You survived %.1f s", static_cast<double>(c.survived_ticks()) / tick_rate_);
      toast(b);
    }
  }
  for (const v1::Respawn& r : e.respawns())
    if (r.entity_id() == entity_) expect_teleport_ = true;
  for (const v1::PlayerPresence& p : e.presence()) {
    if (p.joined()) names_[p.entity_id()] = p.display_name();
    else names_.erase(p.entity_id());
  }
  if (e.scores_size() > 0) {
    scores_.clear();
    for (const v1::Score& s : e.scores()) {
      ScoreRow row;
      row.player_id = s.player_id();
      row.name = s.display_name();
      row.alive_s = static_cast<double>(s.alive_ticks()) / tick_rate_;
      row.best_s = static_cast<double>(s.best_ticks()) / tick_rate_;
      row.captures = s.captures();
      row.bot = s.bot();
      scores_.push_back(row);
    }
    std::sort(scores_.begin(), scores_.end(), [](const ScoreRow& a, const ScoreRow& b) {
      return std::max(a.best_s, a.alive_s) > std::max(b.best_s, b.alive_s);
    });
  }
}

void Viewer::toast(const std::string& msg) {
  toast_ = msg;
  EM_ASM({ if (window.flockstepUi) window.flockstepUi.toast(UTF8ToString($0)); }, msg.c_str());
}

// ---------------------------------------------------------------------------------------------
// Input: fixed client ticks at the server's tick rate
// ---------------------------------------------------------------------------------------------

void Viewer::input_ticks(double frame_ms) {
  if (screen_ != Screen::kPlay || !session_.live() || !have_world_) {
    accum_ms_ = 0;
    return;
  }
  accum_ms_ += frame_ms;
  std::int32_t produced = 0;
  auto tick_once = [&] {
    const sim::PlayerInput in = input_.current();
    pred_prev_ = predictor_.has_state() ? predictor_.state() : pred_prev_;
    predictor_.advance(in);
    pred_cur_ = predictor_.state();
    ++produced;
  };
  std::int32_t n = 0;
  while (accum_ms_ >= dt_ms_ && n < 12) {
    accum_ms_ -= dt_ms_;
    ++n;
    if (skip_ticks_ > 0) {
      --skip_ticks_;
      continue;
    }
    tick_once();
  }
  if (accum_ms_ > dt_ms_) accum_ms_ = dt_ms_;  // a long stall: do not try to catch up forever
  // Extra inputs to build the lead the server needs (start, and after a starved tick).
  while (owed_ticks_ > 0 && predictor_.unacked_count() < kMaxLeadTicks + 30) {
    --owed_ticks_;
    tick_once();
  }
  if (produced > 0) send_inputs();
}

void Viewer::send_inputs() {
  InputRecord recs[64];
  const std::int32_t n = predictor_.unacked(std::span<InputRecord>(recs, max_input_frames_));
  codec::InputFrame frames[64];
  for (std::int32_t k = 0; k < n; ++k) frames[k] = {recs[k].sequence, recs[k].input.turn, recs[k].input.throttle};
  if (session_.send_inputs(std::span<const codec::InputFrame>(frames, static_cast<std::size_t>(n)))) ++inputs_sent_msgs_;
}

behavior::CraftState Viewer::own_pose() const {
  behavior::CraftState s = pred_cur_;
  const double alpha = std::clamp(accum_ms_ / dt_ms_, 0.0, 1.0);
  Vec2 d = pred_cur_.position - pred_prev_.position;
  if (scenario_.wrap) d = math::torus_delta(pred_prev_.position, pred_cur_.position, scenario_.width, scenario_.height);
  s.position = pred_prev_.position + d * alpha + smooth_offset_;
  s.orientation = math::wrap_angle(pred_prev_.orientation + math::wrap_angle(pred_cur_.orientation - pred_prev_.orientation) * alpha);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Frame
// ---------------------------------------------------------------------------------------------

const DrawAgent* Viewer::drawn(std::uint32_t id) const {
  if (!annotations_) {
    // A few lookups per frame (followed agent): a scan beats building a 10k-entry map.
    for (const DrawAgent& a : agents_)
      if (a.id == id) return &a;
    return nullptr;
  }
  if (!agent_index_valid_) {
    agent_index_.clear();
    agent_index_.reserve(agents_.size());
    for (std::size_t i = 0; i < agents_.size(); ++i) agent_index_[agents_[i].id] = static_cast<std::int32_t>(i);
    agent_index_valid_ = true;
  }
  const auto it = agent_index_.find(id);
  return it == agent_index_.end() ? nullptr : &agents_[static_cast<std::size_t>(it->second)];
}

void Viewer::frame(double now) {
  const double t0 = emscripten_get_now();
  const double frame_ms = last_frame_ms_ > 0 ? std::min(now - last_frame_ms_, 250.0) : 16.7;
  last_frame_ms_ = now;
  frames_window_.add(now);

  session_.update(now);
  input_ticks(frame_ms);
  if (bench_n_ > 0) bench_step(frame_ms, now);
  if (replay_) replay_frame(frame_ms);

  // Others: interpolation in the past, or behaviour-aware extrapolation to the present.
  if (have_world_ && remote_.ready()) {
    double t = server_tick_now(now);
    if (replay_) {
      // A recording is drawn at its own clock, by interpolation between recorded snapshots.
      buffer_beyond_ticks_ = remote_.sample_interpolated(replay_tick_, agents_);
    } else if (paused_) {
      if (paused_tick_ == 0) paused_tick_ = t - kInterpolationDelayMs / dt_ms_;
      feed_paused(false);
      t = paused_tick_;
      remote_.sample_interpolated(t, agents_);
    } else if (extrapolate_) {
      // The newest snapshot is half a round trip old when it arrives; run ahead by that too.
      remote_.sample_extrapolated(t + session_.rtt_ms() * 0.5 / dt_ms_, agents_);
    } else {
      buffer_beyond_ticks_ = remote_.sample_interpolated(t - kInterpolationDelayMs / dt_ms_, agents_);
    }
  } else {
    agents_.clear();
  }
  agent_index_valid_ = false;  // rebuilt on the first lookup of this frame (annotations need it)

  // Correction smoothing: fade the visual offset with a 100 ms time constant.
  smooth_offset_ = smooth_offset_ * std::exp(-frame_ms / 100.0);
  if (math::length_sq(smooth_offset_) < 1e-8) smooth_offset_ = {};

  update_camera(frame_ms);
  if (screen_ == Screen::kSpectate && !replay_) send_view();

  // Trails: own craft and the followed agent, one point per 50 ms, 4 s long.
  if (trails_ && now - trail_last_ms_ > 50) {
    trail_last_ms_ = now;
    if (screen_ == Screen::kPlay && predictor_.has_state()) {
      trail_own_.push_back(own_pose().position);
      if (trail_own_.size() > 80) trail_own_.pop_front();
    }
    if (follow_id_ != trail_follow_id_) {
      trail_follow_.clear();
      trail_follow_id_ = follow_id_;
    }
    if (const DrawAgent* f = follow_id_ ? drawn(follow_id_) : nullptr) {
      trail_follow_.push_back(f->position);
      if (trail_follow_.size() > 80) trail_follow_.pop_front();
    }
  }

  render();
  frame_cost_ms_ = emscripten_get_now() - t0;
  frame_cost_window_.add(now, frame_cost_ms_);
  publish(now);
}

void Viewer::fit_world() {
  if (!have_world_) return;
  int w = 0, h = 0;
  emscripten_get_canvas_element_size(kCanvas, &w, &h);
  if (w <= 0 || h <= 0) return;
  cam_.cx = scenario_.width / 2;
  cam_.cy = scenario_.height / 2;
  cam_.zoom = std::min(w / (scenario_.width * 1.08), h / (scenario_.height * 1.08));
}

/// Spectators tell the server what their camera sees, so it sends only those agents (issue 5's
/// area of interest). The rectangle is padded (panning shows already-known agents) and snapped
/// outward to a kViewSnapM grid, so it changes rarely and spectators looking at the same area ask
/// for the same rectangle, which lets the server encode their snapshots once.
void Viewer::send_view() {
  constexpr double kViewSnapM = 16;    // grid of the rectangle's edges, m
  constexpr double kViewPadM = 12;     // extra margin beyond the screen, m
  constexpr double kViewPadFrac = 0.25;  // ... plus this fraction of the visible extent
  if (cam_.zoom <= 0 || !have_world_) return;
  const double hw = 0.5 * cam_.width / cam_.zoom, hh = 0.5 * cam_.height / cam_.zoom;
  const double px = kViewPadM + kViewPadFrac * 2 * hw, py = kViewPadM + kViewPadFrac * 2 * hh;
  codec::ViewRect v;
  v.min_x = std::floor((cam_.cx - hw - px) / kViewSnapM) * kViewSnapM;
  v.min_y = std::floor((cam_.cy - hh - py) / kViewSnapM) * kViewSnapM;
  v.max_x = std::ceil((cam_.cx + hw + px) / kViewSnapM) * kViewSnapM;
  v.max_y = std::ceil((cam_.cy + hh + py) / kViewSnapM) * kViewSnapM;
  // The whole world in view (the usual zoomed-out spectator): one canonical rectangle.
  if (v.max_x - v.min_x >= scenario_.width && v.max_y - v.min_y >= scenario_.height)
    v = {0, 0, scenario_.width, scenario_.height};
  session_.set_view(v);
}

void Viewer::update_camera(double frame_ms) {
  int w = 0, h = 0;
  emscripten_get_canvas_element_size(kCanvas, &w, &h);
  cam_.width = std::max(w, 1);
  cam_.height = std::max(h, 1);
  if (cam_.zoom <= 0) {
    // Play: about 70 m across the shorter side.
    cam_.zoom = std::min(cam_.width, cam_.height) / 70.0;
  }
  Vec2 target{cam_.cx, cam_.cy};
  bool track = false;
  if (screen_ == Screen::kPlay && predictor_.has_state()) {
    target = own_pose().position;
    track = true;
  } else if (follow_id_ != 0) {
    if (const DrawAgent* f = drawn(follow_id_)) {
      target = f->position;
      track = true;
    }
  }
  if (track) {
    Vec2 d = target - Vec2{cam_.cx, cam_.cy};
    // Snap on teleports and across the torus seam, glide otherwise.
    if (math::length(d) > 30) {
      cam_.cx = target.x;
      cam_.cy = target.y;
    } else {
      const double k = 1 - std::exp(-frame_ms / 60.0);
      cam_.cx += d.x * k;
      cam_.cy += d.y * k;
    }
  }
}

Rgba Viewer::color_of(const DrawAgent& a) const {
  switch (a.kind) {
    case sim::AgentKind::kPlayer:
      if (a.state == sim::BehaviorState::kCaptured) return kCaptured;
      return a.id == entity_ ? kOwnCraft : kOtherPlayer;
    case sim::AgentKind::kPursuer:
      return a.state == sim::BehaviorState::kIntercepting ? kPursuerIntercept : kPursuer;
    case sim::AgentKind::kFlock: return kFlock;
    case sim::AgentKind::kPatrol: return kPatrol;
    case sim::AgentKind::kWanderer: return kWanderer;
    default: return kFlock;
  }
}

Shape Viewer::shape_of(const DrawAgent& a) const {
  switch (a.kind) {
    case sim::AgentKind::kPlayer: return Shape::kDart;
    case sim::AgentKind::kPursuer: return Shape::kArrow;
    case sim::AgentKind::kFlock: return Shape::kBoid;
    case sim::AgentKind::kPatrol: return Shape::kSquare;
    case sim::AgentKind::kWanderer: return Shape::kHex;
    default: return Shape::kBoid;
  }
}

float Viewer::scale_of(const DrawAgent& a) const {
  if (a.group >= 0 && a.group < static_cast<std::int32_t>(scenario_.groups.size())) {
    const sim::GroupSpec& g = scenario_.groups[static_cast<std::size_t>(a.group)];
    const sim::Technique t = g.technique;
    if (t == sim::Technique::kLosChase || t == sim::Technique::kIntercept || t == sim::Technique::kPattern)
      return static_cast<float>(g.craft.length * 0.75);
    return static_cast<float>(g.radius * 1.6);
  }
  return static_cast<float>(scenario_.player_craft.length * 0.75);
}

void Viewer::build_instances(const Camera& cam, bool minimap) {
  for (auto& v : inst_) v.clear();
  const double margin = 3;
  const double x0 = cam.cx - cam.half_w() - margin, x1 = cam.cx + cam.half_w() + margin;
  const double y0 = cam.cy - cam.half_h() - margin, y1 = cam.cy + cam.half_h() + margin;
  std::int32_t visible = 0;
  for (const DrawAgent& a : agents_) {
    if (screen_ == Screen::kPlay && a.id == entity_ && predictor_.has_state()) continue;  // drawn predicted
    if (a.position.x < x0 || a.position.x > x1 || a.position.y < y0 || a.position.y > y1) continue;
    ++visible;
    const Rgba c = color_of(a);
    inst_[static_cast<int>(shape_of(a))].push_back(
        make_instance(a.position, a.orientation, scale_of(a), c));
  }
  if (!minimap) visible_ = visible;
  // Highlight of the followed agent.
  if (!minimap && follow_id_ != 0) {
    if (const DrawAgent* f = drawn(follow_id_))
      inst_[static_cast<int>(Shape::kRing)].push_back(
          make_instance(f->position, 0, scale_of(*f) * 2.2f, {255, 255, 255, 200}));
  }
  // Own craft, predicted (drawn last so it is on top).
  if (screen_ == Screen::kPlay && predictor_.has_state()) {
    const behavior::CraftState p = own_pose();
    const std::uint64_t protect = static_cast<std::uint64_t>(scenario_.respawn_protection_s * tick_rate_);
    const bool protected_now = last_snapshot_tick_ < spawn_tick_ + protect;
    Rgba c = kOwnCraft;
    if (protected_now && (static_cast<int>(emscripten_get_now() / 150) & 1)) c = with_alpha(c, 90);
    const float s = static_cast<float>(scenario_.player_craft.length * (minimap ? 2.0 : 0.9));
    inst_[static_cast<int>(Shape::kDart)].push_back(
        make_instance(p.position, p.orientation, s, c));
    ++visible_;
  }
}

void Viewer::render_world(const Camera& cam, bool minimap) {
  gl_.set_camera(cam, minimap ? 2.5f : 3.0f);
  lines_.clear();
  auto line = [&](Vec2 a, Vec2 b, Rgba c) {
    lines_.push_back({static_cast<float>(a.x), static_cast<float>(a.y), c});
    lines_.push_back({static_cast<float>(b.x), static_cast<float>(b.y), c});
  };
  // Grid (every 10 m, bolder every 50 m) and the world's border.
  if (!minimap) {
    const double step = cam.zoom > 2 ? 10 : 50;
    const double gx0 = std::max(0.0, std::floor((cam.cx - cam.half_w()) / step) * step);
    const double gx1 = std::min(scenario_.width, cam.cx + cam.half_w());
    const double gy0 = std::max(0.0, std::floor((cam.cy - cam.half_h()) / step) * step);
    const double gy1 = std::min(scenario_.height, cam.cy + cam.half_h());
    for (double x = gx0; x <= gx1; x += step)
      line({x, std::max(0.0, gy0)}, {x, gy1}, std::fmod(x, 50) == 0 ? kGridMajor : kGridMinor);
    for (double y = gy0; y <= gy1; y += step)
      line({std::max(0.0, gx0), y}, {gx1, y}, std::fmod(y, 50) == 0 ? kGridMajor : kGridMinor);
  }
  const double W = scenario_.width, H = scenario_.height;
  const Rgba border = scenario_.wrap ? with_alpha(kBorder, 120) : kBorder;
  line({0, 0}, {W, 0}, border);
  line({W, 0}, {W, H}, border);
  line({W, H}, {0, H}, border);
  line({0, H}, {0, 0}, border);
  for (const behavior::Wall& w : scenario_.walls) line(w.a, w.b, kWall);
  gl_.draw_lines(lines_);

  // Obstacles: filled discs with an outline, one instanced draw each.
  std::vector<Instance>& discs = inst_[static_cast<int>(Shape::kDisc)];
  std::vector<Instance>& rings = inst_[static_cast<int>(Shape::kRing)];
  discs.clear();
  rings.clear();
  for (const behavior::Circle& c : scenario_.obstacles) {
    discs.push_back(make_instance(c.center, 0, static_cast<float>(c.radius), kObstacleFill));
    rings.push_back(make_instance(c.center, 0, static_cast<float>(c.radius), kObstacleEdge));
  }
  gl_.draw(Shape::kDisc, discs);
  gl_.draw(Shape::kRing, rings);

  // Trails under the agents.
  if (!minimap && trails_) {
    lines_.clear();
    auto trail = [&](const std::deque<Vec2>& t, Rgba c) {
      for (std::size_t i = 1; i < t.size(); ++i) {
        if (math::length(t[i] - t[i - 1]) > 5) continue;  // teleport or seam
        const auto a = static_cast<std::uint8_t>(200 * i / t.size());
        line(t[i - 1], t[i], with_alpha(c, a));
      }
    };
    trail(trail_own_, kOwnCraft);
    trail(trail_follow_, {255, 255, 255, 255});
    gl_.draw_lines(lines_);
  }

  if (minimap) {
    // The minimap shows where things are, not their shapes: one point per agent, one draw.
    lines_.clear();
    for (const DrawAgent& a : agents_) {
      if (screen_ == Screen::kPlay && a.id == entity_ && predictor_.has_state()) continue;
      lines_.push_back({static_cast<float>(a.position.x), static_cast<float>(a.position.y), color_of(a)});
    }
    gl_.draw_points(lines_, 2.0f);
    if (screen_ == Screen::kPlay && predictor_.has_state()) {
      lines_.clear();
      const Vec2 p = own_pose().position;
      lines_.push_back({static_cast<float>(p.x), static_cast<float>(p.y), kOwnCraft});
      gl_.draw_points(lines_, 6.0f);
    }
    return;
  }
  // Agents: one instanced draw per shape.
  build_instances(cam, minimap);
  for (int s = 0; s < static_cast<int>(Shape::kCount); ++s) {
    if (s == static_cast<int>(Shape::kDisc)) continue;
    gl_.draw(static_cast<Shape>(s), inst_[s]);
  }
}

void Viewer::annotate(const Camera& cam) {
  lines_.clear();
  auto line = [&](Vec2 a, Vec2 b, Rgba c) {
    lines_.push_back({static_cast<float>(a.x), static_cast<float>(a.y), c});
    lines_.push_back({static_cast<float>(b.x), static_cast<float>(b.y), c});
  };
  auto cross = [&](Vec2 p, double r, Rgba c) {
    line(p + Vec2{-r, -r}, p + Vec2{r, r}, c);
    line(p + Vec2{-r, r}, p + Vec2{r, -r}, c);
  };
  auto circle = [&](Vec2 p, double r, Rgba c, double from = 0, double to = 2 * math::kPi) {
    const int n = 32;
    Vec2 prev = p + math::as_vector(from) * r;
    for (int i = 1; i <= n; ++i) {
      const Vec2 q = p + math::as_vector(from + (to - from) * i / n) * r;
      line(prev, q, c);
      prev = q;
    }
  };
  const double x0 = cam.cx - cam.half_w(), x1 = cam.cx + cam.half_w();
  const double y0 = cam.cy - cam.half_h(), y1 = cam.cy + cam.half_h();
  // Patrol paths.
  for (const sim::PathSpec& p : scenario_.paths) {
    for (std::size_t i = 0; i + 1 < p.points.size(); ++i) line(p.points[i], p.points[i + 1], {255, 216, 74, 90});
    if (p.loop && p.points.size() > 2) line(p.points.back(), p.points.front(), {255, 216, 74, 90});
    for (const Vec2& q : p.points) cross(q, 0.6, {255, 216, 74, 160});
  }
  std::int32_t budget = 4000;  // annotated agents per frame
  for (const DrawAgent& a : agents_) {
    if (a.position.x < x0 || a.position.x > x1 || a.position.y < y0 || a.position.y > y1) continue;
    if (!(annotation_mask_ & (1u << static_cast<unsigned>(a.kind)))) continue;
    if (--budget < 0) break;
    // Velocity: where it will be in 0.5 s.
    line(a.position, a.position + a.velocity * 0.5, {120, 255, 120, 170});
    const bool aims = a.kind == sim::AgentKind::kPursuer || a.kind == sim::AgentKind::kPatrol ||
                      a.kind == sim::AgentKind::kWanderer || a.state == sim::BehaviorState::kHiding;
    if (aims && !(a.aim.x == a.position.x && a.aim.y == a.position.y)) {
      const Rgba c = a.state == sim::BehaviorState::kIntercepting ? Rgba{255, 159, 64, 220} : Rgba{255, 255, 255, 120};
      line(a.position, a.aim, with_alpha(c, 90));
      cross(a.aim, 0.5, c);
    }
    if (a.target != 0) {
      if (const DrawAgent* t = drawn(a.target)) line(a.position, t->position, {255, 80, 80, 60});
      else if (a.target == entity_ && predictor_.has_state()) line(a.position, own_pose().position, {255, 80, 80, 60});
    }
  }
  // The followed flock member: neighbour radius and field of view.
  if (follow_id_ != 0) {
    if (const DrawAgent* f = drawn(follow_id_)) {
      if (f->group >= 0 && f->group < static_cast<std::int32_t>(scenario_.groups.size())) {
        const sim::GroupSpec& g = scenario_.groups[static_cast<std::size_t>(f->group)];
        if (g.technique == sim::Technique::kFlock) {
          const double half = g.flock.fov_deg * math::kDegToRad * 0.5;
          circle(f->position, g.flock.neighbour_radius, {184, 199, 255, 120}, f->orientation - half, f->orientation + half);
          if (half < math::kPi) {
            line(f->position, f->position + math::as_vector(f->orientation - half) * g.flock.neighbour_radius, {184, 199, 255, 120});
            line(f->position, f->position + math::as_vector(f->orientation + half) * g.flock.neighbour_radius, {184, 199, 255, 120});
          }
        }
        if (g.technique == sim::Technique::kWander)
          circle(f->position + math::as_vector(f->orientation) * g.wander.distance, g.wander.radius, {208, 139, 255, 140});
        const bool craft = g.technique == sim::Technique::kLosChase || g.technique == sim::Technique::kIntercept ||
                           g.technique == sim::Technique::kPattern;
        if (!craft) {
          // The vehicle's avoidance sensors, computed with the same shared functions: wall
          // feelers (T75) and the obstacle detection box (T73), which grows with speed.
          const Vec2 h = math::as_vector(f->orientation);
          const behavior::Body b{f->position, f->velocity, h, g.mass, g.max_force, g.max_speed, g.radius};
          if (g.layers.walls > 0)
            for (const Vec2& tip : behavior::feeler_tips(b, g.feelers)) line(f->position, tip, {170, 185, 215, 150});
          if (g.layers.obstacles > 0) {
            const double len = behavior::detection_box_length(b, g.detection);
            const double half = (g.detection.box_width > 0 ? g.detection.box_width : 2 * g.radius) * 0.5;
            const Vec2 l = math::perp_left(h) * half, fwd = h * len;
            const Vec2 c[4] = {f->position + l, f->position + l + fwd, f->position - l + fwd, f->position - l};
            for (int k = 0; k < 4; ++k) line(c[k], c[(k + 1) % 4], {255, 200, 120, 140});
          }
        }
      }
    }
  }
  // Own craft: the authoritative state (ghost) next to the prediction.
  if (screen_ == Screen::kPlay && have_server_state_) {
    circle(server_state_.position, scenario_.player_craft.length * 0.8, {255, 255, 255, 160});
    const behavior::CraftState p = own_pose();
    line(p.position, p.position + p.velocity * 0.5, {57, 230, 255, 200});
  }
  gl_.draw_lines(lines_);
}

void Viewer::render() {
  int w = cam_.width, h = cam_.height;
  gl_.begin_frame(w, h, kBackground);
  if (!have_world_) return;
  render_world(cam_, false);
  if (annotations_) annotate(cam_);
  if (minimap_) {
    const int size = std::max(90, std::min(200, std::min(w, h) / 4));
    const int pad = 10;
    gl_.begin_inset(w - size - pad, pad, size, size, {5, 8, 18, 235});
    Camera mm;
    mm.width = size;
    mm.height = size;
    mm.cx = scenario_.width / 2;
    mm.cy = scenario_.height / 2;
    mm.zoom = size / (std::max(scenario_.width, scenario_.height) * 1.04);
    render_world(mm, true);
    // The main camera's rectangle.
    lines_.clear();
    const Rgba c{255, 255, 255, 150};
    const Vec2 a{cam_.cx - cam_.half_w(), cam_.cy - cam_.half_h()}, b{cam_.cx + cam_.half_w(), cam_.cy + cam_.half_h()};
    const Vec2 corners[4] = {a, {b.x, a.y}, b, {a.x, b.y}};
    for (int i = 0; i < 4; ++i) {
      const Vec2 p = corners[i], q = corners[(i + 1) % 4];
      lines_.push_back({static_cast<float>(p.x), static_cast<float>(p.y), c});
      lines_.push_back({static_cast<float>(q.x), static_cast<float>(q.y), c});
    }
    gl_.draw_lines(lines_);
    gl_.end_inset();
  }
}

// ---------------------------------------------------------------------------------------------
// Publishing state: window.__flockstep
// ---------------------------------------------------------------------------------------------

void Viewer::publish(double now) {
  std::string& j = json_;
  j.clear();
  j += '{';
  const char* screen = replay_ ? "replay" : screen_ == Screen::kPlay ? "play" : (screen_ == Screen::kSpectate ? "spectate" : "start");
  jstr(j, "screen", screen);
  jstr(j, "link", to_string(session_.state()));
  jbool(j, "connected", session_.live());
  jstr(j, "role", screen_ == Screen::kPlay ? "player" : (screen_ == Screen::kSpectate ? "spectator" : ""));
  jstr(j, "url", url_);
  jnum(j, "fps", frames_window_.sum(now));
  const double frames = static_cast<double>(frame_cost_window_.samples.size());
  jnum(j, "frame_ms", frames > 0 ? frame_cost_window_.sum(now) / std::max(1.0, frames) : 0);
  jnum(j, "snapshot_ms", snapshot_cost_ms_ + session_.snapshot_parse_ms());  // parse + decode + buffer
  jnum(j, "bench", bench_n_);
  jnum(j, "bench_sim_ms", bench_world_ ? bench_sim_ms_ : 0);
  jnum(j, "rtt", session_.rtt_ms());
  jnum(j, "tick", static_cast<double>(last_snapshot_tick_));
  jnum(j, "server_tick_est", have_offset_ ? server_tick_now(now) : 0);
  jnum(j, "tick_rate", tick_rate_);
  jnum(j, "snapshot_rate", snapshot_window_.sum(now));
  jnum(j, "snapshot_rate_nominal", snapshot_rate_);
  bytes_window_.samples.clear();  // bytes are read from the session's counter instead
  static std::deque<std::pair<double, std::uint64_t>> bytes_hist;
  bytes_hist.push_back({now, session_.bytes_received()});
  while (bytes_hist.size() > 2 && bytes_hist.front().first < now - 2000) bytes_hist.pop_front();
  const double span_ms = now - bytes_hist.front().first;
  const double kbps = span_ms > 100 ? static_cast<double>(bytes_hist.back().second - bytes_hist.front().second) * 8.0 / span_ms : 0;
  jnum(j, "kbps", kbps);
  jnum(j, "bytes_received", static_cast<double>(session_.bytes_received()));
  jnum(j, "entities", static_cast<double>(remote_.newest().size()));
  jnum(j, "drawn", static_cast<double>(agents_.size()));
  jnum(j, "visible", visible_);
  jnum(j, "draw_calls", gl_.draw_calls());
  jstr(j, "gl_renderer", gl_.renderer_name());
  jbool(j, "instanced", !gl_.expanded());
  jbool(j, "antialias", antialias_);
  jnum(j, "corrections", static_cast<double>(corrections_));
  jnum(j, "corrections_per_min", corrections_window_.sum(now));
  jnum(j, "respawn_corrections", static_cast<double>(teleports_));
  jnum(j, "held_states", static_cast<double>(held_states_));
  jnum(j, "compared", static_cast<double>(compared_));
  jnum(j, "pred_error", last_pred_error_m_);
  jnum(j, "pred_error_max", max_pred_error_m_);
  jnum(j, "input_seq", predictor_.last_sequence());
  jnum(j, "acked", predictor_.last_acked());
  jnum(j, "unacked", predictor_.unacked_count());
  jnum(j, "input_msgs", static_cast<double>(inputs_sent_msgs_));
  jnum(j, "lead_adjustments", lead_adjustments_);
  jnum(j, "entity_id", entity_);
  jnum(j, "player_id", player_id_);
  const sim::PlayerInput in = input_.current();
  j += "\"input\":{";
  jnum(j, "turn", in.turn);
  jnum(j, "throttle", in.throttle, false);
  j += "},";
  if (screen_ == Screen::kPlay && predictor_.has_state()) {
    const behavior::CraftState p = predictor_.state();
    j += "\"predicted\":{";
    jnum(j, "x", p.position.x);
    jnum(j, "y", p.position.y);
    jnum(j, "heading", p.orientation);
    jnum(j, "speed", math::length(p.velocity));
    jnum(j, "seq", predictor_.last_sequence(), false);
    j += "},";
  } else {
    j += "\"predicted\":null,";
  }
  if (screen_ == Screen::kPlay && have_server_state_) {
    j += "\"server\":{";
    jnum(j, "x", server_state_.position.x);
    jnum(j, "y", server_state_.position.y);
    jnum(j, "heading", server_state_.orientation);
    jnum(j, "speed", math::length(server_state_.velocity));
    jnum(j, "tick", static_cast<double>(server_state_tick_));
    jnum(j, "seq", server_state_seq_, false);
    j += "},";
  } else {
    j += "\"server\":null,";
  }
  jnum(j, "follow", follow_id_);
  if (const DrawAgent* f = follow_id_ ? drawn(follow_id_) : nullptr) {
    j += "\"follow_pos\":{";
    jnum(j, "x", f->position.x);
    jnum(j, "y", f->position.y, false);
    j += "},";
  } else {
    j += "\"follow_pos\":null,";
  }
  // A few visible agents (tests click on them; people can read them in the console).
  j += "\"sample\":[";
  {
    int n = 0;
    for (const DrawAgent& a : agents_) {
      if (std::fabs(a.position.x - cam_.cx) > cam_.half_w() * 0.8 || std::fabs(a.position.y - cam_.cy) > cam_.half_h() * 0.8) continue;
      if (n) j += ',';
      j += '{';
      jnum(j, "id", a.id);
      jstr(j, "kind", sim::kind_name(a.kind));
      jnum(j, "x", a.position.x);
      jnum(j, "y", a.position.y, false);
      j += '}';
      if (++n == 8) break;
    }
  }
  j += "],";
  {
    double css_w = 0, css_h = 0;
    emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
    j += "\"canvas\":{";
    jnum(j, "width", cam_.width);
    jnum(j, "height", cam_.height);
    jnum(j, "css_w", css_w);
    jnum(j, "css_h", css_h);
    jnum(j, "scale", css_w > 0 ? cam_.width / css_w : 1, false);  // device px per CSS px
    j += "},";
  }
  j += "\"camera\":{";
  jnum(j, "x", cam_.cx);
  jnum(j, "y", cam_.cy);
  jnum(j, "zoom", cam_.zoom, false);
  j += "},";
  jstr(j, "mode", extrapolate_ ? "extrapolate" : "interpolate");
  jnum(j, "interp_delay_ms", extrapolate_ ? 0 : kInterpolationDelayMs);
  jnum(j, "buffer_starved_ticks", buffer_beyond_ticks_);
  const ExtrapolationError& ee = remote_.extrapolation_error();
  jnum(j, "extrap_error", ee.behaviour_mean_m);
  jnum(j, "extrap_error_max", ee.behaviour_max_m);
  jnum(j, "dead_reckoning_error", ee.dead_reckoning_mean_m);
  jnum(j, "display_jump", extrapolate_ ? remote_.last_rebase_jump_m() : 0);
  jbool(j, "annotations", annotations_);
  jnum(j, "annotation_mask", annotation_mask_);
  jbool(j, "trails", trails_);
  jbool(j, "minimap", minimap_);
  jbool(j, "paused", replay_ ? !replay_playing_ : paused_);
  jnum(j, "reconnects", session_.reconnects());
  jnum(j, "resumes", session_.resumes());
  jnum(j, "attempt", session_.attempt());
  jnum(j, "retry_in_ms", session_.state() == LinkState::kWaitingRetry ? std::max(0.0, session_.retry_at_ms() - now) : 0);
  jstr(j, "last_close", session_.last_close());
  jnum(j, "captures", captures_);
  jnum(j, "alive_s", screen_ == Screen::kPlay && last_snapshot_tick_ > spawn_tick_
                        ? static_cast<double>(last_snapshot_tick_ - spawn_tick_) / tick_rate_ : 0);
  jstr(j, "world_error", world_error_);
  jstr(j, "room", replay_ ? replay_room_ : (welcome_room_.empty() ? room_ : welcome_room_));
  jstr(j, "room_requested", room_);
  j += "\"replay\":{";
  jbool(j, "active", replay_);
  jnum(j, "tick", replay_ ? std::floor(replay_tick_) : 0);
  jnum(j, "tick_exact", replay_ ? replay_tick_ : 0);
  jbool(j, "playing", replay_ && replay_playing_);
  jnum(j, "speed", replay_speed_);
  jnum(j, "firstTick", static_cast<double>(replay_first_));
  jnum(j, "lastTick", static_cast<double>(replay_last_));
  jnum(j, "snapshot_tick", replay_ ? static_cast<double>(last_snapshot_tick_) : 0);
  jnum(j, "records", static_cast<double>(replay_records_.size()));
  jstr(j, "error", replay_error_);
  if (j.back() == ',') j.pop_back();
  j += "},";
  if (have_world_) {
    j += "\"world\":{";
    jstr(j, "name", scenario_.name);
    jnum(j, "width", scenario_.width);
    jnum(j, "height", scenario_.height);
    jbool(j, "wrap", scenario_.wrap);
    jnum(j, "obstacles", static_cast<double>(scenario_.obstacles.size()), false);
    j += "},";
  } else {
    j += "\"world\":null,";
  }
  j += "\"scores\":[";
  for (std::size_t i = 0; i < scores_.size() && i < 10; ++i) {
    const ScoreRow& s = scores_[i];
    if (i) j += ',';
    j += '{';
    jstr(j, "name", s.name);
    jnum(j, "alive", s.alive_s);
    jnum(j, "best", s.best_s);
    jnum(j, "captures", s.captures);
    jbool(j, "bot", s.bot);
    jbool(j, "me", s.player_id == player_id_ && screen_ == Screen::kPlay);
    jnum(j, "id", s.player_id, false);
    j += '}';
  }
  j += "]}";
  EM_ASM({ if (window.__flockstepUpdate) window.__flockstepUpdate(UTF8ToString($0)); }, j.c_str());
}

// ---------------------------------------------------------------------------------------------
// Replay of a recording (issue 6): "FSREC001", then [u32 little-endian length][ServerMessage]
// records: a Welcome, then DeltaSnapshots (each against the previous one; a full keyframe every
// few seconds), Events and GroupUpdates in stream order. The same codec and receiver as the live
// stream decode it, and the same buffers and renderer draw it. Seeking decodes from the last
// keyframe at or before the target tick, then forward.
// ---------------------------------------------------------------------------------------------

bool Viewer::replay_open() {
  auto fail = [this](const std::string& why) {
    replay_error_ = why;
    replay_records_.clear();
    replay_data_.clear();
    EM_ASM({ if (window.flockstepUi && window.flockstepUi.replayError) window.flockstepUi.replayError(UTF8ToString($0)); }, why.c_str());
    return false;
  };
  static constexpr char kMagic[8] = {'F', 'S', 'R', 'E', 'C', '0', '0', '1'};
  const std::vector<std::uint8_t>& d = replay_data_;
  if (d.size() < 8 || !std::equal(kMagic, kMagic + 8, d.begin())) return fail("not a Flockstep recording (no FSREC001 header)");
  std::vector<ReplayRecord> recs;
  v1::ServerMessage& m = replay_msg_;
  std::size_t at = 8;
  while (at < d.size()) {
    if (d.size() - at < 4) break;  // a torn tail (recording still being written): ignore it
    const std::uint32_t n = static_cast<std::uint32_t>(d[at]) | static_cast<std::uint32_t>(d[at + 1]) << 8 |
                            static_cast<std::uint32_t>(d[at + 2]) << 16 | static_cast<std::uint32_t>(d[at + 3]) << 24;
    if (d.size() - at - 4 < n) break;
    ReplayRecord r;
    r.offset = at + 4;
    r.size = n;
    at += 4 + static_cast<std::size_t>(n);
    const codec::Result res = codec::decode_server_message(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(d.data() + r.offset), n), m);
    if (!res.usable()) return fail("record " + std::to_string(recs.size() + 1) + ": " + res.detail);
    r.type = m.payload_case();
    if (r.type == v1::ServerMessage::kDeltaSnapshot) {
      r.tick = m.delta_snapshot().server_tick();
      r.keyframe = m.delta_snapshot().baseline_tick() == 0;
    } else if (r.type == v1::ServerMessage::kGroupUpdate) {
      r.tick = m.group_update().server_tick();
    } else if (r.type == v1::ServerMessage::kWelcome) {
      if (!recs.empty()) return fail("a second Welcome at record " + std::to_string(recs.size() + 1));
      replay_spec0_ = m.welcome().world();
      replay_room_ = m.welcome().room();
      tick_rate_ = m.welcome().tick_rate_hz() > 0 ? m.welcome().tick_rate_hz() : 60;
      snapshot_rate_ = m.welcome().snapshot_rate_hz() > 0 ? m.welcome().snapshot_rate_hz() : 20;
    } else if (recs.empty()) {
      return fail("the first record is not a Welcome");
    }
    recs.push_back(r);
  }
  if (recs.empty()) return fail("the recording is empty");
  std::uint64_t first = 0, last = 0;
  bool any = false;
  for (const ReplayRecord& r : recs) {
    if (r.type != v1::ServerMessage::kDeltaSnapshot) continue;
    if (!any && !r.keyframe) continue;  // decoding must start at a keyframe
    if (!any) first = r.tick;
    any = true;
    last = std::max(last, r.tick);
  }
  if (!any) return fail("the recording has no keyframe snapshot");

  session_.stop();
  bench_n_ = 0;
  bench_world_.reset();
  replay_ = true;
  replay_error_.clear();
  replay_records_ = std::move(recs);
  replay_first_ = first;
  replay_last_ = last;
  screen_ = Screen::kSpectate;
  entity_ = player_id_ = 0;
  world_spec_ = replay_spec0_;
  if (!rebuild_scenario(world_spec_)) {
    replay_ = false;
    return fail(world_error_);
  }
  dt_ms_ = 1000.0 / tick_rate_;
  predictor_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  predictor_.reset();
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  have_world_ = true;
  have_offset_ = false;
  have_server_state_ = false;
  paused_ = false;
  paused_queue_.clear();
  paused_agents_ = 0;
  follow_id_ = 0;
  scores_.clear();
  replay_speed_ = 1;
  replay_playing_ = true;
  fit_world();
  replay_seek(static_cast<double>(first));
  publish_world();
  return true;
}

void Viewer::replay_close() {
  if (!replay_) return;
  replay_ = false;
  replay_playing_ = false;
  replay_records_.clear();
  replay_data_.clear();
  replay_data_.shrink_to_fit();
  have_world_ = false;
  remote_.reset();
}

void Viewer::replay_seek(double tick) {
  if (!replay_) return;
  tick = std::clamp(tick, static_cast<double>(replay_first_), static_cast<double>(replay_last_));
  // The last keyframe at or before the target.
  std::size_t key = replay_records_.size();
  for (std::size_t i = 0; i < replay_records_.size(); ++i) {
    const ReplayRecord& r = replay_records_[i];
    if (r.type != v1::ServerMessage::kDeltaSnapshot) continue;
    if (r.tick > static_cast<std::uint64_t>(tick)) break;
    if (r.keyframe) key = i;
  }
  if (key == replay_records_.size()) return;
  // The world as it was there: the recording's Welcome plus every GroupUpdate before it.
  v1::WorldSpec spec = replay_spec0_;
  for (std::size_t i = 0; i < key; ++i) {
    const ReplayRecord& r = replay_records_[i];
    if (r.type != v1::ServerMessage::kGroupUpdate) continue;
    if (!replay_msg_.ParseFromArray(replay_data_.data() + r.offset, static_cast<int>(r.size))) continue;
    const v1::GroupUpdate& u = replay_msg_.group_update();
    if (u.group() >= 0 && u.group() < spec.groups_size()) *spec.mutable_groups(u.group()) = u.spec();
  }
  if (rebuild_scenario(spec)) world_spec_ = std::move(spec);
  replay_rx_.configure(scenario_);
  remote_.reset();
  last_snapshot_tick_ = 0;
  replay_next_ = key;
  replay_tick_ = tick;
  replay_feed(tick + static_cast<double>(tick_rate_) / snapshot_rate_, true);
  publish_world();
}

/// Decode records in file order up to the first snapshot newer than `limit_tick`.
void Viewer::replay_feed(double limit_tick, bool quiet) {
  const double now = emscripten_get_now();
  while (replay_next_ < replay_records_.size()) {
    const ReplayRecord& r = replay_records_[replay_next_];
    if (r.type == v1::ServerMessage::kDeltaSnapshot && static_cast<double>(r.tick) > limit_tick) break;
    ++replay_next_;
    if (!replay_msg_.ParseFromArray(replay_data_.data() + r.offset, static_cast<int>(r.size))) continue;
    switch (r.type) {
      case v1::ServerMessage::kDeltaSnapshot: {
        const v1::DeltaSnapshot& d = replay_msg_.delta_snapshot();
        const codec::Result res = replay_rx_.receive(d);
        if (!res.ok() || replay_rx_.tick() != d.server_tick()) break;
        last_snapshot_tick_ = d.server_tick();
        if (!quiet) snapshot_window_.add(now);
        remote_.push(d.server_tick(), std::vector<sim::AgentView>(replay_rx_.agents()));
        break;
      }
      case v1::ServerMessage::kGroupUpdate:
        apply_group_update(replay_msg_.group_update());
        break;
      case v1::ServerMessage::kEvents:
        if (!quiet) on_events(replay_msg_.events());
        break;
      default:
        break;
    }
  }
}

void Viewer::replay_frame(double frame_ms) {
  if (replay_playing_) {
    replay_tick_ += frame_ms / dt_ms_ * replay_speed_;
    if (replay_tick_ >= static_cast<double>(replay_last_)) {
      replay_tick_ = static_cast<double>(replay_last_);
      replay_playing_ = false;
    }
  }
  replay_feed(replay_tick_ + static_cast<double>(tick_rate_) / snapshot_rate_, false);
}

void Viewer::replay_control(const std::string& what, double value) {
  if (!replay_) return;
  if (what == "play") {
    replay_playing_ = value != 0;
    if (replay_playing_ && replay_tick_ >= static_cast<double>(replay_last_)) replay_seek(static_cast<double>(replay_first_));
  } else if (what == "speed") {
    replay_speed_ = std::clamp(value, 0.25, 4.0);
  } else if (what == "seek") {
    replay_seek(value);
  } else if (what == "step") {
    // One snapshot interval (value = -1: back).
    const double step = static_cast<double>(tick_rate_) / snapshot_rate_;
    replay_playing_ = false;
    if (value < 0) replay_seek(replay_tick_ - step);
    else replay_tick_ = std::min(replay_tick_ + step, static_cast<double>(replay_last_));
  }
}

// ---------------------------------------------------------------------------------------------
// Offline benchmark: the whole drawing pipeline (snapshot buffer, interpolation or extrapolation,
// instancing, annotations) without a server, so viewer cost is measured apart from the server's.
// run_sim = false: n synthetic agents fly straight and bounce (cheap, isolates the viewer);
// run_sim = true: a local sim::World of canonical::flock(n) runs in the page (wasm sim cost too).
// ---------------------------------------------------------------------------------------------

void Viewer::bench(std::int32_t n, bool run_sim) {
  session_.stop();
  screen_ = Screen::kSpectate;
  scenario_ = sim::canonical::flock(std::max<std::int32_t>(n, 1));
  tick_rate_ = static_cast<std::uint32_t>(scenario_.tick_rate_hz);
  dt_ms_ = 1000.0 / tick_rate_;
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  remote_.reset();
  have_world_ = true;
  have_offset_ = false;
  bench_n_ = std::max<std::int32_t>(n, 1);
  bench_tick_ = 0;
  bench_accum_ms_ = 0;
  bench_agents_.clear();
  bench_world_.reset();
  if (run_sim) {
    bench_world_ = std::make_unique<sim::World>(scenario_);
  } else {
    math::Rng rng = math::Rng::seeded(42, 9);
    for (std::int32_t i = 0; i < bench_n_; ++i) {
      sim::AgentView v;
      v.id = sim::AgentId{static_cast<std::uint32_t>(i + 1) | (1u << sim::AgentId::kSlotBits)};
      v.kind = static_cast<sim::AgentKind>(i % 5);
      v.group = 0;
      v.position = {rng.uniform(0, scenario_.width), rng.uniform(0, scenario_.height)};
      const real a = rng.uniform(-math::kPi, math::kPi);
      v.velocity = math::as_vector(a) * rng.uniform(2, 6);
      v.orientation = a;
      v.aim = v.position + v.velocity;
      bench_agents_.push_back(v);
    }
  }
  fit_world();
}

void Viewer::bench_step(double frame_ms, double now) {
  bench_accum_ms_ += frame_ms;
  std::int32_t steps = 0;
  while (bench_accum_ms_ >= dt_ms_ && steps < 4) {
    bench_accum_ms_ -= dt_ms_;
    ++steps;
    ++bench_tick_;
    const double dt = 1.0 / tick_rate_;
    if (bench_world_) {
      const double t0 = emscripten_get_now();
      bench_world_->step();
      bench_sim_ms_ = bench_sim_ms_ * 0.9 + (emscripten_get_now() - t0) * 0.1;
    } else {
      for (sim::AgentView& v : bench_agents_) {
        v.position += v.velocity * dt;
        if (v.position.x < 0 || v.position.x > scenario_.width) v.velocity.x = -v.velocity.x;
        if (v.position.y < 0 || v.position.y > scenario_.height) v.velocity.y = -v.velocity.y;
        v.orientation = math::orientation_of(v.velocity);
        v.aim = v.position + v.velocity;
      }
    }
    if (bench_tick_ % 3 == 0 && !paused_) {  // 20 Hz snapshots
      std::vector<sim::AgentView> views;
      if (bench_world_) {
        views.reserve(static_cast<std::size_t>(bench_world_->size()));
        for (std::int32_t i = 0; i < bench_world_->size(); ++i) views.push_back(bench_world_->view(i));
      } else {
        views = bench_agents_;
      }
      snapshot_window_.add(now);
      last_snapshot_tick_ = bench_tick_;
      offset_ms_ = static_cast<double>(bench_tick_) * dt_ms_ - now;
      have_offset_ = true;
      remote_.push(bench_tick_, std::move(views));
    }
  }
  if (bench_accum_ms_ > dt_ms_) bench_accum_ms_ = dt_ms_;
}

// ---------------------------------------------------------------------------------------------
// Options and input events
// ---------------------------------------------------------------------------------------------

void Viewer::set_option(const std::string& name, double value) {
  const bool on = value != 0;
  if (name == "annotations") annotations_ = on;
  else if (name == "extrapolate") extrapolate_ = on;
  else if (name == "trails") trails_ = on;
  else if (name == "minimap") minimap_ = on;
  else if (name == "annotation_mask") annotation_mask_ = static_cast<std::uint32_t>(value);
  else if (name == "paused" && replay_) replay_control("play", on ? 0 : 1);
  else if (name == "paused") {
    paused_ = on && screen_ != Screen::kPlay;  // the game does not wait for a player
    paused_tick_ = 0;
    if (!paused_) feed_paused(true);
  } else if (name == "zoom" && value > 0) cam_.zoom = value;
  else if (name == "fit") fit_world();
}

void Viewer::cycle_player(int dir) {
  std::vector<std::uint32_t> ids;
  for (const DrawAgent& a : agents_)
    if (a.kind == sim::AgentKind::kPlayer) ids.push_back(a.id);
  if (ids.empty()) return;
  std::sort(ids.begin(), ids.end());
  auto it = std::find(ids.begin(), ids.end(), follow_id_);
  std::ptrdiff_t k = it == ids.end() ? (dir > 0 ? -1 : 0) : it - ids.begin();
  k = (k + dir + static_cast<std::ptrdiff_t>(ids.size())) % static_cast<std::ptrdiff_t>(ids.size());
  follow_id_ = ids[static_cast<std::size_t>(k)];
}

bool Viewer::on_key(const EmscriptenKeyboardEvent* e, bool down) {
  if (screen_ == Screen::kStart) return false;  // typing a name
  // Typing into a page field (tuning panel, replay controls): the keys are the field's.
  const bool typing = EM_ASM_INT({
    var a = document.activeElement;
    return a && (a.tagName === 'INPUT' || a.tagName === 'SELECT' || a.tagName === 'TEXTAREA') ? 1 : 0;
  }) != 0;
  if (typing) {
    if (!down && screen_ == Screen::kPlay) input_.key(e->code, false);  // a key held before still ends
    return false;
  }
  const std::string code = e->code;
  const std::string key = e->key;
  if (screen_ == Screen::kPlay && input_.key(code, down)) return true;
  if (!down) return false;
  if (e->ctrlKey || e->metaKey || e->altKey) return false;
  auto ui = [](const char* what) { EM_ASM({ if (window.flockstepUi) window.flockstepUi.command(UTF8ToString($0)); }, what); };
  if (key == "?" || code == "KeyH" || code == "F1") { ui("help"); return true; }
  if (code == "Escape") {
    if (follow_id_) follow_id_ = 0;
    ui("escape");
    return true;
  }
  if (code == "KeyA" && screen_ != Screen::kPlay) { annotations_ = !annotations_; return true; }
  if (code == "KeyV") { annotations_ = !annotations_; return true; }  // also in play, where A steers
  if (code == "KeyE" || code == "KeyX") { extrapolate_ = !extrapolate_; return true; }
  if (code == "KeyT") { trails_ = !trails_; return true; }
  if (code == "KeyM") { minimap_ = !minimap_; return true; }
  if (code.size() == 6 && code.rfind("Digit", 0) == 0 && code[5] >= '1' && code[5] <= '5') {
    annotation_mask_ ^= 1u << static_cast<unsigned>(code[5] - '1');
    annotations_ = true;
    return true;
  }
  if (code == "Equal" || code == "NumpadAdd") { cam_.zoom *= 1.25; return true; }
  if (code == "Minus" || code == "NumpadSubtract") { cam_.zoom /= 1.25; return true; }
  if (replay_) {
    if (code == "KeyP" || code == "Space") { replay_control("play", replay_playing_ ? 0 : 1); return true; }
    if (code == "Period" || code == "KeyN") { replay_control("step", 1); return true; }
    if (code == "Comma" || code == "KeyB") { replay_control("step", -1); return true; }
  }
  if (screen_ == Screen::kSpectate) {
    if (code == "KeyP" || code == "Space") { set_option("paused", paused_ ? 0 : 1); return true; }
    if (code == "Period" || code == "KeyN") { if (paused_) step_once(); return true; }
    if (code == "BracketRight" || (code == "Tab" && !e->shiftKey) || code == "KeyD" || code == "ArrowRight") { cycle_player(1); return true; }
    if (code == "BracketLeft" || (code == "Tab" && e->shiftKey) || code == "ArrowLeft") { cycle_player(-1); return true; }
    if (code == "Digit0" || code == "Home" || code == "KeyF") { follow_id_ = 0; fit_world(); return true; }
  }
  return false;
}

bool Viewer::on_mouse(int type, const EmscriptenMouseEvent* e) {
  double css_w = 1, css_h = 1;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double sx = cam_.width / std::max(css_w, 1.0), sy = cam_.height / std::max(css_h, 1.0);
  switch (type) {
    case EMSCRIPTEN_EVENT_MOUSEDOWN:
      if (e->button != 0) return false;
      dragging_ = true;
      drag_moved_ = false;
      drag_x_ = e->targetX;
      drag_y_ = e->targetY;
      return true;
    case EMSCRIPTEN_EVENT_MOUSEMOVE:
      if (!dragging_) return false;
      if (std::fabs(e->targetX - drag_x_) + std::fabs(e->targetY - drag_y_) > 4) drag_moved_ = true;
      if (drag_moved_ && screen_ != Screen::kPlay) {
        follow_id_ = 0;
        cam_.cx -= e->movementX * sx / cam_.zoom;
        cam_.cy += e->movementY * sy / cam_.zoom;
      }
      return true;
    case EMSCRIPTEN_EVENT_MOUSEUP: {
      if (!dragging_) return false;
      dragging_ = false;
      if (!drag_moved_ && screen_ != Screen::kPlay) {
        // A click: follow the agent under the cursor (or nothing).
        const Vec2 p = cam_.to_world(e->targetX * sx, e->targetY * sy);
        const double pick = std::max(1.5, 14.0 / cam_.zoom);
        double best = pick * pick;
        std::uint32_t id = 0;
        for (const DrawAgent& a : agents_) {
          const double d2 = math::length_sq(a.position - p);
          if (d2 < best) { best = d2; id = a.id; }
        }
        follow_id_ = id;
      }
      return true;
    }
    default:
      return false;
  }
}

bool Viewer::on_wheel(const EmscriptenWheelEvent* e) {
  double css_w = 1, css_h = 1;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double sx = cam_.width / std::max(css_w, 1.0), sy = cam_.height / std::max(css_h, 1.0);
  const double px = e->mouse.targetX * sx, py = e->mouse.targetY * sy;
  const Vec2 before = cam_.to_world(px, py);
  const double factor = std::exp(-e->deltaY * (e->deltaMode == DOM_DELTA_PIXEL ? 0.0015 : 0.05));
  cam_.zoom = std::clamp(cam_.zoom * factor, 0.05, 200.0);
  if (screen_ != Screen::kPlay && follow_id_ == 0) {
    // Zoom about the cursor.
    const Vec2 after = cam_.to_world(px, py);
    cam_.cx += before.x - after.x;
    cam_.cy += before.y - after.y;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Browser glue
// ---------------------------------------------------------------------------------------------

EM_BOOL raf(double time, void*) {
  g_viewer.frame(time);
  return EM_TRUE;
}
EM_BOOL key_down(int, const EmscriptenKeyboardEvent* e, void*) { return g_viewer.on_key(e, true); }
EM_BOOL key_up(int, const EmscriptenKeyboardEvent* e, void*) { return g_viewer.on_key(e, false); }
EM_BOOL mouse(int type, const EmscriptenMouseEvent* e, void*) { return g_viewer.on_mouse(type, e); }
EM_BOOL wheel(int, const EmscriptenWheelEvent* e, void*) { return g_viewer.on_wheel(e); }
EM_BOOL mouse_up_anywhere(int, const EmscriptenMouseEvent*, void*) {
  g_viewer.end_drag();
  return EM_FALSE;
}
EM_BOOL blur(int, const EmscriptenFocusEvent*, void*) {
  g_viewer.on_blur();
  return EM_FALSE;
}

}  // namespace
}  // namespace flockstep::client

using flockstep::client::g_viewer;

extern "C" {

/// Join as a player with a display name (UTF-8, 1-32 bytes).
EMSCRIPTEN_KEEPALIVE void fs_play(const char* name) { g_viewer.play(name ? name : ""); }
/// Join as a spectator.
EMSCRIPTEN_KEEPALIVE void fs_spectate() { g_viewer.spectate(); }
/// Leave (back to the start screen).
EMSCRIPTEN_KEEPALIVE void fs_leave() { g_viewer.leave(); }
/// Set a view option: annotations, extrapolate, trails, minimap, paused (0/1),
/// annotation_mask (bit per agent kind), zoom (px per m), fit (any value).
EMSCRIPTEN_KEEPALIVE void fs_set_option(const char* name, double value) { g_viewer.set_option(name ? name : "", value); }
/// Spectators, paused: advance the view by one tick.
EMSCRIPTEN_KEEPALIVE void fs_step() { g_viewer.step_once(); }
/// Follow an agent by id (0 = free camera).
EMSCRIPTEN_KEEPALIVE void fs_follow(unsigned id) { g_viewer.follow(id); }
/// Follow the next (+1) or previous (-1) player.
EMSCRIPTEN_KEEPALIVE void fs_cycle_player(int dir) { g_viewer.cycle_player(dir < 0 ? -1 : 1); }
/// On-screen joystick: turn [-1, 1] (+1 right), throttle [0, 1], active = finger down.
EMSCRIPTEN_KEEPALIVE void fs_set_touch(double turn, double throttle, int active) { g_viewer.touch(turn, throttle, active != 0); }
/// WebSocket URL for the next Play/Spectate (default ws(s)://<page host>/ws or ?server=).
EMSCRIPTEN_KEEPALIVE void fs_set_server_url(const char* url) { g_viewer.set_url(url ? url : ""); }
/// Offline benchmark without a server: n agents, synthetic (sim = 0) or a local sim::World (sim = 1).
EMSCRIPTEN_KEEPALIVE void fs_bench(int n, int sim) { g_viewer.bench(n, sim != 0); }
/// Tests: drop the connection as if the network failed (the viewer reconnects and resumes).
EMSCRIPTEN_KEEPALIVE void fs_drop_connection() { g_viewer.drop(); }
/// Room (scenario name) for the next Play / Spectate; empty = the server's default room.
EMSCRIPTEN_KEEPALIVE void fs_set_room(const char* room) { g_viewer.set_room(room ? room : ""); }
/// Replay: a buffer of n bytes for the recording file (JS copies the file into HEAPU8 there).
EMSCRIPTEN_KEEPALIVE std::uint8_t* fs_replay_buffer(unsigned n) { return g_viewer.replay_buffer(n); }
/// Replay: parse the buffer and start playing it (1) or report why not (0, flockstepUi.replayError).
EMSCRIPTEN_KEEPALIVE int fs_replay_open() { return g_viewer.replay_open() ? 1 : 0; }
/// Replay controls: play (0/1), speed (0.25-4), seek (tick), step (+1 / -1 snapshot).
EMSCRIPTEN_KEEPALIVE void fs_replay_control(const char* what, double value) { g_viewer.replay_control(what ? what : "", value); }

}  // extern "C"

int main() {
  using namespace flockstep::client;
  if (!g_viewer.init()) return 1;
  emscripten_set_keydown_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_TRUE, key_down);
  emscripten_set_keyup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_TRUE, key_up);
  emscripten_set_mousedown_callback(kCanvas, nullptr, EM_TRUE, mouse);
  emscripten_set_mousemove_callback(kCanvas, nullptr, EM_TRUE, mouse);
  emscripten_set_mouseup_callback(kCanvas, nullptr, EM_TRUE, mouse);
  // A drag that ends outside the canvas still ends.
  emscripten_set_mouseup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, mouse_up_anywhere);
  emscripten_set_wheel_callback(kCanvas, nullptr, EM_TRUE, wheel);
  emscripten_set_blur_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_TRUE, blur);
  emscripten_request_animation_frame_loop(raf, nullptr);
  EM_ASM({ if (window.flockstepUi) window.flockstepUi.ready(); });
  return 0;
}
