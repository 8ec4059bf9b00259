// Snapshot bandwidth and encode cost on the flock scenario: the plain protobuf snapshot
// (doubles), the quantised full snapshot, and the quantised delta against the previous snapshot
// (a client that acknowledges every snapshot), with 100 / 1,000 / 10,000 agents in view.
// Reported counters: bytes per snapshot, bytes per moving agent, kbit/s at 20 Hz; the time is the
// encode time of one client's snapshot. BM_ScenarioDelta: the same delta bytes for a spectator
// of the arena and the shoal (scenarios/*.json) at baseline ages 1 and 4. Run:
//   build/release/bench/flockstep_bench_snapshot --benchmark_counters_tabular=true
// and, for the CSV of bytes per client against agent count (bench/results/):
//   build/release/bench/flockstep_bench_snapshot --csv=bench/results/snapshot_bytes.csv
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "codec/scenario_json.hpp"
#include "codec/server_codec.hpp"
#include "codec/snapshot_codec.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"

namespace fs = flockstep;
namespace codec = fs::codec;

namespace {

constexpr double kSnapshotRateHz = 20;
constexpr int kTicksPerSnapshot = 3;  // 60 Hz sim, 20 Hz snapshots
constexpr int kSettleTicks = 120;     // let the flock form before measuring

/// The world's agents quantised and sorted by id (what the server's streams do once per tick).
void sample(const fs::sim::World& w, const codec::WireGeometry& g, std::vector<codec::QAgent>& out) {
  out.clear();
  for (std::int32_t i = 0; i < w.size(); ++i) out.push_back(codec::quantize(w.view(i), g));
  std::sort(out.begin(), out.end(), [](const codec::QAgent& a, const codec::QAgent& b) { return a.id < b.id; });
}

/// Moving agents between two samples: the quantised state changed.
std::int64_t moving(const std::vector<codec::QAgent>& a, const std::vector<codec::QAgent>& b) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) n += (a[i].x != b[i].x || a[i].y != b[i].y) ? 1 : 0;
  return n;
}

struct Figures {
  double bytes = 0, bytes_per_moving = 0;
  std::int64_t moving = 0;
};

/// Mean snapshot size of `snapshots` snapshots in the given mode, measured outside the timer.
/// Mode 2 (delta) codes each snapshot against the frame `baseline_age` snapshots older: 1 is a
/// client whose ack arrives before the next snapshot (loopback); over a real link the newest
/// acknowledged frame is about RTT / 50 ms + 1 snapshots old (age 4 at 150 ms RTT).
Figures measure_world(fs::sim::World& w, int mode, int snapshots, int baseline_age) {
  const codec::WireGeometry g = codec::WireGeometry::of(w.scenario());
  for (int k = 0; k < kSettleTicks; ++k) w.step();
  std::vector<codec::QAgent> prev, cur;
  sample(w, g, prev);
  codec::ViewFrame base;
  {
    codec::EncodeInput in;
    in.tick = w.tick();
    in.visible = prev;
    std::string bits;
    codec::encode_agents(in, g, bits, base);
  }
  codec::SnapshotEncoder plain;
  Figures f;
  std::vector<codec::ViewFrame> history;  // the frames sent so far, newest last (delta mode)
  history.push_back(base);
  for (int s = 0; s < snapshots; ++s) {
    for (int k = 0; k < kTicksPerSnapshot; ++k) w.step();
    sample(w, g, cur);
    std::size_t bytes = 0;
    if (mode == 0) {
      bytes = plain.encode_body(w).size();
    } else {
      // The acknowledged baseline: baseline_age frames back (the oldest sent while warming up).
      const codec::ViewFrame& acked = history[history.size() - static_cast<std::size_t>(std::min<int>(
                                                                   baseline_age, static_cast<int>(history.size())))];
      codec::EncodeInput in;
      in.tick = w.tick();
      in.base = mode == 2 ? &acked : nullptr;
      in.visible = cur;
      std::string bits, body;
      codec::ViewFrame next;
      codec::encode_agents(in, g, bits, next);
      codec::encode_delta_body(w.tick(), mode == 2 ? acked.tick : 0, w.state_hash(), bits,
                               static_cast<std::uint32_t>(next.agents.size()), body);
      bytes = body.size();
      history.push_back(std::move(next));
      if (history.size() > 32) history.erase(history.begin());  // the server's 32-frame history
    }
    f.bytes += static_cast<double>(bytes);
    f.moving += moving(prev, cur);
    std::swap(prev, cur);
  }
  f.bytes /= snapshots;
  f.bytes_per_moving = f.moving > 0 ? f.bytes * snapshots / static_cast<double>(f.moving) : 0;
  f.moving /= snapshots;
  return f;
}

