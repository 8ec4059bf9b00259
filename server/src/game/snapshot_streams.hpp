#pragma once
/// \file snapshot_streams.hpp
/// The server side of the delta snapshot stream, Quake III style: per client a history
/// of the last kHistory frames it was sent (codec::ViewFrame: what it knows after each), the
/// newest snapshot tick it acknowledged, and its area of interest. Each snapshot is coded against
/// the acknowledged frame; a client with no usable baseline (just joined or resumed, never
/// acknowledged, or acknowledged something older than the history) gets a full snapshot.
///
/// The delivered baseline (where this departs from Quake III, whose snapshots travel over UDP
/// and may be lost): our transport is TCP, ordered and reliable, so a snapshot the connection
/// has written in full reaches the client before any later one, unless the connection dies. For
/// a client that has shown it decodes deltas (it acknowledged a snapshot, and has not asked for a
/// full one since), the baseline is the newest snapshot delivered to its socket when that is newer
/// than the acknowledged one (ClientSink::delivered_snapshot, passed to queue()). Its
/// acknowledgements then only pace it; the baseline no longer ages with the round trip (a client
/// 150 ms away is coded against the previous snapshot, like one on loopback), and spectators of
/// one view whose sockets keep up share one body whatever their round trips.
///
/// Encode once and share: within one snapshot tick, clients with the same area and the same
/// baseline frame object (e.g. spectators of the same view that acknowledged the same snapshot)
/// need identical bytes, so the first one's encoded body and frame are handed to the others
/// (the same shared_ptr; ClientSink sends a shared body without copying it).
///
/// Frames are immutable and shared_ptr-owned; a client keeps only the frames from its newest
/// acknowledged one on (older ones can never become a baseline again), at most kHistory.
///
/// Frame once: a spectator's body is also built once as a whole WebSocket frame (wire(); the
/// sessions write it to every socket unchanged, docs/protocol.md "Framing once, writing to many").
///
/// Lagging clients slow down, never grow (Quake III's and Source's "rate"): a client with
/// max_unacked + ack_every - 1 snapshots sent after the one it acknowledged (clients acknowledge
/// every ack_every-th snapshot, Welcome.ack_every_snapshots) gets no new snapshot until it
/// acknowledges more (its rate falls to what its link and its acks allow), except one every
/// stalled_every snapshots, so a lost acknowledgement cannot freeze it. Each is still a delta
/// against the baseline it has; the history counts snapshots sent, so a lower rate also makes
/// the history span longer. Full snapshots go only to a client that just joined, asked for one
/// (ack 0), or whose baseline left the history (after kHistory - max_unacked stalled sends).
/// A client whose acknowledgements all name frames already gone (in a join storm its first ack
/// can arrive after more than kHistory snapshots) is paced too, once kUnusableAckOutstanding full
/// snapshots are outstanding, so that its next ack finds its frame and it moves on to deltas.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "codec/snapshot_codec.hpp"
#include "flockstep/sim/world.hpp"
#include "game/client_sink.hpp"
#include "game/interest.hpp"

