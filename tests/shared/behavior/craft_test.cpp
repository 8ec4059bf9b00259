// Tests for T10: Bourg's rigid-body craft with bow thrusters.
#include "flockstep/behavior/craft.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::CraftParams;
using fb::CraftState;
using fb::Thrusters;
using fm::real;
using fm::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;

void run(CraftState& s, const CraftParams& p, const Thrusters& t, int steps) {
  for (int i = 0; i < steps; ++i) fb::craft_step(s, p, t, kDt);
}

Thrusters none() { return Thrusters{false, false, 1, 1}; }
Thrusters port(real factor = 1) { return Thrusters{true, false, factor, 1}; }
Thrusters starboard(real factor = 1) { return Thrusters{false, true, factor, 1}; }

Vec2 circumcentre(Vec2 a, Vec2 b, Vec2 c) {
  const real d = 2 * (a.x * (b.y - c.y) + b.x * (c.y - a.y) + c.x * (a.y - b.y));
  const real a2 = fm::length_sq(a), b2 = fm::length_sq(b), c2 = fm::length_sq(c);
  return {(a2 * (b.y - c.y) + b2 * (c.y - a.y) + c2 * (a.y - b.y)) / d,
          (a2 * (c.x - b.x) + b2 * (a.x - c.x) + c2 * (b.x - a.x)) / d};
}

real wrapped_diff(real a, real b) { return std::remainder(a - b, 2 * fm::kPi); }

}  // namespace

TEST(Craft, T10_LateralForceSignsByMeaning) {
  const CraftParams p;
  EXPECT_LT(fb::lateral_force(port(), p), 0);       // port fires -> push to the right
  EXPECT_GT(fb::lateral_force(starboard(), p), 0);  // starboard fires -> push to the left
  EXPECT_EQ(fb::lateral_force(none(), p), 0);
  EXPECT_EQ(fb::lateral_force(Thrusters{true, true, 1, 1}, p), 0);  // both cancel
  EXPECT_DOUBLE_EQ(fb::lateral_force(starboard(0.5), p), 0.5 * p.max_steering_force);
  EXPECT_DOUBLE_EQ(fb::lateral_force(starboard(7), p), p.max_steering_force);  // factor clamped
}

TEST(Craft, T10_NoThrustersStraightLineConstantHeading) {
  const CraftParams p;
  CraftState s;
  s.position = {3, -2};
  s.orientation = 0.7;
  const Vec2 h = fb::craft_heading(s);
  run(s, p, none(), 600);
  EXPECT_EQ(s.orientation, 0.7);
  EXPECT_EQ(s.angular_velocity, 0);
  const Vec2 d = s.position - Vec2{3, -2};
  EXPECT_GT(fm::length(d), 10);
  EXPECT_NEAR(fm::cross(h, d), 0, 1e-9);  // on the heading line
  EXPECT_GT(fm::dot(h, d), 0);
}

TEST(Craft, T10_PortTurnsRightIntoSteadyCircle) {
  const CraftParams p;
  CraftState s;
  s.orientation = fm::kHalfPi;  // heading +y: right is +x
  s.velocity = {0, 5};
  run(s, p, port(), 30);
  EXPECT_LT(s.angular_velocity, 0);  // clockwise
  EXPECT_LT(s.orientation, fm::kHalfPi);
  EXPECT_GT(s.position.x, 0);  // drifted to the right
  // Let it settle, then check the circle: constant speed and yaw rate, fixed radius and centre.
  run(s, p, port(), 3600);  // time constant m/c_l = 2.5 s; 60 s settles to ~1e-9
  const real w1 = s.angular_velocity;
  const real sp1 = fm::length(s.velocity);
  // Once settled the Euler path is a regular polygon: any three vertices share one circumcircle.
  Vec2 pts[6];
  for (Vec2& q : pts) {
    q = s.position;
    run(s, p, port(), 37);
  }
  const Vec2 c1 = circumcentre(pts[0], pts[1], pts[2]);
  const Vec2 c2 = circumcentre(pts[3], pts[4], pts[5]);
  const real w2 = s.angular_velocity;
  const real sp2 = fm::length(s.velocity);
  EXPECT_LT(w1, 0);
  EXPECT_NEAR(w1, w2, 1e-9);
  EXPECT_NEAR(sp1, sp2, 1e-6);
  EXPECT_NEAR(fm::distance(c1, c2), 0, 1e-4);
  const real radius = fm::distance(c1, pts[0]);
  EXPECT_NEAR(fm::distance(c2, pts[4]), radius, 1e-4);
  EXPECT_GT(radius, 5);
  EXPECT_LT(radius, 30);
  // The centre is on the right of the velocity: clockwise circulation.
  EXPECT_LT(fm::cross(s.velocity, c2 - s.position), 0);
  // Steady yaw rate balances bow torque against angular drag.
  EXPECT_NEAR(w1, -0.5 * p.length * p.max_steering_force / p.angular_drag, 1e-9);
}

