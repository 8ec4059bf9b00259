#pragma once
/// \file stage_compose.hpp
/// The steering of the two composed models (force-model vehicles and Millington's steering
/// model) as a stage: a group's agents in batches, one batch function per behaviour of the
/// group's composition (stage_compose_behaviors.cpp, dispatched through a table indexed by
/// BehaviorType), the neighbourhood kernels (stage_compose_neighbours.cpp), then the combiner per
/// agent and the write-back (stage_compose.cpp). Everything it reads and writes is named in
/// ComposeTables; the World fills one per steering task (world.cpp's compute_steering). Private:
/// not installed.
#include <cstdint>
#include <span>

#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/path.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/compose.hpp"
#include "flockstep/sim/grid.hpp"
#include "flockstep/sim/obstacle_grid.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/trace.hpp"
#include "flockstep/sim/world.hpp"
#include "stage_targets.hpp"
#include "technique_tally.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// Agents of one group steered together in one batch (per-agent scratch ~1 KB each).
inline constexpr std::int32_t kComposeBatch = 64;
/// Most neighbours one boid reacts to. Beyond this the nearest are kept (sorted by distance,
/// then index, so ties are deterministic). 24 covers the 10-30 neighbours the flock scenarios
/// are tuned for while bounding the per-agent cost.
inline constexpr std::int32_t kMaxNeighbours = 24;
/// Candidates a single neighbour query may collect before truncation.
inline constexpr std::int32_t kMaxCandidates = 128;

/// Orientation of a row, rad. Vehicles' orientation is the direction of their heading and is
/// derived when read (snapshots, hashes, align targets) rather than stored every tick: an
/// arctan2 per vehicle per tick was 10 % of the flock tick.
inline real row_orientation(Model motion, Vec2 heading, real orientation) {
  return motion == Model::kVehicle ? math::orientation_of(heading) : orientation;
}

/// What the composed models' steering reads and writes. Dense rows are indexed by agent, the
/// cell-ordered copies by grid slot (Grid::slots(): agents near each other are near each other
/// there, so neighbour reads are sequential).
struct ComposeTables {
  // ---- the scene, read ----
  const Scenario& scenario;
  real dt;  ///< s
  std::uint64_t tick;
  const Grid& grid;  ///< rebuilt this tick; its slots are the cell order
  World::FlockKernel flock_kernel;
  const ObstacleGrid& obstacles;
  bool obstacle_cells_are_grid_cells;  ///< the two grids share their cells (ObstacleIndex)
  Targets targets;                     ///< whom a behaviour aims at
  Plane plane;
  // ---- per group, read ----
  std::span<const Composition> compose;
  std::span<const Model> group_model;
  std::span<const real> fov_cos_half;  ///< cosine of half the field of view (-1: all round)
  std::span<const std::int32_t> leader_index;
  std::span<const behavior::FixedLinePath> line_paths;  ///< per scenario path (T54)
  // ---- dense rows, read ----
  std::span<const AgentId> id;
  std::span<const Model> motion;
  std::span<const std::int32_t> group;
  std::span<const Vec2> position, velocity, heading;
  std::span<const real> orientation, angular_velocity;
  // ---- the cell-ordered copies for the neighbourhood kernels (gathered this tick), read ----
  std::span<const std::int32_t> slot_group;
  std::span<const float> slot_x, slot_y, slot_hx, slot_hy;  ///< the neighbourhood kernel's float copies
  // ---- each agent's behaviour state, read and written ----
  std::span<behavior::WaypointState> waypoint;
  std::span<behavior::DynamicWanderState> dyn_wander;  ///< T51
  std::span<behavior::PathFollowState> path_state;     ///< T52/T53
  std::span<math::Rng> rng;                            // its random stream (wander, T51, T81's draws)
  std::span<behavior::WanderState> wander;             // T71, and the flock's wander term
  // ---- written ----
  std::span<Vec2> force;         ///< vehicles: N; steering model: the linear acceleration
  std::span<real> kin_rotation;  ///< steering model: the angular acceleration, rad/s^2
  std::span<AgentId> target;
  std::span<Vec2> aim;
  std::span<BehaviorState> state;
  // ---- steering traces (the inspector): one entry per traced agent, its row (-1: gone) ----
  std::span<SteeringTrace> traces;
  std::span<const std::int32_t> traced_index;

  real orientation_at(std::int32_t i) const {
    const auto at = static_cast<std::size_t>(i);
    return row_orientation(motion[at], heading[at], orientation[at]);
  }
};

/// Steers the n agents of group `gi` at grid slots `slots` (cell order, at most kComposeBatch)
/// through the group's composition: every behaviour over the batch, the combiner per agent, and
/// the force (or acceleration), target, aim and state written to their rows.
void steer_composed(const ComposeTables& w, std::int32_t gi, const std::int32_t* slots, std::int32_t n,
                    TechniqueTally& tally);

}  // namespace flockstep::sim
