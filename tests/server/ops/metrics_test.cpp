// The hand-written Prometheus registry: text format, cumulative buckets, label sets.
#include <gtest/gtest.h>

#include "ops/metrics.hpp"

namespace flockstep::server::ops {
namespace {

TEST(Metrics, CountersAndGaugesRenderWithHelpAndTypeOncePerFamily) {
  Registry r;
  Counter& c = r.counter("x_total", "Things.");
  Gauge& a = r.gauge("clients", "Clients by role.", "role=\"player\"");
  Gauge& b = r.gauge("clients", "", "role=\"spectator\"");
  c.inc();
  c.inc(4);
  a.set(3);
  b.add(2);
  b.add(-1);
  const std::string t = r.render();
  EXPECT_NE(t.find("# HELP x_total Things.\n# TYPE x_total counter\nx_total 5\n"), std::string::npos) << t;
  EXPECT_NE(t.find("# TYPE clients gauge\nclients{role=\"player\"} 3\nclients{role=\"spectator\"} 1\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("# TYPE clients gauge", t.find("# TYPE clients gauge") + 1), std::string::npos);
}

TEST(Metrics, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry r;
  Histogram& h = r.histogram("lat_seconds", "Latency.", {0.1, 1, 10});
  for (double v : {0.05, 0.1, 0.5, 5.0, 50.0}) h.observe(v);
  const std::string t = r.render();
  EXPECT_NE(t.find("lat_seconds_bucket{le=\"0.1\"} 2\n"), std::string::npos) << t;  // le is inclusive
  EXPECT_NE(t.find("lat_seconds_bucket{le=\"1\"} 3\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_bucket{le=\"10\"} 4\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_bucket{le=\"+Inf\"} 5\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_sum 55.65\n"), std::string::npos) << t;
  EXPECT_NE(t.find("lat_seconds_count 5\n"), std::string::npos) << t;
  EXPECT_EQ(h.quantile_upper_bound(0.5), 1);
}

TEST(Metrics, ServerMetricsExposeEveryRequiredFamily) {
  Registry r;
  ServerMetrics m(r);
  m.tick_seconds.observe(0.001);
  const std::string t = r.render();
  for (const char* name : {"flockstep_tick_duration_seconds_bucket", "flockstep_tick_overruns_total", "flockstep_clients{role=\"player\"}",
                           "flockstep_clients{role=\"spectator\"}", "flockstep_agents{kind=\"flock\"}", "flockstep_ws_bytes_sent_total",
                           "flockstep_ws_messages_sent_total", "flockstep_snapshot_size_bytes_bucket", "flockstep_snapshots_dropped_total",
                           "flockstep_malformed_messages_total", "flockstep_rtt_seconds_bucket"})
    EXPECT_NE(t.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace flockstep::server::ops
