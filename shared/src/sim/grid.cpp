#include "flockstep/sim/grid.hpp"

#include <algorithm>

namespace flockstep::sim {

void Grid::init(real width, real height, real cell_size, bool wrap, std::int32_t capacity) {
  FLOCKSTEP_ASSERT(width > 0 && height > 0 && cell_size > 0 && capacity >= 0);
  width_ = width;
  height_ = height;
  wrap_ = wrap;
  cols_ = static_cast<std::int32_t>(std::floor(width / cell_size));
  rows_ = static_cast<std::int32_t>(std::floor(height / cell_size));
  if (cols_ < 1) cols_ = 1;
  if (rows_ < 1) rows_ = 1;
  // Cells are stretched so they tile the world exactly (needed for wrap): each is >= cell_size.
  cell_ = math::min(width / cols_, height / rows_);
  inv_cell_x_ = cols_ / width;
  inv_cell_y_ = rows_ / height;
  inv_cell_ = 1 / cell_;
  cell_start_.assign(static_cast<std::size_t>(cols_) * rows_ + 1, 0);
  items_.assign(static_cast<std::size_t>(capacity), 0);
  agent_cell_.assign(static_cast<std::size_t>(capacity), 0);
}

std::int32_t Grid::cell_of(Vec2 p) const {
  // Positions are kept inside the world by the tick; clamp anyway so a stray value can never
  // index out of range.
  const std::int32_t x = clamped_floor_index(p.x * inv_cell_x_, cols_);
  const std::int32_t y = clamped_floor_index(p.y * inv_cell_y_, rows_);
  return y * cols_ + x;
}

std::int32_t Grid::neighbour_cells(std::int32_t c, std::int32_t n, std::int32_t out[3], std::int32_t side[3]) const {
  std::int32_t count = 0;
  if (wrap_ && n < 3) {
    for (std::int32_t i = 0; i < n; ++i) {
      side[count] = 0;
      out[count++] = i;
    }
    return count;
  }
  for (std::int32_t d = -1; d <= 1; ++d) {
    std::int32_t v = c + d;
    if (wrap_) {
      // Which copy of the world the cell is seen in from c: -1 below the seam, +1 above it.
      side[count] = v < 0 ? -1 : (v >= n ? 1 : 0);
      // For a cell index c (0 <= c < n) v is in [-1, n] and one add or subtract wraps it; the
      // general remainder stays for a query point far outside the world. (Two integer divisions
      // per cell were a visible share of the flock tick: ranges_around runs for every cell the
      // steering walks through.)
      v -= side[count] * n;
      if (v < 0 || v >= n) v = (v % n + n) % n;
    } else if (v < 0 || v >= n) {
      continue;
    } else {
      side[count] = 0;
    }
    out[count++] = v;
  }
  return count;
}

void Grid::rebuild(std::span<const Vec2> positions) {
  const auto n = static_cast<std::int32_t>(positions.size());
  FLOCKSTEP_ASSERT(n <= static_cast<std::int32_t>(items_.size()));
  count_ = n;
  std::fill(cell_start_.begin(), cell_start_.end(), 0);
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t c = cell_of(positions[i]);
    agent_cell_[i] = c;
    ++cell_start_[c + 1];
  }
  for (std::size_t c = 1; c < cell_start_.size(); ++c) cell_start_[c] += cell_start_[c - 1];
  // Stable placement: scanning indices in ascending order keeps each cell's items ascending.
  // cell_start_ is used as the write cursor, then restored by shifting.
  for (std::int32_t i = 0; i < n; ++i) items_[cell_start_[agent_cell_[i]]++] = i;
  for (std::size_t c = cell_start_.size() - 1; c > 0; --c) cell_start_[c] = cell_start_[c - 1];
  cell_start_[0] = 0;
}

void Grid::rebuild(std::span<const Vec2> positions, std::span<const AgentId> ids) {
  FLOCKSTEP_ASSERT(ids.size() >= positions.size());
  rebuild(positions);
  // Each cell's items by id slot: an insertion sort, since cells hold a few agents and, with
  // the rows in cell order (the World's reorder), they mostly arrive in id order already.
  const std::size_t cells = cell_start_.size() - 1;
  for (std::size_t c = 0; c < cells; ++c) {
    const std::int32_t b = cell_start_[c], e = cell_start_[c + 1];
    for (std::int32_t k = b + 1; k < e; ++k) {
      const std::int32_t item = items_[k];
      const std::uint32_t key = ids[static_cast<std::size_t>(item)].slot();
      std::int32_t q = k;
      while (q > b && ids[static_cast<std::size_t>(items_[q - 1])].slot() > key) {
        items_[q] = items_[q - 1];
        --q;
      }
      items_[q] = item;
    }
  }
}

std::int32_t Grid::slot_ranges(Vec2 p, behavior::SlotRange* out) const {
  const auto cx = static_cast<std::int32_t>(std::floor(p.x * inv_cell_x_));
  const auto cy = static_cast<std::int32_t>(std::floor(p.y * inv_cell_y_));
  return ranges_around(cx, cy, out);
}

std::int32_t Grid::cell_ranges(std::int32_t cell, behavior::SlotRange* out) const {
  return ranges_around(cell % cols_, cell / cols_, out);
}

std::int32_t Grid::ranges_around(std::int32_t cx, std::int32_t cy, behavior::SlotRange* out) const {
  std::int32_t xs[3], ys[3], sxs[3], sys[3];
  const std::int32_t nx = neighbour_cells(cx, cols_, xs, sxs);
  const std::int32_t ny = neighbour_cells(cy, rows_, ys, sys);
  // Images only where each axis has >= 3 cells: then a cell across the seam is within reach on
  // one side only. Smaller wrapped worlds leave the images to the kernel's torus fold.
  const bool images = wrap_ && !needs_fold();
  std::int32_t n = 0;
  for (std::int32_t b = 0; b < ny; ++b) {
    const std::int32_t row = ys[b] * cols_;
    const real shift_y = images ? sys[b] * height_ : 0;
    // Merge runs of consecutive columns (the usual case away from a wrap seam) into one slot
    // range: the visiting order is unchanged because consecutive cells are consecutive in slots,
    // and consecutive columns are on the same side of the seam.
    for (std::int32_t a = 0; a < nx;) {
      std::int32_t last = a;
      while (last + 1 < nx && xs[last + 1] == xs[last] + 1) ++last;
      out[n].begin = cell_start_[row + xs[a]];
      out[n].end = cell_start_[row + xs[last] + 1];
      out[n].shift = {images ? sxs[a] * width_ : 0, shift_y};
      ++n;
      a = last + 1;
    }
  }
  return n;
}

}  // namespace flockstep::sim
