#pragma once
/// \file input_log_recorder.hpp
/// Records one room as an input log (codec/input_log.hpp, docs/protocol.md "Input-log
/// recordings"): the Room reports every call it makes on its sim::World (add_player, remove,
/// set_input, set_group) and each step; this writes them with a seek point (the whole world)
/// every seek_interval_s and the state hash every second.
///
/// The game thread only appends small records to a buffer and copies the world for a seek point
/// (a few memcpys, as the periodic room save does); a writer thread of its own encodes seek
/// points and does every write, so neither the world-state encoder nor file I/O runs on the game
/// thread. The first I/O error ends the recording with one log line; the game never stops for it.
/// Limit: a recording ends (with its end record) before it would grow past max_bytes.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "codec/input_log.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::server::ops {
class Logger;
}

namespace flockstep::server::game {

/// Where and how input logs are written (from config::Config).
struct InputLogSettings {
  std::string dir;                        ///< recordings_dir; empty = input logs off
  std::uint32_t seek_interval_s = 30;     ///< record_seek_s: a seek point this often. [1..3600]
  std::uint64_t max_bytes = 64ull << 20;  ///< recording_max_mb: one recording ends before it grows past this
  std::uint32_t max_files = 100;          ///< recordings_max: *.fslog files the folder may hold
};

/// See file comment. Every method but the constructor's thread runs on the game thread.
class InputLogRecorder {
 public:
  /// Opens (creates, never overwrites) `path`; check ok(). `log` may be null.
  InputLogRecorder(std::string path, const InputLogSettings& settings, ops::Logger* log);
  /// Ends the writer thread after it wrote everything queued (finish() first for an end record).
  ~InputLogRecorder();
  InputLogRecorder(const InputLogRecorder&) = delete;
  InputLogRecorder& operator=(const InputLogRecorder&) = delete;

  /// Opened, and no I/O error so far.
  bool ok() const { return !failed_.load(std::memory_order_relaxed); }
  /// Still taking commands: started and neither finished nor failed.
  bool active() const { return started_ && !finished_ && ok(); }
  const std::string& path() const { return path_; }

  /// The header and the first seek point: the world as it is now, between two steps.
  void start(const sim::World& world, const std::string& room);

  // ---- the room's calls on its world, in call order ----
  void add_player(sim::AgentId returned) { enc_.add_player(returned); }
  void remove(sim::AgentId id) { enc_.remove(id); }
  void set_input(sim::AgentId id, sim::PlayerInput input) { enc_.set_input(id, input); }
  void set_group(std::int32_t group, const sim::GroupSpec& spec) { enc_.set_group(group, spec); }
  /// Just before World::step(): the commands of this tick.
  void before_step(const sim::World& world);
  /// Just after World::step(): the state hash each second, a seek point when due. Ends the
  /// recording (reason "size limit") when the next seek point would pass max_bytes.
  void after_step(const sim::World& world);
  /// The remaining commands and the end record; no more records after it.
  void finish(const sim::World& world, std::string_view reason);

  /// Bytes handed to the writer so far (seek points counted once encoded).
  std::uint64_t bytes() const { return buffered_total_ + seek_bytes_.load(std::memory_order_relaxed); }
  std::uint64_t first_tick() const { return first_tick_; }
  std::uint64_t seek_points() const { return seek_points_; }

 private:
  struct Item {
    std::string bytes;                  // framed records
    std::unique_ptr<sim::World> world;  // or a world to encode as a seek point
  };
  void hand_over(std::unique_ptr<sim::World> world);
  void writer();
  void fail(const char* op, int err);

  std::string path_;
  InputLogSettings settings_;
  ops::Logger* log_;
  std::FILE* file_ = nullptr;  // the writer thread's after the constructor
  codec::InputLogEncoder enc_;
  std::string buffer_;
  std::uint64_t buffered_total_ = 0;  // framed bytes of every record but the seek points
  std::uint64_t first_tick_ = 0;
  std::uint64_t last_seek_tick_ = 0;
  std::uint64_t seek_interval_ticks_ = 600;
  std::uint64_t hash_interval_ticks_ = 60;
  std::uint64_t seek_points_ = 0;
  bool started_ = false;
  bool finished_ = false;
  std::atomic<bool> failed_{false};
  std::atomic<std::uint64_t> seek_bytes_{0};  // framed bytes of the seek points written
  std::atomic<std::uint64_t> last_seek_size_{0};

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Item> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace flockstep::server::game
