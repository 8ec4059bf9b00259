#include "flockstep/behavior/collision_avoidance.hpp"

namespace flockstep::behavior {

using math::dot;
using math::length;
using math::length_sq;
using math::normalized;

bool in_cone(Vec2 self_position, real self_orientation, Vec2 other_position, real cos_half_angle) {
  const Vec2 to_other = normalized(other_position - self_position);
  if (math::is_zero(to_other)) return false;
  return dot(math::as_vector(self_orientation), to_other) > cos_half_angle;
}

SteeringOutput cone_check_avoidance(const Kinematic& character, std::span<const Kinematic> others,
                                    const ConeCheckParams& p) {
  const real cos_half = math::sin_cos(p.half_angle).cos;
  Vec2 sum;
  std::int32_t count = 0;
  real best = math::kInfinity;
  Vec2 best_pos;
  for (const Kinematic& o : others) {
    const real d = math::distance(character.position, o.position);
    if (d > p.range || !in_cone(character.position, character.orientation, o.position, cos_half)) continue;
    sum += o.position;
    ++count;
    if (d < best) {
      best = d;
      best_pos = o.position;
    }
  }
  if (count == 0) return {};
  const Vec2 threat = p.response == ConeResponse::kClosest ? best_pos : sum / static_cast<real>(count);
  // Flee the threat. If the average lands exactly on the character, flee along the facing's
  // opposite instead of returning zero (the cone did say "something ahead").
  Vec2 dir = normalized(character.position - threat);
  if (math::is_zero(dir)) dir = -math::as_vector(character.orientation);
  return {dir * p.max_acceleration, 0};
}

real time_of_closest_approach(Vec2 dp, Vec2 dv) {
  const real dv2 = length_sq(dv);
  if (dv2 == 0) return 0;
  // The minimum of |dp + dv t| is where its derivative 2 dv.(dp + dv t) vanishes.
  return -dot(dp, dv) / dv2;
}

SteeringOutput collision_avoidance(const Kinematic& character, std::span<const Kinematic> targets,
                                   const CollisionAvoidanceParams& p, CollisionAvoidanceDebug* debug) {
  std::int32_t first = -1;
  real first_t = math::kInfinity;
  real first_dist = math::kInfinity;
  real first_min_sep = 0;
  bool first_overlap = false;
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(targets.size()); ++i) {
    const Kinematic& t = targets[static_cast<std::size_t>(i)];
    const Vec2 dp = t.position - character.position;
    const Vec2 dv = t.velocity - character.velocity;
    const real dist = length(dp);
    real tc = 0;
    real min_sep = dist;
    const bool overlap = dist < p.collision_radius;
    if (!overlap) {
      // Same velocity: the distance is constant and (not overlapping) they never collide.
      if (length_sq(dv) == 0) continue;
      tc = time_of_closest_approach(dp, dv);
      if (tc < 0 || tc > p.time_horizon) continue;  // separating, or too far in the future
      min_sep = length(dp + dv * tc);
      if (min_sep > p.collision_radius) continue;
    }
    // First imminent collision wins; ties go to the nearer target, then to the lower index.
    if (tc < first_t || (tc == first_t && dist < first_dist)) {
      first = i;
      first_t = tc;
      first_dist = dist;
      first_min_sep = min_sep;
      first_overlap = overlap;
    }
  }
  if (debug != nullptr) *debug = CollisionAvoidanceDebug{};
  if (first < 0) return {};

  const Kinematic& t = targets[static_cast<std::size_t>(first)];
  const Vec2 self_future = character.position + character.velocity * first_t;
  const Vec2 target_future = t.position + t.velocity * first_t;
  const Vec2 away_now = character.position - t.position;
  Vec2 dir;
  bool sidestep = false;
  if (first_overlap) {
    dir = normalized(away_now);
  } else {
    // The predicted offset is written so that the pair computes exactly negated vectors, which
    // keeps their reactions antisymmetric in floating point too.
    const Vec2 future_away = self_future - target_future;
    // "Coincide" allows the rounding residue of dp + dv t along the line of approach.
    if (length(future_away) <= 1e-9 * (first_dist + p.collision_radius)) {
      sidestep = true;
    } else {
      dir = normalized(future_away);
    }
  }
  if (sidestep || math::is_zero(dir)) {
    // Undefined direction: back off on current positions plus a sidestep to perp_left(away).
    // perp_left(-a) = -perp_left(a), so the other character steps to the opposite side.
    Vec2 away = normalized(away_now);
    if (math::is_zero(away)) away = normalized(-t.velocity + character.velocity);  // coincident: use relative velocity
    if (math::is_zero(away)) away = -math::as_vector(character.orientation);       // fully degenerate
    dir = normalized(away + math::perp_left(away));
    sidestep = true;
  }
  if (debug != nullptr) {
    debug->target_index = first;
    debug->t_closest = first_t;
    debug->min_separation = first_min_sep;
    debug->predicted_self = self_future;
    debug->predicted_target = target_future;
    debug->overlapping = first_overlap;
    debug->sidestep = sidestep;
  }
  return {dir * p.max_acceleration, 0};
}

}  // namespace flockstep::behavior
