#include "codec/group_fields.hpp"

namespace flockstep::codec {

namespace {

// One line per field: name and the member path. The lambdas are captureless, so they convert to
// the plain function pointers in GroupField (no allocation, usable from a constexpr table).
#define FLOCKSTEP_FIELD(NAME, PATH)                                                   \
  GroupField {                                                                        \
    NAME, [](const sim::GroupSpec& g) -> double { return static_cast<double>(g.PATH); }, \
        [](sim::GroupSpec& g, double v) { g.PATH = v; }, false                        \
  }
#define FLOCKSTEP_BOOL_FIELD(NAME, PATH)                                              \
  GroupField {                                                                        \
    NAME, [](const sim::GroupSpec& g) -> double { return g.PATH ? 1.0 : 0.0; },       \
        [](sim::GroupSpec& g, double v) { g.PATH = v != 0; }, true                    \
  }
#define FLOCKSTEP_INT_FIELD(NAME, PATH)                                               \
  GroupField {                                                                        \
    NAME, [](const sim::GroupSpec& g) -> double { return static_cast<double>(g.PATH); }, \
        [](sim::GroupSpec& g, double v) {                                              \
          /* out of range or NaN becomes -1, which every int field's validation rejects */ \
          g.PATH = v >= -2147483648.0 && v <= 2147483647.0 ? static_cast<std::int32_t>(v) : -1; \
        }, false                                                                       \
  }

const GroupField kFields[] = {
    FLOCKSTEP_FIELD("max_speed", max_speed),
    FLOCKSTEP_FIELD("max_force", max_force),
    FLOCKSTEP_FIELD("mass", mass),
    FLOCKSTEP_FIELD("radius", radius),
    FLOCKSTEP_FIELD("craft.mass", craft.mass),
    FLOCKSTEP_FIELD("craft.inertia", craft.inertia),
    FLOCKSTEP_FIELD("craft.length", craft.length),
    FLOCKSTEP_FIELD("craft.thrust", craft.thrust),
    FLOCKSTEP_FIELD("craft.max_steering_force", craft.max_steering_force),
    FLOCKSTEP_FIELD("craft.linear_drag", craft.linear_drag),
    FLOCKSTEP_FIELD("craft.lateral_drag", craft.lateral_drag),
    FLOCKSTEP_FIELD("craft.angular_drag", craft.angular_drag),
    FLOCKSTEP_FIELD("layers.walls", layers.walls),
    FLOCKSTEP_FIELD("layers.obstacles", layers.obstacles),
    FLOCKSTEP_FIELD("layers.flee_players", layers.flee_players),
    FLOCKSTEP_FIELD("layers.primary", layers.primary),
    FLOCKSTEP_FIELD("flock.neighbour_radius", flock.neighbour_radius),
    FLOCKSTEP_FIELD("flock.fov_deg", flock.fov_deg),
    FLOCKSTEP_FIELD("flock.w_separation", flock.w_separation),
    FLOCKSTEP_FIELD("flock.w_alignment", flock.w_alignment),
    FLOCKSTEP_FIELD("flock.w_cohesion", flock.w_cohesion),
    FLOCKSTEP_FIELD("flock.w_wander", flock.w_wander),
    FLOCKSTEP_FIELD("flock.w_cruise", flock.w_cruise),
    FLOCKSTEP_FIELD("flock.cruise_fraction", flock.cruise_fraction),
    FLOCKSTEP_FIELD("wander.radius", wander.radius),
    FLOCKSTEP_FIELD("wander.distance", wander.distance),
    FLOCKSTEP_FIELD("wander.jitter_per_second", wander.jitter_per_second),
    FLOCKSTEP_FIELD("detection.min_box_length", detection.min_box_length),
    FLOCKSTEP_FIELD("detection.box_width", detection.box_width),
    FLOCKSTEP_FIELD("detection.braking_weight", detection.braking_weight),
    FLOCKSTEP_BOOL_FIELD("detection.seed_literal", detection.seed_literal),
    FLOCKSTEP_FIELD("feelers.length", feelers.length),
    FLOCKSTEP_FIELD("feelers.side_length", feelers.side_length),
    FLOCKSTEP_FIELD("feelers.side_angle", feelers.side_angle),
    FLOCKSTEP_FIELD("hide.gap", hide.gap),
    FLOCKSTEP_FIELD("hide.deceleration", hide.deceleration),
    FLOCKSTEP_FIELD("hide.panic_distance", hide.panic_distance),
    FLOCKSTEP_FIELD("hide.seen_within_s", hide.seen_within_s),
    FLOCKSTEP_FIELD("panic_range", panic_range),
    FLOCKSTEP_FIELD("arrive_deceleration", arrive_deceleration),
    FLOCKSTEP_FIELD("capture_radius", capture_radius),
    FLOCKSTEP_FIELD("los_tolerance", los_tolerance),
    FLOCKSTEP_FIELD("intercept_max_prediction", intercept_max_prediction),
    FLOCKSTEP_FIELD("waypoint_seek_distance", waypoint_seek_distance),
    FLOCKSTEP_FIELD("heading_deg", heading_deg),
    FLOCKSTEP_FIELD("swerve_after_s", swerve_after_s),
    FLOCKSTEP_FIELD("swerve_deg", swerve_deg),
    FLOCKSTEP_INT_FIELD("fly.min_burst_ticks", fly.min_burst_ticks),
    FLOCKSTEP_INT_FIELD("fly.max_burst_ticks", fly.max_burst_ticks),
    FLOCKSTEP_FIELD("mine.tracking_distance", mine.tracking_distance),
    FLOCKSTEP_FIELD("mine.near_noise_chance", mine.near_noise_chance),
    FLOCKSTEP_FIELD("mine.far_noise_chance", mine.far_noise_chance),
    FLOCKSTEP_FIELD("kinematic_max_rotation", kinematic_max_rotation),
    FLOCKSTEP_INT_FIELD("rays.config", rays.config),
    FLOCKSTEP_BOOL_FIELD("rays.corner_remedy", rays.corner_remedy),
    FLOCKSTEP_FIELD("rays.lookahead", rays.lookahead),
    FLOCKSTEP_FIELD("rays.whisker_length", rays.whisker_length),
    FLOCKSTEP_FIELD("rays.side_angle", rays.side_angle),
    FLOCKSTEP_FIELD("rays.parallel_offset", rays.parallel_offset),
    FLOCKSTEP_FIELD("rays.avoid_distance", rays.avoid_distance),
    FLOCKSTEP_FIELD("tile_speed", tile_speed),
    FLOCKSTEP_FIELD("chase_range", chase_range),
    FLOCKSTEP_INT_FIELD("view_model", view_model),
    FLOCKSTEP_BOOL_FIELD("leader_unit", leader_unit),
    FLOCKSTEP_BOOL_FIELD("interceptor_unit", interceptor_unit),
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
