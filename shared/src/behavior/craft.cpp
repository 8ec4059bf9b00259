/// \file craft.cpp
/// T10 Bourg's 2D rigid-body craft: explicit Euler with constant thrust, a bow thruster and drag.
#include "flockstep/behavior/craft.hpp"

namespace flockstep::behavior {

real lateral_force(const Thrusters& t, const CraftParams& p) {
  // Port and starboard together cancel; the factor is clamped so a bad input cannot exceed
  // the craft's physical limit.
  const real f = math::clamp(t.factor, 0, 1) * p.max_steering_force;
  real side = 0;
  if (t.starboard) side += 1;  // starboard thruster pushes the bow to port (left): left turn
  if (t.port) side -= 1;       // port thruster pushes the bow to starboard (right): right turn
  return side * f;
}

void craft_step(CraftState& s, const CraftParams& p, const Thrusters& t, real dt) {
  craft_step_lateral(s, p, lateral_force(t, p), t.throttle, dt);
}

void craft_step_lateral(CraftState& s, const CraftParams& p, real lateral_force_n, real throttle, real dt) {
  // All loads are evaluated from the state at the start of the step.
  const Vec2 fwd = craft_heading(s);
  const Vec2 left = math::perp_left(fwd);
  const real v_side = math::dot(s.velocity, left);
  const Vec2 force = fwd * (p.thrust * math::clamp(throttle, 0, 1))  // thrust through the CG
                     + left * lateral_force_n                        // bow thruster
                     - s.velocity * p.linear_drag                    // hull drag
                     - left * (p.lateral_drag * v_side);             // keel resists side-slip
  // The bow force acts at r = (L/2, 0) in the (forward, left) frame: torque = r x F = L/2 * F_left.
  const real torque = 0.5 * p.length * lateral_force_n - p.angular_drag * s.angular_velocity;

  // Semi-implicit order exactly as the catalog lists it: v, then p with the new v, then omega,
  // then theta with the new omega. Prediction code must replay this order.
  s.velocity += force * (dt / p.mass);
  s.position += s.velocity * dt;
  s.angular_velocity += torque * (dt / p.inertia);
  // Keep the heading in (-pi, pi] so long runs neither lose precision nor grow without bound.
  s.orientation = math::wrap_angle(s.orientation + s.angular_velocity * dt);
}

}  // namespace flockstep::behavior
