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
  std::span<const Circle> near(Vec2 p) const { return in_cell(cell_of(p)); }
  /// The cell p falls in, computed as Grid::cell_of computes it: where both grids have the same
  /// columns and rows over the same world (grid_cell >= 4 m), a point is in the same cell of
  /// each, bit for bit, so the world can use the cell it sorted an agent into.
  std::int32_t cell_of(Vec2 p) const;
  /// The list of cell `cell` (row-major index, as cell_of). [Limit: 0 <= cell < columns() * rows()]
  std::span<const Circle> in_cell(std::int32_t cell) const {
    const auto c = static_cast<std::size_t>(cell);
    return items_.empty() ? std::span<const Circle>{}
                          : std::span<const Circle>(items_.data() + start_[c],
                                                    static_cast<std::size_t>(start_[c + 1] - start_[c]));
  }
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
  std::vector<Circle> obstacles_;  // the scenario's, as built
  real width_ = 1, height_ = 1;
  std::vector<std::int32_t> start_;  // CSR: cell c lists items_[start_[c], start_[c + 1])
  std::vector<Circle> items_;        // the obstacle at the image the cell sees
  std::vector<std::int32_t> ids_;    // each item's index in Scenario::obstacles
  std::int32_t cols_ = 1, rows_ = 1;
  real inv_x_ = 1, inv_y_ = 1;  // cols_ / width_, rows_ / height_ (as Grid's inv_cell_x_, inv_cell_y_)
  real reach_ = 0;
};

}  // namespace flockstep::sim
