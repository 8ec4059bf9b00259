#pragma once
/// \file techniques.hpp
/// The catalog of movement techniques (T01-T82) as this library carries them: for each ID, the
/// scenario-file name of the behaviour, combiner, model, filter, technique or world setting that
/// runs it, or "internal" with the function that uses it inside others. The server's
/// --list-techniques and docs/techniques.md are generated from this one table.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// Catalog IDs T01..T82.
inline constexpr std::size_t kTechniqueCount = 82;

/// Per catalog ID (index 0 = T01), the agent-ticks in which that technique's code ran in a
/// World (World::technique_counts): counted where the code executes, inside the kernels, so a
/// behaviour that is configured but has nothing to do (no obstacles near, no walls, no player in
/// range) adds nothing.
using TechniqueCounts = std::array<std::int64_t, kTechniqueCount>;

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
  /// Space-separated keys of what carries it ("behavior:dynamic_seek", "technique:los_chase");
  /// the first one is the technique's name in files. For kInternal: the keys of the techniques
  /// that use it ("*" = every room). Documentation only: which scenarios ran a technique comes
  /// from World::technique_counts (exercise_scenario), never from these keys.
  std::string_view keys;
  std::string_view where;  ///< kInternal: the function(s) carrying it; else a note (may be empty)
};

/// T01..T82 in order.
std::span<const TechniqueEntry> technique_table();

/// Ticks a coverage run lasts (exercise_scenario): 1,800 ticks (30 s at 60 Hz) lets the
/// scripted player visit each of the 22 groups of the largest shipped scenario (millington).
inline constexpr std::int32_t kCoverageTicks = 1800;
/// Ticks the scripted player stays near one group before it moves on to the next.
inline constexpr std::int32_t kCoverageVisitTicks = 60;

/// Coverage by execution: runs the scenario for `ticks` fixed ticks with a scripted player
/// (joins at tick 0; every kCoverageVisitTicks it is placed 4 m beside an agent of the next
/// group in turn and flies forward, turning one way then the other, so player-triggered code,
/// a panic range, a tile patrol's break-out chase or a mine's activation, runs) and returns
/// World::technique_counts(). Deterministic: the same scenario gives the same counts.
TechniqueCounts exercise_scenario(const Scenario& s, std::int32_t ticks = kCoverageTicks);

/// The display name of an entry: the name part of its first key, or "internal".
std::string technique_carrier_name(const TechniqueEntry& t);

}  // namespace flockstep::sim
