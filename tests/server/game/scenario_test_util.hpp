#pragma once
// Helpers shared by the scenario property tests (scenarios_test.cpp, scenarios_compose_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "flockstep/sim/world.hpp"
#include "game/rooms.hpp"
#include "game/scenario_file.hpp"
#include "game/technique_list.hpp"

namespace flockstep::server::game::scenario_test {

using math::real;
using math::Vec2;
using sim::AgentView;
using sim::Scenario;
using sim::World;

inline std::filesystem::path scenario_dir() { return std::filesystem::path(FLOCKSTEP_SOURCE_DIR) / "scenarios"; }

inline Scenario load(const std::string& name) {
  return load_scenario_file((scenario_dir() / (name + ".json")).string());
}

/// The shipped scenario files and their coverage runs (sim::exercise_scenario, the same run
/// --list-techniques makes), computed once per test binary: a run of all files takes seconds.
struct ShippedCoverage {
  std::vector<ScenarioFile> files;
  std::vector<sim::TechniqueCounts> counts;  ///< per file, in files' order
};
inline const ShippedCoverage& shipped_coverage() {
  static const ShippedCoverage c = [] {
    ShippedCoverage r;
    r.files = load_scenario_files(scenario_dir().string());
    r.counts = exercise_files(r.files);
    return r;
  }();
  return c;
}

inline std::int32_t group_named(const Scenario& s, const std::string& name) {
  for (std::size_t g = 0; g < s.groups.size(); ++g)
    if (s.groups[g].name == name) return static_cast<std::int32_t>(g);
  ADD_FAILURE() << "scenario " << s.name << " has no group '" << name << "'";
  return -1;
}

/// Shortest displacement from a to b (across the seam in wrapped worlds).
inline Vec2 delta(const Scenario& s, Vec2 a, Vec2 b) {
  Vec2 d = b - a;
  if (s.wrap) {
    if (d.x > s.width / 2) d.x -= s.width;
    if (d.x < -s.width / 2) d.x += s.width;
    if (d.y > s.height / 2) d.y -= s.height;
    if (d.y < -s.height / 2) d.y += s.height;
  }
  return d;
}

inline real dist(const Scenario& s, Vec2 a, Vec2 b) { return math::length(delta(s, a, b)); }

inline real radius_of(const World& w, const AgentView& v) {
  return v.group >= 0 ? w.scenario().groups[static_cast<std::size_t>(v.group)].radius
                      : w.scenario().player_craft.length * 0.5;
}

/// Views of a group's live agents, in id order (the World moves its rows: set_reorder_interval).
inline std::vector<AgentView> members(const World& w, std::int32_t group) {
  std::vector<AgentView> out;
  for (std::int32_t i = 0; i < w.size(); ++i)
    if (w.view(i).group == group) out.push_back(w.view(i));
  std::sort(out.begin(), out.end(), [](const AgentView& a, const AgentView& b) { return a.id.value < b.id.value; });
  return out;
}

/// Run `seconds` of simulated time, calling `each` after every step.
inline void run(World& w, real seconds, const std::function<void()>& each = {}) {
  const auto ticks = static_cast<std::int64_t>(seconds * w.scenario().tick_rate_hz);
  for (std::int64_t t = 0; t < ticks; ++t) {
    w.step();
    if (each) each();
  }
}

/// Smallest (centre distance - obstacle radius - body radius) over every agent and obstacle.
inline real min_obstacle_clearance(const World& w) {
  real worst = math::kInfinity;
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const AgentView v = w.view(i);
    for (const sim::Circle& c : w.scenario().obstacles)
      worst = std::min(worst, dist(w.scenario(), v.position, c.center) - (c.radius + radius_of(w, v)));
  }
  return worst;
}

}  // namespace flockstep::server::game::scenario_test
