#pragma once
/// \file tick.hpp
/// Fixed-step clock: turns elapsed wall time (an input, in integer microseconds) into a whole
/// number of simulation ticks, with a catch-up limit so a stalled host (debugger, GC pause,
/// overloaded machine) does not spiral into running thousands of ticks at once. Integer
/// arithmetic only: no floating-point clock is ever accumulated (house style section 2).
#include <cstdint>

namespace flockstep::sim {

/// Accumulates elapsed time and hands out ticks.
class TickClock {
 public:
  /// tick_rate_hz: simulation rate. [Limit: 1..10000]. max_catch_up: most ticks one advance()
  /// may return; time beyond that is dropped and counted. [Limit: >= 1]
  TickClock(std::int32_t tick_rate_hz, std::int32_t max_catch_up);

  /// Add elapsed microseconds (negative values are ignored: clocks can step back). Returns the
  /// number of ticks to run now, at most max_catch_up.
  std::int32_t advance(std::int64_t elapsed_us);

  /// Microseconds until the next tick is due (0 if one is due now).
  std::int64_t until_next_us() const;

  /// Exact tick period in microseconds, rounded down; the remainder is carried (see below).
  std::int64_t period_us() const { return period_num_ / rate_; }
  /// Ticks dropped by the catch-up limit so far (an overrun metric).
  std::uint64_t dropped_ticks() const { return dropped_; }

 private:
  // Time is kept in units of 1/rate microseconds, so 60 Hz (16666.67 us) accumulates with no
  // rounding drift: one tick costs exactly 1,000,000 units.
  std::int64_t rate_;
  std::int64_t period_num_ = 1000000;  // one tick in accumulator units (us * rate)
  std::int64_t accumulator_ = 0;       // us * rate
  std::int32_t max_catch_up_;
  std::uint64_t dropped_ = 0;
};

}  // namespace flockstep::sim
