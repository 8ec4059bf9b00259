// Tests for T21 (continuous LOS chase with bow thrusters) and T22 (tile LOS chase stepping).
#include "flockstep/behavior/los_chase.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::CraftParams;
using fb::CraftState;
using fb::LosChaseParams;
using fb::Thrusters;
using fb::Tile;
using fm::real;
using fm::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;

CraftState craft_at(Vec2 p, real theta, real speed) {
  CraftState s;
  s.position = p;
  s.orientation = theta;
  s.velocity = fm::as_vector(theta) * speed;
  return s;
}

// Absolute bearing of the target from the heading, radians in [0, pi].
real abs_bearing(const CraftState& s, Vec2 target) {
  const Vec2 u = fb::los_bearing(s, target);
  return std::abs(std::atan2(u.y, u.x));
}

}  // namespace

TEST(LosChase, T21_TurnsTowardTargetByMeaning) {
  const LosChaseParams p;
  const CraftState s = craft_at({0, 0}, fm::kHalfPi, 0);  // heading +y: left is -x
  const Thrusters left = fb::los_chase_thrusters(s, {-5, 5}, p);
  EXPECT_TRUE(left.starboard);
  EXPECT_FALSE(left.port);
  const Thrusters right = fb::los_chase_thrusters(s, {5, 5}, p);
  EXPECT_TRUE(right.port);
  EXPECT_FALSE(right.starboard);
  EXPECT_EQ(right.throttle, 1);  // forward thrust stays on
  // Inside the dead band ahead: neither. TOL is the sine of the half-angle.
  const real inside = std::asin(p.tolerance) * 0.9;
  const Thrusters ahead = fb::los_chase_thrusters(s, Vec2{-std::sin(inside), std::cos(inside)} * 50, p);
  EXPECT_FALSE(ahead.port);
  EXPECT_FALSE(ahead.starboard);
  const real outside = std::asin(p.tolerance) * 1.1;
  EXPECT_TRUE(fb::los_chase_thrusters(s, Vec2{-std::sin(outside), std::cos(outside)} * 50, p).starboard);
  // Coincident target: no thrusters and no NaN.
  const Thrusters same = fb::los_chase_thrusters(s, {0, 0}, p);
  EXPECT_FALSE(same.port || same.starboard);
  EXPECT_EQ(fb::los_bearing(s, {0, 0}), (Vec2{0, 0}));
}

TEST(LosChase, T21_PreyExactlyBehindBreaksTheTie) {
  LosChaseParams p;
  const CraftState s = craft_at({0, 0}, 0, 5);
  const Thrusters t = fb::los_chase_thrusters(s, {-30, 0}, p);
  EXPECT_TRUE(t.starboard);  // default tie side: turn left
  EXPECT_FALSE(t.port);
  p.behind_turn_left = false;
  EXPECT_TRUE(fb::los_chase_thrusters(s, {-30, 0}, p).port);
  // Slightly to the right behind (inside the band): turn right, toward it.
  p.behind_turn_left = true;
  EXPECT_TRUE(fb::los_chase_thrusters(s, {-30, -0.5}, p).port);
  // The craft really turns round and reaches the target (without the tie-break it would fly
  // straight away from it forever).
  const CraftParams cp;
  CraftState c = s;
  real closest = fm::kInfinity;
  for (int i = 0; i < 600; ++i) {
    fb::craft_step(c, cp, fb::los_chase_thrusters(c, {-30, 0}, p), kDt);
    closest = std::min(closest, fm::distance(c.position, {-30, 0}));
  }
  EXPECT_LT(closest, 2.0);
}

TEST(LosChase, T21_HeadingAcrossPiWrap) {
  const LosChaseParams p;
  // Heading just below +pi (pointing -x); a target slightly to the craft's left lies at a world
  // angle just above -pi. The craft must turn left, not the long way round.
  const CraftState s = craft_at({0, 0}, fm::kPi - 0.01, 0);
  const Vec2 target = Vec2{-1, -0.3} * 20;  // world angle ~ -pi + 0.29 = heading + 0.3: left
  EXPECT_TRUE(fb::los_chase_thrusters(s, target, p).starboard);
  const Vec2 target2 = Vec2{-1, 0.3} * 20;  // world angle ~ pi - 0.29 = heading - 0.28: right
  EXPECT_TRUE(fb::los_chase_thrusters(s, target2, p).port);
}

