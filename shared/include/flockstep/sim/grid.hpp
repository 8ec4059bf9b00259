#pragma once
/// \file grid.hpp
/// Uniform spatial grid for neighbour queries: rebuilt every tick with a counting sort
/// (O(N), no allocation after init), queried over the 3x3 cells around a point. Cell size must
/// be >= the largest query radius. Written by hand: no standard or Debian library offers a
/// deterministic, allocation-free bucket grid over caller-owned SoA positions.
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/sim/agent.hpp"

namespace flockstep::sim {

/// floor(v) clamped to [0, n - 1], clamped before the conversion: converting an infinity, a NaN
/// or a value beyond int32 is undefined behaviour (the world-state fuzzer reached an infinite
/// position). In range, the same integer as the plain cast, so no result changes.
inline std::int32_t clamped_floor_index(math::real v, std::int32_t n) {
  const math::real f = std::floor(v);
  if (!(f >= 0)) return 0;  // negative or NaN
  if (f >= static_cast<math::real>(n)) return n - 1;
  return static_cast<std::int32_t>(f);
}

using math::real;
using math::Vec2;

/// Bucket grid over a [0, width) x [0, height) world, optionally toroidal.
class Grid {
 public:
  /// Size the grid once. cell_size >= largest query radius, m. [Limit: > 0]
  void init(real width, real height, real cell_size, bool wrap, std::int32_t capacity);

  /// Counting-sort the given positions into cells. Stable: within a cell, indices ascend, so
  /// query order is a pure function of the positions (deterministic).
  void rebuild(std::span<const Vec2> positions);
  /// The same, but within a cell the agents ascend by the slot of their id (`ids[i]` is agent
  /// i's id): the order of slots() and of every query then depends on which agents are where,
  /// not on where their rows are stored (the World moves rows; world_ids.cpp).
  void rebuild(std::span<const Vec2> positions, std::span<const AgentId> ids);

  /// Visit every index whose position lies within radius of p (excluding `self`), in a fixed
  /// order (cell row-major from the lower-left neighbour cell, then ascending index). The
  /// visitor receives (index, delta = other - p, squared distance); with wrap, delta is the
  /// shortest torus displacement. Returns the number of candidates examined (for benchmarks).
  template <class Visitor>
  std::int32_t query(Vec2 p, real radius, std::int32_t self, std::span<const Vec2> positions, Visitor&& visit) const;

  /// Visit the same agents as query(), in the same order, but named by slot: the visitor
  /// receives (slot, delta = other - p, squared distance), and `self_slot` is skipped. Each row of
  /// neighbour cells is one contiguous range of slots, scanned in blocks with the hits compacted
  /// before the visitor runs. `positions` is indexed by agent, as query()'s (the World keeps its
  /// rows in cell order, so these reads are close to sequential too).
  template <class Visitor>
  void query_slots(Vec2 p, real radius, std::int32_t self_slot, std::span<const Vec2> positions, Visitor&& visit) const;

  /// The slot ranges query_slots() scans for a query at p, in its visiting order: one range per
  /// row of neighbour cells, split only at a wrap seam. Writes at most kMaxSlotRanges ranges to
  /// `out` and returns how many. Every slot within one cell size of p is in one of them; the
  /// batched kernels (behavior/flocking_lanes.hpp) test the distance themselves. On a wrapped
  /// world each range carries the shift to its image nearest p, unless needs_fold().
  static constexpr std::int32_t kMaxSlotRanges = 9;
  std::int32_t slot_ranges(Vec2 p, behavior::SlotRange* out) const;
  /// The same for a query from anywhere in `cell` (the cell an agent was sorted into: positions
  /// outside the world count in the nearest cell). Agents of one cell share their ranges.
  std::int32_t cell_ranges(std::int32_t cell, behavior::SlotRange* out) const;
  /// The cell of the agent in `slot` after the last rebuild, and the slots of a cell.
  std::int32_t slot_cell(std::int32_t slot) const { return agent_cell_[items_[slot]]; }
  /// The cell agent `index` (of the positions given to the last rebuild) was sorted into.
  std::int32_t agent_cell(std::int32_t index) const { return agent_cell_[index]; }
  std::int32_t cell_begin(std::int32_t cell) const { return cell_start_[cell]; }
  std::int32_t cell_end(std::int32_t cell) const { return cell_start_[cell + 1]; }
  /// A wrapped world with fewer than three cells on an axis: a cell can be within reach on both
  /// sides of the seam, so offsets need the general torus fold (math::torus_delta) instead of
  /// per-range images.
  bool needs_fold() const { return wrap_ && (cols_ < 3 || rows_ < 3); }

  /// Agent index of every slot after the last rebuild: slots are ordered by cell (row-major) and,
  /// within a cell, by ascending agent index, or by id slot after rebuild(positions, ids) (the
  /// order query() visits them in).
  std::span<const std::int32_t> slots() const {
    return std::span<const std::int32_t>(items_.data(), static_cast<std::size_t>(count_));
  }

