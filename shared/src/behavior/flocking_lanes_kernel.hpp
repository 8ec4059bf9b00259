#pragma once
// The T76 lane kernel as a template over the eight-float lane type (math/lanes_f32.hpp). Private
// to the library: flocking_lanes.cpp instantiates it for SSE2 / wasm SIMD128 and for the scalar
// reference, flocking_lanes_avx2.cpp for AVX2 (that file alone is compiled with -mavx2). Every
// instantiation performs the same operations in the same order on every lane, so all of them
// produce the same bits; which one runs is a matter of speed only.
#include <cstring>
#include <span>

#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/math/lanes_f32.hpp"

namespace flockstep::behavior::lanes_kernel {

using math::lanes::reduce_add_f8;

/// Everything both passes need from the query, rounded to float and splatted once per body.
template <class L>
struct QueryLanes {
  using F = typename L::F;
  using M = typename L::M;
  F px, py, hx, hy, r2, cos_half;
  M check_fov;
  bool wrap;
  F half_w, neg_half_w, w, half_h, neg_half_h, h;
  F zero, one, min_d;
  explicit QueryLanes(const LaneQuery& q)
      : px(L::splat(static_cast<float>(q.position.x))),
        py(L::splat(static_cast<float>(q.position.y))),
        hx(L::splat(static_cast<float>(q.heading.x))),
        hy(L::splat(static_cast<float>(q.heading.y))),
        r2(L::splat(static_cast<float>(q.radius * q.radius))),
        cos_half(L::splat(static_cast<float>(q.cos_half_fov))),
        check_fov(L::all_lanes(q.cos_half_fov > -1)),
        wrap(q.wrap),
        // torus_delta's thresholds and corrections, for worlds too small for per-range images.
        half_w(L::splat(static_cast<float>(q.width * 0.5))),
        neg_half_w(L::splat(static_cast<float>(-(q.width * 0.5)))),
        w(L::splat(static_cast<float>(q.width))),
        half_h(L::splat(static_cast<float>(q.height * 0.5))),
        neg_half_h(L::splat(static_cast<float>(-(q.height * 0.5)))),
        h(L::splat(static_cast<float>(q.height))),
        zero(L::splat(0.0f)),
        one(L::splat(1.0f)),
        min_d(L::splat(static_cast<float>(kSeparationMinDistance))) {}

  /// Offsets of slots k..k+7 from the body (range image added, torus fold if asked).
  [[gnu::always_inline]] void offsets(const NeighbourArrays& a, std::int32_t k, F sx, F sy, F& dx, F& dy) const {
    dx = L::sub(L::add(L::load(a.x + k), sx), px);
    dy = L::sub(L::add(L::load(a.y + k), sy), py);
    if (wrap) {
      // if (d > w/2) d -= w; else if (d < -w/2) d += w;  (math::torus_delta) as two selects.
      dx = L::select(L::lt(half_w, dx), L::sub(dx, w), L::select(L::lt(dx, neg_half_w), L::add(dx, w), dx));
      dy = L::select(L::lt(half_h, dy), L::sub(dy, h), L::select(L::lt(dy, neg_half_h), L::add(dy, h), dy));
    }
  }
};

/// The running lane sums of one body.
template <class L>
struct SumLanes {
  using F = typename L::F;
  using M = typename L::M;
  F sep_x, sep_y, head_x, head_y, off_x, off_y;
  // The kept lanes counted as an integer (popcount of the mask) and the coincident lanes as mask
  // bits: exact, and two vector registers fewer in a loop that is short of them.
  std::int32_t count = 0;
  unsigned coincident = 0;
  explicit SumLanes(F zero) : sep_x(zero), sep_y(zero), head_x(zero), head_y(zero), off_x(zero), off_y(zero) {}

  /// Adds the lanes of `in` (in radius, of the group, not self) that pass the field-of-view test.
  /// This is where the square root and the division are paid.
  [[gnu::always_inline]] void add(const QueryLanes<L>& c, M in, F dx, F dy, F nhx, F nhy) {
    const F d2 = L::add(L::mul(dx, dx), L::mul(dy, dy));
    const F d = L::sqrt(d2);
    M keep = in;
    // T32: outside the view iff the body has a bearing (d2 > 0) and dot(h, d) < cos_half |d|.
    const M positive = L::lt(c.zero, d2);
    const M behind = L::lt(L::add(L::mul(c.hx, dx), L::mul(c.hy, dy)), L::mul(c.cos_half, d));
    keep = L::mask_andnot(keep, L::mask_and(c.check_fov, L::mask_and(positive, behind)));
    coincident |= L::bits(L::mask_andnot(keep, positive));
    // Separation term: away / (d max(d, min)) with away = -offset, i.e. unit away over distance
    // with the distance clamped as separation_term clamps it; one division per lane. Lanes with
    // d = 0 compute inf or NaN here and are dropped by the mask.
    const F inv = L::div(c.one, L::mul(d, L::max(d, c.min_d)));
    const M sep_ok = L::mask_and(keep, positive);
    sep_x = L::sub(sep_x, L::keep(sep_ok, L::mul(dx, inv)));
    sep_y = L::sub(sep_y, L::keep(sep_ok, L::mul(dy, inv)));
    head_x = L::add(head_x, L::keep(keep, nhx));
    head_y = L::add(head_y, L::keep(keep, nhy));
    off_x = L::add(off_x, L::keep(keep, dx));
    off_y = L::add(off_y, L::keep(keep, dy));
    count += __builtin_popcount(L::bits(keep));
  }

