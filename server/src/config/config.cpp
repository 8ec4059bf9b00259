#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <variant>

#include <nlohmann/json.hpp>

#include "codec/client_codec.hpp"
#include "config/trusted_proxies.hpp"

namespace flockstep::server::config {

namespace {

struct UintKey {
  std::uint32_t Config::*member;
  std::uint64_t min;
  std::uint64_t max;
};
struct StringKey {
  std::string Config::*member;
  std::vector<std::string> choices;  // empty = free text
  /// A comma-separated list: the JSON file may give it as an array of strings too.
  bool list = false;
  /// Checks the text beyond `choices`; throws ConfigError (the caller prefixes where it came from).
  void (*validate)(std::string_view) = nullptr;
};

void validate_proxies(std::string_view text) { (void)ProxyList::parse(text); }
void validate_port(std::string_view text) {
  if (text.empty()) return;
  if (text.size() > 5 || !std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch); }) ||
      std::stoul(std::string(text)) > 65535)
    throw ConfigError("'" + std::string(text) + "' is not a TCP port (0..65535, or empty)");
}

/// One configuration key. Everything user-visible is derived from this table.
struct Key {
  const char* name;
  std::variant<UintKey, StringKey> type;
  const char* help;
};

const std::vector<Key>& keys() {
  static const std::vector<Key> k = {
      {"host", StringKey{&Config::host, {}}, "listen address"},
      {"port", UintKey{&Config::port, 0, 65535}, "TCP port; 0 lets the OS choose (the chosen port is logged)"},
      {"threads", UintKey{&Config::threads, 1, 64}, "I/O threads (the simulation runs on its own thread)"},
      {"web_root", StringKey{&Config::web_root, {}},
       "folder with the built viewer (index.html, .js, .wasm); empty serves no files"},
      {"max_connections", UintKey{&Config::max_connections, 1, 100000},
       "open TCP connections (HTTP and WebSocket); more are refused"},
      {"max_http_header_bytes", UintKey{&Config::max_http_header_bytes, 1024, 65536},
       "HTTP request header limit, bytes"},
      {"handshake_timeout_ms", UintKey{&Config::handshake_timeout_ms, 100, 600000},
       "HTTP request, WebSocket handshake and Join must each arrive within this, ms"},
      {"idle_timeout_ms", UintKey{&Config::idle_timeout_ms, 1000, 600000},
       "WebSocket idle timeout, ms; a ping is sent at half of it"},
      {"ping_interval_ms", UintKey{&Config::ping_interval_ms, 100, 60000},
       "application Ping interval for the RTT metric, ms"},
      {"max_message_bytes", UintKey{&Config::max_message_bytes, 64, 1048576},
       "largest client WebSocket message, bytes; larger closes with 1009"},
      {"input_rate_hz", UintKey{&Config::input_rate_hz, 1, 100000},
       "client messages per second per connection (token bucket); excess is dropped"},
      {"input_burst", UintKey{&Config::input_burst, 1, 100000}, "token bucket size for input_rate_hz, messages"},
      {"max_input_frames", UintKey{&Config::max_input_frames, 1, 1024}, "InputFrames in one Input message"},
      {"input_buffer_ticks", UintKey{&Config::input_buffer_ticks, 1, 600},
       "pending input frames per player; the oldest are dropped beyond it"},
      {"max_violations", UintKey{&Config::max_violations, 1, 1000000},
       "out-of-range values (clamped) tolerated before the client is kicked"},
      {"send_queue_snapshots", UintKey{&Config::send_queue_snapshots, 1, 8},
       "snapshots queued per client; a newer one replaces the oldest unsent"},
      {"send_queue_messages", UintKey{&Config::send_queue_messages, 8, 4096},
       "other messages (events, pongs) queued per client before it is dropped"},
      {"max_send_lag_ms", UintKey{&Config::max_send_lag_ms, 100, 60000},
       "a client whose oldest unsent message is older than this is dropped, ms"},
      {"socket_send_buffer_bytes", UintKey{&Config::socket_send_buffer_bytes, 0, 16777216},
       "kernel send buffer per connection (SO_SNDBUF), bytes; bounds the kernel memory a client that stops reading can "
       "pin and how soon max_send_lag_ms notices it; 0 = kernel autotuning (up to net.ipv4.tcp_wmem, often 4 MiB)"},
      {"shutdown_timeout_ms", UintKey{&Config::shutdown_timeout_ms, 100, 60000},
       "on SIGTERM/SIGINT the process exits at the latest after this, ms"},
      {"allowed_origins", StringKey{&Config::allowed_origins, {}},
       "comma-separated Origins (https://host[:port]) a browser page must come from to open a WebSocket; others get "
       "403; empty = only the serving origin (the Origin's host[:port] equals the request's Host header); * allows "
       "any"},
      {"admin_token", StringKey{&Config::admin_token, {}},
       "bearer token required by /api/admin/* (compared in constant time); empty disables the admin API; prefer the "
       "environment variable (flags show in ps); never printed"},
      {"trusted_proxies", StringKey{&Config::trusted_proxies, {}, true, validate_proxies},
       "comma-separated IP addresses and CIDR ranges (IPv4 and IPv6) of reverse proxies: only a connection from one "
       "of them may name the client's address in Forwarded or X-Forwarded-For (the right-most address not in this "
       "list is the client); empty = none, every client is its TCP peer"},
      {"forwarded_header", StringKey{&Config::forwarded_header, {"X-Forwarded-For", "Forwarded"}},
       "the one header a trusted proxy names the client in (the other is ignored, so a client cannot smuggle an "
       "address through the header the proxy does not overwrite)"},
      {"max_sessions_per_address", UintKey{&Config::max_sessions_per_address, 0, 100000},
       "connections open at once from one client address, plain HTTP and WebSocket together (the address after "
       "trusted_proxies; IPv6 counted per /64); a further one gets 429 and is closed; 0 = unlimited"},
      {"metrics_port", StringKey{&Config::metrics_port, {}, false, validate_port},
       "serve /metrics on its own listener on this port (same host; 0 = chosen by the OS, logged) and answer 404 "
       "for /metrics on the game port; empty = /metrics on the game port"},
      {"echo_endpoint", StringKey{&Config::echo_endpoint, {"off", "on"}},
       "diagnostics: a WebSocket echo on /echo for conformance tools such as Autobahn; keep off in production"},
      {"scenario", StringKey{&Config::scenario, {}},
       "scenario JSON file of the default room (started at start-up, never closed; Join with an empty room joins it)"},
      {"scenario_dir", StringKey{&Config::scenario_dir, {}},
       "folder whose *.json scenario files are the other rooms, by scenario name (validated at start-up); empty or "
       "missing = only the default room"},
      {"max_rooms", UintKey{&Config::max_rooms, 1, 256},
       "rooms running at once, the default room included; beyond it an empty room makes way (room_eviction), or "
       "the Join is refused (CODE_UNKNOWN_ROOM) naming the open rooms"},
      {"room_idle_close_ms", UintKey{&Config::room_idle_close_ms, 100, 86400000},
       "a room other than the default one closes after it was empty (no players, no spectators) this long, ms"},
      {"room_eviction", StringKey{&Config::room_eviction, {"on", "off"}},
       "on: at max_rooms, a Join for a room that is not running closes the running room that has been empty longest "
       "(never the default room, one with players, spectators or a joining session, or one recording an input log) "
       "and starts the requested one; a Join is refused only when every running room is in use; off: refused at "
       "max_rooms"},
      {"record", StringKey{&Config::record, {}},
       "write the default room's snapshot stream to this file (recording format: docs/protocol.md); empty = no "
       "recording"},
      {"record_keyframe_s", UintKey{&Config::record_keyframe_s, 1, 3600},
       "recordings: a full snapshot (keyframe, seek point) every this many seconds"},
      {"recordings_dir", StringKey{&Config::recordings_dir, {}},
       "folder of input-log recordings (docs/replays.md): rooms listed in record_rooms and rooms the admin API "
       "starts recording are written here, and the admin API lists and serves them; created if missing; empty = "
       "input logs off"},
      {"record_rooms", StringKey{&Config::record_rooms, {}, true},
       "comma-separated rooms recorded as input logs whenever they run (a new file each time the room starts); * = "
       "every room; needs recordings_dir"},
      {"record_seek_s", UintKey{&Config::record_seek_s, 1, 3600},
       "input logs: seconds between seek points (a saved world a replay can start from)"},
      {"recording_max_mb", UintKey{&Config::recording_max_mb, 1, 4096},
       "input logs: a recording ends (complete, with its end record) before it would grow past this, MiB; also "
       "bounds the memory a download takes"},
      {"recordings_max", UintKey{&Config::recordings_max, 1, 100000},
       "input logs: recordings recordings_dir may hold; starting another is refused until some are deleted"},
      {"state_dir", StringKey{&Config::state_dir, {}},
       "folder where every running room is saved (world, players, resume tokens, scores) on SIGTERM and every "
       "state_save_interval_s, and restored from at start-up, so a restarted server continues its rooms and players "
       "resume with their tokens (docs/deploy.md); created if missing; empty = rooms are not saved"},
      {"state_save_interval_s", UintKey{&Config::state_save_interval_s, 0, 3600},
       "with state_dir: seconds between periodic room saves (a crash loses at most this much); 0 = save only on "
       "SIGTERM/SIGINT"},
      {"published_dir", StringKey{&Config::published_dir, {}},
       "folder of the scenarios published as rooms through the admin API (PUT /api/admin/published/<name>, the "
       "lab's Publish), one <name>.json each, mode 0600, loaded again at start-up; e.g. next to state_dir; "
       "created (0700) if missing; empty = publishing off"},
      {"published_max", UintKey{&Config::published_max, 1, 256},
       "rooms that may be published at once; publishing another is refused until one is unpublished"},
      {"published_max_agents", UintKey{&Config::published_max_agents, 1, 1000000},
       "a published scenario may hold at most this many agents (the sum of its group counts) and ask for at most "
       "this max_agents"},
      {"tick_rate_hz", UintKey{&Config::tick_rate_hz, 1, 240},
       "simulation ticks per second (overrides the scenario's)"},
      {"snapshot_rate_hz", UintKey{&Config::snapshot_rate_hz, 1, 240}, "snapshots per second (at most tick_rate_hz)"},
      {"max_catchup_ticks", UintKey{&Config::max_catchup_ticks, 1, 600},
       "ticks run back to back after a stall; older missed ticks are skipped"},
      {"sim_threads", UintKey{&Config::sim_threads, 1, 64},
       "threads stepping the simulation, the game thread included (capped at the CPU count); 1 = serial; results are "
       "identical for any value"},
      {"max_players", UintKey{&Config::max_players, 0, 10000},
       "player crafts, clients and bots together (overrides the scenario's)"},
      {"bots", UintKey{&Config::bots, 0, 10000}, "server-side bot players (at most max_players)"},
      {"max_name_bytes", UintKey{&Config::max_name_bytes, 1, 256}, "display name length, bytes of UTF-8"},
      {"resume_window_ms", UintKey{&Config::resume_window_ms, 0, 600000},
       "a disconnected player's craft waits this long for a resume, ms"},
      {"snapshot_budget_kbps", UintKey{&Config::snapshot_budget_kbps, 0, 1000000},
       "per-client bandwidth budget of snapshot agent records, kbit/s; when exceeded, nearer and faster-changing "
       "agents go first and the rest follow in later snapshots; 0 = unlimited"},
      {"aoi_radius_m", UintKey{&Config::aoi_radius_m, 0, 1000000},
       "area of interest: players receive agents within this distance of their craft, m (spectators: the view "
       "rectangle they send); 0 = whole world"},
      {"aoi_hysteresis_m", UintKey{&Config::aoi_hysteresis_m, 0, 10000},
       "an agent in a client's view leaves it only this far outside the area, m (no flicker at the edge)"},
      {"ack_every_snapshots", UintKey{&Config::ack_every_snapshots, 1, codec::kMaxAckEverySnapshots},
       "clients acknowledge at least every this many delta snapshots (told in the Welcome; at once on a lost "
       "baseline or a new view); snapshots are coded against the newest one written to the socket, so acks only "
       "pace a lagging client, and rarer ones save a read per snapshot on both ends; 1 = every snapshot"},
      {"log_format", StringKey{&Config::log_format, {"text", "json"}}, "log line format"},
      {"log_level", StringKey{&Config::log_level, {"debug", "info", "warn", "error"}}, "lowest level logged"},
      {"log_rate_per_s", UintKey{&Config::log_rate_per_s, 1, 100000},
       "log lines per second per event name; the rest are counted and summarised"},
      {"agones_health_period_ms", UintKey{&Config::agones_health_period_ms, 100, 60000},
       "Agones only (AGONES_SDK_HTTP_PORT set): Health ping period to the SDK sidecar, ms; keep it below the "
       "GameServer's health periodSeconds"},
      {"agones_empty_shutdown_ms", UintKey{&Config::agones_empty_shutdown_ms, 0, 86400000},
       "Agones only: ask the sidecar to Shutdown once the room, after it had clients or was Allocated, has been empty "
       "this long, ms; 0 = never"},
  };
  return k;
}

