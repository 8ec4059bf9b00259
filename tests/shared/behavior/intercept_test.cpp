// Tests for T23 (intercept, Bourg's predictive chase) and T24 (feasibility + LOS fallback).
#include "flockstep/behavior/intercept.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::ChaseMode;
using fb::InterceptParams;
using fb::Mover;
using fm::real;
using fm::Vec2;

namespace {

// The catalog's check model: constant speed, turn rate limited, steers straight at an aim point.
struct Unicycle {
  Vec2 p;
  real theta = 0;
  real speed = 1;
  real turn_rate = fm::kHalfPi;  // rad/s (90 deg/s)
  Vec2 velocity() const { return Vec2{std::cos(theta), std::sin(theta)} * speed; }
  Vec2 heading() const { return Vec2{std::cos(theta), std::sin(theta)}; }
  void steer_at(Vec2 aim, real dt) {
    const Vec2 d = aim - p;
    if (d.x != 0 || d.y != 0) {
      const real err = std::remainder(std::atan2(d.y, d.x) - theta, 2 * fm::kPi);
      theta += std::clamp(err, -turn_rate * dt, turn_rate * dt);
    }
    p += velocity() * dt;
  }
};

enum class Steer { los, intercept, intercept_no_fallback };

struct ChaseResult {
  bool captured = false;
  real time = 0;
  real path = 0;
  real max_heading_change = 0;
};

// Predator at the origin heading +y; prey from prey0 at constant velocity (the catalog's T23(b)).
ChaseResult chase(Steer steer, real predator_speed, Vec2 pred0, real theta0, Vec2 prey0, Vec2 prey_v, real t_max,
                  real capture = 1, real dt = 0.01) {
  Unicycle u{pred0, theta0, predator_speed};
  Vec2 prey = prey0;
  InterceptParams ip;
  ip.fallback_to_los = steer != Steer::intercept_no_fallback;
  ChaseMode mode = ChaseMode::intercept;
  ChaseResult r;
  const int steps = static_cast<int>(t_max / dt);
  for (int i = 0; i < steps; ++i) {
    if (fm::distance(u.p, prey) <= capture) {
      r.captured = true;
      r.time = i * dt;
      return r;
    }
    Vec2 aim = prey;
    if (steer != Steer::los) aim = fb::intercept_aim({u.p, u.velocity()}, u.heading(), {prey, prey_v}, ip, mode).point;
    u.steer_at(aim, dt);
    r.path += predator_speed * dt;
    r.max_heading_change = std::max(r.max_heading_change, std::abs(std::remainder(u.theta - theta0, 2 * fm::kPi)));
    prey += prey_v * dt;
  }
  r.time = t_max;
  return r;
}

const Vec2 kPreyV{-0.7, 0.7};  // speed 0.99, diagonal

}  // namespace

TEST(Intercept, T23_PredictedPointFormula) {
  const Mover pred{{0, 0}, {0, 2}};
  const Mover prey{{30, 40}, {-1, 0}};
  const fb::InterceptAim a = fb::predict_intercept(pred, prey, {});
  const real vr = std::hypot(-1.0, -2.0);  // |v_prey - v_pred|
  EXPECT_NEAR(a.time_to_close, 50 / vr, 1e-12);
  EXPECT_NEAR(a.point.x, 30 - 50 / vr, 1e-12);
  EXPECT_NEAR(a.point.y, 40, 1e-12);
  EXPECT_FALSE(a.closing_guarded);
  EXPECT_EQ(a.mode, ChaseMode::intercept);
}

