#include "flockstep/behavior/ray_avoid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "flockstep/behavior/steering.hpp"

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::real;
using fm::Vec2;

namespace {

constexpr real kDt = 1.0 / 60;

real len(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

real segment_distance(Vec2 p, const fb::Wall& w) {
  const Vec2 d = w.b - w.a;
  const real t = std::clamp(fm::dot(p - w.a, d) / fm::dot(d, d), 0.0, 1.0);
  return len(p - (w.a + d * t));
}

fb::Kinematic moving(Vec2 p, Vec2 v) {
  fb::Kinematic k;
  k.position = p;
  k.velocity = v;
  k.orientation = fm::orientation_of(v);
  return k;
}

// One tick of an agent that cruises forward at full acceleration unless avoidance asks for
// something (avoidance has priority), with the facing following the velocity.
void step(fb::Kinematic& k, fb::SteeringOutput avoid, real max_speed, real cruise_acc = 10) {
  if (avoid.none()) avoid.linear = fb::ray_direction(k) * cruise_acc;
  fb::integrate_steering(k, avoid, max_speed, kDt);
  k.orientation = fm::new_orientation(k.orientation, k.velocity);
}

// Acute V corner (Fig. 3.27): vertex at the origin, opening toward -x, each wall `half_deg` off
// the -x axis, 25 m long.
std::array<fb::Wall, 2> v_corner(real half_deg) {
  const real h = half_deg * fm::kDegToRad;
  return {fb::Wall{{0, 0}, {-25 * std::cos(h), 25 * std::sin(h)}},
          fb::Wall{{-25 * std::cos(h), -25 * std::sin(h)}, {0, 0}}};
}

struct CornerRun {
  real min_wall_distance = 1e300;
  int escaped_tick = -1;  // first tick back out at > 16 m from the vertex, heading out
};

// The corner scenario: speed 3 m/s, lookahead 5 m, whiskers 2.5 m, avoid distance 1 m.
CornerRun run_corner(fb::RayConfig config, bool adaptive, bool winner, real y0, int ticks) {
  const auto walls = v_corner(30);
  const fb::ObstacleDetector det{walls, {}};
  fb::MultiRayParams p;
  p.config = config;
  p.lookahead = 5;
  p.whisker_length = 2.5;
  p.avoid_distance = 1;
  p.adaptive_angle = adaptive;
  p.winner_ray = winner;
  fb::MultiRayState st;
  fb::Kinematic k = moving({-15, y0}, {3, 0.06});
  CornerRun r;
  for (int i = 0; i < ticks; ++i) {
    step(k, fb::multi_ray_avoidance(k, det, p, st, kDt), 3.0);
    r.min_wall_distance =
        std::min({r.min_wall_distance, segment_distance(k.position, walls[0]), segment_distance(k.position, walls[1])});
    if (r.escaped_tick < 0 && i > 60 && len(k.position) > 16 && k.velocity.x < 0) {
      r.escaped_tick = i;
      break;
    }
  }
  return r;
}

constexpr real kAgentRadius = 0.25;

}  // namespace

TEST(RayAvoid, T59_SegmentCastHitsWithinSegmentOnly) {
  const fb::Wall w{{5, -2}, {5, 2}};
  const fb::RayHit h = fb::cast_segment({0, 1}, {10, 0}, w);
  ASSERT_TRUE(h.hit);
  EXPECT_DOUBLE_EQ(h.fraction, 0.5);
  EXPECT_EQ(h.position, (Vec2{5, 1}));
  EXPECT_EQ(h.normal, (Vec2{-1, 0}));  // faces the ray origin
  // From the other side the normal flips.
  EXPECT_EQ(fb::cast_segment({9, 0}, {-10, 0}, w).normal, (Vec2{1, 0}));
  EXPECT_FALSE(fb::cast_segment({0, 1}, {4.9, 0}, w).hit);  // stops short: beyond the cast
  EXPECT_FALSE(fb::cast_segment({0, 3}, {10, 0}, w).hit);   // passes above the end
  EXPECT_FALSE(fb::cast_segment({0, 0}, {0, 10}, w).hit);   // parallel
  EXPECT_FALSE(fb::cast_segment({6, 0}, {10, 0}, w).hit);   // wall behind
}

TEST(RayAvoid, T59_CircleCastFindsEntryPoint) {
  const fb::Circle c{{10, 0}, 2};
  const fb::RayHit h = fb::cast_circle({0, 0}, {20, 0}, c);
  ASSERT_TRUE(h.hit);
  EXPECT_DOUBLE_EQ(h.position.x, 8.0);
  EXPECT_DOUBLE_EQ(h.fraction, 0.4);
  EXPECT_EQ(h.normal, (Vec2{-1, 0}));
  EXPECT_FALSE(fb::cast_circle({0, 0}, {7.9, 0}, c).hit);
  EXPECT_FALSE(fb::cast_circle({0, 2.01}, {20, 0}, c).hit);
  EXPECT_FALSE(fb::cast_circle({0, 0}, {-20, 0}, c).hit);
  const fb::RayHit inside = fb::cast_circle({11, 0}, {5, 0}, c);
  EXPECT_TRUE(inside.hit);
  EXPECT_DOUBLE_EQ(inside.fraction, 0.0);
  EXPECT_EQ(inside.normal, (Vec2{1, 0}));
  // The detector returns the first hit over all geometry.
  const std::array<fb::Wall, 1> walls{fb::Wall{{9, -5}, {9, 5}}};
  const std::array<fb::Circle, 2> circles{fb::Circle{{10, 0}, 2}, fb::Circle{{4, 0}, 1}};
  const fb::RayHit first = fb::get_collision(fb::ObstacleDetector{walls, circles}, {0, 0}, {20, 0});
  EXPECT_DOUBLE_EQ(first.position.x, 3.0);
}

TEST(RayAvoid, T59_SeekTargetLiesAvoidDistanceAlongNormal) {
  const std::array<fb::Wall, 1> walls{fb::Wall{{0, 5}, {10, 7}}};  // slanted wall
  const fb::ObstacleDetector det{walls, {}};
  fb::RayAvoidParams p;
  p.lookahead = 10;
  p.avoid_distance = 1.5;
  fb::RayAvoidDebug dbg;
  const fb::Kinematic k = moving({3, 0}, {0.5, 4});
  const fb::SteeringOutput s = fb::ray_avoidance(k, det, p, &dbg);
  ASSERT_TRUE(dbg.hit.hit);
  EXPECT_NEAR(segment_distance(dbg.target, walls[0]), 1.5, 1e-12);
  EXPECT_NEAR(len(dbg.target - dbg.hit.position), 1.5, 1e-12);
  EXPECT_LT(fm::dot(dbg.hit.normal, k.velocity), 0);  // target on the agent's side
  EXPECT_NEAR(len(s.linear), p.max_acceleration, 1e-12);
  EXPECT_NEAR(fm::cross(s.linear, dbg.target - k.position), 0, 1e-9);  // seeks the target
  EXPECT_GT(fm::dot(s.linear, dbg.target - k.position), 0);
}

TEST(RayAvoid, T59_NoHitGivesZeroAndZeroVelocityUsesFacing) {
  const std::array<fb::Wall, 1> walls{fb::Wall{{5, -5}, {5, 5}}};
  const fb::ObstacleDetector det{walls, {}};
  fb::RayAvoidParams p;
  EXPECT_TRUE(fb::ray_avoidance(moving({0, 0}, {-3, 0}), det, p).none());  // moving away
  EXPECT_TRUE(fb::ray_avoidance(moving({0, 0}, {3, 0}), det, p).none());   // too far for 4 m
  fb::Kinematic still;
  still.position = {2, 0};
  still.orientation = 0;  // facing the wall
  EXPECT_FALSE(fb::ray_avoidance(still, det, p).none());
  still.orientation = fm::kPi;
  EXPECT_TRUE(fb::ray_avoidance(still, det, p).none());
}

TEST(RayAvoid, T59_HeadOnApproachNeverPenetratesWall) {
  const std::array<fb::Wall, 1> walls{fb::Wall{{10, -1000}, {10, 1000}}};  // effectively infinite
  const fb::ObstacleDetector det{walls, {}};
  fb::RayAvoidParams p;
  // Braking distance at 5 m/s and 10 m/s^2 is 1.25 m. The lookahead covers it, and so must the
  // avoid distance: seek runs through its target at full speed before it brakes (T42 overshoot).
  p.lookahead = 4;
  p.avoid_distance = 2;
  fb::Kinematic k = moving({0, 0}, {5, 0});
  real max_x = -1e9;
  bool reacted = false;
  for (int i = 0; i < 60 * 8; ++i) {
    const fb::SteeringOutput s = fb::ray_avoidance(k, det, p);
    reacted = reacted || !s.none();
    step(k, s, 5.0);
    max_x = std::max(max_x, k.position.x);
  }
  EXPECT_TRUE(reacted);
  EXPECT_LT(max_x, 10.0);
  EXPECT_GT(max_x, 6.0);  // it did approach
}

TEST(RayAvoid, T60_MakeRaysBuildsEachLayout) {
  fb::MultiRayParams p;
  p.lookahead = 4;
  p.whisker_length = 2;
  p.parallel_offset = 0.5;
  const Vec2 pos{1, 1};
  const Vec2 dir{0, 1};
  const real a = 0.5;
  const fb::RaySet single = fb::make_rays(pos, dir, fb::RayConfig::kSingle, p, a);
  ASSERT_EQ(single.count, 1);
  EXPECT_EQ(single.rays[0].move, (Vec2{0, 4}));
  const fb::RaySet wh = fb::make_rays(pos, dir, fb::RayConfig::kWhiskers, p, a);
  ASSERT_EQ(wh.count, 3);
  EXPECT_NEAR(len(wh.rays[1].move), 2, 1e-12);
  EXPECT_NEAR(wh.rays[1].move.x, -2 * std::sin(a), 1e-12);  // left of +y is -x
  EXPECT_NEAR(wh.rays[2].move.x, 2 * std::sin(a), 1e-12);
  const fb::RaySet par = fb::make_rays(pos, dir, fb::RayConfig::kParallel, p, a);
  ASSERT_EQ(par.count, 2);
  EXPECT_EQ(par.rays[0].origin, (Vec2{0.5, 1}));
  EXPECT_EQ(par.rays[1].origin, (Vec2{1.5, 1}));
  EXPECT_EQ(par.rays[0].move, par.rays[1].move);
  const fb::RaySet fan = fb::make_rays(pos, dir, fb::RayConfig::kFan, p, a);
  ASSERT_EQ(fan.count, 2);
  EXPECT_NEAR(len(fan.rays[0].move), 4, 1e-12);
  EXPECT_NEAR(fm::dot(fan.rays[0].move, dir) / 4, std::cos(a), 1e-12);
}

// Fig. 3.25: a single ray passes just beside a convex obstacle and the body grazes it; the
// whiskers of a three-ray layout see it and steer clear.
TEST(RayAvoid, T60_ThreeRaysDoNotGrazeWhatSingleRayGrazes) {
  const std::array<fb::Circle, 1> circles{fb::Circle{{10, 0.9}, 0.6}};  // edge 0.3 from the path line
  const fb::ObstacleDetector det{{}, circles};
  constexpr real kRadius = 0.4;
  auto clearance = [&](fb::RayConfig cfg) {
    fb::MultiRayParams p;
    p.config = cfg;
    p.lookahead = 4;
    p.whisker_length = 2;
    p.side_angle = 0.4;
    p.avoid_distance = 2;
    fb::MultiRayState st;
    fb::Kinematic k = moving({0, 0}, {3, 0});
    real min_clear = 1e300;
    for (int i = 0; i < 60 * 8; ++i) {
      step(k, fb::multi_ray_avoidance(k, det, p, st, kDt), 3.0);
      min_clear = std::min(min_clear, len(k.position - circles[0].center) - circles[0].radius);
    }
    EXPECT_GT(k.position.x, 12);  // it got past either way
    return min_clear;
  };
  const real single = clearance(fb::RayConfig::kSingle);
  const real three = clearance(fb::RayConfig::kWhiskers);
  EXPECT_LT(single, kRadius);  // grazes
  EXPECT_GE(three, kRadius);   // does not
}

TEST(RayAvoid, T60_AdaptiveAngleStaysInBoundsGrowsOnHitsShrinksWhenClear) {
  const std::array<fb::Wall, 1> walls{fb::Wall{{3, -10}, {3, 10}}};
  const fb::ObstacleDetector det{walls, {}};
  fb::MultiRayParams p;
  p.adaptive_angle = true;
  p.min_angle = 0.2;
  p.max_angle = 1.0;
  p.widen_rate = 2;
  p.narrow_rate = 0.5;
  fb::MultiRayState st;
  const fb::Kinematic toward = moving({0, 0}, {1, 0});  // central ray hits every frame
  fb::MultiRayDebug dbg;
  real prev = -1;
  for (int i = 0; i < 60; ++i) {
    fb::multi_ray_avoidance(toward, det, p, st, kDt, &dbg);
    EXPECT_GE(dbg.side_angle, p.min_angle);
    EXPECT_LE(dbg.side_angle, p.max_angle);
    if (i > 0 && prev < p.max_angle) {
      EXPECT_GT(dbg.side_angle, prev) << i;
    }
    prev = dbg.side_angle;
  }
  EXPECT_DOUBLE_EQ(st.side_angle, p.max_angle);  // 60 frames * 2/60 rad = 2 rad, clamped
  EXPECT_EQ(st.consecutive_hits, 60);
  const fb::Kinematic away = moving({0, 0}, {-1, 0});
  for (int i = 0; i < 200; ++i) {
    fb::multi_ray_avoidance(away, det, p, st, kDt, &dbg);
    EXPECT_LE(dbg.side_angle, prev);
    EXPECT_GE(dbg.side_angle, p.min_angle);
    prev = dbg.side_angle;
  }
  EXPECT_DOUBLE_EQ(st.side_angle, p.min_angle);
  EXPECT_EQ(st.consecutive_hits, 0);
}

// Fig. 3.27 regression: two parallel rays in an acute (60 deg) V corner flip-flop into the
// vertex and hit the wall.
TEST(RayAvoid, T60_ParallelRaysCaughtInAcuteCornerTrap) {
  for (real y0 : {-0.7, 0.1, 1.0}) {
    const CornerRun r = run_corner(fb::RayConfig::kParallel, false, false, y0, 60 * 12);
    EXPECT_LT(r.min_wall_distance, kAgentRadius) << "y0 " << y0;
    EXPECT_EQ(r.escaped_tick, -1) << "y0 " << y0;
  }
}

TEST(RayAvoid, T60_AdaptiveFanWhiskersEscapeAcuteCorner) {
  for (real y0 : {-0.7, 0.1, 1.0}) {
    const CornerRun r = run_corner(fb::RayConfig::kWhiskers, true, false, y0, 60 * 12);
    EXPECT_GE(r.min_wall_distance, kAgentRadius) << "y0 " << y0;
    EXPECT_GE(r.escaped_tick, 0) << "y0 " << y0;
  }
}

TEST(RayAvoid, T60_WinnerRayEscapesAcuteCorner) {
  for (real y0 : {-0.7, 0.1, 1.0}) {
    // The winner remedy rescues even the trap-prone parallel layout.
    for (fb::RayConfig cfg : {fb::RayConfig::kWhiskers, fb::RayConfig::kParallel}) {
      const CornerRun r = run_corner(cfg, false, true, y0, 60 * 12);
      EXPECT_GE(r.min_wall_distance, kAgentRadius) << "y0 " << y0;
      EXPECT_GE(r.escaped_tick, 0) << "y0 " << y0;
    }
  }
}

TEST(RayAvoid, T60_WinnerFixesTurnSide) {
  const auto walls = v_corner(30);
  const fb::ObstacleDetector det{walls, {}};
  fb::MultiRayParams p;
  p.config = fb::RayConfig::kParallel;
  p.winner_ray = true;
  fb::MultiRayState st;
  // Near the upper wall: its ray wins and the turn is to the right (-y side).
  fb::Kinematic k = moving({-6, 2.2}, {3, 0});
  fb::multi_ray_avoidance(k, det, p, st, kDt);
  ASSERT_GE(st.winner, 0);
  EXPECT_EQ(st.winner_side, -1);
  // Next frame the agent sits near the lower wall instead: without the winner it would turn
  // left, with it the steering still goes right.
  fb::Kinematic k2 = moving({-6, -2.2}, {3, 0});
  fb::MultiRayState fresh;
  fb::MultiRayParams no_winner = p;
  no_winner.winner_ray = false;
  EXPECT_GT(fb::multi_ray_avoidance(k2, det, no_winner, fresh, kDt).linear.y, 0);
  EXPECT_LT(fb::multi_ray_avoidance(k2, det, p, st, kDt).linear.y, 0);
}
