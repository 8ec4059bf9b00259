#pragma once
/// \file world.hpp
/// The authoritative world: agents in structure-of-arrays storage sized at init, static geometry,
/// and a fixed-dt phased tick (house style section 2):
///   apply commands -> rebuild grid -> steering for everyone (reads state only) ->
///   integrate everyone -> rules (obstacle projection, wrap, capture, respawn) -> tick++.
/// Compute-then-commit makes every agent's steering independent of agent order and of how the
/// steering phase is partitioned across threads: the per-agent phases run as a fixed partition
/// of tasks through a host-lent TaskRunner (task_runner.hpp), bit-identical on 1 or N threads.
///
/// Each agent's behaviour is data: it belongs to a group whose GroupSpec names a technique and
/// its parameters, so scenarios need no code. Time is an integer tick count with a constant dt;
/// randomness comes from per-agent PCG32 streams seeded from the scenario seed.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "flockstep/behavior/avoid.hpp"
#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/lamothe.hpp"
#include "flockstep/behavior/ray_avoid.hpp"
#include "flockstep/behavior/physics_pattern.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/behavior/types.hpp"
#include "flockstep/sim/grid.hpp"
#include "flockstep/sim/task_runner.hpp"

namespace flockstep::sim {

using behavior::Circle;
using behavior::Wall;
using math::real;
using math::Vec2;

/// Generational agent handle (Box2D b2BodyId style): low 20 bits slot, high 12 bits generation.
/// Value 0 is never a live agent (generation starts at 1).
struct AgentId {
  std::uint32_t value = 0;
  static constexpr std::uint32_t kSlotBits = 20;
  static constexpr std::uint32_t kSlotMask = (1u << kSlotBits) - 1u;
  constexpr std::uint32_t slot() const { return value & kSlotMask; }
  constexpr std::uint32_t generation() const { return value >> kSlotBits; }
  constexpr bool valid() const { return value != 0; }
  friend constexpr bool operator==(AgentId, AgentId) = default;
};

/// What an agent is, for clients (shape, colour) and rules (who hunts whom).
enum class AgentKind : std::uint8_t { kPlayer = 0, kFlock = 1, kPursuer = 2, kPatrol = 3, kWanderer = 4, kCount = 5 };

/// How an agent moves: a point-mass vehicle steered by forces (T08) or a rigid-body craft with
/// bow thrusters (T10), or tile by tile on the scenario's tile map (T22, T26-T28).
/// kKinematic: the velocity (or, for kRayAvoid, Millington's acceleration) is set by the
/// technique directly, without the force layers (T03, T05).
enum class Motion : std::uint8_t { kVehicle = 0, kCraft = 1, kTile = 2, kKinematic = 3 };

/// The movement technique that drives a group (catalog IDs in brackets).
enum class Technique : std::uint8_t {
  kPlayer = 0,      ///< craft driven by client input (T10)
  kFlock,           ///< slides' flocking forces (T76) + avoidance, prioritised (T79)
  kChase,           ///< plain chase: seek the nearest player's current position (T64)
  kLosChase,        ///< craft turning its bow toward the nearest player (T21)
  kIntercept,       ///< craft aiming at the intercept point, LOS fallback when infeasible (T23, T24)
  kPursue,          ///< vehicle pursuing the nearest player with prediction (T67)
  kOffsetPursuit,   ///< vehicle holding an offset slot behind a leader agent (T69)
  kWander,          ///< jittered-circle wander (T71)
  kPathFollow,      ///< waypoint patrol along a scenario path (T72)
  kPattern,         ///< craft flying a physics pattern: square, zig-zag, arbitrary (T29, T30)
  kHide,            ///< vehicle hiding behind obstacles from the nearest player (T74)
  kEvade,           ///< vehicle evading the nearest player (T68)
  kTilePatrol,      ///< tile patrol along a tile pattern, breaks out to chase a near player (T26, T27, T22)
  kTileTrack,       ///< tile walker on a track matrix, random at junctions (T28)
  kTileChase,       ///< Bresenham line-of-sight chase on tiles (T22)
  // Issue 6 techniques. "The target" is the nearest player, or the nearest live agent of
  // GroupSpec::target_group when that is set.
  kStraight,        ///< kinematic: constant velocity max_speed along heading_deg, one optional swerve (T15)
  kSeek,            ///< vehicle seeking `goal` if set, else the target (T64)
  kFlee,            ///< vehicle fleeing the target inside panic_range (0 = always) (T65)
  kArrive,          ///< vehicle arriving at `goal` if set, else at the target (T66)
  kInterpose,       ///< vehicle arriving between the target and the leader of leader_group (T70)
  kFly,             ///< kinematic: LaMothe's random bursts (T16)
  kTrack,           ///< kinematic: axis-wise tracking of the target (T17)
  kAntiTrack,       ///< kinematic: axis-wise anti-tracking away from the target (T18)
  kVectorTrack,     ///< kinematic: trajectory vectoring toward the target (T19)
  kMine,            ///< kinematic: range-gated noisy homing mine (T20)
  kKinematicSeek,   ///< kinematic: Millington's kinematic seek of `goal`/the target (T37)
  kKinematicWander, ///< kinematic: Millington's kinematic wander (T40)
  kRayAvoid,        ///< Millington steering: seek `goal` (or cruise) with ray-cast wall avoidance (T59, T60)
  kCount
};

/// Human-readable technique name ("flock", "los_chase", ...); used by scenario files.
const char* technique_name(Technique t);
/// Parse a technique name; returns false if unknown.
bool parse_technique(std::string_view name, Technique& out);
/// Kind name ("player", "flock", ...).
const char* kind_name(AgentKind k);

/// Which T30 physics pattern a kPattern group flies.
enum class PatternKind : std::uint8_t { kSquare = 0, kZigZag = 1, kArbitrary = 2 };

/// Weights of the prioritised running sum (T79) every vehicle uses, highest priority first.
/// A weight of 0 switches that layer off (T09).
struct LayerWeights {
  real walls = 3;        ///< wall feelers (T75)
  real obstacles = 3;    ///< detection box (T73)
  real flee_players = 1; ///< flee players inside panic_range (flocks, wanderers)
  real primary = 1;      ///< the group's technique
};

/// Flocking parameters (T76).
struct FlockSpec {
  real neighbour_radius = 6;     ///< m. [Limit: > 0, <= grid cell size]
  real fov_deg = 270;            ///< total field of view, degrees. [Limit: (0, 360]]
  // Weights measured with the slides' forces (see flocking.hpp): cohesion as strong as alignment
  // makes the flock mill; this mix cruises with polarisation ~0.99.
  real w_separation = 5.0;       ///< weight of separation (5: ~15 neighbours in 6 m at flock density, measured)
  real w_alignment = 3.0;        ///< weight of alignment
  real w_cohesion = 0.5;         ///< weight of cohesion
  real w_wander = 1.0;           ///< weight of wander (keeps isolated boids moving)
  /// Weight of the cruise term (cruise_speed along the heading minus velocity). The slides'
  /// cohesion and alignment are "desired - v" forces that also act as drag, so without it a
  /// dense flock slows to a crawl (measured: 0.2 m/s with separation weight 10).
  real w_cruise = 1.0;
  real cruise_fraction = 0.7;    ///< cruise speed as a fraction of max_speed. [Limit: 0..1]
};

/// T16 fly parameters (kFly). LaMothe's velocity components are integers in [-8, 7] pixels/tick;
/// the world maps a component of 8 to max_speed m/s (velocity = component * max_speed / 8).
struct FlySpec {
  std::int32_t min_burst_ticks = 10;  ///< shortest burst, simulation ticks. [Limit: >= 1]
  std::int32_t max_burst_ticks = 10;  ///< longest burst, ticks. [Limit: >= min_burst_ticks]
};

/// T20 mine parameters (kMine). Pixels become metres and pixels/tick become m/tick: the homing
/// rate is max_force / mass (m/s^2), the speed cap max_speed, the noise amplitude per axis
/// max_speed / 6 inside the radius and max_speed / 3 outside (the seed's 1 and 2 against 6).
struct MineSpec {
  real tracking_distance = 30;      ///< activation radius, m. [Limit: > 0]
  real near_noise_chance = 0.1;     ///< per-tick noise probability inside the radius. [Limit: [0, 1]]
  real far_noise_chance = 1.0 / 30; ///< per-tick noise probability outside. [Limit: [0, 1]]
};

/// T59/T60 ray configuration (kRayAvoid). Acceleration = max_force / mass, speed cap max_speed.
struct RaySpec {
  std::int32_t config = 1;      ///< 0 single, 1 whiskers, 2 parallel (prone to the corner trap), 3 fan. [Limit: 0..3]
  bool corner_remedy = false;   ///< T60 remedies on: adaptive fan angle and the winner ray
  real lookahead = 5;           ///< main ray length, m. [Limit: > 0]
  real whisker_length = 2.5;    ///< whisker length, m. [Limit: > 0]
  real side_angle = 0.5;        ///< side ray angle, rad. [Limit: 0..pi/2]
  real parallel_offset = 0.5;   ///< parallel rays' lateral offset, m. [Limit: >= 0]
  real avoid_distance = 1;      ///< seek target offset from the surface, m. [Limit: > radius]
};

/// Parameters of one group of agents: technique, body, counts and spawn area.
struct GroupSpec {
  std::string name = "group";    ///< label shown by viewers
  AgentKind kind = AgentKind::kFlock;
  Technique technique = Technique::kFlock;
  std::int32_t count = 0;        ///< agents spawned at start. [Limit: >= 0]
  Vec2 spawn_min{0, 0};          ///< spawn rectangle lower-left, m
  Vec2 spawn_max{0, 0};          ///< spawn rectangle upper-right, m (0,0 = whole world)
  // Vehicle body (T08)
  real max_speed = 6;            ///< m/s. [Limit: > 0]
  real max_force = 12;           ///< N. [Limit: > 0]
  real mass = 1;                 ///< kg. [Limit: > 0]
  real radius = 0.5;             ///< m. [Limit: > 0]
  // Craft (T10) for kLosChase, kIntercept, kPattern
  behavior::CraftParams craft{};
  LayerWeights layers{};
  FlockSpec flock{};
  behavior::WanderParams wander{2.0, 4.0, 40.0};
  /// T73 box; braking 0.2 (Buckland's code) because the slides' 2.0 stalls seekers in front of
  /// obstacles (measured, see ObstacleAvoidance.T73_SeedBrakingWeightStallsSeekingAgent).
  behavior::DetectionBoxParams detection{4.0, 0.0, 0.2};
  behavior::FeelerParams feelers{};
  behavior::HideParams hide{};
  real panic_range = 8;          ///< flee players closer than this, m (0 = never). [Limit: >= 0]
  real arrive_deceleration = 2;  ///< T66 DECELERATION for arrive-based techniques. [Limit: >= 1]
  real capture_radius = 1.0;     ///< pursuers capture a player inside this distance, m. [Limit: >= 0]
  real los_tolerance = 0.05;     ///< T21 dead band, sine of the half-angle. [Limit: [0, 1)]
  real intercept_max_prediction = 3; ///< T23 cap on the time to close, s. [Limit: > 0]
  std::int32_t path = -1;        ///< index into Scenario::paths for kPathFollow
  real waypoint_seek_distance = 2; ///< T72 SEEK_DISTANCE, m. [Limit: > 0]
  std::int32_t leader_group = -1;  ///< kOffsetPursuit: group whose first agent is the leader
  Vec2 offset{-2, 0};            ///< kOffsetPursuit slot in the leader's local frame (x forward), m
  PatternKind pattern = PatternKind::kSquare;  ///< kPattern (use behavior::kPatternCraftParams as craft)
  // Tile techniques (T22, T26-T28); need Scenario::tiles.
  std::int32_t tile_pattern = -1;  ///< kTilePatrol: index into Scenario::tile_patterns
  std::int32_t track = -1;         ///< kTileTrack: index into Scenario::tracks
  real tile_speed = 4;             ///< tile steps per second (diagonal steps too). [Limit: (0, tick_rate_hz]]
  real chase_range = 12;           ///< kTilePatrol breaks out to chase a player this close, m (0 = never). [Limit: >= 0]
  // Issue 6 techniques (T15-T20, T37, T40, T59/T60, T64-T66, T70).
  /// Act on the nearest live agent of this group instead of the nearest player (-1 = nearest
  /// player). kPursuer agents with a target group capture its agents on contact.
  std::int32_t target_group = -1;
  Vec2 goal{0, 0};               ///< kSeek/kArrive/kKinematicSeek/kRayAvoid goal point, m ((0, 0) = none: use the target / cruise)
  real heading_deg = 0;          ///< kStraight heading, degrees CCW from +x
  real swerve_after_s = 0;       ///< kStraight: seconds alive before the one swerve. [Limit: >= 0]
  real swerve_deg = 0;           ///< kStraight: the swerve, degrees CCW (0 = none). [Limit: -360..360]
  FlySpec fly{};
  MineSpec mine{};
  real kinematic_max_rotation = 3;  ///< kKinematicWander rotation bound, rad/s. [Limit: >= 0]
  RaySpec rays{};
};

/// A patrol path: waypoints (m) and whether it loops.
struct PathSpec {
  std::string name = "path";
  std::vector<Vec2> points;
  bool loop = true;
};

/// Optional tile map (T22, T26-T28): cols x rows square cells of `cell` m from the world origin.
/// Tile (row, col) covers x in [col*cell, (col+1)*cell), y in [row*cell, (row+1)*cell): row 0 is
/// the bottom row. Tile agents move between tile centres and never enter a blocked tile.
struct TileMapSpec {
  std::int32_t cols = 0, rows = 0;      ///< 0 x 0 = no tile map. [Limit: 0..256, inside the world]
  real cell = 4;                        ///< m per tile. [Limit: > 0]
  std::vector<std::uint8_t> blocked;    ///< row-major from the bottom row (row 0 = y in [0, cell)); 1 = wall
};

/// A T26 tile path pattern: vertices (row, col) joined by Bresenham segments, anchored at an
/// offset: the patrol visits (row_offset, col_offset) + (vertex - vertices[0]). The last vertex
/// must equal the first (a loop); every visited tile must be on the map and free; at most
/// behavior::kMaxPathLength entries.
struct TilePatternSpec {
  std::string name;
  std::vector<std::array<std::int32_t, 2>> vertices;
  std::int32_t row_offset = 0, col_offset = 0;
};

/// A T28 track: segments (row0, col0, row1, col1) marked into a track matrix (tiles on the map, free).
struct TrackSpec {
  std::string name;
  std::vector<std::array<std::int32_t, 4>> segments;
};

/// Everything needed to build a world. Plain data; the server fills it from JSON.
struct Scenario {
  std::string name = "scenario";
  std::string description;
  real width = 200;                 ///< m. [Limit: > 0]
  real height = 200;                ///< m. [Limit: > 0]
  bool wrap = false;                ///< toroidal world (T14) instead of solid borders
  std::int32_t tick_rate_hz = 60;   ///< fixed simulation rate. [Limit: 1..240]
  std::uint64_t seed = 1;           ///< root of every random stream
  std::int32_t max_agents = 4096;   ///< storage capacity, sized at init. [Limit: 1..1,000,000]
  std::int32_t max_players = 64;    ///< player crafts allowed at once. [Limit: 0..max_agents]
  real grid_cell = 8;               ///< spatial grid cell, m. [Limit: >= every neighbour radius]
  behavior::CraftParams player_craft{};  ///< physics of player crafts (clients predict with it)
  real respawn_protection_s = 2;    ///< a respawned player cannot be captured this long, s
  /// Behaviour level of detail (time slicing, as PSCrowd ran behaviour at 1/8 of the frame rate):
  /// each force-steered vehicle recomputes its steering every this many ticks, on a rota by id
  /// slot (slot + tick divisible by it), and keeps its last force in between; integration and
  /// the rules still run every tick, and crafts, kinematic and tile movers steer every tick.
  /// 1 = every vehicle every tick (the behaviour as the catalog defines it). [Limit: 1..8]
  std::int32_t steering_interval_ticks = 1;
  std::vector<Circle> obstacles;
  std::vector<Wall> walls;
  std::vector<PathSpec> paths;
  std::vector<GroupSpec> groups;
  TileMapSpec tiles;                ///< optional tile map for the tile techniques
  std::vector<TilePatternSpec> tile_patterns;
  std::vector<TrackSpec> tracks;
};

/// Validate a scenario; returns an empty string when valid, else a message naming the field.
std::string validate(const Scenario& s);
/// The tile part of validate(): tiles, tile_patterns, tracks and the groups' tile fields.
std::string validate_tiles(const Scenario& s);

/// Control state of a player craft for one tick. The codec clamps untrusted values into range;
/// the world clamps again (NaN becomes 0) so its invariants never depend on the caller.
struct PlayerInput {
  real turn = 0;      ///< -1 full left .. +1 full right (right fires the port thruster, T10)
  real throttle = 0;  ///< 0 .. 1 fraction of thrust
};

/// Something that happened during a tick.
struct Event {
  enum class Type : std::uint8_t { kCapture = 0, kRespawn = 1, kSpawn = 2, kDespawn = 3 };
  Type type = Type::kCapture;
  AgentId subject;     ///< the player (capture/respawn) or the agent (spawn/despawn)
  AgentId other;       ///< the capturing pursuer for kCapture
  std::uint64_t tick = 0;
  std::uint64_t survived_ticks = 0;  ///< kCapture: how long the player survived (its score)
};

/// Behaviour state reported for annotation.
enum class BehaviorState : std::uint8_t { kNone = 0, kSeeking, kIntercepting, kLosFallback, kFleeing, kAvoiding, kPatrolling, kHiding, kCaptured };

/// Read-only view of one agent (by dense index) for snapshots and viewers.
struct AgentView {
  AgentId id;
  AgentKind kind = AgentKind::kFlock;
  std::int32_t group = 0;
  Vec2 position;
  Vec2 velocity;
  real orientation = 0;     ///< radians, CCW from +x
  real angular_velocity = 0;
  AgentId target;           ///< agent this one is after (pursuers) or following (offset pursuit)
  Vec2 aim;                 ///< point it steers to (intercept point, hiding spot, waypoint, wander target)
  BehaviorState state = BehaviorState::kNone;
  std::uint64_t spawn_tick = 0;
};

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

