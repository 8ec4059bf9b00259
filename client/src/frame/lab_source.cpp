// The lab (lab_source.hpp): a sim::World in the page, drawn through the snapshot buffer.
#include "frame/lab_source.hpp"

#include <algorithm>
#include <cmath>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "codec/group_fields.hpp"
#include "codec/scenario_json.hpp"

namespace flockstep::client {

std::unique_ptr<FrameSource> make_lab_source(FrameHost& host) { return std::make_unique<LabSource>(host); }

std::string LabSource::open(std::span<const std::uint8_t> data) {
  std::string error;
  std::optional<sim::Scenario> parsed =
      codec::try_parse_scenario(std::string(reinterpret_cast<const char*>(data.data()), data.size()), error);
  if (!parsed) return error;
  const std::string invalid = sim::validate(*parsed);
  if (!invalid.empty()) return invalid;
  spec_ = std::move(*parsed);
  start();
  return "";
}

void LabSource::start() {
  world_ = std::make_unique<sim::World>(spec_);
  player_ = {};
  accum_ms_ = 0;
  pending_steps_ = 0;
  adopt_world(spec_);
  push_world(emscripten_get_now());
  host_.world_changed(*this, true);
}

/// The world's state as this tick's snapshot: every agent, exact (no quantisation: the lab has
/// no wire).
void LabSource::push_world(double now) {
  std::vector<sim::AgentView> views;
  views.reserve(static_cast<std::size_t>(world_->size()));
  for (std::int32_t i = 0; i < world_->size(); ++i) views.push_back(world_->view(i));
  push(world_->tick(), std::move(views), now);
}

void LabSource::advance(const FrameInput& in) {
  std::int32_t steps = 0;
  if (paused_) {
    steps = pending_steps_;
    pending_steps_ = 0;
    accum_ms_ = 0;
  } else {
    accum_ms_ += in.frame_ms * speed_;
    // At most kMaxStepsPerFrame ticks per frame: a slow page runs the lab slower instead of
    // spiralling (the lab owns its clock; nobody else shares the world).
    while (accum_ms_ >= dt_ms_ && steps < kMaxStepsPerFrame) {
      accum_ms_ -= dt_ms_;
      ++steps;
    }
    if (accum_ms_ > dt_ms_) accum_ms_ = dt_ms_;
  }
  // The inspector: the lab's World traces the inspected agent itself (no server to ask).
  const sim::AgentId traced{in.inspect};
  if (in.inspect != 0) world_->set_traced(std::span<const sim::AgentId>(&traced, 1));
  else world_->set_traced({});
  for (std::int32_t k = 0; k < steps; ++k) {
    const double t0 = emscripten_get_now();
    world_->step();
    if (!world_->traces().empty() && world_->traces()[0].tick == world_->tick()) {
      trace_ = world_->traces()[0];
      trace_available_ = true;
      trace_source_ = "lab";
    }
    sim_ms_ = sim_ms_ * 0.9 + (emscripten_get_now() - t0) * 0.1;
    push_world(in.now);
  }
  // Drawn one tick behind the newest state (interpolating between the last two ticks), pinned
  // to the lab's own tick so a paused lab holds still.
  clock_.set_offset(static_cast<double>(world_->tick()) * dt_ms_ + kInterpolationDelayMs - dt_ms_ - in.now);
}

void LabSource::control(const std::string& what, double value) {
  if (what == "paused") {
    paused_ = value != 0;
  } else if (what == "step") {
    paused_ = true;
    pending_steps_ += std::clamp(static_cast<std::int32_t>(value > 0 ? value : 1), 1, kMaxStepsPerFrame);
  } else if (what == "speed") {
    speed_ = std::clamp(value, 0.1, 4.0);
  } else if (what == "restart") {
    // value: the new seed; 0 = the next one after the current (a "new seed" button).
    spec_.seed = value > 0 ? static_cast<std::uint64_t>(value) : spec_.seed + 1;
    start();
  }
}

bool LabSource::key(const std::string& code) {
  if (code == "KeyP" || code == "Space") control("paused", paused_ ? 0 : 1);
  else if (code == "Period" || code == "KeyN") control("step", 1);
  else if (code == "KeyR") control("restart", 0);
  else return false;
  return true;
}

std::string LabSource::tune(std::int32_t group, const std::string& key, double value) {
  if (group < 0 || group >= static_cast<std::int32_t>(spec_.groups.size())) return "no group " + std::to_string(group);
  sim::GroupSpec spec = spec_.groups[static_cast<std::size_t>(group)];
  if (key == "count") {
    if (!(value >= 0 && value <= 1e6)) return "count: must be in 0..1000000";
    spec.count = static_cast<std::int32_t>(value);
  } else if (!codec::set_group_param(spec, key, value)) {
    return key + ": no such parameter in group " + std::to_string(group);
  }
  // The same rule the server's admin API applies: World::set_group validates and queues it.
  const std::string error = world_->set_group(group, spec);
  if (!error.empty()) return error;
  spec_.groups[static_cast<std::size_t>(group)] = spec;
  scenario_.groups[static_cast<std::size_t>(group)] = spec;  // in place: the buffer points at it
  host_.world_changed(*this, false);
  return "";
}

std::string LabSource::export_json() const {
  // Group counts as the tuned values (already in the groups); nothing else in the world is data.
  return codec::scenario_to_json(spec_);
}

bool LabSource::place(math::Vec2 p) {
  if (!world_->alive(player_)) {
    player_ = world_->add_player();
    if (!player_.valid()) {
      host_.toast("this scenario allows no player craft (max_players)");
      return false;
    }
  }
  world_->place(player_, p);
  // Applied at the start of the next tick: a paused lab shows it after one step.
  if (paused_) pending_steps_ += 1;
  return true;
}

void LabSource::publish(nlohmann::json& j, double now) const {
  (void)now;
  auto num = [](double v) { return std::isfinite(v) ? v : 0.0; };
  const sim::World& w = *world_;
  j["lab"] = {{"tick", w.tick()},
              {"paused", paused_},
              {"speed", num(speed_)},
              {"seed", spec_.seed},
              {"agents", w.size()},
              {"sim_ms", num(sim_ms_)},
              {"hash", std::to_string(w.state_hash())},
              {"target", w.alive(player_)}};
  if (w.alive(player_)) {
    const sim::AgentView v = w.view(w.index_of(player_));
    j["lab"]["target_position"] = {num(v.position.x), num(v.position.y)};
  }
  j["paused"] = paused_;
}

}  // namespace flockstep::client
