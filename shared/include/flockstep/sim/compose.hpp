#pragma once
/// \file compose.hpp
/// Behaviour as data: what a group of agents does is a *composition*, not a name:
///   - a movement model (how steering becomes motion): the slides' point-mass vehicle (T08),
///     Millington's linear + angular steering (T01, T04/T05), Bourg's rigid-body craft (T10),
///     kinematic (T03) or a tile walker;
///   - for the two force models, a list of steering behaviours, each with its parameters and its
///     target, and a combiner (T77-T81, T61/T62) that turns their outputs into one;
///   - output filters: heading smoothing (T82) and facing smoothing (T02).
/// The world runs a composition as batches: for each group present in a task, one kernel per
/// behaviour over that group's agents (structure of arrays), then the combiner per agent. Each
/// kernel calls the library function of its technique; nothing here re-implements one.
///
/// The older single-name groups ("technique": "flock", "chase", ...) are presets of this form:
/// preset_behaviors() expands them into the same layers the world always ran (walls, obstacles,
/// fleeing players, then the technique, in a T79 running sum), so their results are unchanged.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flockstep/math/scalar.hpp"
#include "flockstep/math/vec2.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// How a group's agents move.
enum class Model : std::uint8_t {
  kVehicle = 0,  ///< point mass steered by forces, N (T08); behaviours + combiner
  kSteering,  ///< Millington kinematic body steered by linear + angular accelerations (T01, T05); behaviours + combiner
  kCraft,     ///< Bourg's rigid body with bow thrusters (T10); one controller technique
  kKinematic,  ///< velocity set directly (T03); one controller technique
  kTile,       ///< tile by tile on the scenario's tile map; one controller technique
  kCount
};

/// One steering behaviour of a vehicle or steering composition. Vehicle behaviours return a
/// force (N), steering behaviours an acceleration (m/s^2, rad/s^2); see behavior_info().
enum class BehaviorType : std::uint8_t {
  // ---- vehicle (slides / Buckland forces) ----
  kWallAvoid = 0,    ///< T75 three feelers against walls and solid borders
  kObstacleAvoid,    ///< T73 detection box against circular obstacles
  kFleePlayers,      ///< T65 flee the nearest player inside `range` (prey's panic layer)
  kFlock,            ///< T76 slides' separation + alignment + cohesion (T31, T32 field of view), cruise, wander
  kSeek,             ///< T64 seek the target (or goal)
  kFlee,             ///< T65 flee the target inside `range` (0 = always)
  kArrive,           ///< T66 arrive at the target (or goal) with `deceleration`
  kPursue,           ///< T67 pursue with the dead-ahead shortcut
  kEvade,            ///< T68 evade
  kOffsetPursuit,    ///< T69 hold `offset` in the leader's frame
  kInterpose,        ///< T70 get between the target and the leader
  kWander,           ///< T71 jittered circle
  kFollowWaypoints,  ///< T72 seek each waypoint of `path`, arrive at the last
  kHide,             ///< T74 hide behind obstacles from the target
  // ---- steering (Millington accelerations) ----
  kDynamicSeek,      ///< T42
  kDynamicFlee,      ///< T43
  kDynamicArrive,    ///< T44
  kAlign,            ///< T45 match the target's orientation
  kVelocityMatch,    ///< T46 match the target's velocity
  kDynamicPursue,    ///< T47 with max prediction
  kDynamicEvade,     ///< T48
  kFace,             ///< T49 face the target
  kLookWhereGoing,   ///< T50
  kDynamicWander,    ///< T51
  kFollowPath,       ///< T52 chase the rabbit on `path`; T53 with predict_time > 0 (T54 parameterised path)
  kSeparation,       ///< T55 inverse-square separation from every agent within `range`
  kAttraction,       ///< T56 separation with a negative decay coefficient
  kConeAvoid,        ///< T57 naive cone check
  kCollisionAvoid,   ///< T58 time of closest approach
  kMillingtonFlock,  ///< T63 flocking as a weighted blend of separation, cohesion, alignment
  kCount
};

