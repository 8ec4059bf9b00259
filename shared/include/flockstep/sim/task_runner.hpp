#pragma once
/// \file task_runner.hpp
/// How the World borrows threads without owning any (Box2D v3's `enqueueTask`/`finishTask`
/// design): shared/ may not use threads (house style section 2), so the host lends a runner, a
/// plain struct of one function pointer and a context. The World cuts each per-agent phase into
/// a FIXED partition of tasks whose bounds depend only on the agent count (never on how many
/// threads run them), and every task writes only its own agents' state. So the result is
/// bit-identical whatever runs the tasks, on how many threads, and in whatever order.
#include <cstdint>

namespace flockstep::sim {

/// A batch runner lent to the World by its host (the server's thread pool, a test's fake).
/// Default-constructed it runs every task serially on the calling thread.
struct TaskRunner {
  /// One task of a batch: `task_index` in [0, task_count); `arg` is the World's phase data.
  using TaskFn = void (*)(void* arg, std::int32_t task_index);
  /// Run `task(arg, t)` exactly once for every t in [0, task_count), in any order and on any
  /// threads, and return only when every call has returned with its writes visible to the
  /// caller (a release/acquire hand-off). Null = run them in order on the calling thread.
  void (*run)(void* context, std::int32_t task_count, TaskFn task, void* arg) = nullptr;
  /// Passed back to `run` unchanged (the pool object); not owned.
  void* context = nullptr;

  /// Run a batch through `run`, or serially in index order when `run` is null.
  void run_batch(std::int32_t task_count, TaskFn task, void* arg) const {
    if (run != nullptr) {
      run(context, task_count, task, arg);
      return;
    }
    for (std::int32_t t = 0; t < task_count; ++t) task(arg, t);
  }
};

}  // namespace flockstep::sim
