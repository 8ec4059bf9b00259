#pragma once
/// \file thread_pool.hpp
/// The threads the simulation borrows: a fixed set of workers plus the calling (game) thread,
/// running one batch of independent tasks at a time, as a sim::TaskRunner (the World never
/// creates threads itself; Box2D v3's enqueueTask/finishTask design). Tasks are handed out one
/// index at a time from an atomic counter, so a worker that the OS descheduled (this machine's
/// two cores are shared) only holds up the task it already took; the caller takes the rest.
///
/// Idle workers sleep on a futex-backed std::atomic wait after a short spin, so between ticks
/// the pool costs no CPU; the spin only bridges the back-to-back phases of one tick.
///
/// Hand-written because no Debian library gives this shape: Asio's thread_pool has no
/// caller-participates "run this batch and wait" and TBB is not a dependency of the project.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "flockstep/sim/task_runner.hpp"

namespace flockstep::server::game {

/// Fixed-size pool that runs one batch of tasks at a time (see file comment). Not copyable.
/// run() may be called from one thread at a time (the game thread); it is not reentrant.
class ThreadPool {
 public:
  /// Most threads a pool may use (the sim_threads config limit).
  static constexpr std::int32_t kMaxThreads = 64;

  /// `threads`: threads that run a batch, the caller included, so threads - 1 workers are
  /// started. [Limit: 1..kMaxThreads]; 1 runs every batch serially on the caller.
  explicit ThreadPool(std::int32_t threads);
  /// Stops and joins the workers. No batch may be running.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads that run a batch, the caller included.
  std::int32_t threads() const { return static_cast<std::int32_t>(workers_.size()) + 1; }

  /// Run task(arg, t) exactly once for every t in [0, task_count) on the workers and the
  /// calling thread; returns when every call has returned, their writes visible to the caller.
  /// Tasks must not throw and must not call run() themselves.
  void run(std::int32_t task_count, sim::TaskRunner::TaskFn task, void* arg);

  /// This pool as a runner for sim::World::set_task_runner (valid while the pool lives).
  sim::TaskRunner runner() { return sim::TaskRunner{&ThreadPool::run_thunk, this}; }

  /// The thread count to use for a configured sim_threads: capped at the hardware's
  /// concurrency (more threads than cores only adds switching) and at least 1.
  static std::int32_t capped_threads(std::uint32_t requested);

 private:
  static void run_thunk(void* self, std::int32_t task_count, sim::TaskRunner::TaskFn task, void* arg);
  void worker_loop();
  /// Claim and run tasks of the open batch until none are left.
  void drain();

  // The open batch. Written by run() only while no worker is inside a batch (in_flight_ == 0
  // and open_ false); published to workers by the seq_cst store of open_.
  sim::TaskRunner::TaskFn task_ = nullptr;
  void* arg_ = nullptr;
  std::int32_t count_ = 0;
  std::atomic<std::int32_t> next_{0};         // next task index to hand out
  std::atomic<bool> open_{false};             // a batch is accepting workers
  std::atomic<std::int32_t> in_flight_{0};    // workers inside the open batch
  std::atomic<std::uint32_t> generation_{0};  // bumped per batch (and at stop): what idle workers wait on
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

}  // namespace flockstep::server::game