  /// Live tuning: validate `spec` for group `group` (the rules of validate(); technique, kind,
  /// path, leader_group and target_group may not change) and queue it. Returns "" when accepted,
  /// else a message naming the field. At the start of the next step() the parameters are
  /// replaced and agents are spawned in the group's spawn area (deterministic RNG, kSpawn events)
  /// or despawned highest id value first (kDespawn events) to reach spec.count.
  std::string set_group(std::int32_t group, const GroupSpec& spec);
  /// Live agents of a group (0 for an unknown group).
  std::int32_t group_size(std::int32_t group) const;

 private:
  struct Command {
    enum class Type : std::uint8_t { kRemove, kInput } type;
    AgentId id;
    PlayerInput input;
  };

  AgentId allocate(std::int32_t group, AgentKind kind, Motion motion);
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
  void steer_vehicle(std::int32_t i, std::int32_t slot, behavior::Neighbour* nb);
  void steer_craft(std::int32_t i);
  behavior::Thrusters pattern_thrusters(std::int32_t i, const behavior::CraftState& cs);
  behavior::CraftState craft_state_of(std::int32_t i) const;
  real radius_of(std::int32_t i) const;
  void integrate(std::int32_t begin, std::int32_t end);
  void confine(std::int32_t i);
  void apply_captures();
  std::int32_t nearest_player(Vec2 p, real* distance) const;
  Vec2 delta(Vec2 from, Vec2 to) const;

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
  std::vector<Motion> motion_;
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
  std::vector<Vec2> force_;          // vehicles: steering force, N
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
  // The steering agent's own random state, read in slot order (written back by dense index).
  std::vector<behavior::WanderState> slot_wander_;
  std::vector<math::Rng> slot_rng_;
  TaskRunner runner_{};

