#pragma once
/// \file kinematic.hpp
/// T37-T40 Millington's kinematic movement algorithms (catalog Part E): seek, flee, arrive and
/// wander. Inputs are Static data (position + orientation, no velocity); the output is a desired
/// velocity and rotation (KinematicSteeringOutput) that the T03 update applies directly, with no
/// acceleration limit. All are O(1) and allocation-free.
///
/// "No steering" for a kinematic behaviour is the zero KinematicSteeringOutput, which, because the
/// velocity is set directly, means "stand still".
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Parameters shared by kinematic seek and flee (T37/T38).
struct KinematicSeekParams {
  real max_speed = 5.0;  ///< speed of the requested velocity, m/s. [Limit: >= 0]
};

/// T37 kinematic seek: velocity = max_speed * norm(target - position), rotation = 0.
/// On the target (zero offset) the velocity is zero (norm(0) = 0). Never settles: used to reach
/// a point it overshoots and flips direction every frame (the "characteristic wiggle").
/// Facing: apply math::new_orientation (kinematic_integrate with face_velocity = true).
KinematicSteeringOutput kinematic_seek(const Static& character, Vec2 target, const KinematicSeekParams& p);

/// T38 kinematic flee: velocity = max_speed * norm(position - target), rotation = 0.
/// Coincident with the threat the direction is undefined and the output is zero (no steering).
KinematicSteeringOutput kinematic_flee(const Static& character, Vec2 target, const KinematicSeekParams& p);

/// Parameters of kinematic arrive (T39).
struct KinematicArriveParams {
  real max_speed = 5.0;        ///< cap on the requested speed, m/s. [Limit: >= 0]
  real radius = 0.1;           ///< radius of satisfaction: inside it, stand still, m. [Limit: >= 0]
  real time_to_target = 0.25;  ///< seed default: aim to cover the remaining distance in this time, s. [Limit: > 0]
};

/// T39 kinematic arrive: zero velocity inside `radius` (no steering), otherwise
/// (target - position) / time_to_target clipped to max_speed. Requested speed is therefore
/// min(max_speed, distance / time_to_target). With dt < time_to_target it never overshoots,
/// because each step covers distance * dt / time_to_target < distance.
KinematicSteeringOutput kinematic_arrive(const Static& character, Vec2 target, const KinematicArriveParams& p);

/// Parameters of kinematic wander (T40).
struct KinematicWanderParams {
  real max_speed = 2.0;     ///< constant forward speed, m/s. [Limit: >= 0]
  real max_rotation = 3.0;  ///< largest rotation request, rad/s; actual |rotation| < this. [Limit: >= 0]
};

/// T40 kinematic wander: velocity = max_speed * as_vector(orientation) (straight ahead along the
/// current facing), rotation = randomBinomial() * max_rotation (T13, in (-max_rotation, max_rotation),
/// most likely near 0). Consumes exactly two draws from rng. Smooth translation, twitchy rotation
/// (the dynamic wander T51 fixes the twitch). Integrate with face_velocity = false.
KinematicSteeringOutput kinematic_wander(const Static& character, const KinematicWanderParams& p, Rng& rng);

/// T03 kinematic update for these behaviours, in Millington's order:
/// position += velocity * dt; then, if face_velocity, orientation = newOrientation(orientation,
/// velocity) (T01; kept when velocity is zero); then orientation += rotation * dt, wrapped into
/// (-pi, pi]. Use face_velocity = true for seek/flee/arrive and false for wander (whose velocity
/// already follows the facing and whose rotation must accumulate). dt in s, [Limit: >= 0].
void kinematic_integrate(Static& s, const KinematicSteeringOutput& out, real dt, bool face_velocity);

}  // namespace flockstep::behavior