  std::int32_t columns() const { return cols_; }
  std::int32_t rows() const { return rows_; }
  real cell_size() const { return cell_; }

 private:
  std::int32_t cell_of(Vec2 p) const;
  /// Cells c-1, c, c+1 along an axis of n cells (wrapped or clipped, no duplicates), ascending
  /// in visiting order. Returns how many were written to out.
  std::int32_t ranges_around(std::int32_t cx, std::int32_t cy, behavior::SlotRange* out) const;
  /// `side` gets the copy of the world each cell is seen in (-1, 0, +1; 0 without wrap).
  std::int32_t neighbour_cells(std::int32_t c, std::int32_t n, std::int32_t out[3], std::int32_t side[3]) const;

  /// Slots query_slots() measures before visiting the hits (a stack buffer of ~1 KB).
  static constexpr std::int32_t kQueryBlock = 32;

  real width_ = 0, height_ = 0, cell_ = 1, inv_cell_ = 1, inv_cell_x_ = 1, inv_cell_y_ = 1;
  bool wrap_ = false;
  std::int32_t cols_ = 1, rows_ = 1;
  std::vector<std::int32_t> cell_start_;  // size cols*rows + 1
  std::vector<std::int32_t> items_;       // agent indices sorted by cell
  std::vector<std::int32_t> agent_cell_;  // cell of each agent in the last rebuild
  std::int32_t count_ = 0;                // agents in the last rebuild
};

template <class Visitor>
std::int32_t Grid::query(Vec2 p, real radius, std::int32_t self, std::span<const Vec2> positions,
                         Visitor&& visit) const {
  const real r2 = radius * radius;
  const auto cx = static_cast<std::int32_t>(std::floor(p.x * inv_cell_x_));
  const auto cy = static_cast<std::int32_t>(std::floor(p.y * inv_cell_y_));
  std::int32_t examined = 0;
  // The up-to-3 distinct columns and rows to visit. With wrap and fewer than 3 cells on an
  // axis, every cell of that axis is visited exactly once.
  std::int32_t xs[3], ys[3], sides[3];
  const std::int32_t nx = neighbour_cells(cx, cols_, xs, sides);
  const std::int32_t ny = neighbour_cells(cy, rows_, ys, sides);
  for (std::int32_t b = 0; b < ny; ++b) {
    for (std::int32_t a = 0; a < nx; ++a) {
      const std::int32_t cell = ys[b] * cols_ + xs[a];
      for (std::int32_t k = cell_start_[cell]; k < cell_start_[cell + 1]; ++k) {
        const std::int32_t j = items_[k];
        if (j == self) continue;
        ++examined;
        const Vec2 d = wrap_ ? math::torus_delta(p, positions[j], width_, height_) : positions[j] - p;
        const real d2 = math::length_sq(d);
        if (d2 <= r2) visit(j, d, d2);
      }
    }
  }
  return examined;
}

template <class Visitor>
void Grid::query_slots(Vec2 p, real radius, std::int32_t self_slot, std::span<const Vec2> positions,
                       Visitor&& visit) const {
  const real r2 = radius * radius;
  behavior::SlotRange range[kMaxSlotRanges];
  const std::int32_t ranges = slot_ranges(p, range);
  for (std::int32_t r = 0; r < ranges; ++r) {
    const std::int32_t begin = range[r].begin;
    const std::int32_t end = range[r].end;
    {
      // Two passes per block: distances for every slot with the hits compacted branch-free into
      // a small buffer (whether a slot is inside the radius is a coin flip the branch predictor
      // loses), then the visitor over the hits, in slot order as before.
      for (std::int32_t block = begin; block < end; block += kQueryBlock) {
        const std::int32_t stop = block + kQueryBlock < end ? block + kQueryBlock : end;
        std::int32_t hit_slot[kQueryBlock];
        real hit_x[kQueryBlock], hit_y[kQueryBlock], hit_d2[kQueryBlock];
        std::int32_t hits = 0;
        for (std::int32_t k = block; k < stop; ++k) {
          const Vec2 q = positions[static_cast<std::size_t>(items_[k])];
          const Vec2 d = wrap_ ? math::torus_delta(p, q, width_, height_) : q - p;
          const real d2 = math::length_sq(d);
          hit_slot[hits] = k;
          hit_x[hits] = d.x;
          hit_y[hits] = d.y;
          hit_d2[hits] = d2;
          hits += static_cast<std::int32_t>((d2 <= r2) & (k != self_slot));
        }
        for (std::int32_t h = 0; h < hits; ++h) visit(hit_slot[h], Vec2{hit_x[h], hit_y[h]}, hit_d2[h]);
      }
    }
  }
}

}  // namespace flockstep::sim