std::string flag_of(const std::string& key) {
  std::string f = "--" + key;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

std::string env_of(const std::string& key) {
  std::string e = "FLOCKSTEP_" + key;
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return e;
}

std::string limit_text(const Key& k) {
  if (const auto* u = std::get_if<UintKey>(&k.type)) return std::to_string(u->min) + ".." + std::to_string(u->max);
  const auto& s = std::get<StringKey>(k.type);
  if (s.list) return "list";
  if (s.choices.empty()) return "text";
  std::string out;
  for (const auto& c : s.choices) out += (out.empty() ? "" : "|") + c;
  return out;
}

std::string value_text(const Key& k, const Config& c) {
  if (const auto* u = std::get_if<UintKey>(&k.type)) return std::to_string(c.*(u->member));
  return c.*(std::get<StringKey>(k.type).member);
}

/// Set a key from text (flags, environment). `origin` names where the text came from.
void set_from_text(const Key& k, Config& c, const std::string& text, const std::string& origin) {
  if (const auto* u = std::get_if<UintKey>(&k.type)) {
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch); }))
      throw ConfigError(origin + ": '" + text + "' is not a non-negative integer (limit " + limit_text(k) + ")");
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v < u->min || v > u->max)
      throw ConfigError(origin + ": " + text + " is out of range (limit " + limit_text(k) + ")");
    c.*(u->member) = static_cast<std::uint32_t>(v);
    return;
  }
  const auto& s = std::get<StringKey>(k.type);
  if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), text) == s.choices.end())
    throw ConfigError(origin + ": '" + text + "' is not one of " + limit_text(k));
  if (s.validate) {
    try {
      s.validate(text);
    } catch (const ConfigError& e) {
      throw ConfigError(origin + ": " + e.what());
    }
  }
  c.*(s.member) = text;
}

