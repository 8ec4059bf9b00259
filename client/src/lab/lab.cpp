// The lab: a sim::World of any scenario running in the page, with no game server. The page
// gives it scenario JSON (a shipped file fetched from the static folder, or text edited in the
// lab panel), tunes any parameter through the same paths the admin API takes, pauses, steps,
// restarts with a new seed, moves the chasers' target (a player craft) with a click and exports
// the scenario file the server runs as a room. The world is the server's own code (shared/), the
// scenario parser the server's own parser (codec/scenario_json), so what the lab shows is what a
// room of that file would do, tick for tick, given the same seed and inputs.
#include <emscripten/emscripten.h>

#include "codec/group_fields.hpp"
#include "codec/scenario_json.hpp"
#include "codec/server_codec.hpp"
#include "flockstep/sim/world.hpp"
#include "ui/page.hpp"
#include "viewer.hpp"

namespace flockstep::client {

std::string Viewer::lab_load(const std::string& json_text) {
  std::string error;
  std::optional<sim::Scenario> parsed = codec::try_parse_scenario(json_text, error);
  if (!parsed) return error;
  const std::string invalid = sim::validate(*parsed);
  if (!invalid.empty()) return invalid;
  session_.stop();
  replay_close();
  bench_n_ = 0;
  bench_world_.reset();
  lab_ = std::make_unique<Lab>();
  lab_->scenario = std::move(*parsed);
  lab_start();
  if (cam_.zoom <= 0 || !have_world_) fit_world();
  return "";
}

void Viewer::lab_start() {
  Lab& lab = *lab_;
  lab.world = std::make_unique<sim::World>(lab.scenario);
  lab.player = {};
  lab.accum_ms = 0;
  lab.pending_steps = 0;
  screen_ = Screen::kSpectate;
  scenario_ = lab.scenario;
  tick_rate_ = static_cast<std::uint32_t>(scenario_.tick_rate_hz);
  dt_ms_ = 1000.0 / tick_rate_;
  codec::encode_world_spec(scenario_, world_spec_);
  welcome_room_ = scenario_.name;
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  remote_.reset();
  clock_.reset();
  last_snapshot_tick_ = 0;
  have_world_ = true;
  entity_ = 0;
  follow_id_ = 0;
  inspect_id_ = 0;
  lab_push(emscripten_get_now());
  fit_world();
  world_changed();
}

/// The world's state as this tick's snapshot: every agent, exact (no quantisation: the lab has
/// no wire). The clock is pinned to the lab's tick, so the view follows the lab (and stops when
/// it is paused).
void Viewer::lab_push(double now) {
  const sim::World& w = *lab_->world;
  std::vector<sim::AgentView> views;
  views.reserve(static_cast<std::size_t>(w.size()));
  for (std::int32_t i = 0; i < w.size(); ++i) views.push_back(w.view(i));
  last_snapshot_tick_ = w.tick();
  snapshot_window_.add(now);
  remote_.push(w.tick(), std::move(views));
}

void Viewer::lab_step(double frame_ms, double now) {
  Lab& lab = *lab_;
  std::int32_t steps = 0;
  if (lab.paused) {
    steps = lab.pending_steps;
    lab.pending_steps = 0;
    lab.accum_ms = 0;
  } else {
    lab.accum_ms += frame_ms * lab.speed;
    // At most kMaxLabStepsPerFrame ticks per frame: a slow page runs the lab slower instead of
    // spiralling (the lab owns its clock; nobody else shares the world).
    while (lab.accum_ms >= dt_ms_ && steps < kMaxLabStepsPerFrame) {
      lab.accum_ms -= dt_ms_;
      ++steps;
    }
    if (lab.accum_ms > dt_ms_) lab.accum_ms = dt_ms_;
  }
  // The inspector: the lab's World traces the inspected agent itself (no server to ask).
  const sim::AgentId traced{inspect_id_};
  if (inspect_id_ != 0) lab.world->set_traced(std::span<const sim::AgentId>(&traced, 1));
  else lab.world->set_traced({});
  for (std::int32_t k = 0; k < steps; ++k) {
    const double t0 = emscripten_get_now();
    lab.world->step();
    if (!lab.world->traces().empty() && lab.world->traces()[0].tick == lab.world->tick()) {
      trace_ = lab.world->traces()[0];
      trace_available_ = true;
      trace_source_ = "lab";
    }
    lab.sim_ms = lab.sim_ms * 0.9 + (emscripten_get_now() - t0) * 0.1;
    lab_push(now);
  }
  // Drawn one tick behind the newest state (interpolating between the last two ticks), pinned
  // to the lab's own tick so a paused lab holds still.
  clock_.set_offset(static_cast<double>(lab.world->tick()) * dt_ms_ + kInterpolationDelayMs - dt_ms_ - now);
}

void Viewer::lab_control(const std::string& what, double value) {
  if (!lab_) return;
  Lab& lab = *lab_;
  if (what == "paused") {
    lab.paused = value != 0;
  } else if (what == "step") {
    lab.paused = true;
    lab.pending_steps += std::clamp(static_cast<std::int32_t>(value > 0 ? value : 1), 1, kMaxLabStepsPerFrame);
  } else if (what == "speed") {
    lab.speed = std::clamp(value, 0.1, 4.0);
  } else if (what == "restart") {
    // value: the new seed; 0 = the next one after the current (a "new seed" button).
    lab.scenario.seed = value > 0 ? static_cast<std::uint64_t>(value) : lab.scenario.seed + 1;
    lab_start();
  }
}

std::string Viewer::lab_tune(std::int32_t group, const std::string& key, double value) {
  if (!lab_) return "the lab is not running";
  Lab& lab = *lab_;
  if (group < 0 || group >= static_cast<std::int32_t>(lab.scenario.groups.size()))
    return "no group " + std::to_string(group);
  sim::GroupSpec spec = lab.scenario.groups[static_cast<std::size_t>(group)];
  if (key == "count") {
    if (!(value >= 0 && value <= 1e6)) return "count: must be in 0..1000000";
    spec.count = static_cast<std::int32_t>(value);
  } else if (!codec::set_group_param(spec, key, value)) {
    return key + ": no such parameter in group " + std::to_string(group);
  }
  // The same rule the server's admin API applies: World::set_group validates and queues it.
  const std::string error = lab.world->set_group(group, spec);
  if (!error.empty()) return error;
  lab.scenario.groups[static_cast<std::size_t>(group)] = spec;
  scenario_.groups[static_cast<std::size_t>(group)] = spec;
  codec::encode_world_spec(scenario_, world_spec_);
  world_changed();
  return "";
}

std::string Viewer::lab_export() const {
  if (!lab_) return "";
  sim::Scenario s = lab_->scenario;
  // Group counts as the tuned values (already in the groups); nothing else in the world is data.
  return codec::scenario_to_json(s);
}

bool Viewer::lab_place(double x, double y) {
  if (!lab_) return false;
  Lab& lab = *lab_;
  const double k = css_scale();
  const Vec2 p = cam_.to_world(x * k, y * k);
  if (!lab.world->alive(lab.player)) {
    lab.player = lab.world->add_player();
    if (!lab.player.valid()) {
      toast("this scenario allows no player craft (max_players)");
      return false;
    }
  }
  lab.world->place(lab.player, p);
  // Applied at the start of the next tick: a paused lab shows it after one step.
  if (lab.paused) lab.pending_steps += 1;
  return true;
}

}  // namespace flockstep::client
