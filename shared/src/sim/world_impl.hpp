#pragma once
/// \file world_impl.hpp
/// The World's implementation, private to shared/src/sim/ (not installed). world.hpp is the
/// public API (construct, step, commands, views, traces, state); sim::World holds one WorldImpl
/// and forwards to it (world_api.cpp). Everything here (the storage of world_storage.hpp, the
/// phases of the tick, the per-model controllers, the steering kernels) can change without
/// recompiling a server or viewer file, the way Box2D v3 keeps b2World behind b2WorldId.
///
/// The tick (world.cpp):
///   apply commands -> rebuild grid -> steering for everyone (reads state only) ->
///   integrate everyone -> rules (obstacle projection, wrap) -> Bourg's flocks by AIDemo4's own
///   loop (T35, once the players moved) -> captures, respawn -> tick++.
/// Compute-then-commit makes every agent's steering independent of agent order and of how the
/// steering phase is partitioned across threads: the per-agent phases run as a fixed partition
/// of tasks through a host-lent TaskRunner (task_runner.hpp), bit-identical on 1 or N threads.
///
/// Where each method is defined: world.cpp (construction, the tick's schedule, spawning, traces,
/// target groups, live tuning), world_ids.cpp (id allocation), world_state.cpp (export_state,
/// from_state), state_hash.cpp. The rules themselves are
/// stages over the columns, which world.cpp schedules: every model's steering and movement
/// (stage_compose.hpp for the composed models, stage_craft.hpp, stage_tile.hpp,
/// stage_kinematic.hpp, stage_vehicle.hpp), the end-of-tick confinement (stage_confine.hpp) and
/// the captures (stage_captures.hpp); only Bourg's flocks keep a serial group loop here.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "flockstep/behavior/bourg_flocking.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/sim/grid.hpp"
#include "flockstep/sim/world.hpp"
#include "flockstep/sim/world_state.hpp"
#include "world_storage.hpp"
#include "stage_bourg.hpp"
#include "stage_captures.hpp"
#include "stage_compose.hpp"
#include "stage_targets.hpp"
#include "technique_tally.hpp"