namespace flockstep::server::game {

/// Stream settings (from config::Config).
struct StreamConfig {
  std::uint32_t budget_bytes = 0;  ///< agent record bytes per snapshot per client; 0 = unlimited
  /// encode_queued() hands bodies to the task runner only for worlds of at least this many
  /// agents (smaller ones encode on the calling thread; see encode_queued).
  std::size_t parallel_encode_min_agents = 8192;
  InterestConfig interest;
  /// Snapshots a client may have outstanding after the one it acknowledged; with that many it
  /// waits for an acknowledgement (pacing, see the file comment). 6 snapshots = 300 ms of
  /// round trip at 20 Hz before the rate drops. 0 = off: every client gets every snapshot.
  /// [Limit: 0..kHistory - 2]
  std::uint32_t max_unacked = 6;
  /// A paced client still gets one snapshot every this many (20 = once a second at 20 Hz).
  /// [Limit: >= 1]
  std::uint32_t stalled_every = 20;
  /// Clients acknowledge at least every this many snapshots (Welcome.ack_every_snapshots): a
  /// client is lagging only with max_unacked + ack_every - 1 outstanding, so the round trip it
  /// may have before its rate drops is the same whatever its ack interval.
  /// [Limit: 1..kHistory - 1 - max_unacked]
  std::uint32_t ack_every = 1;
};

/// Counters of the streams (tests, bench, logs).
struct StreamStats {
  std::uint64_t encodes = 0;     ///< bodies encoded
  std::uint64_t shared = 0;      ///< sends that reused a body encoded for another client
  std::uint64_t full = 0;        ///< full snapshots encoded (no baseline)
  std::uint64_t body_bytes = 0;  ///< bytes of the encoded bodies
  std::uint64_t paced = 0;       ///< snapshots not sent to a lagging client (its rate dropped)
  codec::EncodeStats last;       ///< agent statistics of the newest encode
};

/// One agent as SnapshotStreams::begin samples it, before the sample is put in id order.
struct SampledRow {
  codec::QAgent agent;
  double x = 0, y = 0, speed = 0;
};

/// See file comment. Single-threaded (the game thread).
class SnapshotStreams {
 public:
  /// Frames remembered per client: a baseline older than this many snapshots is gone.
  static constexpr std::size_t kHistory = 32;
  /// A client that acknowledges, but only frames already gone (no baseline), is paced once this
  /// many snapshots are outstanding: the history still holds the two newest it could ack next
  /// plus room for the stalled sends. [Limit: < kHistory]
  static constexpr std::uint32_t kUnusableAckOutstanding = kHistory - 2;

  SnapshotStreams(const sim::Scenario& scenario, StreamConfig config);

  /// A client joined (or resumed on a new connection): its first snapshot is a full one.
  /// `delivered_baselines` (Join.delivered_baselines): it keeps every frame it decodes, so from
  /// its second snapshot on the newest one delivered can be the baseline before any ack.
  void add(ConnectionId conn, bool delivered_baselines = false);
  /// The client is gone.
  void remove(ConnectionId conn);
  /// The client acknowledged snapshot `tick` (0 = it lost its baselines: send a full one next) and
  /// optionally set its view rectangle. Unknown connections and ticks never sent are ignored.
  void ack(ConnectionId conn, std::uint64_t tick, const codec::ViewRect* view);
  /// Start a snapshot: quantise the world once (on the world's task runner: the sampling is per
  /// agent, in fixed chunks) and index it for the clients' areas. `state_hash` goes into every
  /// body of this snapshot (0 = none; Room sends it once per second).
  void begin(const sim::World& world, std::uint64_t state_hash);
  /// The world as sampled by the last begin(): every agent quantised, sorted by id (the recorder
  /// writes the same sample).
  const WorldSample& sample() const { return sample_; }
  /// begin() calls that sorted the id list again (the first, and after agents joined or left);
  /// every other call reused the last one and only looked its agents up.
  std::uint64_t order_rebuilds() const { return order_rebuilds_; }
  /// queue() for a client that lags too far behind (pacing): nothing to send this snapshot.
  static constexpr std::int32_t kPaced = -2;
  /// Queue one client's body (spectators: the view it sent; players: `area` around the craft).
  /// Clients that need the same bytes (same area, same baseline frame) get one body. Returns a
  /// ticket for body(), -1 for an unknown connection, or kPaced when the client lags and skips
  /// this snapshot (a lower rate, see the file comment).
  /// `delivered`: the newest snapshot tick the connection has written in full (0 = unknown), see
  /// the file comment.
  std::int32_t queue(ConnectionId conn, const Area* player_area, std::uint64_t delivered = 0);
  /// Encode every body queued since the last call, one task per distinct body on `runner` (the
  /// world's: the bytes are the same on any number of threads), then record each client's frame
  /// in its history.
  void encode_queued(const sim::TaskRunner& runner);
  /// The encoded ServerMessage{delta_snapshot} body of a ticket, after encode_queued().
  std::shared_ptr<const std::string> body(std::int32_t ticket) const;
  /// The same body as one complete WebSocket binary frame, built once per body, for the tickets
  /// of spectators (null for players' tickets: their suffix makes each message their own).
  std::shared_ptr<const std::string> wire(std::int32_t ticket) const;
  /// True when the ticket's body was encoded for it (not shared with an earlier ticket).
  bool fresh(std::int32_t ticket) const;
  /// queue() + encode_queued() on this thread + body(), for one client.
  std::shared_ptr<const std::string> encode_for(ConnectionId conn, const Area* player_area,
                                                std::uint64_t delivered = 0);
  /// End the snapshot: drop the per-tick share cache and the tickets.
  void end();

