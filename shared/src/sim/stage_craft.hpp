#pragma once
/// \file stage_craft.hpp
/// The craft model's integration (T10, T12) as a free function, run by both the World
/// (world.cpp's integrate) and the Extrapolator (extrapolate.cpp). Private: not installed.
#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"

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

}  // namespace flockstep::sim
