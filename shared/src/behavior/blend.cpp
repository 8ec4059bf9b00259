#include "flockstep/behavior/blend.hpp"

namespace flockstep::behavior {
namespace {

using math::length;

std::size_t paired_count(std::size_t a, std::size_t b) { return a < b ? a : b; }

real urgency(const SteeringOutput& s) { return length(s.linear) + math::abs(s.angular); }

}  // namespace

SteeringOutput weighted_sum(std::span<const SteeringOutput> outputs, std::span<const real> weights) {
  SteeringOutput sum;
  const std::size_t n = paired_count(outputs.size(), weights.size());
  for (std::size_t i = 0; i < n; ++i) {
    // Skip weight 0 explicitly: a switched-off behaviour must not leak an inf/NaN into the sum.
    if (weights[i] == 0) continue;
    sum += outputs[i] * weights[i];
  }
  return sum;
}

SteeringOutput clip_steering(const SteeringOutput& s, const BlendParams& p) {
  return {math::truncate(s.linear, p.max_acceleration), math::clamp(s.angular, -p.max_angular, p.max_angular)};
}

SteeringOutput blend_steering(std::span<const SteeringOutput> outputs, std::span<const real> weights,
                              const BlendParams& p) {
  return clip_steering(weighted_sum(outputs, weights), p);
}

SteeringOutput arbitrate(std::span<const SteeringOutput> outputs, std::int32_t index, const BlendParams& p) {
  if (index < 0 || static_cast<std::size_t>(index) >= outputs.size()) return {};
  return clip_steering(outputs[static_cast<std::size_t>(index)], p);
}

BlendWeights one_hot_weights(std::int32_t count, std::int32_t index) {
  BlendWeights w;
  w.count = count < 0 ? 0 : (count > kMaxBlendBehaviors ? kMaxBlendBehaviors : count);
  if (index >= 0 && index < w.count) w.w[static_cast<std::size_t>(index)] = 1;
  return w;
}

std::int32_t priority_weights(std::span<const SteeringOutput> outputs, real epsilon, BlendWeights& out) {
  const std::int32_t n = static_cast<std::int32_t>(paired_count(outputs.size(), kMaxBlendBehaviors));
  for (std::int32_t i = 0; i < n; ++i) {
    const SteeringOutput& s = outputs[static_cast<std::size_t>(i)];
    if (length(s.linear) > epsilon || math::abs(s.angular) > epsilon) {
      out = one_hot_weights(n, i);
      return i;
    }
  }
  out = one_hot_weights(n, -1);
  return -1;
}

BlendWeights urgency_weights(std::span<const SteeringOutput> outputs, std::span<const real> base_weights,
                             std::int32_t sharpness) {
  BlendWeights w;
  const std::size_t n = paired_count(paired_count(outputs.size(), base_weights.size()), kMaxBlendBehaviors);
  w.count = static_cast<std::int32_t>(n);
  real u_max = 0;
  for (std::size_t i = 0; i < n; ++i) u_max = math::max(u_max, urgency(outputs[i]));
  for (std::size_t i = 0; i < n; ++i) {
    real factor = 1;
    if (u_max > 0) {
      // Integer power by repeated multiplication (no libm pow in shared/).
      const real ratio = urgency(outputs[i]) / u_max;
      for (std::int32_t k = 0; k < sharpness; ++k) factor *= ratio;
    }
    w.w[i] = base_weights[i] * factor;
  }
  return w;
}

BlendWeights mix_weights(const BlendWeights& a, const BlendWeights& b, real t) {
  const real s = math::clamp(t, 0, 1);
  BlendWeights w;
  w.count = a.count > b.count ? a.count : b.count;
  for (std::size_t i = 0; i < static_cast<std::size_t>(w.count); ++i) w.w[i] = a.w[i] * (1 - s) + b.w[i] * s;
  return w;
}

bool in_neighbourhood(Vec2 self_position, real self_orientation, Vec2 other_position, real radius,
                      real cos_half_blind) {
  const Vec2 d = other_position - self_position;
  const real dist = length(d);
  if (!(dist < radius)) return false;
  if (dist == 0) return true;
  return math::dot(math::as_vector(self_orientation), d / dist) >= -cos_half_blind;
}

SteeringOutput millington_flocking(const Kinematic& character, std::span<const Kinematic> boids,
                                   std::int32_t self_index, const FlockingParams& p, FlockingDebug* debug) {
  const real cos_half_blind = math::sin_cos(p.blind_angle * 0.5).cos;
  Vec2 sep_sum;
  Vec2 pos_sum;
  Vec2 vel_sum;
  std::int32_t n = 0;
  for (std::size_t i = 0; i < boids.size(); ++i) {
    if (static_cast<std::int32_t>(i) == self_index) continue;
    const Kinematic& o = boids[i];
    if (!in_neighbourhood(character.position, character.orientation, o.position, p.neighbourhood_radius,
                          cos_half_blind))
      continue;
    ++n;
    pos_sum += o.position;
    vel_sum += o.velocity;
    sep_sum += separation_contribution(character.position, character.orientation, o.position, p.separation);
  }
  if (debug != nullptr) *debug = FlockingDebug{};
  if (n == 0) return {};
  const real inv_n = 1 / static_cast<real>(n);
  const Vec2 centre = pos_sum * inv_n;
  const Vec2 avg_vel = vel_sum * inv_n;
  const std::array<SteeringOutput, 3> parts{
      SteeringOutput{math::truncate(sep_sum, p.separation.max_acceleration), 0},
      dynamic_arrive(character, centre, p.cohesion),
      velocity_match(character, avg_vel, p.alignment),
  };
  const std::array<real, 3> weights{p.separation_weight, p.cohesion_weight, p.alignment_weight};
  if (debug != nullptr) {
    debug->neighbours = n;
    debug->centre_of_mass = centre;
    debug->average_velocity = avg_vel;
    debug->separation = parts[0];
    debug->cohesion = parts[1];
    debug->alignment = parts[2];
  }
  return blend_steering(parts, weights, p.blend);
}

real polarisation(std::span<const Kinematic> boids) {
  if (boids.empty()) return 0;
  Vec2 sum;
  for (const Kinematic& b : boids) sum += math::normalized(b.velocity);
  return length(sum) / static_cast<real>(boids.size());
}

}  // namespace flockstep::behavior
