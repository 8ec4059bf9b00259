#pragma once
/// \file techniques.hpp
/// The catalog of movement techniques (T01-T82) as this library carries them: for each ID, the
/// scenario-file name of the behaviour, combiner, model, filter, technique or world setting that
/// runs it, or "internal" with the function that uses it inside others. The server's
/// --list-techniques and docs/techniques.md are generated from this one table.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// What carries a technique in a scenario file.
enum class Carrier : std::uint8_t {
  kBehavior = 0,  ///< a behaviour of a composition ("behaviors": [{"type": ...}])
  kCombiner,      ///< a composition's "combiner"
  kModel,         ///< a movement model (a composition's "model", or the model a technique implies)
  kOption,        ///< a composition option or behaviour parameter that switches the technique on
  kFilter,        ///< a composition's "filters"
  kTechnique,     ///< a group's "technique" (one-controller techniques and the presets)
  kWorld,         ///< a scenario-level setting ("wrap", "tiles")
  kInternal,      ///< math used inside other techniques; not named in files
};

/// Name of a carrier kind ("behavior", "combiner", ...).
const char* carrier_name(Carrier c);

/// One catalog technique.
struct TechniqueEntry {
  std::string_view id;     ///< "T42"
  std::string_view title;  ///< what it is, in a few words
  Carrier carrier;
  /// Space-separated use keys ("behavior:dynamic_seek", "technique:los_chase"); the first one is
  /// the technique's name in files. For kInternal: the keys of the techniques that use it
  /// ("*" = every scenario).
  std::string_view keys;
  std::string_view where;  ///< kInternal: the function(s) carrying it; else a note (may be empty)
};

/// T01..T82 in order.
std::span<const TechniqueEntry> technique_table();

/// The use keys a scenario exercises: "technique:<name>" per group technique,
/// "model:<name>", "behavior:<name>" and "combiner:<name>" of every group's composition (presets
/// expanded), "filter:heading_samples" / "filter:facing_fraction", "option:..." and
/// "world:wrap" / "world:tiles". Sorted, unique.
std::vector<std::string> scenario_uses(const Scenario& s);

/// Whether a scenario with these uses (from scenario_uses) exercises the technique.
bool technique_used(const TechniqueEntry& t, std::span<const std::string> uses);

/// The display name of an entry: the name part of its first key, or "internal".
std::string technique_carrier_name(const TechniqueEntry& t);

}  // namespace flockstep::sim
