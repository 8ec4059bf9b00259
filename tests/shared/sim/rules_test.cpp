// The per-body rules that end a tick (sim/rules.hpp): obstacle push-out, including the pocket
// between two overlapping obstacles, torus copies, and the borders.
#include "flockstep/sim/rules.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "flockstep/math/rng.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {
namespace {

using behavior::Circle;

real clearance(Vec2 p, real r, const std::vector<Circle>& obstacles) {
  real worst = math::kInfinity;
  for (const Circle& c : obstacles) worst = math::min(worst, math::distance(p, c.center) - (c.radius + r));
  return worst;
}

TEST(Rules, T36_BodyInsideOneObstacleEndsOnItsSurfaceWithoutInwardVelocity) {
  const std::vector<Circle> obstacles{{{10, 10}, 3}};
  Vec2 p{11, 10}, v{-2, 1};
  push_out_of_obstacles(p, v, 0.5, obstacles);
  EXPECT_DOUBLE_EQ(p.x, 13.5);
  EXPECT_DOUBLE_EQ(p.y, 10);
  EXPECT_EQ(v.x, 0);  // the inward part is gone, the tangential part stays
  EXPECT_EQ(v.y, 1);
  // Outside: untouched, bit for bit.
  Vec2 q{20, 20}, w{1, 1};
  push_out_of_obstacles(q, w, 0.5, obstacles);
  EXPECT_EQ(q.x, 20);
  EXPECT_EQ(w.y, 1);
}

TEST(Rules, T36_PocketBetweenOverlappingObstaclesEndsOutsideBoth) {
  // Two overlapping rocks: leaving the first pushes into the second. Any start inside the union
  // ends outside both (on their surfaces), never inside one.
  const std::vector<Circle> obstacles{{{10, 10}, 3}, {{14, 10}, 3}};
  math::Rng rng = math::Rng::seeded(3, 1);
  std::int32_t pockets = 0;
  for (int k = 0; k < 5000; ++k) {
    Vec2 p{rng.uniform(6, 18), rng.uniform(6, 14)}, v{rng.uniform(-3, 3), rng.uniform(-3, 3)};
    const bool in_both = math::distance(p, obstacles[0].center) < 3.4 && math::distance(p, obstacles[1].center) < 3.4;
    push_out_of_obstacles(p, v, 0.4, obstacles);
    ASSERT_GE(clearance(p, 0.4, obstacles), -1e-9) << "start " << k;
    pockets += in_both ? 1 : 0;
  }
  EXPECT_GT(pockets, 200);
}

TEST(Rules, T14_WrappedWorldSeesTheObstacleAcrossTheSeam) {
  // An obstacle at x = 1 reaches across the seam to x = width - 2: a body at width - 1 is inside it.
  const std::vector<Circle> obstacles{{{1, 50}, 3}};
  Vec2 p{99, 50}, v{1, 0};
  push_out_of_obstacles(p, v, 0.5, obstacles, 100, 100);
  EXPECT_DOUBLE_EQ(p.x, 101 - 3.5);  // on the surface of the copy seen from x = 99, centred at 101
  EXPECT_EQ(v.x, 0);
}

TEST(Rules, T14_BordersWrapOrClamp) {
  Scenario s;
  s.width = 100;
  s.height = 50;
  s.wrap = true;
  Vec2 p{101, -1}, v{1, 1};
  apply_border(p, v, 0.5, s);
  EXPECT_DOUBLE_EQ(p.x, 1);
  EXPECT_DOUBLE_EQ(p.y, 49);
  s.wrap = false;
  Vec2 q{101, -1}, w{1, -1};
  apply_border(q, w, 0.5, s);
  EXPECT_DOUBLE_EQ(q.x, 99.5);
  EXPECT_DOUBLE_EQ(q.y, 0.5);
  EXPECT_EQ(w.x, 0);
  EXPECT_EQ(w.y, 0);
}

}  // namespace
}  // namespace flockstep::sim
