#include "flockstep/behavior/avoid.hpp"

#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/ray_avoid.hpp"

namespace flockstep::behavior {
namespace {

using math::dot;
using math::length;
using math::normalized;

}  // namespace

// ---------------------------------------------------------------------------------------------
// T73

real detection_box_length(const Body& b, const DetectionBoxParams& p) {
  if (!(b.max_speed > 0)) return p.min_box_length;
  return p.min_box_length * (1 + length(b.velocity) / b.max_speed);
}

Vec2 obstacle_avoidance_force(const Body& b, std::span<const Circle> obstacles, const DetectionBoxParams& p,
                              DetectionBoxDebug* debug) {
  const real L = detection_box_length(b, p);
  const real W = p.box_width > 0 ? p.box_width : 2 * b.radius;
  const Vec2 heading = b.heading;
  std::int32_t closest = -1;
  real closest_x_hit = math::kInfinity;
  Vec2 closest_local;
  for (std::size_t i = 0; i < obstacles.size(); ++i) {
    const Circle& c = obstacles[i];
    const Vec2 local = math::to_local_point(c.center, b.position, heading);
    // (a) in the box's range: centre not behind, near edge not beyond L.
    if (local.x < 0 || local.x - c.radius > L) continue;
    // (b) expand by half the box width, (c) intersect the local x axis with the expanded circle.
    const real R = c.radius + W * 0.5;
    if (!(math::abs(local.y) < R)) continue;
    const real s = math::sqrt(R * R - local.y * local.y);
    real x_hit = local.x - s;
    if (x_hit <= 0) x_hit = local.x + s;  // the body is already inside the expanded circle
    // (d) closest hit in front; ties keep the lower index.
    if (x_hit < closest_x_hit) {
      closest_x_hit = x_hit;
      closest = static_cast<std::int32_t>(i);
      closest_local = local;
    }
  }
  if (debug != nullptr) {
    *debug = DetectionBoxDebug{};
    debug->box_length = L;
    debug->box_width = W;
  }
  if (closest < 0) return {};

  const Circle& c = obstacles[static_cast<std::size_t>(closest)];
  const real x_obs = closest_local.x;
  const real y_obs = closest_local.y;
  // The seed's multiplier is 1 + (L - x)/L; x can reach L + r, so clamp to the documented [1, 2].
  const real multiplier = math::clamp(1 + (L - x_obs) / L, 1, 2);
  real f_y = 0;
  if (p.seed_literal) {
    f_y = (c.radius - y_obs) * multiplier;
  } else {
    // Away from the obstacle, stronger the nearer it sits to the centre line. y = 0: fixed side (left).
    const real R = c.radius + W * 0.5;
    const real side = y_obs > 0 ? real(1) : (y_obs < 0 ? real(-1) : real(0));
    f_y = side == 0 ? R * multiplier : -side * (R - math::abs(y_obs)) * multiplier;
  }
  const real f_x = (c.radius - x_obs) * p.braking_weight;
  const Vec2 local_force{f_x, f_y};
  if (debug != nullptr) {
    debug->obstacle_index = closest;
    debug->local_obstacle = closest_local;
    debug->x_hit = closest_x_hit;
    debug->multiplier = multiplier;
    debug->local_force = local_force;
  }
  return math::to_world(local_force, heading);
}

// ---------------------------------------------------------------------------------------------
// T74

Vec2 hiding_spot(const Circle& obstacle, Vec2 hunter_position, real gap) {
  Vec2 away = normalized(obstacle.center - hunter_position);
  if (math::is_zero(away)) away = {1, 0};
  return obstacle.center + away * (obstacle.radius + gap);
}

bool line_of_sight(Vec2 from, Vec2 to, std::span<const Circle> obstacles) {
  const Vec2 d = to - from;
  const real dd = dot(d, d);
  for (const Circle& c : obstacles) {
    // Distance from the centre to the closest point of the segment.
    const real t = dd > 0 ? math::clamp(dot(c.center - from, d) / dd, 0, 1) : real(0);
    const Vec2 closest = from + d * t;
    if (math::distance_sq(closest, c.center) < c.radius * c.radius) return false;
  }
  return true;
}

void hide_memory_update(HideMemory& memory, bool visible, real dt) {
  memory.time_since_seen_s = visible ? real(0) : memory.time_since_seen_s + dt;
}

Vec2 hide_force(const Body& b, const Mover& hunter, std::span<const Circle> obstacles, const HideParams& p,
                HideDebug* debug, const HideMemory* memory) {
  HideDebug d;
  d.hunter_visible = line_of_sight(hunter.position, b.position, obstacles);
  Vec2 force;
  // Refinements are action selection: decide first whether to hide at all.
  bool engaged = true;
  if (p.seen_within_s >= 0) {
    const real since = memory != nullptr ? memory->time_since_seen_s : (d.hunter_visible ? real(0) : math::kInfinity);
    engaged = d.hunter_visible || since <= p.seen_within_s;
  }
  const bool panic = p.panic_distance > 0 && math::distance(b.position, hunter.position) < p.panic_distance;
  if (!engaged) {
    d.action = HideAction::kIgnore;
  } else if (panic || obstacles.empty()) {
    d.action = HideAction::kEvade;
    force = evade_force(b, hunter);
  } else {
    real best = math::kInfinity;
    for (std::size_t i = 0; i < obstacles.size(); ++i) {
      const Vec2 spot = hiding_spot(obstacles[i], hunter.position, p.gap);
      const real dist2 = math::distance_sq(spot, b.position);
      if (dist2 < best) {
        best = dist2;
        d.spot = spot;
        d.obstacle_index = static_cast<std::int32_t>(i);
      }
    }
    d.action = HideAction::kHide;
    force = arrive_force(b, d.spot, p.deceleration);
  }
  if (debug != nullptr) *debug = d;
  return force;
}

// ---------------------------------------------------------------------------------------------
// T75

std::array<Vec2, 3> feeler_tips(const Body& b, const FeelerParams& p) {
  const math::SinCos sc = math::sin_cos(p.side_angle);
  const Vec2 h = b.heading;
  return {b.position + h * p.length, b.position + math::rotate(h, sc) * p.side_length,
          b.position + math::rotate(h, math::SinCos{-sc.sin, sc.cos}) * p.side_length};
}

Vec2 wall_avoidance_force(const Body& b, std::span<const Wall> walls, const FeelerParams& p, FeelerDebug* debug) {
  const std::array<Vec2, 3> tips = feeler_tips(b, p);
  FeelerDebug d;
  d.tips = tips;
  real closest = math::kInfinity;
  for (std::int32_t f = 0; f < 3; ++f) {
    const Vec2 tip = tips[static_cast<std::size_t>(f)];
    for (std::size_t w = 0; w < walls.size(); ++w) {
      const RayHit h = cast_segment(b.position, tip - b.position, walls[w]);
      if (!h.hit) continue;
      const real dist = math::distance(b.position, h.position);
      if (dist < closest) {
        closest = dist;
        d.feeler_index = f;
        d.wall_index = static_cast<std::int32_t>(w);
        d.hit_point = h.position;
        // Orient toward the agent's side of the wall (the cast's normal faces the ray origin,
        // which is the agent), falling back to the wall's own normal if it lies on the wall.
        Vec2 n = walls[w].normal();
        if (dot(n, b.position - walls[w].a) < 0) n = -n;
        d.normal = n;
        // Depth from this feeler's own tip (the slides' code reuses a later feeler's tip).
        d.depth = length(tip - h.position);
      }
    }
  }
  if (debug != nullptr) *debug = d;
  if (d.feeler_index < 0) return {};
  return d.normal * d.depth;
}

}  // namespace flockstep::behavior
