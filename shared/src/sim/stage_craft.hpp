#pragma once
/// \file stage_craft.hpp
/// The craft model (T10) as stages: players (sim::step_player), line-of-sight chase, intercept
/// and physics patterns, one controller per agent. Free functions over the columns they name;
/// the World runs steer_craft_agent and move_craft_agent (world.cpp's steering and integrate
/// phases), the Extrapolator (extrapolate.cpp) the rules it can feed from a snapshot
/// (chase_craft, step_craft). Bourg's rigid-body flocks (T35) move a group at a time by AIDemo4's
/// own loop instead (stage_bourg.hpp). Private: not installed.
#include <cstdint>
#include <span>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/physics_pattern.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/player.hpp"
#include "flockstep/sim/scenario.hpp"
#include "stage_targets.hpp"
#include "technique_tally.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// T10 one rigid-body craft step under `thrusters` for dt, s; the angle is kept in (-pi, pi]
/// (T12) so it never grows without bound (the T05 caveat).
behavior::CraftState step_craft(behavior::CraftState cs, const behavior::CraftParams& craft,
                                const behavior::Thrusters& thrusters, real dt);

/// What a craft chaser (T21, T23/T24) does this tick.
struct CraftChase {
  behavior::Thrusters thrusters{};
  Vec2 aim;                                    ///< where it steers, m
  BehaviorState state = BehaviorState::kNone;  ///< kSeeking, kIntercepting, kLosFallback; kNone: no prey
};

/// A craft chaser of group `g` (technique kLosChase or kIntercept) in state `cs`: toward `prey`
/// (its copy nearest the chaser; nullptr: none, then it idles toward `centre`) by line of sight
/// (T21) or by intercept with the fall-back to line of sight (T23/T24, `mode` carried between
/// ticks), with the group's tuning (model_params.hpp).
CraftChase chase_craft(const GroupSpec& g, const behavior::CraftState& cs, const behavior::Mover* prey, Vec2 centre,
                       behavior::ChaseMode& mode);

/// What the craft steering stage reads and writes (dense rows).
struct CraftSteerColumns {
  std::span<const GroupSpec> groups;
  Vec2 centre;             ///< the world's centre: where an interceptor without prey heads, m
  const Targets& targets;  ///< who a chaser aims at (players, or target_group's members)
  // Read.
  std::span<const AgentKind> kind;
  std::span<const std::int32_t> group;
  std::span<const AgentId> id;
  std::span<const PlayerInput> input;
  std::span<const Vec2> position, velocity;
  std::span<const real> orientation, angular_velocity;
  // The agent's own controller state, read and written.
  std::span<behavior::ChaseMode> chase_mode;     ///< T23/T24 intercept or its line-of-sight fall-back
  std::span<behavior::PatternTracking> pattern;  ///< T29/T30 progress through the physics pattern
  // Written.
  std::span<behavior::Thrusters> thrusters;
  std::span<AgentId> target;
  std::span<Vec2> aim;
  std::span<BehaviorState> state;
};

/// Craft i's controller decides its thrusters this tick: a player's from its input (for viewers:
/// move_craft_agent runs step_player itself), a chaser's by chase_craft (T21, T23/T24), a patrol's
/// by its physics pattern (T29/T30). Bourg's units are left alone (their group's loop steers them).
void steer_craft_agent(const CraftSteerColumns& c, std::int32_t i, TechniqueTally& tally);

/// What the craft integration stage reads and writes.
struct CraftMoveColumns {
  const Scenario& scenario;  ///< step_player reads the player craft and the world's bounds
  real dt;                   ///< s
  std::span<const AgentKind> kind;
  std::span<const std::int32_t> group;
  std::span<const PlayerInput> input;
  std::span<const behavior::Thrusters> thrusters;
  std::span<Vec2> position, velocity, heading;
  std::span<real> orientation, angular_velocity;
};

/// Moves craft i for dt: a player by step_player (the step every client predicts with, which
/// confines it too), a controlled craft by step_craft (T10, T12). Returns true when the caller's
/// confinement rule should follow (not for players, and not for Bourg's units, which their
/// group's loop moves).
bool move_craft_agent(const CraftMoveColumns& c, std::int32_t i, TechniqueTally& tally);

}  // namespace flockstep::sim
