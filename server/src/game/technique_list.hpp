#pragma once
/// \file technique_list.hpp
/// What `flockstep-server --list-techniques` prints and docs/techniques.md holds, both generated
/// from sim::technique_table(), sim::behavior_info() and the parameter tables, with the shipped
/// scenario files in which each technique's code ran. Credit comes from execution only: every
/// file is run for sim::kCoverageTicks with the scripted player (sim::exercise_scenario), and a
/// file is named for an ID only where World::technique_counts() was above 0 for it.
#include <string>
#include <vector>

#include "flockstep/sim/techniques.hpp"
#include "game/scenario_file.hpp"

namespace flockstep::server::game {

/// The coverage run of every file (sim::exercise_scenario), in the files' order.
std::vector<sim::TechniqueCounts> exercise_files(const std::vector<ScenarioFile>& files);

/// One line per catalog ID, T01..T82: the ID, what carries it (behaviour, combiner, model,
/// option, filter, technique, world, or "internal:" and the function using it) and the files that
/// ran it; then a count of the IDs run by at least one file. `counts` from exercise_files(files).
std::string technique_list(const std::vector<ScenarioFile>& files, const std::vector<sim::TechniqueCounts>& counts);
std::string technique_list(const std::vector<ScenarioFile>& files);

/// How many catalog IDs ran in at least one of the files (`counts` from exercise_files).
int techniques_used(const std::vector<sim::TechniqueCounts>& counts);

/// docs/techniques.md: every ID with its carrier and files, then every behaviour, combiner,
/// model, composition field and technique name with parameters, units, defaults and limits.
std::string technique_reference_markdown(const std::vector<ScenarioFile>& files,
                                         const std::vector<sim::TechniqueCounts>& counts);
std::string technique_reference_markdown(const std::vector<ScenarioFile>& files);

}  // namespace flockstep::server::game
