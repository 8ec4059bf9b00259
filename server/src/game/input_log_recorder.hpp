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
///
/// Limits (docs/replays.md, Limits):
/// - size: before every append the recording's projected size (records handed over, seek points
///   written, seek points queued at the size of the last one) plus room for the end record is
///   checked against max_bytes; past it the recording ends with reason "size limit". The writer
///   also refuses any write that would take the file past max_bytes (the file then stops at a
///   whole record without an end record, logged), so the file never grows past it.
/// - queue: what the writer has not written yet (records, and queued seek points at their
///   estimated size) is at most max_queue_bytes; a hand-over that would pass it ends the
///   recording with reason "writer behind" instead (a disk slower than the room).
/// Recording files are created 0600 (they hold every player's inputs), their folder 0700.
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
  /// Bytes queued for the writer thread, at most (records, and seek points at their estimated
  /// size): a writer this far behind ends the recording ("writer behind").
  std::uint64_t max_queue_bytes = 128ull << 20;
};

/// Longest part of a recording's file name taken from the room name, bytes.
inline constexpr std::size_t kMaxRecordingNameBytes = 64;
/// Mode of recording files and of the recordings folder.
inline constexpr unsigned kRecordingFileMode = 0600;
inline constexpr unsigned kRecordingDirMode = 0700;

/// File name of a recording of `room` started at `unix_ms`: the room name with every byte outside
/// [A-Za-z0-9_-] written as '_' (room names are scenario names, free text: never a path, a dot
/// file or a shell word), cut to kMaxRecordingNameBytes, then "-<unix_ms>.fslog".
std::string recording_file_name(std::string_view room, std::int64_t unix_ms);
/// Create the recordings folder if missing and make it kRecordingDirMode (when the server owns
/// it). "" or why it cannot be created.
std::string prepare_recordings_dir(const std::string& dir);

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
  /// recording (reason "size limit" or "writer behind", see the file comment) at a limit.
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
    std::uint64_t queued = 0;           // what it adds to queued_bytes_ (a seek point: its estimate)
  };
  void hand_over(std::unique_ptr<sim::World> world);
  /// The size and queue limits, before a seek point of `world` is added when `seek`: null, or
  /// the reason the recording must end.
  const char* over_limit(const sim::World& world, bool seek);
  /// Estimated framed size of a seek point of `world`: the last one's, or 512 bytes per agent.
  std::uint64_t seek_estimate(const sim::World& world) const;
  void writer();
  void fail(const char* op, int err);
  void fail(const char* op, const std::string& why);

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
  std::atomic<std::uint64_t> queued_seeks_{0};  // seek points handed over, not yet encoded
  std::atomic<std::uint64_t> queued_bytes_{0};  // record bytes + seek estimates not yet written
  std::uint64_t written_ = 0;                   // bytes in the file (writer thread)

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Item> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace flockstep::server::game
