#pragma once
/// \file snapshot_streams.hpp
/// The server side of the delta snapshot stream, Quake III style: per client a history
/// of the last kHistory frames it was sent (codec::ViewFrame: what it knows after each), the
/// newest snapshot tick it acknowledged, and its area of interest. Each snapshot is coded against
/// the acknowledged frame; a client with no usable baseline (just joined or resumed, never
/// acknowledged, or acknowledged something older than the history) gets a full snapshot.
///
/// Encode once and share: within one snapshot tick, clients with the same area and the same
/// baseline frame object (e.g. spectators of the same view that acknowledged the same snapshot)
/// need identical bytes, so the first one's encoded body and frame are handed to the others
/// (the same shared_ptr; ClientSink sends a shared body without copying it).
///
/// Frames are immutable and shared_ptr-owned; a client keeps only the frames from its newest
/// acknowledged one on (older ones can never become a baseline again), at most kHistory.
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
};

/// Counters of the streams (tests, bench, logs).
struct StreamStats {
  std::uint64_t encodes = 0;     ///< bodies encoded
  std::uint64_t shared = 0;      ///< sends that reused a body encoded for another client
  std::uint64_t full = 0;        ///< full snapshots encoded (no baseline)
  std::uint64_t body_bytes = 0;  ///< bytes of the encoded bodies
  codec::EncodeStats last;       ///< agent statistics of the newest encode
};

/// See file comment. Single-threaded (the game thread).
class SnapshotStreams {
 public:
  /// Frames remembered per client: a baseline older than this many snapshots is gone.
  static constexpr std::size_t kHistory = 32;

  SnapshotStreams(const sim::Scenario& scenario, StreamConfig config);

  /// A client joined (or resumed on a new connection): its first snapshot is a full one.
  void add(ConnectionId conn);
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
  /// Queue one client's body (spectators: the view it sent; players: `area` around the craft).
  /// Clients that need the same bytes (same area, same baseline frame) get one body. Returns a
  /// ticket for body(), or -1 for an unknown connection.
  std::int32_t queue(ConnectionId conn, const Area* player_area);
  /// Encode every body queued since the last call, one task per distinct body on `runner` (the
  /// world's: the bytes are the same on any number of threads), then record each client's frame
  /// in its history.
  void encode_queued(const sim::TaskRunner& runner);
  /// The encoded ServerMessage{delta_snapshot} body of a ticket, after encode_queued().
  std::shared_ptr<const std::string> body(std::int32_t ticket) const;
  /// True when the ticket's body was encoded for it (not shared with an earlier ticket).
  bool fresh(std::int32_t ticket) const;
  /// queue() + encode_queued() on this thread + body(), for one client.
  std::shared_ptr<const std::string> encode_for(ConnectionId conn, const Area* player_area);
  /// End the snapshot: drop the per-tick share cache and the tickets.
  void end();

  const StreamStats& stats() const { return stats_; }
  /// Tick of the baseline the client's next snapshot would use (0 = full), for tests.
  std::uint64_t baseline_of(ConnectionId conn) const;
  /// Frames currently held for a client (tests: memory stays bounded).
  std::size_t history_size(ConnectionId conn) const;
  const codec::WireGeometry& geometry() const { return geometry_; }

 private:
  struct Sent {
    std::uint64_t tick = 0;
    std::shared_ptr<const codec::ViewFrame> frame;
  };
  struct Client {
    std::array<Sent, kHistory> history{};  // free slots first, else the oldest is replaced
    std::uint64_t acked = 0;
    bool has_view = false;
    codec::ViewRect view;
  };
  struct Shared {
    std::shared_ptr<const std::string> body;
    std::shared_ptr<const codec::ViewFrame> frame;
  };
  /// Area (kind, circle, rectangle, always-visible id) and baseline frame: equal keys, equal bytes.
  using ShareKey = std::tuple<std::uint8_t, double, double, double, double, double, double, double, std::uint32_t, bool,
                              const codec::ViewFrame*>;
  /// One distinct body of this snapshot and the scratch to encode it (kept between snapshots).
  struct Job {
    Area area;
    const codec::ViewFrame* base = nullptr;
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
  std::uint64_t state_hash_ = 0;
  std::map<ShareKey, std::int32_t> cache_;  // spectators' share key -> job
  std::vector<Job> jobs_;                   // [0, job_count_) are this snapshot's
  std::int32_t job_count_ = 0;
  std::int32_t encoded_jobs_ = 0;
  std::vector<Ticket> tickets_;
  std::size_t recorded_tickets_ = 0;
  std::vector<std::pair<std::uint32_t, std::int32_t>> order_;  // (id, dense index), sorted by id
  StreamStats stats_;
};

}  // namespace flockstep::server::game
