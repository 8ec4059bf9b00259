#include "flockstep/behavior/avoid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/force_steering.hpp"

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::real;
using fm::Vec2;

namespace {

constexpr real kDt = 1.0 / 60;

real len(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

fb::Body body_at(Vec2 p, Vec2 heading, real speed = 0) {
  fb::Body b;
  b.position = p;
  b.heading = heading / len(heading);
  b.velocity = b.heading * speed;
  b.radius = 0.5;
  b.max_speed = 5;
  b.max_force = 10;
  return b;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// T73

TEST(ObstacleAvoidance, T73_BoxLengthGrowsWithSpeed) {
  fb::DetectionBoxParams p;
  p.min_box_length = 4;
  EXPECT_DOUBLE_EQ(fb::detection_box_length(body_at({}, {1, 0}, 0), p), 4.0);
  EXPECT_DOUBLE_EQ(fb::detection_box_length(body_at({}, {1, 0}, 2.5), p), 6.0);
  EXPECT_DOUBLE_EQ(fb::detection_box_length(body_at({}, {1, 0}, 5), p), 8.0);
  fb::Body still = body_at({}, {1, 0}, 0);
  still.max_speed = 0;
  EXPECT_DOUBLE_EQ(fb::detection_box_length(still, p), 4.0);
}

TEST(ObstacleAvoidance, T73_IrrelevantObstaclesGiveZeroForce) {
  const fb::Body b = body_at({1, 1}, {1, 0}, 0);  // L = 4, W = 1
  const std::array<fb::Circle, 4> irrelevant{
      fb::Circle{{0, 1}, 0.5},    // centre behind
      fb::Circle{{5.6, 1}, 0.5},  // near edge at 4.1 > L
      fb::Circle{{3, 3}, 1},      // |y| = 2 > R = 1.5
      fb::Circle{{3, 2.5}, 1},    // |y| = R exactly: outside (strict)
  };
  fb::DetectionBoxDebug dbg;
  EXPECT_EQ(fb::obstacle_avoidance_force(b, irrelevant, fb::DetectionBoxParams{}, &dbg), (Vec2{}));
  EXPECT_EQ(dbg.obstacle_index, -1);
  EXPECT_DOUBLE_EQ(dbg.box_length, 4.0);
  EXPECT_DOUBLE_EQ(dbg.box_width, 1.0);
  // Pulling the third one just inside R makes it count.
  const std::array<fb::Circle, 1> inside{fb::Circle{{3, 2.49}, 1}};
  EXPECT_NE(fb::obstacle_avoidance_force(b, inside, fb::DetectionBoxParams{}), (Vec2{}));
}

TEST(ObstacleAvoidance, T73_OnlyClosestIntersectingObstacleIsUsed) {
  const fb::Body b = body_at({0, 0}, {0, 1}, 2.5);  // heading +y, L = 6
  const std::array<fb::Circle, 3> obstacles{fb::Circle{{0.2, 5}, 0.6}, fb::Circle{{-0.3, 2.5}, 0.5},
                                            fb::Circle{{3, 1}, 0.5}};  // last: outside laterally
  fb::DetectionBoxDebug dbg;
  const Vec2 f = fb::obstacle_avoidance_force(b, obstacles, fb::DetectionBoxParams{}, &dbg);
  EXPECT_EQ(dbg.obstacle_index, 1);
  EXPECT_NEAR(dbg.x_hit, 2.5 - std::sqrt(1.0 - 0.09), 1e-12);
  const std::array<fb::Circle, 1> only{obstacles[1]};
  EXPECT_EQ(fb::obstacle_avoidance_force(b, only, fb::DetectionBoxParams{}), f);
  // Changing the farther one changes nothing.
  std::array<fb::Circle, 3> moved = obstacles;
  moved[0].center.x = -0.4;
  EXPECT_EQ(fb::obstacle_avoidance_force(b, moved, fb::DetectionBoxParams{}), f);
}

TEST(ObstacleAvoidance, T73_BrakingOpposesMotionAndForceIsRotatedToWorld) {
  const Vec2 h = Vec2{3, 4} / 5.0;
  const fb::Body b = body_at({2, -1}, h, 1);
  const Vec2 centre = b.position + h * 3.0 + fm::perp_left(h) * 0.4;  // local (3, 0.4)
  const std::array<fb::Circle, 1> obs{fb::Circle{centre, 1}};
  fb::DetectionBoxDebug dbg;
  const Vec2 f = fb::obstacle_avoidance_force(b, obs, fb::DetectionBoxParams{}, &dbg);
  EXPECT_NEAR(dbg.local_obstacle.x, 3, 1e-12);
  EXPECT_NEAR(dbg.local_obstacle.y, 0.4, 1e-12);
  // F_x = (r - x) * 2 = -4; L = 4.8, multiplier = 1 + 1.8/4.8; F_y = -(1.5 - 0.4) * multiplier.
  const real mult = 1 + 1.8 / 4.8;
  EXPECT_NEAR(dbg.multiplier, mult, 1e-12);
  EXPECT_NEAR(dbg.local_force.x, -4.0, 1e-12);
  EXPECT_NEAR(dbg.local_force.y, -1.1 * mult, 1e-12);
  EXPECT_NEAR(fm::dot(f, h), -4.0, 1e-12);  // braking, opposes motion
  EXPECT_NEAR(fm::dot(f, fm::perp_left(h)), -1.1 * mult, 1e-12);
}

TEST(ObstacleAvoidance, T73_ForceGrowsAsObstacleGetsCloser) {
  const fb::Body b = body_at({0, 0}, {1, 0}, 0);  // L = 4
  real prev_lat = 0;
  real prev_mult = 0;
  for (real x = 4.0; x >= 0.0; x -= 0.25) {
    const std::array<fb::Circle, 1> obs{fb::Circle{{x, 0.3}, 0.5}};
    fb::DetectionBoxDebug dbg;
    const Vec2 f = fb::obstacle_avoidance_force(b, obs, fb::DetectionBoxParams{}, &dbg);
    ASSERT_EQ(dbg.obstacle_index, 0) << x;
    EXPECT_GE(dbg.multiplier, 1.0);
    EXPECT_LE(dbg.multiplier, 2.0);
    EXPECT_GT(dbg.multiplier, prev_mult) << x;
    EXPECT_GT(std::abs(f.y), prev_lat) << x;
    prev_mult = dbg.multiplier;
    prev_lat = std::abs(f.y);
  }
  EXPECT_DOUBLE_EQ(prev_mult, 2.0);  // x = 0: multiplier 2
}

TEST(ObstacleAvoidance, T73_SignCorrectLateralForcePushesAwayAndMirrors) {
  const fb::Body b = body_at({0, 0}, {1, 0}, 0);
  fb::DetectionBoxParams p;
  for (real y : {0.1, 0.4, 0.7, 0.95}) {
    const std::array<fb::Circle, 1> left{fb::Circle{{2, y}, 0.5}};
    const std::array<fb::Circle, 1> right{fb::Circle{{2, -y}, 0.5}};
    const Vec2 fl = fb::obstacle_avoidance_force(b, left, p);
    const Vec2 fr = fb::obstacle_avoidance_force(b, right, p);
    EXPECT_LT(fl.y, 0) << y;  // obstacle on the left: pushed right
    EXPECT_GT(fr.y, 0) << y;
    EXPECT_DOUBLE_EQ(fl.y, -fr.y);
    EXPECT_DOUBLE_EQ(fl.x, fr.x);
  }
  // Dead centre: the documented fixed side (left, +y) with full strength R * multiplier.
  const std::array<fb::Circle, 1> centre{fb::Circle{{2, 0}, 0.5}};
  fb::DetectionBoxDebug dbg;
  const Vec2 fc = fb::obstacle_avoidance_force(b, centre, p, &dbg);
  EXPECT_DOUBLE_EQ(fc.y, 1.0 * dbg.multiplier);
}

TEST(ObstacleAvoidance, T73_SeedLiteralLateralForceIsSignAsymmetric) {
  const fb::Body b = body_at({0, 0}, {1, 0}, 0);
  fb::DetectionBoxParams literal;
  literal.seed_literal = true;
  const std::array<fb::Circle, 1> left{fb::Circle{{2, 0.3}, 1}};
  const std::array<fb::Circle, 1> right{fb::Circle{{2, -0.3}, 1}};
  fb::DetectionBoxDebug dbg;
  const Vec2 fl = fb::obstacle_avoidance_force(b, left, literal, &dbg);
  const Vec2 fr = fb::obstacle_avoidance_force(b, right, literal);
  // F_y = (r - y) * multiplier: toward the obstacle on the left, and not the mirror image.
  EXPECT_DOUBLE_EQ(fl.y, (1 - 0.3) * dbg.multiplier);
  EXPECT_GT(fl.y, 0);
  EXPECT_DOUBLE_EQ(fr.y, (1 + 0.3) * dbg.multiplier);
  EXPECT_NE(fl.y, -fr.y);
  // The corrected default pushes away from the left obstacle.
  EXPECT_LT(fb::obstacle_avoidance_force(b, left, fb::DetectionBoxParams{}).y, 0);
  // Braking is the same in both modes.
  EXPECT_DOUBLE_EQ(fl.x, fb::obstacle_avoidance_force(b, left, fb::DetectionBoxParams{}).x);
}

namespace {

const std::array<fb::Circle, 6> kField{fb::Circle{{8, 0.3}, 1},    fb::Circle{{14, -1.2}, 1.2},
                                       fb::Circle{{19, 1.0}, 0.8}, fb::Circle{{25, -0.2}, 1.5},
                                       fb::Circle{{31, 1.2}, 1},   fb::Circle{{35, -1.5}, 0.7}};

struct FieldRun {
  real final_x = 0;
  real min_clearance = 1e300;  // centre distance minus (obstacle radius + body radius)
};

// Seek (45, 0) through kField with avoidance weighted 10 (Buckland's demo weighting) on top;
// body_update truncates the sum to max_force.
FieldRun run_field(const fb::DetectionBoxParams& p, real seconds) {
  fb::Body b = body_at({0, 0}, {1, 0}, 0);
  FieldRun r;
  for (int i = 0; i < static_cast<int>(seconds * 60) && b.position.x < 42; ++i) {
    const Vec2 avoid = fb::obstacle_avoidance_force(b, kField, p);
    fb::body_update(b, avoid * 10.0 + fb::seek_force(b, {45, 0}), kDt);
    for (const fb::Circle& c : kField)
      r.min_clearance = std::min(r.min_clearance, len(b.position - c.center) - (c.radius + b.radius));
  }
  r.final_x = b.position.x;
  return r;
}

}  // namespace

TEST(ObstacleAvoidance, T73_AgentPassesFieldOfCirclesWithoutEnteringAny) {
  fb::DetectionBoxParams p;
  p.braking_weight = 0.2;  // Buckland's code value; see the next test for the slides' 2.0
  p.box_width = 2.0;       // body diameter 1 m plus a 0.5 m margin each side
  p.min_box_length = 2.0;
  const FieldRun r = run_field(p, 20);
  EXPECT_GT(r.final_x, 40);         // got through
  EXPECT_GE(r.min_clearance, 0.1);  // the body never touched an obstacle
  // Without the margin the lateral push fades to zero exactly at the body's edge and it clips.
  fb::DetectionBoxParams tight = p;
  tight.box_width = 0;
  EXPECT_LT(run_field(tight, 20).min_clearance, 0);
}

// Measured: with the slides' braking weight 2.0 the braking term (r - x) * 2 outweighs seek for
// obstacles a few metres ahead, so a seeking agent stops in front of the first circle and never
// passes (it never hits it either).
TEST(ObstacleAvoidance, T73_SeedBrakingWeightStallsSeekingAgent) {
  const FieldRun r = run_field(fb::DetectionBoxParams{}, 20);
  EXPECT_LT(r.final_x, 8);
  EXPECT_GE(r.min_clearance, 0);
}

// ---------------------------------------------------------------------------------------------
// T74

TEST(Hide, T74_SpotIsOnFarSideCollinearAtRadiusPlusGap) {
  const fb::Circle c{{5, 3}, 2};
  const Vec2 hunter{1, 0};
  const Vec2 spot = fb::hiding_spot(c, hunter, 0.5);
  EXPECT_NEAR(len(spot - c.center), 2.5, 1e-12);
  EXPECT_NEAR(fm::cross(c.center - hunter, spot - hunter), 0, 1e-9);  // collinear
  EXPECT_GT(fm::dot(spot - c.center, c.center - hunter), 0);          // far side
  EXPECT_NEAR(spot.x, 5 + 0.8 * 2.5, 1e-12);
  EXPECT_NEAR(spot.y, 3 + 0.6 * 2.5, 1e-12);
  const Vec2 degenerate = fb::hiding_spot(c, c.center, 0.5);  // hunter on the centre
  EXPECT_EQ(degenerate, (Vec2{7.5, 3}));
}

TEST(Hide, T74_ArrivesAtSpotClosestToAgent) {
  const fb::Body b = body_at({10, 10}, {1, 0}, 0);
  const fb::Mover hunter{{0, 0}, {}};
  const std::array<fb::Circle, 3> obs{fb::Circle{{5, 0}, 1}, fb::Circle{{6, 7}, 1}, fb::Circle{{-5, 5}, 2}};
  fb::HideParams p;
  fb::HideDebug dbg;
  const Vec2 f = fb::hide_force(b, hunter, obs, p, &dbg);
  EXPECT_EQ(dbg.action, fb::HideAction::kHide);
  EXPECT_EQ(dbg.obstacle_index, 1);
  EXPECT_EQ(dbg.spot, fb::hiding_spot(obs[1], hunter.position, p.gap));
  EXPECT_EQ(f, fb::arrive_force(b, dbg.spot, p.deceleration));
}

TEST(Hide, T74_NoObstaclesEqualsEvade) {
  const fb::Body b = body_at({3, 4}, {0, 1}, 2);
  const fb::Mover hunter{{0, 0}, {1, 1}};
  fb::HideDebug dbg;
  const Vec2 f = fb::hide_force(b, hunter, {}, fb::HideParams{}, &dbg);
  EXPECT_EQ(dbg.action, fb::HideAction::kEvade);
  EXPECT_EQ(f, fb::evade_force(b, hunter));
  EXPECT_NE(f, (Vec2{}));
}

TEST(Hide, T74_AfterSettlingLineOfSightIsBlocked) {
  const std::array<fb::Circle, 2> obs{fb::Circle{{4, 2}, 1.5}, fb::Circle{{-6, -4}, 1}};
  const fb::Mover hunter{{0, 0}, {}};
  fb::Body b = body_at({6, -3}, {0, 1}, 0);
  fb::HideParams p;
  ASSERT_TRUE(fb::line_of_sight(hunter.position, b.position, obs));  // visible at the start
  // DECELERATION 4 is over-damped but slow (the approach decays with a ~4 s time constant).
  for (int i = 0; i < 60 * 20; ++i) fb::body_update(b, fb::hide_force(b, hunter, obs, p), kDt);
  EXPECT_FALSE(fb::line_of_sight(hunter.position, b.position, obs));
  EXPECT_NEAR(len(b.position - fb::hiding_spot(obs[0], hunter.position, p.gap)), 0, 0.05);
  EXPECT_LT(len(b.velocity), 0.05);
}

TEST(Hide, T74_LineOfSightSegmentTest) {
  const std::array<fb::Circle, 1> c{fb::Circle{{5, 0}, 1}};
  EXPECT_FALSE(fb::line_of_sight({0, 0}, {10, 0}, c));
  EXPECT_TRUE(fb::line_of_sight({0, 1.01}, {10, 1.01}, c));
  EXPECT_TRUE(fb::line_of_sight({0, 0}, {3.9, 0}, c));  // stops short of the circle
  EXPECT_TRUE(fb::line_of_sight({0, 0}, {0, 0}, c));
  EXPECT_TRUE(fb::line_of_sight({0, 0}, {10, 0}, {}));
}

TEST(Hide, T74_RefinementsPanicAndSeenMemory) {
  const std::array<fb::Circle, 1> obs{fb::Circle{{5, 0}, 1}};
  const fb::Mover hunter{{0, 0}, {1, 0}};
  const fb::Body visible = body_at({2, 3}, {1, 0}, 0);
  const fb::Body hidden = body_at({8, 0}, {1, 0}, 0);
  fb::HideParams p;
  p.panic_distance = 4;
  fb::HideDebug dbg;
  // Panic: the hunter is 3.6 m away, so flee (evade) rather than walk to a spot.
  EXPECT_EQ(fb::hide_force(visible, hunter, obs, p, &dbg), fb::evade_force(visible, hunter));
  EXPECT_EQ(dbg.action, fb::HideAction::kEvade);
  // Seen-within refinement without memory: hidden agent does nothing, visible one hides.
  fb::HideParams q;
  q.seen_within_s = 0;
  EXPECT_EQ(fb::hide_force(hidden, hunter, obs, q, &dbg), (Vec2{}));
  EXPECT_EQ(dbg.action, fb::HideAction::kIgnore);
  EXPECT_FALSE(dbg.hunter_visible);
  fb::hide_force(visible, hunter, obs, q, &dbg);
  EXPECT_EQ(dbg.action, fb::HideAction::kHide);
  // With memory: seen 1 s ago counts within a 2 s window, 3 s ago does not.
  q.seen_within_s = 2;
  fb::HideMemory mem;
  fb::hide_memory_update(mem, true, kDt);
  EXPECT_EQ(mem.time_since_seen_s, 0);
  for (int i = 0; i < 60; ++i) fb::hide_memory_update(mem, false, kDt);
  fb::hide_force(hidden, hunter, obs, q, &dbg, &mem);
  EXPECT_EQ(dbg.action, fb::HideAction::kHide);
  for (int i = 0; i < 120; ++i) fb::hide_memory_update(mem, false, kDt);
  EXPECT_EQ(fb::hide_force(hidden, hunter, obs, q, &dbg, &mem), (Vec2{}));
  EXPECT_EQ(dbg.action, fb::HideAction::kIgnore);
}

// ---------------------------------------------------------------------------------------------
// T75

TEST(WallAvoidance, T75_FeelerTipsAheadAndAtSideAngles) {
  const fb::Body b = body_at({1, 2}, {0, 1}, 0);
  fb::FeelerParams p;
  fb::FeelerDebug dbg;
  fb::wall_avoidance_force(b, {}, p, &dbg);
  EXPECT_NEAR(dbg.tips[0].x, 1, 1e-12);
  EXPECT_NEAR(dbg.tips[0].y, 6, 1e-12);
  EXPECT_NEAR(dbg.tips[1].x, 1 - 2 * std::sin(fm::kPi / 4), 1e-12);  // left of +y is -x
  EXPECT_NEAR(dbg.tips[2].x, 1 + 2 * std::sin(fm::kPi / 4), 1e-12);
  EXPECT_NEAR(dbg.tips[1].y, 2 + 2 * std::cos(fm::kPi / 4), 1e-12);
  EXPECT_EQ(dbg.tips, fb::feeler_tips(b, p));
}

TEST(WallAvoidance, T75_NoFeelerTouchingGivesZero) {
  const fb::Body b = body_at({0, 0}, {1, 0}, 3);
  const std::array<fb::Wall, 3> walls{fb::Wall{{4.5, -5}, {4.5, 5}}, fb::Wall{{0, 2}, {10, 2}},
                                      fb::Wall{{-3, -5}, {-3, 5}}};  // behind
  fb::FeelerDebug dbg;
  EXPECT_EQ(fb::wall_avoidance_force(b, walls, fb::FeelerParams{}, &dbg), (Vec2{}));
  EXPECT_EQ(dbg.feeler_index, -1);
}

TEST(WallAvoidance, T75_PerpendicularApproachForceEqualsPenetrationDepth) {
  const fb::Body b = body_at({0, 0}, {1, 0}, 3);
  for (const fb::Wall& w : {fb::Wall{{3, -10}, {3, 10}}, fb::Wall{{3, 10}, {3, -10}}}) {  // either orientation
    const std::array<fb::Wall, 1> walls{w};
    fb::FeelerDebug dbg;
    const Vec2 f = fb::wall_avoidance_force(b, walls, fb::FeelerParams{}, &dbg);
    EXPECT_DOUBLE_EQ(f.x, -1.0);  // ahead feeler tip at 4, wall at 3
    EXPECT_DOUBLE_EQ(f.y, 0.0);
    EXPECT_EQ(dbg.feeler_index, 0);
    EXPECT_DOUBLE_EQ(dbg.depth, 1.0);
  }
}

TEST(WallAvoidance, T75_ForceAlongNormalPointingAway) {
  const fb::Wall w{{0, 5}, {10, 1}};  // slanted, agent below it
  const std::array<fb::Wall, 1> walls{w};
  const fb::Body b = body_at({3, 1}, {0.2, 1}, 2);
  fb::FeelerDebug dbg;
  const Vec2 f = fb::wall_avoidance_force(b, walls, fb::FeelerParams{}, &dbg);
  ASSERT_NE(f, (Vec2{}));
  EXPECT_NEAR(fm::cross(f, w.normal()), 0, 1e-12);  // parallel to the wall normal
  EXPECT_GT(fm::dot(f, b.position - w.a), 0);       // toward the agent's side
  EXPECT_NEAR(len(f), len(dbg.tips[dbg.feeler_index] - dbg.hit_point), 1e-12);
  // Mirror agent on the other side: the force flips.
  const fb::Body above = body_at({7, 6}, {-0.2, -1}, 2);
  const Vec2 g = fb::wall_avoidance_force(above, walls, fb::FeelerParams{});
  EXPECT_GT(fm::dot(g, above.position - w.a), 0);
}

TEST(WallAvoidance, T75_OnlyClosestIntersectionCounts) {
  const fb::Body b = body_at({0, 0}, {1, 0}, 3);
  // Two walls crossed by the ahead feeler: only the nearer one (depth 1, not 0.5).
  const std::array<fb::Wall, 2> two{fb::Wall{{3.5, -10}, {3.5, 10}}, fb::Wall{{3, -10}, {3, 10}}};
  fb::FeelerDebug dbg;
  EXPECT_EQ(fb::wall_avoidance_force(b, two, fb::FeelerParams{}, &dbg), (Vec2{-1, 0}));
  EXPECT_EQ(dbg.wall_index, 1);
  // A side wall met by the left feeler at 1.414 m beats the far wall met ahead at 3.5 m; its
  // depth is that feeler's own overshoot, 2 - sqrt(2).
  const std::array<fb::Wall, 2> side{fb::Wall{{3.5, -10}, {3.5, 10}}, fb::Wall{{-1, 1}, {10, 1}}};
  const Vec2 f = fb::wall_avoidance_force(b, side, fb::FeelerParams{}, &dbg);
  EXPECT_EQ(dbg.feeler_index, 1);
  EXPECT_EQ(dbg.wall_index, 1);
  EXPECT_NEAR(f.x, 0, 1e-12);
  EXPECT_NEAR(f.y, -(2 - std::sqrt(2.0)), 1e-12);
}

TEST(WallAvoidance, T75_AgentSteeredAlongCorridorNeverCrossesWall) {
  const std::array<fb::Wall, 2> corridor{fb::Wall{{-5, 3}, {60, 3}}, fb::Wall{{60, -3}, {-5, -3}}};
  fb::Body b = body_at({0, 0}, {1, 0.6}, 4);  // heading toward the upper wall
  real max_abs_y = 0;
  for (int i = 0; i < 60 * 8; ++i) {
    const Vec2 wall = fb::wall_avoidance_force(b, corridor, fb::FeelerParams{});
    const Vec2 drive = b.heading * 2.0;  // keep going forward
    fb::body_update(b, wall * 10.0 + drive, kDt);
    max_abs_y = std::max(max_abs_y, std::abs(b.position.y));
  }
  EXPECT_LT(max_abs_y, 3 - b.radius);
  EXPECT_GT(b.position.x, 20);
}
