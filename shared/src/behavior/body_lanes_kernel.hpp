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

template <class L>
[[gnu::always_inline]] inline void body_update(BodyLanes& b, real dt) {
  using D = typename L::D;
  const D t = L::splat(dt);
  // 1. F = truncate(steering_force, max_force); 2. a = F / mass.
  D fx = L::load(b.fx), fy = L::load(b.fy);
  truncate<L>(fx, fy, L::load(b.max_force));
  const D mass = L::load(b.mass);
  const D ax = L::div(fx, mass), ay = L::div(fy, mass);
  // 3. v = truncate(v + a dt, max_speed); 4. p += v dt.
  D vx = L::add(L::load(b.vx), L::mul(ax, t));
  D vy = L::add(L::load(b.vy), L::mul(ay, t));
  truncate<L>(vx, vy, L::load(b.max_speed));
  const D px = L::add(L::load(b.px), L::mul(vx, t));
  const D py = L::add(L::load(b.py), L::mul(vy, t));
  // 5. heading = v / |v| where |v| > kHeadingMinSpeed, else unchanged.
  const D speed = L::sqrt(L::add(L::mul(vx, vx), L::mul(vy, vy)));
  const typename L::M moving = L::lt(L::splat(kHeadingMinSpeed), speed);
  const D hx = L::select(moving, L::div(vx, speed), L::load(b.hx));
  const D hy = L::select(moving, L::div(vy, speed), L::load(b.hy));
  for (int j = 0; j < kLaneWidth; ++j) {
    b.px[j] = L::lane(px, j);
    b.py[j] = L::lane(py, j);
    b.vx[j] = L::lane(vx, j);
    b.vy[j] = L::lane(vy, j);
    b.hx[j] = L::lane(hx, j);
    b.hy[j] = L::lane(hy, j);
  }
}

}  // namespace flockstep::behavior::lanes_kernel
