// Tests for T37-T40 kinematic seek, flee, arrive and wander (catalog Part E).
#include "flockstep/behavior/kinematic.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::real;
using fb::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;

}  // namespace

// ---------------------------------------------------------------------------------------------
// T37 kinematic seek

TEST(KinematicSeek, T37_OutputSpeedIsExactlyMaxSpeedTowardTarget) {
  const fb::KinematicSeekParams p{3.5};
  const Vec2 targets[] = {{10, 0}, {-3, 4}, {0.001, -0.002}, {1e4, 1e4}};
  for (const Vec2 t : targets) {
    const fb::Static c{{0.5, -0.25}, 1.0};
    const auto out = fb::kinematic_seek(c, t, p);
    EXPECT_NEAR(fm::length(out.velocity), 3.5, 1e-12);
    const Vec2 to_target = t - c.position;
    EXPECT_GT(fm::dot(out.velocity, to_target), 0);
    EXPECT_NEAR(fm::cross(fm::normalized(out.velocity), fm::normalized(to_target)), 0, 1e-12);
    EXPECT_EQ(out.rotation, 0);
  }
}

TEST(KinematicSeek, T37_OnTargetGivesZeroVelocityNotNaN) {
  const fb::Static c{{2, 3}, 0.7};
  const auto out = fb::kinematic_seek(c, {2, 3}, {5});
  EXPECT_EQ(out.velocity, (Vec2{0, 0}));
  EXPECT_EQ(out.rotation, 0);
}

TEST(KinematicSeek, T37_StaticTargetGivesCharacteristicWiggleWithinMaxSpeedDt) {
  const fb::KinematicSeekParams p{5};
  const Vec2 target{1.0, 0.3};
  const real step = p.max_speed * kDt;
  fb::Static c{{0, 0}, 0};
  int first_close = -1;
  Vec2 prev_v{};
  int flips = 0;
  for (int i = 0; i < 200; ++i) {
    const auto out = fb::kinematic_seek(c, target, p);
    // Never settles: full speed every frame (the target is never hit exactly here).
    EXPECT_NEAR(fm::length(out.velocity), p.max_speed, 1e-12);
    if (first_close >= 0) {
      EXPECT_LE(fm::distance(c.position, target), step + 1e-12) << "frame " << i;
      if (fm::dot(out.velocity, prev_v) < 0) ++flips;
    } else if (fm::distance(c.position, target) <= step) {
      first_close = i;
    }
    prev_v = out.velocity;
    fb::kinematic_integrate(c, out, kDt, true);
    // Facing follows the velocity (newOrientation).
    EXPECT_NEAR(fm::wrap_angle(c.orientation - fm::orientation_of(out.velocity)), 0, 1e-12);
  }
  ASSERT_GE(first_close, 0);
  // Once there it reverses every single frame: it overshoots and comes back forever.
  EXPECT_EQ(flips, 199 - first_close);
}

// ---------------------------------------------------------------------------------------------
// T38 kinematic flee

TEST(KinematicFlee, T38_DistanceGrowsByExactlyMaxSpeedDtPerFrame) {
  const fb::KinematicSeekParams p{4};
  const Vec2 threat{1, -2};
  fb::Static c{{1.5, -1}, 0};
  real d = fm::distance(c.position, threat);
  for (int i = 0; i < 120; ++i) {
    const auto out = fb::kinematic_flee(c, threat, p);
    EXPECT_NEAR(fm::length(out.velocity), 4, 1e-12);
    fb::kinematic_integrate(c, out, kDt, true);
    const real d2 = fm::distance(c.position, threat);
    EXPECT_NEAR(d2 - d, p.max_speed * kDt, 1e-12);
    d = d2;
  }
  // Faces away from the threat.
  EXPECT_NEAR(fm::wrap_angle(c.orientation - fm::orientation_of(c.position - threat)), 0, 1e-9);
}

TEST(KinematicFlee, T38_CoincidentThreatGivesNoSteering) {
  const fb::Static c{{7, 7}, 1};
  const auto out = fb::kinematic_flee(c, {7, 7}, {5});
  EXPECT_EQ(out, fb::KinematicSteeringOutput{});
}

