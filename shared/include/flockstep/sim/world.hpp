#pragma once
/// \file world.hpp
/// The authoritative world, as callers see it: construct from a scenario, step, queue commands,
/// read agents, events and traces, hash, save and restore. A fixed-dt phased tick over
/// structure-of-arrays storage sized at init (house style section 2); compute-then-commit makes
/// the result independent of agent order and of how many threads run the per-agent phases.
///
/// Each agent's behaviour is data: it belongs to a group whose GroupSpec names a technique and
/// its parameters, so scenarios need no code. Time is an integer tick count with a constant dt;
/// randomness comes from per-agent PCG32 streams seeded from the scenario seed.
///
/// This header is the whole public surface (Box2D v3's shape: box2d.h and a b2WorldId). The
/// storage, the phases of the tick and the kernels are private to shared/src/sim/
/// (world_impl.hpp, world_storage.hpp), so changing how the tick works recompiles that folder,
/// not every server and viewer file.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/task_runner.hpp"
#include "flockstep/sim/techniques.hpp"
#include "flockstep/sim/trace.hpp"

namespace flockstep::behavior {
struct Demo4World;   // bourg_flocking.hpp: include it to call bourg_world()
struct Demo4Params;  // (the same)
}  // namespace flockstep::behavior

namespace flockstep::sim {

struct WorldState;  // world_state.hpp: include it to call export_state() or from_state()
namespace detail {
class WorldImpl;  // the storage and the tick (shared/src/sim/world_impl.hpp)
}

/// The simulation. Not thread-safe: one owner calls step(); reads between steps.
class World {
 public:
  /// Build from a validated scenario (call validate() first; asserts on an invalid one).
  explicit World(const Scenario& scenario);
  /// A copy steps exactly as the original from here on (the task runner is shared, not copied).
  World(const World& other);
  World& operator=(const World& other);
  World(World&& other) noexcept;
  World& operator=(World&& other) noexcept;
  ~World();

  // ---- commands: queued, applied at the start of the next step, in call order ----
  /// Add a player craft at a deterministic spawn point, immediately (it takes part in the next
  /// step). Returns an invalid id when max_players or max_agents is reached.
  AgentId add_player();
  /// Remove any agent. Unknown or stale ids are ignored.
  void remove(AgentId id);
  /// Set the control state a player holds from the next tick on (until changed).
  void set_input(AgentId player, PlayerInput input);
  /// Put a player craft at `position` (clamped into the world), at rest, from the next tick on:
  /// the lab moves the target of the chasers this way. Other kinds are ignored.
  void place(AgentId player, Vec2 position);

  /// Advance one fixed tick of 1/tick_rate_hz seconds. The per-agent phases run through the
  /// task runner (serial by default); the result does not depend on it.
  void step();

  /// Agents per task of a per-agent phase. The partition depends only on the agent count, so
  /// the work is cut identically however many threads run it. 256 agents (~0.1 ms of flock
  /// steering) keeps the per-task hand-off cost (one atomic increment) negligible while giving
  /// 40 tasks at 10,000 agents for two threads to balance.
  static constexpr std::int32_t kAgentsPerTask = 256;
  /// Lend the World a runner for its per-agent phases (steering, integration, gathering). The
  /// runner's context must outlive every later step(); a default TaskRunner runs serially.
  void set_task_runner(const TaskRunner& runner);
  /// The runner lent by set_task_runner (hosts reuse it for their own per-agent batches).
  const TaskRunner& task_runner() const;
  /// Test-only view of the T35 AIDemo4 world a bourg_flock group is stepped as at the next step()
  /// (its units in dense order from id 1, the target as id 0), with the parameters it is stepped
  /// with; `members` (optional) gets the dense index of each table id (id 0: the player, or -1
  /// for the idle target). An unknown or empty group gives num_units 1 (the target alone). Public
  /// so the tests can step the same table with behavior::demo4_step_units and check the world
  /// runs exactly that function (the live code is the tested code); no host needs it.
  behavior::Demo4World bourg_world(std::int32_t group, behavior::Demo4Params& params,
                                   std::vector<std::int32_t>* members = nullptr) const;

  /// Ticks stepped since the scenario began.
  std::uint64_t tick() const;
  /// The fixed tick length, s (1 / Scenario::tick_rate_hz).
  real dt() const;
  /// A digest of the bits of every agent's state, the tick and the random streams, the same
  /// whatever order the rows are stored in (sim::RowSetHasher).
  std::uint64_t state_hash() const;

  /// Live agents, densely indexed 0..size()-1 (the order changes when agents are removed).
  std::int32_t size() const;
  /// Everything a viewer draws of the agent at a dense index. [Limit: 0 <= index < size()]
  AgentView view(std::int32_t index) const;
  /// Id of the agent at a dense index (cheaper than view(index).id). [Limit: 0 <= index < size()]
  AgentId id_at(std::int32_t index) const;
  /// Dense index of a live id, or -1.
  std::int32_t index_of(AgentId id) const;
  bool alive(AgentId id) const { return index_of(id) >= 0; }
  /// Events produced by the last step().
  std::span<const Event> events() const;

  /// The scenario the world runs (with live-tuned groups and, unless wrapping, its border walls).
  const Scenario& scenario() const;
  /// Live agents of a kind.
  std::int32_t count_kind(AgentKind k) const;

