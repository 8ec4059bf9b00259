#pragma once
/// \file viewer.hpp
/// The Flockstep browser viewer: play as a craft with exact client-side prediction, or spectate
/// with annotations, world layers, labels and an inspector. One Viewer lives for the page; the
/// browser drives it through requestAnimationFrame, WebSocket callbacks, html5 input callbacks
/// and the fs_* functions (main.cpp) the page's JavaScript calls (client/web/, docs/viewer.md).
///
/// Its definitions are split by concern: viewer.cpp (sessions, snapshots, input ticks, frame,
/// camera), view/scene.cpp (drawing: layers, agents, annotations, labels), replay/replay.cpp
/// (recordings), ui/publish.cpp (window.__flockstep and the world for the page), ui/controls.cpp
/// (keys, mouse, touch, options). The logic worth testing lives in classes of its own
/// (ClockSync, InputLead, PredictionStats, build_world_layers, layout_labels).
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <emscripten/html5.h>

#include "codec/server_codec.hpp"
#include "flockstep/sim/world.hpp"
#include "input/input.hpp"
#include "net/clock_sync.hpp"
#include "net/session.hpp"
#include "predict/input_lead.hpp"
#include "predict/player_prediction.hpp"
#include "predict/prediction_stats.hpp"
#include "predict/remote_agents.hpp"
#include "replay/recording.hpp"
#include "view/label_layout.hpp"
#include "view/renderer.hpp"
#include "view/world_layers.hpp"

namespace flockstep::client {

/// Events counted over a sliding window (snapshots per second, corrections per minute, ...).
struct RateWindow {
  std::deque<std::pair<double, double>> samples;  // time ms, amount
  double window_ms = 1000;
  void add(double t, double amount = 1) { samples.push_back({t, amount}); }
  double sum(double now) {
    while (!samples.empty() && samples.front().first < now - window_ms) samples.pop_front();
    double s = 0;
    for (const auto& p : samples) s += p.second;
    return s;
  }
};

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
class Viewer {
 public:
  static constexpr const char* kCanvas = "#canvas";
  static constexpr double kInterpolationDelayMs = 100;  ///< two snapshot intervals at 20 Hz
  /// Rooms with at most this many agents per group label every agent with its group (gallery-
  /// style demos, one agent per technique); larger rooms label the followed agent and players.
  static constexpr double kLabelAgentsPerGroup = 3;
  /// Agents are drawn at least this tall on screen (device px), so a fitted 400 m world still
  /// shows shapes, not dust.
  static constexpr float kMinAgentPx = 9;
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
  void step_once() {
    if (paused_) paused_tick_ += 1;
  }
  void follow(std::uint32_t id) { follow_id_ = id; }
  void cycle_player(int dir);
  void touch(double turn, double throttle, bool active) { input_.touch(turn, throttle, active); }
  void set_url(const std::string& url) { url_ = url; }
  void drop() { session_.drop(emscripten_get_now()); }
  void set_room(const std::string& room) { room_ = room; }
  std::uint8_t* replay_buffer(std::size_t n) {
    replay_data_.assign(n, 0);
    return replay_data_.data();
  }
  bool replay_open();
  void replay_control(const std::string& what, double value);
  void bench(std::int32_t n, bool run_sim);
  // The lab (lab/lab.cpp): any scenario as a sim::World in the page, no server.
  /// Ticks the lab runs at most per frame (a slow page slows the lab instead of spiralling).
  static constexpr std::int32_t kMaxLabStepsPerFrame = 4;
  /// Load scenario JSON and start it; "" or the error (key path first).
  std::string lab_load(const std::string& json_text);
  /// "paused" (0/1), "step" (value ticks, default 1; pauses), "speed" (0.1-4), "restart" (value =
  /// the new seed; 0 = the current seed + 1).
  void lab_control(const std::string& what, double value);
  /// Set a parameter of a group by its Tune path ("max_speed", "behaviors[1].weight", "count");
  /// "" or why not (the rules of the server's admin API: World::set_group).
  std::string lab_tune(std::int32_t group, const std::string& key, double value);
  /// The lab's scenario, as tuned, as a scenario file the server loads.
  std::string lab_export() const;
  /// Move the chasers' target, the lab's player craft (added on first use), to CSS px (x, y).
  bool lab_place(double x, double y);
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

