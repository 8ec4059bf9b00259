// The scene's rules over the plain view state (view/scene_rules.hpp): which agents are labelled,
// with what, and how they are drawn. No WebGL and no viewer: the view state and the world are
// plain data.
#include "view/scene_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "view/palette.hpp"

namespace flockstep::client {
namespace {

sim::Scenario two_groups(std::int32_t per_group) {
  sim::Scenario s;
  s.name = "test";
  s.width = 100;
  s.height = 100;
  sim::GroupSpec chase;
  chase.name = "hounds: they chase you";
  chase.kind = sim::AgentKind::kPursuer;
  chase.technique = sim::Technique::kPursue;
  chase.count = per_group;
  sim::GroupSpec flock;
  flock.name = "flock";
  flock.kind = sim::AgentKind::kFlock;
  flock.technique = sim::Technique::kFlock;
  flock.count = per_group;
  s.groups = {chase, flock};
  return s;
}

DrawAgent agent(std::uint32_t id, sim::AgentKind kind, std::int32_t group, math::Vec2 p) {
  DrawAgent a;
  a.id = id;
  a.kind = kind;
  a.group = group;
  a.position = p;
  return a;
}

// A 100 x 100 CSS px canvas looking at the whole 100 m world (1 px per m).
ViewState whole_world() {
  ViewState v;
  v.cam.cx = 50;
  v.cam.cy = 50;
  v.cam.zoom = 1;
  v.cam.width = 100;
  v.cam.height = 100;
  return v;
}

std::vector<std::string> texts(const std::vector<LabelCandidate>& c) {
  std::vector<std::string> out;
  for (const LabelCandidate& l : c) out.push_back(l.text);
  std::sort(out.begin(), out.end());
  return out;
}

LabelScene scene_of(const std::vector<DrawAgent>& agents, const sim::Scenario& s, const ViewState& v,
                    const std::unordered_map<std::uint32_t, std::string>& names) {
  LabelScene scene;
  scene.agents = &agents;
  scene.scenario = &s;
  scene.view = &v;
  scene.names = &names;
  scene.width_css = 100;
  scene.height_css = 100;
  return scene;
}

TEST(SceneRules, SmallRoomsLabelEveryAgentWithItsGroupAndTechnique) {
  const sim::Scenario s = two_groups(1);
  EXPECT_TRUE(label_groups(s, -1)) << "one agent per group: a gallery";
  EXPECT_FALSE(label_groups(s, 0)) << "labels switched off";
  const ViewState v = whole_world();
  const std::vector<DrawAgent> agents = {agent(1, sim::AgentKind::kPursuer, 0, {20, 20}),
                                         agent(2, sim::AgentKind::kFlock, 1, {60, 60})};
  const std::unordered_map<std::uint32_t, std::string> names;
  const std::vector<std::string> got = texts(agent_labels(scene_of(agents, s, v, names)));
  // The caption drops the part after ": " and names the technique; a name equal to the technique
  // is not repeated.
  EXPECT_EQ(got, (std::vector<std::string>{"flock", "hounds \xC2\xB7 pursue"}));
}

TEST(SceneRules, BigRoomsLabelOneMemberPerGroupThePlayersAndTheFollowedAgent) {
  const sim::Scenario s = two_groups(50);
  EXPECT_FALSE(label_groups(s, -1));
  ViewState v = whole_world();
  std::vector<DrawAgent> agents;
  for (std::uint32_t i = 0; i < 10; ++i) agents.push_back(agent(10 + i, sim::AgentKind::kFlock, 1, {10.0 + i, 50}));
  agents.push_back(agent(99, sim::AgentKind::kPlayer, -1, {80, 80}));
  agents.push_back(agent(98, sim::AgentKind::kPlayer, -1, {200, 200}));  // off screen: no label
  const std::unordered_map<std::uint32_t, std::string> names = {{99, "ada"}, {98, "bob"}};
  std::vector<LabelCandidate> c = agent_labels(scene_of(agents, s, v, names));
  EXPECT_EQ(texts(c), (std::vector<std::string>{"ada", "flock"})) << "one caption for ten flock members";
  // The caption sits on the member nearest the group's mean (x = 14.5: agent 14 or 15).
  const auto flock = std::find_if(c.begin(), c.end(), [](const LabelCandidate& l) { return l.text == "flock"; });
  EXPECT_NEAR(flock->x, 14.5, 0.51);
  // Following one member labels it with top priority, and the group caption moves off it.
  v.follow_id = 12;
  c = agent_labels(scene_of(agents, s, v, names));
  const auto followed = std::find_if(c.begin(), c.end(), [](const LabelCandidate& l) { return l.priority == 6; });
  ASSERT_NE(followed, c.end());
  EXPECT_EQ(followed->text, "flock");
  EXPECT_NEAR(followed->x, 12, 1e-9);
}

TEST(SceneRules, TheOwnCraftIsLabelledFromItsPredictionNotItsSnapshot) {
  const sim::Scenario s = two_groups(50);
  const ViewState v = whole_world();
  const std::vector<DrawAgent> agents = {agent(7, sim::AgentKind::kPlayer, -1, {50, 50})};
  const std::unordered_map<std::uint32_t, std::string> names = {{7, "me"}};
  LabelScene scene = scene_of(agents, s, v, names);
  scene.own_entity = 7;
  EXPECT_EQ(agent_labels(scene).size(), 1u) << "no prediction yet: the snapshot is labelled";
  scene.own_predicted = true;
  EXPECT_TRUE(agent_labels(scene).empty());
  EXPECT_EQ(color_of(agents[0], s, 7).r, palette::kOwnCraft.r);
  EXPECT_EQ(color_of(agents[0], s, 0).r, palette::kOtherPlayer.r);
}

TEST(SceneRules, ShapesAndSizesFollowKindAndMovementModel) {
  sim::Scenario s = two_groups(1);
  s.groups[1].radius = 2;
  EXPECT_EQ(shape_of(agent(1, sim::AgentKind::kPursuer, 0, {})), Shape::kArrow);
  EXPECT_EQ(shape_of(agent(1, sim::AgentKind::kFlock, 1, {})), Shape::kBoid);
  EXPECT_EQ(shape_of(agent(1, sim::AgentKind::kPlayer, -1, {})), Shape::kDart);
  EXPECT_FLOAT_EQ(scale_of(agent(1, sim::AgentKind::kFlock, 1, {}), s), 3.2f) << "radius x 1.6";
  EXPECT_FLOAT_EQ(scale_of(agent(1, sim::AgentKind::kPlayer, -1, {}), s),
                  static_cast<float>(s.player_craft.length * 0.75));
}

TEST(SceneRules, MinimapIsAQuarterOfTheShorterSideWithinBoundsInTheBottomRightCorner) {
  // A phone at 2 device px per CSS px: 780 x 1688 device px, a 195 px square.
  const ScreenBox phone = minimap_box(780, 1688);
  EXPECT_DOUBLE_EQ(phone.w, 195);
  EXPECT_DOUBLE_EQ(phone.h, 195);
  EXPECT_DOUBLE_EQ(phone.x + phone.w + kMinimapPadPx, 780);
  EXPECT_DOUBLE_EQ(phone.y + phone.h + kMinimapPadPx, 1688);
  // Bounded on both sides: a desktop canvas and a tiny one.
  EXPECT_DOUBLE_EQ(minimap_box(1280, 800).w, kMinimapMaxPx);
  EXPECT_DOUBLE_EQ(minimap_box(200, 300).w, kMinimapMinPx);
}

}  // namespace
}  // namespace flockstep::client
