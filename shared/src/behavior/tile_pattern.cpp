#include "flockstep/behavior/tile_pattern.hpp"

namespace flockstep::behavior {
void initialize_path(TilePathPattern& pattern) {
  pattern.path_row.fill(kPathSentinel);
  pattern.path_col.fill(kPathSentinel);
  pattern.path_size = -1;
  pattern.normalized = false;
}

std::int32_t path_append_index(const TilePathPattern& pattern, bool seed_literal) {
  // The seed compares the column with 1 (Part J 1); the corrected search wants -1 in both.
  const std::int32_t col_marker = seed_literal ? 1 : kPathSentinel;
  for (std::int32_t i = 0; i < kMaxPathLength; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (pattern.path_row[k] == kPathSentinel && pattern.path_col[k] == col_marker) return i;
  }
  // Not found: the seed's currentStep keeps its initial 0; the corrected search reports "full".
  return seed_literal ? 0 : kMaxPathLength;
}

std::int32_t build_path_segment(TilePathPattern& pattern, std::int32_t start_row, std::int32_t start_col,
                                std::int32_t end_row, std::int32_t end_col) {
  if (pattern.normalized) return 0;  // relative entries may contain -1; appending would corrupt them
  const std::int32_t at = path_append_index(pattern, false);
  if (at >= kMaxPathLength) return 0;
  // Rasterise into a local buffer, then copy into the two parallel arrays. Capacity is what is
  // left, so a too-long segment is truncated instead of overflowing (the seed does not check).
  std::array<Tile, kMaxPathLength> line{};
  const std::int32_t room = kMaxPathLength - at;
  const std::int32_t n = rasterize_line({start_row, start_col}, {end_row, end_col},
                                        std::span<Tile>(line.data(), static_cast<std::size_t>(room)));
  for (std::int32_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(at + i);
    pattern.path_row[k] = line[static_cast<std::size_t>(i)].row;
    pattern.path_col[k] = line[static_cast<std::size_t>(i)].col;
  }
  return n;
}

void normalize_pattern(TilePathPattern& pattern) {
  if (pattern.normalized) return;
  // pathSize = last valid index. The corrected search returns kMaxPathLength when full, which
  // gives kMaxPathLength - 1 (the seed leaves pathSize unset in that case, Part J 4).
  pattern.path_size = path_append_index(pattern, false) - 1;
  pattern.normalized = true;
  if (pattern.path_size < 0) return;
  const std::int32_t row0 = pattern.path_row[0];
  const std::int32_t col0 = pattern.path_col[0];
  for (std::int32_t i = 0; i <= pattern.path_size; ++i) {
    const auto k = static_cast<std::size_t>(i);
    pattern.path_row[k] -= row0;
    pattern.path_col[k] -= col0;
  }
}

std::int32_t build_path_pattern(TilePathPattern& pattern, std::span<const Tile> vertices) {
  initialize_path(pattern);
  for (std::size_t i = 1; i < vertices.size(); ++i) {
    build_path_segment(pattern, vertices[i - 1].row, vertices[i - 1].col, vertices[i].row, vertices[i].col);
  }
  normalize_pattern(pattern);
  return path_entry_count(pattern);
}

void start_patrol(TilePatrolState& state, const TilePathPattern& pattern, Tile anchor) {
  state.index = 0;
  state.patrolling = true;
  const Tile rel = pattern.path_size >= 0 ? path_entry(pattern, 0) : Tile{};
  state.tile = {anchor.row + rel.row, anchor.col + rel.col};
}

bool patrol_step(TilePatrolState& state, const TilePathPattern& pattern, Tile anchor, bool enemy_in_range) {
  if (enemy_in_range) {
    state.patrolling = false;  // break out on this very tick: no advance
    return false;
  }
  if (!state.patrolling || pattern.path_size < 0) return false;
  const std::int32_t count = pattern.path_size + 1;
  state.index = (state.index + 1) % count;
  if (state.index < 0) state.index += count;  // caller-edited negative index
  const Tile rel = path_entry(pattern, state.index);
  state.tile = {anchor.row + rel.row, anchor.col + rel.col};
  return true;
}

void clear_track(TileTrack& track) { track.cells.fill(0); }

std::int32_t mark_track_segment(TrackCells track, Tile start, Tile end) {
  // Any line that lies inside a matrix of up to kMaxPathLength rows and columns (the seed's
  // 32 x 32, or a world's map of up to 256 x 256) has at most kMaxPathLength tiles. Longer lines
  // are truncated after that many tiles and clipped to the matrix.
  std::array<Tile, kMaxPathLength> line{};
  const std::int32_t n = rasterize_line(start, end, line);
  std::int32_t marked = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    const Tile t = line[static_cast<std::size_t>(i)];
    if (t.row < 0 || t.col < 0 || t.row >= track.rows || t.col >= track.cols) continue;
    std::uint8_t& cell = track.cells[static_cast<std::size_t>(t.row) * static_cast<std::size_t>(track.cols) +
                                     static_cast<std::size_t>(t.col)];
    if (cell == 0) ++marked;
    cell = 1;
  }
  return marked;
}

bool on_track(TrackView track, Tile t) {
  if (t.row < 0 || t.col < 0 || t.row >= track.rows || t.col >= track.cols) return false;
  return track.cells[static_cast<std::size_t>(t.row) * static_cast<std::size_t>(track.cols) +
                     static_cast<std::size_t>(t.col)] == 1;
}

std::int32_t track_tile_count(const TileTrack& track) {
  std::int32_t count = 0;
  for (const std::uint8_t c : track.cells) count += c == 1 ? 1 : 0;
  return count;
}

std::int32_t track_candidates(TrackView track, Tile current, Tile previous, std::span<Tile, 8> out) {
  std::int32_t n = 0;
  for (std::size_t k = 0; k < 8; ++k) {
    const Tile t{current.row + kNeighborRowOffsets[k], current.col + kNeighborColOffsets[k]};
    // Excluding the tile just left is what stops the seed's back-and-forth jitter.
    if (t == previous || !on_track(track, t)) continue;
    out[static_cast<std::size_t>(n++)] = t;
  }
  return n;
}

Tile follow_track(TrackFollower& follower, TrackView track, Rng& rng) {
  std::array<Tile, 8> candidates{};
  const std::int32_t n = track_candidates(track, follower.current, follower.previous, candidates);
  follower.candidate_count = n;
  follower.dead_end = n == 0;
  Tile next = follower.current;
  if (n == 1) {
    next = candidates[0];
  } else if (n > 1) {
    next = candidates[static_cast<std::size_t>(rng.range(0, n - 1))];
  } else if (on_track(track, follower.previous)) {
    next = follower.previous;  // dead end: turn back (the seed would call Rnd(0, -1))
  } else {
    return follower.current;  // isolated tile and no history: stay, keep previous as is
  }
  follower.previous = follower.current;
  follower.current = next;
  return next;
}

}  // namespace flockstep::behavior
