#pragma once
/// \file tile_line.hpp
/// T22 tile line rasteriser: the Bresenham variant Bourg uses for line-of-sight chase on tiles
/// (Example 2-7) and for building tile path patterns (Example 3-5, T26/T28).
///
/// The variant doubles both deltas and starts the error at e = 2*DR - DC (DR, DC already
/// doubled). Measured property (catalog T22): after k major-axis steps the minor-axis offset is
/// floor((k+1) * dMinor / dMajor), one step "early" compared with textbook midpoint Bresenham.
/// Example: (0,0) -> (1,8) visits columns 0..8 and the row changes to 1 at column 7. The line
/// always ends exactly on the end tile.
#include <cstdint>
#include <span>

namespace flockstep::behavior {

/// A tile coordinate: row (down the grid) and column. The top-left tile is (0, 0).
struct Tile {
  std::int32_t row = 0;  ///< tile row
  std::int32_t col = 0;  ///< tile column
  friend constexpr bool operator==(Tile, Tile) = default;
};

/// T22 number of tiles the rasteriser produces from start to end inclusive:
/// max(|dRow|, |dCol|) + 1.
std::int32_t line_tile_count(Tile start, Tile end);

/// T22 rasterise from start to end inclusive into out; returns the number of tiles written
/// (stops at out.size()). out[0] is start; if out is large enough (line_tile_count) the last
/// written tile is end. Consecutive tiles are 8-adjacent and both coordinates are monotone.
/// No allocation; callable every tick.
std::int32_t rasterize_line(Tile start, Tile end, std::span<Tile> out);

}  // namespace flockstep::behavior