void set_from_json(const Key& k, Config& c, const nlohmann::json& v, const std::string& origin) {
  if (std::holds_alternative<UintKey>(k.type)) {
    if (!v.is_number_integer()) throw ConfigError(origin + ": expected an integer (limit " + limit_text(k) + ")");
    if (v.is_number_unsigned()) set_from_text(k, c, std::to_string(v.get<std::uint64_t>()), origin);
    else {
      const auto i = v.get<std::int64_t>();
      if (i < 0)
        throw ConfigError(origin + ": " + std::to_string(i) + " is out of range (limit " + limit_text(k) + ")");
      set_from_text(k, c, std::to_string(i), origin);
    }
    return;
  }
  if (std::get<StringKey>(k.type).list && v.is_array()) {
    std::string joined;
    for (const auto& item : v) {
      if (!item.is_string()) throw ConfigError(origin + ": expected an array of strings");
      joined += (joined.empty() ? "" : ",") + item.get<std::string>();
    }
    return set_from_text(k, c, joined, origin);
  }
  if (!v.is_string())
    throw ConfigError(origin + ": expected a string" +
                      (std::get<StringKey>(k.type).list ? " or an array of strings" : "") + " (" + limit_text(k) + ")");
  set_from_text(k, c, v.get<std::string>(), origin);
}

