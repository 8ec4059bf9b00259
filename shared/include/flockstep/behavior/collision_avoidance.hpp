#pragma once
/// \file collision_avoidance.hpp
/// T57 naive cone-check collision avoidance and T58 predictive collision avoidance (time of
/// closest approach), Millington section 3.3.14. Both return a SteeringOutput (linear m/s^2,
/// angular 0) and "no steering" (all zero) when nothing needs avoiding.
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// How T57 reacts when several characters are inside the cone.
enum class ConeResponse : std::uint8_t {
  kClosest,  ///< evade only the closest character in the cone
  kAverage,  ///< evade the average position of every character in the cone
};

/// Parameters of T57 cone-check avoidance.
struct ConeCheckParams {
  real half_angle = 0.5235987755982988;  ///< cone half-angle about the facing, rad (default 30 deg). [Limit: 0..pi]
  real range = 10.0;                     ///< ignore characters farther than this, m. [Limit: > 0]
  real max_acceleration = 10.0;          ///< evasion acceleration, m/s^2. [Limit: >= 0]
  ConeResponse response = ConeResponse::kClosest;  ///< closest or average of those in the cone
};

/// T57 cone membership: as_vector(orientation) . norm(other - self) > cos_half_angle (STRICT, so a
/// character exactly on the cone edge is outside). A coincident character (zero offset) is outside.
bool in_cone(Vec2 self_position, real self_orientation, Vec2 other_position, real cos_half_angle);

/// T57 cone-check collision avoidance: flee (max_acceleration along norm(self - other)) from the
/// closest character in the facing cone within `range`, or from the cone members' average
/// position. Naive by design: it reacts to parallel neighbours that will never collide and
/// ignores crossing ones outside the cone (the seed's two failure modes, kept as regressions).
SteeringOutput cone_check_avoidance(const Kinematic& character, std::span<const Kinematic> others,
                                    const ConeCheckParams& p);

/// Parameters of T58 predictive collision avoidance.
struct CollisionAvoidanceParams {
  real max_acceleration = 10.0;  ///< evasion acceleration, m/s^2. [Limit: >= 0]
  real collision_radius =
      1.0;  ///< "will collide" distance between centres, e.g. the sum of both radii, m. [Limit: > 0]
  real time_horizon = math::kInfinity;  ///< ignore closest approaches later than this, s. [Limit: > 0]
};

/// What T58 decided this tick (for tests and for a viewer to draw).
struct CollisionAvoidanceDebug {
  std::int32_t target_index = -1;  ///< index in `targets` of the reacted-to target, -1 if none
  real t_closest = 0;              ///< its time of closest approach, s (0 when already overlapping)
  real min_separation = 0;         ///< predicted distance at t_closest, m
  Vec2 predicted_self;             ///< p_c + v_c t_closest
  Vec2 predicted_target;           ///< p_t + v_t t_closest
  bool overlapping = false;        ///< reacted on current positions because the pair already overlaps
  bool sidestep = false;           ///< exact head-on fallback used (predicted centres coincide)
};

/// T58 time of closest approach of two movers with relative position dp = p_t - p_c and relative
/// velocity dv = v_t - v_c: t = -(dp . dv) / |dv|^2 (the seed printed it without the minus sign).
/// Returns 0 when |dv| = 0 (the distance never changes).
real time_of_closest_approach(Vec2 dp, Vec2 dv);

/// T58 predictive collision avoidance. For every target: t = time_of_closest_approach; skip it if
/// t < 0 (separating), |dv| = 0, t > time_horizon, or the minimum separation exceeds
/// collision_radius. React only to the FIRST such collision (smallest t; a target already
/// overlapping counts as t = 0, ties go to the nearer then lower index) by fleeing its predicted
/// position: max_acceleration * norm(p_c' - p_t'). Overlap uses current positions. When the
/// predicted centres coincide exactly (exact head-on), sidestep along perp_left(norm(p_c - p_t)):
/// the direction flips with the pair's roles, so two characters always step to OPPOSITE sides
/// (each to its own right when approaching head-on). `targets` must not include the character.
SteeringOutput collision_avoidance(const Kinematic& character, std::span<const Kinematic> targets,
                                   const CollisionAvoidanceParams& p, CollisionAvoidanceDebug* debug = nullptr);

}  // namespace flockstep::behavior
