#include "ops/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace flockstep::server::ops {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) {
  // First bucket whose upper bound is >= v (Prometheus buckets are "less or equal").
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  buckets_[static_cast<std::size_t>(it - bounds_.begin())].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  double cur = sum_.load(std::memory_order_relaxed);
  while (!sum_.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

double Histogram::quantile_upper_bound(double q) const {
  const std::uint64_t n = count();
  if (n == 0) return 0;
  const auto want = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n)));
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    acc += bucket(i);
    if (acc >= want) return bounds_[i];
  }
  return bounds_.empty() ? 0 : HUGE_VAL;
}

Registry::Family& Registry::family(std::string_view name, std::string_view help, Type type) {
  for (Family& f : families_)
    if (f.name == name) return f;
  families_.push_back(Family{std::string(name), std::string(help), type, {}});
  return families_.back();
}

Counter& Registry::counter(std::string_view name, std::string_view help, std::string_view labels) {
  Counter& c = counters_.emplace_back();
  family(name, help, Type::kCounter).series.push_back(Series{std::string(labels), &c, nullptr, nullptr});
  return c;
}

Gauge& Registry::gauge(std::string_view name, std::string_view help, std::string_view labels) {
  Gauge& g = gauges_.emplace_back();
  family(name, help, Type::kGauge).series.push_back(Series{std::string(labels), nullptr, &g, nullptr});
  return g;
}

Histogram& Registry::histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                               std::string_view labels) {
  Histogram& h = histograms_.emplace_back(std::move(bounds));
  family(name, help, Type::kHistogram).series.push_back(Series{std::string(labels), nullptr, nullptr, &h});
  return h;
}

namespace {

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string with_labels(const std::string& labels, const std::string& extra = {}) {
  if (labels.empty() && extra.empty()) return {};
  std::string s = "{" + labels;
  if (!labels.empty() && !extra.empty()) s += ",";
  return s + extra + "}";
}

}  // namespace

std::string Registry::render() const {
  std::string out;
  out.reserve(4096);
  for (const Family& f : families_) {
    out += "# HELP " + f.name + " " + f.help + "\n";
    out += "# TYPE " + f.name + " " +
           (f.type == Type::kCounter ? "counter" : f.type == Type::kGauge ? "gauge" : "histogram") + "\n";
    for (const Series& s : f.series) {
      if (s.counter) out += f.name + with_labels(s.labels) + " " + std::to_string(s.counter->value()) + "\n";
      if (s.gauge) out += f.name + with_labels(s.labels) + " " + std::to_string(s.gauge->value()) + "\n";
      if (s.histogram) {
        const Histogram& h = *s.histogram;
        std::uint64_t acc = 0;
        for (std::size_t i = 0; i <= h.bounds().size(); ++i) {
          acc += h.bucket(i);
          const std::string le = i < h.bounds().size() ? number(h.bounds()[i]) : "+Inf";
          out += f.name + "_bucket" + with_labels(s.labels, "le=\"" + le + "\"") + " " + std::to_string(acc) + "\n";
        }
        out += f.name + "_sum" + with_labels(s.labels) + " " + number(h.sum()) + "\n";
        out += f.name + "_count" + with_labels(s.labels) + " " + std::to_string(h.count()) + "\n";
      }
    }
  }
  return out;
}

namespace {
// Tick time: 50 us .. 100 ms (a 60 Hz tick has 16.7 ms).
std::vector<double> tick_bounds() {
  // Fine between 1 ms and the 60 Hz period (16.7 ms), where a loaded server's ticks sit, so the
  // load tool can tell "p99 2 ms" from "p99 15 ms".
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.006, 0.008, 0.010, 0.0125,
          0.0167, 0.025, 0.033, 0.05, 0.066, 0.1};
}
std::vector<double> size_bounds() { return {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576}; }
std::vector<double> rtt_bounds() { return {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}; }
}  // namespace

