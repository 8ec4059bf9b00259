// The view's options and keys (view_controls.hpp).
#include "ui/view_controls.hpp"

#include <algorithm>
#include <string>

namespace flockstep::client {

using math::Vec2;

namespace {
double clamp_zoom(double z) { return std::clamp(z, ViewState::kMinZoom, ViewState::kMaxZoom); }
}  // namespace

ControlOutcome apply_option(ViewState& v, std::string_view name, double value) {
  ControlOutcome out{true};
  const bool on = value != 0;
  if (name == "annotations") v.annotations = on;
  else if (name == "extrapolate") v.extrapolate = on;
  else if (name == "trails") v.trails = on;
  else if (name == "minimap") v.minimap = on;
  else if (name == "annotation_mask") v.annotation_mask = static_cast<std::uint32_t>(value);
  else if (name == "paused") {
    out.request = ViewRequest::kPause;
    out.value = on ? 1 : 0;
  } else if (name == "zoom" && value > 0) {
    v.cam.zoom = clamp_zoom(value);
    v.at_fit = false;
  } else if (name == "zoom_by" && value > 0) {
    v.cam.zoom = clamp_zoom(v.cam.zoom * value);
    v.at_fit = false;
  } else if (name == "fit") {
    v.follow_id = 0;
    out.request = ViewRequest::kFit;
  } else if (name == "labels") v.labels_mode = value < 0 ? -1 : (on ? 1 : 0);
  else if (name == "layers") v.layer_mask = static_cast<std::uint32_t>(value) & ((1u << kLayerCount) - 1);
  else if (name == "inspect") v.inspect_id = static_cast<std::uint32_t>(value);
  else if (name == "follow") v.follow_id = v.inspect_id = static_cast<std::uint32_t>(value);  // as a click on it
  else {
    out.handled = false;
    for (int i = 0; i < kLayerCount; ++i) {
      if (name != std::string("layer_") + layer_name(static_cast<Layer>(i))) continue;
      if (on) v.layer_mask |= 1u << i;
      else v.layer_mask &= ~(1u << i);
      out.handled = true;
    }
  }
  return out;
}

ControlOutcome apply_key(ViewState& v, const KeyContext& ctx, std::string_view code, std::string_view key, bool shift) {
  ControlOutcome out{true};
  auto page = [&out](const char* what) {
    out.page_command = what;
    return out;
  };
  auto request = [&out](ViewRequest r) {
    out.request = r;
    return out;
  };
  if (key == "?" || code == "KeyH" || code == "F1") return page("help");
  if (code == "Escape") {
    v.follow_id = 0;
    v.inspect_id = 0;
    return page("escape");
  }
  if ((code == "KeyA" && !ctx.playing) || code == "KeyV") {  // V also in play, where A steers
    v.annotations = !v.annotations;
    return out;
  }
  if (code == "KeyE" || code == "KeyX") {
    v.extrapolate = !v.extrapolate;
    return out;
  }
  if (code == "KeyT") {
    v.trails = !v.trails;
    return out;
  }
  if (code == "KeyM") {
    v.minimap = !v.minimap;
    return out;
  }
  if (code == "KeyL") {
    v.labels_mode = ctx.labels_on ? 0 : 1;
    return page("prefs");
  }
  for (int i = 0; i < kLayerCount; ++i) {
    if (code != layer_key(static_cast<Layer>(i))) continue;
    v.layer_mask ^= 1u << i;
    return page("prefs");
  }
  if (code == "KeyQ") {
    // Inspect: in play the nearest other agent to the craft, in spectate the followed one.
    if (v.inspect_id != 0) v.inspect_id = 0;
    else if (ctx.playing) return request(ViewRequest::kInspectNearest);
    else v.inspect_id = v.follow_id;
    return out;
  }
  if (code.size() == 6 && code.substr(0, 5) == "Digit" && code[5] >= '1' && code[5] <= '5') {
    v.annotation_mask ^= 1u << static_cast<unsigned>(code[5] - '1');
    v.annotations = true;
    return out;
  }
  if (code == "Equal" || code == "NumpadAdd" || code == "Minus" || code == "NumpadSubtract") {
    v.cam.zoom = code == "Equal" || code == "NumpadAdd" ? v.cam.zoom * 1.25 : v.cam.zoom / 1.25;
    v.at_fit = false;
    return out;
  }
  if (!ctx.playing) {
    if (code == "BracketRight" || (code == "Tab" && !shift) || code == "KeyD" || code == "ArrowRight")
      return request(ViewRequest::kCycleNext);
    if (code == "BracketLeft" || (code == "Tab" && shift) || code == "ArrowLeft")
      return request(ViewRequest::kCyclePrevious);
    if (code == "Digit0" || code == "Home" || code == "KeyF") {
      v.follow_id = 0;
      return request(ViewRequest::kFit);
    }
  }
  out.handled = false;
  return out;
}

std::uint32_t next_player(const std::vector<DrawAgent>& agents, std::uint32_t current, int dir) {
  std::vector<std::uint32_t> ids;
  for (const DrawAgent& a : agents)
    if (a.kind == sim::AgentKind::kPlayer) ids.push_back(a.id);
  if (ids.empty()) return 0;
  std::sort(ids.begin(), ids.end());
  const auto it = std::find(ids.begin(), ids.end(), current);
  const auto n = static_cast<std::ptrdiff_t>(ids.size());
  std::ptrdiff_t k = it == ids.end() ? (dir > 0 ? -1 : 0) : it - ids.begin();
  k = (k + dir + n) % n;
  return ids[static_cast<std::size_t>(k)];
}

std::uint32_t agent_at(const std::vector<DrawAgent>& agents, Vec2 p, double radius) {
  double best = radius * radius;
  std::uint32_t id = 0;
  for (const DrawAgent& a : agents) {
    const double d2 = math::length_sq(a.position - p);
    if (d2 < best) {
      best = d2;
      id = a.id;
    }
  }
  return id;
}

void pan_zoom(ViewState& v, double dx, double dy, double factor, double px, double py) {
  Camera& cam = v.cam;
  if (cam.zoom <= 0) return;
  v.at_fit = false;
  if (dx != 0 || dy != 0) {
    v.follow_id = 0;
    cam.cx -= dx / cam.zoom;
    cam.cy += dy / cam.zoom;
  }
  if (factor > 0 && factor != 1) {
    const Vec2 before = cam.to_world(px, py);
    cam.zoom = clamp_zoom(cam.zoom * factor);
    if (v.follow_id == 0) {
      const Vec2 after = cam.to_world(px, py);
      cam.cx += before.x - after.x;
      cam.cy += before.y - after.y;
    }
  }
}

}  // namespace flockstep::client