  void result(LaneFlockResult& out) const {
    out.coincident = coincident != 0;
    out.sums.count = count;
    // Widened to double exactly; the force arithmetic after the kernel runs in double.
    auto sum = [](F v) { return static_cast<real>(reduce_add_f8<L>(v)); };
    out.sums.separation = {sum(sep_x), sum(sep_y)};
    out.sums.heading_sum = {sum(head_x), sum(head_y)};
    out.sums.offset_sum = {sum(off_x), sum(off_y)};
  }
};

/// The kept lanes of four vectors written in lane order to out[q][n..] (each out array has room
/// for eight more entries). Data movement only, so the generic form (one store per lane, the count
/// advanced branch-free) and the permute-based one give the same compacted lists.
template <class L>
struct Compactor {
  [[gnu::always_inline]] static std::int32_t put(unsigned bits, std::int32_t n, const typename L::F* v,
                                                 float* const* out) {
    for (int j = 0; j < kNeighbourLanes; ++j) {
      for (int q = 0; q < 4; ++q) out[q][n] = L::lane(v[q], j);
      n += static_cast<std::int32_t>(bits >> j & 1u);
    }
    return n;
  }
};

#if defined(__AVX2__)
/// AVX2: one permute per vector moves the kept lanes to the front (a 256-entry table of lane
/// indices, 8 KB), then one unaligned store of all eight lanes.
struct PermuteTable {
  alignas(32) std::int32_t idx[256][8];
};
/// The table: for mask bits b, the indices of the kept lanes first, in lane order.
constexpr PermuteTable make_permute_table() {
  PermuteTable t{};
  for (unsigned b = 0; b < 256; ++b) {
    int s = 0;
    for (int j = 0; j < 8; ++j)
      if (b >> j & 1u) t.idx[b][s++] = j;
  }
  return t;
}
inline constexpr PermuteTable kPermuteTable = make_permute_table();

template <>
struct Compactor<math::lanes::SimdLanesF8x256> {
  [[gnu::always_inline]] static std::int32_t put(unsigned bits, std::int32_t n,
                                                 const math::lanes::SimdLanesF8x256::F* v, float* const* out) {
    __m256i perm;
    std::memcpy(&perm, kPermuteTable.idx[bits], sizeof perm);
    for (int q = 0; q < 4; ++q) {
      const __m256 moved = _mm256_permutevar8x32_ps(math::lanes::detail::bit_as<__m256>(v[q]), perm);
      _mm256_storeu_ps(out[q] + n, moved);
    }
    return n + __builtin_popcount(bits);
  }
};
#endif

/// Candidates compacted between the passes, at most: a body with more in-range candidates sums
/// them in chunks (whole blocks of eight, so the order does not depend on where a chunk ends).
inline constexpr std::int32_t kCompactChunk = 64;

/// The two-pass kernel. Pass 1 scans the ranges eight slots at a time and keeps, in scan order,
/// the candidates within the radius, of the group and not self (no square root, no division: a
/// compare per lane). Pass 2 sums the kept list eight at a time - entry t goes to lane t % 8 -
/// paying the square root, the field-of-view test and the division only for them (~16 of ~45
/// scanned slots in the flock scenarios).
template <class L>
inline void flock_sums(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges,
                       LaneFlockResult& result) {
  using F = typename L::F;
  using I = typename L::I;
  using M = typename L::M;
  constexpr std::int32_t W = kNeighbourLanes;
  const QueryLanes<L> c(q);
  SumLanes<L> s(c.zero);
  // Eight spare entries past the chunk: the compactor stores whole vectors.
  float bx[kCompactChunk + W], by[kCompactChunk + W];
  float bhx[kCompactChunk + W], bhy[kCompactChunk + W];
  float* const out[4] = {bx, by, bhx, bhy};
  std::int32_t n = 0;
  const I iota = L::iota(), eight = L::isplat(W), self = L::isplat(q.self), group = L::isplat(q.group);
  // Sums entries [0, upto) of the list (upto a multiple of eight, or the end with the rest masked).
  auto drain = [&](std::int32_t upto) {
    const I last = L::isplat(upto);
    I t8 = iota;
    for (std::int32_t t = 0; t < upto; t += W, t8 = L::iadd(t8, eight))
      s.add(c, L::ilt(t8, last), L::load(bx + t), L::load(by + t), L::load(bhx + t), L::load(bhy + t));
  };
  for (const SlotRange& r : ranges) {
    const F sx = L::splat(static_cast<float>(r.shift.x)), sy = L::splat(static_cast<float>(r.shift.y));
    const I end = L::isplat(r.end);
    I kd = L::iadd(L::isplat(r.begin), iota);
    for (std::int32_t k = r.begin; k < r.end; k += W, kd = L::iadd(kd, eight)) {
      F v[4];
      c.offsets(a, k, sx, sy, v[0], v[1]);
      const F d2 = L::add(L::mul(v[0], v[0]), L::mul(v[1], v[1]));
      M in = L::mask_andnot(L::mask_and(L::ilt(kd, end), L::le(d2, c.r2)), L::ieq(kd, self));
      in = L::mask_and(in, L::ieq(L::iload(a.group + k), group));
      v[2] = L::load(a.hx + k);
      v[3] = L::load(a.hy + k);
      n = Compactor<L>::put(L::bits(in), n, v, out);
      if (n > kCompactChunk - W) {
        // A crowd: sum the whole blocks so far and keep the rest (< 8) at the front.
        const std::int32_t whole = n - n % W;
        drain(whole);
        for (std::int32_t e = whole; e < n; ++e)
          for (float* o : out) o[e - whole] = o[e];
        n -= whole;
      }
    }
  }
  // The lanes past the list's end are masked, but they are read: give them defined values.
  for (float* o : out) std::memset(o + n, 0, sizeof(float) * W);
  drain(n);
  s.result(result);
}
}  // namespace flockstep::behavior::lanes_kernel
