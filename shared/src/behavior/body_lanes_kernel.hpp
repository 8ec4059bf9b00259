#pragma once
// The T08 body update on lanes as a template over the lane type (math/lanes.hpp), instantiated
// by body_lanes.cpp (SSE2 / wasm SIMD128 / scalar) and body_lanes_avx2.cpp (AVX2).
#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/body_lanes.hpp"
#include "flockstep/math/lanes.hpp"

namespace flockstep::behavior::lanes_kernel {

/// math::truncate on lanes: (x, y) scaled by max / |(x, y)| where |(x, y)|^2 > max^2, else kept.
template <class L>
[[gnu::always_inline]] inline void truncate(typename L::D& x, typename L::D& y, typename L::D max) {
  const typename L::D l2 = L::add(L::mul(x, x), L::mul(y, y));
  const typename L::M keep = L::le(l2, L::mul(max, max));
  const typename L::D s = L::div(max, L::sqrt(l2));  // unused (maybe inf) where kept
  x = L::select(keep, x, L::mul(x, s));
  y = L::select(keep, y, L::mul(y, s));
}

/// The five steps of body_update on lanes: position, velocity and heading updated in place from
/// the force and the limits. The one source of both entry points below.
template <class L>
[[gnu::always_inline]] inline void body_step(typename L::D& px, typename L::D& py, typename L::D& vx, typename L::D& vy,
                                             typename L::D& hx, typename L::D& hy, typename L::D fx, typename L::D fy,
                                             typename L::D mass, typename L::D max_force, typename L::D max_speed,
                                             typename L::D t) {
  using D = typename L::D;
  // 1. F = truncate(steering_force, max_force); 2. a = F / mass.
  truncate<L>(fx, fy, max_force);
  const D ax = L::div(fx, mass), ay = L::div(fy, mass);
  // 3. v = truncate(v + a dt, max_speed); 4. p += v dt.
  vx = L::add(vx, L::mul(ax, t));
  vy = L::add(vy, L::mul(ay, t));
  truncate<L>(vx, vy, max_speed);
  px = L::add(px, L::mul(vx, t));
  py = L::add(py, L::mul(vy, t));
  // 5. heading = v / |v| where |v| > kHeadingMinSpeed, else unchanged.
  const D speed = L::sqrt(L::add(L::mul(vx, vx), L::mul(vy, vy)));
  const typename L::M moving = L::lt(L::splat(kHeadingMinSpeed), speed);
  hx = L::select(moving, L::div(vx, speed), hx);
  hy = L::select(moving, L::div(vy, speed), hy);
}

template <class L>
[[gnu::always_inline]] inline void body_update(BodyLanes& b, real dt) {
  using D = typename L::D;
  D px = L::load(b.px), py = L::load(b.py), vx = L::load(b.vx), vy = L::load(b.vy);
  D hx = L::load(b.hx), hy = L::load(b.hy);
  body_step<L>(px, py, vx, vy, hx, hy, L::load(b.fx), L::load(b.fy), L::load(b.mass), L::load(b.max_force),
               L::load(b.max_speed), L::splat(dt));
  for (int j = 0; j < kLaneWidth; ++j) {
    b.px[j] = L::lane(px, j);
    b.py[j] = L::lane(py, j);
    b.vx[j] = L::lane(vx, j);
    b.vy[j] = L::lane(vy, j);
    b.hx[j] = L::lane(hx, j);
    b.hy[j] = L::lane(hy, j);
  }
}

/// Whole blocks of four bodies straight over the columns (no copy into BodyLanes); returns how
/// many bodies it updated (a multiple of four). The caller updates the rest through BodyLanes.
template <class L>
[[gnu::always_inline]] inline std::int32_t body_update_columns(const BodyColumns& c, std::int32_t n, real dt) {
  using D = typename L::D;
  const D t = L::splat(dt), mass = L::splat(c.mass), max_force = L::splat(c.max_force),
          max_speed = L::splat(c.max_speed);
  // Vec2 is two reals with no padding (static_assert in body_lanes.hpp): a column is x0 y0 x1 y1 ...
  auto* pos = reinterpret_cast<real*>(c.position);
  auto* vel = reinterpret_cast<real*>(c.velocity);
  auto* head = reinterpret_cast<real*>(c.heading);
  const auto* force = reinterpret_cast<const real*>(c.force);
  std::int32_t k = 0;
  for (; k + kLaneWidth <= n; k += kLaneWidth) {
    D px, py, vx, vy, hx, hy, fx, fy;
    L::load_xy(pos + 2 * k, px, py);
    L::load_xy(vel + 2 * k, vx, vy);
    L::load_xy(head + 2 * k, hx, hy);
    L::load_xy(force + 2 * k, fx, fy);
    body_step<L>(px, py, vx, vy, hx, hy, fx, fy, mass, max_force, max_speed, t);
    L::store_xy(pos + 2 * k, px, py);
    L::store_xy(vel + 2 * k, vx, vy);
    L::store_xy(head + 2 * k, hx, hy);
  }
  return k;
}

}  // namespace flockstep::behavior::lanes_kernel
