#include "flockstep/behavior/pattern.hpp"

namespace flockstep::behavior {
namespace {

// Keep the heading in (-180, 180]. Adding/subtracting 360 is exact for the integral degree
// values patterns use, so long runs do not drift.
real wrap_degrees(real deg) {
  while (deg > 180) deg -= 360;
  while (deg <= -180) deg += 360;
  return deg;
}

}  // namespace

bool pattern_step(PatternState& state, std::span<const PatternInstruction> pattern, const PatternParams& params) {
  const auto size = static_cast<std::int32_t>(pattern.size());
  if (size == 0 || state.finished) return false;
  if (state.index < 0 || state.index >= size) state.index = 0;  // defensive: caller-edited state

  const PatternInstruction& in = pattern[static_cast<std::size_t>(state.index)];
  // Right is clockwise in a y-up frame, so it subtracts (see header).
  state.heading_deg = wrap_degrees(state.heading_deg - in.turn_right_deg + in.turn_left_deg);
  const real step = in.step_forward - in.step_backward;
  if (step != 0) {
    const Vec2 dir = params.seed_literal ? Vec2{1, 0} : math::as_vector(state.heading_deg * math::kDegToRad);
    state.position += dir * step;
  }
  state.last_applied = state.index;
  ++state.index;
  if (state.index >= size) {
    if (params.end == PatternEnd::wrap) {
      state.index = 0;
    } else {
      state.index = size - 1;  // stays a valid index for viewers
      state.finished = true;
    }
  }
  return true;
}

}  // namespace flockstep::behavior
