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
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "game/room.hpp"
#include "game/thread_pool.hpp"

namespace flockstep::server::game {

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
  void post_leave(ConnectionId conn);
  /// A client acknowledged a snapshot (and maybe sent its view): Room::ack at the next tick.
  void post_ack(ConnectionId conn, codec::AckRequest ack);

  /// Tick of the world (relaxed; for pongs and logs).
  std::uint64_t tick() const { return tick_.load(std::memory_order_relaxed); }

 private:
  struct Command {
    enum class Type : std::uint8_t { kJoin, kInputs, kLeave, kAck } type;
    ConnectionId conn = 0;
    std::shared_ptr<ClientSink> sink;
    codec::JoinRequest join;
    std::vector<codec::InputFrame> frames;
    codec::AckRequest ack = {};  // kAck
  };
  void push(Command c);
  void run();
  void drain();

  ThreadPool pool_;  // RoomConfig::sim_threads (capped); lent to the world; outlives room_
  Room room_;
  std::uint32_t tick_rate_hz_;
  std::uint32_t max_catchup_ticks_;
  ops::ServerMetrics* metrics_;
  ops::Logger* log_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Command> inbox_;
  std::vector<Command> work_;  // swapped with inbox_ under the lock, processed outside it
  bool stopping_ = false;
  std::thread thread_;
  std::atomic<std::uint64_t> tick_{0};
};

}  // namespace flockstep::server::game
