#include "flockstep/sim/tick.hpp"

#include "flockstep/math/scalar.hpp"

namespace flockstep::sim {

TickClock::TickClock(std::int32_t tick_rate_hz, std::int32_t max_catch_up)
    : rate_(tick_rate_hz), max_catch_up_(max_catch_up) {
  FLOCKSTEP_ASSERT(tick_rate_hz >= 1 && tick_rate_hz <= 10000 && max_catch_up >= 1);
}

std::int32_t TickClock::advance(std::int64_t elapsed_us) {
  std::int64_t due = 0;
  if (elapsed_us > 0) {
    // Whole seconds convert to whole ticks directly; only the sub-second rest goes through the
    // accumulator, so no product can overflow even for absurd jumps.
    due = elapsed_us / 1000000 * rate_;
    accumulator_ += elapsed_us % 1000000 * rate_;
  }
  due += accumulator_ / period_num_;
  accumulator_ %= period_num_;
  if (due > max_catch_up_) {
    dropped_ += static_cast<std::uint64_t>(due - max_catch_up_);
    due = max_catch_up_;
  }
  return static_cast<std::int32_t>(due);
}

std::int64_t TickClock::until_next_us() const {
  const std::int64_t missing = period_num_ - accumulator_;
  return missing <= 0 ? 0 : (missing + rate_ - 1) / rate_;
}

}  // namespace flockstep::sim