TEST(Intercept, T23_ZeroClosingVelocityGuardedAndCapped) {
  // Erratum: equal velocities divide by zero in the seed.
  const Mover pred{{0, 0}, {3, 1}};
  const Mover prey{{10, 0}, {3, 1}};
  const fb::InterceptAim a = fb::predict_intercept(pred, prey, {});
  EXPECT_TRUE(a.closing_guarded);
  EXPECT_TRUE(fm::is_finite(a.point));
  EXPECT_EQ(a.point, prey.position);  // no cap: aim at the prey itself
  InterceptParams capped;
  capped.max_prediction = 2;
  const fb::InterceptAim b = fb::predict_intercept(pred, prey, capped);
  EXPECT_EQ(b.time_to_close, 2);
  EXPECT_EQ(b.point, (Vec2{16, 2}));
  // A tiny closing speed would predict absurdly far: the cap limits it.
  const Mover slow_prey{{10, 0}, {3.001, 1}};
  const fb::InterceptAim c = fb::predict_intercept(pred, slow_prey, capped);
  EXPECT_TRUE(c.closing_guarded);
  EXPECT_EQ(c.time_to_close, 2);
  EXPECT_GT(fb::predict_intercept(pred, slow_prey, {}).time_to_close, 1000);
  // Denormal closing speed: t_c would overflow to infinity; guarded instead of NaN.
  const Mover denormal{{10, 0}, {3 + 4.9e-324, 1}};
  const fb::InterceptAim d = fb::predict_intercept({{0, 0}, {3, 1}}, denormal, {});
  EXPECT_TRUE(fm::is_finite(d.point));
  // Coincident predator and prey: t_c = 0, aim at the prey.
  const fb::InterceptAim e = fb::predict_intercept({{5, 5}, {0, 1}}, {{5, 5}, {1, 0}}, {});
  EXPECT_EQ(e.time_to_close, 0);
  EXPECT_EQ(e.point, (Vec2{5, 5}));
}

TEST(Intercept, T23_InterceptBeatsLosChaseInCatalogScenario) {
  // Catalog T23(b): predator at the origin heading +y, speed 1.2, 90 deg/s; prey at (100, 0)
  // moving (-0.7, 0.7); capture radius 1; dt 0.01. Catalog: ~59 s intercept vs ~103 s LOS.
  const ChaseResult ic = chase(Steer::intercept, 1.2, {0, 0}, fm::kHalfPi, {100, 0}, kPreyV, 200);
  const ChaseResult los = chase(Steer::los, 1.2, {0, 0}, fm::kHalfPi, {100, 0}, kPreyV, 200);
  ASSERT_TRUE(ic.captured);
  ASSERT_TRUE(los.captured);
  EXPECT_GT(ic.time, 50);
  EXPECT_LT(ic.time, 70);
  EXPECT_GT(los.time, 90);
  EXPECT_LT(los.time, 120);
  EXPECT_GT(los.time, ic.time + 25);
  EXPECT_LT(ic.path, los.path);
}

TEST(Intercept, T23_PredictedPointBecomesStationary) {
  // T23(a): against constant-velocity prey S_t wobbles during the turn-in, then stays put.
  Unicycle u{{0, 0}, fm::kHalfPi, 1.2};
  Vec2 prey{100, 0};
  const InterceptParams ip;
  ChaseMode mode = ChaseMode::intercept;
  real early_motion = 0;
  real late_motion = 0;
  Vec2 last = fb::intercept_aim({u.p, u.velocity()}, u.heading(), {prey, kPreyV}, ip, mode).point;
  const real dt = 0.01;
  for (int i = 0; i < 5000; ++i) {  // 50 s, capture is near 59 s
    const Vec2 aim = fb::intercept_aim({u.p, u.velocity()}, u.heading(), {prey, kPreyV}, ip, mode).point;
    const real moved = fm::distance(aim, last);
    if (i > 0 && i < 200) early_motion += moved;
    if (i >= 3000) late_motion += moved;
    last = aim;
    u.steer_at(aim, dt);
    prey += kPreyV * dt;
  }
  EXPECT_GT(early_motion, 5.0);                 // the point moved during the first 2 s
  EXPECT_LT(late_motion, 0.05 * early_motion);  // and hardly at all in the last 20 s
  EXPECT_EQ(mode, ChaseMode::intercept);
}

