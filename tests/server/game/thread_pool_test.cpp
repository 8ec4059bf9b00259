// The game's thread pool as the World's task runner: with 1 and with 2 real threads every
// canonical scenario reproduces its pinned golden hash (the fixed partition makes the tick
// independent of the thread count), and every task of every batch runs exactly once.
#include "game/thread_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "../../shared/sim/golden_hashes.hpp"

namespace flockstep::server::game {
namespace {

TEST(ThreadPool, EveryTaskOfEveryBatchRunsExactlyOnce) {
  for (const std::int32_t threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    ASSERT_EQ(pool.threads(), threads);
    constexpr std::int32_t kMaxCount = 97;
    // Batches of many sizes, back to back, so stale workers of one batch meet the next one.
    for (std::int32_t batch = 0; batch < 2000; ++batch) {
      const std::int32_t count = batch % (kMaxCount + 1);
      std::vector<std::atomic<std::int32_t>> runs(kMaxCount);
      pool.run(
          count,
          [](void* arg, std::int32_t t) {
            static_cast<std::atomic<std::int32_t>*>(arg)[t].fetch_add(1, std::memory_order_relaxed);
          },
          runs.data());
      // run() returned, so every task has finished and its write is visible here.
      for (std::int32_t t = 0; t < kMaxCount; ++t)
        ASSERT_EQ(runs[static_cast<std::size_t>(t)].load(), t < count ? 1 : 0)
            << "threads " << threads << " batch " << batch << " task " << t;
    }
  }
}

TEST(ThreadPool, TwoThreadsRunTwoTasksAtTheSameTime) {
  // Each task waits until the other has started: only possible if two threads run them.
  ThreadPool pool(2);
  struct Rendezvous {
    std::atomic<std::int32_t> started{0};
    std::atomic<bool> met[2]{false, false};
  } r;
  pool.run(
      2,
      [](void* arg, std::int32_t t) {
        auto& rv = *static_cast<Rendezvous*>(arg);
        rv.started.fetch_add(1);
        // Generous bound so a broken pool fails instead of hanging; a working one meets at once.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (rv.started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        rv.met[t].store(rv.started.load() == 2);
      },
      &r);
  EXPECT_TRUE(r.met[0].load());
  EXPECT_TRUE(r.met[1].load());
}

TEST(ThreadPool, CappedThreadsStaysWithinOneAndTheCores) {
  const unsigned hw = std::thread::hardware_concurrency();
  const std::int32_t cores = hw == 0 ? 1 : static_cast<std::int32_t>(hw);
  EXPECT_EQ(ThreadPool::capped_threads(0), 1);
  EXPECT_EQ(ThreadPool::capped_threads(1), 1);
  EXPECT_EQ(ThreadPool::capped_threads(2), std::min(2, cores));
  EXPECT_EQ(ThreadPool::capped_threads(1000), std::min(cores, ThreadPool::kMaxThreads));
}

TEST(ThreadPool, GoldenHashesWithOneAndTwoThreads) {
  for (const std::int32_t threads : {1, 2}) {
    ThreadPool pool(threads);
    for (const sim::golden::Case& c : sim::golden::cases())
      EXPECT_EQ(sim::golden::run(c.scenario, c.ticks, c.with_player, pool.runner()), c.hash)
          << c.scenario.name << " with " << threads << " threads";
  }
}

TEST(ThreadPool, ManyTaskWorldMatchesTheSerialTickOnTwoThreads) {
  // 3,000 boids and a player: 12 tasks per phase, so both threads really share every phase.
  const sim::Scenario s = sim::canonical::flock(3000);
  const std::uint64_t serial = sim::golden::run(s, 150, true);
  ThreadPool pool(2);
  EXPECT_EQ(sim::golden::run(s, 150, true, pool.runner()), serial);
}

}  // namespace
}  // namespace flockstep::server::game
