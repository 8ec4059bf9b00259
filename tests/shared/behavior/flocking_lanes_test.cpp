// Tests for the data-parallel T76 neighbourhood kernel (T31 radius, T32 field of view): the SIMD
// forms against their scalar reference bit for bit, against the documented single-precision
// order, and against the per-neighbour loop to float rounding.
#include "flockstep/behavior/flocking_lanes.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "flockstep/math/lanes.hpp"
#include "flockstep/math/lanes_f32.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/transform.hpp"

namespace flockstep::behavior {
namespace {

using math::lanes::ScalarLanes;

std::uint64_t bits(real x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

void expect_same_bits(const LaneFlockResult& a, const LaneFlockResult& b) {
  EXPECT_EQ(a.coincident, b.coincident);
  EXPECT_EQ(a.sums.count, b.sums.count);
  EXPECT_EQ(bits(a.sums.separation.x), bits(b.sums.separation.x));
  EXPECT_EQ(bits(a.sums.separation.y), bits(b.sums.separation.y));
  EXPECT_EQ(bits(a.sums.heading_sum.x), bits(b.sums.heading_sum.x));
  EXPECT_EQ(bits(a.sums.heading_sum.y), bits(b.sums.heading_sum.y));
  EXPECT_EQ(bits(a.sums.offset_sum.x), bits(b.sums.offset_sum.x));
  EXPECT_EQ(bits(a.sums.offset_sum.y), bits(b.sums.offset_sum.y));
}

// A random neighbourhood in structure-of-arrays form, padded as the kernel requires.
struct Soa {
  std::vector<float> x, y, hx, hy;
  std::vector<std::int32_t> group;
  explicit Soa(std::int32_t n, float pad = 0) {
    const auto size = static_cast<std::size_t>(n + kNeighbourLanes);
    x.assign(size, pad);
    y.assign(size, pad);
    hx.assign(size, pad);
    hy.assign(size, pad);
    group.assign(size, 0);  // the padding even claims the queried group: the kernel must mask by index
  }
  NeighbourArrays arrays() const { return {x.data(), y.data(), hx.data(), hy.data(), group.data()}; }
  void set(std::size_t i, Vec2 p, Vec2 h = {0, 0}) {
    x[i] = static_cast<float>(p.x);
    y[i] = static_cast<float>(p.y);
    hx[i] = static_cast<float>(h.x);
    hy[i] = static_cast<float>(h.y);
  }
  Vec2 position(std::int32_t k) const {
    const auto i = static_cast<std::size_t>(k);
    return {static_cast<real>(x[i]), static_cast<real>(y[i])};
  }
};

Soa random_soa(math::Rng& rng, std::int32_t n, real extent, std::int32_t groups) {
  Soa s(n);
  for (std::int32_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const Vec2 p{rng.uniform(0, extent), rng.uniform(0, extent)};
    s.set(i, p, math::as_vector(rng.uniform(-math::kPi, math::kPi)));
    s.group[i] = rng.range(0, (groups)-1);
  }
  return s;
}

// The query's figures rounded to float as the kernel documents.
struct FloatQuery {
  float px, py, hx, hy, r2, cos_half;
  explicit FloatQuery(const LaneQuery& q)
      : px(static_cast<float>(q.position.x)),
        py(static_cast<float>(q.position.y)),
        hx(static_cast<float>(q.heading.x)),
        hy(static_cast<float>(q.heading.y)),
        r2(static_cast<float>(q.radius * q.radius)),
        cos_half(static_cast<float>(q.cos_half_fov)) {}
};

// The float offset of slot i as the kernel documents it (torus fold on a small wrapped world).
void float_offset(const LaneQuery& q, const FloatQuery& f, const Soa& s, std::size_t i, Vec2 shift, float& dx,
                  float& dy) {
  dx = (s.x[i] + static_cast<float>(shift.x)) - f.px;
  dy = (s.y[i] + static_cast<float>(shift.y)) - f.py;
  if (q.wrap) {
    const auto w = static_cast<float>(q.width), h = static_cast<float>(q.height);
    const auto hw = static_cast<float>(q.width * 0.5), hh = static_cast<float>(q.height * 0.5);
    const auto nhw = static_cast<float>(-(q.width * 0.5)), nhh = static_cast<float>(-(q.height * 0.5));
    dx = hw < dx ? dx - w : (dx < nhw ? dx + w : dx);
    dy = hh < dy ? dy - h : (dy < nhh ? dy + h : dy);
  }
}

// The same selection written as the plain per-candidate rule (flocking.hpp's is_neighbour with
// the precomputed cosine, its tests in float as the kernel documents), summed with flock_sums()
// in double in scan order: equal to the kernel's sums up to float rounding.
FlockSums per_candidate(const LaneQuery& q, const Soa& s, std::span<const SlotRange> ranges) {
  const FloatQuery f(q);
  std::vector<Neighbour> kept;
  for (const SlotRange& r : ranges) {
    for (std::int32_t k = r.begin; k < r.end; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (k == q.self || s.group[i] != q.group) continue;
      float dx, dy;
      float_offset(q, f, s, i, r.shift, dx, dy);
      const float d2 = dx * dx + dy * dy;
      if (!(d2 <= f.r2)) continue;
      if (q.cos_half_fov > -1 && d2 > 0 && f.hx * dx + f.hy * dy < f.cos_half * std::sqrt(d2)) continue;
      const Vec2 d{static_cast<real>(dx), static_cast<real>(dy)};
      kept.push_back({q.position + d, {}, {static_cast<real>(s.hx[i]), static_cast<real>(s.hy[i])}});
    }
  }
  Body self;
  self.position = q.position;
  return flock_sums(self, kept);
}

TEST(FlockingLanes, T76_SimdBuildRunsVectorCode) {
#if defined(__SSE2__) || defined(__wasm_simd128__)
  // Otherwise the bit-for-bit test below would compare the scalar form with itself.
  EXPECT_TRUE(lanes_are_simd());
#else
  GTEST_SKIP() << "no SIMD instruction set in this build";
#endif
}

TEST(FlockingLanes, T76_T31_T32_SimdAndScalarReferenceAgreeBitForBit) {
  auto rng = math::Rng::seeded(2024, 7);
  std::int32_t compared = 0, with_neighbours = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const bool wrap = trial % 2 == 0;
    const real extent = 40;
    const std::int32_t n = 1 + rng.range(0, 300 - 1);
    const Soa s = random_soa(rng, n, extent, 3);
    LaneQuery q;
    q.self = rng.range(0, (n)-1);
    q.position = s.position(q.self);
    q.heading = math::as_vector(rng.uniform(-math::kPi, math::kPi));
    q.group = s.group[static_cast<std::size_t>(q.self)];
    q.radius = rng.uniform(1, 12);
    q.cos_half_fov = trial % 3 == 0 ? -1 : math::sin_cos(rng.uniform(0, math::kPi)).cos;
    q.wrap = wrap;
    q.width = q.height = extent;
    // Up to three ranges of odd lengths, as a grid query produces.
    SlotRange ranges[3];
    std::int32_t nr = 0;
    for (std::int32_t b = 0; b < n && nr < 3;) {
      const std::int32_t len = 1 + rng.range(0, (n - b) - 1);
      ranges[nr++] = {b, b + len};
      b += len + rng.range(0, 5 - 1);
    }
    const std::span<const SlotRange> rs(ranges, static_cast<std::size_t>(nr));
    const LaneFlockResult simd = flock_sums_lanes(q, s.arrays(), rs, LaneKernel::kSimd);
    const LaneFlockResult scalar = flock_sums_lanes(q, s.arrays(), rs, LaneKernel::kScalar);
    expect_same_bits(simd, scalar);
    // The 128-bit form (SSE2 here, SIMD128 in wasm) too, where kSimd picked AVX2.
    expect_same_bits(flock_sums_lanes(q, s.arrays(), rs, LaneKernel::kSimd128), scalar);
    // And the same neighbours and (up to float rounding) the same sums as the plain rule.
    const FlockSums plain = per_candidate(q, s, rs);
    EXPECT_EQ(simd.sums.count, plain.count);
    EXPECT_NEAR(simd.sums.heading_sum.x, plain.heading_sum.x, 1e-5 * (1 + plain.count));
    EXPECT_NEAR(simd.sums.offset_sum.y, plain.offset_sum.y, 1e-5 * (1 + plain.count) * q.radius);
    EXPECT_NEAR(simd.sums.separation.x, plain.separation.x, 1e-5 * (1 + std::abs(plain.separation.x)));
    ++compared;
    with_neighbours += simd.sums.count > 0;
  }
  EXPECT_EQ(compared, 400);
  EXPECT_GT(with_neighbours, 200);  // the comparison saw real neighbourhoods, not empty sums
}

TEST(FlockingLanes, T31_T32_LanesPickTheSameNeighboursAsIsNeighbour) {
  // Eight candidates around a body heading +x with a 180 degree view (cos_half = 0): abeam
  // bodies (dot = 0) count, those behind do not, and the radius is inclusive.
  Soa s(9);
  const Vec2 pts[9] = {{10, 10}, {12, 10}, {10, 12}, {10, 8}, {8, 10}, {13, 10}, {14.0001, 10}, {11, 11}, {9, 9}};
  for (std::size_t i = 0; i < 9; ++i) s.set(i, pts[i], {1, 0});
  LaneQuery q;
  q.position = pts[0];
  q.heading = {1, 0};
  q.self = 0;
  q.radius = 4;  // (14.0001, 10) is just outside; (13, 10) at 3 m inside
  q.cos_half_fov = 0;
  const SlotRange all{0, 9};
  const LaneFlockResult r = flock_sums_lanes(q, s.arrays(), std::span<const SlotRange>(&all, 1));
  // Kept: (12,10) ahead, (10,12) and (10,8) abeam, (13,10) ahead, (11,11) ahead. Not: self,
  // (8,10) and (9,9) behind, (14.0001,10) outside.
  EXPECT_EQ(r.sums.count, 5);
  EXPECT_DOUBLE_EQ(r.sums.offset_sum.x, 2 + 0 + 0 + 3 + 1);
  EXPECT_DOUBLE_EQ(r.sums.offset_sum.y, 0 + 2 - 2 + 0 + 1);
  EXPECT_DOUBLE_EQ(r.sums.heading_sum.x, 5);
  // All round (cos_half <= -1): the two behind count too.
  q.cos_half_fov = -1;
  EXPECT_EQ(flock_sums_lanes(q, s.arrays(), std::span<const SlotRange>(&all, 1)).sums.count, 7);
  // Another group's bodies never count.
  s.group[1] = 1;
  EXPECT_EQ(flock_sums_lanes(q, s.arrays(), std::span<const SlotRange>(&all, 1)).sums.count, 6);
}

TEST(FlockingLanes, T76_OffsetsCrossTheSeamOfAWrappedWorld) {
  Soa s(2);
  s.set(0, {0.5, 50});
  s.set(1, {99.5, 50});
  LaneQuery q;
  q.position = {0.5, 50};
  q.self = 0;
  q.radius = 2;
  q.wrap = true;
  q.width = q.height = 100;
  const SlotRange all{0, 2};
  const LaneFlockResult r = flock_sums_lanes(q, s.arrays(), std::span<const SlotRange>(&all, 1));
  EXPECT_EQ(r.sums.count, 1);
  EXPECT_DOUBLE_EQ(r.sums.offset_sum.x, -1);  // across the seam, not +99
  EXPECT_DOUBLE_EQ(r.sums.separation.x, 1);   // pushed away from it, 1/d = 1
  q.wrap = false;
  EXPECT_EQ(flock_sums_lanes(q, s.arrays(), std::span<const SlotRange>(&all, 1)).sums.count, 0);
}

TEST(FlockingLanes, T76_CoincidentNeighbourIsReportedNotSummed) {
  Soa s(3);
  s.set(0, {5, 5});
  s.set(1, {5, 5});
  s.set(2, {6, 5});
  LaneQuery q;
  q.position = {5, 5};
  q.self = 0;
  q.radius = 3;
  const SlotRange all{0, 3};
  LaneFlockResult r = flock_sums_lanes(q, s.arrays(), std::span<const SlotRange>(&all, 1));
  EXPECT_TRUE(r.coincident);
  EXPECT_TRUE(math::is_finite(r.sums.separation));
  EXPECT_DOUBLE_EQ(r.sums.separation.x, -1);  // only the body at 1 m; the coincident one is the caller's
  // A coincident body of another group is not a neighbour and raises nothing.
  s.group[1] = 2;
  r = flock_sums_lanes(q, s.arrays(), std::span<const SlotRange>(&all, 1));
  EXPECT_FALSE(r.coincident);
  EXPECT_EQ(r.sums.count, 1);
}

TEST(FlockingLanes, T76_PaddingPastARangeIsNeverRead) {
  // NaN in every padding entry and in the slots between ranges: the sums must not see them.
  auto rng = math::Rng::seeded(5, 5);
  Soa clean = random_soa(rng, 23, 10, 1);
  Soa dirty = clean;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 23; i < dirty.x.size(); ++i) dirty.x[i] = dirty.y[i] = dirty.hx[i] = dirty.hy[i] = nan;
  for (std::size_t i = 10; i < 13; ++i) dirty.x[i] = dirty.y[i] = dirty.hx[i] = dirty.hy[i] = nan;
  LaneQuery q;
  q.position = {5, 5};
  q.radius = 6;
  const SlotRange rs[2] = {{0, 10}, {13, 23}};
  for (LaneKernel k : {LaneKernel::kSimd, LaneKernel::kScalar}) {
    const LaneFlockResult a = flock_sums_lanes(q, clean.arrays(), rs, k);
    const LaneFlockResult b = flock_sums_lanes(q, dirty.arrays(), rs, k);
    EXPECT_GT(a.sums.count, 5);
    expect_same_bits(a, b);
  }
}

// The documented order of the two-pass kernel written out plainly, with `lanes` accumulators:
// the t-th candidate that is in range, of the group and not self (scan order over the ranges)
// goes to lane t % lanes, each lane sums in float in that order, the lanes are added pairwise.
// The kernel's order is lanes = 8; lanes = 4 (the order of the earlier double kernel) is the
// control that shows the comparison sees the order.
LaneFlockResult two_pass_order(const LaneQuery& q, const Soa& s, std::span<const SlotRange> ranges, int lanes = 8) {
  const FloatQuery f(q);
  const auto min_d = static_cast<float>(kSeparationMinDistance);
  float sep_x[8] = {}, sep_y[8] = {}, head_x[8] = {}, head_y[8] = {}, off_x[8] = {}, off_y[8] = {}, count[8] = {};
  bool coincident = false;
  std::int32_t t = 0;
  for (const SlotRange& r : ranges) {
    for (std::int32_t k = r.begin; k < r.end; ++k) {
      const auto i = static_cast<std::size_t>(k);
      float dx, dy;
      float_offset(q, f, s, i, r.shift, dx, dy);
      const float d2 = dx * dx + dy * dy;
      if (k == q.self || s.group[i] != q.group || !(d2 <= f.r2)) continue;
      const std::int32_t lane = t++ % lanes;
      const float d = std::sqrt(d2);
      if (q.cos_half_fov > -1 && d2 > 0 && f.hx * dx + f.hy * dy < f.cos_half * d) continue;
      if (d2 > 0) {
        const float inv = 1.0f / (d * (d > min_d ? d : min_d));
        sep_x[lane] = sep_x[lane] - dx * inv;
        sep_y[lane] = sep_y[lane] - dy * inv;
      } else {
        coincident = true;
      }
      head_x[lane] += s.hx[i];
      head_y[lane] += s.hy[i];
      off_x[lane] += dx;
      off_y[lane] += dy;
      count[lane] += 1;
    }
  }
  auto pairwise = [lanes](const float* v) {
    const float four = (v[0] + v[1]) + (v[2] + v[3]);
    return static_cast<real>(lanes == 8 ? four + ((v[4] + v[5]) + (v[6] + v[7])) : four);
  };
  LaneFlockResult out;
  out.coincident = coincident;
  out.sums.count = static_cast<std::int32_t>(pairwise(count));
  out.sums.separation = {pairwise(sep_x), pairwise(sep_y)};
  out.sums.heading_sum = {pairwise(head_x), pairwise(head_y)};
  out.sums.offset_sum = {pairwise(off_x), pairwise(off_y)};
  return out;
}

TEST(FlockingLanes, T76_TwoPassKernelSumsInTheDocumentedOrderEvenInACrowd) {
  // Sparse and crowded neighbourhoods (up to ~200 candidates in range: beyond the kernel's
  // compaction chunk, so the list is summed in several pieces), on a plain and a wrapped world.
  auto rng = math::Rng::seeded(77, 3);
  std::int32_t crowded = 0, differs_with_four_lanes = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const std::int32_t n = 20 + rng.range(0, 400 - 1);
    const real extent = trial % 3 == 0 ? 12 : 40;
    const Soa s = random_soa(rng, n, extent, 2);
    LaneQuery q;
    q.self = rng.range(0, n - 1);
    q.position = s.position(q.self);
    q.heading = math::as_vector(rng.uniform(-math::kPi, math::kPi));
    q.group = s.group[static_cast<std::size_t>(q.self)];
    q.radius = rng.uniform(2, 10);
    q.cos_half_fov = trial % 2 == 0 ? -1 : math::sin_cos(rng.uniform(0.5, math::kPi)).cos;
    // Two ranges, the second seen at an image (as across a wrap seam).
    const std::int32_t cut = n / 2;
    const SlotRange rs[2] = {{0, cut, {0, 0}}, {cut, n, {trial % 4 == 1 ? extent : 0, 0}}};
    const LaneFlockResult want = two_pass_order(q, s, rs);
    for (LaneKernel k : {LaneKernel::kSimd, LaneKernel::kSimd128, LaneKernel::kScalar})
      expect_same_bits(flock_sums_lanes(q, s.arrays(), rs, k), want);
    crowded += want.sums.count > 40;
    // Control: the same sums over four lanes (t % 4) give other bits in many neighbourhoods
    // (rounding decides which), so the comparison above would see a change of order.
    const LaneFlockResult four = two_pass_order(q, s, rs, 4);
    EXPECT_EQ(four.sums.count, want.sums.count);
    differs_with_four_lanes += bits(four.sums.separation.x) != bits(want.sums.separation.x) ||
                               bits(four.sums.offset_sum.y) != bits(want.sums.offset_sum.y);
  }
  EXPECT_GT(crowded, 10);
  EXPECT_GT(differs_with_four_lanes, 30);
}

