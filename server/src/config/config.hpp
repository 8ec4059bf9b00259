#pragma once
/// \file config.hpp
/// Server configuration. Precedence: command-line flags > environment variables (FLOCKSTEP_*) >
/// JSON config file (--config / FLOCKSTEP_CONFIG) > defaults. One table (config.cpp) defines every
/// key once: its JSON name (`max_connections`), flag (`--max-connections`), environment variable
/// (`FLOCKSTEP_MAX_CONNECTIONS`), limits and help text, so --help, docs/server.md and the
/// validation cannot disagree. Errors throw ConfigError whose message names the key or flag.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace flockstep::server::config {

/// Effective configuration. Every field has a default and a documented limit.
struct Config {
  // Network
  std::string host = "0.0.0.0";                ///< listen address
  std::uint32_t port = 8080;                   ///< TCP port; 0 = chosen by the OS (printed at start). [0..65535]
  std::uint32_t threads = 1;                   ///< I/O threads (the game has its own). [1..64]
  std::string web_root;                        ///< folder of the built viewer; empty = no static files
  std::uint32_t max_connections = 1100;        ///< open TCP connections, HTTP + WebSocket. [1..100000]
  std::uint32_t max_http_header_bytes = 8192;  ///< HTTP request header limit, bytes. [1024..65536]
  std::uint32_t handshake_timeout_ms = 5000;  ///< HTTP request, WS handshake and Join must arrive within. [100..600000]
  std::uint32_t idle_timeout_ms = 15000;      ///< WS idle timeout; Beast sends a ping at half of it. [1000..600000]
  std::uint32_t ping_interval_ms = 1000;      ///< application Ping for the RTT metric. [100..60000]
  std::uint32_t max_message_bytes =
      4096;  ///< largest client WS message (read_message_max); larger = close 1009. [64..1048576]
  std::uint32_t input_rate_hz = 120;       ///< client messages per second (token bucket rate). [1..100000]
  std::uint32_t input_burst = 30;          ///< token bucket size, messages. [1..100000]
  std::uint32_t max_input_frames = 64;     ///< InputFrames in one Input message. [1..1024]
  std::uint32_t input_buffer_ticks = 8;    ///< pending input frames per player; older ones are dropped. [1..600]
  std::uint32_t max_violations = 3;        ///< out-of-range values tolerated (clamped) before a kick. [1..1000000]
  std::uint32_t send_queue_snapshots = 2;  ///< snapshots queued per client; newer replaces older. [1..8]
  std::uint32_t send_queue_messages = 64;  ///< other messages (events, pongs) queued per client. [8..4096]
  std::uint32_t max_send_lag_ms = 3000;    ///< a client whose oldest unsent message is older is dropped. [100..60000]
  std::uint32_t socket_send_buffer_bytes =
      0;  ///< SO_SNDBUF per connection; 0 = kernel autotuning (up to tcp_wmem max). [0..16777216]
  std::uint32_t shutdown_timeout_ms = 5000;  ///< SIGTERM: hard exit after this. [100..60000]
  std::string allowed_origins;  ///< comma-separated browser Origins allowed to upgrade; empty = the serving origin
                                ///< (the Host header's); * = any
  std::string admin_token;      ///< bearer token for /api/admin/*; empty = admin API off (never logged)
  std::string trusted_proxies;  ///< comma-separated addresses / CIDR ranges whose X-Forwarded-For / Forwarded is
                                ///< believed; empty = none
  /// The ONE header a trusted proxy names the client in. X-Forwarded-For|Forwarded
  std::string forwarded_header = "X-Forwarded-For";
  /// Connections (HTTP + WebSocket) open at once per client address (IPv6: per /64); more get
  /// 429; 0 = unlimited. [0..100000]
  std::uint32_t max_sessions_per_address = 64;
  std::string metrics_port;  ///< "" = /metrics on the game port; a port number = /metrics only there (0 = OS-chosen)
  std::string echo_endpoint = "off";  ///< on = diagnostics WebSocket echo on /echo (conformance tools). off|on
  // Game
  std::string scenario = "scenarios/arena.json";  ///< scenario JSON file of the default room
  std::string scenario_dir = "scenarios";         ///< *.json files here are the other rooms; empty or missing = none
  std::uint32_t max_rooms = 8;                    ///< rooms running at once, default room included. [1..256]
  std::uint32_t room_idle_close_ms = 60000;  ///< a non-default room closes after being empty this long. [100..86400000]
  std::string room_eviction = "on";          ///< on = at max_rooms the room empty longest makes way for a Join. on|off
  std::string record;                        ///< recording file of the default room's stream; empty = off
  std::uint32_t record_keyframe_s = 5;       ///< seconds between recording keyframes. [1..3600]
  std::string recordings_dir;                ///< folder of input-log recordings (admin API, record_rooms); empty = off
  std::string record_rooms;             ///< comma-separated rooms recorded as input logs whenever they run; * = all
  std::uint32_t record_seek_s = 30;     ///< input logs: seconds between seek points. [1..3600]
  std::uint32_t recording_max_mb = 64;  ///< input logs: one recording ends before passing this, MiB. [1..4096]
  std::uint32_t recordings_max = 100;   ///< input logs: recordings the folder may hold; more are refused. [1..100000]
  std::string state_dir;                ///< folder of saved rooms (restart without ending games); empty = off
  std::uint32_t state_save_interval_s = 5;  ///< seconds between room saves; 0 = only on SIGTERM. [0..3600]
  std::string published_dir;         ///< folder of scenarios published through the admin API; empty = publishing off
  std::uint32_t published_max = 16;  ///< published rooms at once. [1..256]
  std::uint32_t published_max_agents = 4096;  ///< agents (and max_agents) of one published scenario. [1..1000000]
  std::uint32_t tick_rate_hz = 60;            ///< simulation ticks per second (overrides the scenario). [1..240]
  std::uint32_t snapshot_rate_hz = 20;        ///< snapshots per second. [1..tick_rate_hz]
  std::uint32_t max_catchup_ticks = 5;        ///< ticks run back-to-back after a stall; the rest are skipped. [1..600]
  std::uint32_t sim_threads =
      2;  ///< threads stepping the simulation, game thread included; capped at the cores; 1 = serial. [1..64]
  std::uint32_t max_players = 64;          ///< player crafts (clients + bots). [0..10000]
  std::uint32_t bots = 0;                  ///< server-side bot players. [0..max_players]
  std::uint32_t max_name_bytes = 32;       ///< display name length, bytes of UTF-8. [1..256]
  std::uint32_t resume_window_ms = 10000;  ///< a disconnected player's craft waits this long for a resume. [0..600000]
  std::uint32_t snapshot_budget_kbps =
      512;  ///< per-client budget of snapshot agent records, kbit/s; 0 = unlimited. [0..1000000]
  std::uint32_t aoi_radius_m =
      100;  ///< players receive agents within this distance of their craft, m; 0 = whole world. [0..1000000]
  std::uint32_t aoi_hysteresis_m = 10;  ///< an agent in view leaves only this far outside the area, m. [0..10000]
  /// Clients acknowledge at least every this many delta snapshots (Welcome.ack_every_snapshots);
  /// pacing allows that many more outstanding. [1..16]
  std::uint32_t ack_every_snapshots = 10;
  // Ops
  std::string log_format = "text";    ///< text | json
  std::string log_level = "info";     ///< debug | info | warn | error
  std::uint32_t log_rate_per_s = 20;  ///< log lines per second per event name. [1..100000]
  // Agones (used only when AGONES_SDK_HTTP_PORT is set: ops/agones.hpp)
  std::uint32_t agones_health_period_ms = 2000;  ///< Health ping period to the Agones sidecar. [100..60000]
  std::uint32_t agones_empty_shutdown_ms =
      300000;  ///< Shutdown after the room was empty this long; 0 = never. [0..86400000]

