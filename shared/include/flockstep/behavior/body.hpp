#pragma once
/// \file body.hpp
/// T08 the slides' Body (locomotion layer) update and T09 the layered steering model's
/// behaviour switches with calcForce.
///
/// Layers (T09): action selection (FSM, decision tree or the player) switches behaviours on and
/// off; steering computes one force per enabled behaviour and calc_force sums them; locomotion
/// (body_update) turns that force into motion with the body's own mass and limits.
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Speed above which the heading follows the velocity (T08 step 5), m/s.
inline constexpr real kHeadingMinSpeed = 1e-6;

/// T08 Body update (slides' locomotion, errata fixed):
/// 1. F = truncate(steering_force, max_force); 2. a = F / mass;
/// 3. v = truncate(v + a dt, max_speed) (the new velocity is clamped, erratum c);
/// 4. p += v dt (with the new velocity, as the slides do);
/// 5. heading = norm(v) if |v| > 1e-6, else unchanged. dt in s. [Limit: >= 0]
void body_update(Body& b, Vec2 steering_force, real dt);

/// T08 the slides' update exactly as printed, for erratum tests only: it truncates the velocity
/// CHANGE a dt to max_speed instead of the new velocity, so speed can grow past max_speed.
void body_update_seed_literal(Body& b, Vec2 steering_force, real dt);

/// T08 the slides' truncate exactly as printed, for erratum tests only: its factor is
/// max(1, max/|v|), so short vectors are stretched up to max and long ones are not shortened.
/// The slide divides by |v| with no check; here a zero vector is returned as is instead of NaN.
Vec2 truncate_seed_literal(Vec2 v, real max_len);

/// T09 the behaviours action selection can switch on and off (one bit each).
enum class Behavior : std::uint32_t {
  seek = 1u << 0,
  flee = 1u << 1,
  arrive = 1u << 2,
  pursue = 1u << 3,
  evade = 1u << 4,
  wander = 1u << 5,
  obstacle_avoidance = 1u << 6,
  wall_avoidance = 1u << 7,
  interpose = 1u << 8,
  hide = 1u << 9,
  follow_path = 1u << 10,
  offset_pursuit = 1u << 11,
  separation = 1u << 12,
  alignment = 1u << 13,
  cohesion = 1u << 14,
};

/// Number of Behavior values (bits 0 .. kBehaviorCount-1).
inline constexpr std::int32_t kBehaviorCount = 15;

/// T09 Behavior for bit index i in [0, kBehaviorCount).
constexpr Behavior behavior_from_index(std::int32_t i) { return static_cast<Behavior>(1u << i); }

/// T09 on/off flags set by action selection; plain bits so the state hashes and serialises.
struct BehaviorSwitches {
  std::uint32_t bits = 0;  ///< bit set of Behavior values; all off by default

  /// Switch a behaviour on.
  constexpr void on(Behavior b) { bits |= static_cast<std::uint32_t>(b); }
  /// Switch a behaviour off.
  constexpr void off(Behavior b) { bits &= ~static_cast<std::uint32_t>(b); }
  /// Set a behaviour's flag.
  constexpr void set(Behavior b, bool enabled) { enabled ? on(b) : off(b); }
  /// True when the behaviour is on.
  constexpr bool is_on(Behavior b) const { return (bits & static_cast<std::uint32_t>(b)) != 0; }
};

/// T09 one behaviour's steering force, tagged with the behaviour that produced it.
struct BehaviorForce {
  Behavior behavior = Behavior::seek;  ///< which switch gates this force
  Vec2 force;                          ///< N
};

/// T09 calcForce: the sum of the forces of the ENABLED behaviours, truncated to max_force (N).
/// Disabled entries contribute exactly zero; they are skipped, never multiplied by 0 (so even a
/// NaN in a disabled entry cannot leak).
Vec2 calc_force(const BehaviorSwitches& sw, std::span<const BehaviorForce> forces, real max_force);

/// T09 calcForce with lazy evaluation: eval(Behavior) -> Vec2 is called only for enabled
/// behaviours, in bit order, so switched-off behaviours cost nothing. Result truncated to max_force.
template <class Eval>
Vec2 calc_force_lazy(const BehaviorSwitches& sw, real max_force, Eval&& eval) {
  Vec2 sum;
  for (std::int32_t i = 0; i < kBehaviorCount; ++i) {
    const Behavior b = behavior_from_index(i);
    if (sw.is_on(b)) sum += eval(b);
  }
  return math::truncate(sum, max_force);
}

}  // namespace flockstep::behavior