TEST(Lanes, MaxTakesTheSecondOperandForNaNLikeMathMax) {
  using L = ScalarLanes;
  const real nan = std::numeric_limits<real>::quiet_NaN();
  const L::D a{{nan, 1, 3, -0.0}}, b{{2, nan, 1, 0.0}};
  const L::D m = L::max(a, b);
  EXPECT_EQ(L::lane(m, 0), 2);
  EXPECT_TRUE(std::isnan(L::lane(m, 1)));
  EXPECT_EQ(L::lane(m, 2), 3);
  EXPECT_EQ(bits(L::lane(m, 3)), bits(0.0));  // -0 > +0 is false: b
  EXPECT_EQ(bits(math::max(-0.0, 0.0)), bits(0.0));
#if defined(FLOCKSTEP_LANES_SIMD)
  using S = math::lanes::SimdLanes;
  const S::D sa{{nan, 1}, {3, -0.0}}, sb{{2, nan}, {1, 0.0}};
  const S::D sm = S::max(sa, sb);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(bits(S::lane(sm, j)), bits(L::lane(m, j))) << j;
#endif
}

TEST(Lanes, FloatLanesMaxTakesTheSecondOperandForNaNInEveryForm) {
  using L = math::lanes::ScalarLanesF8;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float av[8] = {nan, 1, 3, -0.0f, 5, -2, 7, 0.0f}, bv[8] = {2, nan, 1, 0.0f, 6, -3, 7, -0.0f};
  const L::F m = L::max(L::load(av), L::load(bv));
  EXPECT_EQ(L::lane(m, 0), 2.0f);
  EXPECT_TRUE(std::isnan(L::lane(m, 1)));
  EXPECT_EQ(L::lane(m, 2), 3.0f);
  EXPECT_TRUE(std::signbit(L::lane(m, 7)));  // +0 > -0 is false: b
#if defined(FLOCKSTEP_LANES_SIMD)
  using S = math::lanes::SimdLanesF8;
  const S::F sm = S::max(S::load(av), S::load(bv));
  for (int j = 0; j < 8; ++j) {
    float x = L::lane(m, j), y = S::lane(sm, j);
    std::uint32_t bx, by;
    std::memcpy(&bx, &x, sizeof bx);
    std::memcpy(&by, &y, sizeof by);
    EXPECT_EQ(bx, by) << j;
  }
  EXPECT_EQ(S::bits(S::lt(S::load(bv), S::load(av))), L::bits(L::lt(L::load(bv), L::load(av))));
#endif
}

TEST(Lanes, ReductionOrderIsPairwise) {
  // Rounding makes the order visible: pairwise ((1e16 + 1) + (-1e16 + 1)) gives 0, left to
  // right (((1e16 + 1) - 1e16) + 1) gives 1.
  using L = ScalarLanes;
  const L::D v{{1e16, 1, -1e16, 1}};
  EXPECT_EQ(math::lanes::reduce_add<L>(v), 0.0);
  EXPECT_EQ(((1e16 + 1) + -1e16) + 1, 1.0);  // the left-to-right order would differ
  // Eight float lanes: ((a + b) + (c + d)) + ((e + f) + (g + h)).
  using F = math::lanes::ScalarLanesF8;
  const float v8[8] = {1e8f, 1, -1e8f, 1, 3, 0, 0, 0};
  EXPECT_EQ(math::lanes::reduce_add_f8<F>(F::load(v8)), 3.0f);  // (1e8 + 1) rounds to 1e8
  EXPECT_EQ((((1e8f + 1) + -1e8f) + 1) + 3, 4.0f);              // left to right differs
}

}  // namespace
}  // namespace flockstep::behavior
