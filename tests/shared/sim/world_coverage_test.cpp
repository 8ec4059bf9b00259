// Coverage by execution (World::technique_counts): a technique counts only in the agent-ticks in
// which its code ran, never because a scenario configures it.
#include <gtest/gtest.h>

#include <cmath>

#include "flockstep/behavior/bourg_flocking.hpp"

#include "flockstep/sim/techniques.hpp"
#include "flockstep/sim/world.hpp"
#include "world_test_util.hpp"

namespace flockstep::sim {
namespace {

using test::open_world;
using test::placed;

std::int64_t count_of(const World& w, int id) { return w.technique_counts()[static_cast<std::size_t>(id - 1)]; }

void run(World& w, int ticks) {
  for (int t = 0; t < ticks; ++t) w.step();
}

TEST(Coverage, T37_CountsOneAgentTickPerAgentAndTick) {
  Scenario s = open_world("seekers", 200, 200, 16, 1);
  s.groups.push_back(placed("seekers", AgentKind::kPursuer, Technique::kKinematicSeek, {20, 20}, 5));
  World w(s);
  run(w, 10);
  EXPECT_EQ(count_of(w, 37), 0);  // no player, no goal: nothing to seek
  const AgentId p = w.add_player();
  ASSERT_TRUE(p.valid());
  run(w, 30);
  EXPECT_EQ(count_of(w, 37), 5 * 30);
  EXPECT_EQ(count_of(w, 3), 5 * 40);  // the kinematic update ran every tick for all five
  EXPECT_EQ(count_of(w, 64), 0);      // nothing else
}

TEST(Coverage, T73_T75_AvoidanceWithNothingToAvoidCountsNothing) {
  // Wanderers run the preset wall_avoid, obstacle_avoid, flee_players, wander layers. A wrapping
  // room has no walls at all (a solid one has its four borders as walls, which the feelers do test).
  Scenario s = open_world("empty", 200, 200, 16, 1);
  s.wrap = true;
  s.groups.push_back(placed("wanderers", AgentKind::kWanderer, Technique::kWander, {100, 100}, 4));
  World empty(s);
  run(empty, 60);
  EXPECT_EQ(count_of(empty, 73), 0);
  EXPECT_EQ(count_of(empty, 11), 0);
  EXPECT_EQ(count_of(empty, 75), 0);
  EXPECT_EQ(count_of(empty, 71), 4 * 60);
  EXPECT_EQ(count_of(empty, 79), 4 * 60);
  // Control: with a rock under them and a wall beside them the same kernels do work.
  s.obstacles.push_back({{100, 104}, 2});
  s.walls.push_back({{90, 80}, {90, 120}});
  World rocky(s);
  run(rocky, 60);
  EXPECT_GT(count_of(rocky, 73), 0);
  EXPECT_GT(count_of(rocky, 11), 0);
  EXPECT_GT(count_of(rocky, 75), 0);
}

TEST(Coverage, T65_APanicRangeOfZeroNeverFlees) {
  Scenario s = open_world("calm", 200, 200, 16, 1);
  s.groups.push_back(placed("wanderers", AgentKind::kWanderer, Technique::kWander, {100, 100}, 3));
  s.groups[0].panic_range = 0;
  World calm(s);
  const AgentId p = calm.add_player();
  calm.place(p, {102, 100});
  run(calm, 60);
  EXPECT_EQ(count_of(calm, 65), 0);
  // Control: a panic range of 8 m with the player 2 m away.
  s.groups[0].panic_range = 8;
  World scared(s);
  const AgentId q = scared.add_player();
  scared.place(q, {102, 100});
  run(scared, 60);
  EXPECT_GT(count_of(scared, 65), 0);
}

TEST(Coverage, T13_OnlyBinomialDrawsCount) {
  // The slides' wander (T71) draws uniform numbers; kinematic wander (T40) draws binomials.
  Scenario s = open_world("wander", 200, 200, 16, 0);
  s.groups.push_back(placed("uniform", AgentKind::kWanderer, Technique::kWander, {50, 100}, 2));
  World uniform(s);
  run(uniform, 30);
  EXPECT_GT(count_of(uniform, 71), 0);
  EXPECT_EQ(count_of(uniform, 13), 0);
  s.groups.push_back(placed("binomial", AgentKind::kWanderer, Technique::kKinematicWander, {150, 100}, 2));
  World both(s);
  run(both, 30);
  EXPECT_EQ(count_of(both, 13), 2 * 30);
  EXPECT_EQ(count_of(both, 40), 2 * 30);
}

TEST(Coverage, CountsDoNotDependOnTheTaskPartition) {
  // More than one task (kAgentsPerTask agents each): the per-task tallies sum to the same totals.
  Scenario s = open_world("many", 400, 400, 1024, 1);
  s.groups.push_back(placed("seekers", AgentKind::kPursuer, Technique::kKinematicSeek, {20, 20}, 600));
  World w(s);
  w.add_player();
  run(w, 3);
  EXPECT_EQ(count_of(w, 37), 600 * 3);
}

TEST(Coverage, ExerciseScenarioIsDeterministic) {
  Scenario s = open_world("seekers", 200, 200, 16, 1);
  s.groups.push_back(placed("seekers", AgentKind::kPursuer, Technique::kKinematicSeek, {20, 20}, 3));
  s.groups.push_back(placed("wanderers", AgentKind::kWanderer, Technique::kWander, {100, 100}, 3));
  const TechniqueCounts a = exercise_scenario(s, 300);
  EXPECT_EQ(a, exercise_scenario(s, 300));
  EXPECT_EQ(a[36], 3 * 300);  // the scripted player joins at tick 0
  EXPECT_GT(a[64], 0);        // and it visits the wanderers close enough to make them panic
}

// ---- counted where the rule produced the tick's result (not by role or configuration) ----

/// AIDemo4 units (T35) in a w x h torus spawned in a small square around (x, y): `followers`
/// only (no leader, no interceptor) unless `roles`.
Scenario demo4_units(std::int32_t n, Vec2 at, real spread, bool roles, real w = 60, real h = 60) {
  Scenario s = open_world("demo4", w, h, 64, 1);
  s.wrap = true;
  s.grid_cell = 8;
  GroupSpec g = placed("units", AgentKind::kPursuer, Technique::kBourgFlock, at, n);
  g.spawn_max = at + Vec2{spread, spread};
  g.craft = behavior::kDemo4Craft;
  g.leader_unit = roles;
  g.interceptor_unit = roles;
  s.groups.push_back(g);
  s.player_craft = g.craft;
  return s;
}

TEST(Coverage, T31_T34_T36_ALoneBourgFollowerWithNoNeighbourInViewAppliesNoRule) {
  World lone(demo4_units(1, {30, 30}, 0, false));
  run(lone, 120);
  EXPECT_EQ(count_of(lone, 35), 120);  // the loop ran every tick
  for (const int id : {31, 32, 33, 34, 36}) EXPECT_EQ(count_of(lone, id), 0) << "T" << id;
  // Control: a tight flock with a leader sees neighbours and the leader, so the same loop counts.
  World flock(demo4_units(6, {28, 28}, 4, true));
  run(flock, 120);
  for (const int id : {31, 32, 33, 34, 36}) EXPECT_GT(count_of(flock, id), 0) << "T" << id;
  EXPECT_LE(count_of(flock, 31), 4 * 120);  // only followers (6 less leader and interceptor)
}

TEST(Coverage, T14_AIDemo4UnitsCountEachCrossingOfTheSeam) {
  // A lone follower flies straight (nothing to steer by) across a 60 m torus: every seam crossing
  // shows as a jump of more than half the world between two ticks, and each is one T14 count.
  World w(demo4_units(1, {30, 30}, 0, false));
  std::int64_t crossings = 0;
  Vec2 last = test::nth_agent(w, 0).position;
  for (int t = 0; t < 60 * 20; ++t) {
    w.step();
    const Vec2 now = test::nth_agent(w, 0).position;
    if (std::abs(now.x - last.x) > 30 || std::abs(now.y - last.y) > 30) ++crossings;
    last = now;
  }
  ASSERT_GT(crossings, 0) << "the unit never reached the seam";
  EXPECT_EQ(count_of(w, 14), crossings);
}

/// A tile map of 4 m tiles, `cols` x `rows`, all free.
Scenario tile_world(std::int32_t cols, std::int32_t rows) {
  Scenario s = open_world("tiles", cols * 4.0, rows * 4.0, 16, 1);
  s.tick_rate_hz = 64;
  s.tiles.cols = cols;
  s.tiles.rows = rows;
  s.tiles.cell = 4;
  s.tiles.blocked.assign(static_cast<std::size_t>(cols * rows), 0);
  return s;
}

GroupSpec tile_group(Technique t, Vec2 at) {
  GroupSpec g = placed("tiles", AgentKind::kPatrol, t, at);
  g.tile_speed = 64;  // one step per tick
  g.chase_range = 0;
  return g;
}

TEST(Coverage, T26_ThePatternIsBuiltOnceAtLoadAndPatrolStepsCountT27) {
  Scenario s = tile_world(20, 20);
  s.tile_patterns = {{"square", {{0, 0}, {0, 5}, {5, 5}, {5, 0}, {0, 0}}, 2, 2}};
  GroupSpec g = tile_group(Technique::kTilePatrol, {});
  g.tile_pattern = 0;
  g.count = 3;
  s.groups.push_back(g);
  ASSERT_EQ(validate(s), "");
  World w(s);
  run(w, 100);
  EXPECT_EQ(count_of(w, 26), 1);  // one pattern, built once
  EXPECT_EQ(count_of(w, 27), 3 * 100);
}

/// A chaser on tile (5, 2) and a player on tile (5, 8); with `wall`, column 5 is blocked on rows
/// 2..8 so the line between them is not clear.
World chase_across(bool wall, AgentId& player) {
  Scenario s = tile_world(12, 12);
  if (wall)
    for (std::int32_t r = 2; r <= 8; ++r) s.tiles.blocked[static_cast<std::size_t>(r * 12 + 5)] = 1;
  s.groups.push_back(tile_group(Technique::kTileChase, {10, 22}));
  EXPECT_EQ(validate(s), "");
  World w(s);
  player = w.add_player();
  w.place(player, {34, 22});
  return w;
}

TEST(Coverage, T22_AStepFoundByTheBreadthFirstFallbackIsNotALineOfSightChase) {
  AgentId p;
  World blocked = chase_across(true, p);
  run(blocked, 1);
  const Vec2 moved = test::nth_agent(blocked, 0).aim;
  EXPECT_FALSE(moved == (Vec2{10, 22})) << "the chaser took a step (around the wall)";
  EXPECT_EQ(count_of(blocked, 22), 0);
  // Control: the same first step with the line clear is the T22 chase.
  World open = chase_across(false, p);
  run(open, 1);
  EXPECT_EQ(count_of(open, 22), 1);
}

TEST(Coverage, T74_HideWithNothingToHideBehindIsCountedAsItsEvadeFallBack) {
  Scenario s = open_world("hide", 200, 200, 16, 1);
  s.groups.push_back(placed("hiders", AgentKind::kWanderer, Technique::kHide, {100, 100}, 2));
  s.groups[0].panic_range = 0;  // the flee layer stays out of the running sum
  World bare(s);
  const AgentId p = bare.add_player();
  bare.place(p, {140, 100});
  run(bare, 30);
  EXPECT_EQ(count_of(bare, 74), 0);
  EXPECT_EQ(count_of(bare, 68), 2 * 30);
  // Control: with a rock to hide behind, hide's own rule runs.
  s.obstacles.push_back({{80, 140}, 4});
  World rocky(s);
  const AgentId q = rocky.add_player();
  rocky.place(q, {140, 100});
  run(rocky, 30);
  EXPECT_GT(count_of(rocky, 74), 0);
}

}  // namespace
}  // namespace flockstep::sim
