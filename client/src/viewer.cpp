// The Viewer's sessions, snapshots, input ticks, frame loop and camera (see viewer.hpp for how
// the rest is split), and the offline benchmark.
#include "viewer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <emscripten/emscripten.h>

#include "flockstep/math/angle.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/sim/canonical.hpp"
#include "ui/page.hpp"

namespace flockstep::client {

using math::real;
using math::Vec2;

// ---------------------------------------------------------------------------------------------
// Set-up and sessions
// ---------------------------------------------------------------------------------------------

bool Viewer::init() {
  // Multisampling: on, except on software GL (SwiftShader, llvmpipe: headless browsers, VMs),
  // which pays dearly for it; ?aa=1 / ?aa=0 forces it (the page decides: client/web/bridge.js).
  antialias_ = page::query_int("antialiasDefault", 1) != 0;
  if (!gl_.init(kCanvas, antialias_)) {
    page::call("fatal", "This browser has no WebGL2.");
    return false;
  }
  // ?instanced=1 / 0 forces instanced or CPU-expanded shapes (default: expanded only on software GL).
  const int instanced = page::query_int("instancedParam", -1);
  if (instanced >= 0) gl_.set_expanded(instanced == 0);
  // Default server: the page's own host, /ws; ?server=ws://host:port/ws overrides it.
  url_ = page::query_string("serverUrl");
  cam_.zoom = 6;
  return true;
}

void Viewer::context_restored() {
  // Every GL object died with the context; the scene is rebuilt from C++ state on the next frame.
  gl_ = Renderer{};
  if (!gl_.init(kCanvas, antialias_)) page::call("fatal", "WebGL2 context could not be restored.");
  const int instanced = page::query_int("instancedParam", -1);
  if (instanced >= 0) gl_.set_expanded(instanced == 0);
}

double Viewer::css_scale() const {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  return css_w > 0 ? std::max(0.25, cam_.width / css_w) : 1.0;
}

void Viewer::start_session(codec::Role role, const std::string& name) {
  replay_close();
  bench_n_ = 0;
  bench_world_.reset();
  lab_.reset();
  Session::Handlers h;
  h.on_welcome = [this](const v1::Welcome& w, bool resumed, bool world_ok, const std::string& detail) {
    on_welcome(w, resumed, world_ok, detail);
  };
  h.on_snapshot = [this](const SnapshotFrame& s, std::uint32_t bytes) { on_snapshot(s, bytes); };
  h.on_events = [this](const v1::Events& e) { on_events(e); };
  h.on_lost = [this](const std::string&) { input_.clear(); };
  h.on_refused = [this](const std::string& reason) { on_refused(reason); };
  h.on_group_update = [this](std::int32_t group) { on_group_changed(session_.core().scenario(), group); };
  h.on_steering_trace = [this](const v1::SteeringTrace& t) { on_steering_trace(t); };
  session_.configure(url_, std::move(h));
  have_world_ = false;
  remote_.reset();  // (the session's start() resets the prediction)
  stats_.reset();
  captures_ = 0;
  inspect_id_ = 0;
  trace_ = {};
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
  lab_.reset();
  screen_ = Screen::kStart;
  have_world_ = false;
  input_.clear();
}

void Viewer::on_welcome(const v1::Welcome& w, bool resumed, bool world_ok, const std::string& detail) {
  if (!world_ok) {
    world_error_ = detail;
    toast(world_error_);
    return;
  }
  world_error_.clear();
  welcome_room_ = w.room();
  // The session's core decoded the world once (and configured the prediction and the receiver
  // with it); the viewer draws and extrapolates from its own copy.
  const ProtocolCore& core = session_.core();
  const bool same_world =
      have_world_ && core.scenario().name == scenario_.name && core.scenario().width == scenario_.width;
  scenario_ = core.scenario();
  tick_rate_ = core.tick_rate_hz();
  snapshot_rate_ = core.snapshot_rate_hz();
  dt_ms_ = 1000.0 / tick_rate_;
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  remote_.reset();
  paused_queue_.clear();
  paused_agents_ = 0;
  paused_tick_ = 0;
  have_world_ = true;
  clock_.reset();
  have_server_state_ = false;
  entity_ = w.entity_id();
  player_id_ = w.player_id();
  accum_ms_ = 0;
  lead_.start(screen_ == Screen::kPlay, emscripten_get_now());
  smooth_offset_ = {};
  trail_own_.clear();
  if (!same_world) {
    if (screen_ == Screen::kPlay) {
      cam_.zoom = 0;  // set from the canvas size in update_camera
    } else {
      fit_world();
    }
  }
  world_changed();
  if (resumed) toast("Reconnected: your craft is back");
  else if (session_.reconnects() > 0) toast("Reconnected");
}

void Viewer::on_refused(const std::string& reason) {
  // Close CODE_UNKNOWN_ROOM: back to the lobby with the server's reason.
  screen_ = Screen::kStart;
  have_world_ = false;
  input_.clear();
  page::call("refused", reason, room_);
}

void Viewer::on_steering_trace(const v1::SteeringTrace& t) {
  if (t.agent_id() != inspect_id_) return;  // an answer for the agent inspected before
  sim::SteeringTrace tr;
  if (!t.available()) {
    tr.agent = sim::AgentId{t.agent_id()};
    tr.tick = t.server_tick();
    trace_ = tr;
    trace_available_ = false;
    trace_source_ = "server";
    return;
  }
  const codec::Result r = codec::decode_steering_trace(t, tr);
  if (!r.ok()) {
    toast("bad steering trace: " + r.detail);
    return;
  }
  trace_ = tr;
  trace_available_ = true;
  trace_source_ = "server";
}

/// A GroupUpdate (live tuning, or a recording) that the core patched into `from`: copy that one
/// group (in place: the extrapolation keeps a pointer to scenario_).
void Viewer::on_group_changed(const sim::Scenario& from, std::int32_t group) {
  const auto g = static_cast<std::size_t>(group);
  if (group < 0 || g >= from.groups.size() || g >= scenario_.groups.size()) return;
  scenario_.groups[g] = from.groups[g];
  world_changed();
}

/// The scenario changed (Welcome, GroupUpdate, replay seek): rebuild the static layers and tell
/// the page (room info, legend, Tune panel).
void Viewer::world_changed() {
  layers_ = build_world_layers(scenario_);
  publish_world();
}

double Viewer::server_tick_now(double now) const {
  if (!clock_.valid()) return static_cast<double>(last_snapshot_tick_);
  return clock_.server_tick(now, dt_ms_);
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

  clock_.observe(static_cast<double>(tick), now, dt_ms_);

  // The player's craft: the core compared it with the prediction for the same input and
  // replayed the rest; the viewer smooths what it draws.
  if (screen_ == Screen::kPlay && entity_ != 0 && s.own && s.own->reconciled) {
    for (const sim::AgentView& v : views) {
      if (v.id.value != entity_) continue;
      reconcile_own(v, s, now);
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

void Viewer::reconcile_own(const sim::AgentView& v, const SnapshotFrame& s, double now) {
  const OwnUpdate& own = *s.own;
  const behavior::CraftState& server = own.server;
  const std::uint32_t applied = s.last_input_sequence;
  const behavior::CraftState before = own.before;
  const bool had = own.had_state;
  const ReconcileResult& r = own.result;
  server_state_ = server;
  have_server_state_ = true;
  server_state_tick_ = s.server_tick;
  server_state_seq_ = applied;
  spawn_tick_ = v.spawn_tick;
  // A capture respawns the craft where only the server decides (the core saw the capture or
  // respawn event): not a misprediction.
  const bool respawn = own.respawned;
  if (stats_.add(r, respawn)) corrections_window_.add(now);
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
  lead_.observe(s.server_tick, applied, predictor_.last_sequence(), session_.rtt_ms() / dt_ms_, now);
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
      ++captures_;
      char b[96];
      std::snprintf(b, sizeof b, "Caught! You survived %.1f s", static_cast<double>(c.survived_ticks()) / tick_rate_);
      toast(b);
    }
  }
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

void Viewer::toast(const std::string& msg) { page::call("toast", msg); }

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
    session_.advance(in);
    pred_cur_ = predictor_.state();
    ++produced;
  };
  std::int32_t n = 0;
  while (accum_ms_ >= dt_ms_ && n < 12) {
    accum_ms_ -= dt_ms_;
    ++n;
    if (lead_.take_skip()) continue;  // trimming the lead
    tick_once();
  }
  if (accum_ms_ > dt_ms_) accum_ms_ = dt_ms_;  // a long stall: do not try to catch up forever
  // Extra inputs to build the lead the server needs (start, and after a starved tick).
  while (lead_.take_owed(predictor_.unacked_count())) tick_once();
  if (produced > 0) send_inputs();
}

void Viewer::send_inputs() {
  if (session_.send_inputs()) ++inputs_sent_msgs_;
}

behavior::CraftState Viewer::own_pose() const {
  behavior::CraftState s = pred_cur_;
  const double alpha = std::clamp(accum_ms_ / dt_ms_, 0.0, 1.0);
  Vec2 d = pred_cur_.position - pred_prev_.position;
  if (scenario_.wrap) d = math::torus_delta(pred_prev_.position, pred_cur_.position, scenario_.width, scenario_.height);
  s.position = pred_prev_.position + d * alpha + smooth_offset_;
  s.orientation = math::wrap_angle(pred_prev_.orientation +
                                   math::wrap_angle(pred_cur_.orientation - pred_prev_.orientation) * alpha);
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
  // The inspector: the server traces the inspected agent while the panel shows it.
  if (!lab_ && !replay_) session_.set_inspect(inspect_id_);
  input_ticks(frame_ms);
  if (bench_n_ > 0) bench_step(frame_ms, now);
  if (lab_) lab_step(frame_ms, now);
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
  build_labels();
  frame_cost_ms_ = emscripten_get_now() - t0;
  frame_cost_window_.add(now, frame_cost_ms_);
  publish(now);
}

void Viewer::fit_world() {
  if (!have_world_) return;
  int w = 0, h = 0;
  emscripten_get_canvas_element_size(kCanvas, &w, &h);
  if (w <= 0 || h <= 0) return;
  // Keep the world clear of the status pill (top), the toolbar (bottom) and tall panels along the
  // right edge (an open legend, the leaderboard): fit it into what is left, centred there.
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double k = css_w > 0 ? w / css_w : 1;
  double right_css = 0;
  for (const ScreenBox& b : occluders_)
    if (b.x > css_w * 0.5 && b.x + b.w > css_w - 24 && b.h > 60) right_css = std::max(right_css, css_w - b.x + 8);
  right_css = std::min(right_css, css_w * kFitMaxRightFraction);
  // ... and tall panels along the left edge (the lab's controls), the same way.
  double left_css = 0;
  for (const ScreenBox& b : occluders_)
    if (b.x < 24 && b.x + b.w < css_w * 0.5 && b.h > kFitLeftPanelMinCssPx)
      left_css = std::max(left_css, b.x + b.w + 8);
  left_css = std::min(left_css, css_w * kFitMaxRightFraction);
  const double top = kFitTopCssPx * k, bottom = kFitBottomCssPx * k, right = right_css * k, left = left_css * k;
  const double usable_w = std::max(1.0, w - right - left), usable_h = std::max(1.0, h - top - bottom);
  cam_.zoom = std::min(usable_w / (scenario_.width * 1.04), usable_h / (scenario_.height * 1.04));
  // Screen x grows right like world x; screen y grows down, world y up: shift the centre so the
  // world sits in the middle of the free area.
  cam_.cx = scenario_.width / 2 + (right - left) * 0.5 / cam_.zoom;
  cam_.cy = scenario_.height / 2 - (bottom - top) * 0.5 / cam_.zoom;
  at_fit_ = true;
}

/// Spectators tell the server what their camera sees, so it sends only those agents (its
/// area of interest). The rectangle is padded (panning shows already-known agents) and snapped
/// outward to a kViewSnapM grid, so it changes rarely and spectators looking at the same area ask
/// for the same rectangle, which lets the server encode their snapshots once.
void Viewer::send_view() {
  constexpr double kViewSnapM = 16;      // grid of the rectangle's edges, m
  constexpr double kViewPadM = 12;       // extra margin beyond the screen, m
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

// ---------------------------------------------------------------------------------------------
// Offline benchmark: the whole drawing pipeline (snapshot buffer, interpolation or extrapolation,
// instancing, annotations) without a server, so viewer cost is measured apart from the server's.
// run_sim = false: n synthetic agents fly straight and bounce (cheap, isolates the viewer);
// run_sim = true: a local sim::World of canonical::flock(n) runs in the page (wasm sim cost too).
// ---------------------------------------------------------------------------------------------

void Viewer::bench(std::int32_t n, bool run_sim) {
  session_.stop();
  lab_.reset();
  screen_ = Screen::kSpectate;
  scenario_ = sim::canonical::flock(std::max<std::int32_t>(n, 1));
  tick_rate_ = static_cast<std::uint32_t>(scenario_.tick_rate_hz);
  dt_ms_ = 1000.0 / tick_rate_;
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  remote_.reset();
  have_world_ = true;
  clock_.reset();
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
  layers_ = build_world_layers(scenario_);
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
      clock_.set_offset(static_cast<double>(bench_tick_) * dt_ms_ - now);
      remote_.push(bench_tick_, std::move(views));
    }
  }
  if (bench_accum_ms_ > dt_ms_) bench_accum_ms_ = dt_ms_;
}

}  // namespace flockstep::client