TEST(Intercept, T23_SlowerPredatorOffThePathStillIntercepts) {
  // T23(c): predators slower than the prey (0.8-0.9 vs 0.99) starting off its path intercept,
  // while LOS chase never catches up.
  for (const real speed : {0.8, 0.9}) {
    const ChaseResult ic = chase(Steer::intercept, speed, {0, 0}, fm::kHalfPi, {100, 0}, kPreyV, 250);
    const ChaseResult los = chase(Steer::los, speed, {0, 0}, fm::kHalfPi, {100, 0}, kPreyV, 250);
    EXPECT_TRUE(ic.captured) << speed;
    EXPECT_FALSE(los.captured) << speed;
  }
}

TEST(Intercept, T23_PreySwerveMakesAimJumpThenHeadingErrorDecays) {
  // T23(d) / AIDemo2-2 scenario 2.
  Unicycle u{{0, 0}, fm::kHalfPi, 1.2};
  Vec2 prey{100, 0};
  Vec2 pv = kPreyV;
  const InterceptParams ip;
  ChaseMode mode = ChaseMode::intercept;
  const real dt = 0.01;
  real err_before = 0;
  real jump = 0;
  real err_peak = 0;
  real err_end = 0;
  bool captured = false;
  Vec2 last_aim = prey;
  for (int i = 0; i < 15000 && !captured; ++i) {
    if (i == 2500) pv = Vec2{0, 0.99};  // swerve 45 deg to the right of its course
    const Vec2 aim = fb::intercept_aim({u.p, u.velocity()}, u.heading(), {prey, pv}, ip, mode).point;
    if (i == 2500) jump = fm::distance(aim, last_aim);
    last_aim = aim;
    const Vec2 d = aim - u.p;
    const real err = std::abs(std::remainder(std::atan2(d.y, d.x) - u.theta, 2 * fm::kPi));
    if (i == 2499) err_before = err;
    if (i >= 2500 && i < 2700) err_peak = std::max(err_peak, err);
    err_end = err;
    u.steer_at(aim, dt);
    prey += pv * dt;
    captured = fm::distance(u.p, prey) <= 1;
  }
  EXPECT_GT(jump, 10);          // S_t jumped immediately
  EXPECT_LT(err_before, 0.01);  // settled before the swerve
  EXPECT_GT(err_peak, 0.1);     // heading error spiked (~0.15 rad)
  EXPECT_LT(err_end, 0.01);     // and decayed again
  EXPECT_TRUE(captured);
}

TEST(Intercept, T24_PreyBehindTest) {
  EXPECT_TRUE(fb::prey_behind({0, 0}, {0, 1}, {3, -0.1}));
  EXPECT_FALSE(fb::prey_behind({0, 0}, {0, 1}, {3, 0.1}));
  EXPECT_FALSE(fb::prey_behind({0, 0}, {0, 1}, {3, 0}));  // abeam is not behind
  // Mode switches to LOS while behind, back to intercept once in front; abeam keeps the mode.
  ChaseMode mode = ChaseMode::intercept;
  const Mover pred{{0, 0}, {0, 1}};
  const fb::InterceptAim a = fb::intercept_aim(pred, {0, 1}, {{2, -5}, {0, 0.5}}, {}, mode);
  EXPECT_EQ(mode, ChaseMode::line_of_sight);
  EXPECT_EQ(a.point, (Vec2{2, -5}));
  fb::intercept_aim(pred, {0, 1}, {{2, 0}, {0, 0.5}}, {}, mode);
  EXPECT_EQ(mode, ChaseMode::line_of_sight);  // abeam: unchanged
  const fb::InterceptAim b = fb::intercept_aim(pred, {0, 1}, {{2, 5}, {0, 0.5}}, {}, mode);
  EXPECT_EQ(mode, ChaseMode::intercept);
  EXPECT_NE(b.point, (Vec2{2, 5}));
  // Point-mass form takes the heading from velocity.
  EXPECT_EQ(fb::intercept_point(pred, {{2, -5}, {0, 0.5}}, {}), (Vec2{2, -5}));
  InterceptParams off;
  off.fallback_to_los = false;
  EXPECT_NE(fb::intercept_point(pred, {{2, -5}, {0, 0.5}}, off), (Vec2{2, -5}));
}

