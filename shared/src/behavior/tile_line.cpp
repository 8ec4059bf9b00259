#include "flockstep/behavior/tile_line.hpp"

namespace flockstep::behavior {
namespace {

std::int64_t abs64(std::int64_t v) { return v < 0 ? -v : v; }

}  // namespace

std::int32_t line_tile_count(Tile start, Tile end) {
  const std::int64_t dr = abs64(std::int64_t{end.row} - start.row);
  const std::int64_t dc = abs64(std::int64_t{end.col} - start.col);
  return static_cast<std::int32_t>((dr > dc ? dr : dc) + 1);
}

std::int32_t rasterize_line(Tile start, Tile end, std::span<Tile> out) {
  const auto capacity = static_cast<std::int64_t>(out.size());
  if (capacity == 0) return 0;

  // 64-bit error terms: the doubled deltas of extreme int32 coordinates would overflow 32 bits.
  std::int64_t delta_row = std::int64_t{end.row} - start.row;
  std::int64_t delta_col = std::int64_t{end.col} - start.col;
  const std::int32_t step_row = delta_row < 0 ? -1 : 1;
  const std::int32_t step_col = delta_col < 0 ? -1 : 1;
  delta_row = abs64(delta_row * 2);  // DR
  delta_col = abs64(delta_col * 2);  // DC

  Tile next = start;
  std::int64_t written = 0;
  out[static_cast<std::size_t>(written++)] = next;

  if (delta_col > delta_row) {
    // Column-major: one column per step; the seed's initial error 2*DR - DC (with DR, DC
    // already doubled) is what makes the row change one step early (see header).
    std::int64_t fraction = delta_row * 2 - delta_col;
    while (next.col != end.col && written < capacity) {
      if (fraction >= 0) {
        next.row += step_row;
        fraction -= delta_col;
      }
      next.col += step_col;
      fraction += delta_row;
      out[static_cast<std::size_t>(written++)] = next;
    }
  } else {
    // Row-major, also covering exact diagonals and start == end (only the start is stored).
    std::int64_t fraction = delta_col * 2 - delta_row;
    while (next.row != end.row && written < capacity) {
      if (fraction >= 0) {
        next.col += step_col;
        fraction -= delta_row;
      }
      next.row += step_row;
      fraction += delta_col;
      out[static_cast<std::size_t>(written++)] = next;
    }
  }
  return static_cast<std::int32_t>(written);
}

}  // namespace flockstep::behavior
