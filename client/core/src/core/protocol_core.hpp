#pragma once
/// \file protocol_core.hpp
/// The one client side of the Flockstep protocol (proto/flockstep/v1/messages.proto), shared by
/// the browser viewer, the JavaScript SDK, the load bot and the viewer's replays. It takes the
/// bytes of server messages in and gives the bytes to send back plus what happened (a Welcome, a
/// decoded snapshot, a reconciliation of the own craft, a capture, a group update, ...). It owns
/// no socket, no timer and no clock: the transports (a browser WebSocket through Emscripten,
/// Beast in the bot, a recording file in replays) move the bytes and pass the time in.
///
/// What it does, once for everyone:
///   - Join with the resume token of the last Welcome (players), Welcome -> the WorldSpec decoded
///     ONCE into a sim::Scenario, which configures the snapshot receiver and the prediction;
///     a GroupUpdate patches only the group it names (decoded alone, the scenario re-validated);
///   - DeltaSnapshot -> codec::SnapshotReceiver -> Ack of what was decoded (with the spectator's
///     view rectangle when it changed); Ping -> Pong; Pong -> round-trip time;
///   - the player's input window (every unacknowledged input, at most Welcome.max_input_frames)
///     and the reconciliation of the predicted own craft with the server's (PlayerPredictor),
///     where a capture or respawn event of the own craft marks the next state as a respawn:
///     rebased on, never compared (only the server decides where a craft respawns);
///   - the link's state (connecting, joining, live, waiting to retry), its time-outs and ping
///     schedule, and the reconnect decision (ReconnectPolicy) when a connection ends.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "core/reconnect_policy.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/v1/messages.pb.h"
#include "predict/player_prediction.hpp"

namespace flockstep::client {

/// Where the link is.
enum class LinkState : std::uint8_t {
  kIdle = 0,      ///< not started, or stopped by the user, or refused for good
  kConnecting,    ///< the transport is opening a connection
  kJoining,       ///< open, Join sent, waiting for the Welcome
  kLive,          ///< Welcome received: snapshots flowing
  kWaitingRetry,  ///< lost; the next attempt starts at retry_at_ms()
};

/// Short name of a link state ("live", "reconnecting", ...).
const char* to_string(LinkState s);

/// How a session is set up.
struct CoreConfig {
  codec::Role role = codec::Role::kSpectator;
  std::string display_name;
  std::string room;  ///< scenario name; empty = the server's default room
  /// Decode every delta snapshot (the viewer, the SDK, replays). False (load bots at scale):
  /// acknowledge the server's tick without decoding, and keep the input window by
  /// PlayerSnapshot.last_input_sequence alone.
  bool decode_snapshots = true;
  /// Predict and reconcile the own craft (players of the viewer and the SDK). False: the input
  /// window is only trimmed by the server's acknowledgements.
  bool predict = true;
  /// Most inputs one Input message carries (further capped by Welcome.max_input_frames). [1, 64]
  std::uint32_t max_input_frames = kMaxInputFrames;
  ReconnectPolicy reconnect = ReconnectPolicy::viewer();
  static constexpr std::uint32_t kMaxInputFrames = 64;
};

/// What one received message was.
enum class Received : std::uint8_t {
  kError,            ///< not a usable ServerMessage (counted in bad_messages())
  kWelcome,          ///< a Welcome (world_ok: its world decoded)
  kSnapshot,         ///< a delta snapshot decoded and newer than the last: agents() describe it
  kSnapshotSkipped,  ///< a delta snapshot not shown: baseline missing (a full one was asked for), stale, or not decoded
  kPlainSnapshot,    ///< a plain (undeltaed) Snapshot
  kEvents,           ///< captures, respawns, scores, presence
  kGroupUpdate,      ///< one group was retuned (group; applied false if it did not fit the world)
  kSteeringTrace,    ///< the inspected agent's steering breakdown
  kPing,             ///< answered (reply)
  kPong,             ///< rtt_ms() updated
  kClose,            ///< the server's Close (the connection ends next)
  kIgnored,          ///< a message this state does not take (e.g. a snapshot before the Welcome)
};

/// The own craft's reconciliation after a snapshot.
struct OwnUpdate {
  bool reconciled = false;        ///< the own craft was in the snapshot and was reconciled
  bool had_state = false;         ///< there was a prediction before (false: the first state)
  bool respawned = false;         ///< a capture/respawn event came since the last state: rebased, not compared
  ReconcileResult result;         ///< what PlayerPredictor::reconcile found
  behavior::CraftState server{};  ///< the server's exact state of the craft
  behavior::CraftState before{};  ///< the prediction before the reconciliation
};

/// What receive() found. Pointers are valid until the next call into the core.
struct ReceiveResult {
  Received type = Received::kError;
  std::string detail;                  ///< why (kError, kSnapshotSkipped, a bad world or group)
  const std::string* reply = nullptr;  ///< bytes to send back now (Ack, Pong), or null
  // kWelcome
  bool resumed = false;   ///< the Welcome took the craft back (resume token accepted)
  bool world_ok = false;  ///< its WorldSpec decoded and validated
  // kSnapshot / kSnapshotSkipped
  bool baseline_missing = false;  ///< the delta's baseline was gone (acknowledged 0)
  bool stale = false;             ///< decoded fine but not newer than the newest (not shown)
  OwnUpdate own;                  ///< players with predict: the reconciliation
  // kGroupUpdate
  std::int32_t group = -1;
  bool applied = false;
};

/// What update() wants done.
struct UpdateResult {
  const std::string* send = nullptr;  ///< bytes to send now (a Ping), or null
  bool lost = false;                  ///< the link timed out: close the connection, then call closed()
  bool connect = false;               ///< the retry delay is over: open a new connection (then opened())
};

/// See file comment. Not thread-safe; one owner.
class ProtocolCore {
 public:
  static constexpr double kConnectTimeoutMs = 5000;    ///< socket open + Welcome
  static constexpr double kSilenceTimeoutMs = 5000;    ///< the server pings every second
  static constexpr double kPingIntervalMs = 1000;      ///< our pings (round-trip time), after 4 quick ones
  static constexpr std::size_t kRttSamples = 8;        ///< rtt_ms() is the median of this many
  static constexpr std::uint32_t kRttWarmupPongs = 2;  ///< first Pongs of a connection measure the page, not the net