// ---------------------------------------------------------------------------------------------
// T39 kinematic arrive

TEST(KinematicArrive, T39_DefaultTimeToTargetIsQuarterSecond) {
  EXPECT_EQ(fb::KinematicArriveParams{}.time_to_target, 0.25);
}

TEST(KinematicArrive, T39_SeedSpeedTableAndMaxSpeedClip) {
  // Seed example: 1 unit away wants 4 units/s; 0.25 units away wants 1 unit/s.
  fb::KinematicArriveParams p{100, 0.01, 0.25};
  const fb::Static c{{0, 0}, 0};
  EXPECT_NEAR(fm::length(fb::kinematic_arrive(c, {1, 0}, p).velocity), 4.0, 1e-12);
  EXPECT_NEAR(fm::length(fb::kinematic_arrive(c, {0, 0.25}, p).velocity), 1.0, 1e-12);
  // In general speed = min(max_speed, distance / time_to_target).
  p.max_speed = 5;
  for (real d : {0.05, 0.5, 1.0, 1.25, 1.3, 3.0, 50.0}) {
    const auto out = fb::kinematic_arrive(c, Vec2{0.6, -0.8} * d, p);
    EXPECT_NEAR(fm::length(out.velocity), fm::min(5.0, d / 0.25), 1e-12) << d;
    EXPECT_GT(fm::dot(out.velocity, Vec2{0.6, -0.8}), 0);
    EXPECT_EQ(out.rotation, 0);
  }
}

TEST(KinematicArrive, T39_InsideRadiusIsNoSteering) {
  const fb::KinematicArriveParams p{5, 0.5, 0.25};
  const fb::Static c{{0, 0}, 0};
  EXPECT_EQ(fb::kinematic_arrive(c, {0.3, 0.3}, p), fb::KinematicSteeringOutput{});
  EXPECT_EQ(fb::kinematic_arrive(c, {0, 0}, p), fb::KinematicSteeringOutput{});
  EXPECT_NE(fb::kinematic_arrive(c, {0.5, 0.0}, p), fb::KinematicSteeringOutput{});  // radius is strict
  // Radius 0 on the target: still zero, no NaN.
  EXPECT_EQ(fb::kinematic_arrive(c, {0, 0}, fb::KinematicArriveParams{5, 0, 0.25}), fb::KinematicSteeringOutput{});
}

TEST(KinematicArrive, T39_NeverOvershootsWhenDtBelowTimeToTarget) {
  for (real dt : {1.0 / 60.0, 0.1, 0.2, 0.24}) {
    const fb::KinematicArriveParams p{5, 0, 0.25};  // radius 0: keeps approaching forever
    const Vec2 target{3, 4};
    fb::Static c{{-6, -8}, 0};
    const Vec2 dir0 = fm::normalized(target - c.position);
    real d = fm::distance(c.position, target);
    for (int i = 0; i < 400; ++i) {
      fb::kinematic_integrate(c, fb::kinematic_arrive(c, target, p), dt, true);
      EXPECT_GE(fm::dot(target - c.position, dir0), 0) << "dt " << dt << " frame " << i;
      const real d2 = fm::distance(c.position, target);
      EXPECT_LE(d2, d);
      d = d2;
    }
    EXPECT_LT(d, 1e-6);
  }
}

TEST(KinematicArrive, T39_EndsInsideRadiusWithZeroVelocity) {
  const fb::KinematicArriveParams p{5, 0.1, 0.25};
  const Vec2 target{-2, 7};
  fb::Static c{{4, -1}, 0};
  fb::KinematicSteeringOutput out;
  for (int i = 0; i < 600; ++i) {
    out = fb::kinematic_arrive(c, target, p);
    fb::kinematic_integrate(c, out, kDt, true);
  }
  EXPECT_LT(fm::distance(c.position, target), p.radius);
  EXPECT_EQ(out.velocity, (Vec2{0, 0}));
  // Stationary: newOrientation kept the last facing, which points at the target.
  const real facing_err = fm::wrap_angle(c.orientation - fm::orientation_of(target - Vec2{4, -1}));
  EXPECT_NEAR(facing_err, 0, 1e-9);
}

