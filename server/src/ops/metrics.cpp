#include "ops/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <cmath>
#include <sstream>

#include "flockstep/build_info.hpp"
#include "ops/process_metrics.hpp"

namespace flockstep::server::ops {

void Counter::inc(std::uint64_t n) {
  c_->Increment(static_cast<double>(n));
  if (total_) total_->inc(n);
}

std::uint64_t Counter::value() const { return static_cast<std::uint64_t>(c_->Value()); }

void Gauge::set(std::int64_t v) { g_->Set(static_cast<double>(v)); }

void Gauge::add(std::int64_t d) {
  g_->Increment(static_cast<double>(d));
  if (total_) total_->add(d);
}

std::int64_t Gauge::value() const { return static_cast<std::int64_t>(std::llround(g_->Value())); }

void Histogram::observe(double v) {
  h_->Observe(v);
  if (total_) total_->observe(v);
}

std::uint64_t Histogram::count() const { return h_->Collect().histogram.sample_count; }

double Histogram::sum() const { return h_->Collect().histogram.sample_sum; }

std::uint64_t Histogram::bucket(std::size_t i) const {
  const auto buckets = h_->Collect().histogram.bucket;  // cumulative, +Inf last
  if (i >= buckets.size()) return 0;
  return buckets[i].cumulative_count - (i == 0 ? 0 : buckets[i - 1].cumulative_count);
}

double Histogram::quantile_upper_bound(double q) const {
  const auto h = h_->Collect().histogram;
  if (h.sample_count == 0) return 0;
  const auto want = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(h.sample_count)));
  for (const auto& b : h.bucket)
    if (b.cumulative_count >= want) return b.upper_bound;
  return HUGE_VAL;
}

Registry::Registry() : registry_(std::make_shared<prometheus::Registry>()) {}

Registry::~Registry() = default;

namespace {

// prometheus-cpp keeps one Family per name; ours are found by name so that a family's series
// (room label sets) can be added long after start-up.
template <typename T, typename Builder>
prometheus::Family<T>& family_of(std::map<std::string, prometheus::Family<T>*, std::less<>>& families,
                                 prometheus::Registry& registry, Builder builder, std::string_view name,
                                 std::string_view help) {
  if (const auto it = families.find(name); it != families.end()) return *it->second;
  prometheus::Family<T>& f = builder.Name(std::string(name)).Help(std::string(help)).Register(registry);
  families.emplace(std::string(name), &f);
  return f;
}

}  // namespace

Counter& Registry::counter(std::string_view name, std::string_view help, const Labels& labels, Counter* total) {
  std::lock_guard lock(mutex_);
  auto& f = family_of(counter_families_, *registry_, prometheus::BuildCounter(), name, help);
  return counters_.emplace_back(f.Add(labels), total);
}

Gauge& Registry::gauge(std::string_view name, std::string_view help, const Labels& labels, Gauge* total) {
  std::lock_guard lock(mutex_);
  auto& f = family_of(gauge_families_, *registry_, prometheus::BuildGauge(), name, help);
  return gauges_.emplace_back(f.Add(labels), total);
}

Histogram& Registry::histogram(std::string_view name, std::string_view help, std::vector<double> bounds,
                               const Labels& labels, Histogram* total) {
  std::lock_guard lock(mutex_);
  auto& f = family_of(histogram_families_, *registry_, prometheus::BuildHistogram(), name, help);
  prometheus::Histogram& h = f.Add(labels, bounds);
  return histograms_.emplace_back(h, std::move(bounds), total);
}

std::string Registry::render() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  if (process_metrics_) {
    auto process = process_families(read_process_stats());
    families.insert(families.end(), std::make_move_iterator(process.begin()), std::make_move_iterator(process.end()));
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

namespace {
// Tick time: 50 us .. 100 ms (a 60 Hz tick has 16.7 ms).
std::vector<double> tick_bounds() {
  // Fine between 1 ms and the 60 Hz period (16.7 ms), where a loaded server's ticks sit, so the
  // load tool can tell "p99 2 ms" from "p99 15 ms".
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.006,
          0.008,   0.010,  0.0125,  0.0167, 0.025, 0.033,  0.05,  0.066, 0.1};
}
std::vector<double> size_bounds() { return {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576}; }
std::vector<double> rtt_bounds() { return {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}; }
}  // namespace