  ProtocolCore() = default;
  ProtocolCore(const ProtocolCore&) = delete;  // the predictor points at scenario_
  ProtocolCore& operator=(const ProtocolCore&) = delete;

  // ---- session and link (the transport calls these as its connection changes) ----
  /// A new session: forgets the resume token, the prediction and every per-connection state;
  /// the link goes to kConnecting (the transport opens a connection, then calls opened()).
  void start(CoreConfig config, double now_ms);
  /// The user left: kIdle, the token forgotten, no retry.
  void stop();
  /// The transport's connection is open: returns the Join (with the resume token when a player
  /// reconnects and the last decision said resume). kJoining.
  const std::string& opened(double now_ms);
  /// The connection ended (socket closed, failed to open, or timed out). Returns the decision;
  /// the link goes to kWaitingRetry (retry_at_ms()) or kIdle. `reason`: the transport's words,
  /// used when the server sent no Close. `unit_random` in [0, 1) for the jitter.
  ReconnectDecision closed(const std::string& reason, double now_ms, double unit_random);
  /// Timers: connect and silence time-outs, the ping schedule, the end of a retry delay.
  UpdateResult update(double now_ms);

  // ---- messages ----
  /// One server message (binary protobuf). `now_ms`: the transport's clock (the one update() gets).
  ReceiveResult receive(std::span<const std::byte> bytes, double now_ms);
  /// A Welcome as a recording holds it, for replays that start over at a keyframe (no link).
  ReceiveResult receive(const std::string& bytes, double now_ms) {
    return receive(std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), now_ms);
  }

  /// One local tick of the player's control: the next sequence, the predicted craft stepped
  /// (PlayerPredictor::advance). 0 (nothing recorded) when not a welcomed player.
  std::uint32_t advance(sim::PlayerInput input);
  /// The Input message with every unacknowledged input (oldest first, at most the window), or
  /// null when there is none or the link is not live.
  const std::string* input_message();
  /// Frames the last input_message() carried.
  std::int32_t input_frames() const { return input_count_; }
  /// A Ping stamped `now_ms` (the Pong's echo gives the round-trip time); update() sends one
  /// every kPingIntervalMs while live.
  const std::string* ping(double now_ms);
  /// An Inspect for `agent` (0 = stop), always.
  const std::string* inspect(std::uint32_t agent);
  /// An Inspect when `agent` differs from what the server traces for this connection (reset by
  /// every Welcome), else null. Cheap to call every frame.
  const std::string* inspect_if_changed(std::uint32_t agent);
  /// Spectators: the area of interest, sent with the next Ack (and again after every Welcome).
  /// False (ignored) for players, non-finite values or min > max.
  bool set_view(const codec::ViewRect& view);
  /// A client Close (CODE_NORMAL), sent before leaving.
  const std::string& leave_message();

