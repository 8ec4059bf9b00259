#include "flockstep/sim/obstacle_grid.hpp"

#include <algorithm>
#include <cmath>

#include "flockstep/math/transform.hpp"
#include "flockstep/sim/grid.hpp"

namespace flockstep::sim {

namespace {

/// The cell range [lo, hi] on one axis that can hold a rectangle within `limit` of `centre`
/// (with wrap, indices may run outside [0, n) and are taken modulo n; an axis the range spans
/// whole is [0, n - 1], so no cell is visited twice).
void candidate_cells(real centre, real limit, real extent, std::int32_t n, bool wrap, std::int32_t& lo,
                     std::int32_t& hi) {
  const real cell = extent / n;
  if (wrap) {
    // Around the image in [0, extent]: the cells of every image are the same modulo n.
    const real c = centre - extent * std::floor(centre / extent);
    if (!(limit < extent) || !math::is_finite(c)) {
      lo = 0;
      hi = n - 1;
      return;
    }
    centre = c;
  }
  // Both ends clamped to [-extent, 2 extent] before dividing, so the index is within [-n - 1,
  // 2n + 1] whatever the obstacle's numbers (a float-to-int conversion out of range is undefined).
  const real a = math::min(math::max(centre - limit, -extent), 2 * extent);
  const real b = math::min(math::max(centre + limit, -extent), 2 * extent);
  lo = static_cast<std::int32_t>(std::floor(a / cell)) - 1;
  hi = static_cast<std::int32_t>(std::floor(b / cell)) + 1;
  if (wrap && hi - lo + 1 >= n) {
    lo = 0;
    hi = n - 1;
  } else if (!wrap) {
    lo = std::max(lo, 0);
    hi = std::min(hi, n - 1);
  }
}

}  // namespace

void ObstacleGrid::build(const Scenario& s, real reach) {
  obstacles_ = s.obstacles;
  width_ = s.width;
  height_ = s.height;
  reach_ = reach;
  const real size = math::max(s.grid_cell, real(4));
  cols_ = static_cast<std::int32_t>(math::max(1.0, std::floor(s.width / size)));
  rows_ = static_cast<std::int32_t>(math::max(1.0, std::floor(s.height / size)));
  inv_x_ = cols_ / s.width;
  inv_y_ = rows_ / s.height;
  const real cw = s.width / cols_, ch = s.height / rows_;
  struct Listed {
    std::int32_t cell, obstacle;
    Vec2 centre;  // the image the cell lists
  };
  std::vector<Listed> listed;  // obstacles in scenario order
  for (std::size_t o = 0; o < s.obstacles.size(); ++o) {
    const Circle& c = s.obstacles[o];
    const real limit = c.radius + reach;
    std::int32_t x0, x1, y0, y1;
    candidate_cells(c.center.x, limit, s.width, cols_, s.wrap, x0, x1);
    candidate_cells(c.center.y, limit, s.height, rows_, s.wrap, y0, y1);
    for (std::int32_t ty = y0; ty <= y1; ++ty) {
      const std::int32_t cy = (ty % rows_ + rows_) % rows_;
      for (std::int32_t tx = x0; tx <= x1; ++tx) {
        const std::int32_t cx = (tx % cols_ + cols_) % cols_;
        const Vec2 lo{cx * cw, cy * ch}, hi{(cx + 1) * cw, (cy + 1) * ch};
        // Distance from the circle centre to the cell rectangle (shortest torus distance with wrap).
        Vec2 centre = c.center;
        const Vec2 mid{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2};
        if (s.wrap) centre = mid + math::torus_delta(mid, c.center, s.width, s.height);
        const real dx = math::max(math::max(lo.x - centre.x, real(0)), centre.x - hi.x);
        const real dy = math::max(math::max(lo.y - centre.y, real(0)), centre.y - hi.y);
        if (dx * dx + dy * dy <= limit * limit)
          listed.push_back({cy * cols_ + cx, static_cast<std::int32_t>(o), centre});
      }
    }
  }
  // Compressed rows by cell, filled in listing order: within a cell, scenario order.
  const auto cells = static_cast<std::size_t>(cols_) * static_cast<std::size_t>(rows_);
  start_.assign(cells + 1, 0);
  for (const Listed& l : listed) ++start_[static_cast<std::size_t>(l.cell) + 1];
  for (std::size_t k = 0; k < cells; ++k) start_[k + 1] += start_[k];
  items_.assign(listed.size(), Circle{});
  ids_.assign(listed.size(), 0);
  std::vector<std::int32_t> fill(start_.begin(), start_.end() - 1);
  for (const Listed& l : listed) {
    const auto at = static_cast<std::size_t>(fill[static_cast<std::size_t>(l.cell)]++);
    items_[at] = {l.centre, s.obstacles[static_cast<std::size_t>(l.obstacle)].radius};
    ids_[at] = l.obstacle;
  }
}

std::int32_t ObstacleGrid::cell_of(Vec2 p) const {
  // The same expression as Grid::cell_of (grid.cpp), so equal partitions give equal cells.
  const std::int32_t cx = clamped_floor_index(p.x * inv_x_, cols_);
  const std::int32_t cy = clamped_floor_index(p.y * inv_y_, rows_);
  return cy * cols_ + cx;
}

std::span<const Circle> ObstacleGrid::cell(std::int32_t cx, std::int32_t cy) const { return in_cell(cy * cols_ + cx); }

bool ObstacleGrid::overlaps(Vec2 p, real radius) const {
  const std::vector<Circle>& all = obstacles_;
  auto overlap = [&](const Circle& c) {
    return math::distance_sq(p, c.center) < (c.radius + radius) * (c.radius + radius);
  };
  // Why the cell's list suffices: on each axis the image a cell lists is at most as far from the
  // cell's rectangle as the obstacle itself (it is the image nearest the cell's middle), so an
  // obstacle within radius + its own radius <= reach + its radius of p (in the cell) is listed.
  const bool in_world = p.x >= 0 && p.x < width_ && p.y >= 0 && p.y < height_;
  if (!in_world || !(radius <= reach_)) return std::any_of(all.begin(), all.end(), overlap);
  if (items_.empty()) return false;
  const auto cell = static_cast<std::size_t>(cell_of(p));
  for (std::int32_t k = start_[cell]; k < start_[cell + 1]; ++k)
    if (overlap(all[static_cast<std::size_t>(ids_[static_cast<std::size_t>(k)])])) return true;
  return false;
}

}  // namespace flockstep::sim
