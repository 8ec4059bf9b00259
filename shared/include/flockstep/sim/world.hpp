#pragma once
/// \file world.hpp
/// The authoritative world: agents in structure-of-arrays storage sized at init, static geometry,
/// and a fixed-dt phased tick (house style section 2):
///   apply commands -> rebuild grid -> steering for everyone (reads state only) ->
///   integrate everyone -> rules (obstacle projection, wrap) -> Bourg's flocks by AIDemo4's own
///   loop (T35, once the players moved) -> captures, respawn -> tick++.
/// Compute-then-commit makes every agent's steering independent of agent order and of how the
/// steering phase is partitioned across threads: the per-agent phases run as a fixed partition
/// of tasks through a host-lent TaskRunner (task_runner.hpp), bit-identical on 1 or N threads.
///
/// Each agent's behaviour is data: it belongs to a group whose GroupSpec names a technique and
/// its parameters, so scenarios need no code. Time is an integer tick count with a constant dt;
/// randomness comes from per-agent PCG32 streams seeded from the scenario seed.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "flockstep/behavior/avoid.hpp"
#include "flockstep/behavior/bourg_flocking.hpp"
#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/lamothe.hpp"
#include "flockstep/behavior/ray_avoid.hpp"
#include "flockstep/behavior/physics_pattern.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/behavior/types.hpp"
#include "flockstep/behavior/motion.hpp"
#include "flockstep/behavior/path.hpp"
#include "flockstep/behavior/pattern.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/behavior/combine.hpp"
#include "flockstep/sim/grid.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/task_runner.hpp"
#include "flockstep/sim/techniques.hpp"
#include "flockstep/sim/trace.hpp"
#include "flockstep/sim/world_state.hpp"

namespace flockstep::sim {

/// The simulation. Not thread-safe: one owner calls step(); reads between steps.
class World {
 public:
  /// Build from a validated scenario (call validate() first; asserts on an invalid one).
  explicit World(const Scenario& scenario);

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
  void set_task_runner(const TaskRunner& runner) { runner_ = runner; }
  /// T35 the AIDemo4 world a bourg_flock group is stepped as at the next step() (its units in dense
  /// order from id 1, the target as id 0), with the parameters it is stepped with; `members` (optional)
  /// gets the dense index of each table id (id 0: the player, or -1 for the idle target). Tests step it themselves to
  /// check the world runs exactly demo4_step_units. An unknown or empty group gives num_units 1 (the target alone).
  behavior::Demo4World bourg_world(std::int32_t group, behavior::Demo4Params& params,
                                   std::vector<std::int32_t>* members = nullptr) const;
  /// The runner lent by set_task_runner (hosts reuse it for their own per-agent batches).
  const TaskRunner& task_runner() const { return runner_; }

  std::uint64_t tick() const { return tick_; }
  real dt() const { return dt_; }
  /// FNV-1a over the bits of every agent's state, the tick and the random streams.
  std::uint64_t state_hash() const;

  /// Live agents, densely indexed 0..size()-1 (the order changes when agents are removed).
  std::int32_t size() const { return count_; }
  AgentView view(std::int32_t index) const;
  /// Id of the agent at a dense index (cheaper than view(index).id). [Limit: 0 <= index < size()]
  AgentId id_at(std::int32_t index) const { return id_[static_cast<std::size_t>(index)]; }
  /// Dense index of a live id, or -1.
  std::int32_t index_of(AgentId id) const;
  bool alive(AgentId id) const { return index_of(id) >= 0; }
  /// Events produced by the last step().
  std::span<const Event> events() const { return events_; }

  const Scenario& scenario() const { return scenario_; }
  std::int32_t count_kind(AgentKind k) const;

  /// What the obstacle push-out rule had to do to agents (players excluded) since the world
  /// began: how many times it moved a body out of an obstacle and the deepest penetration it
  /// found, m. Steering that avoids obstacles keeps both at 0; the rule only guarantees the result.
  struct PushoutStats {
    std::int64_t corrections = 0;
    real max_depth = 0;
  };
  PushoutStats pushout_stats() const { return pushout_; }

