#pragma once
/// \file room.hpp
/// The room: owns the sim World and everything about the people in it (players, spectators,
/// bots, resume tokens, input queues, scores) and produces the outbound messages of each tick.
/// Pure logic, single-threaded, no clocks and no sockets: Game runs it on its own thread and
/// the tests drive it tick by tick.
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/world.hpp"
#include "game/client_sink.hpp"
#include "game/snapshot_streams.hpp"

namespace flockstep::v1 {
class RoomState;
}

namespace flockstep::server::ops {
struct ServerMetrics;
struct RoomMetrics;
class Logger;
}  // namespace flockstep::server::ops

namespace flockstep::server::game {

/// Room limits and rates (filled from config::Config).
struct RoomConfig {
  std::uint32_t tick_rate_hz = 60;           ///< [1..240] (sim limit)
  std::uint32_t snapshot_rate_hz = 20;       ///< [1..tick_rate_hz]
  std::uint32_t max_players = 64;            ///< player crafts incl. bots
  std::uint32_t bots = 0;                    ///< server-side bot players
  std::uint32_t resume_window_ms = 10000;    ///< craft kept this long after a disconnect
  std::uint32_t input_buffer_ticks = 8;      ///< pending input frames per player
  std::uint32_t max_input_frames = 64;       ///< advertised in Welcome
  std::uint32_t snapshot_budget_kbps = 512;  ///< agent records per client, kbit/s; 0 = unlimited
  double aoi_radius_m = 100;                 ///< players receive agents this close to their craft; 0 = all
  double aoi_hysteresis_m = 10;              ///< agents in view leave only this far outside the area, m
  std::uint32_t ack_every_snapshots = 10;    ///< clients acknowledge at least this often (Welcome). [1..16]
  std::uint32_t sim_threads = 1;             ///< threads stepping the world (Game's pool; capped at the cores). [1..64]
  std::string room_name;                     ///< sent in Welcome.room; the scenario's name
  /// HMAC key of resume tokens (ops/token_hash.hpp; the state folder's, so that a restart still
  /// knows them); empty = a fresh key from the OS generator for this room.
  std::string token_key;
  bool report_world_tick = true;  ///< set the flockstep_world_tick gauge (the default room only)
};

class Recorder;
class InputLogRecorder;

/// Outcome of a tuning request (Room::tune and Game::post_tune).
struct TuneResult {
  int status = 200;        ///< HTTP status: 200 applied, 400 invalid, 404 no such group, 503 not applied in time
  std::string error;       ///< names the field for 400
  std::uint64_t tick = 0;  ///< tick whose step first used the new spec (200)
  sim::GroupSpec spec;     ///< the group as applied (200)
};

/// One field change of a tuning request: a group_fields name or "count", already type-checked.
struct TunePatch {
  std::string key;
  double value = 0;
};

/// See file comment.
class Room {
 public:
  /// `scenario` must be valid (sim::validate). Its tick rate and max_players are overridden by
  /// the config. Metrics and logger may be null (tests).
  Room(const RoomConfig& config, sim::Scenario scenario, ops::ServerMetrics* metrics, ops::Logger* log);
  /// Takes this room's share out of the summed gauges (clients, agents).
  ~Room();
  Room(const Room&) = delete;
  Room& operator=(const Room&) = delete;

  /// Live tuning: group `group` with `patches` applied, validated by sim::World::set_group, which
  /// applies it at the start of the next tick(); that tick broadcasts a GroupUpdate. Returns 400
  /// (error names the key) or 404 (no such group); 200 means queued (tick and spec are filled
  /// in by tick() via tuned()).
  TuneResult tune(std::int32_t group, const std::vector<TunePatch>& patches);
  /// Group updates applied by the last tick() (tick and spec set), then cleared by the next tick.
  const std::vector<std::pair<std::int32_t, TuneResult>>& tuned() const { return applied_tunes_; }

  /// Record this room's stream (Welcome now, then snapshots, events and group updates); null stops.
  void set_recorder(Recorder* recorder);

  /// Record this room as an input log from now on (input_log_recorder.hpp): the header and the
  /// first seek point are written now. "" or why not (already recording, the file failed).
  std::string start_input_log(std::unique_ptr<InputLogRecorder> recorder);
  /// End the input log (its end record, `reason`) and wait until the file is complete. Returns
  /// its path, "" when none was recording.
  std::string stop_input_log(std::string_view reason);
  /// The input log being written, or null.
  const InputLogRecorder* input_log() const { return input_log_.get(); }

