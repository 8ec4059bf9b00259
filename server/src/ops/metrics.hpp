#pragma once
/// \file metrics.hpp
/// A small hand-written metrics registry that renders the Prometheus text exposition format
/// (version 0.0.4). prometheus-cpp is not packaged in Debian 12 and nothing may be downloaded at
/// build time; counters, gauges and fixed-bucket histograms are all the server needs.
///
/// Metrics are created at start-up (not thread-safe) and then updated lock-free from any thread.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace flockstep::server::ops {

/// Monotonic counter.
class Counter {
 public:
  void inc(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

/// Gauge holding a signed integer (client counts, agent counts, sizes).
class Gauge {
 public:
  void set(std::int64_t v) { value_.store(v, std::memory_order_relaxed); }
  void add(std::int64_t d) { value_.fetch_add(d, std::memory_order_relaxed); }
  std::int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

/// Histogram with fixed upper bounds (le), cumulative on render as Prometheus requires.
class Histogram {
 public:
  /// `bounds` strictly increasing; +Inf is implicit.
  explicit Histogram(std::vector<double> bounds);
  /// Record one observation.
  void observe(double v);
  std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  double sum() const { return sum_.load(std::memory_order_relaxed); }
  const std::vector<double>& bounds() const { return bounds_; }
  /// Non-cumulative count of bucket i (i == bounds().size() is the +Inf bucket).
  std::uint64_t bucket(std::size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
  /// Approximate quantile (upper bound of the bucket holding it), q in [0, 1]; 0 when empty.
  double quantile_upper_bound(double q) const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;
  std::atomic<std::uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

/// Owns metric families and renders them. Names must match [a-zA-Z_:][a-zA-Z0-9_:]*.
class Registry {
 public:
  /// Label set as written inside braces, e.g. `role="player"`; empty for none.
  Counter& counter(std::string_view name, std::string_view help, std::string_view labels = {});
  Gauge& gauge(std::string_view name, std::string_view help, std::string_view labels = {});
  Histogram& histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                       std::string_view labels = {});
  /// Prometheus text format, families in registration order.
  std::string render() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct Series {
    std::string labels;
    Counter* counter = nullptr;
    Gauge* gauge = nullptr;
    Histogram* histogram = nullptr;
  };
  struct Family {
    std::string name;
    std::string help;
    Type type;
    std::vector<Series> series;
  };
  Family& family(std::string_view name, std::string_view help, Type type);

  std::vector<Family> families_;
  std::deque<Counter> counters_;  // deque: stable addresses
  std::deque<Gauge> gauges_;
  std::deque<Histogram> histograms_;
};

/// Every metric the server exports, registered once at start-up.
struct ServerMetrics {
  explicit ServerMetrics(Registry& r);

  Histogram& tick_seconds;          ///< flockstep_tick_duration_seconds
  Counter& tick_overruns;           ///< flockstep_tick_overruns_total: ticks that took longer than dt
  Counter& ticks_skipped;           ///< flockstep_ticks_skipped_total: dropped by the catch-up limit
  Gauge& ticks;                     ///< flockstep_world_tick
  Gauge& clients_player;            ///< flockstep_clients{role="player"}
  Gauge& clients_spectator;         ///< flockstep_clients{role="spectator"}
  Gauge& clients_bot;               ///< flockstep_clients{role="bot"}
  Gauge& connections;               ///< flockstep_connections (TCP, incl. HTTP)
  Counter& connections_rejected;    ///< flockstep_connections_rejected_total (max connections)
  Gauge& agents_player;             ///< flockstep_agents{kind=...}
  Gauge& agents_flock;
  Gauge& agents_pursuer;
  Gauge& agents_patrol;
  Gauge& agents_wanderer;
  Counter& bytes_sent;              ///< flockstep_ws_bytes_sent_total
  Counter& messages_sent;           ///< flockstep_ws_messages_sent_total
  Counter& bytes_received;          ///< flockstep_ws_bytes_received_total
  Counter& messages_received;       ///< flockstep_ws_messages_received_total
  Histogram& snapshot_bytes;        ///< flockstep_snapshot_size_bytes (shared body, per encode)
  Counter& snapshots_encoded;       ///< flockstep_snapshots_encoded_total
  Counter& snapshots_dropped;       ///< flockstep_snapshots_dropped_total (replaced, latest wins)
  Counter& malformed_messages;      ///< flockstep_malformed_messages_total
  Counter& violations;              ///< flockstep_input_violations_total (clamped values)
  Counter& inputs_rate_limited;     ///< flockstep_inputs_rate_limited_total
  Counter& inputs_applied;          ///< flockstep_inputs_applied_total
  Counter& inputs_late;             ///< flockstep_inputs_dropped_total (backlog over the limit)
  Counter& kicked_slow;             ///< flockstep_clients_dropped_total{reason="too_slow"}
  Counter& kicked_violations;       ///< flockstep_clients_dropped_total{reason="violations"}
  Counter& kicked_malformed;        ///< flockstep_clients_dropped_total{reason="malformed"}
  Counter& kicked_too_big;          ///< flockstep_clients_dropped_total{reason="too_big"}
  Histogram& rtt_seconds;           ///< flockstep_rtt_seconds (server Ping -> client Pong)
  Counter& captures;                ///< flockstep_captures_total
  Counter& http_requests;           ///< flockstep_http_requests_total
  Counter& http_not_found;          ///< flockstep_http_responses_total{code="404"}
  Counter& http_forbidden;          ///< flockstep_http_responses_total{code="403"}
  Counter& http_bad_request;         ///< flockstep_http_responses_total{code="400"}
  Counter& log_lines_suppressed;    ///< flockstep_log_lines_suppressed_total
};

}  // namespace flockstep::server::ops