  std::vector<Command> commands_;
  std::vector<Event> events_;
  std::vector<Event> events_pending_;       // produced between steps (add_player), emitted by the next step
  std::vector<real> fov_cos_half_;          // per group: cosine of half the field of view, precomputed (-1 = all round)
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
    real progress = 0;                  ///< 0..1 of the way from `from` to `to`
    behavior::Tile previous{-1, -1};    ///< the tile before `from` (T28 exclusion, chase back-off)
    behavior::TilePatrolState patrol{};  ///< T27 position in the pattern (patrol.tile = pattern tile)
    std::uint8_t mode = 0;              ///< 0 on pattern/track, 1 chasing (T22), 2 returning to the pattern
    AgentId target;                     ///< agent chased (mode 1 or kTileChase)
    // T22 line being walked: from line_origin to line_goal, line_step entries done. A new goal
    // (the target moved) or a detour around a blocked tile restarts it from the current tile.
    behavior::Tile line_origin{-1, -1}, line_goal{-1, -1};
    std::int32_t line_step = 0;
  };
  std::vector<TileState> tile_;
  std::vector<behavior::TilePathPattern> tile_patterns_;  // T26 normalised, one per Scenario::tile_patterns
  std::vector<std::vector<std::uint8_t>> track_cells_;   // T28 matrix per track, rows x cols of the tile map
  void build_tiles();
  void init_tile_agent(std::int32_t i, std::int32_t k);
  void steer_tile(std::int32_t i);
  void integrate_tile(std::int32_t i);
  void next_tile(std::int32_t i, TileState& ts);
  bool tile_free(behavior::Tile t) const;
  Vec2 tile_centre(behavior::Tile t) const;
  behavior::Tile tile_at(Vec2 p) const;
  behavior::Tile tile_step_toward(TileState& ts, behavior::Tile goal) const;
  std::int32_t tile_target(std::int32_t i, real range, real* distance) const;

  // ---- issue 6 techniques (SIM-A): kinematic motion, target groups, live tuning ----
  void spawn_agents(std::int32_t group, std::int32_t k_begin, std::int32_t k_end);
  void init_technique_state(std::int32_t i);
  void steer_kinematic(std::int32_t i);
  void integrate_kinematic(std::int32_t i);
  /// Dense index of the agent group g's techniques act on (nearest player, or nearest live agent
  /// of g.target_group), or -1; `distance` gets its distance.
  std::int32_t nearest_target(const GroupSpec& g, std::int32_t self, Vec2 p, real* distance) const;
  void apply_target_captures();
  void apply_group_updates();
  std::vector<behavior::Fly> fly_;                // T16 burst state (velocity in LaMothe units)
  std::vector<behavior::MultiRayState> ray_state_;  // T60 remedy state
  std::vector<real> kin_rotation_;                // kinematic outputs: rotation, rad/s
  std::vector<std::uint8_t> targeted_;            // per group: some group targets it
  std::vector<std::vector<std::int32_t>> members_;  // per targeted group: dense indices this tick
  std::vector<std::pair<std::int32_t, GroupSpec>> pending_groups_;  // set_group updates for the next step

  std::vector<std::int32_t> leader_index_;  // per group, dense index of its leader this tick (or -1)
  std::vector<std::int32_t> players_;       // dense indices of players this tick
};

}  // namespace flockstep::sim
