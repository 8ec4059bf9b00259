#include "flockstep/sim/compose.hpp"

#include <iterator>
#include <type_traits>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {
namespace {

constexpr const char* kModelNames[] = {"vehicle", "steering", "craft", "kinematic", "tile"};
static_assert(std::size(kModelNames) == static_cast<std::size_t>(Model::kCount));
constexpr const char* kCombinerNames[] = {"running_sum", "blend", "priority", "grouped", "dither", "urgency"};
static_assert(std::size(kCombinerNames) == static_cast<std::size_t>(Combiner::kCount));

using B = BehaviorType;
constexpr Model kV = Model::kVehicle;
constexpr Model kS = Model::kSteering;

// The one table of behaviours: name, catalog IDs, model, target, fields read, summary. The
// technique list (--list-techniques), docs/techniques.md, the scenario loader and validation
// all read it.
constexpr BehaviorInfo kBehaviors[] = {
    {B::kWallAvoid, "wall_avoid", "T75", kV, "walls", "", "feelers.length feelers.side_length feelers.side_angle",
     "three feelers; pushes away from the nearest wall (and solid borders) along its normal"},
    {B::kObstacleAvoid, "obstacle_avoid", "T73 T11", kV, "obstacles", "",
     "detection.min_box_length detection.box_width detection.braking_weight",
     "detection box ahead, lateral push and braking from the closest obstacle in it"},
    {B::kFleePlayers, "flee_players", "T65", kV, "nearest player", "range", "",
     "prey's panic layer: flee the nearest player closer than range (falls back to the group's panic_range)"},
    {B::kFlock, "flock", "T76 T31 T32 T71", kV, "neighbours", "",
     "flock.neighbour_radius flock.fov_deg flock.w_separation flock.w_alignment flock.w_cohesion flock.w_wander "
     "flock.w_cruise flock.cruise_fraction wander.radius wander.distance wander.jitter_per_second",
     "separation, alignment and cohesion over same-group neighbours in the field of view, cruise and wander"},
    {B::kSeek, "seek", "T64", kV, "goal or target", "target_group goal", "", "full speed toward the point"},
    {B::kFlee, "flee", "T65", kV, "target", "target_group range", "", "full speed away inside range (0 = always)"},
    {B::kArrive, "arrive", "T66", kV, "goal or target", "target_group goal deceleration", "",
     "seek that slows to stop on the point"},
    {B::kPursue, "pursue", "T67", kV, "target", "target_group", "", "seek the predicted position; dead-ahead shortcut"},
    {B::kEvade, "evade", "T68", kV, "target", "target_group", "", "flee the predicted position"},
    {B::kOffsetPursuit, "offset_pursuit", "T69", kV, "leader", "leader_group offset.x offset.y deceleration", "",
     "arrive at a slot in the leader's frame, led by the leader's predicted position"},
    {B::kInterpose, "interpose", "T70", kV, "target and leader", "target_group leader_group deceleration", "",
     "arrive at the midpoint of where the two will be"},
    {B::kWander, "wander", "T71 T13", kV, "none", "", "wander.radius wander.distance wander.jitter_per_second",
     "seek a point jittered on a circle ahead"},
    {B::kFollowWaypoints, "follow_waypoints", "T72", kV, "path", "path deceleration", "waypoint_seek_distance",
     "seek each waypoint in turn, arrive at the last of an open path"},
    {B::kHide, "hide", "T74", kV, "target", "target_group", "hide.gap hide.deceleration hide.panic_distance",
     "arrive at the hiding spot behind the nearest obstacle, evade when there is none"},
    {B::kDynamicSeek, "dynamic_seek", "T42", kS, "goal or target", "target_group goal", "max_force mass",
     "maximum acceleration toward the point"},
    {B::kDynamicFlee, "dynamic_flee", "T43", kS, "goal or target", "target_group goal", "max_force mass",
     "maximum acceleration away from the point"},
    {B::kDynamicArrive, "dynamic_arrive", "T44", kS, "goal or target",
     "target_group goal slow_radius target_radius time_to_target", "max_force mass max_speed",
     "velocity matching toward a target speed that falls linearly inside slow_radius"},
    {B::kAlign, "align", "T45", kS, "target", "target_group slow_radius target_radius time_to_target", "",
     "match the target's orientation (radii in rad)"},
    {B::kVelocityMatch, "velocity_match", "T46", kS, "target", "target_group time_to_target", "max_force mass",
     "match the target's velocity"},
    {B::kDynamicPursue, "dynamic_pursue", "T47", kS, "target", "target_group max_prediction arrive",
     "max_force mass max_speed", "seek (or arrive at) the target's position max_prediction ahead at most"},
    {B::kDynamicEvade, "dynamic_evade", "T48", kS, "target", "target_group max_prediction range", "max_force mass",
     "flee the target's predicted position while the target is closer than range (0 = always)"},
    {B::kFace, "face", "T49", kS, "goal or target", "target_group goal slow_radius target_radius time_to_target", "",
     "align with the direction to the point"},
    {B::kLookWhereGoing, "look_where_going", "T50", kS, "none", "slow_radius target_radius time_to_target", "",
     "align with the direction of motion"},
    {B::kDynamicWander, "dynamic_wander", "T51 T13", kS, "none", "range", "max_force mass",
     "face a point wandering on a circle ahead, full acceleration forward"},
    {B::kFollowPath, "follow_path", "T52 T53 T54", kS, "path", "path path_offset predict_time", "max_force mass",
     "seek the rabbit path_offset ahead of the nearest path parameter (predictive with predict_time > 0)"},
    {B::kSeparation, "separation", "T55", kS, "neighbours", "range decay", "max_force mass",
     "inverse-square push from every agent closer than range"},
    {B::kAttraction, "attraction", "T56", kS, "neighbours", "range decay target_group", "max_force mass",
     "inverse-square pull toward agents of target_group closer than range"},
    {B::kConeAvoid, "cone_avoid", "T57", kS, "neighbours", "range cone_deg", "max_force mass",
     "evade the closest agent inside the facing cone"},
    {B::kCollisionAvoid, "collision_avoid", "T58", kS, "neighbours", "range max_prediction", "max_force mass radius",
     "evade the agent with the earliest closest approach closer than twice the radius"},
    {B::kMillingtonFlock, "millington_flock", "T63 T31 T32", kS, "neighbours", "range", "max_force mass max_speed",
     "blend of separation, arrive at the centre of mass and velocity matching over same-group neighbours"},
};
static_assert(std::size(kBehaviors) == static_cast<std::size_t>(BehaviorType::kCount));

#define FLOCKSTEP_BFIELD(NAME, UNIT, LIMIT, DOC, PATH)                                                   \
  BehaviorField {                                                                                        \
    NAME, UNIT, LIMIT, DOC, [](const BehaviorSpec& b) -> double { return static_cast<double>(b.PATH); }, \
        [](BehaviorSpec& b, double v) { b.PATH = v; }, false, false                                      \
  }
#define FLOCKSTEP_BINT(NAME, UNIT, LIMIT, DOC, PATH)                                                     \
  BehaviorField {                                                                                        \
    NAME, UNIT, LIMIT, DOC, [](const BehaviorSpec& b) -> double { return static_cast<double>(b.PATH); }, \
        [](BehaviorSpec& b, double v) {                                                                  \
          b.PATH = v >= -2147483648.0 && v <= 2147483647.0 ? static_cast<std::int32_t>(v) : -2;          \
        },                                                                                               \
        false, true                                                                                      \
  }

const BehaviorField kFields[] = {
    FLOCKSTEP_BFIELD("weight", "", "0..1000", "multiplier in the combiner; 0 switches the behaviour off (T09)", weight),
    FLOCKSTEP_BINT("priority", "", "0..3", "T80 priority group, evaluated in increasing order", priority),
    FLOCKSTEP_BFIELD("probability", "", "0..1", "T81 chance per tick of being considered", probability),
    FLOCKSTEP_BINT("target_group", "group", "-1 or another group",
                   "acts on the nearest agent of this group (-1: nearest player)", target_group),
    FLOCKSTEP_BINT("leader_group", "group", "another group", "the group whose lowest-id agent leads", leader_group),
    FLOCKSTEP_BINT("path", "path", "an existing path", "index into the scenario's paths", path),
    FLOCKSTEP_BFIELD("goal.x", "m", "finite", "fixed target point, x ((0, 0) = none)", goal.x),
    FLOCKSTEP_BFIELD("goal.y", "m", "finite", "fixed target point, y", goal.y),
    FLOCKSTEP_BFIELD("range", "m", ">= 0; <= grid_cell for neighbour queries",
                     "panic range or neighbourhood radius (0 = default)", range),
    FLOCKSTEP_BFIELD("deceleration", "", ">= 1", "T66 DECELERATION tweak", deceleration),
    FLOCKSTEP_BFIELD("slow_radius", "m or rad", "> 0", "start braking inside this distance (angle for align/face)",
                     slow_radius),
    FLOCKSTEP_BFIELD("target_radius", "m or rad", ">= 0", "arrival tolerance", target_radius),
    FLOCKSTEP_BFIELD("time_to_target", "s", "> 0", "time constant of the velocity or rotation match", time_to_target),
    FLOCKSTEP_BFIELD("max_prediction", "s", "> 0", "look-ahead cap (T47/T48), time horizon (T58)", max_prediction),
    FLOCKSTEP_BFIELD("decay", "m^3/s^2", "> 0", "inverse-square coefficient (T55; T56 pulls with -decay)", decay),
    FLOCKSTEP_BFIELD("cone_deg", "deg", "0..180", "T57 cone half-angle", cone_deg),
    FLOCKSTEP_BFIELD("offset.x", "m", "finite", "T69 slot ahead (+) or behind (-) the leader", offset.x),
    FLOCKSTEP_BFIELD("offset.y", "m", "finite", "T69 slot left (+) or right (-) of the leader", offset.y),
    FLOCKSTEP_BFIELD("path_offset", "m", "finite", "T52 how far ahead on the path the rabbit runs", path_offset),
    FLOCKSTEP_BFIELD("predict_time", "s", ">= 0", "T53 predictive look-ahead (0 = plain T52)", predict_time),
    BehaviorField{"arrive", "", "true/false", "T47 pursue with arrive instead of seek",
                  [](const BehaviorSpec& b) -> double { return b.arrive ? 1.0 : 0.0; },
                  [](BehaviorSpec& b, double v) { b.arrive = v != 0; }, true, false},
};
#undef FLOCKSTEP_BFIELD
#undef FLOCKSTEP_BINT

#define FLOCKSTEP_CFIELD(NAME, UNIT, LIMIT, DOC, PATH, IS_INT)                                          \
  CompositionField {                                                                                    \
    NAME, UNIT, LIMIT, DOC, [](const Composition& c) -> double { return static_cast<double>(c.PATH); }, \
        [](Composition& c, double v) {                                                                  \
          if constexpr (IS_INT) c.PATH = v >= -1e9 && v <= 1e9 ? static_cast<std::int32_t>(v) : -1;     \
          else c.PATH = static_cast<std::remove_cvref_t<decltype(c.PATH)>>(v);                          \
        },                                                                                              \
        IS_INT                                                                                          \
  }
const CompositionField kCompositionFields[] = {
    FLOCKSTEP_CFIELD("sharpness", "", "0..8", "T62 urgency exponent (combiner urgency)", sharpness, true),
    FLOCKSTEP_CFIELD("epsilon", "N or m/s^2", ">= 0", "T78/T80 threshold for a non-zero output", epsilon, false),
    FLOCKSTEP_CFIELD("max_angular", "rad/s^2", "> 0", "clip on the combined angular acceleration (steering model)",
                     max_angular, false),
    FLOCKSTEP_CFIELD("max_rotation", "rad/s", "> 0", "clip on the rotation (steering model)", max_rotation, false),
    FLOCKSTEP_CFIELD("filters.heading_samples", "samples", "0..16", "T82 heading smoothing window (vehicle; 0 = off)",
                     filters.heading_samples, true),
    FLOCKSTEP_CFIELD("integration", "", "0..1",
                     "steering model: 0 Newton-Euler-1 (T05), 1 exact constant acceleration (T04)", integration, true),
    FLOCKSTEP_CFIELD("actuation", "", "0..1", "steering model: 0 ideal, 1 car actuator (T07)", actuation, true),
    FLOCKSTEP_CFIELD("filters.facing_fraction", "", "0..1", "T02 facing smoothing per tick (steering; 0 = off)",
                     filters.facing_fraction, false),
};
#undef FLOCKSTEP_CFIELD

template <class E, std::size_t N>
bool parse_name(std::string_view name, const char* const (&names)[N], E& out) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

const char* model_name(Model m) {
  const auto i = static_cast<std::size_t>(m);
  return i < std::size(kModelNames) ? kModelNames[i] : "unknown";
}
bool parse_model(std::string_view name, Model& out) { return parse_name(name, kModelNames, out); }
const char* model_summary(Model m) {
  switch (m) {
    case Model::kVehicle:
      return "point mass steered by forces: a = F/m, speed truncated to max_speed, heading along the velocity (T08)";
    case Model::kSteering:
      return "position, orientation, velocity and rotation driven by linear and angular accelerations, Newton-Euler-1 "
             "with speed clip (T01, T05; T04 and T07 as options)";
    case Model::kCraft: return "rigid body with constant thrust and bow thrusters, drag and a keel (T10)";
    case Model::kKinematic: return "the technique sets the velocity directly (T03)";
    case Model::kTile: return "moves between tile centres of the scenario's tile map, never into a blocked tile";
    default: return "";
  }
}
const char* combiner_summary(Combiner c) {
  switch (c) {
    case Combiner::kRunningSum:
      return "add weight * output in list order until the budget (max_force) is used up; later behaviours are not "
             "evaluated (T79, T09 layers)";
    case Combiner::kBlend:
      return "sum of weight * output, truncated to the budget once at the end (T77 forces, T61 accelerations)";
    case Combiner::kPriority:
      return "the first behaviour whose weighted output is longer than epsilon wins alone (T78)";
    case Combiner::kGrouped:
      return "blend within each priority group; the first group whose blend is longer than epsilon wins (T80)";
    case Combiner::kDither:
      return "walk the list; each behaviour is considered with its probability, then added as in running_sum (T81)";
    case Combiner::kUrgency:
      return "weights scaled by (|output| / largest |output|)^sharpness, then blended: from blending (0) toward "
             "arbitration (T62)";
    default: return "";
  }
}
const char* combiner_name(Combiner c) {
  const auto i = static_cast<std::size_t>(c);
  return i < std::size(kCombinerNames) ? kCombinerNames[i] : "unknown";
}
bool parse_combiner(std::string_view name, Combiner& out) { return parse_name(name, kCombinerNames, out); }
const BehaviorInfo& behavior_info(BehaviorType t) {
  const auto i = static_cast<std::size_t>(t);
  return kBehaviors[i < std::size(kBehaviors) ? i : 0];
}
const char* behavior_name(BehaviorType t) { return behavior_info(t).name.data(); }
bool parse_behavior(std::string_view name, BehaviorType& out) {
  for (const BehaviorInfo& b : kBehaviors) {
    if (b.name == name) {
      out = b.type;
      return true;
    }
  }
  return false;
}
std::span<const BehaviorField> behavior_fields() { return kFields; }
const BehaviorField* find_behavior_field(std::string_view name) {
  for (const BehaviorField& f : kFields)
    if (f.name == name) return &f;
  return nullptr;
}

std::span<const CompositionField> composition_fields() { return kCompositionFields; }
const CompositionField* find_composition_field(std::string_view name) {
  for (const CompositionField& f : kCompositionFields)
    if (f.name == name) return &f;
  return nullptr;
}

std::string validate_composition(const Composition& c, Model model, std::int32_t groups, std::int32_t paths,
                                 real grid_cell, const std::string& prefix) {
  auto bad = [&](const std::string& field, const char* why) { return prefix + "." + field + ": " + why; };
  if (model != Model::kVehicle && model != Model::kSteering)
    return bad("model", "a composition needs model 'vehicle' or 'steering'");
  if (c.behaviors.empty()) return bad("behaviors", "needs at least one behaviour");
  if (static_cast<std::int32_t>(c.behaviors.size()) > kMaxBehaviors) return bad("behaviors", "at most 8 behaviours");
  if (c.combiner >= Combiner::kCount) return bad("combiner", "unknown combiner");
  if (c.sharpness < 0 || c.sharpness > 8) return bad("sharpness", "must be in 0..8");
  if (!(c.epsilon >= 0) || !math::is_finite(c.epsilon)) return bad("epsilon", "must be >= 0");
  if (!(c.max_angular > 0) || !math::is_finite(c.max_angular)) return bad("max_angular", "must be > 0");
  if (!(c.max_rotation > 0) || !math::is_finite(c.max_rotation)) return bad("max_rotation", "must be > 0");
  if (c.integration < 0 || c.integration > 1) return bad("integration", "must be 0 (Newton-Euler-1) or 1 (exact)");
  if (c.actuation < 0 || c.actuation > 1) return bad("actuation", "must be 0 (ideal) or 1 (car)");
  if (c.filters.heading_samples < 0 || c.filters.heading_samples > 16)
    return bad("filters.heading_samples", "must be in 0..16");
  if (!(c.filters.facing_fraction >= 0 && c.filters.facing_fraction <= 1))
    return bad("filters.facing_fraction", "must be in 0..1");
  std::int32_t last_priority = 0;
  for (std::size_t k = 0; k < c.behaviors.size(); ++k) {
    const BehaviorSpec& b = c.behaviors[k];
    const std::string p = "behaviors[" + std::to_string(k) + "]";
    if (b.type >= BehaviorType::kCount) return bad(p + ".type", "unknown behaviour");
    const BehaviorInfo& info = behavior_info(b.type);
    if (info.model != model)
      return bad(p + ".type", model == Model::kVehicle ? "is a steering-model behaviour (use model 'steering')"
                                                       : "is a vehicle-model behaviour (use model 'vehicle')");
    if (!(b.weight >= 0 && b.weight <= 1000)) return bad(p + ".weight", "must be in 0..1000");
    if (b.priority < 0 || b.priority >= kMaxPriorityGroups) return bad(p + ".priority", "must be in 0..3");
    if (b.priority < last_priority) return bad(p + ".priority", "priorities must not decrease along the list");
    last_priority = b.priority;
    if (!(b.probability >= 0 && b.probability <= 1)) return bad(p + ".probability", "must be in 0..1");
    if (b.target_group < -1 || b.target_group >= groups) return bad(p + ".target_group", "must be -1 or name a group");
    const bool needs_leader = b.type == BehaviorType::kOffsetPursuit || b.type == BehaviorType::kInterpose;
    if (needs_leader && (b.leader_group < 0 || b.leader_group >= groups))
      return bad(p + ".leader_group", "must name a group");
    const bool needs_path = b.type == BehaviorType::kFollowWaypoints || b.type == BehaviorType::kFollowPath;
    if (needs_path && (b.path < 0 || b.path >= paths)) return bad(p + ".path", "must name an existing path");
    if (!math::is_finite(b.goal) || !math::is_finite(b.offset))
      return bad(p + ".goal", "goal and offset must be finite");
    if (!(b.range >= 0) || !math::is_finite(b.range)) return bad(p + ".range", "must be >= 0");
    const bool queries = b.type == BehaviorType::kSeparation || b.type == BehaviorType::kAttraction ||
                         b.type == BehaviorType::kConeAvoid || b.type == BehaviorType::kCollisionAvoid ||
                         b.type == BehaviorType::kMillingtonFlock;
    if (queries && b.range > grid_cell) return bad(p + ".range", "a neighbourhood must be <= grid_cell");
    if (b.deceleration < 1) return bad(p + ".deceleration", "must be >= 1");
    if (!(b.slow_radius > 0)) return bad(p + ".slow_radius", "must be > 0");
    if (!(b.target_radius >= 0)) return bad(p + ".target_radius", "must be >= 0");
    if (!(b.time_to_target > 0)) return bad(p + ".time_to_target", "must be > 0");
    if (!(b.max_prediction > 0)) return bad(p + ".max_prediction", "must be > 0");
    if (!(b.decay > 0)) return bad(p + ".decay", "must be > 0");
    if (!(b.cone_deg >= 0 && b.cone_deg <= 180)) return bad(p + ".cone_deg", "must be in 0..180");
    if (!math::is_finite(b.path_offset)) return bad(p + ".path_offset", "must be finite");
    if (!(b.predict_time >= 0) || !math::is_finite(b.predict_time)) return bad(p + ".predict_time", "must be >= 0");
  }
  return {};
}

Model model_of(const GroupSpec& g) {
  switch (g.technique) {
    case Technique::kComposed: return g.model;
    case Technique::kLosChase:
    case Technique::kIntercept:
    case Technique::kPattern:
    case Technique::kBourgFlock:
    case Technique::kPlayer: return Model::kCraft;
    case Technique::kTilePatrol:
    case Technique::kTileTrack:
    case Technique::kTileChase: return Model::kTile;
    case Technique::kStraight:
    case Technique::kFly:
    case Technique::kTrack:
    case Technique::kAntiTrack:
    case Technique::kVectorTrack:
    case Technique::kMine:
    case Technique::kKinematicSeek:
    case Technique::kKinematicFlee:
    case Technique::kKinematicArrive:
    case Technique::kKinematicWander:
    case Technique::kKinematicPattern:
    case Technique::kRayAvoid: return Model::kKinematic;
    default: return Model::kVehicle;
  }
}

Composition composition_of(const GroupSpec& g) {
  if (g.technique == Technique::kComposed) return g.compose;
  Composition c;
  if (model_of(g) != Model::kVehicle) return c;
  // The layers every vehicle has always run, highest priority first, in a T79 running sum:
  // walls (and solid borders), obstacles, prey fleeing players, then the technique.
  BehaviorSpec walls{.type = BehaviorType::kWallAvoid, .weight = g.layers.walls};
  BehaviorSpec obstacles{.type = BehaviorType::kObstacleAvoid, .weight = g.layers.obstacles};
  c.behaviors.push_back(walls);
  c.behaviors.push_back(obstacles);
  if (g.kind == AgentKind::kFlock || g.kind == AgentKind::kWanderer) {
    BehaviorSpec flee{.type = BehaviorType::kFleePlayers, .weight = g.layers.flee_players};
    flee.range = g.panic_range;
    c.behaviors.push_back(flee);
  }
  BehaviorSpec primary{};
  primary.weight = g.layers.primary;
  primary.target_group = g.target_group;
  primary.leader_group = g.leader_group;
  primary.path = g.path;
  primary.goal = g.goal;
  primary.deceleration = g.arrive_deceleration;
  primary.offset = g.offset;
  primary.range = g.panic_range;
  switch (g.technique) {
    case Technique::kFlock: primary.type = BehaviorType::kFlock; break;
    case Technique::kChase:
      primary.type = BehaviorType::kSeek;
      primary.goal = {};
      break;
    case Technique::kPursue: primary.type = BehaviorType::kPursue; break;
    case Technique::kOffsetPursuit: primary.type = BehaviorType::kOffsetPursuit; break;
    case Technique::kWander: primary.type = BehaviorType::kWander; break;
    case Technique::kPathFollow: primary.type = BehaviorType::kFollowWaypoints; break;
    case Technique::kHide: primary.type = BehaviorType::kHide; break;
    case Technique::kEvade: primary.type = BehaviorType::kEvade; break;
    case Technique::kSeek: primary.type = BehaviorType::kSeek; break;
    case Technique::kFlee: primary.type = BehaviorType::kFlee; break;
    case Technique::kArrive: primary.type = BehaviorType::kArrive; break;
    case Technique::kInterpose: primary.type = BehaviorType::kInterpose; break;
    default: return c;
  }
  c.behaviors.push_back(primary);
  return c;
}

}  // namespace flockstep::sim
