#pragma once
// The T76 lane kernel as a template over the lane type (math/lanes.hpp). Private to the library:
// flocking_lanes.cpp instantiates it for SSE2 / wasm SIMD128 and for the scalar reference,
// flocking_lanes_avx2.cpp for AVX2 (that file alone is compiled with -mavx2). Every
// instantiation performs the same operations in the same order on every lane, so all of them
// produce the same bits; which one runs is a matter of speed only.
#include <span>

#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/math/lanes.hpp"

namespace flockstep::behavior::lanes_kernel {

using math::lanes::reduce_add;

// The lane type decides whether an operation is one vector instruction or a loop, never what it
// computes.
template <class L>
inline LaneFlockResult flock_sums(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges) {
  using D = typename L::D;
  using M = typename L::M;
  const D px = L::splat(q.position.x), py = L::splat(q.position.y);
  const D hx = L::splat(q.heading.x), hy = L::splat(q.heading.y);
  const D r2 = L::splat(q.radius * q.radius);
  const D cos_half = L::splat(q.cos_half_fov);
  const M check_fov = L::all_lanes(q.cos_half_fov > -1);
  const bool wrap = q.wrap;
  // torus_delta's thresholds and corrections, for worlds too small for per-range images.
  const D half_w = L::splat(q.width * 0.5), neg_half_w = L::splat(-(q.width * 0.5)), w = L::splat(q.width);
  const D half_h = L::splat(q.height * 0.5), neg_half_h = L::splat(-(q.height * 0.5)), h = L::splat(q.height);
  const D zero = L::splat(0.0), one = L::splat(1.0);
  const D min_d = L::splat(kSeparationMinDistance);

  D count = zero, sep_x = zero, sep_y = zero, head_x = zero, head_y = zero, off_x = zero, off_y = zero;
  M coincident = L::all_lanes(false);
  for (const SlotRange& r : ranges) {
    // A range across a wrapped world's seam is seen at its image: positions + r.shift.
    const D sx = L::splat(r.shift.x), sy = L::splat(r.shift.y);
    for (std::int32_t k = r.begin; k < r.end; k += kLaneWidth) {
      D dx = L::sub(L::add(L::load(a.x + k), sx), px);
      D dy = L::sub(L::add(L::load(a.y + k), sy), py);
      if (wrap) {
        // if (d > w/2) d -= w; else if (d < -w/2) d += w;  (math::torus_delta) as two selects.
        dx = L::select(L::lt(half_w, dx), L::sub(dx, w), L::select(L::lt(dx, neg_half_w), L::add(dx, w), dx));
        dy = L::select(L::lt(half_h, dy), L::sub(dy, h), L::select(L::lt(dy, neg_half_h), L::add(dy, h), dy));
      }
      const D d2 = L::add(L::mul(dx, dx), L::mul(dy, dy));
      const D d = L::sqrt(d2);
      M keep = L::mask_and(L::index_mask(k, r.end, q.self), L::le(d2, r2));
      keep = L::mask_and(keep, L::eq_i32(a.group + k, q.group));
      // T32: outside the view iff the body has a bearing (d2 > 0) and dot(h, d) < cos_half |d|.
      const M positive = L::lt(zero, d2);
      const M behind = L::lt(L::add(L::mul(hx, dx), L::mul(hy, dy)), L::mul(cos_half, d));
      keep = L::mask_andnot(keep, L::mask_and(check_fov, L::mask_and(positive, behind)));
      coincident = L::mask_or(coincident, L::mask_andnot(keep, positive));
      // Separation term: away / (d max(d, min)) with away = -offset, i.e. unit away over distance
      // with the distance clamped as separation_term clamps it; one division per lane. Lanes with
      // d = 0 compute inf or NaN here and are dropped by the mask.
      const D inv = L::div(one, L::mul(d, L::max(d, min_d)));
      const M sep_ok = L::mask_and(keep, positive);
      sep_x = L::sub(sep_x, L::keep(sep_ok, L::mul(dx, inv)));
      sep_y = L::sub(sep_y, L::keep(sep_ok, L::mul(dy, inv)));
      head_x = L::add(head_x, L::keep(keep, L::load(a.hx + k)));
      head_y = L::add(head_y, L::keep(keep, L::load(a.hy + k)));
      off_x = L::add(off_x, L::keep(keep, dx));
      off_y = L::add(off_y, L::keep(keep, dy));
      count = L::add(count, L::keep(keep, one));
    }
  }
  LaneFlockResult out;
  out.coincident = L::any(coincident);
  out.sums.count = static_cast<std::int32_t>(reduce_add<L>(count));
  out.sums.separation = {reduce_add<L>(sep_x), reduce_add<L>(sep_y)};
  out.sums.heading_sum = {reduce_add<L>(head_x), reduce_add<L>(head_y)};
  out.sums.offset_sum = {reduce_add<L>(off_x), reduce_add<L>(off_y)};
  return out;
}

}  // namespace flockstep::behavior::lanes_kernel
