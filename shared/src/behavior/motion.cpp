#include "flockstep/behavior/motion.hpp"

namespace flockstep::behavior {

Vec2 millington_as_vector(real theta) {
  const math::SinCos sc = math::sin_cos(theta);
  // The seed's printed formula lost its signs; this pairing is the reconstructed right-handed one
  // (catalog 0.1): theta = 0 looks down +z and positive theta turns toward -x.
  return {-sc.sin, sc.cos};
}

real millington_orientation_of(Vec2 xz) { return math::arctan2(-xz.x, xz.y); }

real smooth_facing(real orientation, Vec2 velocity, const FacingSmoothingParams& p) {
  if (math::is_zero(velocity)) return orientation;
  const real target = math::orientation_of(velocity);
  // wrap() picks the short way round, so 350 deg -> 10 deg passes through 0, not 180.
  const real error = math::wrap_angle(target - orientation);
  return math::wrap_angle(orientation + p.fraction * error);
}

void integrate_kinematic(Static& s, const KinematicSteeringOutput& out, real dt) {
  s.position += out.velocity * dt;
  s.orientation = math::wrap_angle(s.orientation + out.rotation * dt);
}

void integrate_exact(Kinematic& k, const SteeringOutput& s, real dt) {
  const real half_dt2 = 0.5 * dt * dt;
  k.position += k.velocity * dt + s.linear * half_dt2;
  k.orientation = math::wrap_angle(k.orientation + k.rotation * dt + s.angular * half_dt2);
  k.velocity += s.linear * dt;
  k.rotation += s.angular * dt;
}

void integrate_newton_euler(Kinematic& k, const SteeringOutput& s, const NewtonEulerParams& p, real dt) {
  // Position first, with the velocity from the start of the step (Millington's order).
  k.position += k.velocity * dt;
  k.orientation = math::wrap_angle(k.orientation + k.rotation * dt);
  // Drag uses the old velocity too, so one step depends only on the state at its start.
  k.velocity += (s.linear - k.velocity * p.linear_drag) * dt;
  k.rotation += (s.angular - k.rotation * p.angular_drag) * dt;
  // The speed clip belongs to the update, not to the behaviours (seed). Clip only when over.
  k.velocity = math::truncate(k.velocity, p.max_speed);
  k.rotation = math::clamp(k.rotation, -p.max_rotation, p.max_rotation);
}

Actuation actuate_ideal(const SteeringOutput& s, const InertiaParams& p) {
  return {s.linear * p.mass, s.angular * p.inertia};
}

Actuation actuate_car(const SteeringOutput& s, Vec2 heading, const CarActuatorParams& p) {
  const Vec2 h = math::normalized(heading);
  // Project the wanted force onto the heading: the wheels cannot push sideways.
  const real along = math::clamp(math::dot(s.linear, h) * p.inertia.mass, -p.max_brake_force, p.max_drive_force);
  const real torque = math::clamp(s.angular * p.inertia.inertia, -p.max_torque, p.max_torque);
  return {h * along, torque};
}

SteeringOutput acceleration_of(const Actuation& a, const InertiaParams& p) {
  return {a.force / p.mass, a.torque / p.inertia};
}

}  // namespace flockstep::behavior
