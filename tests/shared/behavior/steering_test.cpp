// Tests for T41-T51 steering behaviours (catalog Part F) and the T05 update integrate_steering.
#include "flockstep/behavior/steering.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "flockstep/behavior/kinematic.hpp"

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::real;
using fb::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;
constexpr real kDeg = fm::kDegToRad;

/// Random kinematic state for the delegation property tests.
fb::Kinematic random_kinematic(fm::Rng& rng) {
  fb::Kinematic k;
  k.position = {rng.uniform(-20, 20), rng.uniform(-20, 20)};
  k.orientation = rng.uniform(-fm::kPi, fm::kPi);
  k.velocity = {rng.uniform(-6, 6), rng.uniform(-6, 6)};
  k.rotation = rng.uniform(-4, 4);
  return k;
}

Vec2 random_point(fm::Rng& rng) { return {rng.uniform(-20, 20), rng.uniform(-20, 20)}; }

/// Run arrive from (-start, 0) toward the origin and return the largest x reached (> 0 = overshoot).
real arrive_overshoot(const fb::ArriveParams& p, real start, int frames, bool* monotone = nullptr) {
  fb::Kinematic k;
  k.position = {-start, 0};
  real max_x = -start;
  real d = start;
  if (monotone) *monotone = true;
  for (int i = 0; i < frames; ++i) {
    fb::integrate_steering(k, fb::dynamic_arrive(k, {0, 0}, p), p.max_speed, kDt);
    max_x = fm::max(max_x, k.position.x);
    const real d2 = fm::length(k.position);
    if (monotone && d2 > d) *monotone = false;
    d = d2;
  }
  return max_x;
}