  std::string config_file;  ///< the JSON file that was read, if any
};

/// A configuration error. what() names the key, flag or variable and the accepted range.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Looks up an environment variable (injectable for tests); returns nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

/// Result of parsing the command line.
struct LoadResult {
  Config config;
  bool help = false;                 ///< --help given: print help_text() and exit 0
  bool healthcheck = false;          ///< --healthcheck given: probe /healthz on the configured port, exit 0/1
  bool version = false;              ///< --version given: print build_info::version_text() and exit 0
  std::vector<std::string> sources;  ///< per key in table order: "default", "file", "env", "flag"
};

/// Build the effective configuration. Throws ConfigError (unknown flag or key, bad value,
/// out of range, unreadable file).
LoadResult load(const std::vector<std::string>& args, const EnvLookup& env);

/// --help text: every flag with its environment variable, default and limit.
std::string help_text();

/// The effective configuration, one `key = value (source)` per line.
std::string describe(const LoadResult& r);

/// The effective configuration as one JSON object for the JSON log (`--log-format=json`):
/// {"file": path or null, "config": {key: value}, "sources": {key: source}}; numbers stay
/// numbers, the admin token shows only as "(set)" or "".
nlohmann::json describe_json(const LoadResult& r);

/// Markdown table of every key (for docs/server.md).
std::string markdown_reference();

}  // namespace flockstep::server::config
