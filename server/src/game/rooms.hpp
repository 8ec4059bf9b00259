#pragma once
/// \file rooms.hpp
/// The room registry: several rooms per server, keyed by scenario name. Every `*.json`
/// file in `scenario_dir` is an available scenario (validated at start-up); `scenario` is the
/// default room, started at start-up and never closed. Other rooms start when a Join names them
/// (at most `max_rooms` running at once, the default one included) and close after being empty
/// (no players, no spectators, no session holding them) for `room_idle_close_ms`. Rooms make way:
/// at max_rooms, a Join for a room that is not running closes the room that has been empty
/// longest (never the default room, one in use, or one recording an input log) and starts the
/// requested one (`room_eviction`). Each running room is one Game with its own thread.
/// Thread-safe; no Boost.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "flockstep/sim/scenario.hpp"
#include "game/input_log_recorder.hpp"
#include "game/published_rooms.hpp"
#include "game/scenario_file.hpp"
#include "game/room.hpp"

namespace flockstep::server::ops {
struct ServerMetrics;
class Logger;
}  // namespace flockstep::server::ops

namespace flockstep::server::game {

class Game;
class StateStore;

/// Read every `*.json` in `dir` (sorted by file name). Throws ScenarioError naming the file (and
/// the key). A missing or empty `dir` gives no scenarios; two files with the same scenario name
/// are an error.
std::vector<sim::Scenario> load_scenario_dir(const std::string& dir);
/// As load_scenario_dir, with each scenario's file name ("arena.json"), sorted by file name.
std::vector<ScenarioFile> load_scenario_files(const std::string& dir);

/// Registry settings (from config::Config).
struct RoomsConfig {
  RoomConfig room;  ///< every room's limits (room_name is set per room)
  std::uint32_t max_catchup_ticks = 5;
  std::uint32_t max_rooms = 8;  ///< running at once, default included. [>= 1]
  std::chrono::milliseconds idle_close{60000};
  /// At max_rooms, a Join for a room that is not running closes the room empty longest and starts
  /// the requested one; false = the Join is refused (config key room_eviction).
  bool make_way = true;
  std::string state_dir;                          ///< saved rooms (one file each); empty = rooms are not saved
  std::chrono::milliseconds save_interval{5000};  ///< periodic save; 0 = only at stop()
  InputLogSettings input_logs;                    ///< input-log recordings (dir empty = off)
  std::vector<std::string> record_rooms;          ///< rooms recorded whenever they run ("*" = every room)
  PublishSettings published;                      ///< published rooms (dir empty = publishing off)
};

/// One input-log recording in the recordings folder (GET /api/admin/recordings).
struct RecordingInfo {
  std::string file;  ///< file name in recordings_dir
  std::string room;
  std::string scenario;
  std::uint64_t bytes = 0;
  std::uint32_t tick_rate_hz = 0;
  std::uint64_t first_tick = 0;
  std::uint64_t last_tick = 0;  ///< the end record's tick, or the newest tick written so far
  std::uint64_t started_unix_ms = 0;
  bool recording = false;  ///< a room is writing it now
  bool complete = false;   ///< it has its end record (only complete recordings can be played)
  std::string end_reason;  ///< LogEnd.reason
  std::string error;       ///< why it is unreadable, when it is
};

/// Outcome of starting or stopping a recording (an HTTP status and a message or file name).
struct RecordingResult {
  int status = 200;
  std::string error;
  std::string file;
};

/// One row of GET /api/rooms.
struct RoomSummary {
  std::string name;
  std::string title;
  std::string description;
  bool running = false;
  std::uint32_t players = 0;
  std::uint32_t spectators = 0;
  std::uint32_t agents = 0;
  std::uint64_t tick = 0;
  /// What a Join does now: "joins" (running), "starts" (a slot is free, or an empty room makes
  /// way for it) or "full" (every running room is in use: the Join would be refused).
  std::string on_join;
  bool published = false;  ///< published through the admin API (published_rooms.hpp)
};

/// See file comment.
class Rooms {
 public:
  /// `default_scenario` is the default room; `others` the scenario_dir files (one with the
  /// default's name is skipped: the default file wins). Nothing runs until start(). With a
  /// state_dir, every saved room found there is restored now (the default one in place, others
  /// up to max_rooms); a file that cannot be restored is logged, set aside (`*.bad`) and its
  /// room starts fresh. Throws std::runtime_error when the state_dir cannot be created or written.
  Rooms(RoomsConfig config, sim::Scenario default_scenario, std::vector<sim::Scenario> others,
        ops::ServerMetrics* metrics, ops::Logger* log);
  ~Rooms();
  Rooms(const Rooms&) = delete;
  Rooms& operator=(const Rooms&) = delete;

  /// Start the default room's game, the restored rooms and the idle reaper.
  void start();
  /// Stop every room and the reaper (idempotent). With a state_dir, the first call then saves
  /// every room that was running (synchronously; logged as room_saved).
  void stop();
  /// Rooms restored from the state_dir at construction.
  std::size_t restored_count() const { return restored_; }

  /// The running room `name` ("" = default), starting it when needed; at max_rooms the room
  /// empty longest makes way (closed like an idle room, by the reaper thread). Null when there is
  /// no such scenario or every running room is in use; `why` then says which and names the open
  /// rooms (a Close reason).
  std::shared_ptr<Game> acquire(std::string_view name, std::string& why);
  /// The running room `name` ("" = default) or null (never starts one).
  std::shared_ptr<Game> running(std::string_view name) const;
  /// Is `name` an available scenario?
  bool known(std::string_view name) const;
  /// The scenario file of room `name` ("" = default) as loaded (no tuning); false if unknown.
  bool scenario(std::string_view name, sim::Scenario& out) const;
  /// The default room (always running between start() and stop()).
  Game& default_game() { return *default_; }
  const std::string& default_name() const { return default_name_; }
  std::uint32_t max_rooms() const { return config_.max_rooms; }
  /// Every available scenario, default first, then by name.
  std::vector<RoomSummary> list() const;
  /// Rooms running now.
  std::size_t running_count() const;

