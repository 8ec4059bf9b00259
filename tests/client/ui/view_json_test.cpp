// What the viewer publishes to the page, as functions of the view state and the world
// (ui/view_json.hpp): the page's HUD, legend, Tune panel and the e2e tests read these fields.
#include "ui/view_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace flockstep::client {
namespace {

using nlohmann::json;

TEST(ViewJson, ViewOptionsAreWhatTheStateSays) {
  ViewState v;
  v.extrapolate = true;
  v.layer_mask &= ~(1u << static_cast<unsigned>(Layer::kPaths));
  v.follow_id = 9;
  json j;
  view_json(j, v, true, 100);
  EXPECT_EQ(j["mode"], "extrapolate");
  EXPECT_EQ(j["interp_delay_ms"], 0) << "extrapolation draws the present";
  EXPECT_EQ(j["layer_on"][layer_name(Layer::kPaths)], false);
  EXPECT_EQ(j["layer_on"][layer_name(Layer::kWalls)], true);
  EXPECT_EQ(j["follow"], 9);
  EXPECT_EQ(j["labels_on"], true);
  v.extrapolate = false;
  view_json(j, v, false, 100);
  EXPECT_EQ(j["interp_delay_ms"], 100);
}

TEST(ViewJson, TheSampleHoldsAtMostEightAgentsNearTheMiddleOfTheView) {
  sim::Scenario s;
  sim::GroupSpec g;
  g.name = "fish";
  s.groups = {g};
  Camera cam{50, 50, 1, 100, 100};  // 100 m across: agents within 40 m of the centre count
  std::vector<DrawAgent> agents(20);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    agents[i].id = static_cast<std::uint32_t>(i + 1);
    agents[i].group = 0;
    agents[i].position = {50.0 + (i % 2 == 0 ? 45.0 : 1.0), 50};  // even ones near the edge
  }
  const json sample = sample_json(agents, cam, s);
  ASSERT_EQ(sample.size(), 8u);
  for (const json& a : sample) {
    EXPECT_EQ(a["id"].get<int>() % 2, 0) << "only odd indices (even ids) are near the middle";
    EXPECT_EQ(a["group"], "fish");
  }
}

TEST(ViewJson, ComposedGroupsPublishEveryBehavioursTunablePaths) {
  sim::Scenario s;
  sim::GroupSpec g;
  g.name = "blend";
  g.technique = sim::Technique::kComposed;
  sim::BehaviorSpec seek;
  seek.type = sim::BehaviorType::kSeek;
  seek.weight = 2;
  g.compose.behaviors = {seek};
  s.groups = {g};
  const json groups = groups_json(s);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]["behaviors"][0]["weight"], 2);
  bool weight_path = false;
  for (const json& p : groups[0]["params"]) weight_path |= p[0] == "behaviors[0].weight" && p[1] == 2;
  EXPECT_TRUE(weight_path) << groups[0]["params"].dump();
  EXPECT_TRUE(groups[0]["labels"].contains("behaviors[0].weight"));
}

TEST(ViewJson, NumbersThatJsonCannotHoldArePublishedAsZero) {
  EXPECT_EQ(json_num(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(json_num(std::numeric_limits<double>::infinity()), 0);
  EXPECT_EQ(json_num(2.5), 2.5);
  std::vector<PlacedLabel> labels(1);
  labels[0].text = "a";
  labels[0].x = 10;
  labels[0].w = 4;
  labels[0].h = std::numeric_limits<double>::quiet_NaN();
  const json j = labels_json(labels);
  EXPECT_EQ(j[0]["x"], 12) << "centred";
  EXPECT_EQ(j[0]["h"], 0);
}

}  // namespace
}  // namespace flockstep::client
