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
///   - LaMothe's trackers (T17 track, T18 anti-track): the kinematic step toward or away from
///     the nearest player (behavior::track_step / evade_step), then behavior::kinematic_integrate;
///   - tile walkers (T26-T28, T22): from the tile they walk to (the snapshot's aim is its centre)
///     at the tile speed, stepping on by the world's own tile rules where the next tile follows
///     from the snapshot (a track tile with one way on, the next entry of a patrol pattern) and
///     stopping on the tile centre where it does not (a junction's random choice, a chase's path
///     search: see extrapolate.cpp);
///   - then the World's end-of-tick rules: sim::push_out_of_obstacles and sim::apply_border.
/// Everything else (flocks and wanderers that need neighbours' private random streams, Bourg's
/// flocks, patterns, kinematic and steering-model groups, players whose input is unknown) is dead
/// reckoned with the codec's second-order motion model: speed and direction of travel keep
/// changing at the rates measured between the two newest snapshots (the continuous form of
/// codec::predict's integer model, which sim cannot call: codec depends on sim). Kinematic groups
/// whose velocity jumps within a snapshot interval (LaMothe's fly bursts and mine noise, T40
/// kinematic wander's random rotation, T25 pattern turns) are dead reckoned first order instead:
/// the rates measured across such a jump describe a turn that is already over, and carrying them
/// on overshoots (docs/viewer.md has the measurement). A fly's burst runs out after the group's
/// burst length: from its expected end the fly moves at the mean of the next random draw.
///
/// Like the World, a tick computes every agent's steering from the state at its start and then
/// moves everyone (compute-then-commit), so the result does not depend on agent order.
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/world_state.hpp"

namespace flockstep::sim {

/// How an agent is advanced.
enum class ExtrapolationMethod : std::uint8_t {
  kBehaviour = 0,      ///< the World's behaviour code (file comment)
  kDeadReckoning = 1,  ///< second-order dead reckoning
  kFirstOrder = 2,     ///< first-order dead reckoning: a straight line at the last velocity
  kTile = 3,           ///< tile walker: to the next tile centre, on by the world's tile rules (file comment)
};

/// Where a tile walker is on its step between two tile centres (the World's tile state, as far
/// as a snapshot shows it).
struct TileStep {
  behavior::Tile from;              ///< tile it left
  behavior::Tile to;                ///< tile it walks to (== from: standing on from's centre)
  real progress = 1;                ///< fraction of the step done, [0, 1)
  behavior::Tile previous{-1, -1};  ///< the tile before `from` ({-1, -1}: unknown)
  std::int32_t pattern = -1;        ///< patrols: index of `to` in the group's tile pattern, -1 unknown
};

/// One agent being extrapolated: its snapshot view, advanced in place, plus what dead
/// reckoning needs.
struct ExtrapolatedAgent {
  AgentView view;      ///< position, velocity, orientation, angular velocity advanced; the rest as sent
  Vec2 heading{1, 0};  ///< vehicles: unit heading (T08), from the orientation
  real turn = 0;       ///< dead reckoning: change of the direction of travel per tick, rad
  real accel = 0;      ///< dead reckoning: change of speed per tick, m/s
  TileStep tile;       ///< tile walkers (kTile)
  /// The agent's own random stream, when known (init from a WorldState): a track walker then
  /// takes a junction's branch by the World's own draw instead of waiting on the centre.
  math::Rng rng;
  bool own_stream = false;
  /// First order: ticks the last velocity still lasts before it becomes `then` (-1: for good).
  std::int32_t lasts = -1;
  Vec2 then;  ///< first order: the velocity after `lasts` ticks, m/s
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

  /// Agents for the views of a World whose exported state is `state` (views in its dense order):
  /// as init() from one snapshot, but what a snapshot leaves init() to estimate is taken exactly
  /// from the state (a tile walker's step, the tile before it and its patrol entry). For hosts
  /// that hold the state, and for the tests that hold the extrapolator to the World's own tick.
  void init(std::span<const AgentView> views, const WorldState& state, std::vector<ExtrapolatedAgent>& out) const;
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
    TileStep tile{};                             // tile walkers: the step after this tick
    math::Rng rng;                               // the agent's stream after this tick (own_stream)
  };
  Steer steer(std::span<const ExtrapolatedAgent> agents, std::int32_t i) const;
  void integrate(ExtrapolatedAgent& a, const Steer& s) const;
  void init_burst(ExtrapolatedAgent& a, const AgentView* old, std::int32_t ticks_between) const;
  TileStep tile_step_of(const AgentView& v) const;
  void init_tile(ExtrapolatedAgent& a, const AgentView* old, std::int32_t ticks_between) const;
  TileStep steer_tile(std::span<const ExtrapolatedAgent> agents, std::int32_t i, math::Rng& rng) const;
  Vec2 tile_centre(behavior::Tile t) const;
  behavior::Tile tile_at(Vec2 p) const;
  std::int32_t nearest_target(std::span<const ExtrapolatedAgent> agents, std::int32_t target_group, std::int32_t self,
                              Vec2 p) const;
  Vec2 delta(Vec2 from, Vec2 to) const;

  Scenario scenario_;
  real dt_;
  std::vector<ExtrapolationMethod> method_;               // per group
  std::vector<Composition> compose_;                      // per group: composition_of
  std::vector<Steer> steer_;                              // scratch: this tick's steering, per agent
  std::vector<Vec2> position_;                            // scratch: positions at the tick's start, per agent
  std::vector<std::int32_t> players_;                     // scratch: the players' indices this tick
  std::vector<std::vector<std::int32_t>> members_;        // scratch: per group, its agents' indices this tick
  std::vector<std::int32_t> leader_;                      // scratch: per group, its leader's index this tick
  std::vector<behavior::TilePathPattern> tile_patterns_;  // per scenario tile pattern (T26)
  std::vector<std::vector<std::uint8_t>> track_cells_;    // per scenario track: map-sized matrix (T28)
};

}  // namespace flockstep::sim
