#pragma once
/// \file metrics.hpp
/// The server's metrics, kept in a prometheus-cpp registry (Debian `prometheus-cpp-dev`, only its
/// `core` library) and rendered with `prometheus::TextSerializer` (text format 0.0.4). The server
/// serves that text on /metrics through its own Beast HTTP session, not prometheus-cpp's civetweb
/// exposer: one port, one set of limits.
///
/// Counter, Gauge and Histogram are thin handles over prometheus-cpp's metrics with the small
/// integer-friendly interface the server code uses (`inc(n)`, `add(d)`, `value()`). A handle may
/// be linked to a server-wide total (`RoomMetrics`): every change is then applied to both, so a
/// room's code updates one handle and both the `room`-labelled series and the total move.
///
/// Metrics are created at start-up or when a room first starts (ServerMetrics::room, locked) and
/// updated from any thread afterwards; updates are atomic (histograms take prometheus-cpp's short
/// per-histogram lock, measured in bench/metrics_bench.cpp).
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace flockstep::server::ops {

/// Label set of one series, e.g. {{"role", "player"}}; empty for none.
using Labels = std::map<std::string, std::string>;

/// Monotonic counter handle.
class Counter {
 public:
  /// `total`, when set, receives every increment too (server-wide sum of room series).
  explicit Counter(prometheus::Counter& c, Counter* total = nullptr) : c_(&c), total_(total) {}
  /// Add `n` (>= 0).
  void inc(std::uint64_t n = 1);
  /// Current value.
  std::uint64_t value() const;

 private:
  prometheus::Counter* c_;
  Counter* total_;
};

/// Gauge handle holding an integer (client counts, agent counts, sizes).
class Gauge {
 public:
  /// `total`, when set, receives every add() too (set() is never forwarded: a total is a sum).
  explicit Gauge(prometheus::Gauge& g, Gauge* total = nullptr) : g_(&g), total_(total) {}
  /// Replace the value (not forwarded to the total).
  void set(std::int64_t v);
  /// Add `d` (may be negative), to the total too.
  void add(std::int64_t d);
  /// Current value.
  std::int64_t value() const;

 private:
  prometheus::Gauge* g_;
  Gauge* total_;
};

/// Histogram handle with fixed upper bounds (le); +Inf is implicit.
class Histogram {
 public:
  /// `total`, when set, receives every observation too (it must have the same bounds).
  Histogram(prometheus::Histogram& h, std::vector<double> bounds, Histogram* total = nullptr)
      : h_(&h), bounds_(std::move(bounds)), total_(total) {}
  /// Record one observation.
  void observe(double v);
  /// Observations so far.
  std::uint64_t count() const;
  /// Sum of the observations.
  double sum() const;
  /// Upper bounds, without +Inf.
  const std::vector<double>& bounds() const { return bounds_; }
  /// Non-cumulative count of bucket i (i == bounds().size() is the +Inf bucket).
  std::uint64_t bucket(std::size_t i) const;
  /// Approximate quantile (upper bound of the bucket holding it), q in [0, 1]; 0 when empty.
  double quantile_upper_bound(double q) const;

 private:
  prometheus::Histogram* h_;
  std::vector<double> bounds_;
  Histogram* total_;
};

/// Owns the prometheus-cpp registry and the handles; renders the scrape.
class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /// Series of family `name` (created on first use with `help`). Names must match
  /// [a-zA-Z_:][a-zA-Z0-9_:]*; a label set must be new within its family (prometheus-cpp returns
  /// the existing metric otherwise, which would make two handles share one series).
  Counter& counter(std::string_view name, std::string_view help, const Labels& labels = {}, Counter* total = nullptr);
  Gauge& gauge(std::string_view name, std::string_view help, const Labels& labels = {}, Gauge* total = nullptr);
  Histogram& histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                       const Labels& labels = {}, Histogram* total = nullptr);
  /// Prometheus text format 0.0.4: the registry's families, then the process_* families
  /// (process_metrics.hpp) unless disabled for a test.
  std::string render() const;
  /// Include the process_* families in render() (default true).
  void set_process_metrics(bool on) { process_metrics_ = on; }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::mutex mutex_;  // families and handles may be added while other threads update metrics
  std::map<std::string, prometheus::Family<prometheus::Counter>*, std::less<>> counter_families_;
  std::map<std::string, prometheus::Family<prometheus::Gauge>*, std::less<>> gauge_families_;
  std::map<std::string, prometheus::Family<prometheus::Histogram>*, std::less<>> histogram_families_;
  std::deque<Counter> counters_;  // deque: stable addresses
  std::deque<Gauge> gauges_;
  std::deque<Histogram> histograms_;
  bool process_metrics_ = true;
};

