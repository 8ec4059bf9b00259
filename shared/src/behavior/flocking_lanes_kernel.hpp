#pragma once
// The T76 lane kernel as a template over the lane type (math/lanes.hpp). Private to the library:
// flocking_lanes.cpp instantiates it for SSE2 / wasm SIMD128 and for the scalar reference,
// flocking_lanes_avx2.cpp for AVX2 (that file alone is compiled with -mavx2). Every
// instantiation performs the same operations in the same order on every lane, so all of them
// produce the same bits; which one runs is a matter of speed only.
#include <cstring>
#include <span>

#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/math/lanes.hpp"

namespace flockstep::behavior::lanes_kernel {

using math::lanes::reduce_add;

// The lane type decides whether an operation is one vector instruction or a loop, never what it
// computes.

/// Everything both passes need from the query, splatted once per body.
template <class L>
struct QueryLanes {
  using D = typename L::D;
  using M = typename L::M;
  D px, py, hx, hy, r2, cos_half;
  M check_fov;
  bool wrap;
  D half_w, neg_half_w, w, half_h, neg_half_h, h;
  D zero, one, min_d;
  explicit QueryLanes(const LaneQuery& q)
      : px(L::splat(q.position.x)),
        py(L::splat(q.position.y)),
        hx(L::splat(q.heading.x)),
        hy(L::splat(q.heading.y)),
        r2(L::splat(q.radius * q.radius)),
        cos_half(L::splat(q.cos_half_fov)),
        check_fov(L::all_lanes(q.cos_half_fov > -1)),
        wrap(q.wrap),
        // torus_delta's thresholds and corrections, for worlds too small for per-range images.
        half_w(L::splat(q.width * 0.5)),
        neg_half_w(L::splat(-(q.width * 0.5))),
        w(L::splat(q.width)),
        half_h(L::splat(q.height * 0.5)),
        neg_half_h(L::splat(-(q.height * 0.5))),
        h(L::splat(q.height)),
        zero(L::splat(0.0)),
        one(L::splat(1.0)),
        min_d(L::splat(kSeparationMinDistance)) {}