TEST(Intercept, T24_SlowerPredatorTrailingStraightPreyNeverCaptures) {
  Unicycle u{{0, -10}, fm::kHalfPi, 0.8};
  Vec2 prey{0.5, 0};
  const Vec2 pv{0, 0.99};
  ChaseMode mode = ChaseMode::intercept;
  real d = fm::distance(u.p, prey);
  for (int i = 0; i < 10000; ++i) {
    u.steer_at(fb::intercept_aim({u.p, u.velocity()}, u.heading(), {prey, pv}, {}, mode).point, 0.01);
    prey += pv * 0.01;
    const real nd = fm::distance(u.p, prey);
    ASSERT_GE(nd, d - 1e-9) << i;
    d = nd;
  }
}

TEST(Intercept, T24_FallbackTurnsPredatorAheadAroundAndCaptures) {
  // Predator 20 m ahead of the prey, same direction, faster; prey slightly off the rear axis.
  const Vec2 prey0{1, 0};
  const Vec2 pv{0, 0.99};
  const ChaseResult with = chase(Steer::intercept, 1.2, {0, 20}, fm::kHalfPi, prey0, pv, 120);
  const ChaseResult without = chase(Steer::intercept_no_fallback, 1.2, {0, 20}, fm::kHalfPi, prey0, pv, 120);
  EXPECT_TRUE(with.captured);
  EXPECT_GT(with.max_heading_change, fm::kHalfPi);  // it turned round
  EXPECT_FALSE(without.captured);
}

// ---------------------------------------------------------------- craft (AIDemo2-2)

namespace {

struct CraftChase {
  bool captured = false;
  real time = 0;
  real path = 0;
};

CraftChase craft_chase(bool intercept, Vec2 prey_v, real t_max, fb::InterceptParams ip = {}) {
  const fb::CraftParams cp;  // terminal speed 10 m/s
  fb::CraftState s;
  s.position = {10, 10};  // lower-left corner
  s.orientation = fm::kHalfPi;
  s.velocity = {0, 10};
  Vec2 prey{190, 10};  // lower-right corner, flying toward the upper-left
  const fb::LosChaseParams los;
  ChaseMode mode = ChaseMode::intercept;
  const real dt = 1.0 / 60.0;
  CraftChase r;
  for (int i = 0; i < static_cast<int>(t_max / dt); ++i) {
    if (fm::distance(s.position, prey) < 2) {  // sum of radii
      r.captured = true;
      r.time = i * dt;
      return r;
    }
    const fb::Thrusters t = intercept ? fb::intercept_chase(s, {prey, prey_v}, ip, los, mode).thrusters
                                      : fb::los_chase_thrusters(s, prey, los);
    const Vec2 before = s.position;
    fb::craft_step(s, cp, t, dt);
    r.path += fm::distance(before, s.position);
    prey += prey_v * dt;
  }
  r.time = t_max;
  return r;
}

}  // namespace

TEST(Intercept, T23_CraftDemo2_2InterceptFasterThanLos) {
  const Vec2 pv = Vec2{-6, 6};  // 8.5 m/s toward the upper-left
  const CraftChase ic = craft_chase(true, pv, 60);
  const CraftChase los = craft_chase(false, pv, 60);
  ASSERT_TRUE(ic.captured);
  EXPECT_TRUE(!los.captured || los.time > ic.time);
  EXPECT_LT(ic.path, los.path);
  RecordProperty("intercept_s", std::to_string(ic.time));
  RecordProperty("los_s", std::to_string(los.time));
}
