#pragma once
/// \file viewer.hpp
/// The Flockstep browser viewer: the camera, the drawing and the page's UI. What is drawn comes
/// from the active frame source (frame/frame_source.hpp), one per mode: live play or spectating
/// (frame/live_source.hpp), a replay, the lab, the offline benchmark. One Viewer lives for the
/// page; the browser drives it through requestAnimationFrame, WebSocket callbacks, html5 input
/// callbacks and the fs_* functions (main.cpp) the page's JavaScript calls (client/web/,
/// docs/viewer.md).
///
/// Its definitions are split by concern: viewer.cpp (modes, frame, camera), view/scene.hpp (the
/// drawing, a class of its own over plain frame data), ui/publish.cpp (window.__flockstep and the world for the page),
/// ui/controls.cpp (keys, mouse, touch, options). The rules worth testing are functions over the plain view state
/// (view/view_state.hpp): view/scene_rules.hpp, ui/view_controls.hpp, ui/view_json.hpp.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <emscripten/html5.h>

#include "frame/frame_source.hpp"
#include "frame/live_source.hpp"
#include "input/input.hpp"
#include "view/label_layout.hpp"
#include "view/renderer.hpp"
#include "view/scene.hpp"
#include "view/view_state.hpp"
#include "view/world_layers.hpp"

namespace flockstep::client {

/// One row of the leaderboard (Events.scores).
struct ScoreRow {
  std::uint32_t player_id = 0;
  std::string name;
  double alive_s = 0, best_s = 0;
  std::uint32_t captures = 0;
  bool bot = false;
};

enum class Screen : std::uint8_t { kStart, kPlay, kSpectate };

/// See file comment.
class Viewer final : public FrameHost {
 public:
  static constexpr const char* kCanvas = "#canvas";
  /// Fitting the world leaves these strips free for the status pill and the toolbar, CSS px.
  static constexpr double kFitTopCssPx = 38;
  static constexpr double kFitBottomCssPx = 50;
  /// ... and at most this fraction of the width for panels along the right edge.
  static constexpr double kFitMaxRightFraction = 0.3;
  /// A panel along the left edge at least this tall (CSS px; the lab's controls, not the one-line
  /// HUD) is kept clear of too, up to the same fraction of the width.
  static constexpr double kFitLeftPanelMinCssPx = 180;

  bool init();
  void frame(double now);
  // fs_* API
  void play(const std::string& name);
  void spectate();
  void leave();
  void set_option(const std::string& name, double value);
  void step_once() { control_mode("live", "step", 1); }
  void follow(std::uint32_t id) { view_.follow_id = id; }
  void cycle_player(int dir);
  void touch(double turn, double throttle, bool active) { input_.touch(turn, throttle, active); }
  void set_url(const std::string& url) { url_ = url; }
  void drop() { live_.session().drop(emscripten_get_now()); }
  void set_room(const std::string& room) { room_ = room; }
  /// Open a registered mode (frame/sources.cpp) from the page's bytes; "" or why not (the mode
  /// that ran before keeps running then).
  std::string open_source(std::string_view mode, std::span<const std::uint8_t> data);
  /// A control of the active mode (FrameSource::control).
  void control(const std::string& what, double value);
  /// The same, only when the active mode is `mode` (the page's lab and replay panels).
  void control_mode(std::string_view mode, const std::string& what, double value) {
    if (source() && mode == source()->mode()) control(what, value);
  }
  /// The page's buffer for bytes it hands to open_source (a recording file).
  std::uint8_t* upload_buffer(std::size_t n) {
    upload_.assign(n, 0);
    return upload_.data();
  }
  std::span<const std::uint8_t> upload() const { return upload_; }
  void release_upload() { upload_ = {}; }
  /// A replay that failed to open: its error, shown in window.__flockstep.replay.error.
  void set_replay_error(const std::string& error) { replay_error_ = error; }
  /// The lab's tuning and export (frame/lab_source.hpp); "the lab is not running" / "" without it.
  std::string lab_tune(std::int32_t group, const std::string& key, double value);
  std::string lab_export() const;
  /// Spectators: pan by (dx, dy) CSS px and zoom by `factor` about the CSS point (px, py) (touch).
  void pan_zoom(double dx, double dy, double factor, double px, double py);
  /// Pick the agent under CSS point (x, y) and follow + inspect it (0 if none).
  std::uint32_t pick(double x, double y);
  /// Screen boxes of the page's panels ("x,y,w,h;..." CSS px): labels stay clear of them.
  void set_occluders(const std::string& list);
  /// The WebGL context came back: recreate every GL resource.
  void context_restored();
  // html5 callbacks
  bool on_key(const EmscriptenKeyboardEvent* e, bool down);
  bool on_mouse(int type, const EmscriptenMouseEvent* e);
  bool on_wheel(const EmscriptenWheelEvent* e);
  void on_blur() { input_.clear(); }
  void end_drag() { dragging_ = false; }

