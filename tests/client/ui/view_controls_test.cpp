// The view's options and keys as functions over the plain view state (ui/view_controls.hpp).
#include "ui/view_controls.hpp"

#include <gtest/gtest.h>

namespace flockstep::client {
namespace {

ControlOutcome key(ViewState& v, std::string_view code, bool playing = false, bool shift = false) {
  return apply_key(v, KeyContext{playing, false}, code, "", shift);
}

TEST(ViewControls, ToggleKeysChangeTheViewAndAIsASteeringKeyInPlay) {
  ViewState v;
  EXPECT_TRUE(key(v, "KeyA").handled);
  EXPECT_TRUE(v.annotations);
  EXPECT_FALSE(key(v, "KeyA", true).handled) << "A steers the craft";
  EXPECT_TRUE(v.annotations);
  EXPECT_TRUE(key(v, "KeyV", true).handled);
  EXPECT_FALSE(v.annotations);
  key(v, "KeyE");
  EXPECT_TRUE(v.extrapolate);
  key(v, "KeyT");
  EXPECT_FALSE(v.trails);
  key(v, "KeyM");
  EXPECT_FALSE(v.minimap);
  key(v, "Digit2");
  EXPECT_EQ(v.annotation_mask, 0x1Fu & ~2u);
  EXPECT_TRUE(v.annotations) << "a kind key shows annotations";
}

TEST(ViewControls, LayerKeysToggleTheirLayerAndTellThePage) {
  ViewState v;
  const ControlOutcome out = key(v, layer_key(Layer::kWalls));
  EXPECT_STREQ(out.page_command, "prefs");
  EXPECT_FALSE(v.layer_on(Layer::kWalls));
  EXPECT_TRUE(v.layer_on(Layer::kObstacles));
  EXPECT_TRUE(apply_option(v, "layer_walls", 1).handled);
  EXPECT_TRUE(v.layer_on(Layer::kWalls));
  apply_option(v, "layers", 0);
  EXPECT_FALSE(v.layer_on(Layer::kObstacles));
  EXPECT_FALSE(apply_option(v, "no_such_option", 1).handled);
}

TEST(ViewControls, EscapeAndFitReleaseTheCameraAndQInspects) {
  ViewState v;
  apply_option(v, "follow", 42);
  EXPECT_EQ(v.follow_id, 42u);
  EXPECT_EQ(v.inspect_id, 42u) << "follow is a click on it";
  key(v, "KeyQ");
  EXPECT_EQ(v.inspect_id, 0u) << "Q closes the inspector";
  key(v, "KeyQ");
  EXPECT_EQ(v.inspect_id, 42u) << "... and inspects the followed agent";
  EXPECT_EQ(key(v, "KeyQ", true).request, ViewRequest::kNone) << "inspector open: Q closes it in play too";
  EXPECT_EQ(key(v, "KeyQ", true).request, ViewRequest::kInspectNearest);
  EXPECT_STREQ(key(v, "Escape").page_command, "escape");
  EXPECT_EQ(v.follow_id, 0u);
  v.follow_id = 5;
  EXPECT_EQ(key(v, "KeyF").request, ViewRequest::kFit);
  EXPECT_EQ(v.follow_id, 0u);
  EXPECT_FALSE(key(v, "KeyF", true).handled) << "a player's camera follows the craft";
  EXPECT_EQ(key(v, "Tab", false, true).request, ViewRequest::kCyclePrevious);
  EXPECT_EQ(apply_option(v, "paused", 1).request, ViewRequest::kPause);
}

TEST(ViewControls, ZoomIsClampedAndLeavesTheFittedView) {
  ViewState v;
  v.at_fit = true;
  apply_option(v, "zoom", 1e9);
  EXPECT_DOUBLE_EQ(v.cam.zoom, ViewState::kMaxZoom);
  EXPECT_FALSE(v.at_fit);
  apply_option(v, "zoom", 4);
  key(v, "Equal");
  EXPECT_DOUBLE_EQ(v.cam.zoom, 5);
}

TEST(ViewControls, CyclingPlayersWrapsByIdAndPickingFindsTheNearestAgent) {
  std::vector<DrawAgent> agents(4);
  const std::uint32_t ids[] = {30, 10, 20, 5};
  for (int i = 0; i < 4; ++i) {
    agents[i].id = ids[i];
    agents[i].kind = i == 3 ? sim::AgentKind::kFlock : sim::AgentKind::kPlayer;
    agents[i].position = {static_cast<double>(i) * 10, 0};
  }
  EXPECT_EQ(next_player(agents, 0, 1), 10u);
  EXPECT_EQ(next_player(agents, 10, 1), 20u);
  EXPECT_EQ(next_player(agents, 30, 1), 10u) << "wraps";
  EXPECT_EQ(next_player(agents, 10, -1), 30u);
  EXPECT_EQ(next_player({}, 10, 1), 0u);
  EXPECT_EQ(agent_at(agents, {9, 1}, 3), 10u);
  EXPECT_EQ(agent_at(agents, {5, 0}, 3), 0u) << "nobody within 3 m";
}

TEST(ViewControls, APanStopsFollowingAndAZoomKeepsThePointUnderTheFingers) {
  ViewState v;
  v.cam = {50, 50, 2, 200, 100};
  v.follow_id = 3;
  pan_zoom(v, 20, 0, 1, 0, 0);
  EXPECT_EQ(v.follow_id, 0u);
  EXPECT_DOUBLE_EQ(v.cam.cx, 40);
  const math::Vec2 before = v.cam.to_world(30, 70);
  pan_zoom(v, 0, 0, 2, 30, 70);
  EXPECT_DOUBLE_EQ(v.cam.zoom, 4);
  const math::Vec2 after = v.cam.to_world(30, 70);
  EXPECT_NEAR(after.x, before.x, 1e-9);
  EXPECT_NEAR(after.y, before.y, 1e-9);
}

}  // namespace
}  // namespace flockstep::client
