#pragma once
/// \file steering.hpp
/// T41-T51 Millington's steering (dynamic) behaviours (catalog Part F): seek, flee, arrive, align,
/// velocity matching, pursue, evade, face, look-where-you're-going and dynamic wander, plus the
/// T05 Newton-Euler-1 update (integrate_steering) that tests and callers apply to the outputs.
///
/// T41 framework. Each behaviour matches ONE element of the target's kinematics; combining is a
/// separate job (blend/combine headers). The fundamental matchers are seek (position), align
/// (orientation) and velocity_match (velocity); every other behaviour here is *delegated*: it
/// computes a surrogate target and calls a fundamental one:
///   arrive -> velocity_match (surrogate: a target velocity)
///   pursue -> seek or arrive, evade -> flee (surrogate: the predicted target position)
///   face, look-where-you're-going -> align (surrogate: a target orientation)
///   wander -> face (+ full forward acceleration) (surrogate: the point on the wander circle)
///   path following (path.hpp) -> seek (surrogate: the point path_offset ahead on the path)
/// Delegation is explicit (no virtual hierarchy): every delegated behaviour has a `*_delegated`
/// form returning Delegated<T>, i.e. the output together with the surrogate it handed on, so a test
/// can assert output == base(surrogate). The plain form returns just the SteeringOutput.
///
/// "No steering" is the zero SteeringOutput (SteeringOutput::none()). Behaviours that move the
/// character produce no angular output and vice versa. All functions are pure, O(1) and
/// allocation-free.
#include <cstdint>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// T41: output of a delegated behaviour plus the surrogate target it passed to its base behaviour.
template <class Target>
struct Delegated {
  SteeringOutput steering;  ///< what the behaviour asks for (zero = no steering)
  Target surrogate{};       ///< target handed to the base behaviour (valid when delegated)
  bool delegated = false;   ///< false when the behaviour returned "no steering" without delegating
};

/// T05 update for steering outputs (Newton-Euler-1 with speed clip), documented order: position
/// and orientation advance with the OLD velocity and rotation, then velocity and rotation take
/// the accelerations, then |velocity| is clipped to max_speed (only if it exceeds it) and
/// |rotation| to max_rotation. Orientation is wrapped into (-pi, pi]; rotation never wraps.
/// max_speed m/s [Limit: >= 0], dt s [Limit: >= 0], max_rotation rad/s [Limit: >= 0; default none].
void integrate_steering(Kinematic& k, const SteeringOutput& s, real max_speed, real dt,
                        real max_rotation = math::kInfinity);

// ---------------------------------------------------------------------------------------------
// Fundamental behaviours.

/// Parameters of dynamic seek and flee (T42/T43). Speed is limited by the update (T05), not here.
struct SeekParams {
  real max_acceleration = 10.0;  ///< magnitude of the requested acceleration, m/s^2. [Limit: >= 0]
};

/// T42 dynamic seek: linear = max_acceleration * norm(target - position), angular = 0.
/// On the target the output is zero (no steering). Overshoots a static target and orbits a moving one.
SteeringOutput dynamic_seek(const Kinematic& c, Vec2 target, const SeekParams& p);

/// T43 dynamic flee: linear = max_acceleration * norm(position - target), angular = 0.
/// Coincident with the threat the direction is undefined and the output is zero (no steering).
SteeringOutput dynamic_flee(const Kinematic& c, Vec2 target, const SeekParams& p);

/// Parameters of velocity matching (T46).
struct VelocityMatchParams {
  real max_acceleration = 10.0;  ///< clip on |linear|, m/s^2. [Limit: >= 0]
  real time_to_target = 0.1;     ///< time constant of the match, s. [Limit: > 0]
};

/// T46 velocity matching: linear = (target_velocity - velocity) / time_to_target, clipped to
/// max_acceleration; angular = 0. Zero (no steering) once the velocities are equal.
SteeringOutput velocity_match(const Kinematic& c, Vec2 target_velocity, const VelocityMatchParams& p);

