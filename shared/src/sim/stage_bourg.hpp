#pragma once
/// \file stage_bourg.hpp
/// Bourg's rigid-body flocks (T35) as a stage: a group at a time, by AIDemo4's own loop
/// (behavior::demo4_step_units), which moves every unit of the group in one serial pass in the
/// seed's order; so the stage takes a whole group, where the other models' stages take rows. The
/// World runs it once a tick after the players moved (world.cpp's schedule); World::bourg_world
/// hands the same table to tests. Private: not installed.
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/behavior/bourg_flocking.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/obstacle_grid.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/world.hpp"
#include "stage_targets.hpp"
#include "technique_tally.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// What Bourg's flocks read (dense rows, plus the id-slot table for id order). Read-only, so
/// World::bourg_world can build the table from a const world.
struct BourgColumns {
  const Scenario& scenario;                  ///< the group's tuning, the obstacles, the world's bounds
  real dt;                                   ///< s
  Plane plane;                               ///< where the hunted player is seen from the leader
  const ObstacleGrid& obstacles;             ///< the push-out after the loop
  std::span<const std::int32_t> slot_dense;  ///< per id slot: its row, or -1 (walked in id order)
  std::span<const AgentKind> kind;
  std::span<const std::int32_t> group;
  std::span<const AgentId> id;
  std::span<const Vec2> position, velocity;
  std::span<const real> orientation, angular_velocity;
  std::span<const behavior::ChaseMode> chase_mode;  ///< T23/T24 intercept mode carried between ticks
};

/// What a tick of Bourg's flocks writes back to its units' rows (the same rows as above).
struct BourgOutputs {
  std::span<Vec2> position, velocity, heading;
  std::span<real> orientation, angular_velocity;
  std::span<behavior::ChaseMode> chase_mode;
  std::span<Vec2> force;
  std::span<behavior::Thrusters> thrusters;
  std::span<AgentId> target;
  std::span<Vec2> aim;
  std::span<BehaviorState> state;
};

/// T35 the table demo4_step_units steps for `group`: ids 1.. its units in id order (the lowest
/// leads, the next intercepts, when the group asks for them), id 0 the player nearest the leader
/// at its torus copy nearest it (none: the world's centre at rest). `members` (when given) gets
/// each table entry's row (-1: no player).
behavior::Demo4World bourg_world(const BourgColumns& c, std::int32_t group, behavior::Demo4Params& params,
                                 std::vector<std::int32_t>* members);

/// One tick of `group` (technique kBourgFlock): AIDemo4's loop over the table, then its units'
/// rows written back with their roles' aims and states, pushed out of obstacles (counted in
/// `pushout`) and kept inside a world that does not wrap. `members` is scratch. Counts what the
/// loop reports it did for each unit (T35, T10, T12, T14, T21, T23/T24, T31-T34, T36).
void step_bourg_group(const BourgColumns& c, const BourgOutputs& out, std::int32_t group,
                      std::vector<std::int32_t>& members, TechniqueTally& tally, World::PushoutStats& pushout);

}  // namespace flockstep::sim
