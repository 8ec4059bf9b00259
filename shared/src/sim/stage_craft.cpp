#include "stage_craft.hpp"

#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/math/angle.hpp"
#include "flockstep/sim/model_params.hpp"

namespace flockstep::sim {

behavior::CraftState step_craft(behavior::CraftState cs, const behavior::CraftParams& craft,
                                const behavior::Thrusters& thrusters, real dt) {
  behavior::craft_step(cs, craft, thrusters, dt);
  cs.orientation = math::wrap_angle(cs.orientation);
  return cs;
}

CraftChase chase_craft(const GroupSpec& g, const behavior::CraftState& cs, const behavior::Mover* prey, Vec2 centre,
                       behavior::ChaseMode& mode) {
  const behavior::LosChaseParams los = los_chase_params(g);
  CraftChase out;
  if (g.technique == Technique::kIntercept && prey) {
    const behavior::InterceptChaseOutput ic = behavior::intercept_chase(cs, *prey, intercept_params(g), los, mode);
    out.thrusters = ic.thrusters;
    out.aim = ic.aim.point;
    out.state =
        ic.aim.mode == behavior::ChaseMode::intercept ? BehaviorState::kIntercepting : BehaviorState::kLosFallback;
    return out;
  }
  // Line of sight: the LOS chaser always, the interceptor while it has no prey (to the centre).
  out.aim = prey ? prey->position : centre;
  out.thrusters = behavior::los_chase_thrusters(cs, out.aim, los);
  if (prey && g.technique == Technique::kLosChase) out.state = BehaviorState::kSeeking;
  return out;
}

}  // namespace flockstep::sim
