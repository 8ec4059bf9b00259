#pragma once
/// \file room_state.hpp
/// Saved rooms on disk (key state_dir): the file format (flockstep.v1.RoomState, room_state.proto)
/// and a store that writes one file per room atomically, off the game threads.
///
/// A file is written as temp + fsync + rename + fsync of the folder, so a crash or power loss
/// mid-save leaves the previous complete file or the new one, never half of one. A file that
/// cannot be read, parsed or checked is reported and set aside (renamed to `*.bad`); its room
/// starts fresh.
///
/// At rest nothing is readable by other users: the folder is 0700 and every file in it (rooms,
/// `.bad` copies, the lock and the token key) 0600. Players' resume tokens are stored only as
/// HMAC-SHA256 hashes (ops/token_hash.hpp) under the key in `token.key`, made once from the OS
/// generator, so a copied state file hands out no craft.
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

/// RoomState.version written by this build (2: resume tokens as keyed hashes).
inline constexpr std::uint32_t kRoomStateVersion = 2;
/// Oldest version still read (1: raw resume tokens, hashed when restored); older or newer ones
/// are refused.
inline constexpr std::uint32_t kOldestRoomStateVersion = 1;
/// Largest state file read back, bytes: a 100,000-agent world is a few MB, so 256 MiB only
/// stops a wrong file (or a runaway one) from being read into memory whole.
inline constexpr std::uint64_t kMaxRoomStateBytes = 256ull << 20;
/// File name ending of a saved room, and of one set aside because it could not be restored.
inline constexpr std::string_view kRoomStateSuffix = ".room";
inline constexpr std::string_view kRejectedSuffix = ".bad";
/// The file of the resume-token key in the state folder (ops::kTokenKeyBytes raw bytes, 0600).
inline constexpr std::string_view kTokenKeyFile = "token.key";
/// Mode of every file in the state folder, and of the folder itself.
inline constexpr unsigned kStateFileMode = 0600;
inline constexpr unsigned kStateDirMode = 0700;

/// Put the world into a room state: its state hash and codec::encode_world_state bytes.
void finish_room_state(v1::RoomState& state, const sim::World& world);
/// Serialise a room state (deterministic field order).
std::string encode_room_state(const v1::RoomState& state);
/// Parse and check the envelope of a state file: version, room name, a world. "" or why not.
std::string decode_room_state(std::string_view bytes, v1::RoomState& out);

/// The file of room `room` in `dir`: the name with every byte outside [A-Za-z0-9_-] written
/// as %XX (scenario names are free text), then kRoomStateSuffix.
std::string room_state_path(const std::string& dir, const std::string& room);
/// Write `bytes` to `path` atomically (temp file in the same folder, created with permission
/// bits `mode`; fsync, rename, fsync of the folder). "" or the failing step with its OS error.
std::string write_file_atomic(const std::string& path, std::string_view bytes, unsigned mode = kStateFileMode);

/// One state file found at start-up.
struct SavedRoomFile {
  std::string path;
  v1::RoomState state;  ///< valid when error is empty
  std::string error;    ///< unreadable or malformed: why
};

/// See file comment. Thread-safe.
class StateStore {
 public:
  /// Creates `dir` (and parents) if missing, makes it kStateDirMode and locks it (flock on
  /// `dir/.lock`, held until destruction: two live servers on one folder would restore the same
  /// rooms and hand out the same tokens twice), then reads the token key or makes it. Throws
  /// std::runtime_error naming the folder if it cannot be created, written or locked (an
  /// unusable folder is a start-up error, not something found at SIGTERM).
  StateStore(std::string dir, ops::Logger* log);
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  const std::string& dir() const { return dir_; }
  /// The key rooms hash resume tokens with (ops::token_hash), the same in every process on this
  /// folder so that restored players' hashes still match their tokens. A key file of the wrong
  /// size is set aside (logged) and a new key made: saved players then cannot resume, but the
  /// server starts and the rooms are restored.
  const std::string& token_key() const { return token_key_; }
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

  void load_token_key();

  std::string dir_;
  ops::Logger* log_;
  int lock_fd_ = -1;
  std::string token_key_;
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