namespace flockstep::sim::detail {

/// The simulation behind sim::World: its storage (inherited stores, world_storage.hpp) and its
/// phases. Member names are the ones the kernels in the .cpp files use.
class WorldImpl : AgentTable,
                  BodyArrays,
                  SteeringOutputs,
                  CellOrder,
                  CompositionStore,
                  CraftStore,
                  KinematicStore,
                  TileStore,
                  GroupTables,
                  ObstacleIndex {
 public:
  // The public types and limits of World, by their short names inside the implementation.
  using PushoutStats = World::PushoutStats;
  using FlockKernel = World::FlockKernel;
  static constexpr std::int32_t kAgentsPerTask = World::kAgentsPerTask;
  static constexpr std::int32_t kMaxTraced = World::kMaxTraced;

  // ---- what World forwards (world.hpp documents each) ----
  explicit WorldImpl(const Scenario& scenario);
  AgentId add_player();
  void remove(AgentId id);
  void set_input(AgentId player, PlayerInput input);
  void place(AgentId player, Vec2 position);
  void step();
  void set_task_runner(const TaskRunner& runner) { runner_ = runner; }
  const TaskRunner& task_runner() const { return runner_; }
  std::uint64_t tick() const { return tick_; }
  real dt() const { return dt_; }
  std::uint64_t state_hash() const;
  std::int32_t size() const { return count_; }
  AgentView view(std::int32_t index) const;
  AgentId id_at(std::int32_t index) const { return id_[static_cast<std::size_t>(index)]; }
  std::int32_t index_of(AgentId id) const;
  std::span<const Event> events() const { return events_; }
  const Scenario& scenario() const { return scenario_; }
  std::int32_t count_kind(AgentKind k) const;
  PushoutStats pushout_stats() const { return pushout_; }
  const TechniqueCounts& technique_counts() const { return technique_counts_; }
  std::string set_group(std::int32_t group, const GroupSpec& spec);
  std::int32_t group_size(std::int32_t group) const;
  void set_flock_kernel(FlockKernel k) { flock_kernel_ = k; }
  void set_reorder_interval(std::int32_t ticks) { reorder_interval_ = ticks < 0 ? 0 : ticks; }
  std::int32_t reorder_interval() const { return reorder_interval_; }
  std::int64_t reorders() const { return reorders_; }
  FlockKernel flock_kernel() const { return flock_kernel_; }
  void set_traced(std::span<const AgentId> agents);
  std::span<const SteeringTrace> traces() const { return {traces_.data(), traced_count_}; }
  WorldState export_state() const;
  /// World::from_state's work: null with `error` set on an inconsistent state.
  static std::unique_ptr<WorldImpl> from_state(WorldState state, std::string& error);
  /// T35 the table the Bourg stage hands behavior::demo4_step_units (World::bourg_world).
  behavior::Demo4World bourg_world(std::int32_t group, behavior::Demo4Params& params,
                                   std::vector<std::int32_t>* members = nullptr) const {
    return sim::bourg_world(bourg_columns(), group, params, members);
  }

 private:
  /// One task's technique counts for the current step (technique_tally.hpp), folded by step().
  using Tally = TechniqueTally;
  /// The tally of the task that owns slot or dense index `first` of a phase.
  Tally& tally_of(std::int32_t first) { return task_tally_[static_cast<std::size_t>(first / kAgentsPerTask)]; }

  struct Command {
    enum class Type : std::uint8_t { kRemove, kInput, kPlace } type;
    AgentId id;
    PlayerInput input;
    Vec2 position{0, 0};  // kPlace
  };

  AgentId allocate(std::int32_t group, AgentKind kind, Model motion);
  void free_index(std::int32_t index);
  /// Calls f(column) for every per-agent column indexed densely (the one list the swap-remove
  /// and the reorder move rows by; a column added to a store joins it here).
  template <class F>
  void for_each_column(F&& f) {
    f(id_), f(kind_), f(motion_), f(group_), f(spawn_tick_);                                  // AgentTable
    f(position_), f(velocity_), f(heading_), f(orientation_), f(angular_velocity_), f(rng_);  // BodyArrays
    f(force_), f(thrusters_), f(kin_rotation_), f(target_), f(aim_), f(state_);               // SteeringOutputs
    f(wander_), f(waypoint_), f(dyn_wander_), f(path_state_);                                 // CompositionStore
    if (!smoother_.empty()) f(smoother_);
    f(pattern_), f(chase_mode_), f(input_);  // CraftStore
    f(fly_), f(ray_state_), f(kpattern_);    // KinematicStore
    f(tile_);                                // TileStore
  }
  /// Storage in cell order (World::set_reorder_interval): moves every row into the order (group,
  /// grid cell, id slot), players first, and leaves the grid rebuilt for the new numbering.
  void reorder_by_cell();
  std::vector<std::int32_t> reorder_start_;  // per group + 1: the counting sort's cursors
  std::vector<std::int32_t> reorder_order_;  // new row k is old row reorder_order_[k]
  /// Dense indices of the pursuers in id-slot order, refreshed each step after the commands and
  /// the reorder: the capture rules walk them in this order, so no result depends on where rows
  /// are stored.
  std::vector<std::int32_t> pursuers_;
  /// Sorts dense indices by the slot of their agents' ids.
  void sort_by_id(std::vector<std::int32_t>& list) const {
    const auto by_slot = [&](std::int32_t a, std::int32_t b) { return id_[a].slot() < id_[b].slot(); };
    if (!std::is_sorted(list.begin(), list.end(), by_slot)) std::sort(list.begin(), list.end(), by_slot);
  }
  /// f(i) for every live agent's dense index i, in id-slot order (valid between steps too).
  template <class F>
  void for_each_by_id(F&& f) const {
    for (std::int32_t s = 0; s < capacity_; ++s)
      if (const std::int32_t i = slot_dense_[static_cast<std::size_t>(s)]; i >= 0) f(i);
  }
  std::int32_t reorder_interval_ = World::kReorderIntervalTicks;
  std::int64_t reorders_ = 0;
  /// The rows of one column in their new order, before they are copied back (reorder_by_cell).
  std::vector<std::max_align_t> reorder_scratch_;
  /// Scratch for the Bourg stage: each table entry's row.
  std::vector<std::int32_t> bourg_members_;
  void apply_commands();
  void spawn_group(std::int32_t group);
  Vec2 spawn_point(const GroupSpec& g, math::Rng& rng) const;
  Vec2 player_spawn_point(math::Rng& rng) const;
  /// The per-agent phases of step(), each a fixed partition of kAgentsPerTask-sized tasks.
  enum class Phase : std::uint8_t { kGather, kSteer, kIntegrate };
  struct PhaseTask {
    WorldImpl* world;
    Phase phase;
  };
  static void run_phase_task(void* arg, std::int32_t task_index);
  void run_phase(Phase phase);
  void gather_slots(std::int32_t begin, std::int32_t end);
  void compute_steering(std::int32_t begin, std::int32_t end);
  /// T35 step every bourg_flock group with AIDemo4's loop (behavior::demo4_step_units), after the
  /// players moved: the seed's order. Serial: a group's units read each other.
  /// What Bourg's flocks read (stage_bourg.hpp).
  BourgColumns bourg_columns() const {
    return {scenario_,
            dt_,
            plane(),
            obstacles_,
            std::span<const std::int32_t>(slot_dense_.data(), static_cast<std::size_t>(capacity_)),
            kind_,
            group_,
            id_,
            position_,
            velocity_,
            orientation_,
            angular_velocity_,
            chase_mode_};
  }
  behavior::CraftState craft_state_of(std::int32_t i) const {
    return {position_[i], velocity_[i], orientation_[i], angular_velocity_[i]};
  }
  void integrate(std::int32_t begin, std::int32_t end);
  /// Phase 5: captures of players and of target groups' agents (stage_captures.hpp), and the
  /// respawns they cause.
  void apply_captures();
  std::vector<Capture> captures_;  // this tick's, in the order found
  /// Who agents aim at this tick (stage_targets.hpp): the players and each targeted group's
  /// members, both in id order, so ties keep the lower id slot. Inline: the steering kernels ask
  /// it per agent from several translation units.
  Targets targets() const { return {players_, members_, position_.data(), plane()}; }
  /// Orientation of agent i, rad (row_orientation: a vehicle's is derived from its heading).
  real orientation_at(std::int32_t i) const { return row_orientation(motion_[i], heading_[i], orientation_[i]); }
  /// Shortest displacement from `from` to `to` (across the seam of a wrapped world).
  Vec2 delta(Vec2 from, Vec2 to) const { return plane().delta(from, to); }
  Plane plane() const { return {scenario_.width, scenario_.height, scenario_.wrap}; }

  Scenario scenario_;
  real dt_;
  std::uint64_t tick_ = 0;
  std::int32_t capacity_;
  std::int32_t count_ = 0;
  math::Rng world_rng_;
  Grid grid_;
  FlockKernel flock_kernel_ = FlockKernel::kLanes;
  TaskRunner runner_{};

  std::vector<Command> commands_;
  std::vector<Event> events_;
  std::vector<Event> events_pending_;  // produced between steps (add_player), emitted by the next step
  void build_obstacle_index();

  // ---- the composed models' steering (stage_compose.hpp) ----
  /// Groups up to which a task orders its agents by group with a counting sort on the stack.
  static constexpr std::int32_t kCountingSortGroups = 64;
  /// Recompute the per-group runtime data (compositions, models, targeted groups, fields of view).
  void rebuild_groups();
  std::array<SteeringTrace, kMaxTraced> traces_{};
  std::array<std::int32_t, kMaxTraced> traced_index_{};  // dense index of each traced agent this step (-1: gone)
  std::size_t traced_count_ = 0;
  void resolve_traced();
  std::vector<Tally> task_tally_;  // per task of a phase, folded by step()
  TechniqueCounts technique_counts_{};
  std::vector<PushoutStats> task_pushout_;  // per integrate task, summed after the phase (no atomics)
  PushoutStats pushout_;

  // ---- spawning, target groups, live tuning ----
  void spawn_agents(std::int32_t group, std::int32_t k_begin, std::int32_t k_end);
  void apply_group_updates();

  std::vector<std::int32_t> players_;  // dense indices of players this tick
};

}  // namespace flockstep::sim::detail

namespace flockstep::sim {
// The .cpp files of the implementation define its members as WorldImpl::name inside namespace
// flockstep::sim (they were World's members; only the class name on the signature line changed).
using detail::WorldImpl;
}  // namespace flockstep::sim
