// Tests for T54 line-segment paths and T52/T53 path following (catalog Part F).
#include "flockstep/behavior/path.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::real;
using fb::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;

/// A path plus the storage it views (tests only; the library never allocates).
struct OwnedPath {
  std::vector<Vec2> points;
  std::vector<real> cumulative;
  fb::LinePath path;
  OwnedPath(std::vector<Vec2> pts, bool looped) : points(std::move(pts)), cumulative(points.size() + 1) {
    path = fb::build_line_path(points, cumulative, looped);
  }
  OwnedPath(const OwnedPath&) = delete;
  OwnedPath& operator=(const OwnedPath&) = delete;
};

/// Independent reference for the closest point: dense sampling of every segment.
real reference_distance(const std::vector<Vec2>& pts, bool looped, Vec2 q) {
  real best = 1e300;
  const std::size_t nseg = looped ? pts.size() : pts.size() - 1;
  for (std::size_t i = 0; i < nseg; ++i) {
    const Vec2 a = pts[i];
    const Vec2 b = pts[(i + 1) % pts.size()];
    for (int k = 0; k <= 1000; ++k) best = std::min(best, fm::distance(a + (b - a) * (k / 1000.0), q));
  }
  return best;
}

/// Hairpin (Fig. 3.17): out along y = 0, up a 10 m spike whose two legs are `gap` apart, down,
/// and on to x = 25. Total length 45 + gap.
std::vector<Vec2> hairpin_points(real gap) {
  return {{0, 0}, {10, 0}, {10, 10}, {10 + gap, 10}, {10 + gap, 0}, {25, 0}};
}

struct HairpinRun {
  real max_y = 0;        ///< how far up the spike the character went
  real final_param = 0;  ///< where it ended up
  bool target_monotone = true;
  bool finished = false;
};

