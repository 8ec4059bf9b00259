/// \file steering.cpp
/// T41-T51 steering behaviours and the T05 update used with them.
#include "flockstep/behavior/steering.hpp"

namespace flockstep::behavior {

namespace {

/// Clip a scalar to [-limit, limit].
real clip_abs(real x, real limit) { return math::clamp(x, -limit, limit); }

}  // namespace

void integrate_steering(Kinematic& k, const SteeringOutput& s, real max_speed, real dt, real max_rotation) {
  // Newton-Euler-1: the dt^2 terms are dropped and position uses the velocity from the start of
  // the step (T05 documents this order so every caller and the viewer replay identically).
  k.position += k.velocity * dt;
  k.orientation = math::wrap_angle(k.orientation + k.rotation * dt);
  k.velocity += s.linear * dt;
  k.rotation += s.angular * dt;
  k.velocity = math::truncate(k.velocity, max_speed);  // clips only when |v| > max_speed
  k.rotation = clip_abs(k.rotation, max_rotation);
}

SteeringOutput dynamic_seek(const Kinematic& c, Vec2 target, const SeekParams& p) {
  return {math::normalized(target - c.position) * p.max_acceleration, 0};
}

SteeringOutput dynamic_flee(const Kinematic& c, Vec2 target, const SeekParams& p) {
  return {math::normalized(c.position - target) * p.max_acceleration, 0};
}

SteeringOutput velocity_match(const Kinematic& c, Vec2 target_velocity, const VelocityMatchParams& p) {
  return {math::truncate((target_velocity - c.velocity) / p.time_to_target, p.max_acceleration), 0};
}

SteeringOutput align(const Kinematic& c, real target_orientation, const AlignParams& p) {
  const real r = math::wrap_angle(target_orientation - c.orientation);
  const real s = r < 0 ? -r : r;
  real target_rotation = 0;
  if (s < p.target_radius) {
    if (!p.brake_inside_target) return {};  // seed: no steering, the character coasts
    // brake: target_rotation stays 0
  } else {
    target_rotation = s > p.slow_radius ? p.max_rotation : p.max_rotation * s / p.slow_radius;
    target_rotation *= math::sign(r);
  }
  return {{}, clip_abs((target_rotation - c.rotation) / p.time_to_target, p.max_angular_acceleration)};
}

SteeringOutput align_opposite(const Kinematic& c, real target_orientation, const AlignParams& p) {
  return align(c, math::wrap_angle(target_orientation + math::kPi), p);
}

real arrive_target_speed(real distance, const ArriveParams& p) {
  return distance > p.slow_radius ? p.max_speed : p.max_speed * distance / p.slow_radius;
}

Delegated<Vec2> dynamic_arrive_delegated(const Kinematic& c, Vec2 target, const ArriveParams& p) {
  const Vec2 dir = target - c.position;
  const real d = math::length(dir);
  Delegated<Vec2> out;
  if (d < p.target_radius) {
    if (!p.brake_inside_target) return out;  // seed: no steering, the character coasts
    out.surrogate = Vec2{};                  // brake: match velocity zero
  } else {
    // d > 0 here unless target_radius == 0 and we sit on the target; normalized(0) = 0 then
    // asks for velocity zero, which is the right thing.
    out.surrogate = math::normalized(dir) * arrive_target_speed(d, p);
  }
  out.delegated = true;
  out.steering = velocity_match(c, out.surrogate, {p.max_acceleration, p.time_to_target});
  return out;
}

SteeringOutput dynamic_arrive(const Kinematic& c, Vec2 target, const ArriveParams& p) {
  return dynamic_arrive_delegated(c, target, p).steering;
}

real prediction_time(const Kinematic& c, Vec2 target_position, const PredictionParams& p) {
  const real d = math::distance(target_position, c.position);
  const real speed = p.speed_source == PredictionSpeed::max ? p.max_speed : math::length(c.velocity);
  // speed <= d / max_prediction, rearranged so speed 0 and max_prediction 0 need no division.
  if (speed * p.max_prediction <= d) return p.max_prediction;
  return d / speed;  // speed > 0 here, and d / speed < max_prediction
}

Delegated<Vec2> dynamic_pursue_delegated(const Kinematic& c, const Mover& target, const DynamicPursueParams& p) {
  Delegated<Vec2> out;
  out.surrogate = target.position + target.velocity * prediction_time(c, target.position, p.prediction);
  out.delegated = true;
  out.steering = p.base == PursueBase::arrive ? dynamic_arrive(c, out.surrogate, p.arrive)
                                              : dynamic_seek(c, out.surrogate, p.seek);
  return out;
}

SteeringOutput dynamic_pursue(const Kinematic& c, const Mover& target, const DynamicPursueParams& p) {
  return dynamic_pursue_delegated(c, target, p).steering;
}

Delegated<Vec2> dynamic_evade_delegated(const Kinematic& c, const Mover& pursuer, const DynamicEvadeParams& p) {
  Delegated<Vec2> out;
  out.surrogate = pursuer.position + pursuer.velocity * prediction_time(c, pursuer.position, p.prediction);
  out.delegated = true;
  out.steering = dynamic_flee(c, out.surrogate, p.flee);
  return out;
}

SteeringOutput dynamic_evade(const Kinematic& c, const Mover& pursuer, const DynamicEvadeParams& p) {
  return dynamic_evade_delegated(c, pursuer, p).steering;
}

Delegated<real> face_delegated(const Kinematic& c, Vec2 target, const AlignParams& p) {
  Delegated<real> out;
  const Vec2 dir = target - c.position;
  if (math::is_zero(dir)) return out;  // no direction to face: no steering
  out.surrogate = math::orientation_of(dir);
  out.delegated = true;
  out.steering = align(c, out.surrogate, p);
  return out;
}

SteeringOutput face(const Kinematic& c, Vec2 target, const AlignParams& p) {
  return face_delegated(c, target, p).steering;
}

Delegated<real> look_where_you_are_going_delegated(const Kinematic& c, const AlignParams& p) {
  Delegated<real> out;
  if (math::is_zero(c.velocity)) return out;  // standing still: no preferred orientation
  out.surrogate = math::orientation_of(c.velocity);
  out.delegated = true;
  out.steering = align(c, out.surrogate, p);
  return out;
}

SteeringOutput look_where_you_are_going(const Kinematic& c, const AlignParams& p) {
  return look_where_you_are_going_delegated(c, p).steering;
}

DynamicWanderOutput dynamic_wander(const Kinematic& c, DynamicWanderState& state, const DynamicWanderParams& p,
                                   Rng& rng) {
  // The random walk lives in the wander orientation, not in the output: the target jitters by
  // at most wander_rate around the circle, and the circle sits wander_offset ahead, so the angle
  // it subtends (not the jitter) bounds how fast the facing has to change.
  state.wander_orientation = math::wrap_angle(state.wander_orientation + rng.binomial() * p.wander_rate);
  const Vec2 facing = math::as_vector(c.orientation);
  DynamicWanderOutput out;
  out.circle_centre = c.position + facing * p.wander_offset;
  out.target = out.circle_centre + math::as_vector(state.wander_orientation + c.orientation) * p.wander_radius;
  out.steering.angular = face(c, out.target, p.align).angular;
  out.steering.linear = facing * p.max_acceleration;
  return out;
}

}  // namespace flockstep::behavior
