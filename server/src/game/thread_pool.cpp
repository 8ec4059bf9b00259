#include "game/thread_pool.hpp"

#include <algorithm>

namespace flockstep::server::game {
namespace {

/// Yields an idle thread makes before it sleeps on a futex. Each yield is a sched_yield
/// (~0.5-1 us, and it lets other processes run on this shared machine), so a worker bridges the
/// gap between two phases of one tick without a wake-up, then costs nothing until the next tick.
constexpr int kSpinYields = 200;

}  // namespace

ThreadPool::ThreadPool(std::int32_t threads) {
  const std::int32_t n = std::clamp(threads, std::int32_t{1}, kMaxThreads);
  workers_.reserve(static_cast<std::size_t>(n - 1));
  for (std::int32_t i = 1; i < n; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_seq_cst);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (std::thread& t : workers_) t.join();
}

std::int32_t ThreadPool::capped_threads(std::uint32_t requested) {
  std::uint32_t hw = std::thread::hardware_concurrency();  // 0 = unknown
  if (hw == 0) hw = 1;
  const std::uint32_t cap = std::min<std::uint32_t>(hw, static_cast<std::uint32_t>(kMaxThreads));
  return static_cast<std::int32_t>(std::clamp<std::uint32_t>(requested, 1, cap));
}

void ThreadPool::run_thunk(void* self, std::int32_t task_count, sim::TaskRunner::TaskFn task, void* arg) {
  static_cast<ThreadPool*>(self)->run(task_count, task, arg);
}

void ThreadPool::run(std::int32_t task_count, sim::TaskRunner::TaskFn task, void* arg) {
  if (task_count <= 0) return;
  if (workers_.empty() || task_count == 1) {
    // Nothing to share: skip the hand-off (and its wake-up) entirely.
    for (std::int32_t t = 0; t < task_count; ++t) task(arg, t);
    return;
  }
  // No worker is inside a batch here (the previous run() waited for in_flight_ == 0 after
  // closing), so the batch fields can be written plainly; open_ publishes them.
  task_ = task;
  arg_ = arg;
  count_ = task_count;
  next_.store(0, std::memory_order_relaxed);
  open_.store(true, std::memory_order_seq_cst);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  drain();
  // Close, then wait for the workers that got in. seq_cst on both sides (store open_ / load
  // in_flight_ here, increment in_flight_ / load open_ in the worker) means a worker either is
  // counted here or sees the batch closed and leaves without touching it (Dekker's pattern).
  open_.store(false, std::memory_order_seq_cst);
  std::int32_t inside = in_flight_.load(std::memory_order_seq_cst);
  for (int spin = 0; inside != 0 && spin < kSpinYields; ++spin) {
    std::this_thread::yield();
    inside = in_flight_.load(std::memory_order_acquire);
  }
  while (inside != 0) {
    in_flight_.wait(inside, std::memory_order_acquire);
    inside = in_flight_.load(std::memory_order_acquire);
  }
}

void ThreadPool::drain() {
  const sim::TaskRunner::TaskFn task = task_;
  void* const arg = arg_;
  const std::int32_t count = count_;
  // Relaxed is enough for handing out indices: the batch fields were published by open_, and
  // the tasks' results are published by the in_flight_ decrement (workers) or are the caller's own.
  for (std::int32_t t = next_.fetch_add(1, std::memory_order_relaxed); t < count;
       t = next_.fetch_add(1, std::memory_order_relaxed))
    task(arg, t);
}

void ThreadPool::worker_loop() {
  // Start from the generation the pool was built with, not from a load here: a worker the OS
  // starts late (after batches, or after the destructor's stop bump) must still see them.
  std::uint32_t seen = 0;
  for (;;) {
    std::uint32_t now = generation_.load(std::memory_order_acquire);
    for (int spin = 0; now == seen && spin < kSpinYields; ++spin) {
      std::this_thread::yield();
      now = generation_.load(std::memory_order_acquire);
    }
    while (now == seen) {
      generation_.wait(seen, std::memory_order_acquire);  // futex sleep until the next batch
      now = generation_.load(std::memory_order_acquire);
    }
    seen = now;
    if (stop_.load(std::memory_order_acquire)) return;
    // Whatever batch is open now (possibly a later one than the wake-up was for) is safe to
    // join: run() cannot close and rewrite it while this thread is counted in in_flight_.
    in_flight_.fetch_add(1, std::memory_order_seq_cst);
    if (open_.load(std::memory_order_seq_cst)) drain();
    if (in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1) in_flight_.notify_one();
  }
}

}  // namespace flockstep::server::game
