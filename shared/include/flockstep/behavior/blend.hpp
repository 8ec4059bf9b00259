#pragma once
/// \file blend.hpp
/// T61 weighted blending (BlendedSteering), T62 the blending <-> arbitration continuum (arbiters
/// that return weight vectors), and T63 Millington's flocking as a weighted blend with its
/// radius + rear-blind-angle neighbourhood (Millington section 3.4).
///
/// No behaviour objects: the caller asks every behaviour for its output (as if it ran alone) and
/// passes the outputs here with the weights. Weights need not sum to 1; this is not a mean.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/separation.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Limits applied to a blended result (T61).
struct BlendParams {
  real max_acceleration = 10.0;  ///< clip on |linear| of the sum, m/s^2. [Limit: >= 0]
  real max_angular = 20.0;       ///< clip on |angular| of the sum, rad/s^2. [Limit: >= 0]
};

/// T61 the raw weighted sum sum_i w_i * output_i (linear and angular separately), unclipped.
/// Uses the first min(outputs.size(), weights.size()) entries.
SteeringOutput weighted_sum(std::span<const SteeringOutput> outputs, std::span<const real> weights);

/// T61 clip a steering output: |linear| to max_acceleration, |angular| to max_angular.
SteeringOutput clip_steering(const SteeringOutput& s, const BlendParams& p);

/// T61 BlendedSteering: clip_steering(weighted_sum(outputs, weights)). O(number of behaviours).
SteeringOutput blend_steering(std::span<const SteeringOutput> outputs, std::span<const real> weights,
                              const BlendParams& p);

/// Largest number of behaviours a T62 weight vector holds.
inline constexpr std::int32_t kMaxBlendBehaviors = 8;

/// T62 a weight vector returned by an arbiter (fixed capacity, no allocation).
struct BlendWeights {
  std::array<real, kMaxBlendBehaviors> w{};  ///< weight of behaviour i (unused entries 0)
  std::int32_t count = 0;                    ///< number of behaviours described
  /// The weights as a span for blend_steering.
  std::span<const real> view() const { return {w.data(), static_cast<std::size_t>(count)}; }
};

/// T62 pure arbitration: behaviour `index` gets full control (its output alone, clipped);
/// index < 0 or out of range gives no steering.
SteeringOutput arbitrate(std::span<const SteeringOutput> outputs, std::int32_t index, const BlendParams& p);

/// T62 one-hot weight vector selecting `index` (the arbitration end of the continuum).
BlendWeights one_hot_weights(std::int32_t count, std::int32_t index);

/// T62 priority arbiter expressed as weights: one-hot on the first output whose |linear| or
/// |angular| exceeds epsilon; all zero when none does. Returns the chosen index, or -1.
std::int32_t priority_weights(std::span<const SteeringOutput> outputs, real epsilon, BlendWeights& out);

/// T62 urgency arbiter: w_i = base_i * (u_i / u_max)^sharpness with u_i = |linear_i| + |angular_i|,
/// a dynamic weighting that slides from blending (sharpness 0: the base weights) toward
/// arbitration (large sharpness: only the most urgent behaviour keeps weight). Ties keep every
/// tied behaviour. All zero outputs give the base weights. sharpness is an integer power >= 0.
BlendWeights urgency_weights(std::span<const SteeringOutput> outputs, std::span<const real> base_weights,
                             std::int32_t sharpness);

/// T62 the continuum between two weight vectors: (1 - t) * a + t * b, t in [0, 1] (clamped).
BlendWeights mix_weights(const BlendWeights& a, const BlendWeights& b, real t);

/// Parameters of T63 Millington flocking.
struct FlockingParams {
  real neighbourhood_radius = 5.0;  ///< only boids closer than this are neighbours, m. [Limit: > 0]
  real blind_angle =
      1.5707963267948966;  ///< full angle of the blind zone behind the facing, rad (default 90 deg). [Limit: 0..2pi]
  /// Separation (close boids only, threshold inside the neighbourhood).
  SeparationParams separation{.threshold = 1.5};
  ArriveParams cohesion{};          ///< arrive at the neighbours' centre of mass
  VelocityMatchParams alignment{};  ///< match the neighbours' average velocity
  real separation_weight = 2.0;     ///< believable flocks: separation > cohesion > alignment. [Limit: >= 0]
  real cohesion_weight = 1.0;       ///< [Limit: >= 0]
  real alignment_weight = 0.5;      ///< [Limit: >= 0]
  BlendParams blend{};              ///< clip of the blended output
};

/// What T63 computed (for tests and for a viewer).
struct FlockingDebug {
  std::int32_t neighbours = 0;  ///< boids in the neighbourhood (radius and outside the blind zone)
  Vec2 centre_of_mass;          ///< neighbours' mean position (valid when neighbours > 0)
  Vec2 average_velocity;        ///< neighbours' mean velocity (valid when neighbours > 0)
  SteeringOutput separation;    ///< the three component outputs, before weighting
  SteeringOutput cohesion;
  SteeringOutput alignment;
};

/// T63 neighbourhood test: other is within `radius` (strict <) and NOT in the rear blind zone,
/// i.e. as_vector(orientation) . norm(other - self) >= -cos_half_blind, the cosine of half the
/// blind angle (pass the sin_cos of blind_angle / 2). A coincident boid is
/// a neighbour (it matters most to separation).
bool in_neighbourhood(Vec2 self_position, real self_orientation, Vec2 other_position, real radius, real cos_half_blind);

/// T63 flocking: separation (from neighbours closer than separation.threshold), arrive at the
/// neighbours' centre of mass (cohesion) and velocity matching to their average velocity
/// (alignment), blended with the three weights and clipped. The neighbourhood (radius + blind
/// angle about the facing) filters all three, so a boid outside it has no influence at all.
/// `boids[self_index]` is skipped (pass -1 if the span excludes the character). No neighbours:
/// no steering.
SteeringOutput millington_flocking(const Kinematic& character, std::span<const Kinematic> boids,
                                   std::int32_t self_index, const FlockingParams& p, FlockingDebug* debug = nullptr);

/// T63 polarisation of a group, |sum of unit velocities| / n in [0, 1] (1 = all aligned);
/// zero velocities count as 0 vectors. Empty span: 0.
real polarisation(std::span<const Kinematic> boids);

}  // namespace flockstep::behavior
