#include "stage_craft.hpp"

#include "flockstep/math/angle.hpp"

namespace flockstep::sim {

behavior::CraftState step_craft(behavior::CraftState cs, const behavior::CraftParams& craft,
                                const behavior::Thrusters& thrusters, real dt) {
  behavior::craft_step(cs, craft, thrusters, dt);
  cs.orientation = math::wrap_angle(cs.orientation);
  return cs;
}

}  // namespace flockstep::sim
