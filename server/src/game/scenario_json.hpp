#pragma once
/// \file scenario_json.hpp
/// Scenario files (JSON, nlohmann_json) -> sim::Scenario. Strict: unknown keys, wrong types,
/// non-finite numbers and anything sim::validate() refuses are errors whose message names the
/// key path, e.g. `groups[2].flock.neighbour_radius: must be <= grid_cell`. Format: docs/server.md.
#include <stdexcept>
#include <string>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::server::game {

/// A scenario file error; what() starts with the key path.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A scenario and the file it came from ("arena.json").
struct ScenarioFile {
  std::string file;
  sim::Scenario scenario;
};

/// Parse scenario JSON text. Throws ScenarioError.
sim::Scenario parse_scenario(const std::string& json_text);

/// Read and parse a scenario file. Throws ScenarioError (also for an unreadable file).
sim::Scenario load_scenario_file(const std::string& path);

/// The scenario as a scenario file (pretty-printed JSON, keys in file order): the export of a
/// room's tuned scenario. parse_scenario(scenario_to_json(s)) reproduces s exactly (doubles are
/// written round-trippable; group parameters equal to the GroupSpec defaults are left out;
/// references such as path, leader_group, target_group, tile_pattern and track are indices).
std::string scenario_to_json(const sim::Scenario& s);

}  // namespace flockstep::server::game