ServerMetrics::ServerMetrics(Registry& r)
    : registry(r),
      build_info(
          r.gauge("flockstep_build_info", "Build of the running server (value 1; version and git commit as labels).",
                  {{"version", std::string(build_info::kVersion)}, {"commit", std::string(build_info::kCommit)}})),
      tick_seconds(r.histogram("flockstep_tick_duration_seconds", "Wall time of one simulation tick (step + events).",
                               tick_bounds())),
      tick_overruns(
          r.counter("flockstep_tick_overruns_total", "Ticks whose processing took longer than the tick period.")),
      ticks_skipped(
          r.counter("flockstep_ticks_skipped_total", "Ticks not simulated because the catch-up limit was hit.")),
      ticks(r.gauge("flockstep_world_tick", "Current simulation tick.")),
      clients_player(r.gauge("flockstep_clients", "Joined WebSocket clients by role.", {{"role", "player"}})),
      clients_spectator(r.gauge("flockstep_clients", "", {{"role", "spectator"}})),
      clients_bot(r.gauge("flockstep_clients", "", {{"role", "bot"}})),
      connections(r.gauge("flockstep_connections", "Open TCP connections (HTTP and WebSocket).")),
      connections_rejected(r.counter("flockstep_connections_rejected_total",
                                     "Connections refused because max_connections was reached.")),
      agents_player(r.gauge("flockstep_agents", "Agents in the world by kind.", {{"kind", "player"}})),
      agents_flock(r.gauge("flockstep_agents", "", {{"kind", "flock"}})),
      agents_pursuer(r.gauge("flockstep_agents", "", {{"kind", "pursuer"}})),
      agents_patrol(r.gauge("flockstep_agents", "", {{"kind", "patrol"}})),
      agents_wanderer(r.gauge("flockstep_agents", "", {{"kind", "wanderer"}})),
      bytes_sent(r.counter("flockstep_ws_bytes_sent_total", "WebSocket payload bytes sent.")),
      messages_sent(r.counter("flockstep_ws_messages_sent_total", "WebSocket messages sent.")),
      bytes_received(r.counter("flockstep_ws_bytes_received_total", "WebSocket payload bytes received.")),
      messages_received(r.counter("flockstep_ws_messages_received_total", "WebSocket messages received.")),
      snapshot_bytes(
          r.histogram("flockstep_snapshot_size_bytes", "Size of each encoded shared snapshot body.", size_bounds())),
      snapshots_encoded(r.counter("flockstep_snapshots_encoded_total",
                                  "Snapshot bodies encoded (once per snapshot tick, shared by all clients).")),
      snapshots_paced(
          r.counter("flockstep_snapshots_paced_total",
                    "Snapshots not sent to lagging clients (their rate dropped to what their acks allow).")),
      snapshots_dropped(r.counter("flockstep_snapshots_dropped_total",
                                  "Queued snapshots replaced by a newer one before being sent (slow client).")),
      malformed_messages(r.counter("flockstep_malformed_messages_total", "Client messages rejected by the codec.")),
      violations(r.counter("flockstep_input_violations_total", "Client values out of range (clamped).")),
      inputs_rate_limited(
          r.counter("flockstep_inputs_rate_limited_total", "Client messages dropped by the per-client rate limit.")),
      inputs_applied(r.counter("flockstep_inputs_applied_total", "Input frames applied to the world.")),
      inputs_late(
          r.counter("flockstep_inputs_dropped_total", "Input frames dropped because the per-client backlog was full.")),
      kicked_slow(r.counter("flockstep_clients_dropped_total", "Clients disconnected by the server, by reason.",
                            {{"reason", "too_slow"}})),
      kicked_violations(r.counter("flockstep_clients_dropped_total", "", {{"reason", "violations"}})),
      kicked_malformed(r.counter("flockstep_clients_dropped_total", "", {{"reason", "malformed"}})),
      kicked_too_big(r.counter("flockstep_clients_dropped_total", "", {{"reason", "too_big"}})),
      rtt_seconds(
          r.histogram("flockstep_rtt_seconds", "Round-trip time of server pings answered by clients.", rtt_bounds())),
      captures(r.counter("flockstep_captures_total", "Players caught by pursuers.")),
      http_requests(r.counter("flockstep_http_requests_total", "HTTP requests received.")),
      http_not_found(r.counter("flockstep_http_responses_total", "HTTP error responses by code.", {{"code", "404"}})),
      http_forbidden(r.counter("flockstep_http_responses_total", "", {{"code", "403"}})),
      http_bad_request(r.counter("flockstep_http_responses_total", "", {{"code", "400"}})),
      log_lines_suppressed(r.counter("flockstep_log_lines_suppressed_total", "Log lines dropped by the rate limiter.")),
      address_limit_refused(r.counter("flockstep_connections_refused_per_address_total",
                                      "Connections refused (429) because their client address had "
                                      "max_sessions_per_address open.")),
      admin_auth_failed(r.counter("flockstep_admin_auth_failures_total",
                                  "Admin API requests without the right bearer token, by outcome.",
                                  {{"outcome", "denied"}})),
      admin_auth_limited(r.counter("flockstep_admin_auth_failures_total", "", {{"outcome", "rate_limited"}})) {
  build_info.set(1);
}

