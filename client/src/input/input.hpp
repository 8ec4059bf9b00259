#pragma once
/// \file input.hpp
/// The player's controls: keyboard (arrow keys / WASD) and the on-screen touch joystick,
/// merged into one sim::PlayerInput per client tick. Left/A turns left (turn -1, the starboard
/// thruster), Right/D turns right (turn +1, port thruster, catalog T10), Up/W is full thrust,
/// Down/S brakes (no thrust). Without a key the craft coasts. The joystick gives analogue
/// values: x -> turn, up -> throttle.
#include <string_view>

#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::client {

/// See file comment.
class InputState {
 public:
  /// A key went down or up (KeyboardEvent.code, e.g. "ArrowLeft", "KeyW"). Returns true when
  /// the key is a control key (the caller then stops the browser's default action).
  bool key(std::string_view code, bool down);
  /// Touch joystick: turn in [-1, 1], throttle in [0, 1]; active = a finger is on it.
  void touch(double turn, double throttle, bool active);
  /// Release everything (focus lost: keys would otherwise stay stuck).
  void clear();
  /// The input for the next tick.
  sim::PlayerInput current() const;
  /// True while any control is held.
  bool any() const { return left_ || right_ || up_ || down_ || touch_active_; }

 private:
  bool left_ = false, right_ = false, up_ = false, down_ = false;
  bool touch_active_ = false;
  double touch_turn_ = 0, touch_throttle_ = 0;
};

}  // namespace flockstep::client
