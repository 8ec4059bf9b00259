#pragma once
/// \file technique_tally.hpp
/// One task's technique counts for the current tick. Each task of a phase writes only its own
/// tally and the World folds them into its TechniqueCounts after the phase: no atomics, and the
/// same totals on any number of threads. A stage function that credits a technique takes one.
/// Private: not installed.
#include <array>
#include <cstddef>
#include <cstdint>

#include "flockstep/sim/techniques.hpp"

namespace flockstep::sim {

struct TechniqueTally {
  std::array<std::int32_t, kTechniqueCount> n{};
  /// One more agent-tick of catalog ID T<id>.
  void add(int id) { ++n[static_cast<std::size_t>(id - 1)]; }
  /// `agents` more agent-ticks of T<id>: for a batch function that counts its lanes in a register
  /// and credits them once (an increment in memory per lane is a chain of dependent adds).
  void add(int id, std::int32_t agents) { n[static_cast<std::size_t>(id - 1)] += agents; }
};

}  // namespace flockstep::sim
