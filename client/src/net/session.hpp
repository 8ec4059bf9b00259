#pragma once
/// \file session.hpp
/// The viewer's side of the protocol (proto/flockstep/v1/messages.proto): Join -> Welcome ->
/// input/snapshot loop, Ping/Pong for the round-trip time, and the reconnect policy:
/// exponential backoff with jitter (250 ms doubling to 8 s), resuming the same craft with the
/// Welcome's resume token while the server's resume window lasts, a fresh join when the server
/// answers BAD_RESUME. A silent socket (no message for 5 s) counts as lost.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "flockstep/v1/messages.pb.h"
#include "net/connection.hpp"

namespace flockstep::client {

/// Where the link is.
enum class LinkState : std::uint8_t {
  kIdle = 0,      ///< not started (start screen) or stopped by the user
  kConnecting,    ///< WebSocket opening
  kJoining,       ///< open, Join sent, waiting for Welcome
  kLive,          ///< Welcome received: snapshots flowing
  kWaitingRetry,  ///< lost; the next attempt starts at retry_at_ms()
};

/// Short name of a link state ("live", "reconnecting", ...), as shown by the viewer.
const char* to_string(LinkState s);

/// One decoded snapshot, as handed to the viewer (valid only during the callback).
struct SnapshotFrame {
  std::uint64_t server_tick = 0;
  std::uint32_t last_input_sequence = 0;  ///< players: newest input the server applied
  std::uint32_t input_held_ticks = 0;     ///< players: ticks the server held it since (queue dry)
  std::uint32_t input_slips = 0;          ///< players: held ticks + dropped frames so far (wrapping)
  std::uint64_t state_hash = 0;
  std::uint64_t baseline_tick = 0;  ///< 0 = it was a full snapshot
  /// Every agent in this client's area of interest at server_tick, sorted by id; the own craft's
  /// motion is the server's exact state (DeltaSnapshot.own), everything else dequantised.
  const std::vector<sim::AgentView>* agents = nullptr;
};

/// See file comment.
class Session {
 public:
  /// Callbacks into the viewer. Messages are valid only during the call.
  struct Handlers {
    std::function<void(const v1::Welcome& w, bool resumed)> on_welcome;
    std::function<void(const SnapshotFrame& s, std::uint32_t bytes)> on_snapshot;
    std::function<void(const v1::Events& e)> on_events;
    /// The link went down (a retry follows unless the user stopped).
    std::function<void(const std::string& reason)> on_lost;
    /// A tuning of one group was applied: replace WorldSpec.groups[u.group()].
    std::function<void(const v1::GroupUpdate& u)> on_group_update;
    /// The server refused the join for good (no such room, or no room left): no retry follows.
    std::function<void(const std::string& reason)> on_refused;
    /// The steering breakdown of the agent this client inspects (set_inspect).
    std::function<void(const v1::SteeringTrace& t)> on_steering_trace;
  };

  /// `url`: ws://host:port/ws.
  void configure(std::string url, Handlers handlers);
  /// Join as player (with a display name) or spectator, in `room` (scenario name; empty = the
  /// server's default room). Resets the resume token.
  void start(codec::Role role, std::string display_name, double now_ms, std::string room = {});
  /// Leave for good (user action): close cleanly, no reconnect.
  void stop();
  /// Timers: reconnect attempts, pings, the silence timeout. Call every frame.
  void update(double now_ms);

  /// Send the unacknowledged inputs (oldest first). False when not live.
  bool send_inputs(std::span<const codec::InputFrame> frames);
  /// Tests: close the socket as if the network had dropped it (a reconnect follows).
  void drop(double now_ms);

