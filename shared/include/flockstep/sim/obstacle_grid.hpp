#pragma once
/// \file obstacle_grid.hpp
/// The world's static obstacle index: a coarse grid over the world whose every cell lists the
/// obstacles that can matter to an agent in it (within a reach of the cell's rectangle), so an
/// agent's obstacle avoidance, push-out and spawn test look at a handful of circles instead of
/// every obstacle of the scenario. Built once per scenario (obstacles never move). Written by
/// hand: a compressed-row list per cell is a few lines, and no library offers this with the
/// world's torus images and order rules.
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

class ObstacleGrid {
 public:
  /// Cell lists for `s`: cell size max(grid_cell, 4) m, as many whole cells as fit on each axis.
  /// A cell lists every obstacle whose distance to the cell's rectangle is at most its radius +
  /// `reach`, at its torus image nearest the cell's middle (with wrap), in scenario order.
  /// Each obstacle is tested only against the cells around it (one more on each side for the
  /// rounding of the cell index, every cell of an axis its reach spans whole), so building costs
  /// O(obstacles x cells each covers), not O(obstacles x cells).
  void build(const Scenario& s, real reach);

  /// At least every obstacle within `reach` of p (p's cell's list; positions outside the world
  /// use the nearest edge cell). Empty when the scenario has no obstacles.
  std::span<const Circle> near(Vec2 p) const;
  /// The spawn rule: a disc of `radius` at p overlaps an obstacle (plain distance to the
  /// obstacle's centre, never to a torus image). Through p's cell where its list is sure to hold
  /// every such obstacle (p in the world, radius <= reach), else over every obstacle.
  bool overlaps(Vec2 p, real radius) const;

  /// The list of cell (cx, cy). [Limit: 0 <= cx < columns(), 0 <= cy < rows()]
  std::span<const Circle> cell(std::int32_t cx, std::int32_t cy) const;
  std::int32_t columns() const { return cols_; }
  std::int32_t rows() const { return rows_; }
  real reach() const { return reach_; }
  bool empty() const { return items_.empty(); }

 private:
  std::int32_t cell_index(Vec2 p) const;

  std::vector<Circle> obstacles_;  // the scenario's, as built
  real width_ = 1, height_ = 1;
  std::vector<std::int32_t> start_;  // CSR: cell c lists items_[start_[c], start_[c + 1])
  std::vector<Circle> items_;        // the obstacle at the image the cell sees
  std::vector<std::int32_t> ids_;    // each item's index in Scenario::obstacles
  std::int32_t cols_ = 1, rows_ = 1;
  real reach_ = 0;
};

}  // namespace flockstep::sim