  /// Offsets of slots k..k+3 from the body (range image added, torus fold if asked).
  [[gnu::always_inline]] void offsets(const NeighbourArrays& a, std::int32_t k, D sx, D sy, D& dx, D& dy) const {
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
  using D = typename L::D;
  using M = typename L::M;
  D count, sep_x, sep_y, head_x, head_y, off_x, off_y;
  M coincident;
  explicit SumLanes(D zero)
      : count(zero),
        sep_x(zero),
        sep_y(zero),
        head_x(zero),
        head_y(zero),
        off_x(zero),
        off_y(zero),
        coincident(L::all_lanes(false)) {}

  /// Adds the lanes of `in` (in radius, of the group, not self) that pass the field-of-view test.
  /// This is where the square root and the division are paid.
  [[gnu::always_inline]] void add(const QueryLanes<L>& c, M in, D dx, D dy, D nhx, D nhy) {
    const D d2 = L::add(L::mul(dx, dx), L::mul(dy, dy));
    const D d = L::sqrt(d2);
    M keep = in;
    // T32: outside the view iff the body has a bearing (d2 > 0) and dot(h, d) < cos_half |d|.
    const M positive = L::lt(c.zero, d2);
    const M behind = L::lt(L::add(L::mul(c.hx, dx), L::mul(c.hy, dy)), L::mul(c.cos_half, d));
    keep = L::mask_andnot(keep, L::mask_and(c.check_fov, L::mask_and(positive, behind)));
    coincident = L::mask_or(coincident, L::mask_andnot(keep, positive));
    // Separation term: away / (d max(d, min)) with away = -offset, i.e. unit away over distance
    // with the distance clamped as separation_term clamps it; one division per lane. Lanes with
    // d = 0 compute inf or NaN here and are dropped by the mask.
    const D inv = L::div(c.one, L::mul(d, L::max(d, c.min_d)));
    const M sep_ok = L::mask_and(keep, positive);
    sep_x = L::sub(sep_x, L::keep(sep_ok, L::mul(dx, inv)));
    sep_y = L::sub(sep_y, L::keep(sep_ok, L::mul(dy, inv)));
    head_x = L::add(head_x, L::keep(keep, nhx));
    head_y = L::add(head_y, L::keep(keep, nhy));
    off_x = L::add(off_x, L::keep(keep, dx));
    off_y = L::add(off_y, L::keep(keep, dy));
    count = L::add(count, L::keep(keep, c.one));
  }

  LaneFlockResult result() const {
    LaneFlockResult out;
    out.coincident = L::any(coincident);
    out.sums.count = static_cast<std::int32_t>(reduce_add<L>(count));
    out.sums.separation = {reduce_add<L>(sep_x), reduce_add<L>(sep_y)};
    out.sums.heading_sum = {reduce_add<L>(head_x), reduce_add<L>(head_y)};
    out.sums.offset_sum = {reduce_add<L>(off_x), reduce_add<L>(off_y)};
    return out;
  }
};

/// The one-pass kernel (2026-11-25): every candidate block pays the square root and the division.
/// Lane j sums slot begin + 4b + j of each range. Kept as LaneKernel::kSimdOnePass to measure the
/// two-pass kernel against in one run; its order is that of the golden hashes before two-pass.
template <class L>
inline LaneFlockResult flock_sums_one_pass(const LaneQuery& q, const NeighbourArrays& a,
                                           std::span<const SlotRange> ranges) {
  using D = typename L::D;
  using M = typename L::M;
  const QueryLanes<L> c(q);
  SumLanes<L> s(c.zero);
  for (const SlotRange& r : ranges) {
    // A range across a wrapped world's seam is seen at its image: positions + r.shift.
    const D sx = L::splat(r.shift.x), sy = L::splat(r.shift.y);
    for (std::int32_t k = r.begin; k < r.end; k += kLaneWidth) {
      D dx, dy;
      c.offsets(a, k, sx, sy, dx, dy);
      const D d2 = L::add(L::mul(dx, dx), L::mul(dy, dy));
      M in = L::mask_and(L::index_mask(k, r.end, q.self), L::le(d2, c.r2));
      in = L::mask_and(in, L::eq_i32(a.group + k, q.group));
      s.add(c, in, dx, dy, L::load(a.hx + k), L::load(a.hy + k));
    }
  }
  return s.result();
}

/// Lanes of a mask as bits (bit j = lane j), and the kept lanes of four vectors written in lane
/// order to out[n..] (each out array has room for four more entries). Data movement only, so
/// the generic form (one store per lane, the count advanced branch-free) and a permute-based
/// one give the same compacted lists.
[[gnu::always_inline]] inline unsigned mask_bits(const math::lanes::ScalarLanes::M& m) {
  return unsigned(m.v[0] != 0) | unsigned(m.v[1] != 0) << 1 | unsigned(m.v[2] != 0) << 2 | unsigned(m.v[3] != 0) << 3;
}
#if defined(FLOCKSTEP_LANES_SIMD)
[[gnu::always_inline]] inline unsigned mask_bits(const math::lanes::SimdLanes::M& m) {
  return unsigned(m.lo[0] != 0) | unsigned(m.lo[1] != 0) << 1 | unsigned(m.hi[0] != 0) << 2 |
         unsigned(m.hi[1] != 0) << 3;
}
#endif
#if defined(__AVX2__)
[[gnu::always_inline]] inline unsigned mask_bits(math::lanes::SimdLanes256::M m) {
  return static_cast<unsigned>(_mm256_movemask_pd(math::lanes::detail::bit_as<__m256d>(m)));
}
#endif

template <class L>
struct Compactor {
  /// Bit j set where group[j] == g.
  [[gnu::always_inline]] static unsigned group_bits(const std::int32_t* group, std::int32_t g) {
    unsigned bits = 0;
    for (int j = 0; j < kLaneWidth; ++j) bits |= unsigned(group[j] == g) << j;
    return bits;
  }
  [[gnu::always_inline]] static std::int32_t put(unsigned bits, std::int32_t n, const typename L::D* v,
                                                 real* const* out) {
    for (int j = 0; j < kLaneWidth; ++j) {
      for (int q = 0; q < 4; ++q) out[q][n] = L::lane(v[q], j);
      n += static_cast<std::int32_t>(bits >> j & 1u);
    }
    return n;
  }
};

#if defined(__AVX2__)
/// AVX2: one permute per vector moves the kept lanes to the front (a 16-entry table of 32-bit
/// lane indices, two per double), then one unaligned store of all four lanes.
struct PermuteTable {
  alignas(32) std::int32_t idx[16][8];
};
/// The table: for mask bits b, the 32-bit lanes of the kept doubles first, in lane order.
constexpr PermuteTable make_permute_table() {
  PermuteTable t{};
  for (unsigned b = 0; b < 16; ++b) {
    int s = 0;
    for (int j = 0; j < 4; ++j)
      if (b >> j & 1u) {
        t.idx[b][2 * s] = 2 * j;
        t.idx[b][2 * s + 1] = 2 * j + 1;
        ++s;
      }
  }
  return t;
}
inline constexpr PermuteTable kPermuteTable = make_permute_table();

template <>
struct Compactor<math::lanes::SimdLanes256> {
  [[gnu::always_inline]] static unsigned group_bits(const std::int32_t* group, std::int32_t g) {
    __m128i v;
    std::memcpy(&v, group, sizeof v);
    return static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_set1_epi32(g)))));
  }
  [[gnu::always_inline]] static std::int32_t put(unsigned bits, std::int32_t n, const math::lanes::SimdLanes256::D* v,
                                                 real* const* out) {
    __m256i perm;
    std::memcpy(&perm, kPermuteTable.idx[bits], sizeof perm);
    for (int q = 0; q < 4; ++q) {
      const __m256 moved = _mm256_permutevar8x32_ps(math::lanes::detail::bit_as<__m256>(v[q]), perm);
      _mm256_storeu_ps(reinterpret_cast<float*>(out[q] + n), moved);
    }
    return n + __builtin_popcount(bits);
  }
};
#endif

