/// \file intercept.cpp
/// T23 intercept and T24 feasibility fallback.
#include "flockstep/behavior/intercept.hpp"

namespace flockstep::behavior {

InterceptAim predict_intercept(const Mover& predator, const Mover& prey, const InterceptParams& params) {
  InterceptAim aim;
  const Vec2 closing = prey.velocity - predator.velocity;              // V_r (the seed's "closing velocity")
  const real range = math::length(prey.position - predator.position);  // |S_r|
  const real closing_speed = math::length(closing);
  // range / closing_speed > cap  <=>  closing_speed * cap < range (no division, no inf/inf).
  const bool capped = closing_speed * params.max_prediction < range;
  real t_c = closing_speed > 0 && !capped ? range / closing_speed : 0;
  if (closing_speed == 0 || capped || !math::is_finite(t_c)) {
    // Seed erratum: equal velocities divide by zero. The distance then never closes, so predict
    // as far as we are allowed (the cap) or, with no cap, just aim at the prey (plain LOS).
    aim.closing_guarded = true;
    t_c = math::is_finite(params.max_prediction) ? params.max_prediction : 0;
  }
  aim.time_to_close = t_c;
  aim.point = prey.position + prey.velocity * t_c;
  aim.mode = ChaseMode::intercept;
  return aim;
}

bool prey_behind(Vec2 predator_position, Vec2 predator_heading, Vec2 prey_position) {
  return math::dot(prey_position - predator_position, predator_heading) < 0;
}

InterceptAim intercept_aim(const Mover& predator, Vec2 predator_heading, const Mover& prey,
                           const InterceptParams& params, ChaseMode& mode) {
  if (!params.fallback_to_los) {
    mode = ChaseMode::intercept;
  } else {
    const real forward = math::dot(prey.position - predator.position, predator_heading);
    if (forward < 0) mode = ChaseMode::line_of_sight;
    else if (forward > 0) mode = ChaseMode::intercept;
    // forward == 0 (abeam, or coincident): keep the previous mode.
  }
  if (mode == ChaseMode::line_of_sight) {
    InterceptAim aim;
    aim.point = prey.position;
    aim.mode = ChaseMode::line_of_sight;
    return aim;
  }
  return predict_intercept(predator, prey, params);
}

Vec2 intercept_point(const Mover& predator, const Mover& prey, const InterceptParams& params) {
  ChaseMode mode = ChaseMode::intercept;
  return intercept_aim(predator, math::normalized(predator.velocity), prey, params, mode).point;
}

InterceptChaseOutput intercept_chase(const CraftState& predator, const Mover& prey, const InterceptParams& params,
                                     const LosChaseParams& los, ChaseMode& mode) {
  InterceptChaseOutput out;
  out.aim = intercept_aim(Mover{predator.position, predator.velocity}, craft_heading(predator), prey, params, mode);
  out.thrusters = los_chase_thrusters(predator, out.aim.point, los);
  return out;
}

}  // namespace flockstep::behavior
