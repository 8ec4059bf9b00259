#pragma once
/// \file canonical.hpp
/// Canonical scenarios built in code: the golden-hash determinism tests, the benchmarks and the
/// headless demo all run exactly these, so a hash or a timing always refers to the same world.
#include <cstdint>

#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim::canonical {

/// A flock of n boids with a field of circular obstacles in a square wrapped world whose side
/// is chosen so each boid sees about 10-30 neighbours (density ~0.12 boids/m^2).
Scenario flock(std::int32_t n, std::uint64_t seed = 1);

/// Intercept, LOS-chase and pursue pursuers hunting one player craft that the caller steers
/// with evasive_input(tick).
Scenario pursuit(std::uint64_t seed = 2);

/// Scripted evasive input for the pursuit scenario's player: a deterministic weave.
PlayerInput evasive_input(std::uint64_t tick);

/// Pattern patrols (square, zig-zag, arbitrary) plus path followers around a loop.
Scenario patrols(std::uint64_t seed = 3);

/// Everything at once in a walled arena: flocks, pursuers of every kind, patrols, wanderers,
/// hiders, an offset-pursuit escort, obstacles and walls.
Scenario mixed(std::uint64_t seed = 4);

}  // namespace flockstep::sim::canonical