  /// Coverage by execution: per catalog ID (index 0 = T01), the agent-ticks since the world
  /// began in which that technique's code ran for a non-player agent. Counted inside the kernels
  /// where the technique's work is done, so a configured behaviour with nothing to do (no
  /// obstacle near, no walls, no player inside the panic range) counts nothing. Always on: one
  /// increment per agent and technique run, and a sum over 82 counters per task per step
  /// (measured with callgrind on BM_ArenaTick, 1 thread: 2.1475 M -> 2.1705 M instructions per
  /// World::step, +1.1 %, together with the combiner accumulators).
  const TechniqueCounts& technique_counts() const { return technique_counts_; }

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
  void set_flock_kernel(FlockKernel k) { flock_kernel_ = k; }
  FlockKernel flock_kernel() const { return flock_kernel_; }

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
  std::span<const SteeringTrace> traces() const { return {traces_.data(), traced_count_}; }

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
  /// One task's technique counts for the current step: each task of a phase writes only its
  /// own, and step() folds them into technique_counts_ (no atomics, same totals on any thread count).
  struct Tally {
    std::array<std::int32_t, kTechniqueCount> n{};
    /// One more agent-tick of catalog ID T<id>.
    void add(int id) { ++n[static_cast<std::size_t>(id - 1)]; }
  };
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
  void apply_commands();
  void spawn_group(std::int32_t group);
  Vec2 spawn_point(const GroupSpec& g, math::Rng& rng) const;
  Vec2 player_spawn_point(math::Rng& rng) const;
  /// The per-agent phases of step(), each a fixed partition of kAgentsPerTask-sized tasks.
  enum class Phase : std::uint8_t { kGather, kSteer, kIntegrate };
  struct PhaseTask {
    World* world;
    Phase phase;
  };
  static void run_phase_task(void* arg, std::int32_t task_index);
  void run_phase(Phase phase);
  void gather_slots(std::int32_t begin, std::int32_t end);
  void compute_steering(std::int32_t begin, std::int32_t end);
  void steer_craft(std::int32_t i, Tally& tally);
  /// T35 step every bourg_flock group with AIDemo4's loop (behavior::demo4_step_units), after the
  /// players moved: the seed's order. Serial: a group's units read each other.
  void step_bourg_groups();
  behavior::Thrusters pattern_thrusters(std::int32_t i, const behavior::CraftState& cs);
  behavior::CraftState craft_state_of(std::int32_t i) const;
  real radius_of(std::int32_t i) const;
  void integrate(std::int32_t begin, std::int32_t end);
  /// T08 for the vehicles among dense indices [begin, end), four at a time; false (nothing done)
  /// when the flock kernel asks for the per-agent update.
  bool update_vehicle_bodies(std::int32_t begin, std::int32_t end);
  void confine(std::int32_t i, Tally& tally);
  void apply_captures();
  /// Dense index of the player nearest to p (ties: the lower index), or -1; `distance` gets it.
  /// Inline: the steering kernels call it per agent from another translation unit.
  std::int32_t nearest_player(Vec2 p, real* distance) const {
    std::int32_t best = -1;
    real best_d2 = math::kInfinity;
    for (const std::int32_t j : players_) {
      const real d2 = math::length_sq(delta(p, position_[static_cast<std::size_t>(j)]));
      if (d2 < best_d2) {
        best_d2 = d2;
        best = j;
      }  // strict <: ties keep the lower dense index
    }
    if (distance) *distance = best >= 0 ? math::sqrt(best_d2) : math::kInfinity;
    return best;
  }
  /// Orientation of agent i, rad. Vehicles' orientation is the direction of their heading and is
  /// derived here when read (snapshots, hashes, align targets) rather than stored every tick: an
  /// arctan2 per vehicle per tick was 10 % of the flock tick.
  real orientation_at(std::int32_t i) const {
    return motion_[i] == Model::kVehicle ? math::orientation_of(heading_[i]) : orientation_[i];
  }
  /// Shortest displacement from `from` to `to` (across the seam of a wrapped world).
  Vec2 delta(Vec2 from, Vec2 to) const {
    return scenario_.wrap ? math::torus_delta(from, to, scenario_.width, scenario_.height) : to - from;
  }

  Scenario scenario_;
  real dt_;
  std::uint64_t tick_ = 0;
  std::int32_t capacity_;
  std::int32_t count_ = 0;
  math::Rng world_rng_;
  Grid grid_;

  // Slot table for generational ids.
  std::vector<std::uint32_t> slot_generation_;
  std::vector<std::int32_t> slot_dense_;
  std::vector<std::int32_t> free_slots_;