/// Parameters of align / face / look-where-you're-going (T45, T49, T50). The defaults satisfy the
/// no-overshoot rule max_rotation / slow_radius <= 1 / (4 time_to_target) (2.09 <= 2.5 s^-1) and
/// max_angular_acceleration >~ max_rotation^2 / slow_radius (20 >= 6.6).
struct AlignParams {
  real max_angular_acceleration = 20.0;  ///< clip on |angular|, rad/s^2. [Limit: >= 0]
  real max_rotation = math::kPi;         ///< fastest requested rotation, rad/s. [Limit: >= 0]
  real target_radius = 0.02;             ///< angular tolerance: no steering inside it, rad. [Limit: >= 0]
  real slow_radius = 1.5;                ///< start slowing the turn inside this angle, rad. [Limit: > 0]
  real time_to_target = 0.1;             ///< time constant of the rotation match, s. [Limit: > 0]
  /// Seed behaviour (false): inside target_radius return no steering, so the character coasts at
  /// its current rotation and hovers at the edge of the tolerance band. true: inside it, ask for
  /// rotation 0 instead (angular = -rotation / time_to_target, clipped), which settles fully.
  bool brake_inside_target = false;
};

/// T45 align: match target_orientation (rad, any range). r = wrap(target - orientation); inside
/// target_radius no steering (see brake_inside_target); target rotation max_rotation beyond
/// slow_radius, max_rotation * |r| / slow_radius inside it, with the sign of r; angular =
/// (target rotation - rotation) / time_to_target clipped to +-max_angular_acceleration; linear = 0.
/// Wrapping takes the short way round; at exactly +-pi it turns positively (wrap(-pi) = pi).
SteeringOutput align(const Kinematic& c, real target_orientation, const AlignParams& p);

/// T45 "the opposite": there is no flee for orientations (it just comes back round); to face away
/// from target_orientation, align to target_orientation + pi.
SteeringOutput align_opposite(const Kinematic& c, real target_orientation, const AlignParams& p);

// ---------------------------------------------------------------------------------------------
// Delegated behaviours.

/// Parameters of dynamic arrive (T44). The defaults satisfy the catalog's derived no-overshoot
/// rule (Newton-Euler-1, dt = 1/60): max_speed / slow_radius = 2 <= 1 / (4 time_to_target) = 2.5 s^-1
/// and max_acceleration = 15 >= max_speed^2 / slow_radius = 10 m/s^2.
/// "Leave" (the opposite of arrive) is deliberately not provided: it would start with near-zero
/// acceleration; use dynamic_flee.
struct ArriveParams {
  real max_acceleration = 15.0;  ///< clip on |linear|, m/s^2. [Limit: >= 0]
  real max_speed = 5.0;          ///< target speed outside slow_radius, m/s. [Limit: >= 0]
  real target_radius = 0.05;     ///< arrival tolerance: no steering inside it, m. [Limit: >= 0]
  real slow_radius = 2.5;        ///< start braking inside this distance, m. [Limit: > 0]
  real time_to_target = 0.1;     ///< seed's starting value; time constant of the velocity match, s. [Limit: > 0]
  /// Seed behaviour (false): inside target_radius return no steering, so the character coasts
  /// (drift of the order of target_radius). true: inside it, match velocity 0 instead (brake).
  bool brake_inside_target = false;
};

/// T44 requested speed at a distance d (m) from the target: max_speed beyond slow_radius,
/// max_speed * d / slow_radius inside it (linear in distance).
real arrive_target_speed(real distance, const ArriveParams& p);

/// T44 dynamic arrive delegated to velocity matching; surrogate = the target velocity
/// norm(target - position) * arrive_target_speed(distance). Inside target_radius: no steering,
/// delegated = false (or, with brake_inside_target, surrogate = 0 and delegated = true).
Delegated<Vec2> dynamic_arrive_delegated(const Kinematic& c, Vec2 target, const ArriveParams& p);
/// T44 dynamic arrive (see dynamic_arrive_delegated): |linear| <= max_acceleration, angular = 0.
SteeringOutput dynamic_arrive(const Kinematic& c, Vec2 target, const ArriveParams& p);

/// Which speed pursue/evade use to estimate the time to reach the target (T47, erratum J.7).
enum class PredictionSpeed : std::uint8_t {
  current,  ///< |velocity| of the character: the usual code (default)
  max,      ///< PredictionParams::max_speed: the seed's prose ("time to get there at maximum speed")
};

/// Look-ahead of pursue and evade (T47/T48).
struct PredictionParams {
  real max_prediction = 1.0;                                ///< cap on the look-ahead, s. [Limit: >= 0]
  PredictionSpeed speed_source = PredictionSpeed::current;  ///< see PredictionSpeed
  real max_speed = 5.0;                                     ///< used only with PredictionSpeed::max, m/s. [Limit: >= 0]
};

/// T47 prediction time: with d = |target - position| and speed per speed_source,
/// max_prediction if speed <= d / max_prediction, else d / speed. Always in [0, max_prediction];
/// speed 0 gives max_prediction (no division by zero).
real prediction_time(const Kinematic& c, Vec2 target_position, const PredictionParams& p);

