// Save and restore of a whole world (codec::encode_world_state / decode_world_state) on the
// flock scenario with 10,000 and 100,000 agents: time per save or restore, and the size of the
// saved state (counters bytes and bytes_per_agent). A restore includes parsing, the checks of
// World::from_state, rebuilding the derived data and the state hash check. Run:
//   build/release/bench/flockstep_bench_world_state --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <string>

#include "codec/world_state_codec.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"

namespace fs = flockstep;

namespace {

constexpr int kSettleTicks = 5;  // a few ticks, so steering outputs and counters are filled in

fs::sim::World settled(std::int32_t n) {
  fs::sim::World w(fs::sim::canonical::flock(n));
  for (int k = 0; k < kSettleTicks; ++k) w.step();
  return w;
}

void BM_SaveWorld(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  const fs::sim::World w = settled(n);
  std::string bytes;
  for (auto _ : state) {
    bytes = fs::codec::encode_world_state(w);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.counters["agents"] = w.size();
  state.counters["bytes"] = static_cast<double>(bytes.size());
  state.counters["bytes_per_agent"] = static_cast<double>(bytes.size()) / w.size();
}

void BM_RestoreWorld(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  const std::string bytes = fs::codec::encode_world_state(settled(n));
  for (auto _ : state) {
    fs::codec::DecodedWorld d = fs::codec::decode_world_state(bytes);
    if (!d.world) {
      state.SkipWithError(d.error.c_str());
      break;
    }
    benchmark::DoNotOptimize(d.world.get());
  }
  state.counters["bytes"] = static_cast<double>(bytes.size());
}

}  // namespace

BENCHMARK(BM_SaveWorld)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RestoreWorld)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