const Key* find_key(const std::string& name) {
  for (const Key& k : keys())
    if (name == k.name) return &k;
  return nullptr;
}

void read_file(const std::string& path, Config& c, std::vector<std::string>& sources) {
  std::ifstream in(path);
  if (!in) throw ConfigError("config file '" + path + "' cannot be read");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError("config file '" + path + "' is not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw ConfigError("config file '" + path + "': top level must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Key* k = find_key(it.key());
    if (!k) throw ConfigError("config file '" + path + "': unknown key '" + it.key() + "'");
    set_from_json(*k, c, it.value(), "config file '" + path + "' key '" + it.key() + "'");
    sources[static_cast<std::size_t>(k - keys().data())] = "file";
  }
}

void cross_check(const Config& c) {
  if (c.snapshot_rate_hz > c.tick_rate_hz)
    throw ConfigError("snapshot_rate_hz (" + std::to_string(c.snapshot_rate_hz) + ") must not exceed tick_rate_hz (" +
                      std::to_string(c.tick_rate_hz) + ")");
  if (c.bots > c.max_players)
    throw ConfigError("bots (" + std::to_string(c.bots) + ") must not exceed max_players (" +
                      std::to_string(c.max_players) + ")");
}

}  // namespace

LoadResult load(const std::vector<std::string>& args, const EnvLookup& env) {
  LoadResult r;
  r.sources.assign(keys().size(), "default");

  // Pass 1: split flags into (key, value) and find --help / --config.
  std::vector<std::pair<std::string, std::string>> flags;  // flag as typed, value
  std::string config_path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      r.help = true;
      return r;
    }
    if (a == "--version") {  // like --help: nothing else on the line matters
      r.version = true;
      return r;
    }
    if (a == "--healthcheck") {  // a mode, not a key: the rest of the command line still applies
      r.healthcheck = true;
      continue;
    }
    if (a.rfind("--", 0) != 0)
      throw ConfigError("unexpected argument '" + a + "' (flags look like --name=value; see --help)");
    std::string name = a;
    std::string value;
    bool has_value = false;
    if (const auto eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) throw ConfigError("flag " + name + " needs a value");
      value = args[++i];
    }
    if (name == "--config") config_path = value;
    else flags.emplace_back(name, value);
  }
  if (config_path.empty())
    if (const char* e = env("FLOCKSTEP_CONFIG"); e && *e) config_path = e;

  // Layers, lowest precedence first.
  if (!config_path.empty()) {
    read_file(config_path, r.config, r.sources);
    r.config.config_file = config_path;
  }
  for (std::size_t i = 0; i < keys().size(); ++i) {
    const Key& k = keys()[i];
    const std::string var = env_of(k.name);
    if (const char* e = env(var.c_str())) {
      set_from_text(k, r.config, e, "environment variable " + var);
      r.sources[i] = "env";
    }
  }
  for (const auto& [flag, value] : flags) {
    const Key* k = nullptr;
    for (const Key& cand : keys())
      if (flag_of(cand.name) == flag) k = &cand;
    if (!k) throw ConfigError("unknown flag " + flag + " (see --help)");
    set_from_text(*k, r.config, value, "flag " + flag);
    r.sources[static_cast<std::size_t>(k - keys().data())] = "flag";
  }
  cross_check(r.config);
  return r;
}