TEST(LosChase, T21_BearingDecreasesMonotonicallyIntoDeadBand) {
  const LosChaseParams p;
  const CraftParams cp;
  for (const real side : {1.0, -1.0}) {
    CraftState s = craft_at({0, 0}, 0, 0);
    const Vec2 target{60, side * 90};
    real previous = abs_bearing(s, target);
    int steps = 0;
    while (std::abs(fb::los_bearing(s, target).y) > p.tolerance && steps < 600) {
      fb::craft_step(s, cp, fb::los_chase_thrusters(s, target, p), kDt);
      const real b = abs_bearing(s, target);
      EXPECT_LT(b, previous) << "step " << steps;
      previous = b;
      ++steps;
    }
    EXPECT_LT(steps, 600);
    EXPECT_GT(steps, 10);
  }
}

TEST(LosChase, T21_PassesWithinTurningRadiusOfStaticTarget) {
  const LosChaseParams p;
  const CraftParams cp;
  // Steady turning radius of this craft at full thruster: v_terminal / omega_steady.
  const real omega = 0.5 * cp.length * cp.max_steering_force / cp.angular_drag;
  const real radius = cp.thrust / cp.linear_drag / omega;
  CraftState s = craft_at({0, 0}, 0, 10);
  const Vec2 target{-20, 35};  // behind-left: needs a real turn first
  real closest = fm::kInfinity;
  for (int i = 0; i < 900; ++i) {
    fb::craft_step(s, cp, fb::los_chase_thrusters(s, target, p), kDt);
    closest = std::min(closest, fm::distance(s.position, target));
  }
  EXPECT_LT(closest, radius);
  EXPECT_LT(closest, 2.0);  // in fact it flies almost straight over it
}

TEST(LosChase, T21_MirrorScenarioGivesMirroredPath) {
  const LosChaseParams p;
  const CraftParams cp;
  CraftState a = craft_at({0, 0}, 0, 8);
  CraftState b = a;
  for (int i = 0; i < 600; ++i) {
    // Moving prey, mirrored about the x axis.
    const real t = i * kDt;
    const Vec2 prey{40 + 3 * t, 30 - 2 * t};
    fb::craft_step(a, cp, fb::los_chase_thrusters(a, prey, p), kDt);
    fb::craft_step(b, cp, fb::los_chase_thrusters(b, {prey.x, -prey.y}, p), kDt);
    ASSERT_NEAR(a.position.x, b.position.x, 1e-9) << i;
    ASSERT_NEAR(a.position.y, -b.position.y, 1e-9) << i;
    ASSERT_NEAR(a.orientation, -b.orientation, 1e-9) << i;
  }
}

TEST(LosChase, T21_SlowerChaserNeverCatchesFleeingPrey) {
  const LosChaseParams p;
  const CraftParams cp;  // terminal speed 10 m/s
  CraftState s = craft_at({0, 0}, 0, 10);
  const Vec2 v_prey{8, 8};  // 11.3 m/s, faster
  Vec2 prey{30, 10};
  real d0 = fm::distance(prey, s.position);
  real closest = d0;
  for (int i = 0; i < 1800; ++i) {
    fb::craft_step(s, cp, fb::los_chase_thrusters(s, prey, p), kDt);
    prey += v_prey * kDt;
    closest = std::min(closest, fm::distance(prey, s.position));
  }
  EXPECT_GT(closest, 20);
  EXPECT_GT(fm::distance(prey, s.position), d0);  // left behind
}

TEST(LosChase, T21_SeedLiteralSignTestTurnsAwayInYUpWorld) {
  // Erratum (Part J 6): the seed's raw "port iff x < -TOL" assumes y-down screen handedness.
  LosChaseParams literal;
  literal.seed_literal = true;
  const LosChaseParams fixed;
  const CraftParams cp;
  const Vec2 target{50, 50};  // 45 deg to the left
  CraftState a = craft_at({0, 0}, 0, 5);
  CraftState b = a;
  EXPECT_TRUE(fb::los_chase_thrusters(a, target, literal).port);  // turns right: away
  EXPECT_TRUE(fb::los_chase_thrusters(a, target, fixed).starboard);
  for (int i = 0; i < 60; ++i) {
    fb::craft_step(a, cp, fb::los_chase_thrusters(a, target, literal), kDt);
    fb::craft_step(b, cp, fb::los_chase_thrusters(b, target, fixed), kDt);
  }
  EXPECT_GT(abs_bearing(a, target), fm::kPi / 4);  // bearing grew
  EXPECT_LT(abs_bearing(b, target), fm::kPi / 4);  // bearing shrank
}

