#pragma once
/// \file extrapolate.hpp
/// Advance agents from what a snapshot tells a viewer (sim::AgentView: position, velocity,
/// orientation, angular velocity, aim, target, state, group, kind) by whole ticks, with the
/// behaviour code the World runs wherever the snapshot holds that code's inputs:
///   - craft chasers (T21 line of sight, T23/T24 intercept): the target is the nearest player or
///     the nearest agent of the group's target_group, both in the snapshot; the thrusters come
///     from the same behavior:: controllers with the same parameters (model_params.hpp), the body
///     from behavior::craft_step, T10;
///   - vehicle groups (T08) whose composition (sim::composition_of) has only behaviours whose
///     inputs are in the snapshot (walls, obstacles, fleeing players, seek, arrive, flee, pursue,
///     evade, hide, offset pursuit, interpose) combined by a running sum (T79), a blend (T77) or
///     a priority (T78): each behaviour's behavior:: force, the same combiner, behavior::body_update;
///   - then the World's end-of-tick rules: sim::push_out_of_obstacles and sim::apply_border.
/// Everything else (flocks and wanderers that need neighbours' private random streams, Bourg's
/// flocks, patterns, tile walkers, kinematic and steering-model groups, players whose input is
/// unknown) is dead reckoned with the codec's second-order motion model: speed and direction of
/// travel keep changing at the rates measured between the two newest snapshots (the continuous
/// form of codec::predict's integer model, which sim cannot call: codec depends on sim).
///
/// Like the World, a tick computes every agent's steering from the state at its start and then
/// moves everyone (compute-then-commit), so the result does not depend on agent order.
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// How an agent is advanced.
enum class ExtrapolationMethod : std::uint8_t {
  kBehaviour = 0,      ///< the World's behaviour code (file comment)
  kDeadReckoning = 1,  ///< second-order dead reckoning
};

/// One agent being extrapolated: its snapshot view, advanced in place, plus what dead
/// reckoning needs.
struct ExtrapolatedAgent {
  AgentView view;      ///< position, velocity, orientation, angular velocity advanced; the rest as sent
  Vec2 heading{1, 0};  ///< vehicles: unit heading (T08), from the orientation
  real turn = 0;       ///< dead reckoning: change of the direction of travel per tick, rad
  real accel = 0;      ///< dead reckoning: change of speed per tick, m/s
  ExtrapolationMethod method = ExtrapolationMethod::kDeadReckoning;
};

/// Largest number of ticks extrapolate() accepts in one call (10 s at 60 Hz): beyond that a
/// snapshot is too old for any prediction to mean anything. [Limit: 0..kMaxExtrapolationTicks]
inline constexpr std::int32_t kMaxExtrapolationTicks = 600;

/// The static scene the extrapolation reads, prepared once per scenario: the scenario with its
/// border walls (as the World adds them) and the method of every group.
class Extrapolator {
 public:
  /// `scenario` is copied. dt = 1 / tick rate, s.
  Extrapolator(const Scenario& scenario, real dt);

  /// How agents of `group` (-1: players) are advanced.
  ExtrapolationMethod method_of(std::int32_t group) const;

  /// Agents for the views of one snapshot. `previous` (optional, may be empty) is the snapshot
  /// `ticks_between` ticks earlier: dead reckoning takes its turn and acceleration rates from the
  /// change since then (agents missing from it get none).
  void init(std::span<const AgentView> views, std::vector<ExtrapolatedAgent>& out,
            std::span<const AgentView> previous = {}, std::int32_t ticks_between = 0) const;

  /// Advance every agent one tick.
  void step(std::span<ExtrapolatedAgent> agents);
  /// Advance every agent `ticks` ticks. [Limit: 0..kMaxExtrapolationTicks; beyond: clamped]
  void advance(std::span<ExtrapolatedAgent> agents, std::int32_t ticks);

  /// One tick of dead reckoning (public for tests and the control measurements).
  void dead_reckon(ExtrapolatedAgent& a) const;

  const Scenario& scenario() const { return scenario_; }
  real dt() const { return dt_; }

 private:
  struct Steer {
    Vec2 force;                                  // vehicles, N
    behavior::Thrusters thrusters{};             // crafts
    BehaviorState state = BehaviorState::kNone;  // T24 chase mode after this tick
  };
  Steer steer(std::span<const ExtrapolatedAgent> agents, std::int32_t i) const;
  void integrate(ExtrapolatedAgent& a, const Steer& s) const;
  std::int32_t nearest_target(std::span<const ExtrapolatedAgent> agents, std::int32_t target_group, std::int32_t self,
                              Vec2 p) const;
  std::int32_t leader_of(std::span<const ExtrapolatedAgent> agents, std::int32_t group) const;
  Vec2 delta(Vec2 from, Vec2 to) const;
  real radius_of(std::int32_t group) const;

  Scenario scenario_;
  real dt_;
  std::vector<ExtrapolationMethod> method_;  // per group
  std::vector<Composition> compose_;         // per group: composition_of
  std::vector<Steer> steer_;                 // scratch: this tick's steering, per agent
};

}  // namespace flockstep::sim
