#pragma once
/// \file force_steering.hpp
/// Part G of the catalog: the IMGD 4000 slides' force-based steering behaviours (Buckland /
/// Millington & Funge style). Every behaviour takes a `Body` (types.hpp) and returns a steering
/// FORCE in the world frame, built on the pattern "desired velocity - current velocity". Forces
/// are not truncated here: the caller combines them (combine.hpp, T77-T81) and the Body update
/// (T08) limits the total to max_force.
///
/// What a viewer may want to draw (the predicted point of pursue/evade, the interpose aim point,
/// the offset-pursuit aim point, the wander target) is available from a companion `*_point`
/// function that the force function itself uses, so the drawing matches the steering bit for bit.
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// How seek turns "toward the target" into a desired velocity (T64).
enum class SeekMode : std::uint8_t {
  kNormalized,  ///< Buckland: norm(target - p) * max_speed. Full speed until the target is passed.
  kTruncated,   ///< slides: truncate(target - p, max_speed). Desired speed = remaining distance
                ///< (per second) inside max_speed * 1 s of the target: a built-in gentle arrive.
};

/// Desired velocity of seek (T64) before subtracting the current velocity, m/s.
/// At the target itself the desired velocity is zero in both modes.
Vec2 seek_desired_velocity(const Body& b, Vec2 target, SeekMode mode = SeekMode::kNormalized);

/// T64 seek (force form): desired - v, with desired from `seek_desired_velocity`. N (mass-free
/// units of the slides: the Body update divides by mass). At the target the force is -v.
Vec2 seek_force(const Body& b, Vec2 target, SeekMode mode = SeekMode::kNormalized);

/// T65 flee (force form), corrected per the erratum: desired = norm(p - threat) * max_speed, so the
/// urge to flee does not weaken as the threat gets closer. Beyond `panic_range` (m, [>= 0]; the
/// slides treat it as action selection, Buckland puts it inside flee) the force is exactly zero.
/// A threat exactly at p gives a deterministic escape along the body's heading.
Vec2 flee_force(const Body& b, Vec2 threat, real panic_range = math::kInfinity);

/// T65 flee with an explicit desired-velocity mode. `SeekMode::kTruncated` is the slides' literal
/// formula truncate(p - threat, max_speed), kept only to demonstrate the erratum (its desired
/// speed drops as the threat closes in). `SeekMode::kNormalized` equals `flee_force` above.
Vec2 flee_force(const Body& b, Vec2 threat, real panic_range, SeekMode mode);

/// T66 desired approach speed of arrive, m/s: min(d / max(1, deceleration), max_speed).
/// `deceleration` is the slides' DECELERATION (s, [> 0]); values below 1 act as 1 because the
/// slides' truncate can never raise the desired speed above d (catalog T66 note). This is exactly
/// the seed's distance -> speed table.
real arrive_desired_speed(real distance, real max_speed, real deceleration);

/// T66 arrive (force form): desired = (target - p) scaled to `arrive_desired_speed`, force =
/// desired - v. Exactly at the target (d = 0) the force is zero. Over-damped (no overshoot) when
/// max(1, deceleration) >= 4 * mass while max_force and max_speed do not bind.
Vec2 arrive_force(const Body& b, Vec2 target, real deceleration);

/// T67 pursue options.
struct PursueParams {
  /// Half-angle of the "dead ahead" cone, rad. Inside it the pursuer just seeks the evader's
  /// current position. Slides: about 10 degrees. [Limit: 0..pi]
  real dead_ahead_half_angle = 10.0 * math::kDegToRad;
  /// Buckland's original also requires the evader to be facing the pursuer: the evader's
  /// direction of motion within `evader_facing_half_angle` of the reverse of the pursuer's
  /// heading (an evader at rest never qualifies). The slides' intent is the cone test alone, so
  /// this is off by default.
  bool require_evader_facing = false;
  /// Half-angle for the evader-facing test, rad (Buckland: dot of headings < -0.95, i.e. ~18 deg). [Limit: 0..pi]
  real evader_facing_half_angle = 18.19 * math::kDegToRad;
  /// Desired-velocity mode of the final seek.
  SeekMode seek_mode = SeekMode::kNormalized;
};

