#pragma once
/// \file agent.hpp
/// What the world tells the outside about its agents: generational ids, per-tick events, the
/// behaviour state and the read-only view a snapshot or a viewer is built from. Codecs and
/// clients include this (and scenario.hpp), not the World.
#include <cstdint>

#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// Generational agent handle (Box2D b2BodyId style): low 20 bits slot, high 12 bits generation.
/// Value 0 is never a live agent (generation starts at 1).
struct AgentId {
  std::uint32_t value = 0;
  static constexpr std::uint32_t kSlotBits = 20;
  static constexpr std::uint32_t kSlotMask = (1u << kSlotBits) - 1u;
  constexpr std::uint32_t slot() const { return value & kSlotMask; }
  constexpr std::uint32_t generation() const { return value >> kSlotBits; }
  constexpr bool valid() const { return value != 0; }
  friend constexpr bool operator==(AgentId, AgentId) = default;
};

/// Something that happened during a tick.
struct Event {
  enum class Type : std::uint8_t { kCapture = 0, kRespawn = 1, kSpawn = 2, kDespawn = 3 };
  Type type = Type::kCapture;
  AgentId subject;  ///< the player (capture/respawn) or the agent (spawn/despawn)
  AgentId other;    ///< the capturing pursuer for kCapture
  std::uint64_t tick = 0;
  std::uint64_t survived_ticks = 0;  ///< kCapture: how long the player survived (its score)
};

/// Behaviour state reported for annotation.
enum class BehaviorState : std::uint8_t {
  kNone = 0,
  kSeeking,
  kIntercepting,
  kLosFallback,
  kFleeing,
  kAvoiding,
  kPatrolling,
  kHiding,
  kCaptured
};

/// Read-only view of one agent (by dense index) for snapshots and viewers.
struct AgentView {
  AgentId id;
  AgentKind kind = AgentKind::kFlock;
  std::int32_t group = 0;
  Vec2 position;
  Vec2 velocity;
  real orientation = 0;  ///< radians, CCW from +x
  real angular_velocity = 0;
  AgentId target;  ///< agent this one is after (pursuers) or following (offset pursuit)
  Vec2 aim;        ///< point it steers to (intercept point, hiding spot, waypoint, wander target)
  BehaviorState state = BehaviorState::kNone;
  std::uint64_t spawn_tick = 0;
};

}  // namespace flockstep::sim
