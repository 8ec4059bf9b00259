// Options, keys, mouse, wheel and touch gestures of the Viewer: the view's rules are functions
// over the view state (ui/view_controls.hpp); a mode's own keys and controls go to its frame
// source.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <string>

#include "ui/page.hpp"
#include "ui/view_controls.hpp"
#include "view/scene_rules.hpp"
#include "viewer.hpp"

namespace flockstep::client {

using math::Vec2;

void Viewer::set_option(const std::string& name, double value) {
  const ControlOutcome out = apply_option(view_, name, value);
  // Measuring the extrapolation of held-back snapshots: a setting of the live buffer, not of the
  // view (tests/e2e/viewer.test.mjs).
  if (!out.handled && name == "measure_holds") live_.set_measure_holds(value != 0);
  if (out.request == ViewRequest::kPause) control("paused", out.value);
  else if (out.request == ViewRequest::kFit && have_world()) fit_world(scenario());
}

void Viewer::set_occluders(const std::string& list) {
  occluders_.clear();
  std::size_t at = 0;
  while (at < list.size() && occluders_.size() < 32) {  // a handful of panels; bound what a page can send
    const std::size_t end = std::min(list.find(';', at), list.size());
    ScreenBox b;
    if (std::sscanf(list.substr(at, end - at).c_str(), "%lf,%lf,%lf,%lf", &b.x, &b.y, &b.w, &b.h) == 4 && b.w > 0 &&
        b.h > 0)
      occluders_.push_back(b);
    at = end + 1;
  }
  // A panel opened, closed or resized while the world is shown fitted: fit it again.
  if (view_.at_fit && view_.follow_id == 0 && screen_ != Screen::kPlay && have_world()) fit_world(scenario());
}

std::uint32_t Viewer::pick(double x, double y) {
  const double k = css_scale();
  const Vec2 p = view_.cam.to_world(x * k, y * k);
  // Agents are drawn at least kMinAgentPx tall: pick within 14 CSS px (or 1.5 m when zoomed in).
  const std::uint32_t id = agent_at(agents_, p, std::max(1.5, 14.0 * k / view_.cam.zoom));
  if (screen_ != Screen::kPlay) view_.follow_id = id;
  view_.inspect_id = id;
  // A click on open ground: the mode may use it (the lab moves the chasers' target there).
  if (id == 0 && offline_) offline_->place(p);
  return id;
}

void Viewer::pan_zoom(double dx, double dy, double factor, double px, double py) {
  if (screen_ == Screen::kPlay) return;
  const double k = css_scale();
  client::pan_zoom(view_, dx * k, dy * k, factor, px * k, py * k);
}

void Viewer::cycle_player(int dir) {
  if (const std::uint32_t id = next_player(agents_, view_.follow_id, dir)) view_.follow_id = id;
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
  const bool playing = screen_ == Screen::kPlay;
  // The mode's own keys (play, step, restart) before the view's.
  if (FrameSource* src = source(); src && src->key(code)) return true;
  const ControlOutcome out =
      apply_key(view_, KeyContext{playing, label_groups(scenario(), view_.labels_mode)}, code, key, e->shiftKey);
  if (out.page_command) page::call("command", out.page_command);
  switch (out.request) {
    case ViewRequest::kFit:
      if (have_world()) fit_world(scenario());
      break;
    case ViewRequest::kCycleNext: cycle_player(1); break;
    case ViewRequest::kCyclePrevious: cycle_player(-1); break;
    case ViewRequest::kInspectNearest: {
      if (!has_own_) break;
      double best = 1e18;
      for (const DrawAgent& a : agents_) {
        if (a.id == own_entity()) continue;
        const double d2 = math::length_sq(a.position - own_.position);
        if (d2 < best) {
          best = d2;
          view_.inspect_id = a.id;
        }
      }
      break;
    }
    default: break;
  }
  return out.handled;
}

bool Viewer::on_mouse(int type, const EmscriptenMouseEvent* e) {
  Camera& cam = view_.cam;
  double css_w = 1, css_h = 1;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double sx = cam.width / std::max(css_w, 1.0), sy = cam.height / std::max(css_h, 1.0);
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
        view_.follow_id = 0;
        view_.at_fit = false;
        cam.cx -= e->movementX * sx / cam.zoom;
        cam.cy += e->movementY * sy / cam.zoom;
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
  Camera& cam = view_.cam;
  double css_w = 1, css_h = 1;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double sx = cam.width / std::max(css_w, 1.0), sy = cam.height / std::max(css_h, 1.0);
  const double px = e->mouse.targetX * sx, py = e->mouse.targetY * sy;
  const Vec2 before = cam.to_world(px, py);
  const double factor = std::exp(-e->deltaY * (e->deltaMode == DOM_DELTA_PIXEL ? 0.0015 : 0.05));
  cam.zoom = std::clamp(cam.zoom * factor, ViewState::kMinZoom, ViewState::kMaxZoom);
  view_.at_fit = false;
  if (screen_ != Screen::kPlay && view_.follow_id == 0) {
    // Zoom about the cursor.
    const Vec2 after = cam.to_world(px, py);
    cam.cx += before.x - after.x;
    cam.cy += before.y - after.y;
  }
  return true;
}

}  // namespace flockstep::client
