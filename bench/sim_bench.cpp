// Simulation benchmarks: the flock tick at 1k/10k/100k agents and the mixed arena on 1 and 2
// threads (the game's ThreadPool as the World's task runner), a 100,000-agent world at 30 Hz
// against its 33.3 ms budget, the neighbour query, and a naive O(N^2) reference running the
// same behaviour code, so the grid's gain is a ratio measured side by side.
// Run: build/release/bench/flockstep_bench_sim --benchmark_repetitions=5
//   --benchmark_report_aggregates_only=true   (see docs/performance.md)
// Times are wall-clock (UseRealTime): with two threads the process CPU time is not the latency.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/math/angle.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/grid.hpp"
#include "flockstep/sim/world.hpp"
#include "game/snapshot_streams.hpp"
#include "game/thread_pool.hpp"
#include "roofline_boids.hpp"

namespace fs = flockstep;
using fs::math::real;
using fs::math::Vec2;

namespace {

// The full world tick (grid rebuild, steering with obstacles/walls/flocking, integration, rules)
// on range(1) threads (1 = the serial runner, no pool), with the flock neighbourhoods summed by
// range(2): 0 the SIMD lane kernel (the default; vehicle bodies updated four at a time), 1 its
// scalar reference (same bits), 2 the per-neighbour path the kernel replaced, 3 the SIMD lane
// kernel with the per-agent body update (same bits as 0), kept so they compare in one run.
void BM_FlockTick(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  const auto threads = static_cast<std::int32_t>(state.range(1));
  fs::sim::World w(fs::sim::canonical::flock(n));
  w.set_flock_kernel(static_cast<fs::sim::World::FlockKernel>(state.range(2)));
  std::unique_ptr<fs::server::game::ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<fs::server::game::ThreadPool>(threads);
    w.set_task_runner(pool->runner());
  }
  for (int k = 0; k < 60; ++k) w.step();  // settle into a flock first
  std::int64_t neighbours = 0;
  for (auto _ : state) w.step();
  // Report the mean neighbour count so the density claim in docs/performance.md is checked.
  {
    fs::sim::Grid g;
    const fs::sim::Scenario& s = w.scenario();
    g.init(s.width, s.height, s.grid_cell, s.wrap, w.size());
    std::vector<Vec2> pos(static_cast<std::size_t>(w.size()));
    for (std::int32_t i = 0; i < w.size(); ++i) pos[static_cast<std::size_t>(i)] = w.view(i).position;
    g.rebuild(pos);
    for (std::int32_t i = 0; i < w.size(); ++i)
      g.query(pos[static_cast<std::size_t>(i)], s.groups[0].flock.neighbour_radius, i, pos,
              [&](std::int32_t, Vec2, real) { ++neighbours; });
  }
  state.counters["neighbours_per_agent"] = static_cast<double>(neighbours) / n;
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_FlockTick)
    ->ArgNames({"agents", "threads", "kernel"})
    ->ArgsProduct({{1000, 10000, 100000}, {1, 2}, {0, 1, 2, 3}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The roofline: a plain hand-written boids kernel (roofline_boids.hpp: separation, alignment,
// cohesion, force and speed clamp, cell-sorted grid with the sort in the step, AVX2 doubles) at
// the flock's density, so BM_FlockTick has a floor measured side by side in the same process.
void BM_RooflineBoids(benchmark::State& state) {
  if (!fs::bench::roofline_supported()) {
    state.SkipWithError("the roofline kernel needs AVX2");
    return;
  }
  fs::bench::RooflineBoids boids(static_cast<std::int32_t>(state.range(0)), 7);
  for (int k = 0; k < 60; ++k) boids.step();  // settle, as BM_FlockTick does
  std::int64_t pairs = 0;
  for (auto _ : state) pairs += boids.step();
  state.counters["neighbours_per_agent"] =
      static_cast<double>(pairs) / (static_cast<double>(state.iterations()) * boids.size());
  state.SetItemsProcessed(state.iterations() * boids.size());
}
BENCHMARK(BM_RooflineBoids)->ArgName("agents")->Arg(10000)->Arg(100000)->UseRealTime()->Unit(benchmark::kMillisecond);

// The mixed arena (every technique, walls, obstacles, an evasive player) on range(0) threads.
/// The mixed arena, stepped with `threads` threads; `traced` agents (0..kMaxTraced, spread over
/// the world's dense order) have their steering traced as the inspector asks for.
void arena_tick(benchmark::State& state, std::int32_t threads, std::int32_t traced,
                std::int32_t reorder = fs::sim::World::kReorderIntervalTicks) {
  fs::sim::World w(fs::sim::canonical::mixed());
  w.set_reorder_interval(reorder);
  std::unique_ptr<fs::server::game::ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<fs::server::game::ThreadPool>(threads);
    w.set_task_runner(pool->runner());
  }
  const fs::sim::AgentId player = w.add_player();
  for (int k = 0; k < 60; ++k) w.step();
  std::vector<fs::sim::AgentId> ids;
  for (std::int32_t t = 0; t < traced; ++t) ids.push_back(w.id_at(t * w.size() / traced));
  w.set_traced(ids);
  for (auto _ : state) {
    w.set_input(player, fs::sim::canonical::evasive_input(w.tick()));
    w.step();
  }
  state.counters["agents"] = w.size();
  state.SetItemsProcessed(state.iterations() * w.size());
}

void BM_ArenaTick(benchmark::State& state) { arena_tick(state, static_cast<std::int32_t>(state.range(0)), 0); }
BENCHMARK(BM_ArenaTick)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
// Storage order side by side: the flock tick (one thread) and the arena with the rows moved
// into cell order every 16 ticks (the default) against never (spawn order, as before).
// range(0): 0 = flock 10,000, 1 = flock 100,000, 2 = the mixed arena; range(1): reorder interval.
void BM_RowOrder(benchmark::State& state) {
  const auto reorder = static_cast<std::int32_t>(state.range(1));
  if (state.range(0) == 2) return arena_tick(state, 1, 0, reorder);
  const std::int32_t n = state.range(0) == 0 ? 10000 : 100000;
  fs::sim::World w(fs::sim::canonical::flock(n));
  w.set_reorder_interval(reorder);
  for (int k = 0; k < 60; ++k) w.step();
  for (auto _ : state) w.step();
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_RowOrder)
    ->ArgNames({"world", "reorder"})
    ->ArgsProduct({{0, 1, 2}, {16, 0}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// The inspector's cost: the same arena with 16 agents traced (the most a room traces), 1 thread.
void BM_ArenaTickTraced(benchmark::State& state) { arena_tick(state, 1, static_cast<std::int32_t>(state.range(0))); }
BENCHMARK(BM_ArenaTickTraced)->ArgName("traced")->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond);

// Large worlds at a tick rate: budget_used = tick time / (1 / hz); below 1 the world keeps its
// rate with the rest of the period left for snapshots. Arguments: agents, tick rate (Hz),
// threads, Scenario::steering_interval_ticks (behaviour level of detail; 1 = every vehicle
// steers every tick, 8 = PSCrowd's 1/8 rota), World::set_reorder_interval (rows moved into cell
// order every this many ticks; 0 = never, the rows stay in spawn order). Run with
// --benchmark_min_time=10 or more: the flock needs a few hundred ticks for spawn order to stop
// meaning anything in space, and a reorder is one tick in sixteen.
void BM_WorldLarge(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  const auto hz = static_cast<std::int32_t>(state.range(1));
  const auto threads = static_cast<std::int32_t>(state.range(2));
  fs::sim::Scenario s = fs::sim::canonical::flock(n);
  s.tick_rate_hz = hz;
  s.steering_interval_ticks = static_cast<std::int32_t>(state.range(3));
  fs::sim::World w(s);
  w.set_reorder_interval(static_cast<std::int32_t>(state.range(4)));
  std::unique_ptr<fs::server::game::ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<fs::server::game::ThreadPool>(threads);
    w.set_task_runner(pool->runner());
  }
  for (int k = 0; k < 16; ++k) w.step();
  for (auto _ : state) w.step();
  const double budget_s = 1.0 / hz;
  state.counters["budget_used"] = benchmark::Counter(static_cast<double>(state.iterations()) * budget_s,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(state.iterations() * w.size());
}
BENCHMARK(BM_WorldLarge)
    ->ArgNames({"agents", "hz", "threads", "steer_every", "reorder"})
    ->Args({100000, 60, 1, 1, 16})
    ->Args({100000, 60, 1, 1, 0})
    ->Args({100000, 60, 2, 1, 16})
    ->Args({100000, 60, 2, 1, 0})
    ->Args({100000, 30, 2, 2, 16})
    ->Args({1000000, 30, 2, 8, 16})
    ->Args({1000000, 30, 2, 8, 0})
    ->Args({1000000, 30, 2, 1, 16})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The T76 neighbourhood kernel alone, over the neighbourhoods of a settled 10,000-boid flock
// (cell-ordered structure-of-arrays copies and each boid's cell ranges, as the world builds
// them): range(0) is the behavior::LaneKernel. kSimd (0) is the kernel the world runs (AVX2
// here), kSimd128 (1) its 128-bit form (SSE2 natively, SIMD128 in wasm), kScalar (2) the
// reference; the kernels run in one process, so their ratio holds on a loaded machine where tick
// times swing between runs.
void BM_FlockSums(benchmark::State& state) {
  const auto kernel = static_cast<fs::behavior::LaneKernel>(state.range(0));
  constexpr std::int32_t n = 10000;
  fs::sim::World w(fs::sim::canonical::flock(n));
  for (int k = 0; k < 60; ++k) w.step();
  const fs::sim::Scenario& s = w.scenario();
  std::vector<Vec2> pos(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) pos[static_cast<std::size_t>(i)] = w.view(i).position;
  fs::sim::Grid g;
  g.init(s.width, s.height, s.grid_cell, s.wrap, n);
  g.rebuild(pos);
  const auto slots = g.slots();
  const auto padded = static_cast<std::size_t>(n + fs::behavior::kNeighbourLanes);
  std::vector<float> x(padded, 0), y(padded, 0), hx(padded, 0), hy(padded, 0);
  std::vector<std::int32_t> group(padded, -1);
  for (std::int32_t k = 0; k < n; ++k) {
    const auto v = w.view(slots[static_cast<std::size_t>(k)]);
    const Vec2 h = fs::math::as_vector(v.orientation);
    x[static_cast<std::size_t>(k)] = static_cast<float>(v.position.x);
    y[static_cast<std::size_t>(k)] = static_cast<float>(v.position.y);
    hx[static_cast<std::size_t>(k)] = static_cast<float>(h.x);
    hy[static_cast<std::size_t>(k)] = static_cast<float>(h.y);
    group[static_cast<std::size_t>(k)] = v.group;
  }
  const fs::behavior::NeighbourArrays arrays{x.data(), y.data(), hx.data(), hy.data(), group.data()};
  const fs::sim::FlockSpec& fp = s.groups[0].flock;
  fs::behavior::LaneQuery q;
  q.radius = fp.neighbour_radius;
  q.cos_half_fov = fs::math::sin_cos(fp.fov_deg * 0.5 * fs::math::kDegToRad).cos;
  std::int64_t kept = 0;
  for (auto _ : state) {
    for (std::int32_t k = 0; k < n; ++k) {
      fs::behavior::SlotRange r[fs::sim::Grid::kMaxSlotRanges];
      const std::int32_t nr = g.cell_ranges(g.slot_cell(k), r);
      const auto i = static_cast<std::size_t>(k);
      q.position = {static_cast<real>(x[i]), static_cast<real>(y[i])};
      q.heading = {static_cast<real>(hx[i]), static_cast<real>(hy[i])};
      q.self = k;
      q.group = group[i];
      kept += fs::behavior::flock_sums_lanes(
                  q, arrays, std::span<const fs::behavior::SlotRange>(r, static_cast<std::size_t>(nr)), kernel)
                  .sums.count;
    }
  }
  benchmark::DoNotOptimize(kept);
  state.counters["kept_per_agent"] = static_cast<double>(kept) / (static_cast<double>(state.iterations()) * n);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_FlockSums)->ArgName("kernel")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// Neighbour query alone: rebuild + one radius query per agent.
void BM_GridRebuildAndQuery(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  fs::sim::World w(fs::sim::canonical::flock(n));
  const fs::sim::Scenario& s = w.scenario();
  std::vector<Vec2> pos(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) pos[static_cast<std::size_t>(i)] = w.view(i).position;
  fs::sim::Grid g;
  g.init(s.width, s.height, s.grid_cell, s.wrap, n);
  for (auto _ : state) {
    g.rebuild(pos);
    std::int64_t found = 0;
    for (std::int32_t i = 0; i < n; ++i)
      g.query(pos[static_cast<std::size_t>(i)], 6, i, pos, [&](std::int32_t, Vec2, real) { ++found; });
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_GridRebuildAndQuery)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Naive reference: the seed's O(N^2) neighbour scan (catalog T33 "Cost") feeding the same
// flocking forces and body integration, without obstacles. Only up to 10k (100k would take
// minutes per iteration).
void BM_FlockTickNaive(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  fs::sim::World w(fs::sim::canonical::flock(n));
  const fs::sim::Scenario& s = w.scenario();
  const fs::sim::GroupSpec& g = s.groups[0];
  std::vector<fs::behavior::Body> bodies(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) {
    const auto v = w.view(i);
    bodies[static_cast<std::size_t>(i)] = {
        v.position, v.velocity, fs::math::normalized(v.velocity), g.mass, g.max_force, g.max_speed, g.radius};
  }
  std::vector<Vec2> force(static_cast<std::size_t>(n));
  std::vector<fs::behavior::Neighbour> nb;
  nb.reserve(256);
  const real r2 = g.flock.neighbour_radius * g.flock.neighbour_radius;
  for (auto _ : state) {
    for (std::int32_t i = 0; i < n; ++i) {
      nb.clear();
      const auto& bi = bodies[static_cast<std::size_t>(i)];
      for (std::int32_t j = 0; j < n; ++j) {
        if (j == i) continue;
        const auto& bj = bodies[static_cast<std::size_t>(j)];
        const Vec2 d = fs::math::torus_delta(bi.position, bj.position, s.width, s.height);
        if (fs::math::length_sq(d) <= r2 && nb.size() < 24) nb.push_back({bi.position + d, bj.velocity, bj.heading});
      }
      const auto ff = fs::behavior::flocking_forces(bi, nb);
      force[static_cast<std::size_t>(i)] = ff.separation * 2.0 + ff.alignment + ff.cohesion;
    }
    for (std::int32_t i = 0; i < n; ++i) {
      auto& b = bodies[static_cast<std::size_t>(i)];
      fs::behavior::body_update(b, force[static_cast<std::size_t>(i)], 1.0 / 60);
      b.position = fs::math::wrap_torus(b.position, s.width, s.height);
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_FlockTickNaive)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// Work done between ticks in rows that move: a flock of range(0) boids whose rows move into cell
// order every range(1) ticks (0 = never, so the rows stay in id order), settled, then stepped
// `ticks_between` ticks (untimed) before each timed call of `work(world)`.
template <class Work>
void between_ticks(benchmark::State& state, const fs::sim::Scenario& scenario, int ticks_between, Work&& work) {
  fs::sim::World w(scenario);
  w.set_reorder_interval(static_cast<std::int32_t>(state.range(1)));
  for (int k = 0; k < 64; ++k) w.step();
  for (auto _ : state) {
    state.PauseTiming();
    for (int k = 0; k < ticks_between; ++k) w.step();
    state.ResumeTiming();
    work(w);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The snapshot's first step on the server's game thread: SnapshotStreams::begin lists the agents
// in id order (what the codec merges by), quantises them and indexes them for the clients'
// areas; four ticks between snapshots (60 Hz ticks, 15 Hz snapshots, as bench/load_100k.sh runs
// it).
void BM_SnapshotBegin(benchmark::State& state) {
  const fs::sim::Scenario scenario = fs::sim::canonical::flock(static_cast<std::int32_t>(state.range(0)));
  fs::server::game::SnapshotStreams streams(scenario, fs::server::game::StreamConfig{});
  between_ticks(state, scenario, 4, [&](const fs::sim::World& w) {
    streams.begin(w, 0);
    benchmark::DoNotOptimize(streams.sample().agents.data());
  });
}

// The state hash the room takes once per second and the recorder at its hash interval: every
// agent's state, read in storage order (sim::RowSetHasher); 16 ticks between hashes.
void BM_StateHash(benchmark::State& state) {
  between_ticks(state, fs::sim::canonical::flock(static_cast<std::int32_t>(state.range(0))), 16,
                [](const fs::sim::World& w) { benchmark::DoNotOptimize(w.state_hash()); });
}

// Both at 100,000 and 1,000,000 agents, with the rows reordered as the world does by default
// and never.
void between_ticks_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"agents", "reorder"})
      ->ArgsProduct({{100000, 1000000}, {fs::sim::World::kReorderIntervalTicks, 0}})
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_SnapshotBegin)->Apply(between_ticks_args)->Iterations(24);
BENCHMARK(BM_StateHash)->Apply(between_ticks_args)->Iterations(8);

}  // namespace

BENCHMARK_MAIN();
