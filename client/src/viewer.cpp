// The Viewer's modes, frame loop and camera (see viewer.hpp for how the rest is split).
#include "viewer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <emscripten/emscripten.h>

#include "frame/lab_source.hpp"
#include "ui/page.hpp"

namespace flockstep::client {

using math::Vec2;

// ---------------------------------------------------------------------------------------------
// Set-up and modes
// ---------------------------------------------------------------------------------------------

bool Viewer::init() {
  // Multisampling: on, except on software GL (SwiftShader, llvmpipe: headless browsers, VMs),
  // which pays dearly for it; ?aa=1 / ?aa=0 forces it (the page decides: client/web/bridge.js).
  antialias_ = page::query_int("antialiasDefault", 1) != 0;
  if (!gl_.init(kCanvas, antialias_)) {
    page::call("fatal", "This browser has no WebGL2.");
    return false;
  }
  // ?instanced=1 / 0 forces instanced or CPU-expanded shapes (default: expanded only on software GL).
  const int instanced = page::query_int("instancedParam", -1);
  if (instanced >= 0) gl_.set_expanded(instanced == 0);
  // Default server: the page's own host, /ws; ?server=ws://host:port/ws overrides it.
  url_ = page::query_string("serverUrl");
  view_.cam.zoom = 6;
  return true;
}

void Viewer::context_restored() {
  // Every GL object died with the context; the scene is rebuilt from C++ state on the next frame.
  gl_ = Renderer{};
  if (!gl_.init(kCanvas, antialias_)) page::call("fatal", "WebGL2 context could not be restored.");
  const int instanced = page::query_int("instancedParam", -1);
  if (instanced >= 0) gl_.set_expanded(instanced == 0);
}

double Viewer::css_scale() const {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  return css_w > 0 ? std::max(0.25, view_.cam.width / css_w) : 1.0;
}

void Viewer::start_live(codec::Role role, const std::string& name) {
  offline_.reset();
  view_.inspect_id = 0;
  view_.follow_id = 0;
  scores_.clear();
  live_.start(role, name, url_, room_);
}

void Viewer::play(const std::string& name) {
  name_ = name.empty() ? "pilot" : name;
  screen_ = Screen::kPlay;
  start_live(codec::Role::kPlayer, name_);
}

void Viewer::spectate() {
  screen_ = Screen::kSpectate;
  start_live(codec::Role::kSpectator, "spectator");
}

void Viewer::leave() {
  live_.stop();
  offline_.reset();
  screen_ = Screen::kStart;
  input_.clear();
}

std::string Viewer::open_source(std::string_view mode, std::span<const std::uint8_t> data) {
  std::unique_ptr<FrameSource> next = make_frame_source(mode, *this);
  if (!next) return "no mode named " + std::string(mode);
  const std::string error = next->open(data);
  if (!error.empty()) return error;
  live_.stop();
  offline_ = std::move(next);
  screen_ = Screen::kSpectate;
  scores_.clear();
  replay_error_.clear();
  return "";
}

void Viewer::control(const std::string& what, double value) {
  if (FrameSource* s = source()) s->control(what, value);
}

std::string Viewer::lab_tune(std::int32_t group, const std::string& key, double value) {
  auto* lab = dynamic_cast<LabSource*>(offline_.get());
  return lab ? lab->tune(group, key, value) : "the lab is not running";
}

std::string Viewer::lab_export() const {
  const auto* lab = dynamic_cast<const LabSource*>(offline_.get());
  return lab ? lab->export_json() : "";
}

void Viewer::page_refused(const std::string& reason) {
  // Close CODE_UNKNOWN_ROOM: back to the lobby with the server's reason.
  page::call("refused", reason, room_);
}

void Viewer::world_changed(const FrameSource& source, bool fresh) {
  layers_ = build_world_layers(source.scenario());
  if (fresh) {
    // A new world: the player's camera is set from the canvas size in update_camera; everyone
    // else sees the whole world.
    if (&source == &live_ && live_.player()) view_.cam.zoom = 0;
    else fit_world(source.scenario());
    if (&source != &live_) view_.follow_id = view_.inspect_id = 0;
  }
  publish_world(source);
}

void Viewer::toast(const std::string& message) { page::call("toast", message); }

void Viewer::events(const v1::Events& e) {
  for (const v1::PlayerPresence& p : e.presence()) {
    if (p.joined()) names_[p.entity_id()] = p.display_name();
    else names_.erase(p.entity_id());
  }
  if (e.scores_size() > 0) {
    const double tick_rate = source() ? source()->tick_rate() : 60;
    scores_.clear();
    for (const v1::Score& s : e.scores()) {
      ScoreRow row;
      row.player_id = s.player_id();
      row.name = s.display_name();
      row.alive_s = static_cast<double>(s.alive_ticks()) / tick_rate;
      row.best_s = static_cast<double>(s.best_ticks()) / tick_rate;
      row.captures = s.captures();
      row.bot = s.bot();
      scores_.push_back(row);
    }
    std::sort(scores_.begin(), scores_.end(), [](const ScoreRow& a, const ScoreRow& b) {
      return std::max(a.best_s, a.alive_s) > std::max(b.best_s, b.alive_s);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Frame
// ---------------------------------------------------------------------------------------------

const DrawAgent* Viewer::drawn(std::uint32_t id) const {
  if (!view_.annotations) {
    // A few lookups per frame (followed agent): a scan beats building a 10k-entry map.
    for (const DrawAgent& a : agents_)
      if (a.id == id) return &a;
    return nullptr;
  }
  if (!agent_index_valid_) {
    agent_index_.clear();
    agent_index_.reserve(agents_.size());
    for (std::size_t i = 0; i < agents_.size(); ++i) agent_index_[agents_[i].id] = static_cast<std::int32_t>(i);
    agent_index_valid_ = true;
  }
  const auto it = agent_index_.find(id);
  return it == agent_index_.end() ? nullptr : &agents_[static_cast<std::size_t>(it->second)];
}

void Viewer::frame(double now) {
  const double t0 = emscripten_get_now();
  const double frame_ms = last_frame_ms_ > 0 ? std::min(now - last_frame_ms_, 250.0) : 16.7;
  last_frame_ms_ = now;
  frames_window_.add(now);

  // The active mode runs its clock, then says what to draw now.
  FrameSource* src = source();
  const FrameInput in{now, frame_ms, &view_.cam, view_.inspect_id, view_.extrapolate};
  if (src) {
    src->advance(in);
    src->sample(in, agents_);
  } else {
    agents_.clear();
  }
  agent_index_valid_ = false;  // rebuilt on the first lookup of this frame (annotations need it)
  has_own_ = src && src->own_pose(own_);
  if (live_.own_jumps() != own_jumps_seen_) {
    own_jumps_seen_ = live_.own_jumps();
    trail_own_.clear();  // a respawn or a new world: no trail across the jump
  }

  update_camera(frame_ms);

  // Trails: own craft and the followed agent, one point per 50 ms, 4 s long.
  if (view_.trails && now - trail_last_ms_ > 50) {
    trail_last_ms_ = now;
    if (has_own_) {
      trail_own_.push_back(own_.position);
      if (trail_own_.size() > 80) trail_own_.pop_front();
    }
    if (view_.follow_id != trail_follow_id_) {
      trail_follow_.clear();
      trail_follow_id_ = view_.follow_id;
    }
    if (const DrawAgent* f = view_.follow_id ? drawn(view_.follow_id) : nullptr) {
      trail_follow_.push_back(f->position);
      if (trail_follow_.size() > 80) trail_follow_.pop_front();
    }
  }

  const SceneFrame scene = scene_frame();
  scene_.draw(scene);
  labels_ = scene_.labels(scene);
  frame_cost_ms_ = emscripten_get_now() - t0;
  frame_cost_window_.add(now, frame_cost_ms_);
  publish(now);
}

SceneFrame Viewer::scene_frame() const {
  SceneFrame f;
  f.have_world = have_world();
  f.view = &view_;
  f.scenario = &scenario();
  f.layers = &layers_;
  f.agents = &agents_;
  f.find = [this](std::uint32_t id) { return drawn(id); };
  f.own = has_own_ ? &own_ : nullptr;
  f.own_entity = own_entity();
  f.own_name = name_;
  f.server_ghost = has_own_ ? live_.server_state() : nullptr;
  f.own_protected = !offline_ && live_.protected_now();
  f.trail_own = &trail_own_;
  f.trail_follow = &trail_follow_;
  if (const FrameSource* src = source()) {
    f.trace = &src->trace();
    f.trace_available = src->trace_available();
  }
  f.names = &names_;
  f.occluders = &occluders_;
  f.css_scale = css_scale();
  return f;
}

void Viewer::fit_world(const sim::Scenario& s) {
  int w = 0, h = 0;
  emscripten_get_canvas_element_size(kCanvas, &w, &h);
  if (w <= 0 || h <= 0) return;
  Camera& cam = view_.cam;
  // Keep the world clear of the status pill (top), the toolbar (bottom) and tall panels along the
  // right edge (an open legend, the leaderboard): fit it into what is left, centred there.
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  const double k = css_w > 0 ? w / css_w : 1;
  double right_css = 0;
  for (const ScreenBox& b : occluders_)
    if (b.x > css_w * 0.5 && b.x + b.w > css_w - 24 && b.h > 60) right_css = std::max(right_css, css_w - b.x + 8);
  right_css = std::min(right_css, css_w * kFitMaxRightFraction);
  // ... and tall panels along the left edge (the lab's controls), the same way.
  double left_css = 0;
  for (const ScreenBox& b : occluders_)
    if (b.x < 24 && b.x + b.w < css_w * 0.5 && b.h > kFitLeftPanelMinCssPx)
      left_css = std::max(left_css, b.x + b.w + 8);
  left_css = std::min(left_css, css_w * kFitMaxRightFraction);
  const double top = kFitTopCssPx * k, bottom = kFitBottomCssPx * k, right = right_css * k, left = left_css * k;
  const double usable_w = std::max(1.0, w - right - left), usable_h = std::max(1.0, h - top - bottom);
  cam.zoom = std::min(usable_w / (s.width * 1.04), usable_h / (s.height * 1.04));
  // Screen x grows right like world x; screen y grows down, world y up: shift the centre so the
  // world sits in the middle of the free area.
  cam.cx = s.width / 2 + (right - left) * 0.5 / cam.zoom;
  cam.cy = s.height / 2 - (bottom - top) * 0.5 / cam.zoom;
  view_.at_fit = true;
}

void Viewer::update_camera(double frame_ms) {
  Camera& cam = view_.cam;
  int w = 0, h = 0;
  emscripten_get_canvas_element_size(kCanvas, &w, &h);
  cam.width = std::max(w, 1);
  cam.height = std::max(h, 1);
  if (cam.zoom <= 0) {
    // Play: about 70 m across the shorter side.
    cam.zoom = std::min(cam.width, cam.height) / 70.0;
  }
  Vec2 target{cam.cx, cam.cy};
  bool track = false;
  if (has_own_) {
    target = own_.position;
    track = true;
  } else if (view_.follow_id != 0) {
    if (const DrawAgent* f = drawn(view_.follow_id)) {
      target = f->position;
      track = true;
    }
  }
  if (track) {
    Vec2 d = target - Vec2{cam.cx, cam.cy};
    // Snap on teleports and across the torus seam, glide otherwise.
    if (math::length(d) > 30) {
      cam.cx = target.x;
      cam.cy = target.y;
    } else {
      const double k = 1 - std::exp(-frame_ms / 60.0);
      cam.cx += d.x * k;
      cam.cy += d.y * k;
    }
  }
}

}  // namespace flockstep::client
