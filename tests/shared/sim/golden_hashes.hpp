#pragma once
// The pinned golden hashes of the canonical scenarios (house style section 3) and the one way
// to run them, shared by the golden test (native and wasm), the fake task-runner test and the
// server's thread-pool test, so every runner is held to the same constants.
// Changing a constant is a deliberate, explained commit: say which behaviour changed and why.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "flockstep/sim/task_runner.hpp"

namespace flockstep::sim::golden {

inline constexpr std::uint64_t kFlock500 = 0x309a9574d80b46f1ULL;    // flock(500), 2000 ticks
inline constexpr std::uint64_t kPursuit = 0x72fcd70da99bd39eULL;     // pursuit(), 3000 ticks, evasive player
inline constexpr std::uint64_t kPatrols = 0x7d9e86083a4fe5e7ULL;     // patrols(), 3000 ticks
inline constexpr std::uint64_t kMixedArena = 0x40163faf504dce62ULL;  // mixed(), 1000 ticks, evasive player

/// Run a scenario for `ticks` with an optional evasive player, through `runner`; print and
/// return the state hash.
inline std::uint64_t run(const Scenario& s, std::int32_t ticks, bool with_player, const TaskRunner& runner = {}) {
  World w(s);
  w.set_task_runner(runner);
  AgentId player{};
  if (with_player) player = w.add_player();
  for (std::int32_t t = 0; t < ticks; ++t) {
    if (with_player) w.set_input(player, canonical::evasive_input(w.tick()));
    w.step();
  }
  const std::uint64_t h = w.state_hash();
  std::printf("[ golden   ] %-8s ticks=%d hash=0x%016" PRIx64 "\n", s.name.c_str(), ticks, h);
  return h;
}

/// One canonical golden scenario and its pinned hash.
struct Case {
  Scenario scenario;
  std::int32_t ticks = 0;
  bool with_player = false;
  std::uint64_t hash = 0;
};

/// The four canonical golden cases, in the order golden_test.cpp lists them.
inline std::vector<Case> cases() {
  return {{canonical::flock(500), 2000, false, kFlock500},
          {canonical::pursuit(), 3000, true, kPursuit},
          {canonical::patrols(), 3000, false, kPatrols},
          {canonical::mixed(), 1000, true, kMixedArena}};
}

}  // namespace flockstep::sim::golden
