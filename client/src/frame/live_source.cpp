// Live play and spectating (live_source.hpp): the session's callbacks, snapshots, the own craft's
// input ticks and reconciliation, the paused spectator view, and the link's fields for the page.
#include "frame/live_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "flockstep/math/angle.hpp"
#include "flockstep/math/transform.hpp"

namespace flockstep::client {

using math::Vec2;

std::string LiveSource::open(std::span<const std::uint8_t> data) {
  (void)data;
  return "live play starts with Play or Spectate (fs_play, fs_spectate)";
}

void LiveSource::start(codec::Role role, const std::string& name, const std::string& url, const std::string& room) {
  Session::Handlers h;
  h.on_welcome = [this](const v1::Welcome& w, bool resumed, bool world_ok, const std::string& detail) {
    on_welcome(w, resumed, world_ok, detail);
  };
  h.on_snapshot = [this](const SnapshotFrame& s, std::uint32_t) { on_snapshot(s); };
  h.on_events = [this](const v1::Events& e) { on_events(e); };
  h.on_lost = [this](const std::string&) { input_.clear(); };
  h.on_refused = [this](const std::string& reason) {
    have_world_ = false;
    input_.clear();
    if (hooks_.refused) hooks_.refused(reason);
  };
  h.on_group_update = [this](std::int32_t group) {
    // The core patched that one group of its scenario: copy it (in place: the buffer points at
    // scenario_).
    const sim::Scenario& from = session_.core().scenario();
    const auto g = static_cast<std::size_t>(group);
    if (group < 0 || g >= from.groups.size() || g >= scenario_.groups.size()) return;
    scenario_.groups[g] = from.groups[g];
    host_.world_changed(*this, false);
  };
  h.on_steering_trace = [this](const v1::SteeringTrace& t) { on_steering_trace(t); };
  session_.configure(url, std::move(h));
  started_ = true;
  player_ = role == codec::Role::kPlayer;
  have_world_ = false;
  remote_.reset();  // (the session's start() resets the prediction)
  stats_.reset();
  captures_ = 0;
  inspect_ = 0;
  trace_ = {};
  welcome_room_.clear();
  requested_room_ = room;
  paused_ = false;
  paused_queue_.clear();
  paused_agents_ = 0;
  session_.start(role, name, emscripten_get_now(), room);
}

void LiveSource::stop() {
  session_.stop();
  started_ = false;
  player_ = false;
  have_world_ = false;
}

void LiveSource::on_welcome(const v1::Welcome& w, bool resumed, bool world_ok, const std::string& detail) {
  if (!world_ok) {
    world_error_ = detail;
    host_.toast(world_error_);
    return;
  }
  world_error_.clear();
  welcome_room_ = w.room();
  // The session's core decoded the world once (and configured the prediction and the receiver
  // with it); the source draws and extrapolates from its own copy.
  const ProtocolCore& core = session_.core();
  const bool same_world =
      have_world_ && core.scenario().name == scenario_.name && core.scenario().width == scenario_.width;
  adopt_world(core.scenario(), core.tick_rate_hz(), core.snapshot_rate_hz());
  paused_queue_.clear();
  paused_agents_ = 0;
  paused_tick_ = 0;
  have_server_state_ = false;
  entity_ = w.entity_id();
  player_id_ = w.player_id();
  accum_ms_ = 0;
  lead_.start(player_, emscripten_get_now());
  smooth_offset_ = {};
  ++own_jumps_;
  host_.world_changed(*this, !same_world);
  if (resumed) host_.toast("Reconnected: your craft is back");
  else if (session_.reconnects() > 0) host_.toast("Reconnected");
}

void LiveSource::on_steering_trace(const v1::SteeringTrace& t) {
  if (t.agent_id() != inspect_) return;  // an answer for the agent inspected before
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
    host_.toast("bad steering trace: " + r.detail);
    return;
  }
  trace_ = tr;
  trace_available_ = true;
  trace_source_ = "server";
}

void LiveSource::on_events(const v1::Events& e) {
  for (const v1::Capture& c : e.captures()) {
    if (c.entity_id() == entity_ && player_) {
      ++captures_;
      char b[96];
      std::snprintf(b, sizeof b, "Caught! You survived %.1f s", static_cast<double>(c.survived_ticks()) / tick_rate_);
      host_.toast(b);
    }
  }
  host_.events(e);
}

