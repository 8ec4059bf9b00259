// T08 slides' Body update and truncate; T09 behaviour switches and calcForce.
#include "flockstep/behavior/body.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fm::real;
using fm::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;

fb::Body make_body() {
  fb::Body b;
  b.mass = 2;
  b.max_force = 10;
  b.max_speed = 5;
  return b;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// T08 truncate

TEST(Body, T08_TruncateLengthIsMinOfLengthAndMaxDirectionKept) {
  fm::Rng rng = fm::Rng::seeded(8);
  for (int i = 0; i < 1000; ++i) {
    const Vec2 v{rng.uniform(-10, 10), rng.uniform(-10, 10)};
    const real m = rng.uniform(0.01, 12);
    const Vec2 t = fm::truncate(v, m);
    EXPECT_NEAR(fm::length(t), fm::min(fm::length(v), m), 1e-12);
    EXPECT_NEAR(fm::cross(t, v), 0.0, 1e-11);
    EXPECT_GT(fm::dot(t, v), 0.0);
  }
  EXPECT_EQ(fm::truncate({3, 4}, 5), (Vec2{3, 4}));  // exactly at the limit: untouched
  EXPECT_EQ(fm::truncate({3, 4}, 10), (Vec2{3, 4}));
  const Vec2 t = fm::truncate({3, 4}, 2.5);
  EXPECT_DOUBLE_EQ(t.x, 1.5);
  EXPECT_DOUBLE_EQ(t.y, 2.0);
}

TEST(Body, T08_TruncateZeroVectorIsZeroNotNaN) {
  EXPECT_EQ(fm::truncate({0, 0}, 3), (Vec2{0, 0}));
  EXPECT_EQ(fm::truncate({0, 0}, 0), (Vec2{0, 0}));
  EXPECT_EQ(fm::truncate({1, 0}, 0), (Vec2{0, 0}));
  EXPECT_EQ(fb::truncate_seed_literal({0, 0}, 3), (Vec2{0, 0}));
}

TEST(Body, T08_ErratumSeedTruncateStretchesShortVectors) {
  // Printed factor max(1, max/|v|): a short vector is stretched UP to max and a long one is
  // left as is; the corrected min(1, max/|v|) does the opposite.
  const Vec2 shrt{0.6, 0.8};
  const Vec2 lit_short = fb::truncate_seed_literal(shrt, 5);
  EXPECT_NEAR(fm::length(lit_short), 5.0, 1e-12);
  EXPECT_EQ(fm::truncate(shrt, 5), shrt);
  const Vec2 lng{30, 40};
  EXPECT_EQ(fb::truncate_seed_literal(lng, 5), lng);
  EXPECT_NEAR(fm::length(fm::truncate(lng, 5)), 5.0, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// T08 body_update

TEST(Body, T08_UpdateFollowsSlideStepsWithErrataFixed) {
  fb::Body b = make_body();
  b.position = {1, 1};
  // Force (6, 8) has |F| = 10 = max_force: a = F / m = (3, 4); v = a dt; p += v dt.
  fb::body_update(b, {6, 8}, 0.5);
  EXPECT_DOUBLE_EQ(b.velocity.x, 1.5);
  EXPECT_DOUBLE_EQ(b.velocity.y, 2.0);
  EXPECT_DOUBLE_EQ(b.position.x, 1.75);  // the NEW velocity moves the body (slide order)
  EXPECT_DOUBLE_EQ(b.position.y, 2.0);
  EXPECT_DOUBLE_EQ(b.heading.x, 0.6);
  EXPECT_DOUBLE_EQ(b.heading.y, 0.8);
  // A force 10x too big is truncated to max_force first: same result as the (6, 8) force.
  fb::Body c = make_body();
  c.position = {1, 1};
  fb::body_update(c, {60, 80}, 0.5);
  EXPECT_DOUBLE_EQ(c.velocity.x, 1.5);
  EXPECT_DOUBLE_EQ(c.velocity.y, 2.0);
}

TEST(Body, T08_SpeedNeverExceedsMaxSpeed) {
  fb::Body b = make_body();
  real top = 0;
  for (int i = 0; i < 600; ++i) {
    fb::body_update(b, fm::as_vector(0.01 * i) * 50.0, kDt);
    EXPECT_LE(fm::length(b.velocity), b.max_speed + 1e-12) << i;
    top = fm::max(top, fm::length(b.velocity));
  }
  EXPECT_GT(top, 0.99 * b.max_speed);  // it really was pushed to the limit
}

TEST(Body, T08_ErratumSeedUpdateLetsSpeedGrowPastMax) {
  // The printed update truncates a*dt (not v) by max_speed: speed keeps growing.
  fb::Body fixed = make_body();
  fb::Body literal = make_body();
  for (int i = 0; i < 600; ++i) {
    fb::body_update(fixed, {10, 0}, kDt);
    fb::body_update_seed_literal(literal, {10, 0}, kDt);
  }
  EXPECT_DOUBLE_EQ(fm::length(fixed.velocity), 5.0);
  EXPECT_NEAR(literal.velocity.x, 10.0 / 2.0 * 600 * kDt, 1e-9);  // 50 m/s, 10x max_speed
  EXPECT_GT(fm::length(literal.velocity), 5.0 * 9);
}

TEST(Body, T08_HeadingFrozenWhileSpeedAtMostOneMicrometrePerSecond) {
  fb::Body b = make_body();
  b.heading = fm::as_vector(2.0);
  fb::body_update(b, {0, 0}, kDt);  // stationary, no force
  EXPECT_EQ(b.heading, fm::as_vector(2.0));
  // Tiny nudge: speed 1e-7 m/s <= 1e-6, heading unchanged.
  b.velocity = {0, 0};
  fb::body_update(b, {1e-7 * 2.0 / 0.5, 0}, 0.5);
  EXPECT_NEAR(b.velocity.x, 1e-7, 1e-20);
  EXPECT_EQ(b.heading, fm::as_vector(2.0));
  // Just above 1e-6 m/s: heading snaps to v/|v|.
  b.velocity = {0, -2e-6};
  fb::body_update(b, {0, 0}, kDt);
  EXPECT_EQ(b.heading, (Vec2{0, -1}));
  EXPECT_TRUE(fm::is_finite(b.heading));
}

TEST(Body, T08_ZeroMaxSpeedAndZeroForceKeepBodyStill) {
  fb::Body b = make_body();
  b.max_speed = 0;
  for (int i = 0; i < 10; ++i) fb::body_update(b, {10, 10}, kDt);
  EXPECT_EQ(b.position, (Vec2{0, 0}));
  EXPECT_EQ(b.heading, (Vec2{1, 0}));
  fb::Body c = make_body();
  c.max_force = 0;
  c.velocity = {1, 0};
  fb::body_update(c, {-100, 0}, 1.0);
  EXPECT_EQ(c.velocity, (Vec2{1, 0}));  // no force allowed: coasts
}

// ---------------------------------------------------------------------------------------------
// T09

TEST(Body, T09_SwitchesTurnBehavioursOnAndOffIndependently) {
  fb::BehaviorSwitches sw;
  for (std::int32_t i = 0; i < fb::kBehaviorCount; ++i) EXPECT_FALSE(sw.is_on(fb::behavior_from_index(i)));
  sw.on(fb::Behavior::seek);
  sw.on(fb::Behavior::wander);
  EXPECT_TRUE(sw.is_on(fb::Behavior::seek));
  EXPECT_TRUE(sw.is_on(fb::Behavior::wander));
  EXPECT_FALSE(sw.is_on(fb::Behavior::flee));
  sw.off(fb::Behavior::seek);
  EXPECT_FALSE(sw.is_on(fb::Behavior::seek));
  EXPECT_TRUE(sw.is_on(fb::Behavior::wander));
  sw.set(fb::Behavior::cohesion, true);
  EXPECT_TRUE(sw.is_on(fb::Behavior::cohesion));
  sw.set(fb::Behavior::cohesion, false);
  EXPECT_EQ(sw.bits, static_cast<std::uint32_t>(fb::Behavior::wander));
  EXPECT_EQ(fb::behavior_from_index(fb::kBehaviorCount - 1), fb::Behavior::cohesion);
}

TEST(Body, T09_DisabledBehaviourContributesExactlyZero) {
  const real nan = std::numeric_limits<real>::quiet_NaN();
  const std::array<fb::BehaviorForce, 4> forces{{
      {fb::Behavior::seek, {1.25, -0.5}},
      {fb::Behavior::flee, {1e9, 1e9}},    // huge, but off
      {fb::Behavior::wander, {nan, nan}},  // even NaN must not leak when off
      {fb::Behavior::separation, {0.25, 0.125}},
  }};
  fb::BehaviorSwitches sw;
  sw.on(fb::Behavior::seek);
  sw.on(fb::Behavior::separation);
  const Vec2 f = fb::calc_force(sw, forces, 100);
  EXPECT_EQ(f, (Vec2{1.5, -0.375}));  // bit-exact: disabled entries are skipped, not scaled by 0
  // Nothing enabled: exactly zero.
  EXPECT_EQ(fb::calc_force(fb::BehaviorSwitches{}, forces, 100), (Vec2{0, 0}));
  // Lazy form never even evaluates disabled behaviours.
  int calls = 0;
  const Vec2 g = fb::calc_force_lazy(sw, 100, [&](fb::Behavior b) {
    ++calls;
    EXPECT_TRUE(b == fb::Behavior::seek || b == fb::Behavior::separation);
    return b == fb::Behavior::seek ? Vec2{1.25, -0.5} : Vec2{0.25, 0.125};
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(g, f);
}

TEST(Body, T09_OnlySeekEnabledGivesTruncatedSeek) {
  const Vec2 seek{30, -40};
  const std::array<fb::BehaviorForce, 3> forces{{
      {fb::Behavior::arrive, {5, 5}},
      {fb::Behavior::seek, seek},
      {fb::Behavior::evade, {-7, 1}},
  }};
  fb::BehaviorSwitches sw;
  sw.on(fb::Behavior::seek);
  for (const real max_force : {1.0, 10.0, 50.0, 100.0}) {
    const Vec2 f = fb::calc_force(sw, forces, max_force);
    EXPECT_EQ(f, fm::truncate(seek, max_force)) << max_force;
    EXPECT_LE(fm::length(f), max_force + 1e-12);
  }
}

TEST(Body, T09_SumOfEnabledIsTruncatedAfterSumming) {
  // Two opposing enabled forces cancel BEFORE truncation (the slides sum, then truncate).
  const std::array<fb::BehaviorForce, 2> forces{{
      {fb::Behavior::seek, {100, 0}},
      {fb::Behavior::flee, {-99, 0}},
  }};
  fb::BehaviorSwitches sw;
  sw.on(fb::Behavior::seek);
  sw.on(fb::Behavior::flee);
  EXPECT_EQ(fb::calc_force(sw, forces, 10), (Vec2{1, 0}));
}

TEST(Body, T09_LayersActionSelectionSteeringLocomotion) {
  // Action selection flips from seek to flee half way; calcForce + body_update carry it out.
  fb::Body b = make_body();
  const Vec2 target{10, 0};
  fb::BehaviorSwitches sw;
  sw.on(fb::Behavior::seek);
  real closest = 1e9;
  for (int tick = 0; tick < 240; ++tick) {
    if (tick == 120) {
      sw.off(fb::Behavior::seek);
      sw.on(fb::Behavior::flee);
    }
    const Vec2 to = fm::normalized(target - b.position) * b.max_speed;
    const Vec2 f = fb::calc_force_lazy(sw, b.max_force, [&](fb::Behavior which) {
      return which == fb::Behavior::seek ? (to - b.velocity) * 5.0 : (-to - b.velocity) * 5.0;
    });
    fb::body_update(b, f, kDt);
    closest = fm::min(closest, fm::distance(b.position, target));
  }
  EXPECT_LT(closest, 4.0);       // approached while seeking
  EXPECT_LT(b.velocity.x, 0.0);  // and now runs away
  EXPECT_GT(fm::distance(b.position, target), closest);
}