  /// A connection sent a valid Join. Answers through `sink`: Welcome, or close (room full, bad resume).
  void join(ConnectionId conn, const std::shared_ptr<ClientSink>& sink, const codec::JoinRequest& request);
  /// Validated input frames of a connection (ignored unless it is a joined player). Frames with
  /// a sequence already received are skipped, so resent windows are applied once.
  void inputs(ConnectionId conn, std::span<const codec::InputFrame> frames);
  /// The connection inspects agent `agent` (0 = stops): from the next tick it receives a
  /// SteeringTrace of that agent with each snapshot. At most sim::kMaxTraced distinct agents are
  /// traced per room; a request beyond that gets one SteeringTrace{available = false}.
  void inspect(ConnectionId conn, std::uint32_t agent);
  /// The connection is gone. A player's craft waits resume_window_ms for a resume, unless the
  /// player `ended` the session (left on purpose): then its token ends and its craft leaves now.
  void leave(ConnectionId conn, bool ended = false);
  /// Close every connected player and spectator with `reason` and `detail` (the room is going
  /// away: a published room was unpublished or replaced). Their sessions then leave as usual.
  void close_clients(CloseReason reason, const std::string& detail);
  /// A client acknowledged a snapshot (and maybe sent its view rectangle): later snapshots are
  /// delta-coded against it. Ignored for unknown connections.
  void ack(ConnectionId conn, const codec::AckRequest& ack);

  /// One simulation tick: apply one queued input per player, step the world, turn its events
  /// into messages, expire resume windows, and send a snapshot when one is due.
  void tick();

  /// The room for a restart (state_dir): the world (codec::encode_world_state) and every
  /// player's session, score and input counters. Connections, spectators, queued inputs and the
  /// inspector are not kept. Runs on the game thread (or after it stopped).
  v1::RoomState save_state() const;
  /// As save_state() without the world's bytes and state hash: `world` gets a copy of the world
  /// instead (a few memcpys), for finish_room_state on another thread. The periodic save uses
  /// it so the game thread never runs the encoder (291 ms at 100,000 agents, docs/world-state.md).
  v1::RoomState save_state_deferred(std::unique_ptr<sim::World>& world) const;
  /// Replace this fresh room (call before the first tick()) by a saved one. Every check runs
  /// before anything changes: on an error the room is untouched (fresh) and the message says
  /// what did not fit. Saved players come back disconnected, their resume window counted from
  /// the saved tick (connected ones from it), so their tokens work for resume_window_ms.
  std::string restore(const v1::RoomState& saved);

  const sim::World& world() const { return world_; }
  /// Lend the world threads for its per-agent phases (results do not depend on them); the
  /// runner's context must outlive the room's ticks.
  void set_task_runner(const sim::TaskRunner& runner) { world_.set_task_runner(runner); }
  /// The scenario as sent to clients (without the border walls the World adds).
  const sim::Scenario& scenario() const { return scenario_; }
  std::uint64_t current_tick() const { return world_.tick(); }
  /// Craft of a connection's player, invalid if none (tests, metrics).
  sim::AgentId entity_of(ConnectionId conn) const;
  /// Newest input sequence applied for a connection's player.
  std::uint32_t last_applied_of(ConnectionId conn) const;
  std::size_t player_count() const { return players_.size(); }
  std::size_t spectator_count() const { return spectators_.size(); }
  /// Connected human players (not bots, not crafts waiting for a resume).
  std::size_t connected_players() const;
  /// Snapshot ticks so far (each encodes one body per distinct area and baseline, see streams()).
  std::uint64_t snapshots_encoded() const { return snapshots_encoded_; }
  /// The per-client delta streams (history, baselines, sharing counters).
  const SnapshotStreams& streams() const { return streams_; }

