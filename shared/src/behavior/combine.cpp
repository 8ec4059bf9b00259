#include "flockstep/behavior/combine.hpp"

namespace flockstep::behavior {

Vec2 weighted_force_sum(std::span<const WeightedForce> forces) {
  Vec2 sum;
  for (const WeightedForce& f : forces) sum += f.force * f.weight;
  return sum;
}

Vec2 blend_truncated(std::span<const WeightedForce> forces, real max_force) {
  return math::truncate(weighted_force_sum(forces), max_force);
}

bool TruncatedRunningSum::add_remaining(real weight, Vec2 force) {
  // kRemainingBudget (Buckland): spend at most what is left of max_force.
  const Vec2 to_add = force * weight;
  const real remaining = max_force_ - math::length(total_);
  if (remaining <= 0) {
    full_ = true;
    return false;
  }
  const real magnitude = math::length(to_add);
  if (magnitude < remaining) {
    total_ += to_add;
  } else {
    total_ += to_add * (remaining / magnitude);  // magnitude >= remaining > 0: no division by 0
    full_ = true;
  }
  if (math::length(total_) >= max_force_) full_ = true;
  return !full_;
}

Vec2 smoothed_heading(const HeadingSmoother& s, std::int32_t n, Vec2 fallback_heading) {
  const std::int32_t window = n < 1 ? 1 : (n > kMaxSmoothingSamples ? kMaxSmoothingSamples : n);
  const std::int32_t m = s.count < window ? s.count : window;
  Vec2 sum;
  // Newest first: slot next-1, next-2, ... (wrapping).
  for (std::int32_t k = 0; k < m; ++k) {
    const std::int32_t slot = (s.next - 1 - k + 2 * kMaxSmoothingSamples) % kMaxSmoothingSamples;
    sum += s.samples[slot];
  }
  const Vec2 h = math::normalized(sum);
  return math::is_zero(h) ? math::normalized(fallback_heading) : h;
}

Vec2 smooth_heading(HeadingSmoother& s, std::int32_t n, Vec2 velocity, Vec2 fallback_heading) {
  if (math::length_sq(velocity) > kSmoothingMinSpeed * kSmoothingMinSpeed) {
    s.samples[s.next] = math::normalized(velocity);
    s.next = (s.next + 1) % kMaxSmoothingSamples;
    if (s.count < kMaxSmoothingSamples) ++s.count;
  }
  return smoothed_heading(s, n, fallback_heading);
}

}  // namespace flockstep::behavior
