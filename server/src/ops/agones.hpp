#pragma once
/// \file agones.hpp
/// Client of the Agones SDK sidecar's local REST API (https://agones.dev, "REST Game Server Client
/// API"), so a Flockstep room can run as one GameServer of an Agones Fleet. Active only when the
/// sidecar's port is known (environment variable AGONES_SDK_HTTP_PORT, which Agones sets);
/// without it the server runs standalone and nothing here is created.
///
/// What it tells the sidecar, all from its own thread (never the game or I/O threads; the room's
/// counts are read from atomic metrics gauges, so a slow or absent sidecar cannot delay a tick):
///   - POST /ready once, as soon as the room is loaded and listening (retried until the sidecar,
///     which may start after us, answers 2xx);
///   - POST /health every `health_period`;
///   - PUT /metadata/label `players` and `spectators` (Agones stores them as
///     `agones.dev/sdk-players` / `agones.dev/sdk-spectators`) whenever the counts change;
///   - player tracking (alpha, feature gate PlayerTracking): PUT /alpha/player/capacity once, then
///     POST /alpha/player/connect|disconnect so Status.Players.Count follows the number of human
///     players. The room reports counts, not identities, so the IDs are slot names `slot-1`..`slot-N`.
///     If the sidecar rejects the capacity call (gate off), player tracking is left off;
///   - POST /shutdown when the room has been empty (no players, no spectators) for `empty_shutdown`,
///     counted only once the room has had a client or the GameServer is Allocated (GET /gameserver),
///     so a warm Ready server waiting for its first allocation is never shut down. Agones then
///     stops the pod with SIGTERM, which the server already handles gracefully.
///
/// Beast's HTTP client lives in agones.cpp only (one translation unit), behind this header.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace flockstep::server::ops {

class Logger;
struct ServerMetrics;

/// The environment variable Agones sets to the sidecar's REST port.
inline constexpr const char* kAgonesPortVariable = "AGONES_SDK_HTTP_PORT";
/// How often the client samples the room's counts (and so the latency of label updates). Fixed:
/// sampling two atomics costs nothing, and the sidecar batches player updates per second anyway.
inline constexpr std::chrono::milliseconds kAgonesPollPeriod{250};
/// Pause between attempts while the sidecar does not answer /ready yet.
inline constexpr std::chrono::milliseconds kAgonesRetryPeriod{500};
/// One REST call (connect, request, response) must finish within this; the sidecar is local.
inline constexpr std::chrono::milliseconds kAgonesRequestTimeout{2000};

/// Human clients in the room, as reported to Agones (server-side bots are not counted).
struct RoomCounts {
  std::uint32_t players = 0;     ///< clients playing a craft
  std::uint32_t spectators = 0;  ///< clients watching
  /// Equal when both counts are.
  bool operator==(const RoomCounts&) const = default;
};

/// Settings of the Agones client.
struct AgonesOptions {
  std::string host = "localhost";                             ///< the sidecar listens on the pod's loopback
  std::uint16_t port = 0;                                     ///< REST port (AGONES_SDK_HTTP_PORT)
  std::chrono::milliseconds health_period{2000};              ///< Health ping period (config agones_health_period_ms)
  std::chrono::milliseconds empty_shutdown{300000};           ///< 0 = never (config agones_empty_shutdown_ms)
  std::uint32_t player_capacity = 0;                          ///< alpha player capacity; 0 = no player tracking
  std::chrono::milliseconds poll_period = kAgonesPollPeriod;  ///< count sampling period (tests shorten it)
};

/// Reads AGONES_SDK_HTTP_PORT's value: nullopt when unset or empty (standalone), the port when it
/// is a number in 1..65535. Throws std::invalid_argument naming the variable otherwise.
std::optional<std::uint16_t> agones_port_from_env(const char* value);

/// Counts from the server's gauges flockstep_clients{role="player"|"spectator"} (lock-free reads).
RoomCounts room_counts(const ServerMetrics& metrics);

/// The sidecar client: one thread of its own; see the file comment for what it sends and when.
class AgonesClient {
 public:
  /// Samples the room through `counts` (called on the client's thread; must be cheap and
  /// thread-safe). `log` must outlive the client.
  AgonesClient(AgonesOptions options, std::function<RoomCounts()> counts, Logger& log);
  /// Stops (see stop()).
  ~AgonesClient();
  AgonesClient(const AgonesClient&) = delete;
  AgonesClient& operator=(const AgonesClient&) = delete;

  /// Start the thread: Ready first, then the health/count/shutdown loop. Call once the room is
  /// loaded and the server listens.
  void start();
  /// Stop the thread without telling the sidecar anything (idempotent). An unfinished request is
  /// abandoned.
  void stop();

  /// The sidecar acknowledged Ready.
  bool ready() const;
  /// The client sent Shutdown and the sidecar acknowledged it (the loop has ended).
  bool shutdown_sent() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One blocking HTTP/1.1 request to host:port (for `flockstep-server --healthcheck`): the status
/// code, or 0 when there was no answer within `timeout` (refused, reset, timed out).
unsigned http_status(const std::string& host, std::uint16_t port, const std::string& method, const std::string& target,
                     std::chrono::milliseconds timeout);

}  // namespace flockstep::server::ops
