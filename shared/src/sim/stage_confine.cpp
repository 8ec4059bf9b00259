// The end-of-tick rules as a stage (stage_confine.hpp).
#include "stage_confine.hpp"

#include <algorithm>
#include <cmath>

#include "flockstep/math/scalar.hpp"
#include "flockstep/sim/rules.hpp"

namespace flockstep::sim {

void confine_agent(const ConfineColumns& c, std::int32_t i, TechniqueTally& tally, World::PushoutStats& stats) {
  const auto at = static_cast<std::size_t>(i);
  const real r = body_radius(c.scenario, c.group[at]);
  const Confined done = confine_body(c.position[at], c.velocity[at], r, c.obstacles.near(c.position[at]), c.scenario);
  if (done.depth > 0) {
    ++stats.corrections;
    stats.max_depth = math::max(stats.max_depth, done.depth);
  }
  // T14 counts the agent-ticks in which the torus actually carried an agent across the seam.
  if (done.wrapped) tally.add(14);
}

void confine_agent_border(const ConfineColumns& c, std::int32_t i, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  if (border_wrapped(c.position[at], c.velocity[at], body_radius(c.scenario, c.group[at]), c.scenario)) tally.add(14);
}

std::vector<std::uint8_t> pushout_free_cells(const Grid& grid, const ObstacleGrid& obstacles, const Scenario& scenario,
                                             std::span<const Model> group_model, real dt) {
  // The region a vehicle of a cell can be in: the cell grown by the longest vehicle step
  // (max_speed * dt) plus a slack for the rounding of the cell index, edge cells open outwards
  // (positions outside the world fall in the edge cell). For every obstacle cell
  // ObstacleGrid::near can pick there (one more on each side for its rounding), no listed circle
  // (already at its image nearest that cell) may come within its radius plus the largest vehicle
  // radius of that region.
  const std::int32_t cols = grid.columns(), rows = grid.rows();
  std::vector<std::uint8_t> free_cell(static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows), 1);
  if (obstacles.empty()) return free_cell;
  real step = 0, reach = 0;
  bool vehicles = false;
  for (std::size_t g = 0; g < scenario.groups.size(); ++g) {
    if (group_model[g] != Model::kVehicle) continue;
    vehicles = true;
    step = math::max(step, scenario.groups[g].max_speed * dt);
    reach = math::max(reach, scenario.groups[g].radius);
  }
  if (!vehicles) return free_cell;  // no vehicle asks
  const real w = scenario.width, h = scenario.height;
  const real margin = step * (1 + 1e-9) + 1e-6 * (1 + w + h);
  const real cw = w / cols, ch = h / rows;
  auto obstacle_index = [](real v, real extent, std::int32_t n) {
    const real cell = std::floor(math::min(math::max(v, real(0)), extent) / extent * n);
    return static_cast<std::int32_t>(cell);
  };
  for (std::int32_t gy = 0; gy < rows; ++gy) {
    for (std::int32_t gx = 0; gx < cols; ++gx) {
      const real lo_x = gx == 0 ? -math::kInfinity : gx * cw - margin;
      const real hi_x = gx == cols - 1 ? math::kInfinity : (gx + 1) * cw + margin;
      const real lo_y = gy == 0 ? -math::kInfinity : gy * ch - margin;
      const real hi_y = gy == rows - 1 ? math::kInfinity : (gy + 1) * ch + margin;
      const std::int32_t ox0 = std::max(obstacle_index(lo_x, w, obstacles.columns()) - 1, 0);
      const std::int32_t ox1 = std::min(obstacle_index(hi_x, w, obstacles.columns()) + 1, obstacles.columns() - 1);
      const std::int32_t oy0 = std::max(obstacle_index(lo_y, h, obstacles.rows()) - 1, 0);
      const std::int32_t oy1 = std::min(obstacle_index(hi_y, h, obstacles.rows()) + 1, obstacles.rows() - 1);
      bool free = true;
      for (std::int32_t oy = oy0; oy <= oy1 && free; ++oy) {
        for (std::int32_t ox = ox0; ox <= ox1 && free; ++ox) {
          for (const Circle& circle : obstacles.cell(ox, oy)) {
            if (!free) break;
            const real dx = math::max(math::max(lo_x - circle.center.x, real(0)), circle.center.x - hi_x);
            const real dy = math::max(math::max(lo_y - circle.center.y, real(0)), circle.center.y - hi_y);
            const real limit = circle.radius + reach;
            free = dx * dx + dy * dy > limit * limit;
          }
        }
      }
      free_cell[static_cast<std::size_t>(gy * cols + gx)] = free ? 1 : 0;
    }
  }
  return free_cell;
}

}  // namespace flockstep::sim
