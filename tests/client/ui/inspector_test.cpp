// make_inspector and make_legend: what the inspector panel and the legend show comes from the
// snapshot's agent and the scenario, and nothing is invented.
#include "ui/inspector.hpp"

#include <gtest/gtest.h>

#include "view/palette.hpp"

namespace flockstep::client {
namespace {

sim::Scenario two_groups() {
  sim::Scenario s;
  sim::GroupSpec rabbit;
  rabbit.name = "rabbit";
  rabbit.kind = sim::AgentKind::kWanderer;
  rabbit.technique = sim::Technique::kWander;
  rabbit.count = 1;
  sim::GroupSpec hound;
  hound.name = "hound";
  hound.kind = sim::AgentKind::kPursuer;
  hound.technique = sim::Technique::kPursue;
  hound.count = 2;
  hound.max_speed = 7;
  s.groups = {rabbit, hound};
  s.walls = {{{0, 0}, {10, 0}}};
  return s;
}

TEST(Inspector, ShowsTheAgentsGroupTechniqueStateAndTarget) {
  const sim::Scenario s = two_groups();
  DrawAgent prey;
  prey.id = 7;
  prey.group = 0;
  DrawAgent a;
  a.id = 9;
  a.kind = sim::AgentKind::kPursuer;
  a.group = 1;
  a.velocity = {3, 4};
  a.orientation = math::kPi / 2;
  a.position = {1, 2};
  a.aim = {5, 6};
  a.target = 7;
  a.state = sim::BehaviorState::kIntercepting;
  const InspectorData d = make_inspector(a, s, "", &prey);
  EXPECT_EQ(d.id, 9u);
  EXPECT_EQ(d.group, "hound");
  EXPECT_EQ(d.kind, "pursuer");
  EXPECT_EQ(d.technique, "pursue");
  EXPECT_EQ(d.state, "intercepting");
  EXPECT_DOUBLE_EQ(d.speed, 5);
  EXPECT_DOUBLE_EQ(d.max_speed, 7);
  EXPECT_NEAR(d.heading_deg, 90, 1e-9);
  EXPECT_EQ(d.target, 7u);
  EXPECT_EQ(d.target_group, "rabbit");
  EXPECT_DOUBLE_EQ(d.aim.x, 5);
  EXPECT_FALSE(d.behaviour_forces.has_value());  // no trace received: nothing invented
  EXPECT_EQ(d.model, "vehicle");
  ASSERT_FALSE(d.composition.empty());  // the preset's behaviours, as the world runs them
}

/// A steering-model group of two behaviours and a trace of its agent 9.
sim::Scenario pair_group() {
  sim::Scenario s;
  sim::GroupSpec g;
  g.name = "pair";
  g.kind = sim::AgentKind::kWanderer;
  g.technique = sim::Technique::kComposed;
  g.model = sim::Model::kSteering;
  g.mass = 2;
  g.max_force = 10;
  sim::BehaviorSpec a, b;
  a.type = sim::BehaviorType::kDynamicSeek;
  a.weight = 1;
  b.type = sim::BehaviorType::kSeparation;
  b.weight = 0.5;
  b.priority = 1;
  g.compose.behaviors = {a, b};
  g.compose.combiner = sim::Combiner::kBlend;
  s.groups = {g};
  return s;
}

sim::SteeringTrace trace_of_9() {
  sim::SteeringTrace t;
  t.agent = sim::AgentId{9};
  t.tick = 42;
  t.group = 0;
  t.count = 2;
  t.behaviors[0] = {sim::BehaviorType::kDynamicSeek, true, {{3, 4}, 0}, 1};
  t.behaviors[1] = {sim::BehaviorType::kSeparation, false, {}, 0.5};
  t.result = {{3, 4}, 0.25};
  return t;
}

TEST(Inspector, T77_BreakdownIsTheTraceUnchangedWithWeightsColoursAndUnit) {
  DrawAgent a;
  a.id = 9;
  a.group = 0;
  const sim::SteeringTrace t = trace_of_9();
  const InspectorData d = make_inspector(a, pair_group(), "", nullptr, &t);
  EXPECT_EQ(d.model, "steering");
  EXPECT_EQ(d.combiner, "blend");
  ASSERT_EQ(d.composition.size(), 2u);
  EXPECT_EQ(d.composition[1].type, "separation");
  EXPECT_EQ(d.composition[1].priority, 1);
  ASSERT_TRUE(d.behaviour_forces.has_value());
  const ForceBreakdown& f = *d.behaviour_forces;
  EXPECT_EQ(f.tick, 42u);
  EXPECT_EQ(f.unit, "m/s\xC2\xB2");
  EXPECT_DOUBLE_EQ(f.budget, 5);  // max_force / mass
  ASSERT_EQ(f.behaviours.size(), 2u);
  EXPECT_EQ(f.behaviours[0].type, "dynamic_seek");
  EXPECT_TRUE(f.behaviours[0].evaluated);
  EXPECT_EQ(f.behaviours[0].raw, (math::Vec2{3, 4}));
  EXPECT_FALSE(f.behaviours[1].evaluated);
  EXPECT_DOUBLE_EQ(f.behaviours[1].weight, 0.5);
  EXPECT_NE(f.behaviours[0].color, f.behaviours[1].color);
  EXPECT_DOUBLE_EQ(f.result_angular, 0.25);
  // A budget-long vector is kForceArrowPx long; longer ones stop at twice that.
  EXPECT_DOUBLE_EQ(force_arrow_px({3, 4}, f.budget), kForceArrowPx);
  EXPECT_DOUBLE_EQ(force_arrow_px({300, 400}, f.budget), 2 * kForceArrowPx);
  EXPECT_DOUBLE_EQ(force_arrow_px({0, 0}, f.budget), 0);
}

TEST(Inspector, ATraceOfAnotherAgentOrARefusalShowsNoNumbers) {
  DrawAgent a;
  a.id = 10;
  a.group = 0;
  const sim::SteeringTrace t = trace_of_9();
  EXPECT_FALSE(make_inspector(a, pair_group(), "", nullptr, &t).behaviour_forces.has_value());
  a.id = 9;
  const InspectorData refused = make_inspector(a, pair_group(), "", nullptr, &t, false);
  ASSERT_TRUE(refused.behaviour_forces.has_value());
  EXPECT_FALSE(refused.behaviour_forces->available);
  EXPECT_TRUE(refused.behaviour_forces->behaviours.empty());
}

TEST(Inspector, UnknownGroupAndUndrawnTargetStayEmpty) {
  DrawAgent a;
  a.group = 5;
  a.target = 3;
  const InspectorData d = make_inspector(a, two_groups(), "ann", nullptr);
  EXPECT_EQ(d.name, "ann");
  EXPECT_TRUE(d.group.empty());
  EXPECT_TRUE(d.technique.empty());
  EXPECT_TRUE(d.target_group.empty());
  EXPECT_EQ(d.state, "none");
}

TEST(Legend, KindsGroupsAndLayersWithItems) {
  const sim::Scenario s = two_groups();
  const Legend l = make_legend(s, build_world_layers(s));
  ASSERT_EQ(l.groups.size(), 2u);
  EXPECT_EQ(l.groups[1].name, "hound");
  EXPECT_EQ(l.groups[1].detail, "pursue");
  EXPECT_EQ(l.groups[1].count, 2);
  EXPECT_EQ(l.groups[1].color.r, palette::kPursuer.r);
  // Players (anyone may join), wanderers and pursuers; no flock or patrol in this scenario.
  ASSERT_EQ(l.kinds.size(), 3u);
  EXPECT_EQ(l.kinds[0].name, "player");
  EXPECT_EQ(l.kinds[1].name, "pursuer");
  EXPECT_EQ(l.kinds[2].name, "wanderer");
  ASSERT_EQ(l.layers.size(), 1u);  // only walls have items
  EXPECT_EQ(l.layers[0].name, "walls");
  EXPECT_EQ(l.layers[0].detail, "Y");
  EXPECT_EQ(l.layers[0].count, 1);
}

}  // namespace
}  // namespace flockstep::client
