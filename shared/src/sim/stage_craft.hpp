#pragma once
/// \file stage_craft.hpp
/// The craft model's integration (T10, T12) as a free function, run by both the World
/// (world.cpp's integrate) and the Extrapolator (extrapolate.cpp). Private: not installed.
#include "flockstep/behavior/craft.hpp"

namespace flockstep::sim {

using math::real;

/// T10 one rigid-body craft step under `thrusters` for dt, s; the angle is kept in (-pi, pi]
/// (T12) so it never grows without bound (the T05 caveat).
behavior::CraftState step_craft(behavior::CraftState cs, const behavior::CraftParams& craft,
                                const behavior::Thrusters& thrusters, real dt);

}  // namespace flockstep::sim
