// Metrics on prometheus-cpp: text format, cumulative buckets, label sets, room series linked to
// the server-wide totals, process_* families, and a real server's scrape checked by promtool.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "config/config.hpp"
#include "flockstep/build_info.hpp"
#include "game/scenario_file.hpp"
#include "net/server.hpp"
#include "ops/metrics.hpp"
#include "ops/process_metrics.hpp"
#include "ws_client.hpp"

namespace flockstep::server::ops {
namespace {

TEST(Metrics, CountersAndGaugesRenderWithHelpAndTypeOncePerFamily) {
  Registry r;
  r.set_process_metrics(false);
  Counter& c = r.counter("x_total", "Things.");
  Gauge& a = r.gauge("clients", "Clients by role.", {{"role", "player"}});
  Gauge& b = r.gauge("clients", "", {{"role", "spectator"}});
  c.inc();
  c.inc(4);
  a.set(3);
  b.add(2);
  b.add(-1);
  EXPECT_EQ(c.value(), 5u);
  EXPECT_EQ(b.value(), 1);
  const std::string t = r.render();
  EXPECT_NE(t.find("# HELP x_total Things.\n# TYPE x_total counter\nx_total 5\n"), std::string::npos) << t;
  EXPECT_NE(t.find("# TYPE clients gauge\n"), std::string::npos) << t;
  EXPECT_NE(t.find("clients{role=\"player\"} 3\n"), std::string::npos) << t;
  EXPECT_NE(t.find("clients{role=\"spectator\"} 1\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("# TYPE clients gauge", t.find("# TYPE clients gauge") + 1), std::string::npos);
  EXPECT_EQ(t.find("process_"), std::string::npos) << "process metrics were switched off";
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
  EXPECT_EQ(h.count(), 5u);
  EXPECT_EQ(h.bucket(0), 2u);
  EXPECT_EQ(h.bucket(3), 1u);  // +Inf alone
  EXPECT_EQ(h.quantile_upper_bound(0.5), 1);
}

TEST(Metrics, ServerMetricsExposeEveryRequiredFamily) {
  Registry r;
  ServerMetrics m(r);
  m.tick_seconds.observe(0.001);
  const std::string t = r.render();
  for (const char* name :
       {"flockstep_tick_duration_seconds_bucket", "flockstep_tick_overruns_total", "flockstep_clients{role=\"player\"}",
        "flockstep_clients{role=\"spectator\"}", "flockstep_agents{kind=\"flock\"}", "flockstep_ws_bytes_sent_total",
        "flockstep_ws_messages_sent_total", "flockstep_snapshot_size_bytes_bucket", "flockstep_snapshots_dropped_total",
        "flockstep_malformed_messages_total", "flockstep_rtt_seconds_bucket", "process_cpu_seconds_total",
        "process_resident_memory_bytes", "process_open_fds", "process_max_fds", "process_start_time_seconds"})
    EXPECT_NE(t.find(name), std::string::npos) << name;
  const std::string info = "flockstep_build_info{commit=\"" + std::string(build_info::kCommit) + "\",version=\"" +
                           std::string(build_info::kVersion) + "\"} 1\n";
  EXPECT_NE(t.find(info), std::string::npos) << t;
}

TEST(Metrics, RoomSeriesCarryTheRoomLabelAndFeedTheTotals) {
  Registry r;
  ServerMetrics m(r);
  RoomMetrics& a = m.room("arena");
  RoomMetrics& b = m.room("gallery");
  EXPECT_EQ(&m.room("arena"), &a) << "a room's handles are created once and cached";
  a.clients_player.add(2);
  b.clients_player.add(3);
  b.clients_player.add(-1);
  a.tick_seconds.observe(0.002);
  b.tick_seconds.observe(0.004);
  a.captures.inc();
  a.ticks.set(7);
  EXPECT_EQ(m.clients_player.value(), 4);  // Agones reads the totals
  EXPECT_EQ(m.tick_seconds.count(), 2u);
  EXPECT_EQ(m.captures.value(), 1u);
  EXPECT_EQ(m.ticks.value(), 0) << "a room's world tick is not summed into the server's";
  const std::string t = r.render();
  EXPECT_NE(t.find("flockstep_room_clients{role=\"player\",room=\"arena\"} 2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("flockstep_room_clients{role=\"player\",room=\"gallery\"} 2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("flockstep_room_tick_duration_seconds_count{room=\"gallery\"} 1\n"), std::string::npos) << t;
  EXPECT_NE(t.find("flockstep_room_world_tick{room=\"arena\"} 7\n"), std::string::npos) << t;
  EXPECT_NE(t.find("flockstep_clients{role=\"player\"} 4\n"), std::string::npos) << t;
}

TEST(Metrics, ProcStatParsingHandlesCommandNamesWithSpacesAndParentheses) {
  // Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
  // utime(14) stime(15) cutime cstime priority nice threads itrealvalue starttime(22) vsize rss(24).
  const std::string self = "42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1000 123456 300 0";
  const ProcessStats s = parse_proc_stat(self, "cpu 1 2 3\nbtime 1700000000\nprocesses 5\n", 100, 4096);
  ASSERT_TRUE(s.cpu_seconds && s.resident_bytes && s.start_time_seconds);
  EXPECT_DOUBLE_EQ(*s.cpu_seconds, 3.0);
  EXPECT_DOUBLE_EQ(*s.resident_bytes, 300.0 * 4096);
  EXPECT_DOUBLE_EQ(*s.start_time_seconds, 1700000010.0);
  EXPECT_FALSE(parse_proc_stat("garbage", "", 100, 4096).cpu_seconds);
}

TEST(Metrics, ProcessFiguresOfThisProcessAreSane) {
  const ProcessStats s = read_process_stats();
  ASSERT_TRUE(s.resident_bytes && s.open_fds && s.max_fds && s.cpu_seconds && s.start_time_seconds);
  EXPECT_GT(*s.resident_bytes, 1024.0 * 1024);
  EXPECT_GE(*s.open_fds, 3.0);  // stdin, stdout, stderr at least
  EXPECT_GE(*s.max_fds, *s.open_fds);
  EXPECT_GT(*s.start_time_seconds, 1.6e9);
}

// A real server on an OS-chosen loopback port: its scrape has the families, the room label, and
// promtool (Debian package `prometheus`) accepts it.
TEST(Metrics, RealServerScrapeHasRoomLabelsAndPassesPromtool) {
  config::Config cfg;
  cfg.host = "127.0.0.1";
  cfg.port = 0;
  std::ostringstream log;
  net::Server server(cfg, game::load_scenario_file(FLOCKSTEP_SOURCE_DIR "/scenarios/arena.json"), log);
  server.start();
  const auto r = bot::http_get("127.0.0.1", server.port(), "/metrics");
  server.shutdown();
  server.wait();
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.content_type.find("text/plain; version=0.0.4"), std::string::npos) << r.content_type;
  for (const char* s : {"flockstep_room_tick_duration_seconds_bucket{room=\"arena\",le=",
                        "flockstep_room_agents{kind=\"flock\",room=\"arena\"}",
                        "flockstep_room_clients{role=\"player\",room=\"arena\"}",
                        "flockstep_tick_duration_seconds_bucket{le=", "flockstep_build_info{",
                        "process_resident_memory_bytes ", "process_open_fds "})
    EXPECT_NE(r.body.find(s), std::string::npos) << s;

  if (std::system("promtool --version >/dev/null 2>&1") != 0)
    FAIL() << "promtool not found: install the Debian package prometheus (scripts/setup.sh does)";
  const auto path =
      std::filesystem::temp_directory_path() / ("flockstep_scrape_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path) << r.body;
  const std::string cmd = "promtool check metrics < " + path.string() + " > " + path.string() + ".out 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream out(path.string() + ".out");
  const std::string said((std::istreambuf_iterator<char>(out)), {});
  EXPECT_EQ(rc, 0) << said;
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + ".out");
}

}  // namespace
}  // namespace flockstep::server::ops