Figures measure(std::int32_t n, int mode, int snapshots, int baseline_age = 1) {
  fs::sim::World w(fs::sim::canonical::flock(n));
  return measure_world(w, mode, snapshots, baseline_age);
}

/// The shipped scenarios whose spectators the fan-out targets name (docs/performance.md): every
/// agent in view, delta against the frame `baseline_age` snapshots back.
const char* const kScenarios[] = {"arena", "shoal"};

Figures measure_scenario(const std::string& name, int snapshots, int baseline_age) {
  fs::sim::World w(codec::load_scenario_file(std::string(FLOCKSTEP_SCENARIO_DIR) + "/" + name + ".json"));
  return measure_world(w, 2, snapshots, baseline_age);
}

void report(benchmark::State& state, const Figures& f, std::int32_t n) {
  state.counters["agents"] = n;
  state.counters["moving"] = static_cast<double>(f.moving);
  state.counters["bytes"] = f.bytes;
  state.counters["B_per_moving"] = f.bytes_per_moving;
  state.counters["kbit_s_20Hz"] = f.bytes * 8 * kSnapshotRateHz / 1000;
}

// Encode time of one snapshot for one client; mode 0 plain protobuf, 1 quantised full, 2 delta.
void BM_Snapshot(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  const int mode = static_cast<int>(state.range(1));
  const Figures f = measure(n, mode, n >= 10000 ? 20 : 60);
  fs::sim::World w(fs::sim::canonical::flock(n));
  const codec::WireGeometry g = codec::WireGeometry::of(w.scenario());
  for (int k = 0; k < kSettleTicks; ++k) w.step();
  std::vector<codec::QAgent> a, b;
  sample(w, g, a);
  codec::ViewFrame base;
  std::string bits, body;
  {
    codec::EncodeInput in;
    in.tick = w.tick();
    in.visible = a;
    codec::encode_agents(in, g, bits, base);
  }
  for (int k = 0; k < kTicksPerSnapshot; ++k) w.step();
  sample(w, g, b);
  codec::SnapshotEncoder plain;
  codec::ViewFrame next;
  for (auto _ : state) {
    if (mode == 0) {
      benchmark::DoNotOptimize(plain.encode_body(w).size());
    } else {
      codec::EncodeInput in;
      in.tick = w.tick();
      in.base = mode == 2 ? &base : nullptr;
      in.visible = b;
      codec::encode_agents(in, g, bits, next);
      codec::encode_delta_body(w.tick(), in.base ? base.tick : 0, 0, bits,
                               static_cast<std::uint32_t>(next.agents.size()), body);
      benchmark::DoNotOptimize(body.data());
    }
  }
  report(state, f, n);
}
BENCHMARK(BM_Snapshot)
    ->ArgNames({"agents", "mode"})
    ->ArgsProduct({{100, 1000, 10000}, {0, 1, 2}})
    ->Unit(benchmark::kMicrosecond);