RoomMetrics& ServerMetrics::room(std::string_view name) {
  std::lock_guard lock(rooms_mutex_);
  if (const auto it = rooms_.find(name); it != rooms_.end()) return *it->second;
  Registry& r = registry;
  const std::string n(name);
  auto with = [&n](const char* key, const char* value) { return Labels{{"room", n}, {key, value}}; };
  const Labels room{{"room", n}};
  auto m = std::unique_ptr<RoomMetrics>(new RoomMetrics{
      r.histogram("flockstep_room_tick_duration_seconds", "Wall time of one simulation tick of a room.", tick_bounds(),
                  room, &tick_seconds),
      r.counter("flockstep_room_tick_overruns_total", "Ticks of a room that took longer than the tick period.", room,
                &tick_overruns),
      r.counter("flockstep_room_ticks_skipped_total", "Ticks of a room dropped by the catch-up limit.", room,
                &ticks_skipped),
      r.gauge("flockstep_room_world_tick", "Current simulation tick of a room.", room),
      r.gauge("flockstep_room_clients", "Joined WebSocket clients of a room by role.", with("role", "player"),
              &clients_player),
      r.gauge("flockstep_room_clients", "", with("role", "spectator"), &clients_spectator),
      r.gauge("flockstep_room_clients", "", with("role", "bot"), &clients_bot),
      r.gauge("flockstep_room_agents", "Agents in a room's world by kind.", with("kind", "player"), &agents_player),
      r.gauge("flockstep_room_agents", "", with("kind", "flock"), &agents_flock),
      r.gauge("flockstep_room_agents", "", with("kind", "pursuer"), &agents_pursuer),
      r.gauge("flockstep_room_agents", "", with("kind", "patrol"), &agents_patrol),
      r.gauge("flockstep_room_agents", "", with("kind", "wanderer"), &agents_wanderer),
      r.histogram("flockstep_room_snapshot_size_bytes", "Size of each encoded shared snapshot body of a room.",
                  size_bounds(), room, &snapshot_bytes),
      r.counter("flockstep_room_snapshots_encoded_total", "Snapshot bodies encoded for a room.", room,
                &snapshots_encoded),
      r.counter("flockstep_room_snapshots_paced_total",
                "Snapshots a room did not send to lagging clients (their rate dropped to what their acks allow).", room,
                &snapshots_paced),
      r.counter("flockstep_room_inputs_applied_total", "Input frames applied to a room's world.", room,
                &inputs_applied),
      r.counter("flockstep_room_inputs_dropped_total",
                "Input frames of a room dropped because the per-client backlog was full.", room, &inputs_late),
      r.counter("flockstep_room_captures_total", "Players caught by pursuers in a room.", room, &captures),
  });
  return *rooms_.emplace(n, std::move(m)).first->second;
}

}  // namespace flockstep::server::ops