  // Structure of arrays, indexed densely.
  std::vector<AgentId> id_;
  std::vector<AgentKind> kind_;
  std::vector<Model> motion_;
  std::vector<std::int32_t> group_;
  std::vector<Vec2> position_;
  std::vector<Vec2> velocity_;
  std::vector<Vec2> heading_;
  std::vector<real> orientation_;
  std::vector<real> angular_velocity_;
  std::vector<math::Rng> rng_;
  std::vector<behavior::WanderState> wander_;
  std::vector<behavior::WaypointState> waypoint_;
  std::vector<behavior::PatternTracking> pattern_;
  std::vector<behavior::ChaseMode> chase_mode_;
  std::vector<PlayerInput> input_;
  std::vector<std::uint64_t> spawn_tick_;
  // Steering phase outputs (written by compute_steering, read by integrate).
  std::vector<Vec2> force_;                     // vehicles: steering force, N
  std::vector<behavior::Thrusters> thrusters_;  // crafts
  std::vector<AgentId> target_;
  std::vector<Vec2> aim_;
  std::vector<BehaviorState> state_;
  // Cell-ordered copies of what neighbour queries read, indexed by grid slot (grid_.slots()),
  // refreshed every tick after the grid rebuild. Agents that are near each other are near each
  // other in these arrays, so the steering phase (which walks agents in slot order) reads its
  // neighbours' data sequentially instead of through random agent indices.
  std::vector<Vec2> slot_position_;
  std::vector<Vec2> slot_velocity_;
  std::vector<Vec2> slot_heading_;
  std::vector<std::int32_t> slot_group_;
  std::vector<std::uint32_t> slot_id_;
  // The same positions and headings as plain arrays for the lane kernels (padded, see the constructor).
  std::vector<real> slot_x_, slot_y_, slot_hx_, slot_hy_;
  FlockKernel flock_kernel_ = FlockKernel::kLanes;
  // The steering agent's own random state, read in slot order (written back by dense index).
  std::vector<behavior::WanderState> slot_wander_;
  std::vector<math::Rng> slot_rng_;
  TaskRunner runner_{};

  std::vector<Command> commands_;
  std::vector<Event> events_;
  std::vector<Event> events_pending_;  // produced between steps (add_player), emitted by the next step
  std::vector<real> fov_cos_half_;     // per group: cosine of half the field of view, precomputed (-1 = all round)
  // Static obstacle index over the grid's cells (CSR): the obstacles that can matter to an agent
  // in a cell (within the largest detection-box reach). Built once: obstacles never move.
  std::vector<std::int32_t> obstacle_cell_start_;
  std::vector<Circle> obstacle_cell_items_;
  std::int32_t obstacle_cols_ = 1, obstacle_rows_ = 1;
  real obstacle_cell_ = 1;
  void build_obstacle_index();
  std::span<const Circle> obstacles_near(Vec2 p) const;
  // ---- tile techniques (T22, T26-T28), defined in world_tiles.cpp ----
  /// Per-agent tile state: the agent moves from the centre of `from` to the centre of `to`,
  /// one tile step per 1/tile_speed s, and decides its next tile on arrival.
  struct TileState {
    behavior::Tile from, to;
    real progress = 0;                   ///< 0..1 of the way from `from` to `to`
    behavior::Tile previous{-1, -1};     ///< the tile before `from` (T28 exclusion, chase back-off)
    behavior::TilePatrolState patrol{};  ///< T27 position in the pattern (patrol.tile = pattern tile)
    std::uint8_t mode = 0;               ///< 0 on pattern/track, 1 chasing (T22), 2 returning to the pattern
    AgentId target;                      ///< agent chased (mode 1 or kTileChase)
    // T22 line being walked: from line_origin to line_goal, line_step entries done. A new goal
    // (the target moved) or a detour around a blocked tile restarts it from the current tile.
    behavior::Tile line_origin{-1, -1}, line_goal{-1, -1};
    std::int32_t line_step = 0;
  };
  std::vector<TileState> tile_;
  std::vector<behavior::TilePathPattern> tile_patterns_;  // T26 normalised, one per Scenario::tile_patterns
  std::vector<std::vector<std::uint8_t>> track_cells_;    // T28 matrix per track, rows x cols of the tile map
  void build_tiles();
  void init_tile_agent(std::int32_t i, std::int32_t k);
  void steer_tile(std::int32_t i, Tally& tally);
  void integrate_tile(std::int32_t i);
  void next_tile(std::int32_t i, TileState& ts, Tally& tally);
  bool tile_free(behavior::Tile t) const;
  Vec2 tile_centre(behavior::Tile t) const;
  behavior::Tile tile_at(Vec2 p) const;
  behavior::Tile tile_step_toward(TileState& ts, behavior::Tile goal) const;
  std::int32_t tile_target(std::int32_t i, real range, real* distance) const;

