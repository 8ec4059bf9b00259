// Tests for the static obstacle index (T73 obstacle avoidance and the push-out read it; spawning
// tests against it): its per-cell lists equal those of testing every cell against every obstacle,
// and its spawn test equals testing every obstacle.
#include "flockstep/sim/obstacle_grid.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "flockstep/math/rng.hpp"
#include "flockstep/sim/grid.hpp"
#include "flockstep/math/transform.hpp"

namespace flockstep::sim {
namespace {

// The lists by definition: every cell against every obstacle, the image nearest the cell's
// middle, scenario order (what ObstacleGrid::build computed before it tested only the cells
// around each obstacle).
std::vector<Circle> every_pair(const Scenario& s, real reach, std::int32_t cols, std::int32_t rows, std::int32_t cx,
                               std::int32_t cy) {
  const real cw = s.width / cols, ch = s.height / rows;
  const Vec2 lo{cx * cw, cy * ch}, hi{(cx + 1) * cw, (cy + 1) * ch};
  std::vector<Circle> out;
  for (const Circle& c : s.obstacles) {
    Vec2 centre = c.center;
    const Vec2 mid{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2};
    if (s.wrap) centre = mid + math::torus_delta(mid, c.center, s.width, s.height);
    const real dx = math::max(math::max(lo.x - centre.x, real(0)), centre.x - hi.x);
    const real dy = math::max(math::max(lo.y - centre.y, real(0)), centre.y - hi.y);
    const real limit = c.radius + reach;
    if (dx * dx + dy * dy <= limit * limit) out.push_back({centre, c.radius});
  }
  return out;
}

Scenario random_scene(math::Rng& rng, bool wrap, real width, real height, std::int32_t obstacles) {
  Scenario s;
  s.width = width;
  s.height = height;
  s.wrap = wrap;
  s.grid_cell = rng.uniform(2, 9);
  for (std::int32_t k = 0; k < obstacles; ++k)
    s.obstacles.push_back({{rng.uniform(-0.1, 1.1) * width, rng.uniform(-0.1, 1.1) * height}, rng.uniform(0.5, 6)});
  // A few far outside (a wrapped world lists them at their images; a bordered one nowhere near),
  // and one with numbers no world has.
  s.obstacles.push_back({{rng.uniform(2.5, 4) * width, -rng.uniform(2, 5) * height}, 2});
  s.obstacles.push_back({{-7.25 * width, 3.5 * height}, 3});
  s.obstacles.push_back({{1e300, -1e300}, 1});
  return s;
}

TEST(ObstacleGrid, T73_CellListsEqualTestingEveryCellAgainstEveryObstacle) {
  auto rng = math::Rng::seeded(91, 4);
  std::int32_t compared = 0, listed = 0, whole_axis = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const bool wrap = trial % 2 == 0;
    // Worlds from under one cell (a reach spanning every cell, seen across the seam) to large.
    const real width = trial % 5 == 0 ? rng.uniform(3, 20) : rng.uniform(20, 300);
    const real height = trial % 7 == 0 ? rng.uniform(3, 20) : rng.uniform(20, 300);
    const Scenario s = random_scene(rng, wrap, width, height, 1 + rng.range(0, 40));
    const real reach = rng.uniform(0.5, 25);
    ObstacleGrid grid;
    grid.build(s, reach);
    whole_axis += 2 * (reach + 6) >= width || 2 * (reach + 6) >= height;
    for (std::int32_t cy = 0; cy < grid.rows(); ++cy) {
      for (std::int32_t cx = 0; cx < grid.columns(); ++cx) {
        const std::vector<Circle> want = every_pair(s, reach, grid.columns(), grid.rows(), cx, cy);
        const std::span<const Circle> got = grid.cell(cx, cy);
        ASSERT_EQ(got.size(), want.size()) << "trial " << trial << " cell " << cx << "," << cy;
        for (std::size_t k = 0; k < want.size(); ++k) {
          EXPECT_EQ(got[k].center.x, want[k].center.x);
          EXPECT_EQ(got[k].center.y, want[k].center.y);
          EXPECT_EQ(got[k].radius, want[k].radius);
        }
        ++compared;
        listed += static_cast<std::int32_t>(want.size());
      }
    }
  }
  EXPECT_GT(compared, 20000);
  EXPECT_GT(listed, 10000);  // the comparison saw full lists, not only empty cells
  EXPECT_GT(whole_axis, 5);  // and worlds where the reach spans an axis
}

TEST(ObstacleGrid, OverlapsIsTheSpawnRuleOverEveryObstacle) {
  // The spawn rule: plain distance to each obstacle's own centre (never a torus image). Points in
  // and outside the world, radii below and above the reach (the cell list is only used where it
  // is sure to hold every obstacle that can overlap).
  auto rng = math::Rng::seeded(17, 2);
  std::int32_t inside = 0, checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const bool wrap = trial % 2 == 1;
    const Scenario s = random_scene(rng, wrap, rng.uniform(10, 200), rng.uniform(10, 200), 1 + rng.range(0, 60));
    const real reach = rng.uniform(1, 12);
    ObstacleGrid grid;
    grid.build(s, reach);
    for (int q = 0; q < 400; ++q) {
      const Vec2 p{rng.uniform(-0.05, 1.05) * s.width, rng.uniform(-0.05, 1.05) * s.height};
      const real radius = rng.uniform(0, 1.5 * reach);
      bool want = false;
      for (const Circle& c : s.obstacles)
        want = want || math::distance_sq(p, c.center) < (c.radius + radius) * (c.radius + radius);
      EXPECT_EQ(grid.overlaps(p, radius), want) << "trial " << trial << " p " << p.x << "," << p.y;
      inside += want;
      ++checked;
    }
  }
  EXPECT_GT(inside, checked / 10);  // both answers were exercised
  EXPECT_LT(inside, checked - checked / 10);
}

