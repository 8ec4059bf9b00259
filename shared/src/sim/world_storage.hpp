#pragma once
/// \file world_storage.hpp
/// The World's storage, private to shared/src/sim/ (not installed; callers see world.hpp only).
/// Grouped by how the tick uses it, the way Box2D v3 keeps bodies, solver sets and constraint
/// graphs in separate stores behind b2WorldId:
///   - AgentTable: who an agent is (generational ids, kind, model, group, spawn tick). Cold: the
///     commands, snapshots and the hash read it; the tick reads motion_ and group_ for dispatch.
///   - BodyArrays: the kinematic state every model integrates. Hot: read and written every tick.
///   - CellOrder: copies of what neighbour queries read, in grid-slot (cell) order. Hot.
///   - SteeringOutputs: what the steering phase hands the integrate phase (compute-then-commit).
///   - One store per movement model: CompositionStore (vehicle and steering models), CraftStore,
///     KinematicStore, TileStore; and the per-group GroupTables and the static ObstacleIndex (an
///     ObstacleGrid and the flock's push-out-free cells).
/// Every per-agent column is indexed densely (0..size()-1), sized to max_agents at construction,
/// and moved together by the swap-remove in world_ids.cpp.
///
/// The stores are plain aggregates that WorldImpl (world_impl.hpp) inherits, so its methods keep
/// naming the columns directly (position_[i]): the grouping is the declaration, and a kernel body
/// reads the same whichever store a column belongs to.
#include <cstdint>
#include <utility>
#include <vector>

#include "flockstep/behavior/combine.hpp"
#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/lamothe.hpp"
#include "flockstep/behavior/path.hpp"
#include "flockstep/behavior/pattern.hpp"
#include "flockstep/sim/obstacle_grid.hpp"
#include "flockstep/behavior/physics_pattern.hpp"
#include "flockstep/behavior/ray_avoid.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/behavior/types.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/compose.hpp"
#include "flockstep/sim/scenario.hpp"
#include "stage_tile.hpp"

namespace flockstep::sim::detail {

/// Who each agent is: the generational-id slot table (indexed by id slot) and the identity
/// columns (indexed densely).
struct AgentTable {
  // Slot table for generational ids.
  std::vector<std::uint32_t> slot_generation_;
  std::vector<std::int32_t> slot_dense_;
  std::vector<std::int32_t> free_slots_;
  // Identity, indexed densely.
  std::vector<AgentId> id_;
  std::vector<AgentKind> kind_;
  std::vector<Model> motion_;
  std::vector<std::int32_t> group_;
  std::vector<std::uint64_t> spawn_tick_;
};

/// The state every movement model integrates, indexed densely.
struct BodyArrays {
  std::vector<Vec2> position_;
  std::vector<Vec2> velocity_;
  std::vector<Vec2> heading_;
  std::vector<real> orientation_;  // not vehicles: theirs is derived from heading_ (orientation_at)
  std::vector<real> angular_velocity_;
  std::vector<math::Rng> rng_;  // the agent's own random stream
};

/// Steering phase outputs (written by compute_steering, read by integrate), indexed densely.
struct SteeringOutputs {
  std::vector<Vec2> force_;                     // vehicles: steering force, N; steering/kinematic: linear part
  std::vector<behavior::Thrusters> thrusters_;  // crafts
  std::vector<real> kin_rotation_;              // kinematic and steering models: rotation, rad/s
  std::vector<AgentId> target_;
  std::vector<Vec2> aim_;
  std::vector<BehaviorState> state_;
};

/// Cell-ordered copies of what the neighbourhood kernel reads, indexed by grid slot
/// (grid_.slots()), refreshed every tick after the grid rebuild: each agent's group, and its
/// position and heading rounded to float as plain arrays (flocking_lanes.hpp; padded, see the
/// constructor), which the kernel scans eight slots at a time. Everything else a steering agent
/// reads, its own state and the rare per-neighbour paths', comes from the rows, which the
/// reorder keeps in cell order (reorder_by_cell), so those reads are close to sequential too.
struct CellOrder {
  std::vector<std::int32_t> slot_group_;
  std::vector<float> slot_x_, slot_y_, slot_hx_, slot_hy_;
};

/// Per-agent state of the composed models (Model::kVehicle and kSteering), indexed densely.
struct CompositionStore {
  std::vector<behavior::WanderState> wander_;
  std::vector<behavior::WaypointState> waypoint_;
  std::vector<behavior::DynamicWanderState> dyn_wander_;  // T51 per agent
  std::vector<behavior::PathFollowState> path_state_;     // T52/T53 per agent
  std::vector<behavior::HeadingSmoother> smoother_;       // T82 per agent (sized only when a group filters)
  std::vector<behavior::FixedLinePath> line_paths_;       // per scenario path (T54)
};

/// Per-agent state of Bourg's crafts (Model::kCraft, players included), indexed densely.
struct CraftStore {
  std::vector<behavior::PatternTracking> pattern_;
  std::vector<behavior::ChaseMode> chase_mode_;
  std::vector<PlayerInput> input_;  // players: the control state held until changed
};

/// Per-agent state of the kinematic model (Model::kKinematic), indexed densely.
struct KinematicStore {
  std::vector<behavior::Fly> fly_;                  // T16 burst state (velocity in LaMothe units)
  std::vector<behavior::MultiRayState> ray_state_;  // T60 remedy state
  std::vector<behavior::PatternState> kpattern_;    // T25 per agent
};

/// The tile model (Model::kTile, T22, T26-T28; its stages in stage_tile.hpp): per-agent state and
/// the tables built once from the scenario.
struct TileStore {
  std::vector<TileState> tile_;
  TileTables tiles_;
};

/// Per-group runtime data (rebuild_groups, and the target bookkeeping of each step), indexed by group.
struct GroupTables {
  std::vector<Composition> compose_;  // what steer_composed runs
  std::vector<Model> group_model_;
  std::vector<std::int32_t> heading_samples_;       // T82 window (the integrate loop reads it per agent)
  std::vector<real> fov_cos_half_;                  // cosine of half the field of view (-1 = all round)
  std::vector<std::uint8_t> targeted_;              // some group targets it
  std::vector<std::vector<std::int32_t>> members_;  // per targeted group: dense indices this tick
  std::vector<std::int32_t> leader_index_;          // dense index of its leader this tick (or -1)
  std::vector<std::pair<std::int32_t, GroupSpec>> pending_groups_;  // set_group updates for the next step
};

/// The static obstacle index (sim/obstacle_grid.hpp) and what the flock's hot path derives from it.
struct ObstacleIndex {
  ObstacleGrid obstacles_;
  // ---- flock hot path ----
  /// Per grid cell: 1 when no vehicle sorted into it at the grid rebuild can reach an obstacle
  /// by the end of the tick's body update, so integrate skips its obstacle look-up and push-out.
  std::vector<std::uint8_t> pushout_free_cell_;
  /// The obstacle grid's cells are the neighbour grid's (same columns and rows: grid_cell >= 4 m),
  /// so obstacle avoidance reads the list of the cell an agent was sorted into.
  bool obstacle_cells_are_grid_cells_ = false;
  // ---- end flock hot path ----
};

}  // namespace flockstep::sim::detail