/// T67/T68 look-ahead time, s: distance / (max_speed + target_speed). Zero when the denominator
/// is zero (both at rest: prediction is then irrelevant).
real pursuit_look_ahead(real distance, real max_speed, real target_speed);

/// True when the evader is inside the pursuer's dead-ahead cone (T67), i.e. |angle between the
/// pursuer's heading and the direction to the evader| < p.dead_ahead_half_angle (the slides'
/// "facing > -10 and facing < -10" is never true; this is the intended test), plus the optional
/// evader-facing condition. An evader exactly at the pursuer's position counts as dead ahead.
bool pursue_dead_ahead(const Body& b, const Mover& evader, const PursueParams& p = {});

/// T67 the point pursue seeks (draw it as the predicted position): the evader's current position
/// when dead ahead, otherwise p_e + v_e * pursuit_look_ahead(|p_e - p|, max_speed, |v_e|).
Vec2 pursue_point(const Body& b, const Mover& evader, const PursueParams& p = {});

/// T67 pursue: seek(pursue_point(...)).
Vec2 pursue_force(const Body& b, const Mover& evader, const PursueParams& p = {});

/// T68 the predicted pursuer position that evade flees from (no dead-ahead case).
Vec2 evade_point(const Body& b, const Mover& pursuer);

/// T68 evade: flee_force(evade_point(...)) with no panic range.
Vec2 evade_force(const Body& b, const Mover& pursuer);

/// Frame in which an offset-pursuit offset is expressed (T69).
enum class OffsetFrame : std::uint8_t {
  kWorld,        ///< the slides: slot = p_leader + offset (world axes)
  kLeaderLocal,  ///< formations: slot = p_leader + R(theta_leader) * offset, offset = (forward, left)
};

/// T69 the formation slot: leader position plus the offset in the chosen frame, m.
Vec2 offset_pursuit_slot(const Body& leader, Vec2 offset, OffsetFrame frame);

/// T69 the point offset pursuit arrives at (draw it): slot + v_leader * dt with
/// dt = |slot - p| / (max_speed + |v_leader|).
Vec2 offset_pursuit_point(const Body& b, const Body& leader, Vec2 offset, OffsetFrame frame);

/// T69 offset pursuit (slides): arrive(offset_pursuit_point(...), deceleration).
/// Behind a leader at constant velocity u (|u| < max_speed) the follower matches u and settles a
/// fixed distance e = D*|u|*(max_speed+|u|)/(max_speed+2|u|) behind its slot (D = max(1,
/// deceleration)), because arrive is a proportional controller. All followers lag by the same
/// vector, so a formation keeps its shape. Use `offset_pursuit_matched_force` to remove the lag.
Vec2 offset_pursuit_force(const Body& b, const Body& leader, Vec2 offset, OffsetFrame frame, real deceleration);

/// T69 variant (not in the seed): desired = truncate(v_leader + arrive-desired(slot), max_speed),
/// force = desired - v. Feeding the leader's velocity forward makes the follower converge onto
/// the slot itself (zero steady-state lag) while still matching the leader's velocity.
Vec2 offset_pursuit_matched_force(const Body& b, const Body& leader, Vec2 offset, OffsetFrame frame, real deceleration);

/// How interpose estimates the time to reach the midpoint (T70).
enum class InterposeTime : std::uint8_t {
  kCorrected,    ///< dt = |(p_a + p_c)/2 - p| / max_speed (origin independent)
  kSeedLiteral,  ///< the slides' dt = |p_a + p_c| / (2 max_speed): depends on the origin (erratum)
};

