#pragma once
/// \file scenario_json.hpp
/// Scenario files (JSON, nlohmann_json) -> sim::Scenario. Strict: unknown keys, wrong types,
/// non-finite numbers and anything sim::validate() refuses are errors whose message names the
/// key path, e.g. `groups[2].flock.neighbour_radius: must be <= grid_cell`. Format: docs/server.md.
/// In the codec layer because both ends read scenario files: the server its scenario folder, the
/// viewer's lab the files it runs in the page and the JSON it exports.
#include <optional>
#include <stdexcept>
#include <string>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::codec {

/// A scenario file error; what() starts with the key path.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parse scenario JSON text. Throws ScenarioError.
sim::Scenario parse_scenario(const std::string& json_text);

/// parse_scenario without throwing, for callers built without exception catching (the viewer's
/// wasm build): the scenario, or std::nullopt with the error (key path first) in `error`. The
/// throw and its catch both stay in scenario_json.cpp, which the wasm build compiles with
/// exception catching on (proto/CMakeLists.txt).
std::optional<sim::Scenario> try_parse_scenario(const std::string& json_text, std::string& error);

/// Read and parse a scenario file. Throws ScenarioError (also for an unreadable file).
sim::Scenario load_scenario_file(const std::string& path);

/// The scenario as a scenario file (pretty-printed JSON, keys in file order): the export of a
/// room's tuned scenario. parse_scenario(scenario_to_json(s)) reproduces s exactly (doubles are
/// written round-trippable; group parameters equal to the GroupSpec defaults are left out;
/// references such as path, leader_group, target_group, tile_pattern and track are indices).
std::string scenario_to_json(const sim::Scenario& s);

}  // namespace flockstep::codec
