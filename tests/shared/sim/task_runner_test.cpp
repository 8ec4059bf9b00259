// The World's per-agent phases run through a lent TaskRunner as a fixed partition of tasks.
// These fake runners execute the tasks in orders no serial loop would (reversed, from both ends
// alternately, as two threads racing might): every order must reproduce the golden hashes bit for
// bit. Single-threaded on purpose (tests/shared also runs in wasm, where there are no threads);
// the real thread pool is tested in tests/server/game/thread_pool_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "flockstep/sim/task_runner.hpp"
#include "golden_hashes.hpp"

namespace flockstep::sim {
namespace {

// Runs a batch last task first.
void run_reversed(void*, std::int32_t count, TaskRunner::TaskFn task, void* arg) {
  for (std::int32_t t = count - 1; t >= 0; --t) task(arg, t);
}

// Runs a batch from both ends alternately: n-1, 0, n-2, 1, ... (two workers meeting in the middle).
void run_interleaved(void*, std::int32_t count, TaskRunner::TaskFn task, void* arg) {
  std::int32_t lo = 0, hi = count - 1;
  while (lo <= hi) {
    task(arg, hi--);
    if (lo <= hi) task(arg, lo++);
  }
}

// Records, per batch, how often each task index ran; runs them reversed.
struct Recorder {
  std::vector<std::vector<std::int32_t>> runs_per_batch;
  static void run(void* self, std::int32_t count, TaskRunner::TaskFn task, void* arg) {
    auto& r = *static_cast<Recorder*>(self);
    std::vector<std::int32_t> runs(static_cast<std::size_t>(count), 0);
    for (std::int32_t t = count - 1; t >= 0; --t) {
      task(arg, t);
      ++runs[static_cast<std::size_t>(t)];
    }
    r.runs_per_batch.push_back(std::move(runs));
  }
};

TEST(TaskRunner, ReversedTaskOrderReproducesEveryGoldenHash) {
  const TaskRunner reversed{&run_reversed, nullptr};
  for (const golden::Case& c : golden::cases())
    EXPECT_EQ(golden::run(c.scenario, c.ticks, c.with_player, reversed), c.hash) << c.scenario.name;
}

TEST(TaskRunner, InterleavedTaskOrderReproducesMultiTaskGoldenHashes) {
  // pursuit and patrols have fewer agents than one task holds, so only these two can reorder.
  const TaskRunner interleaved{&run_interleaved, nullptr};
  EXPECT_EQ(golden::run(canonical::flock(500), 2000, false, interleaved), golden::kFlock500);
  EXPECT_EQ(golden::run(canonical::mixed(), 1000, true, interleaved), golden::kMixedArena);
}

TEST(TaskRunner, ManyTaskWorldIsIdenticalUnderEveryTaskOrder) {
  // 3,000 boids = 12 tasks per phase, plus a player so the flee layer and captures run.
  const Scenario s = canonical::flock(3000);
  const std::uint64_t serial = golden::run(s, 150, true);
  EXPECT_EQ(golden::run(s, 150, true, TaskRunner{&run_reversed, nullptr}), serial);
  EXPECT_EQ(golden::run(s, 150, true, TaskRunner{&run_interleaved, nullptr}), serial);
}

TEST(TaskRunner, EveryTaskOfEveryPhaseRunsExactlyOnceWithAFixedPartition) {
  const Scenario s = canonical::flock(3000);
  Recorder rec;
  World w(s);
  // Tick 0 moves the rows into cell order (World::set_reorder_interval), a batch per column;
  // the three ticks recorded are between reorders.
  w.step();
  w.set_task_runner(TaskRunner{&Recorder::run, &rec});
  constexpr std::int32_t kTicks = 3;
  for (std::int32_t t = 0; t < kTicks; ++t) w.step();
  // The partition depends on the agent count only: ceil(3000 / kAgentsPerTask) tasks per phase.
  const std::int32_t expected_tasks = (w.size() + World::kAgentsPerTask - 1) / World::kAgentsPerTask;
  ASSERT_EQ(w.size(), 3000);
  ASSERT_EQ(expected_tasks, 12);
  ASSERT_EQ(rec.runs_per_batch.size(), static_cast<std::size_t>(3 * kTicks));  // gather, steer, integrate
  for (const auto& runs : rec.runs_per_batch) {
    ASSERT_EQ(runs.size(), static_cast<std::size_t>(expected_tasks));
    for (const std::int32_t n : runs) EXPECT_EQ(n, 1);
  }
}

TEST(TaskRunner, DefaultRunnerRunsEveryTaskInOrderOnTheCaller) {
  std::vector<std::int32_t> order;
  const TaskRunner serial{};
  serial.run_batch(
      5, [](void* arg, std::int32_t t) { static_cast<std::vector<std::int32_t>*>(arg)->push_back(t); }, &order);
  EXPECT_EQ(order, (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace flockstep::sim
