#pragma once
/// \file scene_rules.hpp
/// What the scene draws, as functions of the view state and the world, apart from WebGL: each
/// agent's shape, colour and size, which agents are labelled and with what text. view/scene.cpp
/// draws with them; tests/client/view/scene_rules_test.cpp checks them.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "flockstep/sim/scenario.hpp"
#include "predict/remote_agents.hpp"
#include "view/label_layout.hpp"
#include "view/renderer.hpp"
#include "view/view_state.hpp"

namespace flockstep::client {

/// Rooms with at most this many agents per group label every agent with its group (gallery-
/// style demos, one agent per technique); larger rooms label the followed agent and players.
inline constexpr double kLabelAgentsPerGroup = 3;

/// Agents are drawn at least this tall on screen (device px), so a fitted 400 m world still
/// shows shapes, not dust.
inline constexpr float kMinAgentPx = 9;

/// The minimap's square side: a quarter of the canvas's shorter side, within these bounds, device px.
inline constexpr int kMinimapMinPx = 90, kMinimapMaxPx = 200;
/// ... this far from the canvas's right and bottom edges, device px.
inline constexpr int kMinimapPadPx = 10;
/// The minimap's square in a `width_px` x `height_px` canvas (bottom right), device px, top-left
/// origin. The scene draws it there, labels keep clear of it and the page publishes it
/// (window.__flockstep.minimap_box) so its panels keep clear of it too.
ScreenBox minimap_box(int width_px, int height_px);

/// The group of a drawn agent, or null.
const sim::GroupSpec* group_of(const DrawAgent& a, const sim::Scenario& s);
/// Labels on every agent: the labels option, or in automatic mode rooms with at most
/// kLabelAgentsPerGroup agents per group.
bool label_groups(const sim::Scenario& s, int labels_mode);
/// "leader", "interceptor" or "follower" for a bourg_flock unit (AIDemo4's roles), else null.
const char* flock_role_of(const DrawAgent& a, const sim::Scenario& s);
/// The agent's colour; `own_entity` is the player's own craft (0 = none).
Rgba color_of(const DrawAgent& a, const sim::Scenario& s, std::uint32_t own_entity);
Shape shape_of(const DrawAgent& a);
/// Drawn size, m: crafts by their length, everyone else by radius.
float scale_of(const DrawAgent& a, const sim::Scenario& s);
/// A group's caption on the map: "name · technique" (the name only where it is the technique).
std::string group_caption(const sim::GroupSpec& g);

/// What the agent labels are made from.
struct LabelScene {
  const std::vector<DrawAgent>* agents = nullptr;
  const sim::Scenario* scenario = nullptr;
  const ViewState* view = nullptr;
  const std::unordered_map<std::uint32_t, std::string>* names = nullptr;  ///< players' display names
  std::uint32_t own_entity = 0;                                           ///< the player's own craft (0 = none)
  bool own_predicted = false;  ///< the own craft is drawn (and labelled) from its prediction: skip its snapshot
  double css_per_px = 1;       ///< CSS px per device px
  double width_css = 0, height_css = 0;
};
/// The label candidates of the agents in view (players by name, groups or the followed and
/// inspected agent by caption, one caption per group in big rooms, AIDemo4's roles), in CSS px.
std::vector<LabelCandidate> agent_labels(const LabelScene& scene);

}  // namespace flockstep::client
