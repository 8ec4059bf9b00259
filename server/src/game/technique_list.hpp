#pragma once
/// \file technique_list.hpp
/// What `flockstep-server --list-techniques` prints and docs/techniques.md holds, both generated
/// from sim::technique_table(), sim::behavior_info() and the parameter tables, with the shipped
/// scenario files that use each technique.
#include <string>
#include <vector>

#include "game/scenario_file.hpp"

namespace flockstep::server::game {

/// One line per catalog ID, T01..T82: the ID, what carries it (behaviour, combiner, model,
/// option, filter, technique, world, or "internal:" and the function using it) and the files that
/// use it; then a count of the IDs used by at least one file.
std::string technique_list(const std::vector<ScenarioFile>& files);

/// How many catalog IDs at least one of `files` uses (internal ones through their users).
int techniques_used(const std::vector<ScenarioFile>& files);

/// docs/techniques.md: every ID with its carrier and files, then every behaviour, combiner,
/// model, composition field and technique name with parameters, units, defaults and limits.
std::string technique_reference_markdown(const std::vector<ScenarioFile>& files);

}  // namespace flockstep::server::game
