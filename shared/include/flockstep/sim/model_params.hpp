#pragma once
/// \file model_params.hpp
/// What the World and the viewer's extrapolation (extrapolate.hpp) both derive from a scenario:
/// the controller parameters of the craft chasers and the walls of a solid border. Kept here,
/// once, so the two cannot drift apart.
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// T21 line-of-sight thruster logic of a craft group (also the T24 fallback of intercept).
behavior::LosChaseParams los_chase_params(const GroupSpec& g);
/// T23 intercept of a craft group, falling back to line of sight while the prey is behind (T24).
behavior::InterceptParams intercept_params(const GroupSpec& g);
/// Append the four walls of a solid (non-wrapping) border to s.walls, normals inward, so the
/// feelers (T75) keep agents inside. Does nothing for a wrapping world.
void add_border_walls(Scenario& s);

}  // namespace flockstep::sim
