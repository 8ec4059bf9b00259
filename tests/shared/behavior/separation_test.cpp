#include "flockstep/behavior/separation.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "flockstep/behavior/blend.hpp"
#include "flockstep/behavior/steering.hpp"

namespace fb = flockstep::behavior;
using fb::real;
using flockstep::math::Vec2;

namespace {

fb::Kinematic at(Vec2 p, real orientation = 0) {
  fb::Kinematic k;
  k.position = p;
  k.orientation = orientation;
  return k;
}

real len(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

fb::SeparationParams linear(real threshold = 2, real max_acc = 10) {
  fb::SeparationParams p;
  p.threshold = threshold;
  p.max_acceleration = max_acc;
  p.decay = fb::SeparationDecay::kLinear;
  return p;
}

fb::SeparationParams inverse_square(real k, real threshold = 5, real max_acc = 10) {
  fb::SeparationParams p;
  p.threshold = threshold;
  p.max_acceleration = max_acc;
  p.decay_coefficient = k;
  p.decay = fb::SeparationDecay::kInverseSquare;
  return p;
}

}  // namespace

TEST(Separation, T55_ZeroWhenEveryNeighbourAtOrBeyondThreshold) {
  const fb::Kinematic c = at({1, 1});
  const std::array<Vec2, 3> others{Vec2{3, 1}, Vec2{1, -1.5}, Vec2{-5, 7}};  // 2 (exactly), 2.5, far
  for (const auto& p : {linear(2), inverse_square(10, 2)}) {
    const fb::SteeringOutput s = fb::separation(c, others, p);
    EXPECT_TRUE(s.none());
  }
  // Just inside the threshold it switches on.
  const std::array<Vec2, 1> inside{Vec2{2.999, 1}};
  EXPECT_FALSE(fb::separation(c, inside, linear(2)).none());
}

TEST(Separation, T55_LinearGivesMaxAtZeroAndZeroAtThreshold) {
  const fb::Kinematic c = at({0, 0});
  const auto p = linear(2, 10);
  const std::array<Vec2, 1> very_close{Vec2{1e-9, 0}};
  EXPECT_NEAR(len(fb::separation(c, very_close, p).linear), 10.0, 1e-7);
  const std::array<Vec2, 1> half{Vec2{1, 0}};
  EXPECT_DOUBLE_EQ(len(fb::separation(c, half, p).linear), 5.0);  // 10 * (2 - 1) / 2
  const std::array<Vec2, 1> near_threshold{Vec2{2 - 1e-9, 0}};
  EXPECT_NEAR(len(fb::separation(c, near_threshold, p).linear), 0.0, 1e-7);
}

TEST(Separation, T55_InverseSquareMatchesFormulaAndCap) {
  const fb::Kinematic c = at({0, 0});
  const auto p = inverse_square(4, 5, 10);
  const std::array<Vec2, 1> d2{Vec2{0, 2}};
  EXPECT_DOUBLE_EQ(fb::separation(c, d2, p).linear.y, -1.0);  // 4 / 2^2, pushed to -y
  const std::array<Vec2, 1> d05{Vec2{0.5, 0}};
  EXPECT_DOUBLE_EQ(fb::separation(c, d05, p).linear.x, -10.0);  // min(16, 10)
}

TEST(Separation, T55_StrengthDecreasesWithDistance) {
  const fb::Kinematic c = at({0, 0});
  for (const auto& p : {linear(3, 10), inverse_square(2, 3, 10)}) {
    real prev = 1e300;
    for (real d = 0.05; d < 3; d += 0.05) {
      const std::array<Vec2, 1> o{Vec2{0, d}};
      const real s = len(fb::separation(c, o, p).linear);
      EXPECT_LE(s, prev) << "d = " << d;
      prev = s;
    }
    EXPECT_LT(prev, 10.0);
  }
}

TEST(Separation, T55_PushesAwayFromNeighbourNotToward) {
  const fb::Kinematic c = at({2, 3});
  const std::array<Vec2, 1> o{Vec2{3, 4}};  // neighbour up-right
  for (const auto& p : {linear(3), inverse_square(1, 3)}) {
    const Vec2 a = fb::separation(c, o, p).linear;
    EXPECT_LT(a.x, 0);
    EXPECT_LT(a.y, 0);
    EXPECT_NEAR(a.x, a.y, 1e-12);  // exactly along (c - o)
    // Moving along the push increases the distance.
    EXPECT_GT(len(c.position + a * 0.01 - o[0]), len(c.position - o[0]));
  }
}

TEST(Separation, T55_ClippedToMaxAccelerationWithManyNeighbours) {
  const fb::Kinematic c = at({0, 0});
  std::vector<Vec2> others;
  for (int i = 0; i < 12; ++i) others.push_back({0.2 + 0.01 * i, 0.05 * (i % 3)});  // a crowd on one side
  const auto p = linear(2, 10);
  real unclipped = 0;
  Vec2 sum;
  for (Vec2 o : others) sum += fb::separation_contribution(c.position, 0, o, p);
  unclipped = len(sum);
  ASSERT_GT(unclipped, 50.0);  // the raw sum would be way over the limit
  const Vec2 a = fb::separation(c, others, p).linear;
  EXPECT_NEAR(len(a), 10.0, 1e-9);
  EXPECT_LT(a.x, 0);  // still away from the crowd
}

TEST(Separation, T55_CoincidentNeighbourUsesDeterministicFallback) {
  const auto p = linear(2, 10);
  const fb::Kinematic a = at({1, 1}, 0);                     // facing +x
  const fb::Kinematic b = at({1, 1}, flockstep::math::kPi);  // facing -x, same spot
  const std::array<Vec2, 1> same{Vec2{1, 1}};
  const Vec2 sa = fb::separation(a, same, p).linear;
  const Vec2 sb = fb::separation(b, same, p).linear;
  ASSERT_TRUE(std::isfinite(sa.x) && std::isfinite(sa.y));
  EXPECT_NEAR(sa.x, 0, 1e-12);
  EXPECT_NEAR(sa.y, 10, 1e-12);   // own left of +x is +y
  EXPECT_NEAR(sb.y, -10, 1e-12);  // opposite facing: opposite side, so the pair separates
  // Inverse-square at d = 0 is contained by the clip, no inf/NaN.
  const Vec2 si = fb::separation(a, same, inverse_square(3)).linear;
  EXPECT_TRUE(std::isfinite(si.x) && std::isfinite(si.y));
  EXPECT_NEAR(len(si), 10, 1e-12);
  // Same answer twice (deterministic).
  EXPECT_EQ(fb::separation(a, same, p).linear, sa);
}

TEST(Separation, T55_ClosestOnlyReactsToNearest) {
  const fb::Kinematic c = at({0, 0});
  auto p = linear(3, 10);
  p.closest_only = true;
  const std::array<Vec2, 2> others{Vec2{0, 2}, Vec2{1, 0}};
  const Vec2 a = fb::separation(c, others, p).linear;
  EXPECT_DOUBLE_EQ(a.y, 0.0);
  EXPECT_DOUBLE_EQ(a.x, -10.0 * 2 / 3);
}

TEST(Separation, T55_KinematicOverloadMatchesPositions) {
  const fb::Kinematic c = at({0, 0}, 0.3);
  const std::array<Vec2, 3> pos{Vec2{0.5, 0.2}, Vec2{-1, 0.3}, Vec2{0, 0}};
  std::array<fb::Kinematic, 3> kin{at(pos[0]), at(pos[1]), at(pos[2])};
  kin[0].velocity = {5, 5};  // velocities are irrelevant
  const auto p = linear(2, 10);
  EXPECT_EQ(fb::separation(c, pos, p), fb::separation(c, std::span<const fb::Kinematic>(kin), p));
}

TEST(Separation, T56_NegativeCoefficientAttractsWithInverseSquareMagnitude) {
  const fb::Kinematic c = at({0, 0});
  const auto p = inverse_square(-8, 5, 10);
  const std::array<Vec2, 1> d2{Vec2{2, 0}};
  const Vec2 a = fb::separation(c, d2, p).linear;
  EXPECT_DOUBLE_EQ(a.x, 2.0);  // toward, |k|/d^2 = 8/4
  EXPECT_DOUBLE_EQ(a.y, 0.0);
  const std::array<Vec2, 1> d05{Vec2{0, -0.5}};
  EXPECT_DOUBLE_EQ(fb::separation(c, d05, p).linear.y, -10.0);  // min(32, 10), toward -y
  // Beyond the threshold: nothing. On top of it: nothing (already there), no NaN.
  const std::array<Vec2, 1> far{Vec2{6, 0}};
  EXPECT_TRUE(fb::separation(c, far, p).none());
  const std::array<Vec2, 1> on{Vec2{0, 0}};
  EXPECT_TRUE(fb::separation(c, on, p).none());
  // attraction() is the same thing with the sign forced.
  EXPECT_EQ(fb::attraction(c, d2, inverse_square(8, 5, 10)), fb::separation(c, d2, p));
}

// Documents the trap of attractor/repulsor levels: a goal attractor straight behind a single
// repulsor. Analytic equilibrium: 400/(10-x)^2 = 100/(5-x)^2 at x = 0, ten metres short of the goal.
TEST(Separation, T56_AttractorBehindRepulsorStallsAgent) {
  const Vec2 goal{10, 0};
  const Vec2 repulsor{5, 0};
  fb::Kinematic c = at({-4, 0});
  const auto attract = inverse_square(-400, 100, 10);
  const auto repel = inverse_square(100, 100, 10);
  fb::VelocityMatchParams damping;  // drag-like term so the agent settles rather than oscillating
  damping.time_to_target = 0.5;
  const real dt = 1.0 / 60;
  real max_x = -1e9;
  for (int i = 0; i < 60 * 20; ++i) {
    const std::array<Vec2, 1> g{goal};
    const std::array<Vec2, 1> r{repulsor};
    const std::array<fb::SteeringOutput, 3> parts{fb::separation(c, g, attract), fb::separation(c, r, repel),
                                                  fb::velocity_match(c, {0, 0}, damping)};
    const std::array<real, 3> w{1, 1, 1};
    fb::BlendParams bp;
    bp.max_acceleration = 20;
    fb::integrate_steering(c, fb::blend_steering(parts, w, bp), 5.0, dt);
    max_x = std::max(max_x, c.position.x);
  }
  EXPECT_LT(max_x, 5.0);                   // never gets past the repulsor
  EXPECT_GT(len(goal - c.position), 9.5);  // stuck far from the goal
  EXPECT_NEAR(c.position.x, 0.0, 0.05);    // at the balance point
  EXPECT_NEAR(c.position.y, 0.0, 1e-12);
  EXPECT_LT(len(c.velocity), 0.02);  // stalled
}
