/// \file kinematic.cpp
/// T37-T40 kinematic seek, flee, arrive and wander (catalog Part E).
#include "flockstep/behavior/kinematic.hpp"

namespace flockstep::behavior {

KinematicSteeringOutput kinematic_seek(const Static& character, Vec2 target, const KinematicSeekParams& p) {
  // normalized(0) = 0, so standing on the target yields the zero output (no NaN).
  return {math::normalized(target - character.position) * p.max_speed, 0};
}

KinematicSteeringOutput kinematic_flee(const Static& character, Vec2 target, const KinematicSeekParams& p) {
  return {math::normalized(character.position - target) * p.max_speed, 0};
}

KinematicSteeringOutput kinematic_arrive(const Static& character, Vec2 target, const KinematicArriveParams& p) {
  const Vec2 offset = target - character.position;
  // Strictly inside the radius of satisfaction: stand still (the "no steering" path).
  if (math::length_sq(offset) < p.radius * p.radius) return {};
  // Dividing by time_to_target asks to close the gap in that time; truncate keeps direction.
  return {math::truncate(offset / p.time_to_target, p.max_speed), 0};
}

KinematicSteeringOutput kinematic_wander(const Static& character, const KinematicWanderParams& p, Rng& rng) {
  return {math::as_vector(character.orientation) * p.max_speed, rng.binomial() * p.max_rotation};
}

void kinematic_integrate(Static& s, const KinematicSteeringOutput& out, real dt, bool face_velocity) {
  s.position += out.velocity * dt;
  real theta = s.orientation;
  if (face_velocity) theta = math::new_orientation(theta, out.velocity);
  s.orientation = math::wrap_angle(theta + out.rotation * dt);
}

}  // namespace flockstep::behavior