TEST(ObstacleGrid, NearListsThePointsCellAndNothingWithoutObstacles) {
  Scenario s;
  s.width = s.height = 40;
  s.grid_cell = 10;
  s.obstacles = {{{5, 5}, 1}, {{35, 35}, 1}};
  ObstacleGrid grid;
  grid.build(s, 2);
  ASSERT_EQ(grid.columns(), 4);
  EXPECT_EQ(grid.near({4, 6}).size(), 1u);  // only the obstacle beside it
  EXPECT_EQ(grid.near({4, 6})[0].center.x, 5);
  EXPECT_TRUE(grid.near({20, 20}).empty());                        // nothing within reach of the middle cells
  EXPECT_EQ(grid.near({-3, 1e9}).size(), grid.cell(0, 3).size());  // outside: the nearest edge cell
  s.obstacles.clear();
  grid.build(s, 2);
  EXPECT_TRUE(grid.empty());
  EXPECT_TRUE(grid.near({5, 5}).empty());
}

TEST(ObstacleGrid, T73_CellOfIsTheNeighbourGridsCellWhereTheyShareColumnsAndRows) {
  // The world reads an agent's obstacles from the cell its neighbour grid sorted it into
  // (stage_compose_behaviors.cpp), which is exact only if both grids put every point in the same cell.
  // Points on and one ulp around every cell border, and outside the world, in 40 random worlds,
  // sorted by Grid::rebuild as the world sorts its agents.
  auto rng = math::Rng::seeded(23, 9);
  std::size_t compared = 0;
  for (int w = 0; w < 40; ++w) {
    Scenario s = random_scene(rng, w % 2 == 0, rng.uniform(10, 400), rng.uniform(10, 400), 3);
    s.grid_cell = rng.uniform(4, 13);  // >= 4 m: the obstacle grid's cells are then the scenario's
    ObstacleGrid obstacles;
    obstacles.build(s, 5);
    std::vector<Vec2> points;
    const auto borders = static_cast<std::int32_t>(std::floor(s.width / s.grid_cell));
    for (std::int32_t c = 0; c <= borders; ++c) {
      const real x = s.width * c / borders;
      for (const real px : {std::nextafter(x, -1e9), x, std::nextafter(x, 1e9)}) {
        const real py = rng.uniform(-0.2, 1.2) * s.height;
        points.push_back({px, py});
        points.push_back({py / s.height * s.width, px / s.width * s.height});
      }
    }
    Grid grid;
    grid.init(s.width, s.height, s.grid_cell, s.wrap, static_cast<std::int32_t>(points.size()));
    grid.rebuild(points);
    ASSERT_EQ(obstacles.columns(), grid.columns());
    ASSERT_EQ(obstacles.rows(), grid.rows());
    for (std::size_t i = 0; i < points.size(); ++i)
      EXPECT_EQ(obstacles.cell_of(points[i]), grid.agent_cell(static_cast<std::int32_t>(i)))
          << points[i].x << " " << points[i].y;
    compared += points.size();
  }
  EXPECT_GT(compared, 1000u);
}

}  // namespace
}  // namespace flockstep::sim
