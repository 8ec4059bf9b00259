// Coverage by execution (World::technique_counts): a technique counts only in the agent-ticks in
// which its code ran, never because a scenario configures it.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace flockstep::sim
