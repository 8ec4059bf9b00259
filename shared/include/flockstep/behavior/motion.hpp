#pragma once
/// \file motion.hpp
/// T01-T07 Millington's motion models: orientation adapters, facing smoothing, the kinematic
/// update, the exact constant-acceleration update, Newton-Euler-1 with speed clip and drag,
/// fixed-step handling of variable frame rates, and actuation (acceleration -> force/torque).
///
/// Every update takes an explicit dt in seconds (T06): all speeds are per second. Orientations
/// are wrapped into (-pi, pi] after each update so sin_cos stays in its accurate range; rotations
/// (angular velocities) are never wrapped (catalog T05 caveat).
#include <cstdint>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

// ---------------------------------------------------------------------------------------------
// T01 orientation <-> vector. Flockstep's own convention lives in math/angle.hpp (theta CCW from
// +x: math::as_vector, math::orientation_of, math::new_orientation). These adapters express
// Millington's convention so his examples can be checked in his own terms.

/// T01 Millington's orientation -> unit vector, right-handed, in his (x, z) ground plane:
/// (-sin theta, cos theta), so theta = 0 looks down +z. Unitless.
Vec2 millington_as_vector(real theta);
/// T01 inverse of millington_as_vector: theta = arctan2(-x, z) in (-pi, pi]; zero vector -> 0.
real millington_orientation_of(Vec2 xz);

// ---------------------------------------------------------------------------------------------
// T02 facing smoothing.

/// T02 parameters of facing smoothing.
struct FacingSmoothingParams {
  real fraction =
      0.5;  ///< share of the remaining angular error removed per call (seed: 1/2), unitless. [Limit: (0, 1]]
};

/// T02 turn orientation a fixed fraction of the short way toward the direction of velocity:
/// theta + f * wrap(orientation_of(v) - theta), wrapped into (-pi, pi]. Returns the input
/// unchanged when v is zero (a stationary character keeps its facing). f = 1 snaps.
real smooth_facing(real orientation, Vec2 velocity, const FacingSmoothingParams& p = {});

// ---------------------------------------------------------------------------------------------
// T03-T05 position/orientation updates.

/// T03 kinematic update: p += v dt, theta += omega dt (theta wrapped). The velocity is set
/// directly by the kinematic behaviour; there is no acceleration limit. dt in s. [Limit: >= 0]
void integrate_kinematic(Static& s, const KinematicSteeringOutput& out, real dt);

/// T04 exact constant-acceleration update over one step of dt seconds:
/// p += v dt + a dt^2/2, theta += omega dt + alpha dt^2/2, then v += a dt, omega += alpha dt.
/// Exact for piecewise-constant acceleration whatever dt is.
void integrate_exact(Kinematic& k, const SteeringOutput& s, real dt);

/// T05 limits and drag for Newton-Euler-1.
struct NewtonEulerParams {
  real max_speed = math::kInfinity;     ///< speed clip applied after the velocity update, m/s. [Limit: >= 0]
  real max_rotation = math::kInfinity;  ///< |rotation| clip, rad/s. [Limit: >= 0]
  real linear_drag =
      0;  ///< linear drag per unit mass k/m: adds -linear_drag * v to the acceleration, 1/s. [Limit: [0, 1/dt)]
  real angular_drag = 0;  ///< angular drag: adds -angular_drag * omega to alpha, 1/s. [Limit: [0, 1/dt)]
};

/// T05 Newton-Euler-1 (semi-implicit order documented for replay):
/// 1. p += v_old dt, theta += omega_old dt (theta wrapped);
/// 2. v += (a - linear_drag v_old) dt, omega += (alpha - angular_drag omega_old) dt;
/// 3. if |v| > max_speed, v = norm(v) max_speed; |omega| clipped to max_rotation.
/// With drag k/m and a constant force F the speed tends to |F|/k (terminal speed).
void integrate_newton_euler(Kinematic& k, const SteeringOutput& s, const NewtonEulerParams& p, real dt);

// ---------------------------------------------------------------------------------------------
// T06 variable frame rate.

/// T06 is a rule, not a function: every update above takes an explicit dt and all speeds are per
/// second. The fixed-step clock that turns wall time into whole ticks is sim::TickClock
/// (flockstep/sim/tick.hpp), where it belongs in the dependency order.

// ---------------------------------------------------------------------------------------------
// T07 forces and actuation.

/// T07 what an actuator asks the physics for: a world-frame force and a torque.
struct Actuation {
  Vec2 force;       ///< N, world frame
  real torque = 0;  ///< N m, CCW positive
  friend constexpr bool operator==(const Actuation&, const Actuation&) = default;
};

/// T07 inertia of a body for actuation.
struct InertiaParams {
  real mass = 1;     ///< kg. [Limit: > 0]
  real inertia = 1;  ///< moment of inertia about the up axis, kg m^2. [Limit: > 0]
};

/// T07 ideal actuator: F = m a, tau = I alpha. Reproduces any requested acceleration.
Actuation actuate_ideal(const SteeringOutput& s, const InertiaParams& p);

/// T07 limits of the car actuator (engine along the heading, no sideways force).
struct CarActuatorParams {
  InertiaParams inertia;      ///< mass and moment of inertia
  real max_drive_force = 20;  ///< largest forward engine force, N. [Limit: >= 0]
  real max_brake_force = 30;  ///< largest backward (braking/reverse) force, N. [Limit: >= 0]
  real max_torque = 10;       ///< largest steering torque magnitude, N m. [Limit: >= 0]
};

/// T07 "car" actuator: the nearest feasible force to m a that has no lateral component. Keeps
/// only the component of the request along the unit heading, clamped to [-max_brake, max_drive];
/// torque = I alpha clamped to +-max_torque. A purely sideways request gives zero force.
Actuation actuate_car(const SteeringOutput& s, Vec2 heading, const CarActuatorParams& p);

/// T07 accelerations produced by an actuation: a = F / m, alpha = tau / I.
SteeringOutput acceleration_of(const Actuation& a, const InertiaParams& p);

}  // namespace flockstep::behavior
