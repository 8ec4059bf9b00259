#pragma once
/// \file scenario_file.hpp
/// The server's scenario folder: a scenario and the file it came from. Parsing and writing
/// scenario JSON is the codec's (codec/scenario_json.hpp, shared with the viewer's lab); the
/// names are brought in here because the rooms, the lobby API and the tools use them unqualified.
#include <string>

#include "codec/scenario_json.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::server::game {

/// A scenario and the file it came from ("arena.json").
struct ScenarioFile {
  std::string file;
  sim::Scenario scenario;
};

using codec::load_scenario_file;
using codec::parse_scenario;
using codec::scenario_to_json;
using codec::ScenarioError;

}  // namespace flockstep::server::game
