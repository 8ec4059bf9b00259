#include "predict/input_lead.hpp"

#include <algorithm>

namespace flockstep::client {

void InputLead::start(bool player, double now_ms) {
  owed_ = player ? kInitialLeadTicks : 0;
  skip_ = 0;
  last_tick_minus_seq_ = -1;
  queue_min_ = 1e9;
  window_start_ms_ = now_ms;
}

void InputLead::observe(std::uint64_t tick, std::uint32_t applied, std::uint32_t last_sequence, double in_flight_ticks,
                        double now_ms) {
  if (applied == 0) return;
  const std::int64_t tms = static_cast<std::int64_t>(tick) - static_cast<std::int64_t>(applied);
  if (last_tick_minus_seq_ >= 0 && tms > last_tick_minus_seq_) {
    owed_ += static_cast<std::int32_t>(std::min<std::int64_t>(tms - last_tick_minus_seq_, kMaxOwedPerShift));
    ++adjustments_;
  }
  last_tick_minus_seq_ = tms;
  const double queued = static_cast<double>(last_sequence) - static_cast<double>(applied) - in_flight_ticks;
  queue_min_ = std::min(queue_min_, queued);
  if (now_ms - window_start_ms_ > kTrimWindowMs) {
    if (queue_min_ > kMaxLeadTicks) {
      ++skip_;
      ++adjustments_;
    }
    queue_min_ = 1e9;
    window_start_ms_ = now_ms;
  }
}

bool InputLead::take_skip() {
  if (skip_ <= 0) return false;
  --skip_;
  return true;
}

bool InputLead::take_owed(std::int32_t unacked) {
  // The bound keeps a long stall from queueing far more than the server would ever keep.
  if (owed_ <= 0 || unacked >= kMaxLeadTicks + 30) return false;
  --owed_;
  return true;
}

}  // namespace flockstep::client