/// Which fundamental behaviour pursue hands the predicted position to (T47).
enum class PursueBase : std::uint8_t {
  seek,    ///< Reynolds' pursue; a faster pursuer overshoots and oscillates like seek (default)
  arrive,  ///< pursue-with-arrive; settles behind a slower target at near-zero relative speed
};

/// Parameters of pursue (T47).
struct DynamicPursueParams {
  PredictionParams prediction;         ///< look-ahead
  PursueBase base = PursueBase::seek;  ///< seek or arrive at the predicted position
  SeekParams seek;                     ///< used with PursueBase::seek
  ArriveParams arrive;                 ///< used with PursueBase::arrive
};

/// T47 pursue: surrogate = target.position + target.velocity * prediction_time (Reynolds: the
/// target keeps its current velocity), then seek or arrive it. delegated is always true; the
/// output is zero when the surrogate is the character's own position (or inside arrive's radius).
Delegated<Vec2> dynamic_pursue_delegated(const Kinematic& c, const Mover& target, const DynamicPursueParams& p);
/// T47 pursue (see dynamic_pursue_delegated).
SteeringOutput dynamic_pursue(const Kinematic& c, const Mover& target, const DynamicPursueParams& p);

/// Parameters of evade (T48).
struct DynamicEvadeParams {
  PredictionParams prediction;  ///< look-ahead (same rule as pursue)
  SeekParams flee;              ///< flee's acceleration
};

/// T48 evade: flee from surrogate = pursuer.position + pursuer.velocity * prediction_time.
/// Zero output when the character sits exactly on the predicted position.
Delegated<Vec2> dynamic_evade_delegated(const Kinematic& c, const Mover& pursuer, const DynamicEvadeParams& p);
/// T48 evade (see dynamic_evade_delegated).
SteeringOutput dynamic_evade(const Kinematic& c, const Mover& pursuer, const DynamicEvadeParams& p);

/// T49 face: align to orientation_of(target - position). Coincident target: no steering,
/// delegated = false. Output has no linear part.
Delegated<real> face_delegated(const Kinematic& c, Vec2 target, const AlignParams& p);
/// T49 face (see face_delegated).
SteeringOutput face(const Kinematic& c, Vec2 target, const AlignParams& p);

/// T50 look where you're going: align to orientation_of(velocity). Zero velocity: no steering
/// (no preferred orientation), delegated = false.
Delegated<real> look_where_you_are_going_delegated(const Kinematic& c, const AlignParams& p);
/// T50 look where you're going (see look_where_you_are_going_delegated).
SteeringOutput look_where_you_are_going(const Kinematic& c, const AlignParams& p);

/// Parameters of dynamic wander (T51). The seed gives no numbers; these give a gently meandering
/// walker at ~5 m/s (with a 5 m/s speed clip in the update).
struct DynamicWanderParams {
  real wander_offset = 3.0;     ///< distance from the character to the wander circle centre, m. [Limit: >= 0]
  real wander_radius = 1.0;     ///< radius of the wander circle, m. [Limit: >= 0]
  real wander_rate = 0.4;       ///< largest random change of the wander orientation per call, rad. [Limit: >= 0]
  real max_acceleration = 5.0;  ///< forward acceleration, m/s^2. [Limit: >= 0]
  AlignParams align;            ///< face/align parameters used to turn toward the wander target
};

/// Persistent per-agent state of dynamic wander (caller-owned).
struct DynamicWanderState {
  real wander_orientation = 0;  ///< target angle on the circle relative to the facing, rad, (-pi, pi]
};

/// Output of dynamic wander, with the geometry a viewer may draw.
struct DynamicWanderOutput {
  SteeringOutput steering;  ///< angular from face(target); linear = max_acceleration * facing
  Vec2 circle_centre;       ///< position + wander_offset * facing
  Vec2 target;              ///< surrogate handed to face: on the circle, |target - centre| = wander_radius
};

/// T51 dynamic wander: wander_orientation += binomial * wander_rate (two rng draws, wrapped);
/// target = centre + wander_radius * as_vector(wander_orientation + orientation); angular =
/// face(target).angular; linear = max_acceleration * as_vector(orientation) (full acceleration
/// forward). Never "no steering" while max_acceleration > 0.
DynamicWanderOutput dynamic_wander(const Kinematic& c, DynamicWanderState& state, const DynamicWanderParams& p,
                                   Rng& rng);

}  // namespace flockstep::behavior
