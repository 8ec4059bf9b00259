#pragma once
/// \file game.hpp
/// Runs the Room on its own thread at a fixed tick rate. Sessions hand it commands through a
/// mutex-protected inbox (a few microseconds under the lock, never any I/O); the game applies
/// them at the next tick boundary, in arrival order, and answers through ClientSinks, which post
/// to the sessions' strands. So the tick never blocks on a socket and no socket waits for a tick.
///
/// Clock: sim::TickClock turns elapsed steady-clock microseconds into whole ticks with a
/// catch-up limit (after a stall at most max_catchup_ticks run back to back; the rest are
/// skipped and counted).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "flockstep/v1/room_state.pb.h"
#include "game/room.hpp"
#include "game/thread_pool.hpp"

namespace flockstep::server::game {

// ---- published copies (HTTP routes read these; they never wait on the game thread) ----
/// What HTTP routes may read about a running room: an immutable copy the game thread publishes
/// whenever it changes (at construction, after a restore, after a tick that applied a tuning or
/// ran a posted call, and when an input log starts or ends). A route takes the latest copy under
/// a short mutex and never waits for a tick, so a flood of requests cannot hold up the I/O
/// threads that carry the snapshots (docs/security.md, "Routes and the game thread").
struct PublishedRoom {
  sim::Scenario scenario;      ///< the room's current scenario, tuned groups included
  std::string recording_path;  ///< the input log being written now; empty when none
};
// ---- end published copies ----

/// The room plus its thread. All public methods are thread-safe.
class Game {
 public:
  Game(const RoomConfig& config, sim::Scenario scenario, std::uint32_t max_catchup_ticks, ops::ServerMetrics* metrics,
       ops::Logger* log);
  ~Game();
  Game(const Game&) = delete;
  Game& operator=(const Game&) = delete;

  /// Start ticking on a new thread.
  void start();
  /// Stop ticking and join the thread (idempotent).
  void stop();

  void post_join(ConnectionId conn, std::shared_ptr<ClientSink> sink, codec::JoinRequest request);
  void post_inputs(ConnectionId conn, std::vector<codec::InputFrame> frames);
  /// The connection is gone: Room::leave. `ended`: the client left on purpose (Close message or
  /// WebSocket close 1000), so its resume token ends with it.
  void post_leave(ConnectionId conn, bool ended = false);
  /// A client acknowledged a snapshot (and maybe sent its view): Room::ack at the next tick.
  void post_ack(ConnectionId conn, codec::AckRequest ack);
  /// A client inspects an agent (0 = stops): Room::inspect at the next tick.
  void post_inspect(ConnectionId conn, std::uint32_t agent);
  /// Live tuning: Room::tune at the next tick boundary; the future is fulfilled after
  /// the tick that applied it (status 200, tick, spec) or at once with 400/404. A game that is
  /// stopped before answering breaks the promise (the future throws).
  std::future<TuneResult> post_tune(std::int32_t group, std::vector<TunePatch> patches);
  /// Before start(): replace the fresh room by a saved one (Room::restore; "" or why not, the
  /// room then stays fresh).
  std::string restore(const v1::RoomState& saved);
  /// Before start(): every `period` (> 0) the game thread takes the room's state between two
  /// ticks (Room::save_state_deferred: the sessions and a copy of the world) and hands both to
  /// `sink`, which must be quick: StateStore::save_async queues them for its writer thread, which
  /// encodes the world and writes the file, so neither the encoder nor file I/O runs here.
  void set_autosave(std::chrono::milliseconds period,
                    std::function<void(v1::RoomState, std::unique_ptr<sim::World>)> sink);
  /// The room's state; only while the game thread is not running (before start(), after stop()).
  v1::RoomState save_state() const { return room_.save_state(); }
  /// Time the game thread spent taking the last periodic state, microseconds (relaxed).
  std::uint64_t last_autosave_us() const { return last_autosave_us_.load(std::memory_order_relaxed); }
  /// Record the room's stream (call before start(); the game owns the recorder).
  void set_recorder(std::unique_ptr<Recorder> recorder);