/// How the outputs of a composition's behaviours become one steering output.
enum class Combiner : std::uint8_t {
  kRunningSum = 0,  ///< T79 weighted truncated running sum in list order (T09 layers): stops evaluating once full
  kBlend,           ///< T77 (vehicle) / T61 (steering) weighted blend, truncated / clipped once at the end
  kPriority,        ///< T78 the first behaviour whose weighted output exceeds epsilon wins
  kGrouped,         ///< T80 blend within each `priority` group, the first non-zero group wins
  kDither,          ///< T81 prioritised dithering: each considered with its `probability`, running sum
  kUrgency,         ///< T62 dynamic weights: base weight * (urgency / max urgency)^sharpness, then blend
  kCount
};

/// Largest number of behaviours in one composition (per-agent scratch is sized by it).
inline constexpr std::int32_t kMaxBehaviors = 8;
/// Largest T80 priority group index + 1.
inline constexpr std::int32_t kMaxPriorityGroups = 4;

/// One behaviour of a composition and everything it needs. Which fields a behaviour reads is in
/// behavior_info() (and docs/techniques.md); the others are ignored.
struct BehaviorSpec {
  BehaviorType type = BehaviorType::kSeek;
  real weight = 1;            ///< multiplier in the combiner; 0 switches the behaviour off (T09). [Limit: 0..1000]
  std::int32_t priority = 0;  ///< T80 priority group, evaluated in increasing order. [Limit: 0..kMaxPriorityGroups-1]
  real probability = 1;       ///< T81 chance per tick of being considered. [Limit: 0..1]
  std::int32_t target_group = -1;  ///< act on the nearest live agent of this group; -1 = the nearest player
  std::int32_t leader_group = -1;  ///< offset pursuit, interpose: the group whose lowest-id agent leads
  std::int32_t path = -1;          ///< follow_waypoints, follow_path: index into Scenario::paths
  Vec2 goal{0, 0};                 ///< fixed target point, m; (0, 0) = none (use the target)
  real range = 0;  ///< flee panic range / neighbourhood radius, m (0 = the behaviour's default). [Limit: 0..grid_cell
                   ///< for neighbour queries]
  real deceleration = 2;      ///< T66 DECELERATION (vehicle arrive, offset pursuit, interpose). [Limit: >= 1]
  real slow_radius = 2.5;     ///< T44/T45 braking radius, m (or rad for align/face). [Limit: > 0]
  real target_radius = 0.05;  ///< T44/T45 tolerance, m (or rad). [Limit: >= 0]
  real time_to_target = 0.1;  ///< T44-T46 time constant, s. [Limit: > 0]
  real max_prediction = 1;    ///< T47/T48 look-ahead cap, s; T58 time horizon, s. [Limit: > 0]
  real decay = 10;            ///< T55/T56 inverse-square coefficient, m^3/s^2 (attraction uses -decay). [Limit: > 0]
  real cone_deg = 30;         ///< T57 cone half-angle, degrees. [Limit: 0..180]
  Vec2 offset{-2, 0};         ///< T69 slot in the leader's frame (x forward), m
  real path_offset = 1.5;     ///< T52 how far ahead on the path the rabbit runs, m
  real predict_time = 0;      ///< T53 predictive path following look-ahead, s (0 = plain T52). [Limit: >= 0]
  bool arrive = false;        ///< T47: pursue with arrive instead of seek
};

/// Output filters applied after integration.
struct FilterSpec {
  /// T82 heading smoothing over the last N velocity directions (vehicle model; 0 = off). The
  /// velocity is untouched; the heading the agent shows and steers its field of view with is the
  /// smoothed one. [Limit: 0..16]
  std::int32_t heading_samples = 0;
  /// T02 facing smoothing for the steering model: each tick the facing turns this fraction of
  /// the way toward the direction of motion (0 = off: the facing follows the angular output).
  /// [Limit: 0..1]
  real facing_fraction = 0;
};

