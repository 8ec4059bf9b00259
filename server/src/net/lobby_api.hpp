#pragma once
/// \file lobby_api.hpp
/// The room routes of the HTTP API, as pure functions without Beast (http_session.cpp
/// only routes and frames them; the tests call them directly too):
///   GET  /api/rooms                              the lobby: every available scenario
///   GET  /api/rooms/<name>/scenario              export: the room's current scenario as JSON
///   POST /api/admin/rooms/<name>/groups/<index>  live tuning (after check_admin)
///   POST /api/admin/rooms/<name>/recording/start  input-log recordings (after check_admin)
///   POST /api/admin/rooms/<name>/recording/stop
///   GET  /api/admin/recordings                    the recordings (the file itself: recording_file)
/// JSON shapes: docs/server.md ("Rooms, lobby and live tuning").
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace flockstep::server::game {
class Rooms;
}

namespace flockstep::server::net {

/// Status code and JSON body of an API answer.
struct ApiResponse {
  unsigned status = 200;
  std::string body;  ///< JSON text, ends with a newline
};

/// Admin POST bodies may be this large (other requests carry at most 1 KiB).
inline constexpr std::uint64_t kAdminBodyLimit = 16 * 1024;
/// How long a tuning request waits for the game thread to apply it.
inline constexpr std::chrono::milliseconds kTuneTimeout{2000};

/// GET /api/rooms.
ApiResponse rooms_json(const game::Rooms& rooms);
/// Where GET /api/rooms/<name>/scenario reads a running room's groups.
enum class ScenarioSource : std::uint8_t {
  kPublished,      ///< the room's published copy (game::Game::published): never waits; what the server runs
  kAskGameThread,  ///< the control of the route-hammer test only: wait for the game thread's answer
};
/// GET /api/rooms/<name>/scenario (404 for an unknown name).
ApiResponse room_scenario_json(const game::Rooms& rooms, std::string_view name,
                               ScenarioSource source = ScenarioSource::kPublished);
/// POST /api/admin/rooms/<name>/groups/<index> with `body` a JSON object of group field names
/// (codec::group_fields, e.g. "max_speed", "flock.w_separation") and/or "count". 400 names the
/// key; 404 unknown room or group; 409 room not running; 503 not applied within `timeout`.
ApiResponse tune_group(game::Rooms& rooms, std::string_view name, std::string_view index, std::string_view body,
                       std::chrono::milliseconds timeout = kTuneTimeout);

/// POST /api/admin/rooms/<name>/recording/<action>, action "start" or "stop" (404 otherwise).
ApiResponse recording_action(game::Rooms& rooms, std::string_view name, std::string_view action,
                             std::chrono::milliseconds timeout = kTuneTimeout);
/// GET /api/admin/recordings: every recording in recordings_dir with its size, ticks and room.
ApiResponse recordings_json(const game::Rooms& rooms);
/// GET /api/admin/recordings/<file>: `bytes` get the file (status 200) or the answer is a JSON
/// error (404 no such file, 409 still recording or incomplete).
ApiResponse recording_file(const game::Rooms& rooms, std::string_view file, std::string& bytes);

/// The routes under /api/rooms/ and /api/admin/rooms/: splits "<name>/<rest>"; false if malformed.
bool split_room_path(std::string_view tail, std::string_view& name, std::string_view& rest);

}  // namespace flockstep::server::net