std::string help_text() {
  const Config defaults;
  std::ostringstream o;
  o << "flockstep-server: authoritative Flockstep game server (HTTP + WebSocket on one port)\n\n"
       "Usage: flockstep-server [--flag=value | --flag value]...\n\n"
       "Precedence: flags > environment variables > JSON config file > defaults.\n"
       "  --config=PATH   JSON object with any of the keys below (env FLOCKSTEP_CONFIG)\n"
       "  --help          this text\n"
       "  --version       name, version, git commit, build type and compiler, then exit 0\n"
       "  --healthcheck   probe http://127.0.0.1:<port>/healthz (port from the flags, environment\n"
       "                  and file as usual) and exit 0 if it answers 200, else 1 (container\n"
       "                  HEALTHCHECK: slim images have no curl)\n"
       "Agones: when AGONES_SDK_HTTP_PORT is set the server reports Ready, Health, player counts\n"
       "  and Shutdown to the Agones SDK sidecar on that port (agones_* keys below).\n\n";
  for (const Key& k : keys()) {
    o << "  " << flag_of(k.name) << "  (env " << env_of(k.name) << ", key " << k.name << ")\n"
      << "      " << k.help << "\n"
      << "      default: " << (value_text(k, defaults).empty() ? "(empty)" : value_text(k, defaults))
      << "   limit: " << limit_text(k) << "\n";
  }
  o << "\nExit codes: 0 normal exit (also after SIGTERM/SIGINT), 1 runtime error, 2 configuration error.\n";
  return o.str();
}