  LinkState state() const { return state_; }
  bool live() const { return state_ == LinkState::kLive; }
  codec::Role role() const { return role_; }
  /// Round-trip time, ms: median of the last 8 Ping/Pong exchanges (0 until the first Pong).
  /// Application level: includes the time the page takes to get to the message.
  double rtt_ms() const { return rtt_ms_; }
  /// Round-trip time of the newest Pong, ms.
  double last_rtt_ms() const { return last_rtt_ms_; }
  /// Attempts since the link was last live.
  std::int32_t attempt() const { return attempt_; }
  /// When the next attempt starts (kWaitingRetry), ms on the same clock as update().
  double retry_at_ms() const { return retry_at_ms_; }
  /// Why the last connection ended (server Close reason or WebSocket code).
  const std::string& last_close() const { return last_close_; }
  /// Successful (re)joins after the first one, and how many of them took the craft back.
  std::uint32_t reconnects() const { return reconnects_; }
  std::uint32_t resumes() const { return resumes_; }
  /// Room asked for in Join (empty = default).
  const std::string& room() const { return room_; }
  /// Welcome of the current (or last) connection.
  const v1::Welcome& welcome() const { return welcome_; }
  /// Bytes received and sent over every connection so far.
  std::uint64_t bytes_received() const { return bytes_received_total_ + conn_.bytes_received(); }
  std::uint64_t bytes_sent() const { return bytes_sent_total_ + conn_.bytes_sent(); }
  /// Smoothed time to parse one snapshot message (protobuf), ms.
  double snapshot_parse_ms() const { return snapshot_parse_ms_; }
  /// Messages the codec rejected (not counting the connection's end).
  std::uint32_t bad_messages() const { return bad_messages_; }
  /// Delta snapshots whose baseline was gone (a full one was requested) since start().
  std::uint32_t baseline_misses() const { return baseline_misses_; }
  /// Ask for agent `agent`'s steering breakdown (0 = none). Cheap to call every frame: an
  /// Inspect goes out when the wish changes, and again after every (re)join.
  void set_inspect(std::uint32_t agent);
  /// Set the view rectangle (area of interest) sent with the next Ack; spectators only.
  void set_view(const codec::ViewRect& view);

 private:
  void connect(double now_ms);
  void on_open(double now_ms);
  void on_message(const std::uint8_t* data, std::uint32_t size);
  void on_close(std::uint16_t code, const std::string& reason);
  void lost(const std::string& reason, bool retry_now);
  void send(const std::string& bytes);

  std::string url_;
  Handlers handlers_;
  Connection conn_;
  LinkState state_ = LinkState::kIdle;
  codec::Role role_ = codec::Role::kSpectator;
  std::string name_;
  std::string room_;
  std::string resume_token_;
  bool refused_ = false;  // Close CODE_UNKNOWN_ROOM: do not retry
  bool resuming_ = false;
  bool server_said_bad_resume_ = false;
  bool had_welcome_ = false;
  v1::Welcome welcome_;
  v1::ServerMessage msg_;             // reused for decoding
  codec::SnapshotReceiver receiver_;  // frames of the last 32 snapshots (delta baselines)
  codec::ViewRect view_{};
  bool view_dirty_ = false;
  std::uint32_t inspect_sent_ = 0;  // the agent the server traces for this connection
  std::uint32_t baseline_misses_ = 0;
  std::string out_;  // reused for encoding
  double now_ms_ = 0;
  double attempt_started_ms_ = 0;
  double last_message_ms_ = 0;
  double next_ping_ms_ = 0;
  double retry_at_ms_ = 0;
  double rtt_ms_ = 0;
  std::array<double, 8> rtt_samples_{};
  std::size_t rtt_count_ = 0;
  std::uint32_t pongs_this_connection_ = 0;
  double snapshot_parse_ms_ = 0;
  double last_rtt_ms_ = 0;
  std::int32_t attempt_ = 0;
  std::uint32_t reconnects_ = 0;
  std::uint32_t resumes_ = 0;
  std::uint32_t bad_messages_ = 0;
  std::uint64_t bytes_received_total_ = 0;
  std::uint64_t bytes_sent_total_ = 0;
  std::string last_close_;
};

}  // namespace flockstep::client