  // ---- force-model compositions (world_compose.cpp) ----
  /// Most neighbours one boid reacts to. Beyond this the nearest are kept (sorted by distance,
  /// then index, so ties are deterministic). 24 covers the 10-30 neighbours the flock scenarios
  /// are tuned for while bounding the per-agent cost.
  static constexpr std::int32_t kMaxNeighbours = 24;
  /// Candidates a single neighbour query may collect before truncation.
  static constexpr std::int32_t kMaxCandidates = 128;
  /// Agents of one group steered together in one batch (per-agent scratch ~1 KB each).
  static constexpr std::int32_t kComposeBatch = 64;
  /// Groups up to which a task orders its agents by group with a counting sort on the stack.
  static constexpr std::int32_t kCountingSortGroups = 64;
  // Defined in world_compose_internal.hpp: a batch's lanes, the combiner's sink, one behaviour
  // over a batch, and the batch functions with their table indexed by BehaviorType.
  struct Lane;
  struct ComposeSink;
  struct LaneOutput;
  struct Batch;
  struct Behaviors;
  void steer_composed(std::int32_t group, const std::int32_t* slots, std::int32_t n, Tally& tally);
  behavior::SteeringOutput neighbour_behavior(const GroupSpec& g, std::int32_t gi, const BehaviorSpec& bs,
                                              std::int32_t i, std::int32_t slot, BehaviorState* st) const;
  static behavior::AlignParams align_params(const BehaviorSpec& bs);
  /// T76 flock force of the agent in `slot` (advances its slot wander/rng copies).
  /// The slot ranges around the cell last asked for: agents are steered in slot (cell) order,
  /// so consecutive agents of a batch mostly share them.
  struct CellRanges {
    std::int32_t first = 0, last = 0;  ///< slots of the cached cell
    std::int32_t count = 0;
    behavior::SlotRange range[Grid::kMaxSlotRanges];
  };
  Vec2 flock_force(const GroupSpec& g, std::int32_t gi, std::int32_t slot, behavior::Neighbour* scratch,
                   CellRanges& cells);
  /// The neighbourhood sums of flock_force by candidate (the kPerNeighbour kernel, and the path
  /// for the bodies the lanes leave out: more than kMaxNeighbours neighbours, or a coincident one).
  behavior::FlockSums flock_sums_per_neighbour(const GroupSpec& g, std::int32_t gi, std::int32_t slot,
                                               behavior::Neighbour* scratch) const;
  std::int32_t nearest_in_group(std::int32_t group, std::int32_t self, Vec2 p, real* distance) const;
  void integrate_steering_model(std::int32_t i, Tally& tally);
  /// Recompute the per-group runtime data (compositions, models, targeted groups, fields of view).
  void rebuild_groups();
  std::vector<Composition> compose_;                 // per group: what steer_composed runs
  std::vector<Model> group_model_;                   // per group
  std::vector<std::int32_t> heading_samples_;        // per group: T82 window (the integrate loop reads it per agent)
  std::vector<behavior::FixedLinePath> line_paths_;  // per scenario path (T54)
  std::vector<behavior::DynamicWanderState> dyn_wander_;  // T51 per agent
  std::vector<behavior::PatternState> kpattern_;          // T25 per agent
  std::vector<behavior::PathFollowState> path_state_;     // T52/T53 per agent
  std::vector<behavior::HeadingSmoother> smoother_;       // T82 per agent (sized only when a group filters)
  std::array<SteeringTrace, kMaxTraced> traces_{};
  std::array<std::int32_t, kMaxTraced> traced_index_{};  // dense index of each traced agent this step (-1: gone)
  std::size_t traced_count_ = 0;
  void resolve_traced();
  void record_trace(std::size_t t, const Lane& lane, const Composition& c, const behavior::SteeringOutput& result);
  std::vector<Tally> task_tally_;  // per task of a phase, folded by step()
  TechniqueCounts technique_counts_{};
  std::vector<PushoutStats> task_pushout_;  // per integrate task, summed after the phase (no atomics)
  PushoutStats pushout_;

  // ---- kinematic motion, target groups, live tuning ----
  void spawn_agents(std::int32_t group, std::int32_t k_begin, std::int32_t k_end);
  void init_technique_state(std::int32_t i);
  void steer_kinematic(std::int32_t i, Tally& tally);
  void integrate_kinematic(std::int32_t i, Tally& tally);
  /// Dense index of the agent group g's techniques act on (nearest player, or nearest live agent
  /// of g.target_group), or -1; `distance` gets its distance.
  std::int32_t nearest_target(const GroupSpec& g, std::int32_t self, Vec2 p, real* distance) const;
  void apply_target_captures();
  void apply_group_updates();
  std::vector<behavior::Fly> fly_;                                  // T16 burst state (velocity in LaMothe units)
  std::vector<behavior::MultiRayState> ray_state_;                  // T60 remedy state
  std::vector<real> kin_rotation_;                                  // kinematic outputs: rotation, rad/s
  std::vector<std::uint8_t> targeted_;                              // per group: some group targets it
  std::vector<std::vector<std::int32_t>> members_;                  // per targeted group: dense indices this tick
  std::vector<std::pair<std::int32_t, GroupSpec>> pending_groups_;  // set_group updates for the next step

  std::vector<std::int32_t> leader_index_;  // per group, dense index of its leader this tick (or -1)
  std::vector<std::int32_t> players_;       // dense indices of players this tick
};

}  // namespace flockstep::sim