  // ---- input-log recordings (docs/replays.md); start/stop wait at most `timeout` for the room ----
  /// Start recording room `name` (404 unknown, 409 not running, already recording or
  /// recordings_max files, 503 recordings off or no answer in time).
  RecordingResult start_recording(std::string_view name, std::chrono::milliseconds timeout);
  /// Stop it; the file is complete when this returns 200 (404 unknown, 409 not recording).
  RecordingResult stop_recording(std::string_view name, std::chrono::milliseconds timeout);
  /// Every *.fslog file of recordings_dir, by file name (which are being written: the rooms'
  /// published copies, so this never waits for a room).
  std::vector<RecordingInfo> recordings() const;
  /// The bytes of a complete recording: 200, or 404 (no such file; the name is checked first) or
  /// 409 (still being recorded, or without an end record), with `error` set. Never waits for a room.
  int read_recording(std::string_view file, std::string& bytes, std::string& error) const;
  const InputLogSettings& input_log_settings() const { return config_.input_logs; }

  // ---- published rooms (published_rooms.hpp): scenarios published through the admin API ----
  /// Publish `body` (a scenario file) as room `name`, or replace the scenario of published room
  /// `name` (its running room closes: clients get a Close saying so). 503 publishing off, 400
  /// names the key (nothing changed), 409 a scenario_dir room has that name or published_max
  /// rooms are published, 500 the file could not be written (nothing changed).
  PublishResult publish(std::string_view name, std::string_view body, std::chrono::milliseconds timeout);
  /// Unpublish room `name`: its file is deleted and, when it runs, its clients get a Close
  /// saying so and it closes. 404 when no published room has that name.
  PublishResult unpublish(std::string_view name, std::chrono::milliseconds timeout);
  /// Every published room, by name.
  std::vector<PublishedInfo> published() const;
  const PublishSettings& publish_settings() const { return config_.published; }

 private:
  struct Entry {
    sim::Scenario scenario;
    std::shared_ptr<Game> game;  // null = not running
    std::chrono::steady_clock::time_point idle_since{};
    /// Set (by the game thread) while the running game records an input log; left set when a
    /// recording ends by itself, so a doubt keeps the room (a new game starts with it clear).
    std::shared_ptr<std::atomic<bool>> input_log = std::make_shared<std::atomic<bool>>(false);
    bool published = false;  // from published_dir (the admin API), not scenario_dir
  };
  /// Someone is in the room, or a session (joining, or about to leave) still holds it. Under mutex_.
  static bool in_use(const Entry& e);
  /// Could this running room close to make way for another? Under mutex_.
  bool can_make_way(const Entry& e) const;
  /// The running room empty longest that can make way, or rooms_.end(). Under mutex_.
  std::map<std::string, Entry, std::less<>>::iterator make_way_candidate();
  /// Stop a room already taken out of the registry (not under mutex_: stopping joins its
  /// thread), delete its saved state (a restart must not bring it back) and log `room_closed`.
  void close_room(const std::string& name, std::shared_ptr<Game> game, std::string_view reason);
  /// close_room for a room that goes away while clients may be in it: they get a Close with
  /// `reason` first (waiting at most `timeout` for the game thread to send it).
  void close_room_with_clients(const std::string& name, std::shared_ptr<Game> game, const std::string& reason,
                               std::chrono::milliseconds timeout);
  std::shared_ptr<Game> make_game(const sim::Scenario& s, bool is_default);
  /// record_rooms: start recording a game that just started, if its room is listed.
  void autostart_recording(const std::string& name, const std::shared_ptr<Game>& game,
                           std::shared_ptr<std::atomic<bool>> logging);
  /// On the game thread: a new recorder for `room` in recordings_dir, started.
  static RecordingResult start_on(Room& room, const InputLogSettings& settings, const std::string& name,
                                  ops::Logger* log);
  /// The game of room `name` (null when not running) and its input-log flag; false if unknown.
  bool running_with_log_flag(std::string_view name, std::shared_ptr<Game>& game,
                             std::shared_ptr<std::atomic<bool>>& logging) const;
  /// File names being written now (each running room's published copy).
  std::vector<std::string> active_recordings() const;
  void restore_saved();
  void reap();

  RoomsConfig config_;
  ops::ServerMetrics* metrics_;
  ops::Logger* log_;
  std::string default_name_;
  std::unique_ptr<StateStore> store_;                // before the games: their autosaves point into it
  std::unique_ptr<PublishedStore> published_store_;  // null = publishing off
  std::mutex publish_mutex_;                         // one publish / unpublish at a time (file, then registry)
  std::shared_ptr<Game> default_;
  std::size_t restored_ = 0;
  bool saved_at_stop_ = false;
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> rooms_;  // by scenario name
  /// A room taken out of the registry, for the reaper to stop (close_room).
  struct Closing {
    std::string name;
    std::shared_ptr<Game> game;
    std::string reason;
  };
  std::vector<Closing> to_close_;  // rooms that made way (acquire), stopped by the reaper
  std::condition_variable wake_;   // the reaper: stopping_, or to_close_ not empty
  bool stopping_ = false;
  std::thread reaper_;
};

}  // namespace flockstep::server::game
