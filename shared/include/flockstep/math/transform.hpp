#pragma once
/// \file transform.hpp
/// T11 world <-> local transforms and T14 toroidal wrap.
///
/// Flockstep's local frame: x forward (along the heading), y to the left (Buckland's
/// convention). Bourg's frame (y forward, x to starboard) is available through to_bourg_local
/// so the seed's tests can be written in its own terms.
#include "flockstep/math/angle.hpp"

namespace flockstep::math {

/// World vector -> local frame of a body whose unit heading is h: (forward, left) components.
constexpr Vec2 to_local(Vec2 world, Vec2 heading) { return {dot(world, heading), cross(heading, world)}; }
/// Local (forward, left) -> world for unit heading h.
constexpr Vec2 to_world(Vec2 local, Vec2 heading) { return heading * local.x + perp_left(heading) * local.y; }
/// World point -> local point of a body at position p with unit heading h.
constexpr Vec2 to_local_point(Vec2 world, Vec2 p, Vec2 heading) { return to_local(world - p, heading); }
/// Local point -> world point.
constexpr Vec2 to_world_point(Vec2 local, Vec2 p, Vec2 heading) { return p + to_world(local, heading); }

/// T11 in Bourg's terms: w = R(-theta)(p_other - p_self) with y forward and x to starboard
/// (right). Ahead iff w.y > 0; behind iff w.y < 0; w.x > 0 means to the right.
constexpr Vec2 to_bourg_local(Vec2 world, Vec2 heading) {
  const Vec2 l = to_local(world, heading);
  return {-l.y, l.x};
}

/// T14 toroidal wrap as the seed does it: x > W -> 0, x < 0 -> W; same for y with H.
/// Velocity is untouched. Positions stay in [0, W] x [0, H].
constexpr Vec2 wrap_seed(Vec2 p, real width, real height) {
  if (p.x > width) p.x = 0;
  else if (p.x < 0) p.x = width;
  if (p.y > height) p.y = 0;
  else if (p.y < 0) p.y = height;
  return p;
}

/// T14, continuous variant used by the simulation: x mod W into [0, W), so a body leaving by
/// 0.3 m reappears 0.3 m inside the opposite edge instead of snapping onto it.
inline real wrap_coord(real x, real size) {
  real r = x - size * std::floor(x / size);
  if (r >= size) r -= size;  // floor rounding can return exactly size
  if (r < 0) r = 0;
  return r;
}
inline Vec2 wrap_torus(Vec2 p, real width, real height) { return {wrap_coord(p.x, width), wrap_coord(p.y, height)}; }

/// Shortest displacement from a to b on a torus of the given size (for wrapped neighbour
/// distances; the seed does not measure wrapped distances, the simulation may).
inline Vec2 torus_delta(Vec2 a, Vec2 b, real width, real height) {
  Vec2 d = b - a;
  if (d.x > width * 0.5) d.x -= width;
  else if (d.x < -width * 0.5) d.x += width;
  if (d.y > height * 0.5) d.y -= height;
  else if (d.y < -height * 0.5) d.y += height;
  return d;
}

}  // namespace flockstep::math
