#pragma once
/// \file view_controls.hpp
/// The page's options and keys as functions over the view state (view/view_state.hpp): what an
/// option or a key changes in the view, and what it asks of the viewer beyond it (fit the world,
/// pause the mode, cycle players, tell the page). ui/controls.cpp applies them to the Viewer;
/// tests/client/ui/view_controls_test.cpp checks them. A mode's own keys (play, step, restart)
/// belong to its frame source (FrameSource::key).
#include <cstdint>
#include <string_view>
#include <vector>

#include "predict/remote_agents.hpp"
#include "view/view_state.hpp"

namespace flockstep::client {

/// What a control asks of the viewer beyond the view state.
enum class ViewRequest : std::uint8_t {
  kNone,
  kFit,             ///< fit the world into the canvas
  kPause,           ///< pause (value 1) or resume (0) the active mode
  kCycleNext,       ///< follow the next player
  kCyclePrevious,   ///< follow the previous player
  kInspectNearest,  ///< inspect the agent nearest the own craft
};

struct ControlOutcome {
  bool handled = false;
  ViewRequest request = ViewRequest::kNone;
  double value = 0;
  const char* page_command = nullptr;  ///< flockstepUi.command(...) to call ("help", "escape", "prefs")
};

/// fs_set_option: annotations, extrapolate, trails, minimap, paused (0/1), annotation_mask (bit
/// per agent kind), zoom (px per m), zoom_by (factor), fit, labels (-1 auto, 0, 1), layers (mask),
/// layer_<name> (0/1), inspect (id), follow (id: follow and inspect, as a click on it).
ControlOutcome apply_option(ViewState& v, std::string_view name, double value);

/// What a key depends on besides the view.
struct KeyContext {
  bool playing = false;    ///< the player's keys steer (A is a steering key then)
  bool labels_on = false;  ///< the labels shown now (automatic mode resolved)
};
/// A key pressed on the canvas (KeyboardEvent.code and .key): the view's keys.
ControlOutcome apply_key(ViewState& v, const KeyContext& ctx, std::string_view code, std::string_view key, bool shift);

/// The player id after `current` in direction `dir` (+1 / -1) among the players of `agents`,
/// by id, wrapping; 0 when there are none.
std::uint32_t next_player(const std::vector<DrawAgent>& agents, std::uint32_t current, int dir);
/// The agent nearest world point `p` within `radius` m, 0 if none.
std::uint32_t agent_at(const std::vector<DrawAgent>& agents, math::Vec2 p, double radius);
/// Spectators' touch gestures: pan by (dx, dy) device px and zoom by `factor` about the device
/// point (px, py). A pan stops following; a zoom keeps the point under the fingers in place.
void pan_zoom(ViewState& v, double dx, double dy, double factor, double px, double py);

}  // namespace flockstep::client