  // FrameHost
  void world_changed(const FrameSource& source, bool fresh) override;
  void toast(const std::string& message) override;
  void events(const v1::Events& e) override;

 private:
  /// The mode drawn now: an opened mode, else the live session once started (null on the start
  /// screen).
  FrameSource* source() { return offline_ ? offline_.get() : (live_.started() ? &live_ : nullptr); }
  const FrameSource* source() const { return offline_ ? offline_.get() : (live_.started() ? &live_ : nullptr); }
  bool have_world() const { return source() && source()->has_world(); }
  const sim::Scenario& scenario() const { return source() ? source()->scenario() : no_world_; }
  /// The own craft (live players): its entity, 0 otherwise.
  std::uint32_t own_entity() const { return !offline_ ? live_.own_entity() : 0; }
  void start_live(codec::Role role, const std::string& name);
  void publish_world(const FrameSource& source);
  void update_camera(double frame_ms);
  void fit_world(const sim::Scenario& s);
  /// What the scene draws this frame (view/scene.hpp).
  SceneFrame scene_frame() const;
  void publish(double now);
  double css_scale() const;
  const DrawAgent* drawn(std::uint32_t id) const;

  Renderer gl_;
  Scene scene_{gl_};
  InputState input_;
  LiveSource live_{*this, input_, {[this](const std::string& reason) {
                     screen_ = Screen::kStart;
                     input_.clear();
                     page_refused(reason);
                   }}};
  std::unique_ptr<FrameSource> offline_;  // replay, lab, bench (frame/sources.cpp)
  const sim::Scenario no_world_{};
  ViewState view_;
  WorldLayers layers_;  // built from the source's scenario on every change
  std::string room_;    // room asked for (fs_set_room; empty = the server's default)
  std::string url_;
  std::string name_ = "pilot";
  Screen screen_ = Screen::kStart;
  bool antialias_ = true;
  std::vector<std::uint8_t> upload_;
  std::string replay_error_;
  void page_refused(const std::string& reason);

  // This frame
  double last_frame_ms_ = 0;
  std::vector<DrawAgent> agents_;
  mutable std::unordered_map<std::uint32_t, std::int32_t> agent_index_;  // id -> agents_ index
  mutable bool agent_index_valid_ = false;
  behavior::CraftState own_{};  // the own craft as drawn (valid when has_own_)
  bool has_own_ = false;

  // View
  bool dragging_ = false, drag_moved_ = false;
  double drag_x_ = 0, drag_y_ = 0;
  std::deque<math::Vec2> trail_own_, trail_follow_;
  double trail_last_ms_ = 0;
  std::uint32_t trail_follow_id_ = 0;
  std::uint32_t own_jumps_seen_ = 0;
  std::vector<PlacedLabel> labels_;   // this frame's labels, CSS px
  std::vector<ScreenBox> occluders_;  // the page's panels, CSS px (set_occluders)

  // Stats
  RateWindow frames_window_;
  RateWindow frame_cost_window_;
  double frame_cost_ms_ = 0;
  std::vector<ScoreRow> scores_;
  std::unordered_map<std::uint32_t, std::string> names_;
  std::string json_;
};

}  // namespace flockstep::client
