// T01-T07 Millington motion models.
#include "flockstep/behavior/motion.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fm::real;
using fm::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;

// Angular distance modulo 2 pi, in [0, pi].
real angle_gap(real a, real b) { return std::fabs(std::remainder(a - b, 2.0 * fm::kPi)); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// T01

TEST(Motion, T01_MillingtonVectorIsUnitAndThetaZeroLooksDownPlusZ) {
  const Vec2 v0 = fb::millington_as_vector(0);
  EXPECT_EQ(v0.x, 0.0);  // -sin(0) is -0.0, which compares equal to 0
  EXPECT_EQ(v0.y, 1.0);
  // Positive (counter-clockwise from above, right-handed) turns toward -x.
  const Vec2 v90 = fb::millington_as_vector(fm::kHalfPi);
  EXPECT_NEAR(v90.x, -1.0, 1e-15);
  EXPECT_NEAR(v90.y, 0.0, 1e-15);
  for (int i = -50; i <= 50; ++i) {
    const real theta = 0.137 * i;
    EXPECT_NEAR(fm::length(fb::millington_as_vector(theta)), 1.0, 1e-15) << theta;
  }
}

TEST(Motion, T01_MillingtonRoundTripBothDirections) {
  for (int i = -100; i <= 100; ++i) {
    const real theta = 0.0731 * i;  // spans about +-7.3 rad, past +-2 pi
    const real back = fb::millington_orientation_of(fb::millington_as_vector(theta));
    EXPECT_LE(angle_gap(back, theta), 1e-14) << theta;
    EXPECT_LE(std::fabs(back), fm::kPi);
  }
  const Vec2 samples[] = {{3, 4}, {-2, 0.5}, {0, -7}, {-1e-9, 1e-9}, {5, 0}, {-5, 0}};
  for (const Vec2 v : samples) {
    const Vec2 u = fb::millington_as_vector(fb::millington_orientation_of(v));
    // Parallel AND same direction: cross = 0 and dot = |v|.
    EXPECT_NEAR(fm::cross(u, v), 0.0, 1e-12 * fm::length(v));
    EXPECT_NEAR(fm::dot(u, v), fm::length(v), 1e-12 * fm::length(v));
  }
  EXPECT_EQ(fb::millington_orientation_of({0, 0}), 0.0);
}

TEST(Motion, T01_NewOrientationKeepsFacingWhenStationary) {
  EXPECT_EQ(fm::new_orientation(1.234, {0, 0}), 1.234);
  EXPECT_EQ(fm::new_orientation(-3.0, {-0.0, 0.0}), -3.0);
  const Vec2 v{-3, -4};
  const real phi = fm::new_orientation(1.234, v);
  const Vec2 u = fm::as_vector(phi);
  EXPECT_NEAR(fm::cross(u, v), 0.0, 1e-14);
  EXPECT_GT(fm::dot(u, v), 0.0);
}

// ---------------------------------------------------------------------------------------------
// T02

TEST(Motion, T02_ErrorShrinksByOneMinusFEachFrameWithoutOvershoot) {
  const Vec2 v = fm::as_vector(2.0);
  for (const real f : {0.5, 0.25, 1.0}) {
    real theta = -1.5;
    real err = fm::wrap_angle(2.0 - theta);  // 3.5 rad would be the long way; wrap gives -2.78
    for (int frame = 0; frame < 30; ++frame) {
      theta = fb::smooth_facing(theta, v, {f});
      const real next = fm::wrap_angle(2.0 - theta);
      EXPECT_NEAR(next, (1.0 - f) * err, 1e-12) << "f=" << f << " frame " << frame;
      // Never overshoots: the error keeps its sign (or reaches zero).
      EXPECT_GE(next * err, -1e-15);
      err = next;
    }
  }
}

TEST(Motion, T02_SeedHalfwayExampleFirstFrames) {
  // Seed: f = 1/2 moves halfway each frame. Facing 0, moving along +y: 45 deg, then 67.5 deg.
  const fb::FacingSmoothingParams half{};
  EXPECT_EQ(half.fraction, 0.5);
  real theta = fb::smooth_facing(0.0, {0, 2}, half);
  EXPECT_NEAR(theta, fm::kPi / 4, 1e-15);
  theta = fb::smooth_facing(theta, {0, 2}, half);
  EXPECT_NEAR(theta, 3 * fm::kPi / 8, 1e-15);
}

TEST(Motion, T02_TurnsThrough0DegNot180From350To10) {
  real theta = 350 * fm::kDegToRad;
  const Vec2 v = fm::as_vector(10 * fm::kDegToRad);
  theta = fb::smooth_facing(theta, v, {0.5});
  // Halfway the short way is 0 deg (mod 360); the long way would be 180 deg.
  EXPECT_LE(angle_gap(theta, 0.0), 1e-12);
  theta = fb::smooth_facing(theta, v, {0.5});
  EXPECT_LE(angle_gap(theta, 5 * fm::kDegToRad), 1e-12);
}

TEST(Motion, T02_ZeroVelocityLeavesOrientationAndWrapBoundary) {
  EXPECT_EQ(fb::smooth_facing(2.5, {0, 0}, {0.5}), 2.5);
  EXPECT_EQ(fb::smooth_facing(7.0, {0, 0}, {0.5}), 7.0);  // untouched, not even wrapped
  // Across +-pi: from 170 deg toward -170 deg goes through 180, ending at 180 deg (= pi).
  const real theta = fb::smooth_facing(170 * fm::kDegToRad, fm::as_vector(-170 * fm::kDegToRad), {0.5});
  EXPECT_NEAR(theta, fm::kPi, 1e-12);
  EXPECT_LE(std::fabs(theta), fm::kPi);
  // f = 1 snaps exactly onto the motion direction.
  EXPECT_NEAR(fb::smooth_facing(0.3, {-1, 0}, {1.0}), fm::kPi, 1e-15);
}

// ---------------------------------------------------------------------------------------------
// T03

TEST(Motion, T03_ConstantOutputGivesDisplacementVTimesNTimesDt) {
  fb::Static s{{1, 2}, 0.25};
  const fb::KinematicSteeringOutput out{{3, -1.5}, 0.5};
  const real dt = 1.0 / 64.0;  // dyadic, so the sums are exact
  const int n = 64;
  for (int i = 0; i < n; ++i) fb::integrate_kinematic(s, out, dt);
  EXPECT_EQ(s.position.x, 1 + 3.0 * n * dt);
  EXPECT_EQ(s.position.y, 2 - 1.5 * n * dt);
  EXPECT_EQ(s.orientation, 0.25 + 0.5 * n * dt);
  // With dt = 1/60 the same holds to rounding.
  fb::Static s2{};
  for (int i = 0; i < 600; ++i) fb::integrate_kinematic(s2, {{2, 0}, 0}, kDt);
  EXPECT_NEAR(s2.position.x, 2.0 * 600 * kDt, 1e-12);
}

TEST(Motion, T03_VelocityChangesInstantlyAndOrientationWraps) {
  fb::Static s{{0, 0}, 3.0};
  fb::integrate_kinematic(s, {{5, 0}, 0}, 0.5);
  EXPECT_EQ(s.position, (Vec2{2.5, 0}));
  fb::integrate_kinematic(s, {{-5, 0}, 0}, 0.5);  // full reversal in one frame is allowed
  EXPECT_EQ(s.position, (Vec2{0, 0}));
  fb::integrate_kinematic(s, {{0, 0}, 1.0}, 0.5);  // 3.5 rad wraps to 3.5 - 2 pi
  EXPECT_NEAR(s.orientation, 3.5 - 2 * fm::kPi, 1e-15);
}

// ---------------------------------------------------------------------------------------------
// T04

TEST(Motion, T04_FromRestPositionIsHalfATSquaredExactlyForAnyDt) {
  const Vec2 a{3, -1.5};
  for (const real dt : {1.0, 0.5, 1.0 / 16.0, 1.0 / 64.0}) {
    fb::Kinematic k{};
    const int steps = static_cast<int>(2.0 / dt);
    for (int i = 0; i < steps; ++i) fb::integrate_exact(k, {a, 0.25}, dt);
    // t = 2 s: p = a t^2 / 2 = 2a, v = 2a, theta = alpha t^2 / 2 = 0.5, omega = 0.5. Bit-exact.
    EXPECT_EQ(k.position, a * 2.0) << dt;
    EXPECT_EQ(k.velocity, a * 2.0) << dt;
    EXPECT_EQ(k.orientation, 0.5) << dt;
    EXPECT_EQ(k.rotation, 0.5) << dt;
  }
  // Non-dyadic dt = 1/60: same answer to rounding.
  fb::Kinematic k{};
  for (int i = 0; i < 120; ++i) fb::integrate_exact(k, {a, 0}, kDt);
  EXPECT_NEAR(k.position.x, 6.0, 1e-12);
  EXPECT_NEAR(k.position.y, -3.0, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// T05

TEST(Motion, T05_SpeedNeverExceedsMaxSpeed) {
  fb::Kinematic k{};
  const fb::NewtonEulerParams p{.max_speed = 4.0};
  for (int i = 0; i < 600; ++i) {
    // A force that keeps changing direction, hard enough to saturate.
    const Vec2 a = fm::as_vector(0.05 * i) * 30.0;
    fb::integrate_newton_euler(k, {a, 0}, p, kDt);
    EXPECT_LE(fm::length(k.velocity), 4.0 + 1e-12) << i;
  }
  EXPECT_GT(fm::length(k.velocity), 3.9);  // it did saturate, the check was not vacuous
}

TEST(Motion, T05_ClipsOnlyWhenOverMaxSpeed) {
  fb::Kinematic k{};
  k.velocity = {3, 0};
  fb::integrate_newton_euler(k, {{0, 0}, 0}, {.max_speed = 3.0}, 0.1);
  EXPECT_EQ(k.velocity, (Vec2{3, 0}));  // exactly at the limit: untouched
  k.velocity = {6, 8};
  fb::integrate_newton_euler(k, {{0, 0}, 0}, {.max_speed = 5.0}, 0.1);
  EXPECT_NEAR(k.velocity.x, 3.0, 1e-15);
  EXPECT_NEAR(k.velocity.y, 4.0, 1e-15);
}

TEST(Motion, T05_ZeroAccelerationMovesExactlyVDtPerFrame) {
  fb::Kinematic k{};
  k.velocity = {1.25, -0.5};
  for (int i = 1; i <= 64; ++i) {
    const Vec2 before = k.position;
    fb::integrate_newton_euler(k, {}, {}, 1.0 / 32.0);
    EXPECT_EQ(k.position - before, (Vec2{1.25 / 32.0, -0.5 / 32.0}));
  }
}

TEST(Motion, T05_DiffersFromExactUpdateByHalfADtSquaredPerFrame) {
  fb::Kinematic exact{{1, 1}, 0.5, {2, -1}, 0.25};
  fb::Kinematic euler = exact;
  const fb::SteeringOutput s{{4, 2}, 1.0};
  const real dt = 1.0 / 8.0;
  fb::integrate_exact(exact, s, dt);
  fb::integrate_newton_euler(euler, s, {}, dt);
  EXPECT_EQ(exact.position - euler.position, s.linear * (0.5 * dt * dt));
  EXPECT_EQ(exact.orientation - euler.orientation, 0.5 * dt * dt);
  EXPECT_EQ(exact.velocity, euler.velocity);
  EXPECT_EQ(exact.rotation, euler.rotation);
  // Position uses the OLD velocity (documented order).
  fb::Kinematic k{};
  fb::integrate_newton_euler(k, {{10, 0}, 0}, {}, 0.5);
  EXPECT_EQ(k.position, (Vec2{0, 0}));
  EXPECT_EQ(k.velocity, (Vec2{5, 0}));
}

TEST(Motion, T05_LinearDragGivesTerminalSpeedForceOverK) {
  // Mass 2 kg, force 6 N, drag force -k v with k = 3 N s/m: terminal speed F/k = 2 m/s.
  const real mass = 2, force = 6, k_drag = 3;
  fb::Kinematic k{};
  const fb::NewtonEulerParams p{.linear_drag = k_drag / mass};
  const Vec2 dir = fm::normalized({1, 2});
  for (int i = 0; i < 60 * 20; ++i) fb::integrate_newton_euler(k, {dir * (force / mass), 0}, p, kDt);
  EXPECT_NEAR(fm::length(k.velocity), force / k_drag, 1e-9);
  EXPECT_NEAR(fm::cross(k.velocity, dir), 0.0, 1e-12);
  // Angular drag: alpha / c terminal rotation.
  fb::Kinematic r{};
  for (int i = 0; i < 60 * 20; ++i) fb::integrate_newton_euler(r, {{}, 3.0}, {.angular_drag = 1.5}, kDt);
  EXPECT_NEAR(r.rotation, 2.0, 1e-9);
}

TEST(Motion, T05_RotationIsNotWrappedButOrientationIs) {
  fb::Kinematic k{};
  k.rotation = 100.0;  // a fast wheel: rotation stays as is
  for (int i = 0; i < 60; ++i) fb::integrate_newton_euler(k, {}, {}, kDt);
  EXPECT_EQ(k.rotation, 100.0);
  EXPECT_LE(std::fabs(k.orientation), fm::kPi);
  EXPECT_LE(angle_gap(k.orientation, 100.0), 1e-10);
  // max_rotation clips |omega|.
  fb::integrate_newton_euler(k, {{}, 0}, {.max_rotation = 3.0}, kDt);
  EXPECT_EQ(k.rotation, 3.0);
  k.rotation = -50;
  fb::integrate_newton_euler(k, {{}, 0}, {.max_rotation = 3.0}, kDt);
  EXPECT_EQ(k.rotation, -3.0);
}

// ---------------------------------------------------------------------------------------------
// T06

TEST(Motion, T06_OneMetrePerSecondFor20msMoves20mm) {
  fb::Static s{};
  fb::integrate_kinematic(s, {{1, 0}, 0}, 0.020);
  EXPECT_DOUBLE_EQ(s.position.x, 0.020);
  fb::Kinematic k{};
  k.velocity = {0, 1};
  fb::integrate_newton_euler(k, {}, {}, 0.020);
  EXPECT_DOUBLE_EQ(k.position.y, 0.020);
}

TEST(Motion, T06_RandomDtSequenceGivesVTimesSumDt) {
  fm::Rng rng = fm::Rng::seeded(6);
  const Vec2 v{1.5, -0.75};
  fb::Static s{};
  fb::Kinematic k{};
  k.velocity = v;
  real sum_dt = 0;
  for (int i = 0; i < 500; ++i) {
    const real dt = rng.uniform(0.001, 0.05);
    sum_dt += dt;
    fb::integrate_kinematic(s, {v, 0}, dt);
    fb::integrate_newton_euler(k, {}, {}, dt);
    fb::integrate_exact(k, {}, 0);  // a zero-length step changes nothing
  }
  EXPECT_NEAR(s.position.x, v.x * sum_dt, 1e-12);
  EXPECT_NEAR(s.position.y, v.y * sum_dt, 1e-12);
  EXPECT_NEAR(k.position.x, v.x * sum_dt, 1e-12);
  EXPECT_NEAR(k.position.y, v.y * sum_dt, 1e-12);
}

TEST(Motion, T06_NewtonEulerErrorShrinksLinearlyWithDt) {
  // From rest with constant a for T = 1 s, Newton-Euler-1 gives a T^2/2 - a T dt/2: error ~ dt.
  const real a = 2.0;
  real prev_err = 0;
  for (const real dt : {1.0 / 10.0, 1.0 / 20.0, 1.0 / 40.0, 1.0 / 80.0}) {
    fb::Kinematic k{};
    const int n = static_cast<int>(std::lround(1.0 / dt));
    for (int i = 0; i < n; ++i) fb::integrate_newton_euler(k, {{a, 0}, 0}, {}, dt);
    const real err = 0.5 * a - k.position.x;
    EXPECT_NEAR(err, 0.5 * a * dt, 1e-12) << dt;
    if (prev_err > 0) {
      EXPECT_NEAR(prev_err / err, 2.0, 1e-9);
    }
    prev_err = err;
  }
}

// ---------------------------------------------------------------------------------------------
// T07

TEST(Motion, T07_IdealActuatorReproducesRequestedAcceleration) {
  const fb::InertiaParams ip{.mass = 2.5, .inertia = 0.75};
  const fb::SteeringOutput want{{1.2, -3.4}, 0.8};
  const fb::Actuation act = fb::actuate_ideal(want, ip);
  EXPECT_DOUBLE_EQ(act.force.x, 3.0);
  EXPECT_DOUBLE_EQ(act.force.y, -8.5);
  EXPECT_DOUBLE_EQ(act.torque, 0.6);
  const fb::SteeringOutput got = fb::acceleration_of(act, ip);
  EXPECT_DOUBLE_EQ(got.linear.x, want.linear.x);
  EXPECT_DOUBLE_EQ(got.linear.y, want.linear.y);
  EXPECT_DOUBLE_EQ(got.angular, want.angular);
}

TEST(Motion, T07_CarActuatorGivesNoLateralAcceleration) {
  const fb::CarActuatorParams cp{};
  const Vec2 heading = fm::as_vector(0.6);
  const Vec2 left = fm::perp_left(heading);
  // Purely sideways request: nothing feasible, zero force.
  const fb::Actuation side = fb::actuate_car({left * 5.0, 0}, heading, cp);
  const fb::SteeringOutput a_side = fb::acceleration_of(side, cp.inertia);
  EXPECT_NEAR(fm::length(a_side.linear), 0.0, 1e-15);
  // Mixed request: forward part kept, lateral part dropped.
  const fb::Actuation mixed = fb::actuate_car({heading * 3.0 + left * 4.0, 0.5}, heading, cp);
  const fb::SteeringOutput a_mixed = fb::acceleration_of(mixed, cp.inertia);
  EXPECT_NEAR(fm::dot(a_mixed.linear, left), 0.0, 1e-14);
  EXPECT_NEAR(fm::dot(a_mixed.linear, heading), 3.0, 1e-14);
  EXPECT_NEAR(a_mixed.angular, 0.5, 1e-15);
  // Engine and brake limits: forward clamped to max_drive, backward to max_brake, torque too.
  const fb::Actuation hard = fb::actuate_car({heading * 1000.0, 1000.0}, heading, cp);
  EXPECT_NEAR(fm::length(hard.force), cp.max_drive_force, 1e-12);
  EXPECT_EQ(hard.torque, cp.max_torque);
  const fb::Actuation brake = fb::actuate_car({heading * -1000.0, -1000.0}, heading, cp);
  EXPECT_NEAR(fm::dot(brake.force, heading), -cp.max_brake_force, 1e-12);
  EXPECT_EQ(brake.torque, -cp.max_torque);
  // Zero heading: no direction to push in, no NaN.
  const fb::Actuation none = fb::actuate_car({{1, 1}, 0}, {0, 0}, cp);
  EXPECT_EQ(none.force, (Vec2{0, 0}));
}

TEST(Motion, T07_CarDrivenByActuatorNeverSlidesSideways) {
  // Integrate a car whose steering requests are sideways-heavy: its velocity stays on its heading.
  const fb::CarActuatorParams cp{};
  fb::Kinematic k{};
  k.velocity = {1, 0};
  for (int i = 0; i < 120; ++i) {
    const Vec2 heading = fm::as_vector(k.orientation);
    const fb::SteeringOutput want{fm::perp_left(heading) * 4.0 + heading * 1.0, 0};
    const fb::SteeringOutput got = fb::acceleration_of(fb::actuate_car(want, heading, cp), cp.inertia);
    fb::integrate_newton_euler(k, got, {}, kDt);
    EXPECT_NEAR(fm::cross(heading, k.velocity), 0.0, 1e-12);
  }
}
