#pragma once
/// \file scenario.hpp
/// Everything needed to build a world, as plain data: groups of agents (each a movement model
/// and its behaviours), static geometry, paths, tile maps. Scenario files (JSON), the wire's
/// WorldSpec and live tuning all fill these structs; validate() checks them and names the field.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flockstep/behavior/avoid.hpp"
#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/types.hpp"
#include "flockstep/sim/compose.hpp"

namespace flockstep::sim {

using behavior::Circle;
using behavior::Wall;
using math::real;
using math::Vec2;

/// What an agent is, for clients (shape, colour) and rules (who hunts whom).
enum class AgentKind : std::uint8_t { kPlayer = 0, kFlock = 1, kPursuer = 2, kPatrol = 3, kWanderer = 4, kCount = 5 };

/// The movement technique that drives a group (catalog IDs in brackets).
enum class Technique : std::uint8_t {
  kPlayer = 0,     ///< craft driven by client input (T10)
  kFlock,          ///< slides' flocking forces (T76) + avoidance, prioritised (T79)
  kChase,          ///< plain chase: seek the nearest player's current position (T64)
  kLosChase,       ///< craft turning its bow toward the nearest player (T21)
  kIntercept,      ///< craft aiming at the intercept point, LOS fallback when infeasible (T23, T24)
  kPursue,         ///< vehicle pursuing the nearest player with prediction (T67)
  kOffsetPursuit,  ///< vehicle holding an offset slot behind a leader agent (T69)
  kWander,         ///< jittered-circle wander (T71)
  kPathFollow,     ///< waypoint patrol along a scenario path (T72)
  kPattern,        ///< craft flying a physics pattern: square, zig-zag, arbitrary (T29, T30)
  kHide,           ///< vehicle hiding behind obstacles from the nearest player (T74)
  kEvade,          ///< vehicle evading the nearest player (T68)
  kTilePatrol,     ///< tile patrol along a tile pattern, breaks out to chase a near player (T26, T27, T22)
  kTileTrack,      ///< tile walker on a track matrix, random at junctions (T28)
  kTileChase,      ///< Bresenham line-of-sight chase on tiles (T22)
  // "The target" is the nearest player, or the nearest live agent of GroupSpec::target_group
  // when that is set.
  kStraight,          ///< kinematic: constant velocity max_speed along heading_deg, one optional swerve (T15)
  kSeek,              ///< vehicle seeking `goal` if set, else the target (T64)
  kFlee,              ///< vehicle fleeing the target inside panic_range (0 = always) (T65)
  kArrive,            ///< vehicle arriving at `goal` if set, else at the target (T66)
  kInterpose,         ///< vehicle arriving between the target and the leader of leader_group (T70)
  kFly,               ///< kinematic: LaMothe's random bursts (T16)
  kTrack,             ///< kinematic: axis-wise tracking of the target (T17)
  kAntiTrack,         ///< kinematic: axis-wise anti-tracking away from the target (T18)
  kVectorTrack,       ///< kinematic: trajectory vectoring toward the target (T19)
  kMine,              ///< kinematic: range-gated noisy homing mine (T20)
  kKinematicSeek,     ///< kinematic: Millington's kinematic seek of `goal`/the target (T37)
  kKinematicWander,   ///< kinematic: Millington's kinematic wander (T40)
  kRayAvoid,          ///< Millington steering: seek `goal` (or cruise) with ray-cast wall avoidance (T59, T60)
  kKinematicFlee,     ///< kinematic: Millington's kinematic flee from the target (T38)
  kKinematicArrive,   ///< kinematic: Millington's kinematic arrive at `goal`/the target (T39)
  kKinematicPattern,  ///< kinematic: the standard pattern algorithm, turn-and-step instructions (T25)
  kBourgFlock,  ///< craft: Bourg's rigid-body flocking by lateral bow force (T33-T36), chasing players as AIDemo4 does
  kComposed,    ///< a vehicle or steering composition: GroupSpec::model + GroupSpec::compose
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
  real walls = 3;         ///< wall feelers (T75)
  real obstacles = 3;     ///< detection box (T73)
  real flee_players = 1;  ///< flee players inside panic_range (flocks, wanderers)
  real primary = 1;       ///< the group's technique
};

/// Flocking parameters (T76).
struct FlockSpec {
  real neighbour_radius = 6;  ///< m. [Limit: > 0, <= grid cell size]
  real fov_deg = 270;         ///< total field of view, degrees. [Limit: (0, 360]]
  // Weights measured with the slides' forces (see flocking.hpp): cohesion as strong as alignment
  // makes the flock mill; this mix cruises with polarisation ~0.99.
  real w_separation = 5.0;  ///< weight of separation (5: ~15 neighbours in 6 m at flock density, measured)
  real w_alignment = 3.0;   ///< weight of alignment
  real w_cohesion = 0.5;    ///< weight of cohesion
  real w_wander = 1.0;      ///< weight of wander (keeps isolated boids moving)
  /// Weight of the cruise term (cruise_speed along the heading minus velocity). The slides'
  /// cohesion and alignment are "desired - v" forces that also act as drag, so without it a
  /// dense flock slows to a crawl (measured: 0.2 m/s with separation weight 10).
  real w_cruise = 1.0;
  real cruise_fraction = 0.7;  ///< cruise speed as a fraction of max_speed. [Limit: 0..1]
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
  real tracking_distance = 30;       ///< activation radius, m. [Limit: > 0]
  real near_noise_chance = 0.1;      ///< per-tick noise probability inside the radius. [Limit: [0, 1]]
  real far_noise_chance = 1.0 / 30;  ///< per-tick noise probability outside. [Limit: [0, 1]]
};

/// T59/T60 ray configuration (kRayAvoid). Acceleration = max_force / mass, speed cap max_speed.
struct RaySpec {
  std::int32_t config = 1;     ///< 0 single, 1 whiskers, 2 parallel (prone to the corner trap), 3 fan. [Limit: 0..3]
  bool corner_remedy = false;  ///< T60 remedies on: adaptive fan angle and the winner ray
  real lookahead = 5;          ///< main ray length, m. [Limit: > 0]
  real whisker_length = 2.5;   ///< whisker length, m. [Limit: > 0]
  real side_angle = 0.5;       ///< side ray angle, rad. [Limit: 0..pi/2]
  real parallel_offset = 0.5;  ///< parallel rays' lateral offset, m. [Limit: >= 0]
  real avoid_distance = 1;     ///< seek target offset from the surface, m. [Limit: > radius]
};

/// Parameters of one group of agents: technique, body, counts and spawn area.
struct GroupSpec {
  std::string name = "group";  ///< label shown by viewers
  AgentKind kind = AgentKind::kFlock;
  Technique technique = Technique::kFlock;
  std::int32_t count = 0;  ///< agents spawned at start. [Limit: >= 0]
  Vec2 spawn_min{0, 0};    ///< spawn rectangle lower-left, m
  Vec2 spawn_max{0, 0};    ///< spawn rectangle upper-right, m (0,0 = whole world)
  // Vehicle body (T08)
  real max_speed = 6;   ///< m/s. [Limit: > 0]
  real max_force = 12;  ///< N. [Limit: > 0]
  real mass = 1;        ///< kg. [Limit: > 0]
  real radius = 0.5;    ///< m. [Limit: > 0]
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
  real panic_range = 8;                        ///< flee players closer than this, m (0 = never). [Limit: >= 0]
  real arrive_deceleration = 2;                ///< T66 DECELERATION for arrive-based techniques. [Limit: >= 1]
  real capture_radius = 1.0;                   ///< pursuers capture a player inside this distance, m. [Limit: >= 0]
  real los_tolerance = 0.05;                   ///< T21 dead band, sine of the half-angle. [Limit: [0, 1)]
  real intercept_max_prediction = 3;           ///< T23 cap on the time to close, s. [Limit: > 0]
  std::int32_t path = -1;                      ///< index into Scenario::paths for kPathFollow
  real waypoint_seek_distance = 2;             ///< T72 SEEK_DISTANCE, m. [Limit: > 0]
  std::int32_t leader_group = -1;              ///< kOffsetPursuit: group whose first agent is the leader
  Vec2 offset{-2, 0};                          ///< kOffsetPursuit slot in the leader's local frame (x forward), m
  PatternKind pattern = PatternKind::kSquare;  ///< kPattern (use behavior::kPatternCraftParams as craft)
  // Tile techniques (T22, T26-T28); need Scenario::tiles.
  std::int32_t tile_pattern = -1;  ///< kTilePatrol: index into Scenario::tile_patterns
  std::int32_t track = -1;         ///< kTileTrack: index into Scenario::tracks
  real tile_speed = 4;             ///< tile steps per second (diagonal steps too). [Limit: (0, tick_rate_hz]]
  real chase_range = 12;  ///< kTilePatrol breaks out to chase a player this close, m (0 = never). [Limit: >= 0]
  // Targets and the kinematic techniques (T15-T20, T37-T40, T59/T60, T64-T66, T70).
  /// Act on the nearest live agent of this group instead of the nearest player (-1 = nearest
  /// player). kPursuer agents with a target group capture its agents on contact.
  std::int32_t target_group = -1;
  Vec2 goal{0, 0};  ///< kSeek/kArrive/kKinematicSeek/kRayAvoid goal point, m ((0, 0) = none: use the target / cruise)
  real heading_deg = 0;     ///< kStraight heading, degrees CCW from +x
  real swerve_after_s = 0;  ///< kStraight: seconds alive before the one swerve. [Limit: >= 0]
  real swerve_deg = 0;      ///< kStraight: the swerve, degrees CCW (0 = none). [Limit: -360..360]
  FlySpec fly{};
  MineSpec mine{};
  real kinematic_max_rotation = 3;  ///< kKinematicWander rotation bound, rad/s. [Limit: >= 0]
  RaySpec rays{};
  /// kBourgFlock: the T33 visibility model, 0 wide (270 deg), 1 limited (180 deg), 2 narrow
  /// (45 deg); tunable live like AIDemo4's keys. [Limit: 0..2]
  std::int32_t view_model = 0;
  /// kBourgFlock: the group's lowest-id unit leads (line-of-sight chase of the nearest player,
  /// T21) and the others are pulled toward it when they see it (T36).
  bool leader_unit = true;
  /// kBourgFlock: the group's second-lowest-id unit intercepts the nearest player (T23/T24).
  bool interceptor_unit = true;
  /// kBourgFlock: followers flock (T34 rules, leader and player pulls); false flies them
  /// straight on, like AIDemo4's flocking toggle. Tunable live.
  bool flocking = true;
  /// kBourgFlock: the T36 obstacle rule; false only to show what it does (the push-out rule
  /// then catches the units that fly into rocks, and pushout_stats counts them).
  bool avoid_obstacles = true;
  /// kComposed: the movement model (kVehicle or kSteering) and its composition.
  Model model = Model::kVehicle;
  Composition compose{};
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
  std::int32_t cols = 0, rows = 0;    ///< 0 x 0 = no tile map. [Limit: 0..256, inside the world]
  real cell = 4;                      ///< m per tile. [Limit: > 0]
  std::vector<std::uint8_t> blocked;  ///< row-major from the bottom row (row 0 = y in [0, cell)); 1 = wall
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

/// Longest respawn protection a scenario may ask for, s: an hour is already "never captured".
inline constexpr real kMaxRespawnProtectionS = 3600;
/// Shortest world side, m. Positions are divided by the side to find grid cells: a side of a few
/// metres is the smallest any scene uses, a denormal one turned finite positions into infinite
/// cell coordinates (the world-state fuzzer sent a width of 2e-312).
inline constexpr real kMinWorldSide = 1;

/// Everything needed to build a world. Plain data; the server fills it from JSON.
struct Scenario {
  std::string name = "scenario";
  std::string description;
  real width = 200;                      ///< m. [Limit: >= kMinWorldSide]
  real height = 200;                     ///< m. [Limit: >= kMinWorldSide]
  bool wrap = false;                     ///< toroidal world (T14) instead of solid borders
  std::int32_t tick_rate_hz = 60;        ///< fixed simulation rate. [Limit: 1..240]
  std::uint64_t seed = 1;                ///< root of every random stream
  std::int32_t max_agents = 4096;        ///< storage capacity, sized at init. [Limit: 1..1,000,000]
  std::int32_t max_players = 64;         ///< player crafts allowed at once. [Limit: 0..max_agents]
  real grid_cell = 8;                    ///< spatial grid cell, m. [Limit: >= every neighbour radius]
  behavior::CraftParams player_craft{};  ///< physics of player crafts (clients predict with it)
  real respawn_protection_s = 2;  ///< a respawned player cannot be captured this long, s. [0..kMaxRespawnProtectionS]
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
  TileMapSpec tiles;  ///< optional tile map for the tile techniques
  std::vector<TilePatternSpec> tile_patterns;
  std::vector<TrackSpec> tracks;
};

/// Validate a scenario; returns an empty string when valid, else a message naming the field.
std::string validate(const Scenario& s);

/// The model a group's agents move with: GroupSpec::model for kComposed, else the technique's.
Model model_of(const GroupSpec& g);
/// The composition the world runs for a force-model group: GroupSpec::compose for kComposed,
/// else the preset the technique names (empty for craft, kinematic and tile techniques).
Composition composition_of(const GroupSpec& g);

/// Control state of a player craft for one tick. The codec clamps untrusted values into range;
/// the world clamps again (NaN becomes 0) so its invariants never depend on the caller.
struct PlayerInput {
  real turn = 0;      ///< -1 full left .. +1 full right (right fires the port thruster, T10)
  real throttle = 0;  ///< 0 .. 1 fraction of thrust
};

}  // namespace flockstep::sim
