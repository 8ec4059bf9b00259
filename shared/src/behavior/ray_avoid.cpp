#include "flockstep/behavior/ray_avoid.hpp"

namespace flockstep::behavior {
namespace {

using math::cross;
using math::dot;
using math::length;
using math::normalized;

// Delegated seek (T41: obstacle avoidance -> seek): full acceleration toward the target.
SteeringOutput seek_to(Vec2 from, Vec2 target, real max_acceleration) {
  return {normalized(target - from) * max_acceleration, 0};
}

}  // namespace

RayHit cast_segment(Vec2 origin, Vec2 move, const Wall& wall) {
  const Vec2 e = wall.b - wall.a;
  const real denom = cross(move, e);
  if (denom == 0) return {};  // parallel or degenerate: a grazing cast along the wall does not count
  const Vec2 ao = wall.a - origin;
  // origin + move s = a + e u  =>  s = (ao x e) / (move x e), u = (ao x move) / (move x e).
  const real s = cross(ao, e) / denom;
  const real u = cross(ao, move) / denom;
  if (s < 0 || s > 1 || u < 0 || u > 1) return {};
  Vec2 n = wall.normal();
  if (dot(n, move) > 0) n = -n;  // face the side the ray comes from
  return {true, origin + move * s, n, s};
}

RayHit cast_circle(Vec2 origin, Vec2 move, const Circle& circle) {
  const Vec2 f = origin - circle.center;
  const real c = dot(f, f) - circle.radius * circle.radius;
  if (c <= 0) {
    Vec2 n = normalized(f);
    if (math::is_zero(n)) n = -normalized(move);
    return {true, origin, n, 0};
  }
  const real a = dot(move, move);
  if (a == 0) return {};
  const real b = dot(f, move);  // half of the usual b
  const real disc = b * b - a * c;
  if (disc < 0) return {};
  // Origin outside, so both roots share a sign; the smaller root is the entry point.
  const real s = (-b - math::sqrt(disc)) / a;
  if (s < 0 || s > 1) return {};
  const Vec2 p = origin + move * s;
  return {true, p, normalized(p - circle.center), s};
}

RayHit get_collision(const ObstacleDetector& detector, Vec2 position, Vec2 move_amount) {
  RayHit best;
  for (const Wall& w : detector.walls) {
    const RayHit h = cast_segment(position, move_amount, w);
    if (h.hit && (!best.hit || h.fraction < best.fraction)) best = h;
  }
  for (const Circle& c : detector.circles) {
    const RayHit h = cast_circle(position, move_amount, c);
    if (h.hit && (!best.hit || h.fraction < best.fraction)) best = h;
  }
  return best;
}

Vec2 ray_direction(const Kinematic& character) {
  const Vec2 d = normalized(character.velocity);
  return math::is_zero(d) ? math::as_vector(character.orientation) : d;
}

SteeringOutput ray_avoidance(const Kinematic& character, const ObstacleDetector& detector, const RayAvoidParams& p,
                             RayAvoidDebug* debug) {
  const Vec2 ray = ray_direction(character) * p.lookahead;
  const RayHit hit = get_collision(detector, character.position, ray);
  const Vec2 target = hit.position + hit.normal * p.avoid_distance;
  if (debug != nullptr) *debug = {character.position, ray, hit, hit.hit ? target : Vec2{}};
  if (!hit.hit) return {};
  return seek_to(character.position, target, p.max_acceleration);
}

RaySet make_rays(Vec2 position, Vec2 direction, RayConfig config, const MultiRayParams& p, real side_angle) {
  RaySet s;
  const math::SinCos sc = math::sin_cos(side_angle);
  const Vec2 left_dir = math::rotate(direction, sc);
  const Vec2 right_dir = math::rotate(direction, math::SinCos{-sc.sin, sc.cos});
  switch (config) {
    case RayConfig::kSingle:
      s.rays[0] = {position, direction * p.lookahead};
      s.count = 1;
      break;
    case RayConfig::kWhiskers:
      s.rays[0] = {position, direction * p.lookahead};
      s.rays[1] = {position, left_dir * p.whisker_length};
      s.rays[2] = {position, right_dir * p.whisker_length};
      s.count = 3;
      break;
    case RayConfig::kParallel: {
      const Vec2 side = math::perp_left(direction) * p.parallel_offset;
      s.rays[0] = {position + side, direction * p.lookahead};
      s.rays[1] = {position - side, direction * p.lookahead};
      s.count = 2;
      break;
    }
    case RayConfig::kFan:
      s.rays[0] = {position, left_dir * p.lookahead};
      s.rays[1] = {position, right_dir * p.lookahead};
      s.count = 2;
      break;
  }
  return s;
}

SteeringOutput multi_ray_avoidance(const Kinematic& character, const ObstacleDetector& detector,
                                   const MultiRayParams& p, MultiRayState& state, real dt, MultiRayDebug* debug) {
  if (state.side_angle < 0) state.side_angle = p.adaptive_angle ? p.min_angle : p.side_angle;
  const real angle = p.adaptive_angle ? state.side_angle : p.side_angle;
  const RaySet rays = make_rays(character.position, ray_direction(character), p.config, p, angle);

  std::array<RayHit, kMaxRays> hits{};
  std::int32_t nearest = -1;
  real nearest_dist = math::kInfinity;
  for (std::int32_t i = 0; i < rays.count; ++i) {
    const Ray& r = rays.rays[static_cast<std::size_t>(i)];
    RayHit& h = hits[static_cast<std::size_t>(i)];
    h = get_collision(detector, r.origin, r.move);
    if (!h.hit) continue;
    // Compare distances from the character, not fractions: the rays have different lengths.
    const real d = math::distance(character.position, h.position);
    if (d < nearest_dist) {
      nearest_dist = d;
      nearest = i;
    }
  }
  const bool any_hit = nearest >= 0;

  std::int32_t used = -1;
  Vec2 target;
  if (any_hit) {
    const RayHit& h = hits[static_cast<std::size_t>(nearest)];
    used = nearest;
    target = h.position + h.normal * p.avoid_distance;
  }
  if (p.winner_ray) {
    const Vec2 dir = ray_direction(character);
    if (state.winner >= 0 && state.winner_time_left > 0) {
      if (any_hit) {
        // Corner-trap remedy: hits from the other rays may not flip the turn. The target keeps its
        // distance ahead/behind (so the character still brakes) but is mirrored onto the
        // winner's side of the heading line.
        const Vec2 local = math::to_local(target - character.position, dir);
        real lateral = local.y < 0 ? -local.y : local.y;
        if (lateral == 0) lateral = p.avoid_distance;  // dead ahead: still turn the winner's way
        target = character.position + math::to_world({local.x, state.winner_side * lateral}, dir);
        state.winner_time_left = p.winner_hold_time;
      } else {
        state.winner_time_left -= dt;
        if (state.winner_time_left <= 0) state.winner = -1;
      }
    } else if (any_hit) {
      // First hit after a clear spell: this ray wins, and its target's side is the turn direction.
      state.winner = nearest;
      state.winner_time_left = p.winner_hold_time;
      const real c = math::cross(dir, target - character.position);
      state.winner_side = c < 0 ? real(-1) : real(1);
    } else {
      state.winner = -1;
    }
  }

  // Remedy 1: the next tick's angle. Widening continues while hits come on consecutive frames.
  if (any_hit) {
    ++state.consecutive_hits;
    if (p.adaptive_angle) state.side_angle = math::min(p.max_angle, state.side_angle + p.widen_rate * dt);
  } else {
    state.consecutive_hits = 0;
    if (p.adaptive_angle) state.side_angle = math::max(p.min_angle, state.side_angle - p.narrow_rate * dt);
  }

  if (debug != nullptr) {
    debug->rays = rays;
    debug->hits = hits;
    debug->used_ray = used;
    debug->target = used >= 0 ? target : Vec2{};
    debug->side_angle = angle;
  }
  if (used < 0) return {};
  return seek_to(character.position, target, p.max_acceleration);
}

}  // namespace flockstep::behavior
