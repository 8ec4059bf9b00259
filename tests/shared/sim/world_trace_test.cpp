// Steering traces (World::set_traced / traces): the inspector's per-behaviour breakdown. Each
// raw output must be exactly what the library function returns for the agent's state, the
// result exactly what the combiner made of them, and tracing must not change the simulation.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "flockstep/behavior/blend.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/sim/world.hpp"
#include "world_test_util.hpp"

namespace flockstep::sim {
namespace {

using test::composed;

BehaviorSpec to_goal(BehaviorType t, Vec2 goal, real weight) {
  BehaviorSpec b;
  b.type = t;
  b.weight = weight;
  b.goal = goal;
  return b;
}

World make(const Scenario& s) {
  EXPECT_EQ(validate(s), "");
  return World(s);
}

/// One steering-model agent blending a dynamic seek (east) and a dynamic arrive (north).
Scenario seek_and_arrive(Combiner c) {
  Scenario s = test::open_world("trace", 200, 200, 64, 2);
  s.groups.push_back(composed(
      "pair", Model::kSteering,
      {to_goal(BehaviorType::kDynamicSeek, {190, 100}, 1.0), to_goal(BehaviorType::kDynamicArrive, {100, 190}, 0.5)},
      {100, 100}, c));
  return s;
}

TEST(SteeringTrace, T77_RawOutputsAreTheLibrarysAndTheResultIsTheirClippedBlend) {
  const Scenario s = seek_and_arrive(Combiner::kBlend);
  World w = make(s);
  const GroupSpec& g = w.scenario().groups[0];
  const BehaviorSpec& seek = g.compose.behaviors[0];
  const BehaviorSpec& arrive = g.compose.behaviors[1];
  for (int t = 0; t < 30; ++t) w.step();  // under way: non-zero velocity and orientation
  const AgentView a = test::nth_agent(w, 0);
  const AgentId ids[] = {a.id};
  w.set_traced(ids);
  // What the library says for the state the step starts from.
  const behavior::Kinematic k{a.position, a.orientation, a.velocity, a.angular_velocity};
  const real accel = g.max_force / g.mass;
  const behavior::SteeringOutput want_seek = behavior::dynamic_seek(k, seek.goal, {accel});
  behavior::ArriveParams ap;
  ap.max_acceleration = accel;
  ap.max_speed = g.max_speed;
  ap.slow_radius = arrive.slow_radius;
  ap.target_radius = arrive.target_radius;
  ap.time_to_target = arrive.time_to_target;
  ap.brake_inside_target = true;
  const behavior::SteeringOutput want_arrive = behavior::dynamic_arrive(k, arrive.goal, ap);
  const behavior::SteeringOutput outs[] = {want_seek, want_arrive};
  const real weights[] = {seek.weight, arrive.weight};
  const behavior::SteeringOutput want = behavior::blend_steering(outs, weights, {accel, g.compose.max_angular});

  w.step();
  ASSERT_EQ(w.traces().size(), 1u);
  const World::SteeringTrace& tr = w.traces()[0];
  EXPECT_EQ(tr.agent, a.id);
  EXPECT_EQ(tr.tick, w.tick());
  EXPECT_EQ(tr.group, 0);
  ASSERT_EQ(tr.count, 2);
  EXPECT_TRUE(tr.behaviors[0].evaluated);
  EXPECT_TRUE(tr.behaviors[1].evaluated);
  // Bit for bit: the trace is the kernels' own output, not a recomputation.
  EXPECT_EQ(tr.behaviors[0].raw.linear.x, want_seek.linear.x);
  EXPECT_EQ(tr.behaviors[0].raw.linear.y, want_seek.linear.y);
  EXPECT_EQ(tr.behaviors[1].raw.linear.x, want_arrive.linear.x);
  EXPECT_EQ(tr.behaviors[1].raw.linear.y, want_arrive.linear.y);
  EXPECT_EQ(tr.behaviors[0].weight, 1.0);
  EXPECT_EQ(tr.behaviors[1].weight, 0.5);
  EXPECT_EQ(tr.result.linear.x, want.linear.x);
  EXPECT_EQ(tr.result.linear.y, want.linear.y);
  EXPECT_EQ(tr.result.angular, want.angular);
  // The two directions really differ, so a swapped or shared slot would fail above.
  EXPECT_GT(want_seek.linear.x, 0);
  EXPECT_GT(want_arrive.linear.y, 0);
}

TEST(SteeringTrace, T78_PriorityTraceShowsTheLaterBehaviourSkipped) {
  // Priority: seek east decides (non-zero), so arrive north is never evaluated. Tracing must
  // report that (the combiner's laziness), not an output it never computed.
  World w = make(seek_and_arrive(Combiner::kPriority));
  const AgentId ids[] = {test::nth_agent(w, 0).id};
  w.set_traced(ids);
  w.step();
  const World::SteeringTrace& tr = w.traces()[0];
  ASSERT_EQ(tr.count, 2);
  EXPECT_TRUE(tr.behaviors[0].evaluated);
  EXPECT_FALSE(tr.behaviors[1].evaluated);
  EXPECT_DOUBLE_EQ(tr.result.linear.x, tr.behaviors[0].raw.linear.x * tr.behaviors[0].weight);
  // Control: with seek's weight at 0 the second behaviour is the one evaluated.
  Scenario s = seek_and_arrive(Combiner::kPriority);
  s.groups[0].compose.behaviors[0].weight = 0;
  World w2 = make(s);
  w2.set_traced(ids);
  w2.step();
  EXPECT_FALSE(w2.traces()[0].behaviors[0].evaluated);
  EXPECT_TRUE(w2.traces()[0].behaviors[1].evaluated);
}

/// A busy mixed world: a flock, lazy combiners with random behaviours, priorities.
Scenario mixed() {
  Scenario s = test::open_world("trace_mixed", 300, 300, 400, 2);
  GroupSpec flock = composed("flock", Model::kVehicle, {}, {50, 50}, Combiner::kRunningSum, 150);
  flock.kind = AgentKind::kFlock;
  flock.spawn_max = {250, 250};
  BehaviorSpec fb;
  fb.type = BehaviorType::kFlock;
  BehaviorSpec wander;
  wander.type = BehaviorType::kWander;
  wander.weight = 0.5;
  flock.compose.behaviors = {fb, wander};
  s.groups.push_back(flock);
  GroupSpec dither = composed(
      "dither", Model::kSteering,
      {to_goal(BehaviorType::kDynamicSeek, {280, 150}, 1), to_goal(BehaviorType::kDynamicArrive, {150, 280}, 1)},
      {100, 100}, Combiner::kDither, 40);
  dither.spawn_max = {200, 200};
  dither.compose.behaviors[0].probability = 0.5;
  s.groups.push_back(dither);
  s.groups.push_back(composed("prio", Model::kVehicle,
                              {to_goal(BehaviorType::kSeek, {20, 20}, 1), to_goal(BehaviorType::kSeek, {280, 280}, 1)},
                              {150, 150}, Combiner::kPriority, 20));
  return s;
}

TEST(SteeringTrace, TracingNeverChangesTheSimulation) {
  const Scenario s = mixed();
  World plain = make(s), traced = make(s);
  std::vector<AgentId> ids;
  for (std::int32_t g = 0; g < 3; ++g) ids.push_back(test::nth_agent(traced, g, 3).id);
  ids.push_back(test::nth_agent(traced, 0, 4).id);  // two traced agents of one batch
  traced.set_traced(ids);
  std::int32_t evaluated = 0;
  for (int t = 0; t < 120; ++t) {
    plain.step();
    traced.step();
    for (const World::SteeringTrace& tr : traced.traces()) {
      EXPECT_EQ(tr.tick, traced.tick());
      for (std::int32_t q = 0; q < tr.count; ++q) evaluated += tr.behaviors[q].evaluated ? 1 : 0;
    }
  }
  EXPECT_EQ(plain.state_hash(), traced.state_hash());
  // Control: the traces were really taken (so the hash comparison covered tracing).
  EXPECT_GT(evaluated, 120 * 3);
}

TEST(SteeringTrace, T81_DitherTraceFollowsTheDraws) {
  const Scenario s = mixed();
  World w = make(s);
  const AgentId ids[] = {test::nth_agent(w, 1, 0).id};
  w.set_traced(ids);
  int taken = 0, skipped = 0;
  for (int t = 0; t < 200; ++t) {
    w.step();
    (w.traces()[0].behaviors[0].evaluated ? taken : skipped)++;
  }
  EXPECT_GT(taken, 40);
  EXPECT_GT(skipped, 40);
}

TEST(SteeringTrace, OneControllerModelsAndGoneAgentsHaveNoBreakdown) {
  Scenario s = seek_and_arrive(Combiner::kBlend);
  GroupSpec straight;
  straight.name = "straight";
  straight.kind = AgentKind::kWanderer;
  straight.technique = Technique::kStraight;
  straight.count = 1;
  straight.spawn_min = straight.spawn_max = {50, 50};
  straight.max_speed = 2;
  s.groups.push_back(straight);
  World w = make(s);
  const AgentId pair = test::nth_agent(w, 0).id;
  const AgentId line = test::nth_agent(w, 1).id;
  const AgentId ids[] = {line, pair};
  w.set_traced(ids);
  w.step();
  ASSERT_EQ(w.traces().size(), 2u);
  EXPECT_EQ(w.traces()[0].group, 1);
  EXPECT_EQ(w.traces()[0].count, 0);
  EXPECT_EQ(w.traces()[0].tick, w.tick());
  EXPECT_EQ(w.traces()[1].count, 2);
  w.remove(pair);
  w.step();
  EXPECT_EQ(w.traces()[1].group, -1);
  EXPECT_EQ(w.traces()[1].count, 0);
  // Stopping: an empty list traces nothing.
  w.set_traced({});
  EXPECT_TRUE(w.traces().empty());
}

}  // namespace
}  // namespace flockstep::sim
