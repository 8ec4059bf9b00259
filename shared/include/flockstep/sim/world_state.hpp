#pragma once
/// \file world_state.hpp
/// The whole state of a World as plain data: what World::export_state() copies out and
/// World::from_state() rebuilds a World from, bit for bit. The World stepped after a restore
/// gives exactly the state_hash() sequence, views and events of the uninterrupted one.
///
/// What is stored: everything a later step() reads that the World does not rebuild from the
/// scenario: the scenario as running (live tunings applied by set_group included), the tick, the
/// world's random stream, the generational slot table (free-slot order included: it decides the
/// next ids), every dense per-agent column (count entries each), queued commands and set_group
/// updates, the events of the last step and those pending for the next, the per-tick lookups
/// (players, leaders, target-group members, as the last step left them) and the counters
/// (technique_counts, pushout_stats). What is rebuilt instead: the grid and its slot-ordered
/// copies (refilled at the start of every step), the obstacle index, compositions, models,
/// fields of view, tile patterns and tracks (from the scenario), the per-task scratch tallies
/// (zero between steps). Not state: the task runner and the steering traces (host settings: the
/// host sets them again; neither changes the simulation).
///
/// The wire form (versioned protobuf) is the codec's: proto/codec/world_state_codec.hpp.
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
#include "flockstep/behavior/physics_pattern.hpp"
#include "flockstep/behavior/ray_avoid.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/compose.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/techniques.hpp"

namespace flockstep::sim {

struct WorldState {
  /// A command queued by remove / set_input / place for the next step.
  struct Command {
    enum class Type : std::uint8_t { kRemove = 0, kInput = 1, kPlace = 2, kCount };
    Type type = Type::kRemove;
    AgentId id;
    PlayerInput input;
    Vec2 position;  ///< kPlace
  };
  /// One agent's tile state (T22, T26-T28; the World's TileState field by field).
  struct Tile {
    behavior::Tile from, to;
    real progress = 0;
    behavior::Tile previous{-1, -1};
    behavior::TilePatrolState patrol{};
    std::uint8_t mode = 0;
    AgentId target;
    behavior::Tile line_origin{-1, -1}, line_goal{-1, -1};
    std::int32_t line_step = 0;
  };

  /// The scenario as running: set_group tunings applied, without the four border walls the
  /// World adds itself to a non-wrapping world.
  Scenario scenario;
  std::uint64_t tick = 0;
  math::Rng world_rng;
  std::uint8_t flock_kernel = 0;  ///< World::FlockKernel

  // Generational slot table, max_agents entries each; free_slots in stack order (back = next).
  std::vector<std::uint32_t> slot_generation;
  std::vector<std::int32_t> slot_dense;
  std::vector<std::int32_t> free_slots;

  // Per agent, dense index order: size() entries each.
  std::vector<AgentId> id;
  std::vector<AgentKind> kind;
  std::vector<Model> motion;
  std::vector<std::int32_t> group;
  std::vector<Vec2> position, velocity, heading;
  std::vector<real> orientation, angular_velocity;
  std::vector<math::Rng> rng;
  std::vector<behavior::WanderState> wander;
  std::vector<behavior::WaypointState> waypoint;
  std::vector<behavior::PatternTracking> pattern;
  std::vector<behavior::ChaseMode> chase_mode;
  std::vector<PlayerInput> input;
  std::vector<std::uint64_t> spawn_tick;
  std::vector<Vec2> force;  ///< kept between ticks when steering_interval_ticks > 1
  std::vector<behavior::Thrusters> thrusters;
  std::vector<AgentId> target;
  std::vector<Vec2> aim;
  std::vector<BehaviorState> state;
  std::vector<Tile> tile;
  std::vector<behavior::Fly> fly;
  std::vector<behavior::MultiRayState> ray_state;
  std::vector<real> kin_rotation;
  std::vector<behavior::DynamicWanderState> dyn_wander;
  std::vector<behavior::PatternState> kpattern;
  std::vector<behavior::PathFollowState> path_state;
  /// T82 heading filters exist once some group has smoothed (then `smoother` has size() entries;
  /// they are kept when a tuning turns smoothing off, and used again if it comes back).
  bool smoothing_allocated = false;
  std::vector<behavior::HeadingSmoother> smoother;

  // Between steps.
  std::vector<Command> commands;
  std::vector<std::pair<std::int32_t, GroupSpec>> pending_groups;  ///< set_group updates, in call order
  std::vector<Event> events;                                       ///< of the last step (World::events())
  std::vector<Event> events_pending;  ///< produced since (add_player), emitted by the next step

  // Per-tick lookups as the last step left them (dense indices).
  std::vector<std::int32_t> players;
  std::vector<std::int32_t> leader_index;          ///< per group
  std::vector<std::vector<std::int32_t>> members;  ///< per group (empty unless targeted)

  // Counters since the world began.
  TechniqueCounts technique_counts{};
  std::int64_t pushout_corrections = 0;
  real pushout_max_depth = 0;

  /// Live agents.
  std::int32_t size() const { return static_cast<std::int32_t>(id.size()); }
};

}  // namespace flockstep::sim
