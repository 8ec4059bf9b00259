#pragma once
/// \file craft.hpp
/// T10 Bourg's 2D rigid-body craft with bow thrusters: constant forward thrust through the centre
/// of gravity, steering only by a lateral force applied at the bow, point (0, L/2) in Bourg's body
/// frame. Because the force acts ahead of the CG it both pushes the craft sideways and turns it.
/// Used by the player's craft, LOS chase (T21), intercept (T23), Bourg flocking (T34) and
/// physics-driven patterns (T29/T30).
///
/// The seed's Chapter 2 physics is not in the catalog; this is the catalog's suggested
/// reconstruction with linear drag so top speed and turn rate settle.
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Physical constants of a craft. Defaults give a nimble ~10 m/s craft with a ~6 m turn radius.
/// The smallest craft mass and moment of inertia a scenario may give: the craft's accelerations
/// are forces divided by them, and a positive value near zero (the world-state fuzzer found an
/// inertia of 1.7e-307) turns finite forces into infinite speeds within a tick.
inline constexpr real kMinCraftMass = 1e-3;
inline constexpr real kMinCraftInertia = 1e-3;

struct CraftParams {
  real mass = 1;                ///< kg. [Limit: >= kMinCraftMass]
  real inertia = 0.5;           ///< moment of inertia about the CG, kg m^2. [Limit: >= kMinCraftInertia]
  real length = 1;              ///< bow-to-stern length L, m; the steering force acts at L/2. [Limit: > 0]
  real thrust = 4;              ///< constant forward thrust, N. [Limit: >= 0]
  real max_steering_force = 3;  ///< bow thruster force at factor 1, N. [Limit: >= 0]
  real linear_drag = 0.4;       ///< linear drag coefficient c_l (force = -c_l v), N s/m. [Limit: >= 0]
  real lateral_drag = 4;        ///< extra drag on sideways body velocity (keel), N s/m. [Limit: >= 0]
  real angular_drag = 2;        ///< angular drag c_a (torque = -c_a omega), N m s. [Limit: >= 0]
};

/// Dynamic state of a craft. orientation is the heading angle (rad, CCW from +x).
struct CraftState {
  Vec2 position;
  Vec2 velocity;
  real orientation = 0;
  real angular_velocity = 0;  ///< rad/s, CCW positive
};

/// SetThrusters(port, starboard, factor). Firing the PORT thruster pushes the bow to starboard,
/// so the craft turns RIGHT (clockwise seen from above); starboard turns it left (catalog T10).
struct Thrusters {
  bool port = false;
  bool starboard = false;
  real factor = 1;    ///< fraction of max_steering_force, [0, 1]
  real throttle = 1;  ///< fraction of thrust, [0, 1]; Bourg keeps it at 1, the player may not
};

/// Lateral bow force in Newtons implied by a thruster setting: positive = toward the craft's
/// left (turns left), negative = toward its right.
real lateral_force(const Thrusters& t, const CraftParams& p);

/// T10 UpdateBodyEuler: one (semi-implicit) Euler step of length dt with the given thruster setting.
/// Order: forces from the state at the start of the step, then v, p (using the new v), omega,
/// theta (using the new omega, wrapped into (-pi, pi]); documented so prediction replays
/// identically. Throttle and factor are clamped to [0, 1].
void craft_step(CraftState& s, const CraftParams& p, const Thrusters& t, real dt);

/// Same step with an explicit lateral bow force (N, + = left) and throttle (0..1): used by Bourg
/// flocking (T34), whose rules produce a net lateral force rather than on/off thrusters.
void craft_step_lateral(CraftState& s, const CraftParams& p, real lateral_force_n, real throttle, real dt);

/// Unit heading of a craft.
inline Vec2 craft_heading(const CraftState& s) { return math::as_vector(s.orientation); }

/// Velocity in body coordinates (forward, left).
inline Vec2 craft_body_velocity(const CraftState& s) { return math::to_local(s.velocity, craft_heading(s)); }

}  // namespace flockstep::behavior
