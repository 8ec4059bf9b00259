#pragma once
/// \file room_state.hpp
/// Saved rooms on disk (key state_dir): the file format (flockstep.v1.RoomState, room_state.proto)
/// and a store that writes one file per room atomically, off the game threads.
///
/// A file is written as temp + fsync + rename + fsync of the folder, so a crash or power loss
/// mid-save leaves the previous complete file or the new one, never half of one. A file that
/// cannot be read, parsed or checked is reported and set aside (renamed to `*.bad`); its room
/// starts fresh.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "flockstep/sim/world.hpp"
#include "flockstep/v1/room_state.pb.h"

namespace flockstep::server::ops {
class Logger;
}

namespace flockstep::server::game {

/// RoomState.version written by this build; files of another version are refused.
inline constexpr std::uint32_t kRoomStateVersion = 1;
/// Largest state file read back, bytes: a 100,000-agent world is a few MB, so 256 MiB only
/// stops a wrong file (or a runaway one) from being read into memory whole.
inline constexpr std::uint64_t kMaxRoomStateBytes = 256ull << 20;
/// File name ending of a saved room, and of one set aside because it could not be restored.
inline constexpr std::string_view kRoomStateSuffix = ".room";
inline constexpr std::string_view kRejectedSuffix = ".bad";

/// Put the world into a room state: its state hash and codec::encode_world_state bytes.
void finish_room_state(v1::RoomState& state, const sim::World& world);
/// Serialise a room state (deterministic field order).
std::string encode_room_state(const v1::RoomState& state);
/// Parse and check the envelope of a state file: version, room name, a world. "" or why not.
std::string decode_room_state(std::string_view bytes, v1::RoomState& out);

/// The file of room `room` in `dir`: the name with every byte outside [A-Za-z0-9_-] written
/// as %XX (scenario names are free text), then kRoomStateSuffix.
std::string room_state_path(const std::string& dir, const std::string& room);
/// Write `bytes` to `path` atomically (temp file in the same folder, fsync, rename, fsync of the
/// folder), with permission bits `mode`. "" or the failing step with its OS error.
std::string write_file_atomic(const std::string& path, std::string_view bytes, unsigned mode = 0644);

/// One state file found at start-up.
struct SavedRoomFile {
  std::string path;
  v1::RoomState state;  ///< valid when error is empty
  std::string error;    ///< unreadable or malformed: why
};

/// See file comment. Thread-safe.
class StateStore {
 public:
  /// Creates `dir` (and parents) if missing and locks it (flock on `dir/.lock`, held until
  /// destruction: two live servers on one folder would restore the same rooms and hand out the
  /// same tokens twice). Throws std::runtime_error naming the folder if it cannot be created,
  /// written or locked (an unusable folder is a start-up error, not something found at SIGTERM).
  StateStore(std::string dir, ops::Logger* log);
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  const std::string& dir() const { return dir_; }
  /// Every `*.room` file of the folder, sorted by name, read and decoded (not yet checked
  /// against a scenario: that is Room::restore).
  std::vector<SavedRoomFile> load_all() const;
  /// Rename a file that could not be restored to `<path>.bad` (kept for a post-mortem; the room's
  /// next save writes a fresh file). Logged.
  void set_aside(const std::string& path, const std::string& why);

  /// Queue a save for the writer thread; a newer save of the same room replaces a queued one.
  /// Cheap (a move under a short lock): the game thread calls it. With `world`, the writer
  /// thread first completes the state with it (finish_room_state).
  void save_async(v1::RoomState state, std::unique_ptr<sim::World> world = nullptr);
  /// Write now on the calling thread (shutdown); a queued save of the same room is dropped.
  /// "" or the error (also logged).
  std::string save_now(const v1::RoomState& state);
  /// The room closed for good (idle): drop a queued save and delete its file.
  void remove(const std::string& room);
  /// Files written so far (tests, logs).
  std::uint64_t writes() const;

 private:
  void run();
  std::string write(const v1::RoomState& state);

  std::string dir_;
  ops::Logger* log_;
  int lock_fd_ = -1;
  // Lock order: io_mutex_ before mutex_. The writer holds io_mutex_ from taking a queued save to
  // the end of its write, so save_now and remove (which take io_mutex_ first) never race a write
  // of an older state; the game thread only ever takes mutex_, for a move.
  std::mutex io_mutex_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  struct Pending {
    v1::RoomState state;
    std::unique_ptr<sim::World> world;  // set: still to encode into `state`
  };
  std::map<std::string, Pending> pending_;  // by room
  bool stopping_ = false;
  std::uint64_t writes_ = 0;
  std::thread writer_;
};

}  // namespace flockstep::server::game
