#pragma once
/// \file session.hpp
/// The viewer's link to the server: one browser WebSocket (Connection) driven by the client's
/// protocol core (client/core/src/core/protocol_core.hpp), which does everything of the protocol:
/// Join -> Welcome -> input/snapshot loop, Ping/Pong for the round-trip time, the own craft's
/// reconciliation, and the reconnect policy (ReconnectPolicy::viewer(): exponential backoff with
/// jitter, 250 ms doubling to 8 s, resuming the same craft with the Welcome's resume token while
/// the server's resume window lasts, a fresh join when the server answers BAD_RESUME). This class
/// only moves bytes between the socket and the core, applies the core's decisions with the
/// browser's clock and random numbers, and calls the viewer back.
#include <cstdint>
#include <functional>
#include <string>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "core/protocol_core.hpp"
#include "flockstep/v1/messages.pb.h"
#include "net/connection.hpp"

namespace flockstep::client {

/// One decoded snapshot, as handed to the viewer (valid only during the callback).
struct SnapshotFrame {
  std::uint64_t server_tick = 0;
  std::uint32_t last_input_sequence = 0;  ///< players: newest input the server applied
  std::uint32_t input_held_ticks = 0;     ///< players: ticks the server held it since (queue dry)
  std::uint32_t input_slips = 0;          ///< players: held ticks + dropped frames so far (wrapping)
  std::uint64_t state_hash = 0;
  std::uint64_t baseline_tick = 0;  ///< 0 = it was a full snapshot
  /// Every agent in this client's area of interest at server_tick, sorted by id; the own craft's
  /// motion is the server's exact state (PlayerSnapshot.own), everything else dequantised.
  const std::vector<sim::AgentView>* agents = nullptr;
  /// Players: the own craft's reconciliation, done by the core (own->reconciled false: the craft
  /// was not in this snapshot).
  const OwnUpdate* own = nullptr;
};

/// See file comment.
class Session {
 public:
  /// Callbacks into the viewer. Messages are valid only during the call.
  struct Handlers {
    /// A Welcome; core().scenario() is its world (world_ok false: it did not decode, `detail` says why).
    std::function<void(const v1::Welcome& w, bool resumed, bool world_ok, const std::string& detail)> on_welcome;
    std::function<void(const SnapshotFrame& s, std::uint32_t bytes)> on_snapshot;
    std::function<void(const v1::Events& e)> on_events;
    /// The link went down (a retry follows unless the user stopped).
    std::function<void(const std::string& reason)> on_lost;
    /// A tuning of group `group` was applied to core().scenario().
    std::function<void(std::int32_t group)> on_group_update;
    /// The server refused the join for good (no such room, or no room left): no retry follows.
    std::function<void(const std::string& reason)> on_refused;
    /// The steering breakdown of the agent this client inspects (set_inspect).
    std::function<void(const v1::SteeringTrace& t)> on_steering_trace;
  };

  /// `url`: ws://host:port/ws.
  void configure(std::string url, Handlers handlers);
  /// Join as player (with a display name) or spectator, in `room` (scenario name; empty = the
  /// server's default room). Resets the resume token and the prediction.
  void start(codec::Role role, std::string display_name, double now_ms, std::string room = {});
  /// Leave for good (user action): close cleanly, no reconnect.
  void stop();
  /// Timers: reconnect attempts, pings, the silence timeout. Call every frame.
  void update(double now_ms);

  /// One local tick of the player's control (the core records and predicts it); 0 when not live.
  std::uint32_t advance(sim::PlayerInput input) { return core_.advance(input); }
  /// Send the unacknowledged inputs (oldest first, at most the Welcome's window). False when
  /// not live or nothing to send.
  bool send_inputs();
  /// Tests: close the socket as if the network had dropped it (a reconnect follows).
  void drop(double now_ms);

  /// The protocol core (the world, the prediction, the link state and its counters).
  const ProtocolCore& core() const { return core_; }
  PlayerPredictor& predictor() { return core_.predictor(); }
  LinkState state() const { return core_.state(); }
  bool live() const { return core_.live(); }
  codec::Role role() const { return core_.role(); }
  /// Round-trip time, ms: median of the last 8 Ping/Pong exchanges (0 until the first Pong).
  /// Application level: includes the time the page takes to get to the message.
  double rtt_ms() const { return core_.rtt_ms(); }
  /// Round-trip time of the newest Pong, ms.
  double last_rtt_ms() const { return core_.last_rtt_ms(); }
  /// Attempts since the link was last live.
  std::int32_t attempt() const { return core_.attempt(); }
  /// When the next attempt starts (kWaitingRetry), ms on the same clock as update().
  double retry_at_ms() const { return core_.retry_at_ms(); }
  /// Why the last connection ended (server Close reason or WebSocket code).
  const std::string& last_close() const { return core_.last_close(); }
  /// Successful (re)joins after the first one, and how many of them took the craft back.
  std::uint32_t reconnects() const { return core_.reconnects(); }
  std::uint32_t resumes() const { return core_.resumes(); }
  /// Room asked for in Join (empty = default).
  const std::string& room() const { return core_.config().room; }
  /// Welcome of the current (or last) connection.
  const v1::Welcome& welcome() const { return core_.welcome(); }
  /// Bytes received and sent over every connection so far.
  std::uint64_t bytes_received() const { return bytes_received_total_ + conn_.bytes_received(); }
  std::uint64_t bytes_sent() const { return bytes_sent_total_ + conn_.bytes_sent(); }
  /// Smoothed time to parse one snapshot message (protobuf), ms.
  double snapshot_parse_ms() const { return snapshot_parse_ms_; }
  /// Messages the codec rejected (not counting the connection's end).
  std::uint32_t bad_messages() const { return core_.bad_messages(); }
  /// Delta snapshots whose baseline was gone (a full one was requested) since start().
  std::uint32_t baseline_misses() const { return core_.baseline_misses(); }
  /// Ask for agent `agent`'s steering breakdown (0 = none). Cheap to call every frame: an
  /// Inspect goes out when the wish changes, and again after every (re)join.
  void set_inspect(std::uint32_t agent);
  /// Set the view rectangle (area of interest) sent with the next Ack; spectators only.
  void set_view(const codec::ViewRect& view) { core_.set_view(view); }

 private:
  void connect(double now_ms);
  void on_message(const std::uint8_t* data, std::uint32_t size);
  void on_close(std::uint16_t code, const std::string& reason);
  void lost(const std::string& reason);
  void send(const std::string* bytes);

  std::string url_;
  Handlers handlers_;
  Connection conn_;
  ProtocolCore core_;
  double snapshot_parse_ms_ = 0;
  std::uint64_t bytes_received_total_ = 0;
  std::uint64_t bytes_sent_total_ = 0;
};

}  // namespace flockstep::client
