#include "flockstep/behavior/physics_pattern.hpp"

namespace flockstep::behavior {
namespace {

// Heading for pattern purposes is the velocity direction (sideslip counts, as in the seed).
// A craft at rest has no velocity direction, so fall back to its body axis instead of
// producing a zero vector (whose dot product would read as a 90 deg turn).
Vec2 pattern_heading(const CraftState& craft) {
  return math::is_zero(craft.velocity) ? craft_heading(craft) : math::normalized(craft.velocity);
}

void snapshot(PatternTracking& t, const CraftState& craft) {
  t.initial_position = craft.position;
  t.initial_heading = pattern_heading(craft);
  t.last_heading = t.initial_heading;
  t.d_heading_deg = 0;
  t.d_position = 0;
  t.signed_heading_deg = 0;
  t.steering_factor = 1;
}

void measure(PatternTracking& t, const CraftState& craft, const DoPatternParams& params) {
  const Vec2 h = pattern_heading(craft);
  if (params.signed_heading) {
    // Sum of small per-tick signed turns, so any total (>= 180 deg, several laps) is measurable.
    t.signed_heading_deg +=
        math::arctan2(math::cross(t.last_heading, h), math::dot(t.last_heading, h)) * math::kRadToDeg;
    t.d_heading_deg = t.signed_heading_deg < 0 ? -t.signed_heading_deg : t.signed_heading_deg;
  } else {
    // Seed: the arc cosine of h0 . h, in degrees. Rounding can push the dot of two unit vectors
    // past 1 (NaN from an unclamped arc cosine), hence the clamped version.
    t.d_heading_deg = math::arccos_clamped(math::dot(t.initial_heading, h)) * math::kRadToDeg;
  }
  t.last_heading = h;
  t.d_position = math::distance(craft.position, t.initial_position);
}

bool limit_reached(const PatternTracking& t, const PhysicsInstruction& in) {
  return (in.limit_position && t.d_position >= in.position_limit) ||
         (in.limit_heading && t.d_heading_deg >= in.heading_limit_deg);
}

}  // namespace

void initialize_pattern_tracking(PatternTracking& tracking, const CraftState& craft) {
  tracking.current_index = 0;
  snapshot(tracking, craft);
}

bool do_pattern(PatternTracking& tracking, std::span<const PhysicsInstruction> pattern, const CraftState& craft,
                const DoPatternParams& params, Thrusters& out) {
  const auto size = static_cast<std::int32_t>(pattern.size());
  out = Thrusters{false, false, 1, 1};
  if (tracking.current_index < 0) tracking.current_index = 0;
  if (tracking.current_index >= size) return false;  // already finished; caller re-initialises

  if (!params.seed_order) measure(tracking, craft, params);
  if (limit_reached(tracking, pattern[static_cast<std::size_t>(tracking.current_index)])) {
    snapshot(tracking, craft);  // the next instruction is relative to here
    ++tracking.current_index;
    if (tracking.current_index >= size) return false;
  }
  if (params.seed_order) measure(tracking, craft, params);

  const PhysicsInstruction& in = pattern[static_cast<std::size_t>(tracking.current_index)];
  real f = 1;
  if (in.limit_heading && params.taper) {
    // Ease the "steering wheel" out as the turn completes: the craft lags its controls, so full
    // force to the end overshoots. Never increase within an instruction (a wobble in the measured
    // heading must not re-tighten the turn), and keep the floor so the limit is actually reached.
    f = in.heading_limit_deg > 0 ? 1 - tracking.d_heading_deg / in.heading_limit_deg : 0;
    f = math::min(f, tracking.steering_factor);
  }
  f = math::clamp(f, params.min_steering_factor, 1);
  tracking.steering_factor = f;
  out = Thrusters{in.port_thruster, in.starboard_thruster, f, 1};
  return true;
}

bool run_repeating_pattern(PatternTracking& tracking, std::span<const PhysicsInstruction> pattern,
                           const CraftState& craft, const DoPatternParams& params, Thrusters& out) {
  if (do_pattern(tracking, pattern, craft, params, out)) return false;
  if (pattern.empty()) return false;
  initialize_pattern_tracking(tracking, craft);
  do_pattern(tracking, pattern, craft, params, out);
  return true;
}

}  // namespace flockstep::behavior