 private:
  void start_session(codec::Role role, const std::string& name);
  void on_welcome(const v1::Welcome& w, bool resumed, bool world_ok, const std::string& detail);
  void on_snapshot(const SnapshotFrame& s, std::uint32_t bytes);
  void reconcile_own(const sim::AgentView& v, const SnapshotFrame& s, double now);
  void on_events(const v1::Events& e);
  void on_refused(const std::string& reason);
  void on_group_changed(const sim::Scenario& from, std::int32_t group);
  bool adopt_replay_world();
  void world_changed();
  void publish_world();
  void feed_paused(bool all);
  void replay_seek(double tick);
  void replay_feed(double limit_tick, bool quiet);
  void replay_frame(double frame_ms);
  void replay_close();
  void input_ticks(double frame_ms);
  void send_inputs();
  void update_camera(double frame_ms);
  void send_view();
  void fit_world();
  void bench_step(double frame_ms, double now);
  void render();
  void render_layers(const Camera& cam, bool minimap);
  void render_world(const Camera& cam, bool minimap);
  void build_instances(const Camera& cam, bool minimap);
  void annotate(const Camera& cam);
  void build_labels();
  /// The inspected agent's force breakdown as world-space arrows (each evaluated behaviour's
  /// weighted output, then the combined result), scaled by force_arrow_px so they read at any zoom.
  struct ForceArrow {
    Vec2 from, to;
    std::string label;
    Rgba color;
  };
  std::vector<ForceArrow> inspector_arrows() const;
  void publish(double now);
  void toast(const std::string& msg);
  double css_scale() const;
  bool layer_on(Layer l) const { return (layer_mask_ >> static_cast<unsigned>(l)) & 1u; }
  bool label_groups() const;
  Rgba color_of(const DrawAgent& a) const;
  /// "leader", "interceptor" or "follower" for a bourg_flock unit (AIDemo4's roles), else null.
  const char* flock_role_of(const DrawAgent& a) const;
  Shape shape_of(const DrawAgent& a) const;
  float scale_of(const DrawAgent& a) const;
  const sim::GroupSpec* group_of(const DrawAgent& a) const;
  const DrawAgent* drawn(std::uint32_t id) const;
  double server_tick_now(double now) const;
  behavior::CraftState own_pose() const;

  Renderer gl_;
  Session session_;
  /// The own craft's prediction lives in the session's protocol core (it reconciles there).
  PlayerPredictor& predictor_ = session_.predictor();
  RemoteAgents remote_;
  InputState input_;
  sim::Scenario scenario_;
  v1::WorldSpec world_spec_;  // the lab's world as a WorldSpec (a session's is its core's world_spec())
  WorldLayers layers_;        // built from scenario_ on every change
  std::string room_;          // room asked for (fs_set_room; empty = the server's default)
  std::string welcome_room_;  // Welcome.room: the room this connection is in
  bool have_world_ = false;
  std::string url_;
  std::string name_ = "pilot";
  Screen screen_ = Screen::kStart;
  std::string world_error_;
  bool antialias_ = true;

  // Welcome
  std::uint32_t entity_ = 0, player_id_ = 0;
  std::uint32_t tick_rate_ = 60, snapshot_rate_ = 20;
  double dt_ms_ = 1000.0 / 60;

  // Clocks
  double last_frame_ms_ = 0;
  double accum_ms_ = 0;
  ClockSync clock_;
  std::uint64_t last_snapshot_tick_ = 0;

  // Prediction
  behavior::CraftState pred_prev_{}, pred_cur_{};
  math::Vec2 smooth_offset_{};  // visual correction smoothing, m (decays)
  behavior::CraftState server_state_{};
  bool have_server_state_ = false;
  std::uint64_t server_state_tick_ = 0;
  std::uint32_t server_state_seq_ = 0;
  PredictionStats stats_;
  InputLead lead_;
  RateWindow corrections_window_{{}, 60000};
  std::uint64_t inputs_sent_msgs_ = 0;
  std::uint32_t captures_ = 0;
  std::uint64_t spawn_tick_ = 0;  // the own craft's (drawn: alive time, respawn protection)

