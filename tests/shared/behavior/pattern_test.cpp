#include "flockstep/behavior/pattern.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fb = flockstep::behavior;
using flockstep::math::Vec2;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;
}

TEST(Pattern, T25_SeedZigZagHeadingsAndPositions) {
  fb::PatternState s;
  // Seed headings 0, 0, 10, 20, 20, 20, 10, 0 are clockwise degrees; in the y-up frame a right
  // turn is negative.
  const double expected_cw[] = {0, 0, 10, 20, 20, 20, 10, 0};
  double ref_x = 0, ref_y = 0, ref_h = 0;
  for (int t = 0; t < 8; ++t) {
    ASSERT_TRUE(fb::pattern_step(s, fb::kSeedZigZagPattern));
    const auto& in = fb::kSeedZigZagPattern[static_cast<std::size_t>(t)];
    ref_h += in.turn_left_deg - in.turn_right_deg;
    ref_x += in.step_forward * std::cos(ref_h * kDeg);
    ref_y += in.step_forward * std::sin(ref_h * kDeg);
    EXPECT_EQ(-s.heading_deg, expected_cw[t]) << "tick " << t;
    EXPECT_NEAR(s.position.x, ref_x, 1e-12);
    EXPECT_NEAR(s.position.y, ref_y, 1e-12);
  }
  // Explicit values: after tick 1 at (4,0); after tick 5 two steps of 2 at -20 degrees.
  EXPECT_NEAR(s.position.x, 4 + 4 * std::cos(20 * kDeg), 1e-12);
  EXPECT_NEAR(s.position.y, -4 * std::sin(20 * kDeg), 1e-12);
  EXPECT_LT(s.position.y, 0);  // right turn moved it to the right of +x (downwards)
}

TEST(Pattern, T25_IndexAdvancesExactlyOncePerTickAndWraps) {
  fb::PatternState s;
  for (int t = 0; t < 20; ++t) {
    EXPECT_EQ(s.index, t % 8);
    ASSERT_TRUE(fb::pattern_step(s, fb::kSeedZigZagPattern));
    EXPECT_EQ(s.last_applied, t % 8);
  }
  // The zig-zag returns to heading 0 after each full pass, and each pass moves the same vector.
  fb::PatternState a;
  for (int t = 0; t < 8; ++t) fb::pattern_step(a, fb::kSeedZigZagPattern);
  const Vec2 one_pass = a.position;
  for (int t = 0; t < 8; ++t) fb::pattern_step(a, fb::kSeedZigZagPattern);
  EXPECT_EQ(a.heading_deg, 0);
  EXPECT_NEAR(a.position.x, 2 * one_pass.x, 1e-12);
  EXPECT_NEAR(a.position.y, 2 * one_pass.y, 1e-12);
}

TEST(Pattern, T25_StopPolicyFinishesAndHolds) {
  fb::PatternState s;
  const fb::PatternParams stop{fb::PatternEnd::stop, false};
  for (int t = 0; t < 8; ++t) EXPECT_TRUE(fb::pattern_step(s, fb::kSeedZigZagPattern, stop));
  EXPECT_TRUE(s.finished);
  const Vec2 p = s.position;
  EXPECT_FALSE(fb::pattern_step(s, fb::kSeedZigZagPattern, stop));
  EXPECT_EQ(s.position, p);
  EXPECT_EQ(s.last_applied, 7);

  fb::PatternState e;
  EXPECT_FALSE(fb::pattern_step(e, std::span<const fb::PatternInstruction>{}));
  EXPECT_EQ(e.index, 0);
}

TEST(Pattern, T25_RigidTransformOfStartPose) {
  // Same pattern from two start poses: paths differ only by the rigid transform between them.
  const fb::PatternInstruction loop[] = {{0, 0, 3, 0}, {0, 45, 1, 0}, {30, 0, 0, 1}, {0, 0, 2, 0}, {0, 135, 0, 0}};
  fb::PatternState a;
  fb::PatternState b;
  b.position = {10, -7};
  b.heading_deg = 123;
  const double c = std::cos(123 * kDeg), sn = std::sin(123 * kDeg);
  for (int t = 0; t < 40; ++t) {
    fb::pattern_step(a, loop);
    fb::pattern_step(b, loop);
    const double ex = 10 + c * a.position.x - sn * a.position.y;
    const double ey = -7 + sn * a.position.x + c * a.position.y;
    EXPECT_NEAR(b.position.x, ex, 1e-9);
    EXPECT_NEAR(b.position.y, ey, 1e-9);
    double dh = b.heading_deg - a.heading_deg - 123;
    while (dh > 180) dh -= 360;
    while (dh <= -180) dh += 360;
    EXPECT_NEAR(dh, 0, 1e-12);
  }
}

TEST(Pattern, T25_SeedLiteralMovesAlongXOnlyCorrectedFollowsHeading) {
  // Erratum Part J 2: the seed adds steps to x only.
  const fb::PatternInstruction up[] = {{0, 90, 5, 0}};
  fb::PatternState corrected;
  fb::PatternState literal;
  fb::pattern_step(corrected, up);
  fb::pattern_step(literal, up, fb::PatternParams{fb::PatternEnd::wrap, true});
  EXPECT_NEAR(corrected.position.x, 0, 1e-12);
  EXPECT_NEAR(corrected.position.y, 5, 1e-12);
  EXPECT_EQ(literal.position, (Vec2{5, 0}));
  EXPECT_EQ(corrected.heading_deg, literal.heading_deg);
}

TEST(Pattern, T25_BackwardStepAndHeadingWrapAtPlusMinus180) {
  const fb::PatternInstruction turn[] = {{0, 90, 0, 0}};
  fb::PatternState s;
  s.heading_deg = 180;
  fb::pattern_step(s, turn);
  EXPECT_EQ(s.heading_deg, -90);  // 270 wraps into (-180, 180]
  const fb::PatternInstruction back[] = {{0, 0, 1, 4}};
  fb::pattern_step(s, back);  // net 3 backwards while facing -y: moves +y
  EXPECT_NEAR(s.position.x, 0, 1e-12);
  EXPECT_NEAR(s.position.y, 3, 1e-12);
  fb::PatternState w;
  w.heading_deg = -170;
  const fb::PatternInstruction right[] = {{10, 0, 0, 0}};
  fb::pattern_step(w, right);
  EXPECT_EQ(w.heading_deg, 180);
}