// Bytes of a spectator of a shipped scenario (every agent in view) acknowledging the frame
// `age` snapshots back; 200 snapshots (10 s at 20 Hz). Counters only: one iteration.
void BM_ScenarioDelta(benchmark::State& state) {
  const std::string name = kScenarios[state.range(0)];
  const auto age = static_cast<int>(state.range(1));
  Figures f;
  for (auto _ : state) f = measure_scenario(name, 200, age);
  state.SetLabel(name);
  report(state, f, static_cast<std::int32_t>(f.moving));
}
BENCHMARK(BM_ScenarioDelta)
    ->ArgNames({"scenario", "age"})
    ->ArgsProduct({{0, 1}, {1, 4}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// Decode time of one delta snapshot on the receiving side (viewer / bot), natively.
void BM_DecodeDelta(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  fs::sim::World w(fs::sim::canonical::flock(n));
  const codec::WireGeometry g = codec::WireGeometry::of(w.scenario());
  for (int k = 0; k < kSettleTicks; ++k) w.step();
  std::vector<codec::QAgent> a, b;
  sample(w, g, a);
  codec::ViewFrame base, next, decoded;
  std::string bits;
  codec::EncodeInput in;
  in.tick = w.tick();
  in.visible = a;
  codec::encode_agents(in, g, bits, base);
  for (int k = 0; k < kTicksPerSnapshot; ++k) w.step();
  sample(w, g, b);
  in.tick = w.tick();
  in.base = &base;
  in.visible = b;
  codec::encode_agents(in, g, bits, next);
  std::vector<fs::sim::AgentView> views;
  for (auto _ : state) {
    if (!codec::decode_agents(&base, w.tick(), bits, g, decoded).ok()) state.SkipWithError("decode failed");
    codec::frame_views(decoded, g, views);
    benchmark::DoNotOptimize(views.data());
  }
  state.counters["agents"] = n;
}
BENCHMARK(BM_DecodeDelta)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

/// --csv=FILE: bytes per client per snapshot and kbit/s at 20 Hz against agents in view, for
/// the plain, full and delta encodings (for docs/performance.md's plot).
int write_csv(const std::string& path) {
  std::ofstream out(path);
  if (!out) {
    std::cerr << "cannot write " << path << "\n";
    return 1;
  }
  out << "agents_in_view,encoding,bytes_per_snapshot,bytes_per_moving_agent,kbit_per_s_at_20hz\n";
  const char* names[] = {"plain_protobuf", "quantised_full", "quantised_delta"};
  for (std::int32_t n : {100, 300, 1000, 3000, 10000}) {
    for (int mode = 0; mode < 3; ++mode) {
      const Figures f = measure(n, mode, n >= 10000 ? 20 : 60);
      out << n << ',' << names[mode] << ',' << f.bytes << ',' << f.bytes_per_moving << ','
          << f.bytes * 8 * kSnapshotRateHz / 1000 << '\n';
      std::cout << n << ' ' << names[mode] << ' ' << f.bytes << " B, " << f.bytes_per_moving << " B/moving agent\n";
    }
  }
  // Older baselines (clients farther away): 1,000 agents in view, delta against the frame 2, 4
  // and 8 snapshots back (100, 200 and 400 ms at 20 Hz).
  for (const int age : {2, 4, 8}) {
    const Figures f = measure(1000, 2, 60, age);
    const std::string name = "delta_baseline_age_" + std::to_string(age);
    out << 1000 << ',' << name << ',' << f.bytes << ',' << f.bytes_per_moving << ','
        << f.bytes * 8 * kSnapshotRateHz / 1000 << '\n';
    std::cout << 1000 << ' ' << name << ' ' << f.bytes << " B, " << f.bytes_per_moving << " B/moving agent\n";
  }
  // Spectators of the shipped scenarios (agents_in_view: the mean of those that moved).
  for (const char* scenario : kScenarios) {
    for (const int age : {1, 4}) {
      const Figures f = measure_scenario(scenario, 200, age);
      const std::string name = std::string(scenario) + "_delta_baseline_age_" + std::to_string(age);
      out << f.moving << ',' << name << ',' << f.bytes << ',' << f.bytes_per_moving << ','
          << f.bytes * 8 * kSnapshotRateHz / 1000 << '\n';
      std::cout << scenario << ' ' << name << ' ' << f.bytes << " B, " << f.bytes_per_moving << " B/moving agent\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--csv=", 6) == 0) return write_csv(argv[i] + 6);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
