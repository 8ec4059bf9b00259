// flockstep_bench_metrics: what one metric update costs on the tick path. The server's handles
// are prometheus-cpp metrics (a histogram observation takes a per-histogram mutex; counters and
// gauges are a compare-and-swap on a double); the baseline is the lock-free atomic histogram and
// counter of the hand-written registry they replaced, reproduced here for the comparison.
// A room's handle is linked to the server-wide total, so a room update is two updates.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "ops/metrics.hpp"

namespace {

using flockstep::server::ops::Registry;
using flockstep::server::ops::ServerMetrics;

std::vector<double> bounds() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.006,
          0.008,   0.010,  0.0125,  0.0167, 0.025, 0.033,  0.05,  0.066, 0.1};
}

// The replaced implementation: a lower_bound and three relaxed atomic updates.
struct AtomicHistogram {
  std::vector<double> b = bounds();
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets { new std::atomic<std::uint64_t>[ 20 ]() };
  std::atomic<std::uint64_t> count{0};
  std::atomic<double> sum{0};
  void observe(double v) {
    const auto it = std::lower_bound(b.begin(), b.end(), v);
    buckets[static_cast<std::size_t>(it - b.begin())].fetch_add(1, std::memory_order_relaxed);
    count.fetch_add(1, std::memory_order_relaxed);
    double cur = sum.load(std::memory_order_relaxed);
    while (!sum.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
    }
  }
};

void BM_HandWrittenHistogramObserve(benchmark::State& state) {
  AtomicHistogram h;
  double v = 0.0001;
  for (auto _ : state) {
    h.observe(v);
    v = v < 0.05 ? v * 1.5 : 0.0001;
  }
  benchmark::DoNotOptimize(h.count.load());
}
BENCHMARK(BM_HandWrittenHistogramObserve);

void BM_HandWrittenCounterInc(benchmark::State& state) {
  std::atomic<std::uint64_t> c{0};
  for (auto _ : state) c.fetch_add(1, std::memory_order_relaxed);
  benchmark::DoNotOptimize(c.load());
}
BENCHMARK(BM_HandWrittenCounterInc);

void BM_PrometheusHistogramObserve(benchmark::State& state) {
  Registry r;
  auto& h = r.histogram("h_seconds", "h", bounds());
  double v = 0.0001;
  for (auto _ : state) {
    h.observe(v);
    v = v < 0.05 ? v * 1.5 : 0.0001;
  }
}
BENCHMARK(BM_PrometheusHistogramObserve);

void BM_PrometheusCounterInc(benchmark::State& state) {
  Registry r;
  auto& c = r.counter("c_total", "c");
  for (auto _ : state) c.inc();
}
BENCHMARK(BM_PrometheusCounterInc);

// What Game::run does per tick: a room's tick histogram (linked to the total), its world tick
// gauge, and the overrun check's counter (rarely taken; counted here every time: the worst case).
void BM_RoomTickMetricsPerTick(benchmark::State& state) {
  Registry r;
  ServerMetrics m(r);
  auto& room = m.room("arena");
  std::int64_t tick = 0;
  for (auto _ : state) {
    room.tick_seconds.observe(0.002);
    room.ticks.set(++tick);
    room.tick_overruns.inc();
  }
}
BENCHMARK(BM_RoomTickMetricsPerTick);

// A scrape renders every family (and reads /proc/self): the cost a Prometheus poll puts on an
// I/O thread, never on the game thread.
void BM_RenderScrape(benchmark::State& state) {
  Registry r;
  ServerMetrics m(r);
  m.room("arena");
  m.room("gallery");
  for (auto _ : state) benchmark::DoNotOptimize(r.render());
}
BENCHMARK(BM_RenderScrape);

}  // namespace

BENCHMARK_MAIN();
