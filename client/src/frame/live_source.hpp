#pragma once
/// \file live_source.hpp
/// Live play and spectating as a frame source: a Session with the server (net/session.hpp, the
/// protocol core over a browser WebSocket). Others are drawn a fixed delay in the past between
/// two snapshots, or extrapolated to the present with the shared behaviour code; a spectator can
/// pause the view and step through what keeps arriving. A player's craft is predicted by the
/// core at every fixed client tick and reconciled with each snapshot; what is drawn is that
/// prediction, interpolated between the last two ticks, with corrections faded out.
///
/// The viewer keeps one LiveSource for the page (idle until Play or Spectate), so the link's
/// fields of window.__flockstep always come from it, as they came from the one Session before.
#include <cstdint>
#include <deque>
#include <string>

#include "frame/frame_source.hpp"
#include "input/input.hpp"
#include "net/session.hpp"
#include "predict/input_lead.hpp"
#include "predict/prediction_stats.hpp"

namespace flockstep::client {

class LiveSource final : public FrameSource {
 public:
  /// Snapshots a paused spectator view keeps at most (~40 MB of agent views).
  static constexpr std::size_t kPausedAgentViews = 400000;

  /// Ends of the session the viewer must act on (besides world_changed and toasts).
  struct Hooks {
    std::function<void(const std::string& reason)> refused;  ///< no such room: back to the lobby
  };

  LiveSource(FrameHost& host, InputState& input, Hooks hooks)
      : FrameSource(host), input_(input), hooks_(std::move(hooks)) {}
  const char* mode() const override { return "live"; }
  /// Live sessions are started with start(); open() is not how they begin.
  std::string open(std::span<const std::uint8_t> data) override;
  /// Join `room` at `url` as a player (display name) or a spectator.
  void start(codec::Role role, const std::string& name, const std::string& url, const std::string& room);
  void stop();
  bool started() const { return started_; }
  bool player() const { return player_; }

  void advance(const FrameInput& in) override;
  void sample(const FrameInput& in, std::vector<DrawAgent>& out) override;
  bool own_pose(behavior::CraftState& out) const override;
  /// "paused" (0/1; spectators only: the game does not wait for a player), "step" (one tick).
  void control(const std::string& what, double value) override;
  bool key(const std::string& code) override;
  bool paused() const override { return paused_; }
  void publish(nlohmann::json& j, double now) const override;
  std::string room() const override { return welcome_room_.empty() ? requested_room_ : welcome_room_; }

  Session& session() { return session_; }
  const Session& session() const { return session_; }
  std::uint32_t own_entity() const { return player_ ? entity_ : 0; }
  std::uint32_t player_id() const { return player_id_; }
  /// The server's state of the own craft (the ghost drawn next to the prediction), if any.
  const behavior::CraftState* server_state() const { return have_server_state_ ? &server_state_ : nullptr; }
  /// The own craft is within its respawn protection (drawn blinking).
  bool protected_now() const;
  /// Counts jumps of the own craft (respawn, a new world): the viewer clears its trail on a change.
  std::uint32_t own_jumps() const { return own_jumps_; }
  const std::string& world_error() const { return world_error_; }
  /// Measure the extrapolation error of held-back snapshots (RemoteAgents::enable_hold_errors)
  /// and publish it as extrap_holds.
  void set_measure_holds(bool on) {
    measure_holds_ = on;
    remote_.enable_hold_errors(on);
  }
  void set_requested_room(const std::string& room) { requested_room_ = room; }
  const std::string& requested_room() const { return requested_room_; }

 private:
  void on_welcome(const v1::Welcome& w, bool resumed, bool world_ok, const std::string& detail);
  void on_snapshot(const SnapshotFrame& s);
  void reconcile_own(const sim::AgentView& v, const SnapshotFrame& s, double now);
  void on_events(const v1::Events& e);
  void on_steering_trace(const v1::SteeringTrace& t);
  void feed_paused(bool all);
  void input_ticks(double frame_ms);
  void send_view(const Camera& cam);

  InputState& input_;
  Hooks hooks_;
  Session session_;
  PlayerPredictor& predictor_ = session_.predictor();
  bool started_ = false;
  bool player_ = false;
  std::string requested_room_;  // room asked for (fs_set_room; empty = the server's default)
  std::string welcome_room_;    // Welcome.room: the room this connection is in
  std::string world_error_;
  std::uint32_t entity_ = 0, player_id_ = 0;
  std::uint32_t inspect_ = 0;  // the agent whose traces are wanted

  // Prediction of the own craft, as drawn
  double accum_ms_ = 0;
  behavior::CraftState pred_prev_{}, pred_cur_{};
  math::Vec2 smooth_offset_{};  // visual correction smoothing, m (decays)
  behavior::CraftState server_state_{};
  bool have_server_state_ = false;
  std::uint64_t server_state_tick_ = 0;
  std::uint32_t server_state_seq_ = 0;
  PredictionStats stats_;
  InputLead lead_;
  mutable RateWindow corrections_window_{{}, 60000};
  std::uint64_t inputs_sent_msgs_ = 0;
  std::uint32_t captures_ = 0;
  std::uint64_t spawn_tick_ = 0;  // the own craft's (drawn: alive time, respawn protection)
  std::uint32_t own_jumps_ = 0;
  double snapshot_cost_ms_ = 0;
  bool measure_holds_ = false;
  mutable std::deque<std::pair<double, std::uint64_t>> bytes_hist_;

  // A paused spectator view: the tick shown and the snapshots kept for single steps
  bool paused_ = false;
  double paused_tick_ = 0;
  std::deque<std::pair<std::uint64_t, std::vector<sim::AgentView>>> paused_queue_;
  std::size_t paused_agents_ = 0;
};

}  // namespace flockstep::client