  /// What the obstacle push-out rule had to do to agents (players excluded) since the world
  /// began: how many times it moved a body out of an obstacle and the deepest penetration it
  /// found, m. Steering that avoids obstacles keeps both at 0; the rule only guarantees the result.
  struct PushoutStats {
    std::int64_t corrections = 0;
    real max_depth = 0;
  };
  PushoutStats pushout_stats() const;

  /// Coverage by execution: per catalog ID (index 0 = T01), the agent-ticks since the world
  /// began in which that technique's code ran for a non-player agent. Counted inside the kernels
  /// where the technique's work is done, so a configured behaviour with nothing to do (no
  /// obstacle near, no walls, no player inside the panic range) counts nothing. Always on: one
  /// increment per agent and technique run, and a sum over 82 counters per task per step
  /// (measured with callgrind on BM_ArenaTick, 1 thread: 2.1475 M -> 2.1705 M instructions per
  /// World::step, +1.1 %, together with the combiner accumulators).
  const TechniqueCounts& technique_counts() const;

  /// Live tuning: validate `spec` for group `group` (the rules of validate(); technique, kind,
  /// path, leader_group and target_group may not change) and queue it. Returns "" when accepted,
  /// else a message naming the field. At the start of the next step() the parameters are
  /// replaced and agents are spawned in the group's spawn area (deterministic RNG, kSpawn events)
  /// or despawned highest id value first (kDespawn events) to reach spec.count.
  std::string set_group(std::int32_t group, const GroupSpec& spec);
  /// Live agents of a group (0 for an unknown group).
  std::int32_t group_size(std::int32_t group) const;

  /// How T76 flock neighbourhoods are summed. kLanes (the default) and kLanesScalar give the
  /// same bits (the SIMD kernel and its scalar reference, flocking_lanes.hpp); kPerNeighbour is
  /// the earlier candidate-by-candidate path with its own summation order (other bits), kept so
  /// benchmarks can compare the kernels in one run. kLanes and kLanesScalar also update vehicle
  /// bodies (T08) four at a time (behavior/body_lanes.hpp); kLanesPerAgentBody is kLanes with the
  /// earlier body_update per agent (the same bits, kept to measure the batch). Switch only between steps.
  enum class FlockKernel : std::uint8_t { kLanes, kLanesScalar, kPerNeighbour, kLanesPerAgentBody };
  void set_flock_kernel(FlockKernel k);
  /// The kernel set by set_flock_kernel (kLanes unless changed).
  FlockKernel flock_kernel() const;

  /// Storage in cell order: every this many ticks (at ticks that are a multiple of it) the
  /// agents' rows are moved into the order (group, neighbour-grid cell, id), players first, so
  /// agents near each other in the world are near each other in every column and the per-agent
  /// phases read memory almost sequentially. Between reorders agents change cells and the order
  /// degrades slowly. A reorder moves every column once. 16 ticks (0.8 s at 20 Hz) is the only
  /// interval benchmarked against never (docs/performance.md); others were not measured.
  static constexpr std::int32_t kReorderIntervalTicks = 16;
  /// Set the reorder interval in ticks (0: never reorder; the rows stay in spawn order, as
  /// before swap-removes). What the world computes does not depend on it: no rule reads the
  /// dense order (ties go by id), so every interval gives the same bits. For benchmarks and the
  /// tests of that claim; switch only between steps.
  void set_reorder_interval(std::int32_t ticks);
  std::int32_t reorder_interval() const;
  /// Reorders done since construction (each moved at least one row).
  std::int64_t reorders() const;

  // ---- steering traces: what each behaviour of a composition contributed (the inspector) ----
  /// Most agents traced at once (trace.hpp says what a trace costs).
  static constexpr std::int32_t kMaxTraced = sim::kMaxTraced;
  using BehaviorTrace = sim::BehaviorTrace;
  using SteeringTrace = sim::SteeringTrace;
  /// Trace these agents from the next step on (at most kMaxTraced; extra ids are ignored; an
  /// empty span stops tracing). Tracing never changes the simulation (a test compares hashes).
  void set_traced(std::span<const AgentId> agents);
  /// One entry per traced id, in set_traced order. An entry keeps its last step's trace when the
  /// agent was not steered this step (Scenario::steering_interval_ticks), and count = 0 for the
  /// craft, tile and kinematic models, which have a single controller and no composition.
  std::span<const SteeringTrace> traces() const;

  // ---- state as data: save and restore bit for bit (world_state.hpp, world_state.cpp) ----
  /// Everything a later step() reads, as plain data (world_state.hpp lists what is and is not stored).
  WorldState export_state() const;
  /// A world that steps exactly as the one `state` was exported from. Checks the scenario
  /// (validate()) and the consistency of every table (sizes, slot table, generations, ids, group
  /// and kind ranges, dense indices) and returns null with `error` naming the first problem
  /// instead of asserting. Numbers are taken as they are (the codec refuses non-finite ones).
  static std::unique_ptr<World> from_state(WorldState state, std::string& error);
  // ---- end of state as data ----

 private:
  explicit World(std::unique_ptr<detail::WorldImpl> impl);
  /// Null only in a moved-from World, which may only be assigned to or destroyed.
  std::unique_ptr<detail::WorldImpl> impl_;
};

}  // namespace flockstep::sim
