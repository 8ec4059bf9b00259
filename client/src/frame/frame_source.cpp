// The part of a frame source every mode shares (frame_source.hpp), and the registry of modes.
#include "frame/frame_source.hpp"

namespace flockstep::client {

void FrameSource::sample(const FrameInput& in, std::vector<DrawAgent>& out) {
  if (!have_world_ || !remote_.ready()) {
    out.clear();
    return;
  }
  buffer_beyond_ticks_ = remote_.sample_interpolated(tick_now(in.now) - kInterpolationDelayMs / dt_ms_, out);
}

void FrameSource::adopt_world(const sim::Scenario& s, std::uint32_t tick_rate, std::uint32_t snapshot_rate) {
  scenario_ = s;
  tick_rate_ = tick_rate > 0 ? tick_rate : static_cast<std::uint32_t>(scenario_.tick_rate_hz);
  snapshot_rate_ = snapshot_rate;
  dt_ms_ = 1000.0 / tick_rate_;
  // The buffer keeps a pointer to scenario_ (extrapolation reads the groups): configure it again.
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  remote_.reset();
  clock_.reset();
  last_tick_ = 0;
  have_world_ = true;
}

void FrameSource::push(std::uint64_t tick, std::vector<sim::AgentView>&& views, double now, bool count) {
  last_tick_ = tick;
  if (count) snapshot_window_.add(now);
  remote_.push(tick, std::move(views));
}

}  // namespace flockstep::client