/// The composition of a force-model group (kVehicle or kSteering).
struct Composition {
  std::vector<BehaviorSpec> behaviors;  ///< in priority order. [Limit: 1..kMaxBehaviors]
  Combiner combiner = Combiner::kRunningSum;
  std::int32_t sharpness = 2;                  ///< T62 urgency exponent. [Limit: 0..8]
  real epsilon = 1e-3;                         ///< T78/T80 "non-zero" threshold on |output|. [Limit: >= 0]
  real max_rotation = 3.14159265358979323846;  ///< steering model: |rotation| clip, rad/s. [Limit: > 0]
  real max_angular = 20;  ///< clip on the combined angular acceleration (steering model), rad/s^2. [Limit: > 0]
  FilterSpec filters;
  /// Steering model integrator: 0 = Newton-Euler-1 with speed clip (T05), 1 = the exact
  /// constant-acceleration update (T04) followed by the same clips. [Limit: 0..1]
  std::int32_t integration = 0;
  /// Steering model actuator between the combined acceleration and the body: 0 = ideal (any
  /// acceleration), 1 = car (T07: force only along the heading, bounded drive, brake and torque
  /// from max_force). [Limit: 0..1]
  std::int32_t actuation = 0;
};

// ---- names and the self-description tables ----------------------------------------------

const char* model_name(Model m);
bool parse_model(std::string_view name, Model& out);
const char* behavior_name(BehaviorType t);
bool parse_behavior(std::string_view name, BehaviorType& out);
const char* combiner_name(Combiner c);
bool parse_combiner(std::string_view name, Combiner& out);

/// One line on what a model or a combiner does (docs/techniques.md).
const char* model_summary(Model m);
const char* combiner_summary(Combiner c);

/// One numeric (or boolean 0/1) field of BehaviorSpec, by its scenario-file name.
struct BehaviorField {
  std::string_view name;
  std::string_view unit;
  std::string_view limit;  ///< human-readable valid range
  std::string_view doc;
  double (*get)(const BehaviorSpec&);
  void (*set)(BehaviorSpec&, double);
  bool is_bool = false;
  bool is_int = false;
};
/// Every numeric field of BehaviorSpec except type (goal and offset appear as goal.x/.y, offset.x/.y).
std::span<const BehaviorField> behavior_fields();
const BehaviorField* find_behavior_field(std::string_view name);

/// One numeric field of Composition itself (combiner parameters and filters), by file name.
struct CompositionField {
  std::string_view name;
  std::string_view unit;
  std::string_view limit;
  std::string_view doc;
  double (*get)(const Composition&);
  void (*set)(Composition&, double);
  bool is_int = false;
};
/// sharpness, epsilon, max_angular, max_rotation, filters.heading_samples, filters.facing_fraction.
std::span<const CompositionField> composition_fields();
const CompositionField* find_composition_field(std::string_view name);

/// What a behaviour is, for validation, the technique list and docs/techniques.md.
struct BehaviorInfo {
  BehaviorType type;
  std::string_view name;    ///< scenario-file name
  std::string_view ids;     ///< catalog IDs carried, e.g. "T52 T53 T54"
  Model model;              ///< the model whose compositions may use it
  std::string_view target;  ///< what it acts on ("target", "goal or target", "neighbours", "leader", "path", "none")
  std::string_view fields;  ///< space-separated BehaviorSpec fields it reads (besides weight/priority/probability)
  std::string_view group_fields;  ///< GroupSpec fields it reads (legacy parameters), space-separated
  std::string_view summary;       ///< one line
};
const BehaviorInfo& behavior_info(BehaviorType t);

/// Validate a composition for `model` within a scenario of `groups` groups and `paths` paths,
/// `grid_cell` m. Returns "" or a message naming the field under `prefix` ("groups[2]").
std::string validate_composition(const Composition& c, Model model, std::int32_t groups, std::int32_t paths,
                                 real grid_cell, const std::string& prefix);

}  // namespace flockstep::sim
