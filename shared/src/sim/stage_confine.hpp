#pragma once
/// \file stage_confine.hpp
/// The end-of-tick rules (rules.hpp: push-out of obstacles, then the border or the torus wrap,
/// T14) as a stage over the rows they move, with the table that lets the flock's hot path skip
/// the obstacle half where it cannot matter. The World's integrate phase runs it after every
/// model's move except tile walkers (world.cpp) and Bourg's flocks (stage_bourg.cpp, which keep
/// AIDemo4's own order). Private: not installed.
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/compose.hpp"
#include "flockstep/sim/grid.hpp"
#include "flockstep/sim/obstacle_grid.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/world.hpp"
#include "technique_tally.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// What confining reads and writes (dense rows).
struct ConfineColumns {
  const Scenario& scenario;       ///< the border, the wrap, each group's radius
  const ObstacleGrid& obstacles;  ///< the obstacles near each position
  std::span<const std::int32_t> group;
  std::span<Vec2> position, velocity;
};

/// confine_body for row i with the obstacles listed near it. The depth it pushed the body out
/// from (what avoidance missed) goes to `stats`; T14 counts when the torus carried it across.
void confine_agent(const ConfineColumns& c, std::int32_t i, TechniqueTally& tally, World::PushoutStats& stats);

/// The border half alone (border_wrapped), for a row in a push-out free cell.
void confine_agent_border(const ConfineColumns& c, std::int32_t i, TechniqueTally& tally);

/// Per cell of `grid`: 1 when no vehicle sorted into it at the grid rebuild can touch an obstacle
/// after this tick's body update, so confining it needs only the border half (exact:
/// push_out_of_obstacles with no circle within reach changes nothing). All 1 when there are no
/// obstacles or no vehicle group (`group_model` per group).
std::vector<std::uint8_t> pushout_free_cells(const Grid& grid, const ObstacleGrid& obstacles, const Scenario& scenario,
                                             std::span<const Model> group_model, real dt);

}  // namespace flockstep::sim
