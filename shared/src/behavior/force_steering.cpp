#include "flockstep/behavior/force_steering.hpp"

namespace flockstep::behavior {
namespace {

using math::distance;
using math::dot;
using math::length;
using math::normalized;
using math::truncate;

// Desired velocity of arrive (T66): the offset to the target scaled to the arrive speed.
// Zero exactly at the target (the slides return a zero force there).
Vec2 arrive_desired_velocity(const Body& b, Vec2 target, real deceleration) {
  const Vec2 to = target - b.position;
  const real d = length(to);
  if (d <= 0) return {};
  const real speed = arrive_desired_speed(d, b.max_speed, deceleration);
  return to * (speed / d);
}

// Desired velocity of flee: away from the threat at max_speed (or the slides' truncate). A threat
// exactly on top of the body has no direction; escape along the heading so the result is
// deterministic and never NaN.
Vec2 flee_desired_velocity(const Body& b, Vec2 threat, SeekMode mode) {
  const Vec2 away = b.position - threat;
  if (math::is_zero(away)) return normalized(b.heading) * b.max_speed;
  if (mode == SeekMode::kTruncated) return truncate(away, b.max_speed);
  return normalized(away) * b.max_speed;
}

}  // namespace

Vec2 seek_desired_velocity(const Body& b, Vec2 target, SeekMode mode) {
  const Vec2 to = target - b.position;
  if (mode == SeekMode::kTruncated) return truncate(to, b.max_speed);
  return normalized(to) * b.max_speed;
}

Vec2 seek_force(const Body& b, Vec2 target, SeekMode mode) {
  return seek_desired_velocity(b, target, mode) - b.velocity;
}

Vec2 flee_force(const Body& b, Vec2 threat, real panic_range) {
  return flee_force(b, threat, panic_range, SeekMode::kNormalized);
}

Vec2 flee_force(const Body& b, Vec2 threat, real panic_range, SeekMode mode) {
  // Compare squared distances; an infinite range squares to infinity, which is fine.
  if (math::distance_sq(b.position, threat) > panic_range * panic_range) return {};
  return flee_desired_velocity(b, threat, mode) - b.velocity;
}

real arrive_desired_speed(real distance_m, real max_speed, real deceleration) {
  // The slides compute speed = d / DECEL and then truncate(to_target, speed); truncate can only
  // shorten, so a DECEL below 1 behaves like 1. Writing the max() makes that explicit.
  const real decel = math::max(real(1), deceleration);
  return math::min(distance_m / decel, max_speed);
}

Vec2 arrive_force(const Body& b, Vec2 target, real deceleration) {
  const Vec2 to = target - b.position;
  if (math::is_zero(to)) return {};  // d = 0: the slides return a zero force
  return arrive_desired_velocity(b, target, deceleration) - b.velocity;
}

real pursuit_look_ahead(real distance_m, real max_speed, real target_speed) {
  const real denom = max_speed + target_speed;
  return denom > 0 ? distance_m / denom : real(0);
}

bool pursue_dead_ahead(const Body& b, const Mover& evader, const PursueParams& p) {
  const Vec2 to = evader.position - b.position;
  const real d = length(to);
  if (d <= 0) return true;
  const Vec2 h = normalized(b.heading);
  // |angle(h, to)| < half  <=>  dot(h, to) > cos_half * |to|  (no division, no inverse cosine).
  if (!(dot(h, to) > math::sin_cos(p.dead_ahead_half_angle).cos * d)) return false;
  if (!p.require_evader_facing) return true;
  const Vec2 ve = evader.velocity;
  const real speed = length(ve);
  if (speed <= 0) return false;
  // Buckland: the evader's heading is (nearly) the reverse of the pursuer's.
  return dot(ve, -h) > math::sin_cos(p.evader_facing_half_angle).cos * speed;
}

Vec2 pursue_point(const Body& b, const Mover& evader, const PursueParams& p) {
  if (pursue_dead_ahead(b, evader, p)) return evader.position;
  const real dt = pursuit_look_ahead(distance(evader.position, b.position), b.max_speed, length(evader.velocity));
  return evader.position + evader.velocity * dt;
}

Vec2 pursue_force(const Body& b, const Mover& evader, const PursueParams& p) {
  return seek_force(b, pursue_point(b, evader, p), p.seek_mode);
}

Vec2 evade_point(const Body& b, const Mover& pursuer) {
  const real dt = pursuit_look_ahead(distance(pursuer.position, b.position), b.max_speed, length(pursuer.velocity));
  return pursuer.position + pursuer.velocity * dt;
}

Vec2 evade_force(const Body& b, const Mover& pursuer) { return flee_force(b, evade_point(b, pursuer)); }

Vec2 offset_pursuit_slot(const Body& leader, Vec2 offset, OffsetFrame frame) {
  if (frame == OffsetFrame::kLeaderLocal) return math::to_world_point(offset, leader.position, leader.heading);
  return leader.position + offset;
}

Vec2 offset_pursuit_point(const Body& b, const Body& leader, Vec2 offset, OffsetFrame frame) {
  const Vec2 slot = offset_pursuit_slot(leader, offset, frame);
  const real dt = pursuit_look_ahead(distance(slot, b.position), b.max_speed, length(leader.velocity));
  return slot + leader.velocity * dt;
}

Vec2 offset_pursuit_force(const Body& b, const Body& leader, Vec2 offset, OffsetFrame frame, real deceleration) {
  return arrive_force(b, offset_pursuit_point(b, leader, offset, frame), deceleration);
}

Vec2 offset_pursuit_matched_force(const Body& b, const Body& leader, Vec2 offset, OffsetFrame frame,
                                  real deceleration) {
  const Vec2 slot = offset_pursuit_slot(leader, offset, frame);
  const Vec2 desired = truncate(leader.velocity + arrive_desired_velocity(b, slot, deceleration), b.max_speed);
  return desired - b.velocity;
}

Vec2 interpose_point(const Body& b, const Mover& a, const Mover& c, InterposeTime time) {
  real dt = 0;
  if (b.max_speed > 0) {
    if (time == InterposeTime::kSeedLiteral) {
      dt = length(a.position + c.position) / (2 * b.max_speed);  // erratum: |midpoint vector|
    } else {
      dt = distance((a.position + c.position) * 0.5, b.position) / b.max_speed;
    }
  }
  const Vec2 pa = a.position + a.velocity * dt;
  const Vec2 pc = c.position + c.velocity * dt;
  return (pa + pc) * 0.5;
}

Vec2 interpose_force(const Body& b, const Mover& a, const Mover& c, real deceleration) {
  return interpose_force(b, a, c, deceleration, InterposeTime::kCorrected);
}

Vec2 interpose_force(const Body& b, const Mover& a, const Mover& c, real deceleration, InterposeTime time) {
  return arrive_force(b, interpose_point(b, a, c, time), deceleration);
}

WanderState wander_init(const WanderParams& p, Rng& rng) {
  const real angle = rng.uniform(-math::kPi, math::kPi);
  return WanderState{math::as_vector(angle) * p.radius};
}

Vec2 wander_world_target(const Body& b, const WanderParams& p, const WanderState& s) {
  return math::to_world_point(s.target_local + Vec2{p.distance, 0}, b.position, b.heading);
}

namespace {
// Jitter the local target by (jx, jy) and project it back onto the circle. A target jittered
// exactly onto the centre has no direction; restart it straight ahead (deterministic, no NaN).
void jitter_target(WanderState& s, const WanderParams& p, real jx, real jy) {
  const Vec2 t = s.target_local + Vec2{jx, jy};
  s.target_local = math::is_zero(t) ? Vec2{p.radius, 0} : normalized(t) * p.radius;
}
}  // namespace

Vec2 wander_force(const Body& b, const WanderParams& p, WanderState& s, Rng& rng, real dt) {
  const real j = p.jitter_per_second * dt;
  // Two statements so the draw order (x then y) is fixed; argument evaluation order is not.
  const real jx = rng.uniform(-j, j);
  const real jy = rng.uniform(-j, j);
  jitter_target(s, p, jx, jy);
  // Offset in local space first, then rotate: force = world target - p = R(heading) * local aim.
  return math::to_world(s.target_local + Vec2{p.distance, 0}, b.heading);
}

Vec2 wander_force_seed_literal(const Body& b, const WanderParams& p, WanderState& s, Rng& rng, real dt) {
  const real j = p.jitter_per_second * dt;
  const real jx = rng.uniform(0, j);  // erratum: one-sided jitter
  const real jy = rng.uniform(0, j);
  jitter_target(s, p, jx, jy);
  // Erratum: the circle offset is added along world +x after the transform.
  const Vec2 world = math::to_world_point(s.target_local, b.position, b.heading) + Vec2{p.distance, 0};
  return world - b.position;
}

Vec2 follow_waypoints_force(const Body& b, std::span<const Vec2> waypoints, const WaypointParams& p, WaypointState& s) {
  const auto n = static_cast<std::int32_t>(waypoints.size());
  if (n == 0) return {};
  std::int32_t cur = s.current < 0 ? 0 : (s.current >= n ? n - 1 : s.current);
  const bool within = math::distance_sq(waypoints[cur], b.position) < p.seek_distance * p.seek_distance;
  bool reached_final = false;
  if (within) {
    if (cur + 1 < n) {
      ++cur;
    } else if (p.loop) {
      cur = 0;
    } else {
      reached_final = true;
    }
  }
  s.current = cur;
  const Vec2 target = waypoints[cur];
  const bool final_of_open_path = !p.loop && cur == n - 1;
  const bool use_arrive = final_of_open_path && (!p.seed_literal || reached_final);
  return use_arrive ? arrive_force(b, target, p.deceleration) : seek_force(b, target);
}

}  // namespace flockstep::behavior