void LiveSource::on_snapshot(const SnapshotFrame& s) {
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
  const std::uint64_t tick = s.server_tick;
  if (tick <= last_tick_ && remote_.ready()) return;
  last_tick_ = tick;

  clock_.observe(static_cast<double>(tick), now, dt_ms_);

  // The player's craft: the core compared it with the prediction for the same input and
  // replayed the rest; the source smooths what is drawn.
  if (player_ && entity_ != 0 && s.own && s.own->reconciled) {
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

void LiveSource::reconcile_own(const sim::AgentView& v, const SnapshotFrame& s, double now) {
  const OwnUpdate& own = *s.own;
  const std::uint32_t applied = s.last_input_sequence;
  const behavior::CraftState before = own.before;
  const ReconcileResult& r = own.result;
  server_state_ = own.server;
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
  if (!own.had_state || teleport) {
    pred_prev_ = pred_cur_ = after;
    smooth_offset_ = {};
    ++own_jumps_;
  } else {
    // Keep the drawn craft where it was and let the difference fade (no visible snap).
    const Vec2 d = after.position - before.position;
    pred_prev_.position += d;
    pred_cur_ = after;
    smooth_offset_ -= d;
  }
  lead_.observe(s.server_tick, applied, predictor_.last_sequence(), session_.rtt_ms() / dt_ms_, now);
}

void LiveSource::feed_paused(bool all) {
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

// Fixed client ticks at the server's tick rate.
void LiveSource::input_ticks(double frame_ms) {
  if (!player_ || !session_.live() || !have_world_) {
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
  if (produced > 0 && session_.send_inputs()) ++inputs_sent_msgs_;
}

bool LiveSource::own_pose(behavior::CraftState& out) const {
  if (!player_ || !predictor_.has_state()) return false;
  out = pred_cur_;
  const double alpha = std::clamp(accum_ms_ / dt_ms_, 0.0, 1.0);
  Vec2 d = pred_cur_.position - pred_prev_.position;
  if (scenario_.wrap) d = math::torus_delta(pred_prev_.position, pred_cur_.position, scenario_.width, scenario_.height);
  out.position = pred_prev_.position + d * alpha + smooth_offset_;
  out.orientation = math::wrap_angle(pred_prev_.orientation +
                                     math::wrap_angle(pred_cur_.orientation - pred_prev_.orientation) * alpha);
  return true;
}

bool LiveSource::protected_now() const {
  const auto protect = static_cast<std::uint64_t>(scenario_.respawn_protection_s * tick_rate_);
  return last_tick_ < spawn_tick_ + protect;
}

void LiveSource::advance(const FrameInput& in) {
  if (!started_) return;
  session_.update(in.now);
  // The inspector: the server traces the inspected agent while the panel shows it.
  inspect_ = in.inspect;
  session_.set_inspect(inspect_);
  input_ticks(in.frame_ms);
  // Correction smoothing: fade the visual offset with a 100 ms time constant.
  smooth_offset_ = smooth_offset_ * std::exp(-in.frame_ms / 100.0);
  if (math::length_sq(smooth_offset_) < 1e-8) smooth_offset_ = {};
  if (!player_ && in.camera) send_view(*in.camera);
}

// Others: interpolation in the past, or behaviour-aware extrapolation to the present.
void LiveSource::sample(const FrameInput& in, std::vector<DrawAgent>& out) {
  if (!have_world_ || !remote_.ready()) {
    out.clear();
    return;
  }
  double t = tick_now(in.now);
  if (paused_) {
    if (paused_tick_ == 0) paused_tick_ = t - kInterpolationDelayMs / dt_ms_;
    feed_paused(false);
    remote_.sample_interpolated(paused_tick_, out);
  } else if (in.extrapolate) {
    // The newest snapshot is half a round trip old when it arrives; run ahead by that too.
    remote_.sample_extrapolated(t + session_.rtt_ms() * 0.5 / dt_ms_, out);
  } else {
    buffer_beyond_ticks_ = remote_.sample_interpolated(t - kInterpolationDelayMs / dt_ms_, out);
  }
}

void LiveSource::control(const std::string& what, double value) {
  if (what == "paused") {
    paused_ = value != 0 && !player_;  // the game does not wait for a player
    paused_tick_ = 0;
    if (!paused_) feed_paused(true);
  } else if (what == "step") {
    if (paused_) paused_tick_ += 1;
  }
}

bool LiveSource::key(const std::string& code) {
  if (player_) return false;
  if (code == "KeyP" || code == "Space") {
    control("paused", paused_ ? 0 : 1);
    return true;
  }
  if (code == "Period" || code == "KeyN") {
    control("step", 1);
    return true;
  }
  return false;
}

/// Spectators tell the server what their camera sees, so it sends only those agents (its
/// area of interest). The rectangle is padded (panning shows already-known agents) and snapped
/// outward to a kViewSnapM grid, so it changes rarely and spectators looking at the same area ask
/// for the same rectangle, which lets the server encode their snapshots once.
void LiveSource::send_view(const Camera& cam) {
  constexpr double kViewSnapM = 16;      // grid of the rectangle's edges, m
  constexpr double kViewPadM = 12;       // extra margin beyond the screen, m
  constexpr double kViewPadFrac = 0.25;  // ... plus this fraction of the visible extent
  if (cam.zoom <= 0 || !have_world_) return;
  const double hw = 0.5 * cam.width / cam.zoom, hh = 0.5 * cam.height / cam.zoom;
  const double px = kViewPadM + kViewPadFrac * 2 * hw, py = kViewPadM + kViewPadFrac * 2 * hh;
  codec::ViewRect v;
  v.min_x = std::floor((cam.cx - hw - px) / kViewSnapM) * kViewSnapM;
  v.min_y = std::floor((cam.cy - hh - py) / kViewSnapM) * kViewSnapM;
  v.max_x = std::ceil((cam.cx + hw + px) / kViewSnapM) * kViewSnapM;
  v.max_y = std::ceil((cam.cy + hh + py) / kViewSnapM) * kViewSnapM;
  // The whole world in view (the usual zoomed-out spectator): one canonical rectangle.
  if (v.max_x - v.min_x >= scenario_.width && v.max_y - v.min_y >= scenario_.height)
    v = {0, 0, scenario_.width, scenario_.height};
  session_.set_view(v);
}

namespace {
/// JSON has no NaN or infinity: report 0 rather than break the page's JSON.parse.
double num(double v) { return std::isfinite(v) ? v : 0; }
nlohmann::json craft_json(const behavior::CraftState& c) {
  return {{"x", num(c.position.x)},
          {"y", num(c.position.y)},
          {"heading", num(c.orientation)},
          {"speed", num(math::length(c.velocity))}};
}
}  // namespace

void LiveSource::publish(nlohmann::json& j, double now) const {
  using nlohmann::json;
  j["link"] = to_string(session_.state());
  j["connected"] = session_.live();
  j["snapshot_ms"] = num(snapshot_cost_ms_ + session_.snapshot_parse_ms());  // parse + decode + buffer
  j["rtt"] = num(session_.rtt_ms());
  bytes_hist_.push_back({now, session_.bytes_received()});
  while (bytes_hist_.size() > 2 && bytes_hist_.front().first < now - 2000) bytes_hist_.pop_front();
  const double span_ms = now - bytes_hist_.front().first;
  j["kbps"] =
      span_ms > 100 ? static_cast<double>(bytes_hist_.back().second - bytes_hist_.front().second) * 8.0 / span_ms : 0;
  j["bytes_received"] = session_.bytes_received();
  j["corrections"] = stats_.corrections;
  j["corrections_per_min"] = corrections_window_.sum(now);
  j["respawn_corrections"] = stats_.respawns;
  j["held_states"] = stats_.held_states;
  j["compared"] = stats_.compared;
  j["pred_error"] = num(stats_.last_error_m);
  j["pred_error_max"] = num(stats_.max_error_m);
  j["input_seq"] = predictor_.last_sequence();
  j["acked"] = predictor_.last_acked();
  j["unacked"] = predictor_.unacked_count();
  j["input_msgs"] = inputs_sent_msgs_;
  j["lead_adjustments"] = lead_.adjustments();
  j["entity_id"] = entity_;
  j["player_id"] = player_id_;
  if (player_ && predictor_.has_state()) {
    json p = craft_json(predictor_.state());
    p["seq"] = predictor_.last_sequence();
    j["predicted"] = std::move(p);
  } else {
    j["predicted"] = nullptr;
  }
  if (player_ && have_server_state_) {
    json p = craft_json(server_state_);
    p["tick"] = server_state_tick_;
    p["seq"] = server_state_seq_;
    j["server"] = std::move(p);
  } else {
    j["server"] = nullptr;
  }
  j["reconnects"] = session_.reconnects();
  j["resumes"] = session_.resumes();
  j["attempt"] = session_.attempt();
  j["retry_in_ms"] =
      num(session_.state() == LinkState::kWaitingRetry ? std::max(0.0, session_.retry_at_ms() - now) : 0);
  j["last_close"] = session_.last_close();
  j["captures"] = captures_;
  j["alive_s"] = player_ && last_tick_ > spawn_tick_ ? static_cast<double>(last_tick_ - spawn_tick_) / tick_rate_ : 0;
  j["world_error"] = world_error_;
  if (measure_holds_) {
    // Per hold and group kind: mean errors of the extrapolation, of plain dead reckoning and of
    // the held snapshot drawn as it is, m.
    json holds = json::object();
    for (std::size_t h = 0; h < std::size(RemoteAgents::kHoldsMs); ++h) {
      json kinds = json::object();
      for (const auto& [kind, e] : remote_.hold_errors(h)) {
        const double n = static_cast<double>(std::max<std::int64_t>(e.samples, 1));
        kinds[kind] = {{"samples", e.samples},
                       {"mean", num(e.behaviour_sum_m / n)},
                       {"max", num(e.behaviour_max_m)},
                       {"dead_reckoning", num(e.dead_reckoning_sum_m / n)},
                       {"held", num(e.held_sum_m / n)}};
      }
      holds[std::to_string(static_cast<int>(RemoteAgents::kHoldsMs[h]))] = std::move(kinds);
    }
    j["extrap_holds"] = std::move(holds);
  }
  if (started_) j["paused"] = paused_;
}

}  // namespace flockstep::client