/// T70 the point interpose arrives at (draw it): midpoint of the two bodies extrapolated by dt.
Vec2 interpose_point(const Body& b, const Mover& a, const Mover& c, InterposeTime time = InterposeTime::kCorrected);

/// T70 interpose: arrive(interpose_point(..., kCorrected), deceleration).
Vec2 interpose_force(const Body& b, const Mover& a, const Mover& c, real deceleration);

/// T70 interpose with an explicit time estimate (kSeedLiteral reproduces the erratum for tests).
Vec2 interpose_force(const Body& b, const Mover& a, const Mover& c, real deceleration, InterposeTime time);

/// T71 wander parameters (defaults: Buckland's chapter-3 values).
struct WanderParams {
  real radius = 1.2;              ///< RADIUS of the wander circle, m. [Limit: > 0]
  real distance = 2.0;            ///< DISTANCE of the circle centre ahead of the body, m. [Limit: >= 0]
  real jitter_per_second = 80.0;  ///< JITTER rate: max displacement per component = rate * dt, m/s. [Limit: >= 0]
};

/// T71 per-agent wander state: the target on the circle in the body's local frame (x forward,
/// y left), relative to the circle centre. |target_local| = radius after every update.
struct WanderState {
  Vec2 target_local{1, 0};  ///< m, local (forward, left) offset from the circle centre
};

/// T71 start state: a uniformly random point on the wander circle (one Rng draw).
WanderState wander_init(const WanderParams& p, Rng& rng);

/// T71 world position of the current wander target (draw it): body-local (target_local +
/// (distance, 0)) transformed to the world with the body's heading. Does not advance the state.
Vec2 wander_world_target(const Body& b, const WanderParams& p, const WanderState& s);

/// T71 wander (Reynolds' jittered circle), corrected per the errata: the jitter is symmetric,
/// uniform in [-J, J) per component with J = jitter_per_second * dt, the target is projected
/// back onto the circle, the circle offset is added in LOCAL space and then the point is
/// transformed; force = world target - p. Draws exactly two Rng values per call.
Vec2 wander_force(const Body& b, const WanderParams& p, WanderState& s, Rng& rng, real dt);

/// T71 the slides' literal wander, kept only to test the errata: jitter drawn from [0, J) (drifts
/// the target toward the forward-left diagonal) and the (distance, 0) offset added in WORLD space
/// after transforming the target. Same Rng consumption as `wander_force`.
Vec2 wander_force_seed_literal(const Body& b, const WanderParams& p, WanderState& s, Rng& rng, real dt);

/// T72 waypoint-following parameters.
struct WaypointParams {
  real seek_distance = 1.0;  ///< SEEK_DISTANCE: a waypoint counts as reached inside this, m. [Limit: > 0]
  real deceleration = 2.0;   ///< arrive DECELERATION at the final waypoint (T66), s. [Limit: > 0]
  bool loop = false;         ///< true: after the last waypoint continue with the first, forever
  /// The slides' literal rule (arrive only once the final waypoint is already within
  /// seek_distance), kept to test the erratum. Default false: arrive whenever current is final.
  bool seed_literal = false;
};

/// T72 per-agent path-following state: index of the current waypoint.
struct WaypointState {
  std::int32_t current = 0;  ///< index into the waypoint list, 0..n-1
};

/// T72 waypoint path following: when the current waypoint is within seek_distance, advance to
/// the next one (wrapping on loops; an open path stays on its final waypoint). Then seek the
/// current waypoint, except that on an open path the final waypoint is approached with arrive
/// (corrected: as soon as it is current, not only once it is within seek_distance). An empty
/// list gives zero force; an out-of-range `current` is clamped into the list.
Vec2 follow_waypoints_force(const Body& b, std::span<const Vec2> waypoints, const WaypointParams& p, WaypointState& s);

}  // namespace flockstep::behavior
