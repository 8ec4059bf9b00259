#pragma once
/// \file bot.hpp
/// The load/bot tool: N WebSocket connections on one thread (async), each joining as player or
/// spectator. Players send scripted or random inputs at input_hz with the unacknowledged
/// window; everyone answers server pings, counts snapshots and measures inter-arrival times.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace flockstep::bot {

/// What the bots do.
struct BotConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  std::string target = "/ws";
  std::uint32_t connections = 1;  ///< total connections. [1..100000]
  std::uint32_t players = 1;      ///< how many of them join as PLAYER (the rest spectate)
  double duration_s = 5;          ///< run time after the last connection was started, s
  double connect_rate = 0;        ///< connections started per second (a join ramp); 0 = all at once
  double ack_delay_ms = 0;        ///< snapshot acknowledgements leave this much later (a longer round trip)
  std::uint32_t input_hz = 60;    ///< player input messages per second
  std::string script = "random";  ///< random | constant | idle
  double turn = 0;                ///< constant script: turn [-1, 1]
  double throttle = 1;            ///< constant script: throttle [0, 1]
  std::string name = "bot";       ///< display name prefix
  std::string room;               ///< room (scenario name) to join; empty = the default room
  std::uint64_t seed = 1;
  bool decode = true;             ///< decode every delta snapshot (as a viewer does) before acknowledging it
  bool have_view = false;         ///< spectators send `view` with their first Ack (area of interest)
  double view[4] = {0, 0, 0, 0};  ///< min x, min y, max x, max y, m
  bool report = false;            ///< scrape the server's /metrics before and after the run
};

/// Statistics of one role.
struct RoleReport {
  std::uint32_t connected = 0;
  std::uint32_t welcomed = 0;
  std::uint64_t snapshots = 0;
  std::uint64_t snapshot_bytes = 0;
  std::uint64_t events = 0;
  std::uint64_t captures_seen = 0;
  std::uint64_t inputs_sent = 0;
  std::vector<double> inter_arrival_ms;  ///< all gaps between consecutive snapshots
  std::vector<double> client_p99_ms;     ///< per connection: p99 of its own inter-arrival gaps
  std::uint64_t full_snapshots = 0;      ///< snapshots without a baseline (join, or baseline lost)
  std::uint64_t acks_sent = 0;           ///< snapshot acknowledgements sent (Welcome.ack_every_snapshots)
  std::uint64_t agents_received = 0;     ///< agents in snapshots (decoded, or agent_count with decode off), summed
  std::uint32_t unexpected_closes = 0;   ///< connections the server closed (or that broke) before the end
  double median_ms() const;
  double p99_ms() const;
  double max_ms() const;
};

/// Result of a run.
struct BotReport {
  RoleReport player;
  RoleReport spectator;
  std::map<std::uint16_t, std::uint32_t> close_codes;  ///< server close code -> connections
  std::uint32_t errors = 0;
  std::uint32_t max_agents_seen = 0;
  std::uint64_t decode_errors = 0;  ///< snapshots the codec rejected (or whose baseline was missing)
  double duration_s = 0;            ///< measured run time, s
  /// From /metrics (BotConfig::report): the run's tick time quantiles (bucket upper bounds),
  /// overruns and skipped ticks, snapshots replaced for slow clients, clients the server dropped.
  bool have_metrics = false;
  double tick_p50_ms = 0, tick_p99_ms = 0;
  double tick_overruns = 0, ticks_skipped = 0, ticks = 0, snapshots_dropped = 0, clients_dropped = 0;
  double snapshots_paced = 0;   ///< snapshots the server did not send to lagging clients (pacing)
  std::string summary() const;  ///< human-readable multi-line report
};

/// Run the bots (blocking) and report.
BotReport run_bots(const BotConfig& config);

}  // namespace flockstep::bot
