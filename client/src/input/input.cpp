#include "input/input.hpp"

namespace flockstep::client {

bool InputState::key(std::string_view code, bool down) {
  if (code == "ArrowLeft" || code == "KeyA") left_ = down;
  else if (code == "ArrowRight" || code == "KeyD") right_ = down;
  else if (code == "ArrowUp" || code == "KeyW") up_ = down;
  else if (code == "ArrowDown" || code == "KeyS") down_ = down;
  else return false;
  return true;
}

void InputState::touch(double turn, double throttle, bool active) {
  auto clamp = [](double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : (v == v ? v : 0.0)); };
  touch_active_ = active;
  touch_turn_ = active ? clamp(turn, -1, 1) : 0;
  touch_throttle_ = active ? clamp(throttle, 0, 1) : 0;
}

void InputState::clear() {
  left_ = right_ = up_ = down_ = false;
  touch(0, 0, false);
}

sim::PlayerInput InputState::current() const {
  sim::PlayerInput in;
  if (touch_active_) {
    in.turn = touch_turn_;
    in.throttle = touch_throttle_;
  }
  // Keys win over the joystick where they are held.
  if (left_ != right_) in.turn = left_ ? -1.0 : 1.0;
  if (up_) in.throttle = 1.0;
  if (down_) in.throttle = 0.0;
  return in;
}

}  // namespace flockstep::client