ServerMetrics::ServerMetrics(Registry& r)
    : tick_seconds(r.histogram("flockstep_tick_duration_seconds", "Wall time of one simulation tick (step + events).", tick_bounds())),
      tick_overruns(r.counter("flockstep_tick_overruns_total", "Ticks whose processing took longer than the tick period.")),
      ticks_skipped(r.counter("flockstep_ticks_skipped_total", "Ticks not simulated because the catch-up limit was hit.")),
      ticks(r.gauge("flockstep_world_tick", "Current simulation tick.")),
      clients_player(r.gauge("flockstep_clients", "Joined WebSocket clients by role.", "role=\"player\"")),
      clients_spectator(r.gauge("flockstep_clients", "", "role=\"spectator\"")),
      clients_bot(r.gauge("flockstep_clients", "", "role=\"bot\"")),
      connections(r.gauge("flockstep_connections", "Open TCP connections (HTTP and WebSocket).")),
      connections_rejected(r.counter("flockstep_connections_rejected_total", "Connections refused because max_connections was reached.")),
      agents_player(r.gauge("flockstep_agents", "Agents in the world by kind.", "kind=\"player\"")),
      agents_flock(r.gauge("flockstep_agents", "", "kind=\"flock\"")),
      agents_pursuer(r.gauge("flockstep_agents", "", "kind=\"pursuer\"")),
      agents_patrol(r.gauge("flockstep_agents", "", "kind=\"patrol\"")),
      agents_wanderer(r.gauge("flockstep_agents", "", "kind=\"wanderer\"")),
      bytes_sent(r.counter("flockstep_ws_bytes_sent_total", "WebSocket payload bytes sent.")),
      messages_sent(r.counter("flockstep_ws_messages_sent_total", "WebSocket messages sent.")),
      bytes_received(r.counter("flockstep_ws_bytes_received_total", "WebSocket payload bytes received.")),
      messages_received(r.counter("flockstep_ws_messages_received_total", "WebSocket messages received.")),
      snapshot_bytes(r.histogram("flockstep_snapshot_size_bytes", "Size of each encoded shared snapshot body.", size_bounds())),
      snapshots_encoded(r.counter("flockstep_snapshots_encoded_total", "Snapshot bodies encoded (once per snapshot tick, shared by all clients).")),
      snapshots_dropped(r.counter("flockstep_snapshots_dropped_total", "Queued snapshots replaced by a newer one before being sent (slow client).")),
      malformed_messages(r.counter("flockstep_malformed_messages_total", "Client messages rejected by the codec.")),
      violations(r.counter("flockstep_input_violations_total", "Client values out of range (clamped).")),
      inputs_rate_limited(r.counter("flockstep_inputs_rate_limited_total", "Client messages dropped by the per-client rate limit.")),
      inputs_applied(r.counter("flockstep_inputs_applied_total", "Input frames applied to the world.")),
      inputs_late(r.counter("flockstep_inputs_dropped_total", "Input frames dropped because the per-client backlog was full.")),
      kicked_slow(r.counter("flockstep_clients_dropped_total", "Clients disconnected by the server, by reason.", "reason=\"too_slow\"")),
      kicked_violations(r.counter("flockstep_clients_dropped_total", "", "reason=\"violations\"")),
      kicked_malformed(r.counter("flockstep_clients_dropped_total", "", "reason=\"malformed\"")),
      kicked_too_big(r.counter("flockstep_clients_dropped_total", "", "reason=\"too_big\"")),
      rtt_seconds(r.histogram("flockstep_rtt_seconds", "Round-trip time of server pings answered by clients.", rtt_bounds())),
      captures(r.counter("flockstep_captures_total", "Players caught by pursuers.")),
      http_requests(r.counter("flockstep_http_requests_total", "HTTP requests received.")),
      http_not_found(r.counter("flockstep_http_responses_total", "HTTP error responses by code.", "code=\"404\"")),
      http_forbidden(r.counter("flockstep_http_responses_total", "", "code=\"403\"")),
      http_bad_request(r.counter("flockstep_http_responses_total", "", "code=\"400\"")),
      log_lines_suppressed(r.counter("flockstep_log_lines_suppressed_total", "Log lines dropped by the rate limiter.")) {}

}  // namespace flockstep::server::ops