/// Run plain seek from rest at (-20, 0) to the origin; largest x reached.
real seek_overshoot(real max_speed, real max_acc) {
  fb::Kinematic k;
  k.position = {-20, 0};
  real max_x = -20;
  for (int i = 0; i < 600; ++i) {
    fb::integrate_steering(k, fb::dynamic_seek(k, {0, 0}, {max_acc}), max_speed, kDt);
    max_x = fm::max(max_x, k.position.x);
  }
  return max_x;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The T05 update used with steering outputs.

TEST(IntegrateSteering, T05_PositionUsesOldVelocityThenVelocityTakesAcceleration) {
  fb::Kinematic k;
  k.position = {1, 2};
  k.velocity = {3, -1};
  k.orientation = 0.5;
  k.rotation = 2;
  fb::integrate_steering(k, {{6, 0}, -12}, 100, 0.5);
  EXPECT_EQ(k.position, (Vec2{2.5, 1.5}));
  EXPECT_EQ(k.velocity, (Vec2{6, -1}));
  EXPECT_DOUBLE_EQ(k.orientation, 1.5);
  EXPECT_DOUBLE_EQ(k.rotation, -4);
}

TEST(IntegrateSteering, T05_SpeedNeverExceedsMaxSpeedAndOnlyClipsAboveIt) {
  auto rng = fm::Rng::seeded(5);
  fb::Kinematic k;
  for (int i = 0; i < 1000; ++i) {
    const fb::SteeringOutput s{{rng.uniform(-50, 50), rng.uniform(-50, 50)}, 0};
    fb::integrate_steering(k, s, 3, kDt);
    ASSERT_LE(fm::length(k.velocity), 3 + 1e-12);
  }
  // Below the cap the velocity is untouched.
  fb::Kinematic slow;
  fb::integrate_steering(slow, {{1.5, 0}, 0}, 3, 1);
  EXPECT_EQ(slow.velocity, (Vec2{1.5, 0}));
}

TEST(IntegrateSteering, T05_OrientationWrapsRotationDoesNot) {
  fb::Kinematic k;
  k.orientation = 3.0;
  k.rotation = 50;
  fb::integrate_steering(k, {}, 1, 0.1);
  EXPECT_NEAR(k.orientation, fm::wrap_angle(8.0), 1e-12);
  EXPECT_EQ(k.rotation, 50);  // rotation is a rate: never wrapped
  fb::integrate_steering(k, {}, 1, 0.1, 10);
  EXPECT_EQ(k.rotation, 10);  // optional rotation clip
}

// ---------------------------------------------------------------------------------------------
// T41 framework: delegation, variable matching, opposites.

TEST(SteeringDelegation, T41_ArriveEqualsVelocityMatchOfItsSurrogate) {
  auto rng = fm::Rng::seeded(41);
  for (bool brake : {false, true}) {
    const fb::ArriveParams p{12, 6, 0.5, 4, 0.2, brake};
    int delegated = 0;
    for (int i = 0; i < 500; ++i) {
      const fb::Kinematic c = random_kinematic(rng);
      // Half the targets land near the character so the inside-radius path is exercised too.
      const Vec2 t = i % 2 == 0 ? random_point(rng) : c.position + Vec2{rng.uniform(-0.6, 0.6), 0};
      const auto d = fb::dynamic_arrive_delegated(c, t, p);
      EXPECT_EQ(d.steering, fb::dynamic_arrive(c, t, p));
      if (d.delegated) {
        ++delegated;
        EXPECT_EQ(d.steering, fb::velocity_match(c, d.surrogate, {p.max_acceleration, p.time_to_target}));
      } else {
        EXPECT_TRUE(d.steering.none());
        EXPECT_FALSE(brake);
      }
    }
    EXPECT_GT(delegated, 250);
  }
}

TEST(SteeringDelegation, T41_PursueEqualsSeekOrArriveOfItsSurrogate) {
  auto rng = fm::Rng::seeded(47);
  fb::DynamicPursueParams p;
  for (int i = 0; i < 500; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const fb::Mover t{random_point(rng), {rng.uniform(-5, 5), rng.uniform(-5, 5)}};
    p.base = i % 2 == 0 ? fb::PursueBase::seek : fb::PursueBase::arrive;
    const auto d = fb::dynamic_pursue_delegated(c, t, p);
    ASSERT_TRUE(d.delegated);
    EXPECT_EQ(d.steering, fb::dynamic_pursue(c, t, p));
    const fb::SteeringOutput base = p.base == fb::PursueBase::seek ? fb::dynamic_seek(c, d.surrogate, p.seek)
                                                                   : fb::dynamic_arrive(c, d.surrogate, p.arrive);
    EXPECT_EQ(d.steering, base);
  }
}

TEST(SteeringDelegation, T41_EvadeEqualsFleeOfItsSurrogate) {
  auto rng = fm::Rng::seeded(48);
  const fb::DynamicEvadeParams p;
  for (int i = 0; i < 300; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const fb::Mover t{random_point(rng), {rng.uniform(-5, 5), rng.uniform(-5, 5)}};
    const auto d = fb::dynamic_evade_delegated(c, t, p);
    ASSERT_TRUE(d.delegated);
    EXPECT_EQ(d.steering, fb::dynamic_flee(c, d.surrogate, p.flee));
    EXPECT_EQ(d.steering, fb::dynamic_evade(c, t, p));
  }
}

TEST(SteeringDelegation, T41_FaceAndLookWhereYouAreGoingEqualAlignOfTheirSurrogate) {
  auto rng = fm::Rng::seeded(49);
  const fb::AlignParams p;
  for (int i = 0; i < 300; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const Vec2 t = random_point(rng);
    const auto f = fb::face_delegated(c, t, p);
    ASSERT_TRUE(f.delegated);
    EXPECT_EQ(f.steering, fb::align(c, f.surrogate, p));
    EXPECT_EQ(f.steering, fb::face(c, t, p));
    const auto l = fb::look_where_you_are_going_delegated(c, p);
    ASSERT_TRUE(l.delegated);
    EXPECT_EQ(l.steering, fb::align(c, l.surrogate, p));
    EXPECT_EQ(l.steering, fb::look_where_you_are_going(c, p));
  }
}

TEST(SteeringDelegation, T41_WanderAngularEqualsFaceOfItsSurrogateTarget) {
  auto rng = fm::Rng::seeded(51);
  const fb::DynamicWanderParams p;
  fb::DynamicWanderState st;
  for (int i = 0; i < 300; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const auto out = fb::dynamic_wander(c, st, p, rng);
    EXPECT_EQ(out.steering.angular, fb::face(c, out.target, p.align).angular);
  }
}

TEST(SteeringDelegation, T41_MatchersMatchOneElementAndHaveOpposites) {
  fb::Kinematic c;
  c.position = {0, 0};
  c.velocity = {2, 1};
  c.orientation = 0.3;
  // Moving behaviours have no angular part; turning behaviours no linear part.
  EXPECT_EQ(fb::dynamic_seek(c, {5, 5}, {}).angular, 0);
  EXPECT_EQ(fb::velocity_match(c, {0, 0}, {}).angular, 0);
  EXPECT_TRUE(fm::is_zero(fb::align(c, 2.0, {}).linear));
  // Matching velocity alone never closes distance: with equal velocities it asks for nothing,
  // although the target is 10 m away (why one behaviour should match one element).
  EXPECT_TRUE(fb::velocity_match(c, c.velocity, {}).none());
  EXPECT_FALSE(fb::dynamic_seek(c, {10, 0}, {}).none());
  // Opposites: flee is exactly seek reversed.
  const fb::SteeringOutput s = fb::dynamic_seek(c, {3, -4}, {7});
  const fb::SteeringOutput f = fb::dynamic_flee(c, {3, -4}, {7});
  EXPECT_EQ(f.linear, -s.linear);
}

// ---------------------------------------------------------------------------------------------
// T42 dynamic seek

TEST(DynamicSeek, T42_FullAccelerationPointingAtTarget) {
  auto rng = fm::Rng::seeded(42);
  for (int i = 0; i < 200; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const Vec2 t = random_point(rng);
    const auto out = fb::dynamic_seek(c, t, {7.5});
    EXPECT_NEAR(fm::length(out.linear), 7.5, 1e-12);
    EXPECT_NEAR(fm::cross(fm::normalized(out.linear), fm::normalized(t - c.position)), 0, 1e-12);
    EXPECT_GT(fm::dot(out.linear, t - c.position), 0);
    EXPECT_EQ(out.angular, 0);
  }
}

TEST(DynamicSeek, T42_OnTargetIsNoSteering) {
  fb::Kinematic c;
  c.position = {3, 3};
  c.velocity = {1, 0};
  EXPECT_TRUE(fb::dynamic_seek(c, {3, 3}, {}).none());
}

TEST(DynamicSeek, T42_SpeedStaysClippedByTheUpdate) {
  fb::Kinematic k;
  for (int i = 0; i < 600; ++i) {
    fb::integrate_steering(k, fb::dynamic_seek(k, {100, 30}, {20}), 4, kDt);
    ASSERT_LE(fm::length(k.velocity), 4 + 1e-12);
  }
  EXPECT_NEAR(fm::length(k.velocity), 4, 1e-9);
}

TEST(DynamicSeek, T42_OvershootsStaticTargetMoreAsMaxSpeedOverMaxAccelerationGrows) {
  // Measured with Newton-Euler-1 at 60 Hz from rest 20 m away: about v^2 / (2a).
  const real r05 = seek_overshoot(5, 10);  // ratio 0.5 s
  const real r1 = seek_overshoot(10, 10);  // ratio 1 s
  const real r2 = seek_overshoot(10, 5);   // ratio 2 s
  EXPECT_GT(r05, 1.0);
  EXPECT_LT(r05, 1.6);
  EXPECT_GT(r1, r05);
  EXPECT_GT(r2, r1);
  EXPECT_NEAR(r1, 5.0, 0.5);
  EXPECT_NEAR(r2, 10.0, 0.5);
}

// ---------------------------------------------------------------------------------------------
// T43 dynamic flee

TEST(DynamicFlee, T43_DistanceIncreasesMonotonicallyAndSpeedSaturates) {
  fb::Kinematic k;
  k.position = {0.3, -0.2};
  const Vec2 threat{0, 0};
  real d = fm::length(k.position);
  for (int i = 0; i < 300; ++i) {
    const auto s = fb::dynamic_flee(k, threat, {8});
    EXPECT_NEAR(fm::length(s.linear), 8, 1e-12);
    fb::integrate_steering(k, s, 5, kDt);
    const real d2 = fm::length(k.position);
    EXPECT_GE(d2, d);
    d = d2;
  }
  EXPECT_NEAR(fm::length(k.velocity), 5, 1e-12);
}

TEST(DynamicFlee, T43_CoincidentThreatIsNoSteeringNotNaN) {
  fb::Kinematic c;
  c.position = {1, 1};
  const auto s = fb::dynamic_flee(c, {1, 1}, {});
  EXPECT_TRUE(s.none());
  EXPECT_TRUE(fm::is_finite(s.linear));
}

// ---------------------------------------------------------------------------------------------
// T44 dynamic arrive

TEST(DynamicArrive, T44_DefaultsFollowSeedAndTuningRule) {
  const fb::ArriveParams p;
  EXPECT_EQ(p.time_to_target, 0.1);
  EXPECT_LE(p.max_speed / p.slow_radius, 1 / (4 * p.time_to_target));
  EXPECT_GE(p.max_acceleration, p.max_speed * p.max_speed / p.slow_radius);
}

TEST(DynamicArrive, T44_TargetSpeedIsMaxOutsideSlowRadiusAndLinearInside) {
  const fb::ArriveParams p{15, 10, 0.1, 5, 0.1};
  EXPECT_EQ(fb::arrive_target_speed(20, p), 10);
  EXPECT_EQ(fb::arrive_target_speed(5.0001, p), 10);
  EXPECT_DOUBLE_EQ(fb::arrive_target_speed(5, p), 10);
  EXPECT_DOUBLE_EQ(fb::arrive_target_speed(2.5, p), 5);
  EXPECT_DOUBLE_EQ(fb::arrive_target_speed(1, p), 2);
  // And the surrogate velocity handed to velocity matching has exactly that speed, toward the target.
  fb::Kinematic c;
  c.position = {1, 1};
  for (real d : {0.5, 1.0, 3.0, 4.9, 7.0, 40.0}) {
    const Vec2 t = c.position + Vec2{0, -d};
    const auto out = fb::dynamic_arrive_delegated(c, t, p);
    ASSERT_TRUE(out.delegated);
    EXPECT_NEAR(fm::length(out.surrogate), d > 5 ? 10 : 10 * d / 5, 1e-12) << d;
    EXPECT_LT(out.surrogate.y, 0);
  }
}

TEST(DynamicArrive, T44_LinearNeverExceedsMaxAccelerationAndHasNoAngular) {
  auto rng = fm::Rng::seeded(44);
  const fb::ArriveParams p{6, 5, 0.1, 3, 0.1};
  for (int i = 0; i < 500; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const auto s = fb::dynamic_arrive(c, random_point(rng), p);
    EXPECT_LE(fm::length(s.linear), 6 + 1e-12);
    EXPECT_EQ(s.angular, 0);
  }
}

TEST(DynamicArrive, T44_NoOvershootUnderTuningRule) {
  // Catalog example: max_speed 10, slow_radius 5 (2 s^-1 <= 1/(4 * 0.1)), max_acc 15, radius 0.
  const fb::ArriveParams p{15, 10, 0, 5, 0.1};
  fb::Kinematic k;
  k.position = {-20, 0};
  real d = 20;
  for (int i = 0; i < 60 * 10; ++i) {
    fb::integrate_steering(k, fb::dynamic_arrive(k, {0, 0}, p), p.max_speed, kDt);
    ASSERT_LE(k.position.x, 0) << "overshoot at frame " << i;
    const real d2 = fm::length(k.position);
    ASSERT_LE(d2, d) << "frame " << i;
    d = d2;
  }
  EXPECT_LT(d, 1e-6);
  EXPECT_LT(fm::length(k.velocity), 1e-5);
  // The library defaults satisfy the rule too.
  bool monotone = false;
  const fb::ArriveParams def;
  EXPECT_LE(
      arrive_overshoot(fb::ArriveParams{def.max_acceleration, def.max_speed, 0, def.slow_radius}, 20, 600, &monotone),
      0);
  EXPECT_TRUE(monotone);
}

TEST(DynamicArrive, T44_BreakingTheTuningRuleOvershoots) {
  // Ratio 5 and 10 s^-1 (catalog: "overshoot by 0.1-0.26 units"; we measure 0.16 and 0.37 with
  // ample acceleration), and too little acceleration (max_acc 5 < max_speed^2/slow_radius = 20).
  const real ratio5 = arrive_overshoot({100, 10, 0, 2, 0.1}, 20, 1200);
  const real ratio10 = arrive_overshoot({100, 10, 0, 1, 0.1}, 20, 1200);
  EXPECT_GT(ratio5, 0.1);
  EXPECT_LT(ratio5, 0.26);
  EXPECT_GT(ratio10, ratio5);
  EXPECT_LT(ratio10, 0.5);
  EXPECT_GT(arrive_overshoot({5, 10, 0, 5, 0.1}, 20, 1200), 1.0);
  EXPECT_GT(arrive_overshoot({10, 10, 0, 5, 0.1}, 20, 1200), 0.1);  // 10 < 15 still overshoots
}

TEST(DynamicArrive, T44_BrakesWhenComingInTooFast) {
  const fb::ArriveParams p{15, 10, 0.1, 5, 0.1};
  fb::Kinematic c;
  c.position = {-2, 0};
  c.velocity = {9, 0};  // wants 4 m/s at 2 m
  const auto s = fb::dynamic_arrive(c, {0, 0}, p);
  EXPECT_LT(s.linear.x, 0);
  EXPECT_NEAR(fm::length(s.linear), 15, 1e-12);  // (4 - 9) / 0.1 = -50, clipped to 15
}

TEST(DynamicArrive, T44_InsideTargetRadiusIsNoSteeringSoItCoastsUnlessBraking) {
  fb::ArriveParams p{15, 5, 0.5, 2.5, 0.1};
  fb::Kinematic c;
  c.position = {0.2, 0.1};
  c.velocity = {0.3, 0};
  const auto seed = fb::dynamic_arrive_delegated(c, {0, 0}, p);
  EXPECT_FALSE(seed.delegated);
  EXPECT_TRUE(seed.steering.none());
  p.brake_inside_target = true;
  const auto brake = fb::dynamic_arrive_delegated(c, {0, 0}, p);
  EXPECT_TRUE(brake.delegated);
  EXPECT_EQ(brake.surrogate, (Vec2{0, 0}));
  EXPECT_DOUBLE_EQ(brake.steering.linear.x, -3);  // -v / tau
  // Stopped inside the radius: nothing to do in either mode. On the target with radius 0: no NaN.
  c.velocity = {};
  EXPECT_TRUE(fb::dynamic_arrive(c, {0, 0}, p).none());
  c.position = {};
  EXPECT_TRUE(fb::dynamic_arrive(c, {0, 0}, fb::ArriveParams{15, 5, 0, 2.5, 0.1}).none());
}

TEST(DynamicArrive, T44_EndsWithinTargetRadiusPlusDrift) {
  for (bool brake : {false, true}) {
    fb::ArriveParams p;  // defaults, target_radius 0.05
    p.brake_inside_target = brake;
    fb::Kinematic k;
    k.position = {-10, 3};
    real tail_max = 0;
    for (int i = 0; i < 60 * 20; ++i) {
      fb::integrate_steering(k, fb::dynamic_arrive(k, {0, 0}, p), p.max_speed, kDt);
      if (i >= 60 * 10) tail_max = fm::max(tail_max, fm::length(k.position));
    }
    if (brake) {
      EXPECT_LT(tail_max, p.target_radius);  // settles strictly inside
      EXPECT_LT(fm::length(k.velocity), 1e-9);
    } else {
      // Seed behaviour: coasts through the tolerance disc and is pulled back; drift of the order
      // of target_radius (measured 0.053 for 0.05).
      EXPECT_LT(tail_max, 1.25 * p.target_radius);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// T45 align

TEST(DynamicAlign, T45_TakesTheShortWayRoundThroughZeroAndThroughPi) {
  struct Case {
    real from_deg, to_deg, via_deg;
  };
  for (const Case cs : {Case{-10, 10, 0}, Case{170, -170, 180}}) {
    fb::AlignParams p;
    p.brake_inside_target = true;
    fb::Kinematic k;
    k.orientation = cs.from_deg * kDeg;
    real travelled = 0;
    bool passed_via = false;
    for (int i = 0; i < 120; ++i) {
      const auto s = fb::align(k, cs.to_deg * kDeg, p);
      if (i == 0) {
        EXPECT_GT(s.angular, 0);  // positive (counter-clockwise) rotation
      }
      const real before = k.orientation;
      fb::integrate_steering(k, s, 1, kDt);
      const real step = fm::wrap_angle(k.orientation - before);
      EXPECT_GE(step, 0);
      travelled += step;
      if (std::abs(fm::wrap_angle(k.orientation - cs.via_deg * kDeg)) < 2 * kDeg) passed_via = true;
    }
    EXPECT_TRUE(passed_via);
    EXPECT_NEAR(travelled, 20 * kDeg, p.target_radius);
  }
}

TEST(DynamicAlign, T45_ExactlyOppositeTurnsPositive) {
  fb::Kinematic k;
  k.orientation = 0;
  EXPECT_GT(fb::align(k, fm::kPi, {}).angular, 0);
  EXPECT_GT(fb::align(k, -fm::kPi, {}).angular, 0);  // wrap(-pi) = pi
}

TEST(DynamicAlign, T45_InsideTargetRadiusIsNoSteeringAndNeverLinear) {
  fb::AlignParams p;
  fb::Kinematic k;
  k.orientation = 1.0;
  k.rotation = 0.4;
  EXPECT_TRUE(fb::align(k, 1.0 + 0.5 * p.target_radius, p).none());
  EXPECT_TRUE(fb::align(k, 1.0 + 2 * fm::kPi, p).none());  // same angle, different winding
  p.brake_inside_target = true;
  const auto s = fb::align(k, 1.0, p);
  EXPECT_DOUBLE_EQ(s.angular, -4);  // -rotation / tau
  EXPECT_TRUE(fm::is_zero(s.linear));
  k.rotation = 0;
  EXPECT_TRUE(fb::align(k, 1.0, p).none());  // settled: nothing to do
}

TEST(DynamicAlign, T45_NoOvershootUnderTuningRuleAndOvershootBeyondIt) {
  auto run = [](real slow_radius) {
    fb::AlignParams p{20, fm::kPi, 0, slow_radius, 0.1};
    fb::Kinematic k;
    real overshoot = 0;
    real err = 2;
    bool monotone = true;
    for (int i = 0; i < 600; ++i) {
      fb::integrate_steering(k, fb::align(k, 2.0, p), 1, kDt);
      const real e = fm::wrap_angle(2.0 - k.orientation);
      if (e < 0) overshoot = fm::max(overshoot, -e);
      if (std::abs(e) > err) monotone = false;
      err = std::abs(e);
    }
    EXPECT_LT(err, 1e-9);
    return std::pair{overshoot, monotone};
  };
  // pi / 1.5 = 2.09 <= 2.5 s^-1: no overshoot, monotone.
  const auto ok = run(1.5);
  EXPECT_EQ(ok.first, 0);
  EXPECT_TRUE(ok.second);
  // pi / 0.3 = 10.5 s^-1: overshoots (measured 0.118 rad).
  const auto bad = run(0.3);
  EXPECT_GT(bad.first, 0.05);
  EXPECT_FALSE(bad.second);
  // The defaults satisfy the rule.
  const fb::AlignParams def;
  EXPECT_LE(def.max_rotation / def.slow_radius, 1 / (4 * def.time_to_target));
}

TEST(DynamicAlign, T45_ConvergesWithinTargetRadius) {
  for (bool brake : {false, true}) {
    fb::AlignParams p;
    p.brake_inside_target = brake;
    fb::Kinematic k;
    k.orientation = -2.5;
    real tail = 0;
    for (int i = 0; i < 600; ++i) {
      fb::integrate_steering(k, fb::align(k, 2.0, p), 1, kDt);
      if (i > 300) tail = fm::max(tail, std::abs(fm::wrap_angle(k.orientation - 2.0)));
    }
    if (brake) {
      EXPECT_LT(tail, p.target_radius);
    } else {
      // Seed behaviour coasts inside the band and hovers at its edge (measured 0.021 for 0.02).
      EXPECT_LT(tail, 1.25 * p.target_radius);
      EXPECT_GT(tail, 0.5 * p.target_radius);
    }
  }
}

TEST(DynamicAlign, T45_FacingAwayEndsAtTargetPlusPi) {
  fb::AlignParams p;
  p.brake_inside_target = true;
  fb::Kinematic k;
  k.orientation = 0.2;
  const real target = 0.5;
  for (int i = 0; i < 600; ++i) fb::integrate_steering(k, fb::align_opposite(k, target, p), 1, kDt);
  EXPECT_LT(std::abs(fm::wrap_angle(k.orientation - (target + fm::kPi))), p.target_radius);
}

// ---------------------------------------------------------------------------------------------
// T46 velocity matching

TEST(VelocityMatching, T46_ErrorShrinksByOneMinusDtOverTauPerFrame) {
  const fb::VelocityMatchParams p{1000, 0.1};
  fb::Kinematic k;
  k.velocity = {1, -2};
  const Vec2 target{3, 0.5};
  real err = fm::distance(k.velocity, target);
  for (int i = 0; i < 60; ++i) {
    fb::integrate_steering(k, fb::velocity_match(k, target, p), 100, kDt);
    const real e2 = fm::distance(k.velocity, target);
    EXPECT_NEAR(e2 / err, 1 - kDt / 0.1, 1e-9);
    err = e2;
  }
}

TEST(VelocityMatching, T46_SteadyStateMatchesAndOutputIsClipped) {
  const fb::VelocityMatchParams p{4, 0.1};
  fb::Kinematic k;
  const Vec2 target{-6, 2};
  for (int i = 0; i < 600; ++i) {
    const auto s = fb::velocity_match(k, target, p);
    EXPECT_LE(fm::length(s.linear), 4 + 1e-12);
    EXPECT_EQ(s.angular, 0);
    fb::integrate_steering(k, s, 100, kDt);
  }
  EXPECT_LT(fm::distance(k.velocity, target), 1e-9);
  EXPECT_EQ(fb::VelocityMatchParams{}.time_to_target, 0.1);
}

TEST(VelocityMatching, T46_MatchedVelocityIsNoSteering) {
  fb::Kinematic k;
  k.velocity = {2, 2};
  EXPECT_TRUE(fb::velocity_match(k, {2, 2}, {}).none());
}

// ---------------------------------------------------------------------------------------------
// T47 pursue

TEST(DynamicPursue, T47_PredictionIsWithinZeroAndMaxPrediction) {
  auto rng = fm::Rng::seeded(470);
  const fb::PredictionParams p{1.5};
  for (int i = 0; i < 1000; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const real t = fb::prediction_time(c, random_point(rng), p);
    EXPECT_GE(t, 0);
    EXPECT_LE(t, 1.5);
  }
  fb::Kinematic c;
  // Slow or far: the full look-ahead; speed 0 must not divide by zero.
  EXPECT_EQ(fb::prediction_time(c, {10, 0}, p), 1.5);
  EXPECT_EQ(fb::prediction_time(c, {0, 0}, p), 1.5);
  // Fast and close: d / speed.
  c.velocity = {0, 8};
  EXPECT_DOUBLE_EQ(fb::prediction_time(c, {4, 0}, p), 0.5);
  EXPECT_EQ(fb::prediction_time(c, {0, 0}, p), 0);
  EXPECT_EQ(fb::prediction_time(c, {4, 0}, fb::PredictionParams{0}), 0);  // max_prediction 0
}

TEST(DynamicPursue, T47_PredictionSpeedSourceIsConfigurable) {
  // Erratum J.7: the seed's prose uses maximum speed, the usual code current speed.
  fb::Kinematic c;
  c.velocity = {1, 0};  // slow now, but capable of 8 m/s
  fb::PredictionParams p{2.0, fb::PredictionSpeed::current, 8.0};
  EXPECT_EQ(fb::prediction_time(c, {4, 0}, p), 2.0);  // 1 <= 4 / 2
  p.speed_source = fb::PredictionSpeed::max;
  EXPECT_DOUBLE_EQ(fb::prediction_time(c, {4, 0}, p), 0.5);  // 4 / 8
  // The difference reaches the surrogate target.
  fb::DynamicPursueParams pp;
  pp.prediction = p;
  const fb::Mover t{{4, 0}, {0, 2}};
  EXPECT_DOUBLE_EQ(fb::dynamic_pursue_delegated(c, t, pp).surrogate.y, 1.0);
  pp.prediction.speed_source = fb::PredictionSpeed::current;
  EXPECT_DOUBLE_EQ(fb::dynamic_pursue_delegated(c, t, pp).surrogate.y, 4.0);
}

TEST(DynamicPursue, T47_SurrogateLeadsACrossingTarget) {
  fb::Kinematic c;
  const fb::Mover t{{20, 0}, {0, 3}};  // crossing at right angles
  const auto d = fb::dynamic_pursue_delegated(c, t, {});
  const Vec2 lead = d.surrogate - t.position;
  EXPECT_GT(fm::dot(lead, t.velocity), 0);
  EXPECT_NEAR(fm::cross(lead, t.velocity), 0, 1e-12);
  EXPECT_GT(d.steering.linear.y, 0);  // heads up-field, not at where the target is now
}

TEST(DynamicPursue, T47_CapturesConstantVelocityTargetSoonerThanSeek) {
  auto capture_frame = [](real max_prediction) {
    fb::Kinematic k;
    fb::Mover t{{20, 0}, {0, 3}};
    fb::DynamicPursueParams p;
    p.prediction.max_prediction = max_prediction;  // 0 = plain seek of the current position
    p.seek.max_acceleration = 10;
    for (int i = 0; i < 60 * 30; ++i) {
      if (fm::distance(k.position, t.position) < 0.5) return i;
      fb::integrate_steering(k, fb::dynamic_pursue(k, t, p), 6, kDt);
      t.position += t.velocity * kDt;
    }
    return -1;
  };
  const int pursue = capture_frame(2.0);
  const int seek = capture_frame(0.0);
  ASSERT_GT(pursue, 0);
  ASSERT_GT(seek, 0);
  EXPECT_LT(pursue, seek);  // measured 258 vs 315 frames
}

TEST(DynamicPursue, T47_WithArriveSettlesBehindSlowerTargetWhileWithSeekOscillates) {
  struct Result {
    real tail_rel_speed_max;
    int direction_changes;
  };
  auto run = [](fb::PursueBase base) {
    fb::Kinematic k;
    k.position = {-10, 3};
    fb::Mover t{{0, 0}, {2, 0.5}};
    fb::DynamicPursueParams p;
    p.base = base;
    p.prediction.max_prediction = 1;
    p.seek.max_acceleration = 10;
    p.arrive = fb::ArriveParams{10, 5, 0.1, 2.5, 0.1};
    Result r{0, 0};
    real prev = 1e9;
    int prev_sign = 0;
    for (int i = 0; i < 60 * 20; ++i) {
      fb::integrate_steering(k, fb::dynamic_pursue(k, t, p), 5, kDt);
      t.position += t.velocity * kDt;
      const real d = fm::distance(k.position, t.position);
      const int s = d > prev + 1e-9 ? 1 : (d < prev - 1e-9 ? -1 : 0);
      if (s != 0 && prev_sign != 0 && s != prev_sign) ++r.direction_changes;
      if (s != 0) prev_sign = s;
      prev = d;
      if (i >= 60 * 10) r.tail_rel_speed_max = fm::max(r.tail_rel_speed_max, fm::length(k.velocity - t.velocity));
    }
    return r;
  };
  const Result arrive = run(fb::PursueBase::arrive);
  const Result seek = run(fb::PursueBase::seek);
  EXPECT_LT(arrive.tail_rel_speed_max, 1e-3);
  EXPECT_LE(arrive.direction_changes, 2);
  EXPECT_GT(seek.tail_rel_speed_max, 1.0);
  EXPECT_GT(seek.direction_changes, 10);
}

TEST(DynamicPursue, T47_OnThePredictedPointIsNoSteering) {
  fb::Kinematic c;
  c.position = {1, 1};
  EXPECT_TRUE(fb::dynamic_pursue(c, {{1, 1}, {0, 0}}, {}).none());
  fb::DynamicPursueParams p;
  p.base = fb::PursueBase::arrive;
  EXPECT_TRUE(fb::dynamic_pursue(c, {{1.01, 1}, {0, 0}}, p).none());  // inside arrive's radius
}

// ---------------------------------------------------------------------------------------------
// T48 evade

TEST(DynamicEvade, T48_AccelerationPointsAwayFromPredictedPosition) {
  auto rng = fm::Rng::seeded(480);
  const fb::DynamicEvadeParams p;
  for (int i = 0; i < 300; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const fb::Mover pursuer{random_point(rng), {rng.uniform(-5, 5), rng.uniform(-5, 5)}};
    const auto d = fb::dynamic_evade_delegated(c, pursuer, p);
    const Vec2 predicted = pursuer.position + pursuer.velocity * fb::prediction_time(c, pursuer.position, p.prediction);
    EXPECT_NEAR(fm::distance(d.surrogate, predicted), 0, 1e-12);
    EXPECT_LT(fm::dot(d.steering.linear, predicted - c.position), 0);
    EXPECT_NEAR(fm::length(d.steering.linear), p.flee.max_acceleration, 1e-12);
  }
}

TEST(DynamicEvade, T48_KeepsLargerMinimumDistanceThanFleeAgainstPursuer) {
  // A faster pursuer running T47 comes in across the evader's line (the case prediction is for).
  auto min_distance = [](bool evade, Vec2 pursuer_pos, Vec2 pursuer_vel) {
    fb::Kinematic e;
    fb::Kinematic pk;
    pk.position = pursuer_pos;
    pk.velocity = pursuer_vel;
    fb::DynamicPursueParams pp;
    pp.prediction.max_prediction = 1;
    pp.seek.max_acceleration = 10;
    fb::DynamicEvadeParams ep;
    ep.prediction.max_prediction = evade ? 1.0 : 0.0;  // 0 = plain flee from the current position
    ep.flee.max_acceleration = 10;
    real min_d = 1e9;
    for (int i = 0; i < 60 * 8; ++i) {
      min_d = fm::min(min_d, fm::distance(e.position, pk.position));
      const auto se = fb::dynamic_evade(e, {pk.position, pk.velocity}, ep);
      const auto sp = fb::dynamic_pursue(pk, {e.position, e.velocity}, pp);
      fb::integrate_steering(e, se, 4, kDt);  // compute-then-commit: both used the old states
      fb::integrate_steering(pk, sp, 6, kDt);
    }
    return min_d;
  };
  // Measured: 3.17 vs 0.90 and 1.50 vs 0.26.
  EXPECT_GT(min_distance(true, {-5, -5}, {0, 6}), 2 * min_distance(false, {-5, -5}, {0, 6}));
  EXPECT_GT(min_distance(true, {0, 10}, {3, -3}), 2 * min_distance(false, {0, 10}, {3, -3}));
}

TEST(DynamicEvade, T48_FasterCollinearPursuerPredictionLandsBeyondTheEvader) {
  // Documented weakness (measured, not in the seed): with current-speed prediction, a faster
  // pursuer closing head-on is predicted PAST a slower evader, so evade accelerates back toward
  // it. Prediction helps against crossing pursuers, not against a straight chase.
  fb::Kinematic e;
  e.velocity = {2, 0};
  const fb::Mover pursuer{{-4, 0}, {6, 0}};
  const auto d = fb::dynamic_evade_delegated(e, pursuer, {});
  EXPECT_GT(d.surrogate.x, e.position.x);  // 4 m / 2 m/s = 1 s (cap) -> predicted at x = 2
  EXPECT_LT(d.steering.linear.x, 0);       // flees backwards, toward the real pursuer
  EXPECT_GT(fb::dynamic_flee(e, pursuer.position, {}).linear.x, 0);
}

TEST(DynamicEvade, T48_OnThePredictedPointIsNoSteering) {
  fb::Kinematic c;
  c.position = {2, 0};
  // Pursuer at the origin moving +x at 2 m/s; evader at rest: prediction = 1 s -> (2, 0).
  EXPECT_TRUE(fb::dynamic_evade(c, {{0, 0}, {2, 0}}, {}).none());
}

// ---------------------------------------------------------------------------------------------
// T49 face

TEST(DynamicFace, T49_ConvergesToPointAtTheTarget) {
  for (bool brake : {false, true}) {
    fb::AlignParams p;
    p.brake_inside_target = brake;
    fb::Kinematic k;
    k.position = {1, 1};
    k.orientation = 2.8;
    const Vec2 target{-3, -4};
    for (int i = 0; i < 600; ++i) {
      const auto s = fb::face(k, target, p);
      EXPECT_TRUE(fm::is_zero(s.linear));
      fb::integrate_steering(k, s, 1, kDt);
    }
    const real err = std::abs(fm::wrap_angle(k.orientation - fm::orientation_of(target - k.position)));
    EXPECT_LT(err, (brake ? 1.0 : 1.25) * p.target_radius);
    EXPECT_GT(fm::dot(fm::as_vector(k.orientation), target - k.position), 0);
  }
}

TEST(DynamicFace, T49_CoincidentTargetIsNoSteering) {
  fb::Kinematic k;
  k.position = {2, -1};
  k.rotation = 1;
  const auto d = fb::face_delegated(k, {2, -1}, {});
  EXPECT_FALSE(d.delegated);
  EXPECT_TRUE(d.steering.none());
}

// ---------------------------------------------------------------------------------------------
// T50 look where you're going

TEST(LookWhereYouAreGoing, T50_OrientationConvergesToDirectionOfMotion) {
  fb::AlignParams p;
  p.brake_inside_target = true;
  fb::Kinematic k;
  k.orientation = 0.5;
  k.velocity = {-3, -1};  // constant: the behaviour has no linear output
  for (int i = 0; i < 600; ++i) {
    const auto s = fb::look_where_you_are_going(k, p);
    EXPECT_TRUE(fm::is_zero(s.linear));
    fb::integrate_steering(k, s, 10, kDt);
  }
  EXPECT_EQ(k.velocity, (Vec2{-3, -1}));
  EXPECT_LT(std::abs(fm::wrap_angle(k.orientation - fm::orientation_of(k.velocity))), p.target_radius);
}

TEST(LookWhereYouAreGoing, T50_ZeroVelocityIsNoSteering) {
  fb::Kinematic k;
  k.orientation = 1;
  k.rotation = 2;
  const auto d = fb::look_where_you_are_going_delegated(k, {});
  EXPECT_FALSE(d.delegated);
  EXPECT_EQ(d.steering.angular, 0);
  EXPECT_TRUE(d.steering.none());
}

// ---------------------------------------------------------------------------------------------
// T51 dynamic wander

TEST(DynamicWander, T51_TargetLiesExactlyOnTheCircleAheadOfTheCharacter) {
  auto rng = fm::Rng::seeded(510);
  const fb::DynamicWanderParams p{2.5, 1.2, 0.4, 5, {}};
  fb::DynamicWanderState st;
  for (int i = 0; i < 500; ++i) {
    const fb::Kinematic c = random_kinematic(rng);
    const auto out = fb::dynamic_wander(c, st, p, rng);
    EXPECT_NEAR(fm::distance(out.target, out.circle_centre), 1.2, 1e-12);
    EXPECT_NEAR(fm::distance(out.circle_centre, c.position), 2.5, 1e-12);
    EXPECT_NEAR(fm::dot(out.circle_centre - c.position, fm::as_vector(c.orientation)), 2.5, 1e-12);
    // Target angle on the circle = wander orientation + facing.
    EXPECT_NEAR(
        fm::wrap_angle(fm::orientation_of(out.target - out.circle_centre) - (st.wander_orientation + c.orientation)), 0,
        1e-9);
  }
}

TEST(DynamicWander, T51_WanderOrientationChangesByLessThanWanderRatePerCall) {
  auto rng = fm::Rng::seeded(511);
  const fb::DynamicWanderParams p;
  fb::DynamicWanderState st;
  fb::Kinematic k;
  real sum = 0;
  for (int i = 0; i < 5000; ++i) {
    const real before = st.wander_orientation;
    (void)fb::dynamic_wander(k, st, p, rng);
    const real delta = fm::wrap_angle(st.wander_orientation - before);
    ASSERT_LT(std::abs(delta), p.wander_rate);
    ASSERT_LE(std::abs(st.wander_orientation), fm::kPi);  // kept wrapped
    sum += delta;
  }
  EXPECT_NEAR(sum / 5000, 0, 0.01);
}

TEST(DynamicWander, T51_FullAccelerationAlongFacingAndBoundedAngular) {
  auto rng = fm::Rng::seeded(512);
  const fb::DynamicWanderParams p;
  fb::DynamicWanderState st;
  fb::Kinematic k;
  for (int i = 0; i < 3000; ++i) {
    const auto out = fb::dynamic_wander(k, st, p, rng);
    EXPECT_NEAR(fm::length(out.steering.linear), p.max_acceleration, 1e-12);
    EXPECT_NEAR(fm::cross(out.steering.linear, fm::as_vector(k.orientation)), 0, 1e-12);
    EXPECT_GT(fm::dot(out.steering.linear, fm::as_vector(k.orientation)), 0);
    EXPECT_LE(std::abs(out.steering.angular), p.align.max_angular_acceleration);
    fb::integrate_steering(k, out.steering, 5, kDt);
  }
  EXPECT_NEAR(fm::length(k.velocity), 5, 1e-9);
}

TEST(DynamicWander, T51_FacingChangesMoreSmoothlyThanKinematicWander) {
  // Same maximum turn rate (pi rad/s) for both; one minute at 60 Hz with the same seed.
  auto stats = [](auto step) {
    real sum_abs = 0, sum_jerk = 0, prev = 0;
    for (int i = 0; i < 60 * 60; ++i) {
      const real d = step();
      sum_abs += std::abs(d);
      sum_jerk += std::abs(d - prev);  // change of the per-frame turn: the "twitch"
      prev = d;
    }
    return std::pair{sum_abs / 3600, sum_jerk / 3600};
  };
  auto rng_d = fm::Rng::seeded(513);
  fb::DynamicWanderParams p;
  p.align.max_rotation = fm::kPi;
  fb::DynamicWanderState st;
  fb::Kinematic k;
  const auto dyn = stats([&] {
    const real before = k.orientation;
    fb::integrate_steering(k, fb::dynamic_wander(k, st, p, rng_d).steering, 5, kDt);
    return fm::wrap_angle(k.orientation - before);
  });
  auto rng_k = fm::Rng::seeded(513);
  fb::Static s;
  const auto kin = stats([&] {
    const real before = s.orientation;
    fb::kinematic_integrate(s, fb::kinematic_wander(s, {5, fm::kPi}, rng_k), kDt, false);
    return fm::wrap_angle(s.orientation - before);
  });
  // Measured: mean |dtheta| 0.0069 vs 0.0176 rad/frame; mean |d2theta| 0.00027 vs 0.024.
  EXPECT_LT(dyn.first, kin.first);
  EXPECT_LT(dyn.second * 20, kin.second);
}

TEST(DynamicWander, T51_ReproducibleWithSeed) {
  auto a = fm::Rng::seeded(9);
  auto b = fm::Rng::seeded(9);
  fb::DynamicWanderState sa, sb;
  fb::Kinematic k;
  k.orientation = 1;
  for (int i = 0; i < 100; ++i) {
    const auto oa = fb::dynamic_wander(k, sa, {}, a);
    const auto ob = fb::dynamic_wander(k, sb, {}, b);
    EXPECT_EQ(oa.steering, ob.steering);
    EXPECT_EQ(oa.target, ob.target);
  }
}