/// Candidates compacted between the passes, at most: a body with more in-range candidates sums
/// them in chunks (whole blocks of four, so the order does not depend on where a chunk ends).
inline constexpr std::int32_t kCompactChunk = 32;

/// The two-pass kernel (the default). Pass 1 scans the ranges four slots at a time and keeps, in
/// scan order, the candidates within the radius, of the group and not self (no square root, no
/// division: a compare per lane). Pass 2 sums the kept list four at a time - entry t goes to
/// lane t % 4 - paying the square root, the field-of-view test and the division only for them
/// (~16 of ~48 scanned slots in the flock scenarios).
template <class L>
inline LaneFlockResult flock_sums(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges) {
  using D = typename L::D;
  using M = typename L::M;
  const QueryLanes<L> c(q);
  SumLanes<L> s(c.zero);
  // Four spare entries past the chunk: the compactor stores whole vectors.
  real bx[kCompactChunk + kLaneWidth], by[kCompactChunk + kLaneWidth];
  real bhx[kCompactChunk + kLaneWidth], bhy[kCompactChunk + kLaneWidth];
  real* const out[4] = {bx, by, bhx, bhy};
  std::int32_t n = 0;
  // Slot numbers as double lanes (exact below 2^53): the range-end and self tests are then one
  // compare each, where building an integer index vector per block cost a dozen instructions.
  static constexpr real kIota[kLaneWidth] = {0, 1, 2, 3};
  const D iota = L::load(kIota), four = L::splat(kLaneWidth), self = L::splat(q.self);
  // Sums entries [0, upto) of the list (upto a multiple of four, or the end with the rest masked).
  auto drain = [&](std::int32_t upto) {
    const D last = L::splat(upto);
    D td = iota;
    for (std::int32_t t = 0; t < upto; t += kLaneWidth, td = L::add(td, four))
      s.add(c, L::lt(td, last), L::load(bx + t), L::load(by + t), L::load(bhx + t), L::load(bhy + t));
  };
  for (const SlotRange& r : ranges) {
    const D sx = L::splat(r.shift.x), sy = L::splat(r.shift.y);
    const D end = L::splat(r.end);
    D kd = L::add(L::splat(r.begin), iota);
    for (std::int32_t k = r.begin; k < r.end; k += kLaneWidth, kd = L::add(kd, four)) {
      D v[4];
      c.offsets(a, k, sx, sy, v[0], v[1]);
      const D d2 = L::add(L::mul(v[0], v[0]), L::mul(v[1], v[1]));
      const M in = L::mask_andnot(L::mask_and(L::lt(kd, end), L::le(d2, c.r2)), L::eq(kd, self));
      v[2] = L::load(a.hx + k);
      v[3] = L::load(a.hy + k);
      n = Compactor<L>::put(mask_bits(in) & Compactor<L>::group_bits(a.group + k, q.group), n, v, out);
      if (n > kCompactChunk - kLaneWidth) {
        // A crowd: sum the whole blocks so far and keep the rest (< 4) at the front.
        const std::int32_t whole = n - n % kLaneWidth;
        drain(whole);
        for (std::int32_t e = whole; e < n; ++e)
          for (real* o : out) o[e - whole] = o[e];
        n -= whole;
      }
    }
  }
  // The lanes past the list's end are masked, but they are read: give them defined values.
  for (real* o : out) std::memset(o + n, 0, sizeof(real) * kLaneWidth);
  drain(n);
  return s.result();
}
}  // namespace flockstep::behavior::lanes_kernel
