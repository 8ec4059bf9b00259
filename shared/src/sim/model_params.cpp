#include "flockstep/sim/model_params.hpp"

namespace flockstep::sim {

behavior::LosChaseParams los_chase_params(const GroupSpec& g) {
  // Thrusters at full factor; a target exactly behind turns left (the seed's deadlock tie-break);
  // the y-up sign test rather than the seed's literal one.
  return {g.los_tolerance, 1, true, false};
}

behavior::InterceptParams intercept_params(const GroupSpec& g) { return {g.intercept_max_prediction, true}; }

void add_border_walls(Scenario& s) {
  if (s.wrap) return;
  const real w = s.width, h = s.height;
  // Wall normals (left of a->b) face inward.
  s.walls.push_back({{0, 0}, {w, 0}});
  s.walls.push_back({{w, 0}, {w, h}});
  s.walls.push_back({{w, h}, {0, h}});
  s.walls.push_back({{0, h}, {0, 0}});
}

}  // namespace flockstep::sim
