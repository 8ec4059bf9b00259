// T11 world <-> local transforms (own frame and Bourg's) and T14 toroidal wrap.
#include "flockstep/math/transform.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>

#include "flockstep/math/rng.hpp"

namespace fm = flockstep::math;
using fm::real;
using fm::Vec2;

// ---------------------------------------------------------------------------------------------
// T11

TEST(Transform, T11_BourgStraightAheadMapsToZeroPlusD) {
  for (const real theta : {0.0, 0.3, 2.0, -2.5, fm::kPi}) {
    const Vec2 self{3, -4};
    const Vec2 h = fm::as_vector(theta);
    const real d = 7.5;
    const Vec2 w = fm::to_bourg_local(self + h * d - self, h);
    EXPECT_NEAR(w.x, 0.0, 1e-14) << theta;
    EXPECT_NEAR(w.y, d, 1e-14) << theta;
    const Vec2 b = fm::to_bourg_local(h * -d, h);  // straight behind
    EXPECT_NEAR(b.x, 0.0, 1e-14) << theta;
    EXPECT_NEAR(b.y, -d, 1e-14) << theta;
  }
}

TEST(Transform, T11_BourgSideSignsAndAheadBehindTests) {
  const Vec2 h{0, 1};  // facing world +y (up)
  // World +x is to the right of a body facing +y: starboard, w.x > 0.
  const Vec2 right = fm::to_bourg_local({2, 0}, h);
  EXPECT_EQ(right, (Vec2{2, 0}));
  const Vec2 left = fm::to_bourg_local({-2, 0}, h);
  EXPECT_EQ(left, (Vec2{-2, 0}));
  // Ahead-left and behind-right.
  const Vec2 al = fm::to_bourg_local({-1, 3}, h);
  EXPECT_GT(al.y, 0);
  EXPECT_LT(al.x, 0);
  const Vec2 br = fm::to_bourg_local({1, -3}, h);
  EXPECT_LT(br.y, 0);
  EXPECT_GT(br.x, 0);
  // After normalising, w.x = sin(bearing): a bearing of 30 deg to the right gives 0.5.
  const Vec2 h0 = fm::as_vector(0.4);
  const Vec2 target = fm::as_vector(0.4 - 30 * fm::kDegToRad) * 10.0;
  const Vec2 wn = fm::normalized(fm::to_bourg_local(target, h0));
  EXPECT_NEAR(wn.x, 0.5, 1e-14);
}

TEST(Transform, T11_OwnFrameForwardLeftAndRoundTrip) {
  const Vec2 h = fm::as_vector(1.1);
  const Vec2 ahead = fm::to_local(h * 4.0, h);
  EXPECT_NEAR(ahead.x, 4.0, 1e-15);
  EXPECT_NEAR(ahead.y, 0.0, 1e-15);
  const Vec2 left = fm::to_local(fm::perp_left(h) * 2.0, h);
  EXPECT_NEAR(left.x, 0.0, 1e-15);
  EXPECT_NEAR(left.y, 2.0, 1e-15);
  fm::Rng rng = fm::Rng::seeded(11);
  for (int i = 0; i < 1000; ++i) {
    const Vec2 hh = fm::as_vector(rng.uniform(-4, 4));
    const Vec2 p{rng.uniform(-50, 50), rng.uniform(-50, 50)};
    const Vec2 q{rng.uniform(-50, 50), rng.uniform(-50, 50)};
    const Vec2 l = fm::to_local_point(q, p, hh);
    const Vec2 back = fm::to_world_point(l, p, hh);
    EXPECT_NEAR(back.x, q.x, 1e-12);
    EXPECT_NEAR(back.y, q.y, 1e-12);
    EXPECT_NEAR(fm::length(l), fm::distance(p, q), 1e-12);  // rotation keeps lengths
  }
}

TEST(Transform, T11_RotatingOrTranslatingTheWholeSceneLeavesWUnchanged) {
  fm::Rng rng = fm::Rng::seeded(111);
  for (int i = 0; i < 1000; ++i) {
    const Vec2 self{rng.uniform(-20, 20), rng.uniform(-20, 20)};
    const Vec2 other{rng.uniform(-20, 20), rng.uniform(-20, 20)};
    const real theta = rng.uniform(-3, 3);
    const Vec2 w = fm::to_bourg_local(other - self, fm::as_vector(theta));
    // Rotate every position and the heading by phi about the origin, then shift by t.
    const real phi = rng.uniform(-10, 10);
    const Vec2 t{rng.uniform(-100, 100), rng.uniform(-100, 100)};
    const Vec2 self2 = fm::rotate(self, phi) + t;
    const Vec2 other2 = fm::rotate(other, phi) + t;
    const Vec2 w2 = fm::to_bourg_local(other2 - self2, fm::as_vector(theta + phi));
    EXPECT_NEAR(w2.x, w.x, 1e-11);
    EXPECT_NEAR(w2.y, w.y, 1e-11);
  }
}

