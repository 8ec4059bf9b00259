#pragma once
/// \file stage_captures.hpp
/// Captures, the rules between agents that end a tick (phase 5): a pursuer touching a player
/// that is no longer protected after its respawn, and a pursuer touching an agent of its group's
/// target group. Serial and in id order (the lists the World passes are sorted by id slot), so
/// no result depends on where rows are stored. The stage finds who caught whom and marks each
/// caught agent protected from the next tick on; the World respawns them and emits the events
/// (world.cpp). Private: not installed.
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/scenario.hpp"
#include "stage_targets.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// What the capture rules read and write (dense rows).
struct CaptureColumns {
  const Scenario& scenario;  ///< capture radii, body radii, respawn protection
  std::uint64_t tick;
  Plane plane;  ///< distances across the seam of a wrapped world
  std::span<const std::int32_t> group;
  std::span<const Vec2> position;
  std::span<std::uint64_t> spawn_tick;  ///< read; a caught agent's becomes tick + 1
};

/// One capture: dense rows of the caught agent and its captor.
struct Capture {
  std::int32_t caught = -1;
  std::int32_t pursuer = -1;
  std::uint64_t survived_ticks = 0;  ///< ticks since the caught agent's spawn, before this one
};

/// Each of `players` (id order) that capture_protected no longer shields is caught by the first
/// of `pursuers` (id order) within the pursuer's group capture_radius plus the player's body
/// radius: one capture per player per tick, appended to `out`.
void find_player_captures(const CaptureColumns& c, std::span<const std::int32_t> players,
                          std::span<const std::int32_t> pursuers, std::vector<Capture>& out);

/// Each of `pursuers` (id order) whose group has a target group catches the first of that
/// group's `members` (id order) within reach that was not spawned or caught this tick: at most
/// one capture per pursuer and per prey a tick, appended to `out`.
void find_prey_captures(const CaptureColumns& c, std::span<const std::int32_t> pursuers,
                        std::span<const std::vector<std::int32_t>> members, std::vector<Capture>& out);

}  // namespace flockstep::sim
