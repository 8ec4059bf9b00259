#include "codec/group_fields.hpp"

namespace flockstep::codec {

namespace {

// One line per field: name and the member path. The lambdas are captureless, so they convert to
// the plain function pointers in GroupField (no allocation, usable from a constexpr table).
#define FLOCKSTEP_FIELD(NAME, UNIT, LIMIT, DOC, PATH)                                    \
  GroupField {                                                                           \
    NAME, [](const sim::GroupSpec& g) -> double { return static_cast<double>(g.PATH); }, \
        [](sim::GroupSpec& g, double v) { g.PATH = v; }, false, UNIT, LIMIT, DOC         \
  }
#define FLOCKSTEP_BOOL_FIELD(NAME, UNIT, LIMIT, DOC, PATH)                           \
  GroupField {                                                                       \
    NAME, [](const sim::GroupSpec& g) -> double { return g.PATH ? 1.0 : 0.0; },      \
        [](sim::GroupSpec& g, double v) { g.PATH = v != 0; }, true, UNIT, LIMIT, DOC \
  }
#define FLOCKSTEP_INT_FIELD(NAME, UNIT, LIMIT, DOC, PATH)                                       \
  GroupField {                                                                                  \
    NAME, [](const sim::GroupSpec& g) -> double { return static_cast<double>(g.PATH); },        \
        [](sim::GroupSpec& g, double v) {                                                       \
          /* out of range or NaN becomes -1, which every int field's validation rejects */      \
          g.PATH = v >= -2147483648.0 && v <= 2147483647.0 ? static_cast<std::int32_t>(v) : -1; \
        },                                                                                      \
        false, UNIT, LIMIT, DOC                                                                 \
  }

const GroupField kFields[] = {
    FLOCKSTEP_FIELD("max_speed", "m/s", "> 0", "top speed", max_speed),
    FLOCKSTEP_FIELD(
        "max_force", "N", "> 0",
        "limit on the combined steering force (steering model: max_force / mass is the acceleration budget)",
        max_force),
    FLOCKSTEP_FIELD("mass", "kg", "> 0", "body mass", mass),
    FLOCKSTEP_FIELD("radius", "m", "> 0", "body radius (obstacle projection, captures, collision avoidance)", radius),
    FLOCKSTEP_FIELD("craft.mass", "kg", ">= 0.001", "craft mass (T10)", craft.mass),
    FLOCKSTEP_FIELD("craft.inertia", "kg m^2", ">= 0.001", "moment of inertia about the centre of gravity",
                    craft.inertia),
    FLOCKSTEP_FIELD("craft.length", "m", "> 0", "bow-to-stern length; the bow thrusters act at half of it",
                    craft.length),
    FLOCKSTEP_FIELD("craft.thrust", "N", ">= 0", "constant forward thrust", craft.thrust),
    FLOCKSTEP_FIELD("craft.max_steering_force", "N", ">= 0", "bow thruster force at full deflection",
                    craft.max_steering_force),
    FLOCKSTEP_FIELD("craft.linear_drag", "N s/m", ">= 0", "linear drag coefficient", craft.linear_drag),
    FLOCKSTEP_FIELD("craft.lateral_drag", "N s/m", ">= 0", "extra drag on sideways velocity (the keel)",
                    craft.lateral_drag),
    FLOCKSTEP_FIELD("craft.angular_drag", "N m s", ">= 0", "angular drag coefficient", craft.angular_drag),
    FLOCKSTEP_FIELD("layers.walls", "", ">= 0", "preset vehicles: weight of wall_avoid (0 = off)", layers.walls),
    FLOCKSTEP_FIELD("layers.obstacles", "", ">= 0", "preset vehicles: weight of obstacle_avoid (0 = off)",
                    layers.obstacles),
    FLOCKSTEP_FIELD("layers.flee_players", "", ">= 0", "preset prey: weight of flee_players (0 = off)",
                    layers.flee_players),
    FLOCKSTEP_FIELD("layers.primary", "", ">= 0", "preset vehicles: weight of the technique's own behaviour",
                    layers.primary),
    FLOCKSTEP_FIELD("flock.neighbour_radius", "m", "> 0, <= grid_cell", "who counts as a neighbour",
                    flock.neighbour_radius),
    FLOCKSTEP_FIELD("flock.fov_deg", "deg", "(0, 360]", "total field of view (T32)", flock.fov_deg),
    FLOCKSTEP_FIELD("flock.w_separation", "", ">= 0", "weight of separation", flock.w_separation),
    FLOCKSTEP_FIELD("flock.w_alignment", "", ">= 0", "weight of alignment", flock.w_alignment),
    FLOCKSTEP_FIELD("flock.w_cohesion", "", ">= 0", "weight of cohesion", flock.w_cohesion),
    FLOCKSTEP_FIELD("flock.w_wander", "", ">= 0", "weight of wander (keeps lone boids moving)", flock.w_wander),
    FLOCKSTEP_FIELD("flock.w_cruise", "", ">= 0",
                    "weight of the cruise term (cruise speed along the heading minus velocity)", flock.w_cruise),
    FLOCKSTEP_FIELD("flock.cruise_fraction", "", "0..1", "cruise speed as a fraction of max_speed",
                    flock.cruise_fraction),
    FLOCKSTEP_FIELD("wander.radius", "m", "> 0", "radius of the wander circle", wander.radius),
    FLOCKSTEP_FIELD("wander.distance", "m", ">= 0", "distance of the circle ahead of the body", wander.distance),
    FLOCKSTEP_FIELD("wander.jitter_per_second", "m/s", ">= 0", "largest target displacement per second per axis",
                    wander.jitter_per_second),
    FLOCKSTEP_FIELD("detection.min_box_length", "m", "> 0", "detection box length at rest (grows with speed)",
                    detection.min_box_length),
    FLOCKSTEP_FIELD("detection.box_width", "m", ">= 0", "box width; 0 = the body's diameter", detection.box_width),
    FLOCKSTEP_FIELD("detection.braking_weight", "", ">= 0",
                    "weight of the braking force (0.2: Buckland's code; the slides' 2.0 stalls seekers)",
                    detection.braking_weight),
    FLOCKSTEP_BOOL_FIELD("detection.seed_literal", "", "true/false",
                         "use the slides' literal lateral force (documented erratum)", detection.seed_literal),
    FLOCKSTEP_FIELD("feelers.length", "m", "> 0", "straight-ahead feeler length", feelers.length),
    FLOCKSTEP_FIELD("feelers.side_length", "m", "> 0", "side feeler length", feelers.side_length),
    FLOCKSTEP_FIELD("feelers.side_angle", "rad", "0..pi/2", "side feeler angle from the heading", feelers.side_angle),
    FLOCKSTEP_FIELD("hide.gap", "m", ">= 0", "clearance between obstacle surface and hiding spot", hide.gap),
    FLOCKSTEP_FIELD("hide.deceleration", "", "> 0", "arrive deceleration to the spot", hide.deceleration),
    FLOCKSTEP_FIELD("hide.panic_distance", "m", ">= 0", "evade instead of hiding when the hunter is closer (0 = off)",
                    hide.panic_distance),
    FLOCKSTEP_FIELD("hide.seen_within_s", "s", "any", "hide only if the hunter was seen this recently (< 0 = always)",
                    hide.seen_within_s),
    FLOCKSTEP_FIELD("panic_range", "m", ">= 0", "prey flee players closer than this (0 = never); flee's range",
                    panic_range),
    FLOCKSTEP_FIELD("arrive_deceleration", "", ">= 1", "T66 DECELERATION of arrive-based presets", arrive_deceleration),
    FLOCKSTEP_FIELD("capture_radius", "m", ">= 0", "pursuers capture inside this distance", capture_radius),
    FLOCKSTEP_FIELD("los_tolerance", "", "[0, 1)", "T21 dead band: sine of the half-angle", los_tolerance),
    FLOCKSTEP_FIELD("intercept_max_prediction", "s", "> 0", "T23 cap on the time to close", intercept_max_prediction),
    FLOCKSTEP_FIELD("waypoint_seek_distance", "m", "> 0", "T72 switch to the next waypoint inside this distance",
                    waypoint_seek_distance),
    FLOCKSTEP_FIELD("heading_deg", "deg", "finite", "straight: heading, CCW from +x; ray_avoid: initial heading",
                    heading_deg),
    FLOCKSTEP_FIELD("swerve_after_s", "s", ">= 0", "straight: time alive before the one swerve", swerve_after_s),
    FLOCKSTEP_FIELD("swerve_deg", "deg", "-360..360", "straight: the swerve (0 = none)", swerve_deg),
    FLOCKSTEP_INT_FIELD("fly.min_burst_ticks", "ticks", ">= 1", "shortest random burst", fly.min_burst_ticks),
    FLOCKSTEP_INT_FIELD("fly.max_burst_ticks", "ticks", ">= fly.min_burst_ticks", "longest random burst",
                        fly.max_burst_ticks),
    FLOCKSTEP_FIELD("mine.tracking_distance", "m", "> 0", "the mine homes inside this radius", mine.tracking_distance),
    FLOCKSTEP_FIELD("mine.near_noise_chance", "", "0..1", "per-tick noise chance inside the radius",
                    mine.near_noise_chance),
    FLOCKSTEP_FIELD("mine.far_noise_chance", "", "0..1", "per-tick noise chance outside", mine.far_noise_chance),
    FLOCKSTEP_FIELD("kinematic_max_rotation", "rad/s", ">= 0", "kinematic wander's largest rotation",
                    kinematic_max_rotation),
    FLOCKSTEP_INT_FIELD("rays.config", "", "0..3", "0 single, 1 whiskers, 2 parallel (corner trap), 3 fan",
                        rays.config),
    FLOCKSTEP_BOOL_FIELD("rays.corner_remedy", "", "true/false", "T60 remedies: adaptive fan angle and the winner ray",
                         rays.corner_remedy),
    FLOCKSTEP_FIELD("rays.lookahead", "m", "> 0", "main ray length", rays.lookahead),
    FLOCKSTEP_FIELD("rays.whisker_length", "m", "> 0", "whisker length", rays.whisker_length),
    FLOCKSTEP_FIELD("rays.side_angle", "rad", "0..pi/2", "side ray angle", rays.side_angle),
    FLOCKSTEP_FIELD("rays.parallel_offset", "m", ">= 0", "parallel rays' lateral offset", rays.parallel_offset),
    FLOCKSTEP_FIELD("rays.avoid_distance", "m", "> radius", "seek target offset from the hit surface",
                    rays.avoid_distance),
    FLOCKSTEP_FIELD("tile_speed", "tiles/s", "(0, tick_rate_hz]", "tile steps per second", tile_speed),
    FLOCKSTEP_FIELD("chase_range", "m", ">= 0", "tile_patrol breaks off to chase inside this distance (0 = never)",
                    chase_range),
    FLOCKSTEP_INT_FIELD("view_model", "", "0..2",
                        "bourg_flock: 0 wide (270 deg), 1 limited (180 deg), 2 narrow (45 deg)", view_model),
    FLOCKSTEP_BOOL_FIELD("leader_unit", "", "true/false",
                         "bourg_flock: the lowest-id unit leads (LOS chase) and pulls the others", leader_unit),
    FLOCKSTEP_BOOL_FIELD("interceptor_unit", "", "true/false", "bourg_flock: the second-lowest-id unit intercepts",
                         interceptor_unit),
    FLOCKSTEP_BOOL_FIELD("flocking", "", "true/false", "bourg_flock: followers flock (off: they fly straight on)",
                         flocking),
    FLOCKSTEP_BOOL_FIELD("avoid_obstacles", "", "true/false",
                         "bourg_flock: the T36 obstacle rule (off: only the push-out rule keeps units out of rocks)",
                         avoid_obstacles),
};

#undef FLOCKSTEP_FIELD
#undef FLOCKSTEP_BOOL_FIELD
#undef FLOCKSTEP_INT_FIELD

}  // namespace

std::span<const GroupField> group_fields() { return kFields; }

const GroupField* find_group_field(std::string_view name) {
  for (const GroupField& f : kFields)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

/// "behaviors[K].field" -> K and field; false if the path has another shape.
bool split_behavior_path(std::string_view path, std::size_t& index, std::string_view& field) {
  constexpr std::string_view kPrefix = "behaviors[";
  if (path.substr(0, kPrefix.size()) != kPrefix) return false;
  const std::size_t close = path.find("].", kPrefix.size());
  if (close == std::string_view::npos || close == kPrefix.size() || close - kPrefix.size() > 2) return false;
  index = 0;
  for (std::size_t c = kPrefix.size(); c < close; ++c) {
    if (path[c] < '0' || path[c] > '9') return false;
    index = index * 10 + static_cast<std::size_t>(path[c] - '0');
  }
  field = path.substr(close + 2);
  return true;
}

}  // namespace

ParamKind group_param_kind(const sim::GroupSpec& g, std::string_view path) {
  if (const GroupField* f = find_group_field(path)) return f->is_bool ? ParamKind::kBool : ParamKind::kNumber;
  if (g.technique != sim::Technique::kComposed) return ParamKind::kUnknown;
  if (sim::find_composition_field(path)) return ParamKind::kNumber;
  std::size_t k = 0;
  std::string_view field;
  if (!split_behavior_path(path, k, field) || k >= g.compose.behaviors.size()) return ParamKind::kUnknown;
  const sim::BehaviorField* bf = sim::find_behavior_field(field);
  if (!bf) return ParamKind::kUnknown;
  return bf->is_bool ? ParamKind::kBool : ParamKind::kNumber;
}

bool set_group_param(sim::GroupSpec& g, std::string_view path, double value) {
  if (const GroupField* f = find_group_field(path)) {
    f->set(g, value);
    return true;
  }
  if (g.technique != sim::Technique::kComposed) return false;
  if (const sim::CompositionField* cf = sim::find_composition_field(path)) {
    cf->set(g.compose, value);
    return true;
  }
  std::size_t k = 0;
  std::string_view field;
  if (!split_behavior_path(path, k, field) || k >= g.compose.behaviors.size()) return false;
  const sim::BehaviorField* bf = sim::find_behavior_field(field);
  if (!bf) return false;
  bf->set(g.compose.behaviors[k], value);
  return true;
}

const char* pattern_name(sim::PatternKind k) {
  switch (k) {
    case sim::PatternKind::kSquare: return "square";
    case sim::PatternKind::kZigZag: return "zigzag";
    case sim::PatternKind::kArbitrary: return "arbitrary";
  }
  return "square";
}

bool parse_pattern(std::string_view name, sim::PatternKind& out) {
  if (name == "square") out = sim::PatternKind::kSquare;
  else if (name == "zigzag") out = sim::PatternKind::kZigZag;
  else if (name == "arbitrary") out = sim::PatternKind::kArbitrary;
  else return false;
  return true;
}

}  // namespace flockstep::codec
