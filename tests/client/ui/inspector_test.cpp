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
  EXPECT_FALSE(d.behaviour_forces.has_value());  // the server does not send them yet
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