TEST(Craft, T10_StarboardMirrorsPort) {
  const CraftParams p;
  CraftState a;
  CraftState b;
  a.velocity = b.velocity = {2, 0};
  run(a, p, port(0.7), 400);
  run(b, p, starboard(0.7), 400);
  // Mirror about the x axis (the initial heading line).
  EXPECT_NEAR(a.position.x, b.position.x, 1e-9);
  EXPECT_NEAR(a.position.y, -b.position.y, 1e-9);
  EXPECT_NEAR(a.velocity.x, b.velocity.x, 1e-9);
  EXPECT_NEAR(a.velocity.y, -b.velocity.y, 1e-9);
  EXPECT_NEAR(a.orientation, -b.orientation, 1e-9);
  EXPECT_NEAR(a.angular_velocity, -b.angular_velocity, 1e-12);
  EXPECT_GT(b.angular_velocity, 0);
}

TEST(Craft, T10_YawRateGrowsWithFactor) {
  const CraftParams p;
  real previous = 0;
  for (const real f : {0.05, 0.25, 0.5, 1.0}) {
    CraftState s;
    run(s, p, starboard(f), 300);
    EXPECT_GT(s.angular_velocity, previous) << "factor " << f;
    previous = s.angular_velocity;
  }
}

TEST(Craft, T10_TerminalSpeedWithDrag) {
  const CraftParams p;
  CraftState s;
  run(s, p, none(), 1200);  // 20 s, time constant m/c_l = 2.5 s
  EXPECT_NEAR(fm::length(s.velocity), p.thrust / p.linear_drag, 1e-2);
  // Half throttle halves terminal speed; from above the terminal speed the craft slows down.
  CraftState h;
  h.velocity = {30, 0};
  Thrusters half = none();
  half.throttle = 0.5;
  run(h, p, half, 1500);
  EXPECT_NEAR(fm::length(h.velocity), 0.5 * p.thrust / p.linear_drag, 1e-2);
}

TEST(Craft, T10_KeelDampsSideSlip) {
  const CraftParams p;
  CraftState s;
  s.velocity = {0, 3};  // pure sideways motion, heading +x
  fb::craft_step(s, p, none(), kDt);
  const Vec2 body = fb::craft_body_velocity(s);
  // side-slip decays faster than forward speed would: c_l + c_lat acts on it.
  EXPECT_NEAR(body.y, 3 - 3 * (p.linear_drag + p.lateral_drag) / p.mass * kDt, 1e-12);
  EXPECT_NEAR(body.x, p.thrust / p.mass * kDt, 1e-12);
}

TEST(Craft, T10_RigidTransformInvariance) {
  const CraftParams p;
  CraftState a;
  a.position = {1, 2};
  a.velocity = {3, 1};
  a.orientation = 0.3;
  a.angular_velocity = 0.2;
  const real rot = 2.1;
  const Vec2 shift{-40, 17};
  CraftState b = a;
  b.position = fm::rotate(a.position, rot) + shift;
  b.velocity = fm::rotate(a.velocity, rot);
  b.orientation = fm::wrap_angle(a.orientation + rot);
  // Thruster program: port, nothing, starboard at part factor.
  for (int i = 0; i < 900; ++i) {
    const Thrusters t = i < 300 ? port() : (i < 500 ? none() : starboard(0.4));
    fb::craft_step(a, p, t, kDt);
    fb::craft_step(b, p, t, kDt);
  }
  const Vec2 expect = fm::rotate(a.position, rot) + shift;
  EXPECT_NEAR(b.position.x, expect.x, 1e-6);
  EXPECT_NEAR(b.position.y, expect.y, 1e-6);
  const Vec2 ev = fm::rotate(a.velocity, rot);
  EXPECT_NEAR(b.velocity.x, ev.x, 1e-8);
  EXPECT_NEAR(b.velocity.y, ev.y, 1e-8);
  EXPECT_NEAR(wrapped_diff(b.orientation, a.orientation + rot), 0, 1e-9);
  EXPECT_NEAR(b.angular_velocity, a.angular_velocity, 1e-12);
}

TEST(Craft, T10_OrientationStaysWrappedAndFinite) {
  const CraftParams p;
  CraftState s;
  run(s, p, port(), 3000);  // many full turns
  EXPECT_LE(s.orientation, fm::kPi);
  EXPECT_GT(s.orientation, -fm::kPi);
  EXPECT_TRUE(fm::is_finite(s.position));
  // Zero dt changes nothing.
  const CraftState before = s;
  fb::craft_step(s, p, port(), 0);
  EXPECT_EQ(s.position, before.position);
  EXPECT_EQ(s.velocity, before.velocity);
  EXPECT_EQ(s.angular_velocity, before.angular_velocity);
}