  // The lab: its world, the scenario as tuned, and its clock.
  struct Lab {
    sim::Scenario scenario;
    std::unique_ptr<sim::World> world;
    sim::AgentId player;  // the target a click places (invalid until the first click)
    bool paused = false;
    std::int32_t pending_steps = 0;
    double speed = 1;
    double accum_ms = 0;
    double sim_ms = 0;  // smoothed cost of one tick, ms
  };
  std::unique_ptr<Lab> lab_;
  void lab_start();
  void lab_push(double now);
  void lab_step(double frame_ms, double now);

  // Offline benchmark (no server): synthetic agents, or a local sim::World
  std::int32_t bench_n_ = 0;
  std::unique_ptr<sim::World> bench_world_;
  std::vector<sim::AgentView> bench_agents_;
  std::uint64_t bench_tick_ = 0;
  double bench_accum_ms_ = 0;
  double bench_sim_ms_ = 0;

  // Others
  std::vector<DrawAgent> agents_;
  mutable std::unordered_map<std::uint32_t, std::int32_t> agent_index_;  // id -> agents_ index
  mutable bool agent_index_valid_ = false;
  bool extrapolate_ = false;
  double buffer_beyond_ticks_ = 0;

  // View
  Camera cam_;
  std::uint32_t follow_id_ = 0;
  std::uint32_t inspect_id_ = 0;  // agent shown in the inspector (0 = none)
  // The inspected agent's newest steering trace: from the server (SteeringTrace) or the lab's World.
  sim::SteeringTrace trace_{};
  bool trace_available_ = true;    // false: the room refused (it traces its 16 agents already)
  const char* trace_source_ = "";  // "server" or "lab"
  void on_steering_trace(const v1::SteeringTrace& t);
  bool annotations_ = false;
  std::uint32_t annotation_mask_ = 0x1F;                // per AgentKind bit
  std::uint32_t layer_mask_ = (1u << kLayerCount) - 1;  // per Layer bit
  int labels_mode_ = -1;                                // -1 auto (kLabelAgentsPerGroup), 0 off, 1 on
  bool trails_ = true;
  bool minimap_ = true;
  bool paused_ = false;
  double paused_tick_ = 0;
  static constexpr std::size_t kPausedAgentViews = 400000;  // ~40 MB of queued snapshots at most
  std::deque<std::pair<std::uint64_t, std::vector<sim::AgentView>>> paused_queue_;
  std::size_t paused_agents_ = 0;
  bool dragging_ = false, drag_moved_ = false;
  double drag_x_ = 0, drag_y_ = 0;
  std::deque<math::Vec2> trail_own_, trail_follow_;
  double trail_last_ms_ = 0;
  std::uint32_t trail_follow_id_ = 0;
  std::vector<PlacedLabel> labels_;   // this frame's labels, CSS px
  std::vector<ScreenBox> occluders_;  // the page's panels, CSS px (set_occluders)
  bool at_fit_ = false;               // the camera is where fit_world put it (refit when panels move)
  std::array<std::int32_t, kLayerCount + 1> drawn_layers_{};  // items drawn per layer (+ free tiles)

  // Replay (fs_replay_*): the whole file, its record index, a protocol core of its own fed
  // from the file (the recording's Welcome, group updates and snapshots)
  bool replay_ = false;
  bool replay_playing_ = false;
  double replay_speed_ = 1;
  double replay_tick_ = 0;
  std::uint64_t replay_first_ = 0, replay_last_ = 0;
  std::vector<std::uint8_t> replay_data_;
  std::vector<ReplayRecord> replay_records_;
  std::size_t replay_next_ = 0;  // next record to feed
  std::string replay_room_;
  std::string replay_error_;
  ProtocolCore replay_core_;

  // Scratch buffers (reused every frame)
  std::vector<Instance> inst_[static_cast<int>(Shape::kCount)];
  std::vector<ColorVertex> lines_;

  // Stats
  RateWindow frames_window_, snapshot_window_;
  RateWindow frame_cost_window_;
  std::deque<std::pair<double, std::uint64_t>> bytes_hist_;
  double frame_cost_ms_ = 0;
  double snapshot_cost_ms_ = 0;
  std::int32_t visible_ = 0;
  std::vector<ScoreRow> scores_;
  std::unordered_map<std::uint32_t, std::string> names_;
  std::string json_;
};

}  // namespace flockstep::client
