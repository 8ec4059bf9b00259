// Options, keys, mouse, wheel and touch gestures of the Viewer.
#include <algorithm>
#include <cmath>
#include <string>

#include "ui/page.hpp"
#include "viewer.hpp"

namespace flockstep::client {

using math::Vec2;

void Viewer::set_option(const std::string& name, double value) {
  const bool on = value != 0;
  if (name == "annotations") annotations_ = on;
  else if (name == "extrapolate") extrapolate_ = on;
  else if (name == "trails") trails_ = on;
  else if (name == "minimap") minimap_ = on;
  else if (name == "annotation_mask") annotation_mask_ = static_cast<std::uint32_t>(value);
  else if (name == "paused" && replay_) replay_control("play", on ? 0 : 1);
  else if (name == "paused" && lab_) lab_control("paused", on ? 1 : 0);  // the lab pauses its world
  else if (name == "paused") {
    paused_ = on && screen_ != Screen::kPlay;  // the game does not wait for a player
    paused_tick_ = 0;
    if (!paused_) feed_paused(true);
  } else if (name == "zoom" && value > 0) {
    cam_.zoom = std::clamp(value, 0.05, 200.0);
    at_fit_ = false;
  } else if (name == "zoom_by" && value > 0) {
    cam_.zoom = std::clamp(cam_.zoom * value, 0.05, 200.0);
    at_fit_ = false;
  } else if (name == "fit") {
    follow_id_ = 0;
    fit_world();
  } else if (name == "labels") labels_mode_ = value < 0 ? -1 : (on ? 1 : 0);
  else if (name == "layers") layer_mask_ = static_cast<std::uint32_t>(value) & ((1u << kLayerCount) - 1);
  else if (name == "inspect") inspect_id_ = static_cast<std::uint32_t>(value);
  else if (name == "follow") follow_id_ = inspect_id_ = static_cast<std::uint32_t>(value);  // as a click on it
  else {
    for (int i = 0; i < kLayerCount; ++i) {
      if (name != std::string("layer_") + layer_name(static_cast<Layer>(i))) continue;
      if (on) layer_mask_ |= 1u << i;
      else layer_mask_ &= ~(1u << i);
    }
  }
}

std::uint32_t Viewer::pick(double x, double y) {
  const double k = css_scale();
  const Vec2 p = cam_.to_world(x * k, y * k);
  // Agents are drawn at least kMinAgentPx tall: pick within 14 CSS px (or 1.5 m when zoomed in).
  const double pick = std::max(1.5, 14.0 * k / cam_.zoom);
  double best = pick * pick;
  std::uint32_t id = 0;
  for (const DrawAgent& a : agents_) {
    const double d2 = math::length_sq(a.position - p);
    if (d2 < best) {
      best = d2;
      id = a.id;
    }
  }
  if (screen_ != Screen::kPlay) follow_id_ = id;
  inspect_id_ = id;
  // The lab: a click on open ground moves the chasers' target there.
  if (lab_ && id == 0) lab_place(x, y);
  return id;
}

void Viewer::pan_zoom(double dx, double dy, double factor, double px, double py) {
  if (screen_ == Screen::kPlay || cam_.zoom <= 0) return;
  at_fit_ = false;
  const double k = css_scale();
  if (dx != 0 || dy != 0) {
    follow_id_ = 0;
    cam_.cx -= dx * k / cam_.zoom;
    cam_.cy += dy * k / cam_.zoom;
  }
  if (factor > 0 && factor != 1) {
    const Vec2 before = cam_.to_world(px * k, py * k);
    cam_.zoom = std::clamp(cam_.zoom * factor, 0.05, 200.0);
    if (follow_id_ == 0) {
      const Vec2 after = cam_.to_world(px * k, py * k);
      cam_.cx += before.x - after.x;
      cam_.cy += before.y - after.y;
    }
  }
}

void Viewer::cycle_player(int dir) {
  std::vector<std::uint32_t> ids;
  for (const DrawAgent& a : agents_)
    if (a.kind == sim::AgentKind::kPlayer) ids.push_back(a.id);
  if (ids.empty()) return;
  std::sort(ids.begin(), ids.end());
  auto it = std::find(ids.begin(), ids.end(), follow_id_);
  std::ptrdiff_t k = it == ids.end() ? (dir > 0 ? -1 : 0) : it - ids.begin();
  k = (k + dir + static_cast<std::ptrdiff_t>(ids.size())) % static_cast<std::ptrdiff_t>(ids.size());
  follow_id_ = ids[static_cast<std::size_t>(k)];
}

bool Viewer::on_key(const EmscriptenKeyboardEvent* e, bool down) {
  if (screen_ == Screen::kStart) return false;  // typing a name
  // Typing into a page field (tuning panel, replay controls): the keys are the field's.
  // A focused page control (field, button, checkbox) keeps its keys (client/web/bridge.js).
  const bool typing = page::query_int("typing", 0) != 0;
  if (typing) {
    if (!down && screen_ == Screen::kPlay) input_.key(e->code, false);  // a key held before still ends
    return false;
  }
  const std::string code = e->code;
  const std::string key = e->key;
  if (screen_ == Screen::kPlay && input_.key(code, down)) return true;
  if (!down) return false;
  if (e->ctrlKey || e->metaKey || e->altKey) return false;
  auto ui = [](const char* what) { page::call("command", what); };
  if (key == "?" || code == "KeyH" || code == "F1") {
    ui("help");
    return true;
  }
  if (code == "Escape") {
    follow_id_ = 0;
    inspect_id_ = 0;
    ui("escape");
    return true;
  }
  if (code == "KeyA" && screen_ != Screen::kPlay) {
    annotations_ = !annotations_;
    return true;
  }
  if (code == "KeyV") {
    annotations_ = !annotations_;
    return true;
  }  // also in play, where A steers
  if (code == "KeyE" || code == "KeyX") {
    extrapolate_ = !extrapolate_;
    return true;
  }
  if (code == "KeyT") {
    trails_ = !trails_;
    return true;
  }
  if (code == "KeyM") {
    minimap_ = !minimap_;
    return true;
  }
  if (code == "KeyL") {
    labels_mode_ = label_groups() ? 0 : 1;
    ui("prefs");
    return true;
  }
  for (int i = 0; i < kLayerCount; ++i) {
    if (code != layer_key(static_cast<Layer>(i))) continue;
    layer_mask_ ^= 1u << i;
    ui("prefs");
    return true;
  }
  if (code == "KeyQ") {
    // Inspect: in play the nearest other agent to the craft, in spectate the followed one.
    if (inspect_id_ != 0) {
      inspect_id_ = 0;
      return true;
    }
    if (screen_ == Screen::kPlay && predictor_.has_state()) {
      const Vec2 me = own_pose().position;
      double best = 1e18;
      for (const DrawAgent& a : agents_) {
        if (a.id == entity_) continue;
        const double d2 = math::length_sq(a.position - me);
        if (d2 < best) {
          best = d2;
          inspect_id_ = a.id;
        }
      }
    } else {
      inspect_id_ = follow_id_;
    }
    return true;
  }
  if (code.size() == 6 && code.rfind("Digit", 0) == 0 && code[5] >= '1' && code[5] <= '5') {
    annotation_mask_ ^= 1u << static_cast<unsigned>(code[5] - '1');
    annotations_ = true;
    return true;
  }
  if (code == "Equal" || code == "NumpadAdd") {
    cam_.zoom *= 1.25;
    at_fit_ = false;
    return true;
  }
  if (code == "Minus" || code == "NumpadSubtract") {
    cam_.zoom /= 1.25;
    at_fit_ = false;
    return true;
  }
  if (replay_) {
    if (code == "KeyP" || code == "Space") {
      replay_control("play", replay_playing_ ? 0 : 1);
      return true;
    }
    if (code == "Period" || code == "KeyN") {
      replay_control("step", 1);
      return true;
    }
    if (code == "Comma" || code == "KeyB") {
      replay_control("step", -1);
      return true;
    }
  }
  if (lab_) {
    if (code == "KeyP" || code == "Space") {
      lab_control("paused", lab_->paused ? 0 : 1);
      return true;
    }
    if (code == "Period" || code == "KeyN") {
      lab_control("step", 1);
      return true;
    }
    if (code == "KeyR") {
      lab_control("restart", 0);
      return true;
    }
  }
  if (screen_ == Screen::kSpectate) {
    if (code == "KeyP" || code == "Space") {
      set_option("paused", paused_ ? 0 : 1);
      return true;
    }
    if (code == "Period" || code == "KeyN") {
      if (paused_) step_once();
      return true;
    }
    if (code == "BracketRight" || (code == "Tab" && !e->shiftKey) || code == "KeyD" || code == "ArrowRight") {
      cycle_player(1);
      return true;
    }
    if (code == "BracketLeft" || (code == "Tab" && e->shiftKey) || code == "ArrowLeft") {
      cycle_player(-1);
      return true;
    }
    if (code == "Digit0" || code == "Home" || code == "KeyF") {
      follow_id_ = 0;
      fit_world();
      return true;
    }
  }
  return false;
}

bool Viewer::on_mouse(int type, const EmscriptenMouseEvent* e) {
  double css_w = 1, css_h = 1;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double sx = cam_.width / std::max(css_w, 1.0), sy = cam_.height / std::max(css_h, 1.0);
  switch (type) {
    case EMSCRIPTEN_EVENT_MOUSEDOWN:
      if (e->button != 0) return false;
      dragging_ = true;
      drag_moved_ = false;
      drag_x_ = e->targetX;
      drag_y_ = e->targetY;
      return true;
    case EMSCRIPTEN_EVENT_MOUSEMOVE:
      if (!dragging_) return false;
      if (std::fabs(e->targetX - drag_x_) + std::fabs(e->targetY - drag_y_) > 4) drag_moved_ = true;
      if (drag_moved_ && screen_ != Screen::kPlay) {
        follow_id_ = 0;
        at_fit_ = false;
        cam_.cx -= e->movementX * sx / cam_.zoom;
        cam_.cy += e->movementY * sy / cam_.zoom;
      }
      return true;
    case EMSCRIPTEN_EVENT_MOUSEUP: {
      if (!dragging_) return false;
      dragging_ = false;
      // A click: follow (spectate) and inspect the agent under the cursor (or nothing).
      if (!drag_moved_) pick(e->targetX, e->targetY);
      return true;
    }
    default: return false;
  }
}

bool Viewer::on_wheel(const EmscriptenWheelEvent* e) {
  double css_w = 1, css_h = 1;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double sx = cam_.width / std::max(css_w, 1.0), sy = cam_.height / std::max(css_h, 1.0);
  const double px = e->mouse.targetX * sx, py = e->mouse.targetY * sy;
  const Vec2 before = cam_.to_world(px, py);
  const double factor = std::exp(-e->deltaY * (e->deltaMode == DOM_DELTA_PIXEL ? 0.0015 : 0.05));
  cam_.zoom = std::clamp(cam_.zoom * factor, 0.05, 200.0);
  at_fit_ = false;
  if (screen_ != Screen::kPlay && follow_id_ == 0) {
    // Zoom about the cursor.
    const Vec2 after = cam_.to_world(px, py);
    cam_.cx += before.x - after.x;
    cam_.cy += before.y - after.y;
  }
  return true;
}

}  // namespace flockstep::client