// ---------------------------------------------------------------- T22 tiles

TEST(TileLosChase, T22_StaticTargetFollowsTheRasterisedLine) {
  const Tile start{0, 0};
  const Tile target{1, 8};
  Tile line[16];
  const std::int32_t n = fb::rasterize_line(start, target, line);
  ASSERT_EQ(n, 9);
  Tile path[16];
  fb::TileChaseState st;
  Tile c = start;
  for (std::int32_t k = 1; k < n; ++k) {
    c = fb::tile_los_chase_step(c, target, path, st);
    EXPECT_EQ(c, line[k]) << k;
  }
  EXPECT_EQ(c, target);  // max(|dR|, |dC|) = 8 ticks
  // The catalog's pinned cells: the row changes at column 7.
  EXPECT_EQ(line[6], (Tile{0, 6}));
  EXPECT_EQ(line[7], (Tile{1, 7}));
  // On the target it stays put.
  EXPECT_EQ(fb::tile_los_chase_step(c, target, path, st), target);
}

TEST(TileLosChase, T22_ArrivesInChebyshevTicksAlongStraightLine) {
  const Tile starts[] = {{0, 0}, {5, -3}, {-7, 2}, {3, 3}};
  const Tile targets[] = {{7, 13}, {-6, -9}, {-7, 2}, {12, -2}};
  for (int s = 0; s < 4; ++s) {
    const Tile a = starts[s];
    const Tile b = targets[s];
    const int expect = std::max(std::abs(b.row - a.row), std::abs(b.col - a.col));
    for (int form = 0; form < 2; ++form) {
      Tile path[64];
      fb::TileChaseState st;
      Tile c = a;
      int ticks = 0;
      while (!(c == b) && ticks < 100) {
        const Tile n = form == 0 ? fb::tile_los_chase_step(c, b, path, st) : fb::tile_los_next(c, b);
        EXPECT_EQ(std::max(std::abs(n.row - c.row), std::abs(n.col - c.col)), 1);  // 8-adjacent step
        // Never far from the straight segment (T17's diagonal-then-straight would be).
        const real dr = b.row - a.row, dc = b.col - a.col;
        const real len = std::sqrt(dr * dr + dc * dc);
        const real off = std::abs(dr * (n.col - a.col) - dc * (n.row - a.row)) / len;
        EXPECT_LT(off, 1.0);
        c = n;
        ++ticks;
      }
      EXPECT_EQ(ticks, expect) << "case " << s << " form " << form;
    }
  }
}

TEST(TileLosChase, T22_ReplansWhenTargetMoves) {
  Tile path[64];
  fb::TileChaseState st;
  Tile c{0, 0};
  Tile target{0, 20};
  int ticks = 0;
  // The target walks one tile down every third tick; the chaser re-rasterises each time.
  while (!(c == target) && ticks < 200) {
    if (ticks % 3 == 2) ++target.row;
    const Tile n = fb::tile_los_chase_step(c, target, path, st);
    EXPECT_EQ(std::max(std::abs(n.row - c.row), std::abs(n.col - c.col)), 1);
    EXPECT_EQ(st.planned_target, target);
    c = n;
    ++ticks;
  }
  EXPECT_EQ(c, target);
  EXPECT_LT(ticks, 40);
}

TEST(TileLosChase, T22_PathLongerThanBufferIsFollowedInPieces) {
  Tile small[3];  // kMaxPathLength-style truncation
  fb::TileChaseState st;
  Tile c{2, 1};
  const Tile target{-4, 30};
  int ticks = 0;
  while (!(c == target) && ticks < 100) {
    const Tile n = fb::tile_los_chase_step(c, target, small, st);
    EXPECT_EQ(std::max(std::abs(n.row - c.row), std::abs(n.col - c.col)), 1);
    c = n;
    ++ticks;
  }
  EXPECT_EQ(ticks, 29);
}

TEST(TileLosChase, T22_ChaserDisplacedReplansFromWhereItIs) {
  Tile path[32];
  fb::TileChaseState st;
  const Tile target{10, 10};
  Tile c = fb::tile_los_chase_step({0, 0}, target, path, st);
  EXPECT_EQ(c, (Tile{1, 1}));
  c = Tile{0, 9};  // pushed elsewhere by the game
  c = fb::tile_los_chase_step(c, target, path, st);
  EXPECT_EQ(c, (Tile{1, 9}));
}
