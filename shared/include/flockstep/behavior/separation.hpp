#pragma once
/// \file separation.hpp
/// T55 separation (repulsion) and T56 attraction (Millington section 3.3.13).
///
/// Each neighbour closer than `threshold` adds a push of some strength along norm(p_char - p_t),
/// i.e. AWAY from it (some printed versions push toward it; tests pin the sign). The sum is
/// clipped to max_acceleration because many neighbours can add up past it. With the inverse-square
/// law and a negative decay coefficient the same code attracts (T56).
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// How the push strength falls off with distance d (T55).
enum class SeparationDecay : std::uint8_t {
  kLinear,         ///< strength = max_acceleration * (threshold - d) / threshold
  kInverseSquare,  ///< strength = min(k / d^2, max_acceleration); k < 0 attracts (T56)
};

/// Parameters of T55 separation / T56 attraction.
struct SeparationParams {
  real threshold = 2.0;           ///< separation acts only on neighbours closer than this, m. [Limit: > 0]
  real decay_coefficient = 10.0;  ///< k of the inverse-square law, m^3/s^2; < 0 attracts (T56). Unused by kLinear.
  real max_acceleration = 10.0;   ///< cap on each push and on the clipped total, m/s^2. [Limit: >= 0]
  SeparationDecay decay = SeparationDecay::kLinear;  ///< fall-off law
  bool closest_only = false;  ///< react only to the closest neighbour inside the threshold (seed alternative)
};

/// Deterministic direction used when a neighbour sits exactly on the character (d = 0, direction
/// undefined): the character's own left, perp_left(as_vector(orientation)). Two coincident
/// characters facing opposite ways therefore step to opposite world sides.
Vec2 separation_fallback_direction(real orientation);

/// T55/T56 one neighbour's contribution (unclipped vector, m/s^2): zero when d >= threshold.
/// Repulsion uses norm(self - other), or the fallback direction when d = 0. Attraction
/// (kInverseSquare with k < 0) points toward the neighbour and is zero at d = 0 (already there).
Vec2 separation_contribution(Vec2 self_position, real self_orientation, Vec2 other_position, const SeparationParams& p);

/// T55 separation from the neighbour positions `others` (the character itself must not be in the
/// span). Returns linear acceleration clipped to max_acceleration, angular 0; "no steering" (zero)
/// when nobody is inside the threshold. O(n) in the neighbours given.
SteeringOutput separation(const Kinematic& character, std::span<const Vec2> others, const SeparationParams& p);

/// T55 separation from neighbour kinematics (positions are used; velocities ignored).
SteeringOutput separation(const Kinematic& character, std::span<const Kinematic> others, const SeparationParams& p);

/// T56 attraction: inverse-square separation with a negative coefficient -|strength|:
/// acceleration toward each neighbour inside `threshold` of magnitude min(|k|/d^2, max_acceleration),
/// total clipped. `p.decay` and the sign of `p.decay_coefficient` are overridden.
SteeringOutput attraction(const Kinematic& character, std::span<const Vec2> others, const SeparationParams& p);

}  // namespace flockstep::behavior