  /// Tick of the world (relaxed; for pongs and logs).
  std::uint64_t tick() const { return tick_.load(std::memory_order_relaxed); }
  /// Connected human players, spectators and live agents after the last tick (relaxed; lobby).
  std::uint32_t players() const { return players_.load(std::memory_order_relaxed); }
  std::uint32_t spectators() const { return spectators_.load(std::memory_order_relaxed); }
  std::uint32_t agents() const { return agents_.load(std::memory_order_relaxed); }
  /// The latest published copy (never null; thread-safe, never waits for a tick).
  std::shared_ptr<const PublishedRoom> published() const;
  /// The room's current scenario (tuned groups included), copied on the game thread at the
  /// next tick boundary. Waits on the game thread, so no route uses it: only the control of the
  /// route-hammer test (a route made to wait, as routes did before published()). Broken promise
  /// if the game stops first.
  std::future<sim::Scenario> post_scenario();
  /// Run `call` on the game thread at the next tick boundary, in order with the other commands
  /// (input-log recordings start and stop this way), then publish a fresh copy, then run
  /// `answered` (if any): whoever it wakes reads published() with the call's effect in it.
  /// Dropped unrun if the game stops first.
  void post_call(std::function<void(Room&)> call, std::function<void()> answered = {});

 private:
  struct Command {
    enum class Type : std::uint8_t { kJoin, kInputs, kLeave, kAck, kTune, kScenario, kInspect, kCall } type;
    ConnectionId conn = 0;
    std::shared_ptr<ClientSink> sink;
    codec::JoinRequest join;
    std::vector<codec::InputFrame> frames;
    codec::AckRequest ack = {};                                  // kAck
    std::int32_t group = 0;                                      // kTune
    std::uint32_t agent = 0;                                     // kInspect
    std::vector<TunePatch> patches = {};                         // kTune
    std::shared_ptr<std::promise<TuneResult>> tune = {};         // kTune
    std::shared_ptr<std::promise<sim::Scenario>> scenario = {};  // kScenario
    std::function<void(Room&)> call = {};                        // kCall
    bool ended = false;                                          // kLeave: a deliberate leave
    std::function<void()> answered = {};                         // kCall, after publish()
  };
  void push(Command c);
  void run();
  void drain();
  /// On the game thread (or before start / after stop): publish a fresh PublishedRoom.
  void publish();

  ThreadPool pool_;                     // RoomConfig::sim_threads (capped); lent to the world; outlives room_
  std::unique_ptr<Recorder> recorder_;  // outlives room_ (which points to it)
  Room room_;
  std::vector<std::pair<std::int32_t, std::shared_ptr<std::promise<TuneResult>>>> waiting_tunes_;
  std::uint32_t tick_rate_hz_;
  bool report_world_tick_;
  std::uint32_t max_catchup_ticks_;
  ops::ServerMetrics* metrics_;
  ops::RoomMetrics* room_metrics_;  // this room's labelled series, cached at start
  ops::Logger* log_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Command> inbox_;
  std::vector<Command> work_;  // swapped with inbox_ under the lock, processed outside it
  bool stopping_ = false;
  std::thread thread_;
  std::atomic<std::uint64_t> tick_{0};
  std::chrono::milliseconds autosave_period_{0};
  std::function<void(v1::RoomState, std::unique_ptr<sim::World>)> autosave_;
  std::atomic<std::uint64_t> last_autosave_us_{0};
  std::atomic<std::uint32_t> players_{0}, spectators_{0}, agents_{0};
  // Published copies: swapped under published_mutex_ (held only to copy or swap the pointer).
  mutable std::mutex published_mutex_;
  std::shared_ptr<const PublishedRoom> published_;
  bool publish_due_ = false;             // game thread: a tuning or call may have changed the room
  const void* published_log_ = nullptr;  // game thread: the input log the last copy named
};

}  // namespace flockstep::server::game
