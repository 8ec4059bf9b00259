#pragma once
/// \file trace.hpp
/// A steering trace: what each behaviour of one agent's composition produced in one step and
/// what the combiner made of them (World::set_traced / World::traces). Plain data, so the codec
/// can put it on the wire without the World's header.
#include <cstdint>

#include "flockstep/behavior/types.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/compose.hpp"

namespace flockstep::sim {

/// Most agents a World traces at once. Tracing keeps the raw output of every behaviour of the
/// traced agents' batches (one extra store per behaviour and agent of those batches only), so
/// the cost grows with the number traced; 16 covers a room's inspecting clients.
inline constexpr std::int32_t kMaxTraced = 16;

/// One behaviour of a force-model agent's steering in one step: each behaviour's raw output as its kernel
/// produced it (before weights and the combiner) and the combined output the agent then
/// integrated (N for vehicles, m/s^2 and rad/s^2 for the steering model).
struct BehaviorTrace {
  BehaviorType type = BehaviorType::kSeek;  ///< which behaviour (composition_of(group) order)
  bool evaluated = false;                   ///< produced an output; false: skipped by the combiner (decided, budget
                                            ///< full, dither, weight 0) or nothing to say (no target, no obstacle near)
  behavior::SteeringOutput raw;             ///< its kernel's output (zero when not evaluated)
  real weight = 0;                          ///< its weight in the composition at that step
};

/// One traced agent in one step.
struct SteeringTrace {
  AgentId agent;            ///< the traced agent (invalid: none)
  std::uint64_t tick = 0;   ///< tick() after the step whose steering this is; 0 = none yet
  std::int32_t group = -1;  ///< its group (-1: not found or not a scripted agent)
  std::int32_t count = 0;   ///< behaviours in the group's composition (0: a one-controller model)
  BehaviorTrace behaviors[kMaxBehaviors];
  behavior::SteeringOutput result;  ///< what the combiner (and T07's actuator) produced
};

}  // namespace flockstep::sim