namespace {
/// What the configuration dump shows of a key: the admin token is a secret and the dump goes to
/// logs, so only whether it is set.
std::string shown_text(const Key& k, const Config& c) {
  if (std::string_view(k.name) == "admin_token") return c.admin_token.empty() ? "" : "(set)";
  return value_text(k, c);
}
}  // namespace

std::string describe(const LoadResult& r) {
  std::ostringstream o;
  o << "effective configuration" << (r.config.config_file.empty() ? "" : " (file " + r.config.config_file + ")")
    << ":\n";
  for (std::size_t i = 0; i < keys().size(); ++i)
    o << "  " << keys()[i].name << " = " << shown_text(keys()[i], r.config) << "  (" << r.sources[i] << ")\n";
  return o.str();
}

nlohmann::json describe_json(const LoadResult& r) {
  nlohmann::json values = nlohmann::json::object();
  nlohmann::json sources = nlohmann::json::object();
  for (std::size_t i = 0; i < keys().size(); ++i) {
    const Key& k = keys()[i];
    if (const auto* u = std::get_if<UintKey>(&k.type)) values[k.name] = r.config.*(u->member);
    else values[k.name] = shown_text(k, r.config);
    sources[k.name] = r.sources[i];
  }
  nlohmann::json file = r.config.config_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.config.config_file);
  return {{"file", std::move(file)}, {"config", std::move(values)}, {"sources", std::move(sources)}};
}

namespace {
/// A table cell's text: a bare '|' (the choices of a key, "text|json") would end the cell.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}
}  // namespace

std::string markdown_reference() {
  const Config defaults;
  std::ostringstream o;
  o << "| key | flag | environment | default | limit | meaning |\n|---|---|---|---|---|---|\n";
  for (const Key& k : keys())
    o << "| `" << k.name << "` | `" << flag_of(k.name) << "` | `" << env_of(k.name) << "` | `"
      << value_text(k, defaults) << "` | " << markdown_cell(limit_text(k)) << " | " << k.help << " |\n";
  return o.str();
}

}  // namespace flockstep::server::config