  // ---- state ----
  LinkState state() const { return state_; }
  bool live() const { return state_ == LinkState::kLive; }
  bool welcomed() const { return welcomed_; }
  const CoreConfig& config() const { return config_; }
  codec::Role role() const { return config_.role; }
  bool player() const { return config_.role == codec::Role::kPlayer; }
  /// The last Welcome (its world as received) and what it told.
  const v1::Welcome& welcome() const { return welcome_; }
  std::uint32_t entity() const { return entity_; }
  std::uint32_t player_id() const { return player_id_; }
  std::uint32_t tick_rate_hz() const { return tick_rate_hz_; }
  std::uint32_t snapshot_rate_hz() const { return snapshot_rate_hz_; }
  /// Inputs per Input message: min(config, Welcome.max_input_frames), >= 1.
  std::uint32_t input_window() const { return window_max_; }
  const std::string& resume_token() const { return resume_token_; }
  /// The world: decoded once from the Welcome, every GroupUpdate patched in (its tick rate is the
  /// Welcome's). Its address is stable for the core's life (the predictor points at it).
  const sim::Scenario& scenario() const { return scenario_; }
  /// The Welcome's WorldSpec with every GroupUpdate patched in (what a recording's seek rebuilds).
  const v1::WorldSpec& world_spec() const { return world_spec_; }
  /// The last decoded message (for transports that count its fields).
  const v1::ServerMessage& message() const { return msg_; }
  /// Agents of the newest decoded snapshot (own craft exact), sorted by id.
  const std::vector<sim::AgentView>& agents() const { return receiver_.agents(); }
  const codec::SnapshotReceiver& receiver() const { return receiver_; }
  /// The own-craft prediction and its input window.
  const PlayerPredictor& predictor() const { return predictor_; }
  PlayerPredictor& predictor() { return predictor_; }
  /// A capture or respawn of the own craft came and no state has been reconciled since.
  bool respawn_pending() const { return respawn_pending_; }

  /// Round-trip time, ms: median of the last kRttSamples Ping/Pong exchanges (0 until one counts).
  double rtt_ms() const { return rtt_ms_; }
  double last_rtt_ms() const { return last_rtt_ms_; }
  /// Connection attempts since the link was last live.
  std::int32_t attempt() const { return attempt_; }
  double retry_at_ms() const { return retry_at_ms_; }
  /// Why the last connection ended (the server's Close reason, else the transport's).
  const std::string& last_close() const { return last_close_; }
  /// Welcomes after the first one, and how many of them took the craft back.
  std::uint32_t reconnects() const { return reconnects_; }
  std::uint32_t resumes() const { return resumes_; }
  std::uint32_t bad_messages() const { return bad_messages_; }
  std::uint32_t baseline_misses() const { return baseline_misses_; }
  /// Acks sent, and delta snapshots received (decoded or not), over the core's life.
  std::uint64_t acks_sent() const { return acks_sent_; }
  std::uint64_t deltas_received() const { return deltas_received_; }
  /// Acknowledge at least every this many delta snapshots: the Welcome's ack_every_snapshots
  /// (1..codec::kMaxAckEverySnapshots; 1 when the server does not say).
  std::uint32_t ack_every() const { return ack_every_; }

 private:
  ReceiveResult on_welcome(const v1::Welcome& w);
  ReceiveResult on_delta(const v1::DeltaSnapshot& d);
  ReceiveResult on_group_update(const v1::GroupUpdate& u);
  void on_events(const v1::Events& e);
  void on_pong(std::uint64_t echo_us, double now_ms);
  void reconcile_own(const sim::AgentView& own, const v1::PlayerSnapshot& p, OwnUpdate& out);
  const std::string* ack();

  CoreConfig config_;
  LinkState state_ = LinkState::kIdle;
  v1::ServerMessage msg_;  // reused for decoding
  std::string out_;        // reused for encoding
  codec::SnapshotReceiver receiver_;
  PlayerPredictor predictor_;
  sim::Scenario scenario_;
  v1::WorldSpec world_spec_;
  v1::Welcome welcome_;
  bool welcomed_ = false;     // this connection has its Welcome
  bool had_welcome_ = false;  // some connection of this session had one
  bool resuming_ = false;     // the Join of this connection carried the token
  bool resume_next_ = true;   // the last decision said resume
  std::string resume_token_;
  v1::Close::Code server_close_ = v1::Close::CODE_UNSPECIFIED;
  std::uint32_t entity_ = 0, player_id_ = 0;
  std::uint32_t tick_rate_hz_ = 60, snapshot_rate_hz_ = 20, window_max_ = CoreConfig::kMaxInputFrames;
  bool respawn_pending_ = false;
  codec::ViewRect view_{};
  bool have_view_ = false, view_dirty_ = false;
  // Acks (see ack()): the Welcome's interval, snapshots since this connection's last ack (-1:
  // none acknowledged on this connection yet), totals.
  std::uint32_t ack_every_ = 1;
  std::int64_t since_ack_ = -1;
  std::uint64_t acks_sent_ = 0, deltas_received_ = 0;
  std::uint32_t inspect_sent_ = 0;
  std::array<InputRecord, CoreConfig::kMaxInputFrames> window_{};
  std::array<codec::InputFrame, CoreConfig::kMaxInputFrames> frames_{};
  std::int32_t input_count_ = 0;
  // Link timing
  double attempt_started_ms_ = 0, last_message_ms_ = 0, next_ping_ms_ = 0, retry_at_ms_ = 0, lost_at_ms_ = 0;
  std::int32_t attempt_ = 0;
  std::string last_close_;
  // Round-trip time
  std::array<double, kRttSamples> rtt_samples_{};
  std::size_t rtt_count_ = 0;
  std::uint32_t pongs_this_connection_ = 0;
  double rtt_ms_ = 0, last_rtt_ms_ = 0;
  // Counters
  std::uint32_t reconnects_ = 0, resumes_ = 0, bad_messages_ = 0, baseline_misses_ = 0;
};

}  // namespace flockstep::client
