#include "net/clock_sync.hpp"

#include <cmath>

namespace flockstep::client {

void ClockSync::observe(double server_tick, double local_ms, double dt_ms) {
  const double sample = server_tick * dt_ms - local_ms;
  if (!valid_ || std::fabs(sample - offset_ms_) > kSnapMs) {
    offset_ms_ = sample;
    valid_ = true;
  } else if (sample > offset_ms_) {
    offset_ms_ = sample;  // less delayed than every sample before: the better estimate
  } else {
    offset_ms_ += (sample - offset_ms_) * kDriftGain;
  }
}

}  // namespace flockstep::client
