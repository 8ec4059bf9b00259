#include "flockstep/behavior/separation.hpp"

namespace flockstep::behavior {
namespace {

using math::length;
using math::normalized;
using math::truncate;

Vec2 position_of(Vec2 v) { return v; }
Vec2 position_of(const Kinematic& k) { return k.position; }

// Shared body of both overloads: sum (or closest-only) of contributions, then clip the total.
template <typename T>
SteeringOutput separation_impl(const Kinematic& c, std::span<const T> others, const SeparationParams& p) {
  Vec2 sum;
  if (p.closest_only) {
    // Closest inside the threshold; ties keep the lowest index so the result is order-stable.
    real best = p.threshold;
    Vec2 best_pos;
    bool found = false;
    for (const T& o : others) {
      const real d = math::distance(c.position, position_of(o));
      if (d < best) {
        best = d;
        best_pos = position_of(o);
        found = true;
      }
    }
    if (found) sum = separation_contribution(c.position, c.orientation, best_pos, p);
  } else {
    for (const T& o : others) sum += separation_contribution(c.position, c.orientation, position_of(o), p);
  }
  // A crowd of neighbours can add up past the limit, so the total is clipped as well.
  return {truncate(sum, p.max_acceleration), 0};
}

}  // namespace

Vec2 separation_fallback_direction(real orientation) { return math::perp_left(math::as_vector(orientation)); }

Vec2 separation_contribution(Vec2 self_position, real self_orientation, Vec2 other_position,
                             const SeparationParams& p) {
  const Vec2 away = self_position - other_position;
  const real d = length(away);
  if (!(d < p.threshold)) return {};
  const bool attract = p.decay == SeparationDecay::kInverseSquare && p.decay_coefficient < 0;
  if (d == 0) {
    // Direction undefined. Attraction has nothing left to do; repulsion uses a fixed, documented
    // side, at full strength (both laws give max_acceleration in the limit d -> 0).
    if (attract) return {};
    return separation_fallback_direction(self_orientation) * p.max_acceleration;
  }
  real strength = 0;
  if (p.decay == SeparationDecay::kLinear) {
    strength = p.max_acceleration * (p.threshold - d) / p.threshold;
  } else {
    const real k = attract ? -p.decay_coefficient : p.decay_coefficient;
    // d*d can underflow to 0 for tiny d; k/0 = inf is then contained by the min (k == 0 stays 0).
    strength = k == 0 ? real(0) : math::min(k / (d * d), p.max_acceleration);
  }
  const Vec2 dir = away / d;
  return attract ? dir * -strength : dir * strength;
}

SteeringOutput separation(const Kinematic& character, std::span<const Vec2> others, const SeparationParams& p) {
  return separation_impl(character, others, p);
}

SteeringOutput separation(const Kinematic& character, std::span<const Kinematic> others, const SeparationParams& p) {
  return separation_impl(character, others, p);
}

SteeringOutput attraction(const Kinematic& character, std::span<const Vec2> others, const SeparationParams& p) {
  SeparationParams q = p;
  q.decay = SeparationDecay::kInverseSquare;
  q.decay_coefficient = p.decay_coefficient < 0 ? p.decay_coefficient : -p.decay_coefficient;
  return separation_impl(character, others, q);
}

}  // namespace flockstep::behavior