 private:
  struct Player {
    std::uint32_t player_id = 0;
    ConnectionId conn = 0;  // 0 = disconnected (waiting for resume) or bot
    std::weak_ptr<ClientSink> sink;
    sim::AgentId entity;
    std::string name;
    std::string token_hash;  // ops::token_hash of the resume token (the token itself is never kept)
    std::deque<codec::InputFrame> pending;
    std::uint32_t last_received = 0;  // newest sequence accepted into `pending`
    std::uint32_t last_applied = 0;   // newest sequence applied to the world
    std::uint64_t applied_tick = 0;   // world tick right after the step that applied it
    std::uint32_t input_slips = 0;    // held ticks + dropped frames so far (PlayerSnapshot.input_slips)
    std::uint64_t disconnected_tick = 0;
    bool bot = false;
    math::Rng bot_rng;
    sim::PlayerInput bot_input;
    std::uint64_t best_ticks = 0;
    std::uint32_t captures = 0;
    bool plain = false;  // plain Snapshot messages (Join.plain_snapshots)
  };
  /// PlayerSnapshot.last_input_sequence / input_held_ticks for this player at the current tick.
  codec::InputProgress input_progress(const Player& p) const;
  struct Spectator {
    std::uint32_t player_id = 0;
    std::weak_ptr<ClientSink> sink;
    std::string name;
    bool plain = false;  // plain Snapshot messages (Join.plain_snapshots)
  };

  /// save_state() but the world: version, room, tick, players.
  v1::RoomState session_state() const;
  Player* find_by_conn(ConnectionId conn);
  const Player* find_by_conn(ConnectionId conn) const;
  Player* find_by_entity(sim::AgentId id);
  /// A new resume token for `p`: kResumeTokenBytes (128 bits) from the OS generator
  /// (ops/os_random.hpp). `p` keeps only its hash; the token is returned for the Welcome.
  std::string new_token(Player& p);
  /// The craft of `p` leaves the world and the room (resume window over, or a deliberate leave);
  /// returns the next player.
  std::vector<std::unique_ptr<Player>>::iterator drop_player(std::vector<std::unique_ptr<Player>>::iterator it);
  void add_bot(std::uint32_t index);
  void drive_bot(Player& p);
  void broadcast(const std::shared_ptr<const std::string>& message);
  void send_presence(const Player& p, bool joined);
  void send_scores();
  void send_snapshot();
  void update_agent_metrics();
  void apply_inspect_requests();
  void send_traces();
  std::shared_ptr<ClientSink> sink_of(ConnectionId conn) const;
  void update_client_metrics();
  // Every call that changes world_ goes through these, so an input log sees all of them.
  sim::AgentId world_add_player();
  void world_set_input(sim::AgentId id, sim::PlayerInput input);
  void world_remove(sim::AgentId id);
  void world_step();

  RoomConfig config_;  // config_.token_key is never empty after the constructor
  sim::Scenario scenario_;
  sim::World world_;
  ops::RoomMetrics* metrics_;  // this room's labelled series (linked to the totals); cached, no lookup per tick
  ops::Logger* log_;
  SnapshotStreams streams_;
  std::vector<std::unique_ptr<Player>> players_;
  std::unordered_map<ConnectionId, Spectator> spectators_;
  std::uint32_t next_player_id_ = 1;
  std::uint64_t resume_window_ticks_;
  std::uint64_t snapshots_encoded_ = 0;
  std::string scratch_;
  codec::SnapshotEncoder plain_encoder_;     // for clients that asked for plain snapshots
  std::vector<std::int32_t> pending_tunes_;  // groups queued with World::set_group for the next step
  std::vector<std::pair<std::int32_t, TuneResult>> applied_tunes_;
  Recorder* recorder_ = nullptr;
  std::unique_ptr<InputLogRecorder> input_log_;
  // The inspector: which agent each inspecting connection asked for, and what it was last sent.
  struct Inspecting {
    sim::AgentId agent;
    bool traced = false;            // among the World's traced agents (else: over kMaxTraced)
    bool told_unavailable = false;  // the "available = false" answer went out
    std::uint64_t sent_tick = 0;    // newest trace tick sent
  };
  std::unordered_map<ConnectionId, Inspecting> inspecting_;
  bool inspect_dirty_ = false;  // inspecting_ changed: rebuild the World's traced list
  // This room's last contribution to the summed gauges (several rooms share one registry):
  // players, spectators, bots, then agents by kind (player, flock, pursuer, patrol, wanderer).
  std::int64_t reported_[8] = {};
};

}  // namespace flockstep::server::game
