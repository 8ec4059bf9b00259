#include "flockstep/sim/rules.hpp"

#include "flockstep/math/transform.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {
namespace {

using math::real;
using math::Vec2;

/// The centre of `c` as seen from `origin`: itself, or its nearest torus copy. A copy is the
/// centre plus or minus a whole world size, so a centre that needs no shift keeps its exact bits.
Vec2 centre_near(const behavior::Circle& c, Vec2 origin, real w, real h) {
  Vec2 k = c.center;
  if (w > 0) {
    const real dx = k.x - origin.x;
    if (dx > w * 0.5) k.x -= w;
    else if (dx < -w * 0.5) k.x += w;
  }
  if (h > 0) {
    const real dy = k.y - origin.y;
    if (dy > h * 0.5) k.y -= h;
    else if (dy < -h * 0.5) k.y += h;
  }
  return k;
}

/// Depth of `p` inside the circle (centre, grown radius), > 0 when inside.
real depth(Vec2 p, Vec2 centre, real grown) {
  const real d2 = math::length_sq(p - centre);
  return d2 < grown * grown ? grown - math::sqrt(d2) : 0;
}

/// Project p onto the surface of the grown circle and drop the inward part of v.
void project_out(Vec2& p, Vec2& v, Vec2 centre, real grown) {
  const Vec2 d = p - centre;
  const real len = math::length(d);
  // Exactly at the centre: push out along +x (deterministic, never NaN).
  const Vec2 n = len > 0 ? d / len : Vec2{1, 0};
  p = centre + n * grown;
  const real vn = math::dot(v, n);
  if (vn < 0) v -= n * vn;
}

/// Drop the part of v pointing into the circle at p (p on or near its surface).
void stop_inward(Vec2& v, Vec2 p, Vec2 centre) {
  const Vec2 d = p - centre;
  const real len = math::length(d);
  if (!(len > 0)) return;
  const Vec2 n = d / len;
  const real vn = math::dot(v, n);
  if (vn < 0) v -= n * vn;
}

}  // namespace

real push_out_of_obstacles(Vec2& p, Vec2& v, real radius, std::span<const behavior::Circle> obstacles, real wrap_width,
                           real wrap_height) {
  const Vec2 origin = p;  // torus copies are chosen once, from where the body started
  // Pass 1: each circle in order (the rule as it has always been; almost always the last word).
  std::size_t last = obstacles.size();  // the circle the body was last put on the surface of
  real deepest = 0;
  for (std::size_t k = 0; k < obstacles.size(); ++k) {
    const Vec2 c = centre_near(obstacles[k], origin, wrap_width, wrap_height);
    const real grown = obstacles[k].radius + radius;
    const real d = depth(p, c, grown);
    if (d <= 0) continue;
    deepest = math::max(deepest, d);
    project_out(p, v, c, grown);
    last = k;
  }
  if (last == obstacles.size()) return 0;
  // Pass 2, only for overlapping obstacles: is the body inside one again?
  for (std::size_t k = 0; k < obstacles.size(); ++k) {
    if (k == last) continue;
    const Vec2 a = centre_near(obstacles[k], origin, wrap_width, wrap_height);
    const real ra = obstacles[k].radius + radius;
    if (depth(p, a, ra) <= 0) continue;
    // It sits on the surface of `last` and inside `k`: the nearest point outside both is where
    // the two grown circles cross (the pocket's corner).
    const Vec2 b = centre_near(obstacles[last], origin, wrap_width, wrap_height);
    const real rb = obstacles[last].radius + radius;
    const Vec2 ab = b - a;
    const real dist = math::length(ab);
    if (!(dist > 0) || dist >= ra + rb || dist <= (ra > rb ? ra - rb : rb - ra)) {
      project_out(p, v, a, ra);  // concentric, apart or nested: leave the one it is inside
      return deepest;
    }
    // Circle-circle intersection: along ab at distance x from a, offset h to either side.
    const real x = (dist * dist + ra * ra - rb * rb) / (2 * dist);
    const real h2 = ra * ra - x * x;
    const real h = h2 > 0 ? math::sqrt(h2) : 0;
    const Vec2 u = ab / dist;
    const Vec2 side{-u.y, u.x};
    const Vec2 base = a + u * x;
    const Vec2 c1 = base + side * h, c2 = base - side * h;
    p = math::length_sq(c1 - p) <= math::length_sq(c2 - p) ? c1 : c2;
    stop_inward(v, p, a);
    stop_inward(v, p, b);
    return deepest;
  }
  return deepest;
}

namespace {
/// One axis of the solid border: clamp p into [lo, hi] and cancel the velocity that points out.
/// The low side first, then the high one, as the rule always did (a body wider than the world
/// ends at hi).
void clamp_axis(real& p, real& v, real lo, real hi) {
  if (p < lo) {
    p = lo;
    if (v < 0) v = 0;
  }
  if (p > hi) {
    p = hi;
    if (v > 0) v = 0;
  }
}
}  // namespace

Confined confine_body(Vec2& p, Vec2& v, real radius, std::span<const Circle> obstacles, const Scenario& scenario,
                      real wrap_width, real wrap_height) {
  Confined c;
  c.depth = push_out_of_obstacles(p, v, radius, obstacles, wrap_width, wrap_height);
  c.wrapped = border_wrapped(p, v, radius, scenario);
  return c;
}

bool border_wrapped(Vec2& p, Vec2& v, real radius, const Scenario& scenario) {
  const Vec2 before = p;
  apply_border(p, v, radius, scenario);
  return scenario.wrap && !(p == before);
}

real body_radius(const Scenario& scenario, std::int32_t group) {
  return group >= 0 && group < static_cast<std::int32_t>(scenario.groups.size())
             ? scenario.groups[static_cast<std::size_t>(group)].radius
             : scenario.player_craft.length * 0.5;
}

void apply_border(Vec2& p, Vec2& v, real radius, const Scenario& s) {
  const real w = s.width, h = s.height;
  if (s.wrap) {
    p = math::wrap_torus(p, w, h);  // T14
    return;
  }
  clamp_axis(p.x, v.x, radius, w - radius);
  clamp_axis(p.y, v.y, radius, h - radius);
}

}  // namespace flockstep::sim