// ---------------------------------------------------------------------------------------------
// T14

TEST(Transform, T14_SeedWrapSnapsToOppositeEdgeVelocityUnchanged) {
  const real W = 800, H = 600;
  // Leaving by the right edge reappears at x = 0; the seed snaps, it does not carry the excess.
  Vec2 p{799.5, 300};
  const Vec2 v{2, 0};
  const real dt = 0.5;
  p += v * dt;  // 800.5
  p = fm::wrap_seed(p, W, H);
  EXPECT_EQ(p, (Vec2{0, 300}));
  EXPECT_EQ(v, (Vec2{2, 0}));  // wrap takes positions only
  EXPECT_EQ(fm::wrap_seed({-0.1, 10}, W, H), (Vec2{W, 10}));
  EXPECT_EQ(fm::wrap_seed({10, 600.1}, W, H), (Vec2{10, 0}));
  EXPECT_EQ(fm::wrap_seed({10, -5}, W, H), (Vec2{10, H}));
  // Exactly on an edge is inside [0, W] x [0, H] and stays.
  EXPECT_EQ(fm::wrap_seed({W, H}, W, H), (Vec2{W, H}));
  EXPECT_EQ(fm::wrap_seed({0, 0}, W, H), (Vec2{0, 0}));
}

TEST(Transform, T14_EveryPositionStaysInsideAfterEachUpdate) {
  const real W = 800, H = 600;
  fm::Rng rng = fm::Rng::seeded(14);
  Vec2 p[32];
  Vec2 v[32];
  for (int i = 0; i < 32; ++i) {
    p[i] = {rng.uniform(0, W), rng.uniform(0, H)};
    v[i] = fm::as_vector(rng.uniform(-4, 4)) * rng.uniform(50, 400);
  }
  for (int tick = 0; tick < 600; ++tick) {
    for (int i = 0; i < 32; ++i) {
      const Vec2 before = v[i];
      p[i] = fm::wrap_seed(p[i] + v[i] * (1.0 / 60.0), W, H);
      Vec2 q = fm::wrap_torus(p[i] + v[i] * (1.0 / 60.0), W, H);
      ASSERT_GE(p[i].x, 0);
      ASSERT_LE(p[i].x, W);
      ASSERT_GE(p[i].y, 0);
      ASSERT_LE(p[i].y, H);
      ASSERT_GE(q.x, 0);
      ASSERT_LT(q.x, W);
      ASSERT_GE(q.y, 0);
      ASSERT_LT(q.y, H);
      ASSERT_EQ(v[i], before);
    }
  }
}

TEST(Transform, T14_TorusWrapCarriesTheExcessAcross) {
  const real W = 100, H = 50;
  const Vec2 q = fm::wrap_torus({100.3, -0.25}, W, H);
  EXPECT_NEAR(q.x, 0.3, 1e-12);
  EXPECT_NEAR(q.y, 49.75, 1e-12);
  EXPECT_EQ(fm::wrap_torus({100, 50}, W, H), (Vec2{0, 0}));  // [0, W): the far edge is the near one
  EXPECT_NEAR(fm::wrap_torus({-250.5, 175}, W, H).x, 49.5, 1e-12);
  EXPECT_NEAR(fm::wrap_torus({-250.5, 175}, W, H).y, 25, 1e-12);
  // A value a hair below zero must not come back as W (floor rounding).
  const real tiny = fm::wrap_coord(-1e-17, W);
  EXPECT_GE(tiny, 0.0);
  EXPECT_LT(tiny, W);
}

TEST(Transform, T14_TorusDeltaIsShortestWrappedDisplacement) {
  const real W = 100, H = 50;
  // Units near opposite edges are close on the torus (the seed never measured this).
  const Vec2 d = fm::torus_delta({98, 1}, {2, 49}, W, H);
  EXPECT_NEAR(d.x, 4, 1e-12);
  EXPECT_NEAR(d.y, -2, 1e-12);
  fm::Rng rng = fm::Rng::seeded(141);
  for (int i = 0; i < 1000; ++i) {
    const Vec2 a{rng.uniform(0, W), rng.uniform(0, H)};
    const Vec2 b{rng.uniform(0, W), rng.uniform(0, H)};
    const Vec2 dd = fm::torus_delta(a, b, W, H);
    EXPECT_LE(std::fabs(dd.x), W / 2);
    EXPECT_LE(std::fabs(dd.y), H / 2);
    const Vec2 land = fm::wrap_torus(a + dd, W, H);
    EXPECT_NEAR(land.x, b.x, 1e-9);
    EXPECT_NEAR(land.y, b.y, 1e-9);
  }
}