  const StreamStats& stats() const { return stats_; }
  /// Tick of the baseline the client's next snapshot would use (0 = full), for tests.
  std::uint64_t baseline_of(ConnectionId conn) const;
  /// Frames currently held for a client (tests: memory stays bounded).
  std::size_t history_size(ConnectionId conn) const;
  /// Snapshots sent to a client after the one it acknowledged (pacing; tests).
  std::uint32_t unacked_of(ConnectionId conn) const;
  const codec::WireGeometry& geometry() const { return geometry_; }

 private:
  struct Sent {
    std::uint64_t tick = 0;
    std::shared_ptr<const codec::ViewFrame> frame;
  };
  struct Client {
    std::array<Sent, kHistory> history{};  // free slots first, else the oldest is replaced
    std::uint64_t acked = 0;
    std::uint64_t delivered = 0;       // newest snapshot written in full to its connection (queue())
    std::uint32_t unacked = 0;         // snapshots sent after `acked` (history entries newer than it)
    std::uint64_t last_sent = 0;       // snapshot_count_ when it was last sent one
    bool acks_seen = false;            // it has acknowledged something (even a frame already gone)
    bool delivered_baselines = false;  // Join.delivered_baselines (add())
    std::uint64_t full_from = 0;       // tick of the first full snapshot since join or Ack{0} (0 = none yet)
    bool has_view = false;
    codec::ViewRect view;
  };
  struct Shared {
    std::shared_ptr<const std::string> body;
    std::shared_ptr<const std::string> wire;  // body as one WebSocket frame (spectators' jobs)
    std::shared_ptr<const codec::ViewFrame> frame;
  };
  /// Area (kind, circle, rectangle, always-visible id) and baseline frame: equal keys, equal bytes.
  using ShareKey = std::tuple<std::uint8_t, double, double, double, double, double, double, double, std::uint32_t, bool,
                              const codec::ViewFrame*>;
  /// One distinct body of this snapshot and the scratch to encode it (kept between snapshots).
  struct Job {
    Area area;
    const codec::ViewFrame* base = nullptr;
    bool spectators = false;  // a shareable body (no suffix): also framed once
    Shared out;
    std::int32_t users = 0;
    codec::EncodeStats stats;
    std::vector<codec::QAgent> visible;
    std::vector<float> weight;
    std::string bits;
  };
  struct Ticket {
    Client* client;
    std::int32_t job;
    bool shared;  // an earlier ticket of this snapshot has the same job
  };
  static void encode_job(void* self, std::int32_t index);

  const codec::ViewFrame* baseline(const Client& c) const;

  codec::WireGeometry geometry_;
  StreamConfig config_;
  std::unordered_map<ConnectionId, Client> clients_;
  WorldSample sample_;
  std::uint64_t tick_ = 0;
  std::uint64_t snapshot_count_ = 0;  // begin() calls: the pacing clock
  std::uint64_t state_hash_ = 0;
  std::map<ShareKey, std::int32_t> cache_;  // spectators' share key -> job
  std::vector<Job> jobs_;                   // [0, job_count_) are this snapshot's
  std::int32_t job_count_ = 0;
  std::int32_t encoded_jobs_ = 0;
  std::vector<Ticket> tickets_;
  std::size_t recorded_tickets_ = 0;
  std::vector<std::pair<std::uint32_t, std::int32_t>> order_;  // (id, dense index), sorted by id
  std::vector<SampledRow> rows_;                               // begin(): the sample in the world's storage order
  std::uint64_t order_rebuilds_ = 0;                           // begin() calls that had to sort order_ again
  StreamStats stats_;
};

}  // namespace flockstep::server::game