HairpinRun run_hairpin(real gap, bool predictive, real window) {
  OwnedPath op(hairpin_points(gap), false);
  fb::Kinematic k;
  k.velocity = {5, 0};
  fb::PathFollowState st;
  fb::PredictivePathFollowParams pp;  // predict_time 0.1: |v| * predict_time = 0.5 m
  pp.follow.coherence_window = window;
  pp.follow.path_offset = 1.0;
  pp.follow.seek.max_acceleration = 40;
  HairpinRun r;
  real prev_target = -1;
  for (int i = 0; i < 60 * 15; ++i) {
    const fb::PathFollowOutput o =
        predictive ? fb::follow_path_predictive(k, op.path, st, pp) : fb::follow_path(k, op.path, st, pp.follow);
    if (o.target_param < prev_target) r.target_monotone = false;
    prev_target = o.target_param;
    fb::integrate_steering(k, o.steering, 5, kDt);
    r.max_y = fm::max(r.max_y, k.position.y);
    if (o.arriving && fm::length(k.velocity) < 0.01) {
      r.finished = true;
      break;
    }
  }
  r.final_param = st.current_param;
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// T54 path representation

TEST(LinePath, T54_BuildComputesCumulativeArcLength) {
  OwnedPath open({{0, 0}, {3, 4}, {3, 10}}, false);
  ASSERT_TRUE(open.path.valid());
  EXPECT_EQ(open.path.segment_count(), 2);
  EXPECT_EQ(open.path.cumulative[1], 5);
  EXPECT_EQ(open.path.length(), 11);
  OwnedPath loop({{0, 0}, {3, 4}, {3, 10}}, true);
  EXPECT_EQ(loop.path.segment_count(), 3);
  EXPECT_DOUBLE_EQ(loop.path.length(), 11 + std::sqrt(9.0 + 100.0));
}

TEST(LinePath, T54_DegenerateInputsAreSafe) {
  std::array<Vec2, 3> pts{Vec2{1, 1}, Vec2{1, 1}, Vec2{4, 5}};  // zero-length first segment
  std::array<real, 2> small{};
  EXPECT_FALSE(fb::build_line_path(pts, small, false).valid());  // buffer too small
  EXPECT_FALSE(fb::build_line_path(std::span<const Vec2>{}, small, false).valid());
  const fb::LinePath empty{};
  EXPECT_EQ(fb::get_position(empty, 3), (Vec2{0, 0}));
  EXPECT_EQ(fb::get_param(empty, {1, 1}), 0);
  fb::PathFollowState st;
  fb::Kinematic k;
  const auto out = fb::follow_path(k, empty, st, {});
  EXPECT_TRUE(out.steering.none());  // nothing to follow: no steering

  std::array<real, 4> cum{};
  const fb::LinePath dup = fb::build_line_path(pts, cum, false);
  EXPECT_EQ(dup.length(), 5);
  EXPECT_EQ(fb::get_position(dup, 0), (Vec2{1, 1}));
  EXPECT_EQ(fb::get_param(dup, {1, 1}), 0);
  EXPECT_NEAR(fb::get_param(dup, {4, 5}), 5, 1e-12);

  const std::array<Vec2, 1> one{Vec2{2, 3}};
  std::array<real, 2> cum1{};
  const fb::LinePath single = fb::build_line_path(one, cum1, true);
  EXPECT_EQ(single.segment_count(), 0);
  EXPECT_EQ(fb::get_position(single, 7), (Vec2{2, 3}));
  EXPECT_EQ(fb::get_param(single, {9, 9}, 4, 1), 0);
}

TEST(LinePath, T54_GetPositionOfGetParamIsIdentityForPointsOnPath) {
  for (bool looped : {false, true}) {
    OwnedPath op({{0, 0}, {4, 0}, {4, 3}, {-2, 5}, {-3, -1}}, looped);
    const real len = op.path.length();
    for (int i = 0; i <= 200; ++i) {
      const real s = len * i / 200.0;
      const Vec2 p = fb::get_position(op.path, s);
      const real u = fb::get_param(op.path, p);
      EXPECT_NEAR(fm::distance(fb::get_position(op.path, u), p), 0, 1e-9) << s;
      // The parameter itself round-trips too (looped: modulo L, the end is the start).
      if (!looped || s < len - 1e-9) {
        EXPECT_NEAR(u, s, 1e-9) << s;
      }
    }
    // Vertices sit at the cumulative lengths.
    for (std::size_t i = 0; i < op.points.size(); ++i) {
      EXPECT_NEAR(fm::distance(fb::get_position(op.path, op.cumulative[i]), op.points[i]), 0, 1e-12);
    }
  }
}

TEST(LinePath, T54_GetParamIsMonotonicAlongThePath) {
  OwnedPath op({{0, 0}, {5, 0}, {8, 4}, {8, 9}, {2, 12}}, false);
  real prev = -1;
  for (int i = 0; i <= 400; ++i) {
    const Vec2 p = fb::get_position(op.path, op.path.length() * i / 400.0);
    const real u = fb::get_param(op.path, p);
    EXPECT_GT(u, prev) << i;
    prev = u;
  }
}

TEST(LinePath, T54_ClosestPointMatchesBruteForceReference) {
  auto rng = fm::Rng::seeded(54);
  for (bool looped : {false, true}) {
    const std::vector<Vec2> pts{{0, 0}, {6, 1}, {7, 7}, {1, 5}, {-3, 9}, {-4, 2}};
    OwnedPath op(pts, looped);
    for (int i = 0; i < 80; ++i) {
      const Vec2 q{rng.uniform(-8, 12), rng.uniform(-4, 13)};
      const real u = fb::get_param(op.path, q);
      const real d = fm::distance(fb::get_position(op.path, u), q);
      const real ref = reference_distance(pts, looped, q);
      EXPECT_LE(d, ref + 1e-12);
      EXPECT_NEAR(d, ref, 1e-2);  // reference samples every <= 9.2 mm
      // Coherence off (infinite window) is the same search.
      const real u_inf = fb::get_param(op.path, q, u, fm::kInfinity);
      EXPECT_NEAR(fm::distance(fb::get_position(op.path, u_inf), q), d, 1e-12);
      // A window that contains the closest point finds it too.
      EXPECT_NEAR(fm::distance(fb::get_position(op.path, fb::get_param(op.path, q, u + 0.5, 1.0)), q), d, 1e-12);
    }
  }
}

TEST(LinePath, T54_CoherencePicksTheStretchNearLastParam) {
  // U: out along y = 0 (params 0..10), across (10..12), back along y = 2 (12..22).
  OwnedPath op({{0, 0}, {10, 0}, {10, 2}, {0, 2}}, false);
  const Vec2 q{5, 1};                                            // equidistant from both long legs
  EXPECT_NEAR(fb::get_param(op.path, q), 5, 1e-12);              // brute force: tie goes to the lower parameter
  EXPECT_NEAR(fb::get_param(op.path, q, 16.5, 3.0), 17, 1e-12);  // near the return leg: stays on it
  EXPECT_NEAR(fb::get_param(op.path, q, 4.0, 3.0), 5, 1e-12);
  // A point much closer to the other leg still cannot pull the parameter out of the window...
  const real u = fb::get_param(op.path, {3, 1.9}, 4.0, 3.0);
  EXPECT_NEAR(u, 3, 1e-12);
  // ...but widening the window (coherence off) lets it rejoin wherever is closest.
  EXPECT_NEAR(fb::get_param(op.path, {3, 1.9}, 4.0, fm::kInfinity), 19, 1e-12);
  // Window 0 pins the parameter.
  EXPECT_NEAR(fb::get_param(op.path, {9, 9}, 6.25, 0.0), 6.25, 1e-12);
}

TEST(LinePath, T54_OpenPathClampsOutOfRangeParameters) {
  OwnedPath op({{1, 1}, {4, 5}, {4, 9}}, false);
  EXPECT_EQ(fb::get_position(op.path, -3), (Vec2{1, 1}));
  EXPECT_EQ(fb::get_position(op.path, 9 + 100), (Vec2{4, 9}));
  EXPECT_EQ(fb::wrap_param(op.path, -3), 0);
  EXPECT_EQ(fb::wrap_param(op.path, 50), 9);
  EXPECT_NEAR(fb::get_param(op.path, {4, 20}), 9, 1e-12);
  EXPECT_NEAR(fb::get_param(op.path, {4, 20}, 50, 2), 9, 1e-12);  // stale last_param is clamped
}

TEST(LinePath, T54_LoopedPathWrapsParametersAndStaysContinuousAcrossTheSeam) {
  OwnedPath op({{0, 0}, {10, 0}, {10, 10}, {0, 10}}, true);
  const real len = op.path.length();
  ASSERT_EQ(len, 40);
  for (real s : {0.0, 3.0, 17.5, 39.0}) {
    EXPECT_NEAR(fm::distance(fb::get_position(op.path, s + len), fb::get_position(op.path, s)), 0, 1e-12);
    EXPECT_NEAR(fm::distance(fb::get_position(op.path, s - 3 * len), fb::get_position(op.path, s)), 0, 1e-12);
  }
  EXPECT_EQ(fb::get_position(op.path, -1), (Vec2{0, 1}));  // just before the end of the closing leg
  EXPECT_EQ(fb::wrap_param(op.path, -1), 39);
  EXPECT_EQ(fb::wrap_param(op.path, 80), 0);
  // Crossing the seam forward on lap 3: the parameter continues past 3L instead of resetting.
  EXPECT_NEAR(fb::get_param(op.path, {0.5, 0}, 3 * len - 0.3, 2.0), 3 * len + 0.5, 1e-12);
  // And backward: lap 2's end.
  EXPECT_NEAR(fb::get_param(op.path, {0, 0.5}, 2 * len + 0.2, 2.0), 2 * len - 0.5, 1e-12);
  // Coherence off still returns the representative nearest last_param.
  EXPECT_NEAR(fb::get_param(op.path, {0, 0.5}, 2 * len + 0.2, fm::kInfinity), 2 * len - 0.5, 1e-12);
  // A window wider than half a lap degrades to brute force without breaking.
  EXPECT_NEAR(fb::get_param(op.path, {5, 10.2}, 0, 25), -15, 1e-12);
}

TEST(LinePath, T54_FixedCapacityPathMatchesTheView) {
  const std::array<Vec2, 4> pts{Vec2{0, 0}, Vec2{2, 0}, Vec2{2, 2}, Vec2{0, 2}};
  fb::FixedLinePath fixed;
  ASSERT_TRUE(fb::make_fixed_line_path(pts, true, fixed));
  EXPECT_EQ(fixed.count, 4);
  const fb::LinePath v = fixed.view();
  EXPECT_EQ(v.length(), 8);
  EXPECT_EQ(fb::get_position(v, 3), (Vec2{2, 1}));
  std::vector<Vec2> too_many(static_cast<std::size_t>(fb::kMaxPathPoints) + 1, Vec2{});
  EXPECT_FALSE(fb::make_fixed_line_path(too_many, false, fixed));
  EXPECT_EQ(fixed.count, 0);
}

// ---------------------------------------------------------------------------------------------
// T52 path following

TEST(PathFollowing, T52_SeeksThePointPathOffsetAheadOfItsParameter) {
  OwnedPath op({{0, 0}, {10, 0}, {10, 10}}, false);
  fb::PathFollowParams p;
  p.path_offset = 2;
  fb::PathFollowState st;
  fb::Kinematic k;
  k.position = {9.5, 0.3};  // 0.3 m from the first leg, 0.5 m from the second
  k.velocity = {1, 0};
  const auto out = fb::follow_path(k, op.path, st, p);
  EXPECT_NEAR(out.current_param, 9.5, 1e-12);  // first call: brute force
  EXPECT_NEAR(out.target_param, 11.5, 1e-12);
  EXPECT_NEAR(fm::distance(out.target, {10, 1.5}), 0, 1e-12);
  EXPECT_FALSE(out.arriving);
  // T41: delegated to seek with the surrogate target.
  EXPECT_EQ(out.steering, fb::dynamic_seek(k, out.target, p.seek));
  EXPECT_EQ(st.current_param, out.current_param);
  EXPECT_EQ(st.started, 1);
}

TEST(PathFollowing, T52_ParameterKeepsIncreasingAroundAClosedLoop) {
  OwnedPath op({{0, 0}, {20, 0}, {20, 20}, {0, 20}}, true);
  fb::PathFollowParams p;
  p.path_offset = 2;
  p.seek.max_acceleration = 10;
  fb::PathFollowState st;
  fb::Kinematic k;
  k.position = {5, -1};
  real prev = -1;
  real prev_wrapped = -1;
  for (int i = 0; i < 60 * 60; ++i) {
    const auto out = fb::follow_path(k, op.path, st, p);
    if (i > 0) {
      EXPECT_GE(out.current_param, prev) << i;
      // Modulo the loop length it still advances (the wrapped step is small and positive).
      const real step = fb::wrap_param(op.path, out.current_param) - prev_wrapped;
      EXPECT_GE(step < -20 ? step + 80 : step, 0) << i;
    }
    prev = out.current_param;
    prev_wrapped = fb::wrap_param(op.path, prev);
    fb::integrate_steering(k, out.steering, 4, kDt);
  }
  EXPECT_GT(st.current_param, 2.5 * 80);  // ~4 m/s for a minute: three laps
}

TEST(PathFollowing, T52_LateralDistanceStaysBelowTwiceTheOffset) {
  for (real offset : {1.0, 2.0}) {
    OwnedPath op({{0, 0}, {20, 0}, {20, 20}, {0, 20}}, true);
    fb::PathFollowParams p;
    p.path_offset = offset;
    p.seek.max_acceleration = 10;
    fb::PathFollowState st;
    fb::Kinematic k;
    k.position = {5, -1};
    real worst = 0;
    for (int i = 0; i < 60 * 40; ++i) {
      fb::integrate_steering(k, fb::follow_path(k, op.path, st, p).steering, 4, kDt);
      if (i > 120)
        worst = fm::max(worst, fm::distance(fb::get_position(op.path, fb::get_param(op.path, k.position)), k.position));
    }
    EXPECT_LT(worst, 2 * offset) << offset;  // measured 1.18 (offset 1) and 0.94 (offset 2)
  }
}

TEST(PathFollowing, T52_NegativeOffsetTravelsTheOtherWay) {
  OwnedPath op({{0, 0}, {20, 0}, {20, 20}, {0, 20}}, true);
  fb::PathFollowParams p;
  p.path_offset = -2;
  p.seek.max_acceleration = 10;
  fb::PathFollowState st;
  fb::Kinematic k;
  k.position = {5, -1};
  real prev = 1e9;
  for (int i = 0; i < 60 * 30; ++i) {
    const auto out = fb::follow_path(k, op.path, st, p);
    EXPECT_LE(out.current_param, prev) << i;
    prev = out.current_param;
    fb::integrate_steering(k, out.steering, 4, kDt);
  }
  EXPECT_LT(st.current_param, -80);  // more than one lap backwards
}

TEST(PathFollowing, T52_OpenPathEndArrivesAndStopsOrWigglesWithSeek) {
  for (bool arrive : {true, false}) {
    OwnedPath op({{0, 0}, {8, 0}, {8, 6}}, false);
    fb::PathFollowParams p;
    p.arrive_at_end = arrive;
    fb::PathFollowState st;
    fb::Kinematic k;
    fb::PathFollowOutput out;
    real tail_max_dist = 0;
    for (int i = 0; i < 60 * 12; ++i) {
      out = fb::follow_path(k, op.path, st, p);
      fb::integrate_steering(k, out.steering, 5, kDt);
      if (i > 60 * 8) tail_max_dist = fm::max(tail_max_dist, fm::distance(k.position, {8, 6}));
    }
    EXPECT_EQ(out.target, (Vec2{8, 6}));
    EXPECT_EQ(out.target_param, 14);
    if (arrive) {
      EXPECT_TRUE(out.arriving);
      EXPECT_LT(tail_max_dist, 1.25 * p.arrive.target_radius);
      EXPECT_LT(fm::length(k.velocity), 0.1);
    } else {
      // Seek never settles on the end point: it orbits / wobbles through it.
      EXPECT_FALSE(out.arriving);
      EXPECT_FALSE(out.steering.none());
      EXPECT_GT(tail_max_dist, 0.5);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// T53 predictive path following

TEST(PredictivePathFollowing, T53_SearchesAtThePredictedPosition) {
  EXPECT_EQ(fb::PredictivePathFollowParams{}.predict_time, 0.1);
  OwnedPath op({{0, 0}, {20, 0}}, false);
  fb::PredictivePathFollowParams p;
  p.follow.path_offset = 1;
  fb::PathFollowState st;
  fb::Kinematic k;
  k.position = {2, 0.5};
  k.velocity = {5, 0};
  const auto out = fb::follow_path_predictive(k, op.path, st, p);
  EXPECT_NEAR(out.current_param, 2.5, 1e-12);  // 2 + 5 * 0.1
  EXPECT_NEAR(out.target_param, 3.5, 1e-12);
  EXPECT_EQ(out.steering, fb::dynamic_seek(k, out.target, p.follow.seek));  // T41 delegation
  // Vanilla follower on the same state searches at the position itself.
  fb::PathFollowState st2;
  EXPECT_NEAR(fb::follow_path(k, op.path, st2, p.follow).current_param, 2, 1e-12);
}

TEST(PredictivePathFollowing, T53_TargetParameterNeverDecreases) {
  // Character moving against the path direction: the predicted parameter falls frame after
  // frame, but the seed's rule holds the target where it was.
  OwnedPath op({{0, 0}, {20, 0}}, false);
  fb::PredictivePathFollowParams p;
  p.follow.path_offset = 1;
  fb::PathFollowState st;
  fb::Kinematic k;
  k.position = {10, 0};
  k.velocity = {-5, 0};
  const auto first = fb::follow_path_predictive(k, op.path, st, p);
  EXPECT_NEAR(first.target_param, 10.5, 1e-12);
  k.position = {9, 0};
  const auto second = fb::follow_path_predictive(k, op.path, st, p);
  EXPECT_NEAR(second.current_param, 8.5, 1e-12);
  EXPECT_NEAR(second.target_param, 10.5, 1e-12);  // candidate 9.5 moved forward to last frame's
  // Without the rule (monotonic_target = false) the target falls back.
  fb::PathFollowState st3;
  p.monotonic_target = false;
  k.position = {10, 0};
  (void)fb::follow_path_predictive(k, op.path, st3, p);
  k.position = {9, 0};
  EXPECT_NEAR(fb::follow_path_predictive(k, op.path, st3, p).target_param, 9.5, 1e-12);
  // Negative offset: "forward" is toward lower parameters, so it never increases instead.
  fb::PathFollowState st4;
  p.monotonic_target = true;
  p.follow.path_offset = -1;
  k.position = {10, 0};
  k.velocity = {5, 0};
  const real t1 = fb::follow_path_predictive(k, op.path, st4, p).target_param;
  k.position = {11, 0};
  EXPECT_EQ(fb::follow_path_predictive(k, op.path, st4, p).target_param, t1);
}

TEST(PredictivePathFollowing, T53_TargetNeverDecreasesOverAWholeRun) {
  const HairpinRun r = run_hairpin(2.0, true, 3.0);
  EXPECT_TRUE(r.target_monotone);
  EXPECT_TRUE(r.finished);
}

TEST(PredictivePathFollowing, T53_HairpinRegressionCoherenceStopsCornerCutting) {
  // Fig. 3.17. Legs 0.4 m apart < |v| * predict_time = 5 m/s * 0.1 s = 0.5 m.
  const HairpinRun predictive_no_coherence = run_hairpin(0.4, true, fm::kInfinity);
  const HairpinRun vanilla_coherent = run_hairpin(0.4, false, 2.0);
  // The predictive follower without coherence jumps straight across the mouth of the spike.
  EXPECT_LT(predictive_no_coherence.max_y, 2.0);  // measured 0.79
  EXPECT_TRUE(predictive_no_coherence.finished);
  // The vanilla follower with coherence goes all the way round the hairpin (tip at y = 10).
  EXPECT_GT(vanilla_coherent.max_y, 9.5);  // measured 10.1
  EXPECT_TRUE(vanilla_coherent.finished);
  // Coherence is the fix for the predictive follower too.
  EXPECT_GT(run_hairpin(0.4, true, 2.0).max_y, 9.5);  // measured 9.73
  // With the legs farther apart than |v| * predict_time it does not skip even without coherence.
  EXPECT_GT(run_hairpin(1.0, true, fm::kInfinity).max_y, 9.5);  // measured 9.92
}