TEST(KinematicArrive, T39_FrameCountMatchesExponentialDecay) {
  // Below max speed each frame multiplies the distance by q = 1 - dt / tau, so the number of
  // frames to get inside radius r from d0 is the smallest n with d0 q^n < r.
  const real tau = 0.25;
  const real q = 1 - kDt / tau;
  {
    const fb::KinematicArriveParams p{5, 0.01, tau};  // d0 / tau = 4 < 5: never saturated
    fb::Static c{{0, 0}, 0};
    const Vec2 target{1, 0};
    int n = 0;
    while (fb::kinematic_arrive(c, target, p).velocity != Vec2{} && n < 10000) {
      fb::kinematic_integrate(c, fb::kinematic_arrive(c, target, p), kDt, true);
      ++n;
    }
    const real predicted = std::ceil(std::log(0.01 / 1.0) / std::log(q));
    EXPECT_NEAR(n, predicted, 1.0);
    EXPECT_EQ(n, 67);  // 1 * (14/15)^67 = 0.00983 < 0.01 <= (14/15)^66
  }
  {
    // Saturated first: full speed until d <= max_speed * tau, then the exponential tail.
    const fb::KinematicArriveParams p{2, 0.01, tau};
    fb::Static c{{0, 0}, 0};
    const Vec2 target{10, 0};
    int n = 0;
    while (fb::kinematic_arrive(c, target, p).velocity != Vec2{} && n < 10000) {
      fb::kinematic_integrate(c, fb::kinematic_arrive(c, target, p), kDt, true);
      ++n;
    }
    const real sat_frames = std::ceil((10.0 - 2 * tau) / (2 * kDt));
    const real d_after = 10.0 - sat_frames * 2 * kDt;
    const real predicted = sat_frames + std::ceil(std::log(0.01 / d_after) / std::log(q));
    EXPECT_NEAR(n, predicted, 1.0);
  }
}

// ---------------------------------------------------------------------------------------------
// T40 kinematic wander

TEST(KinematicWander, T40_SpeedAlwaysMaxAndVelocityAlongFacing) {
  const fb::KinematicWanderParams p{2.5, 3.0};
  auto rng = fm::Rng::seeded(40);
  fb::Static c{{0, 0}, 2.9};
  for (int i = 0; i < 2000; ++i) {
    const auto out = fb::kinematic_wander(c, p, rng);
    EXPECT_NEAR(fm::length(out.velocity), 2.5, 1e-12);
    EXPECT_NEAR(fm::wrap_angle(fm::orientation_of(out.velocity) - c.orientation), 0, 1e-12);
    const real before = c.orientation;
    fb::kinematic_integrate(c, out, kDt, false);
    // Rotation accumulates (facing is not reset from the velocity for wander).
    EXPECT_NEAR(fm::wrap_angle(c.orientation - before), out.rotation * kDt, 1e-12);
  }
}

TEST(KinematicWander, T40_RotationStrictlyInsideMaxRotationWithZeroMean) {
  const fb::KinematicWanderParams p{1, 2.0};
  auto rng = fm::Rng::seeded(4040);
  const fb::Static c{{0, 0}, 0};
  const int n = 200000;
  real sum = 0;
  real sum_abs = 0;
  for (int i = 0; i < n; ++i) {
    const real r = fb::kinematic_wander(c, p, rng).rotation;
    ASSERT_LT(std::abs(r), p.max_rotation);
    sum += r;
    sum_abs += std::abs(r);
  }
  EXPECT_NEAR(sum / n, 0, 0.01);
  // Triangular density on (-1, 1): E|x| = 1/3, so small changes dominate.
  EXPECT_NEAR(sum_abs / n, p.max_rotation / 3, 0.01);
}

TEST(KinematicWander, T40_ReproducibleWithSeed) {
  auto a = fm::Rng::seeded(7);
  auto b = fm::Rng::seeded(7);
  const fb::Static c{{1, 1}, -1};
  for (int i = 0; i < 50; ++i) EXPECT_EQ(fb::kinematic_wander(c, {}, a), fb::kinematic_wander(c, {}, b));
}