/// Metrics of one room, every series labelled `room="<name>"` and linked to the server-wide
/// total of the same meaning, so a room updates one handle. Same member names as ServerMetrics,
/// so room code reads alike. Created once per room name and cached: the tick never looks up a
/// label set.
struct RoomMetrics {
  Histogram& tick_seconds;  ///< flockstep_room_tick_duration_seconds
  Counter& tick_overruns;   ///< flockstep_room_tick_overruns_total
  Counter& ticks_skipped;   ///< flockstep_room_ticks_skipped_total
  Gauge& ticks;             ///< flockstep_room_world_tick (not linked: the total is the default room's)
  Gauge& clients_player;    ///< flockstep_room_clients{role=...}
  Gauge& clients_spectator;
  Gauge& clients_bot;
  Gauge& agents_player;  ///< flockstep_room_agents{kind=...}
  Gauge& agents_flock;
  Gauge& agents_pursuer;
  Gauge& agents_patrol;
  Gauge& agents_wanderer;
  Histogram& snapshot_bytes;   ///< flockstep_room_snapshot_size_bytes
  Counter& snapshots_encoded;  ///< flockstep_room_snapshots_encoded_total
  Counter& snapshots_paced;    ///< flockstep_room_snapshots_paced_total
  Counter& inputs_applied;     ///< flockstep_room_inputs_applied_total
  Counter& inputs_late;        ///< flockstep_room_inputs_dropped_total
  Counter& captures;           ///< flockstep_room_captures_total
};

/// Every metric the server exports, registered once at start-up. The server-wide families keep
/// their names and labels (dashboards, `flockstep-bot --report` and bench/soak.sh read them);
/// room() adds the `flockstep_room_*` families labelled by room.
struct ServerMetrics {
  explicit ServerMetrics(Registry& r);

  /// The metrics of room `name`, created on first use and kept for the server's life (room
  /// names come from scenario files, so there are at most scenario_dir's count of them). Thread
  /// safe; call once when a room starts and keep the reference.
  RoomMetrics& room(std::string_view name);

  Registry& registry;
  Gauge& build_info;              ///< flockstep_build_info{version,commit} = 1
  Histogram& tick_seconds;        ///< flockstep_tick_duration_seconds
  Counter& tick_overruns;         ///< flockstep_tick_overruns_total: ticks that took longer than dt
  Counter& ticks_skipped;         ///< flockstep_ticks_skipped_total: dropped by the catch-up limit
  Gauge& ticks;                   ///< flockstep_world_tick
  Gauge& clients_player;          ///< flockstep_clients{role="player"}
  Gauge& clients_spectator;       ///< flockstep_clients{role="spectator"}
  Gauge& clients_bot;             ///< flockstep_clients{role="bot"}
  Gauge& connections;             ///< flockstep_connections (TCP, incl. HTTP)
  Counter& connections_rejected;  ///< flockstep_connections_rejected_total (max connections)
  Gauge& agents_player;           ///< flockstep_agents{kind=...}
  Gauge& agents_flock;
  Gauge& agents_pursuer;
  Gauge& agents_patrol;
  Gauge& agents_wanderer;
  Counter& bytes_sent;             ///< flockstep_ws_bytes_sent_total
  Counter& messages_sent;          ///< flockstep_ws_messages_sent_total
  Counter& bytes_received;         ///< flockstep_ws_bytes_received_total
  Counter& messages_received;      ///< flockstep_ws_messages_received_total
  Histogram& snapshot_bytes;       ///< flockstep_snapshot_size_bytes (shared body, per encode)
  Counter& snapshots_encoded;      ///< flockstep_snapshots_encoded_total
  Counter& snapshots_paced;        ///< flockstep_snapshots_paced_total (lagging clients' skipped snapshots)
  Counter& snapshots_dropped;      ///< flockstep_snapshots_dropped_total (replaced, latest wins)
  Counter& malformed_messages;     ///< flockstep_malformed_messages_total
  Counter& violations;             ///< flockstep_input_violations_total (clamped values)
  Counter& inputs_rate_limited;    ///< flockstep_inputs_rate_limited_total
  Counter& inputs_applied;         ///< flockstep_inputs_applied_total
  Counter& inputs_late;            ///< flockstep_inputs_dropped_total (backlog over the limit)
  Counter& kicked_slow;            ///< flockstep_clients_dropped_total{reason="too_slow"}
  Counter& kicked_violations;      ///< flockstep_clients_dropped_total{reason="violations"}
  Counter& kicked_malformed;       ///< flockstep_clients_dropped_total{reason="malformed"}
  Counter& kicked_too_big;         ///< flockstep_clients_dropped_total{reason="too_big"}
  Histogram& rtt_seconds;          ///< flockstep_rtt_seconds (server Ping -> client Pong)
  Counter& captures;               ///< flockstep_captures_total
  Counter& http_requests;          ///< flockstep_http_requests_total
  Counter& http_not_found;         ///< flockstep_http_responses_total{code="404"}
  Counter& http_forbidden;         ///< flockstep_http_responses_total{code="403"}
  Counter& http_bad_request;       ///< flockstep_http_responses_total{code="400"}
  Counter& log_lines_suppressed;   ///< flockstep_log_lines_suppressed_total
  Counter& address_limit_refused;  ///< flockstep_connections_refused_per_address_total (max_sessions_per_address)
  Counter& admin_auth_failed;      ///< flockstep_admin_auth_failures_total{outcome="denied"}: wrong/missing token (401)
  Counter& admin_auth_limited;     ///< flockstep_admin_auth_failures_total{outcome="rate_limited"}: refused with 429

 private:
  std::mutex rooms_mutex_;
  std::map<std::string, std::unique_ptr<RoomMetrics>, std::less<>> rooms_;
};

}  // namespace flockstep::server::ops
