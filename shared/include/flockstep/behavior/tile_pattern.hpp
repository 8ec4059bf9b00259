#pragma once
/// \file tile_pattern.hpp
/// Tile-based patterns (Bourg & Seemann §3.2): the troll's patrol loops.
///  * T26 building a path pattern from T22 line segments and normalising it to relative offsets,
///  * T27 executing it around an anchor tile, one entry per tick, with a break-out event,
///  * T28 a "track" matrix of legal tiles walked with random choice at junctions.
/// All storage is fixed-capacity and caller-owned; per-tick functions do not allocate.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// T26 capacity of a path pattern, entries. The seed names the constant but not its value; 256
/// holds every seed pattern (rectangle 38, back-and-forth 18, complex patrol 76) with room for
/// longer patrols, at 2 KB per pattern.
inline constexpr std::int32_t kMaxPathLength = 256;

/// T26 the "empty" marker in both path arrays. Never a valid absolute tile (top-left is (0,0)).
inline constexpr std::int32_t kPathSentinel = -1;

/// T26 the seed's pattern offsets, used as the default anchor (world tile of relative (0,0)).
inline constexpr Tile kSeedPatternOffset{5, 2};

/// T26 a tile path pattern: parallel row/column arrays terminated by kPathSentinel, as in the seed.
/// Before normalisation the entries are absolute tiles; after it, offsets from entry 0.
struct TilePathPattern {
  std::array<std::int32_t, kMaxPathLength> path_row{};  ///< rows; kPathSentinel = unused
  std::array<std::int32_t, kMaxPathLength> path_col{};  ///< columns; kPathSentinel = unused
  /// Index of the LAST valid entry (the seed's pathSize), so the entry count is path_size + 1.
  /// -1 when empty or not yet normalised.
  std::int32_t path_size = -1;
  std::int32_t row_offset = kSeedPatternOffset.row;  ///< patternRowOffset: anchor row
  std::int32_t col_offset = kSeedPatternOffset.col;  ///< patternColOffset: anchor column
  bool normalized = false;                           ///< set by normalize_pattern; building further segments is refused
};

/// T26 Initialise: fill both arrays with kPathSentinel and reset path_size / normalized.
void initialize_path(TilePathPattern& pattern);

/// T26 the append point: first index where BOTH arrays hold -1 (the corrected search), or
/// kMaxPathLength if full. With seed_literal the seed's erratum is reproduced (it compares the
/// column with +1, which never matches, so the seed's currentStep stays 0): returns 0 unless a
/// (-1, +1) entry exists. Exposed so the erratum's effect can be tested.
std::int32_t path_append_index(const TilePathPattern& pattern, bool seed_literal = false);

/// T26 BuildPathSegment(startRow, startCol, endRow, endCol): rasterise start->end with T22 and
/// append every tile (including the start) at the append point. Absolute tiles must not be
/// (-1, -1), the sentinel (true for every on-map tile). Returns the number of entries
/// written (fewer than the line length if the arrays fill up; 0 once normalised).
std::int32_t build_path_segment(TilePathPattern& pattern, std::int32_t start_row, std::int32_t start_col,
                                std::int32_t end_row, std::int32_t end_col);

/// T26 NormalizePattern: path_size = (index of the first sentinel) - 1, or kMaxPathLength - 1
/// when the arrays are full (erratum: the seed leaves it unset), then subtract entry 0 from
/// entries 0..path_size. Idempotent: a second call does nothing.
void normalize_pattern(TilePathPattern& pattern);

/// T26 convenience: initialise, build one segment between each pair of consecutive vertices
/// (vertices[0]->vertices[1], ...), normalise. Pass the first vertex again at the end for a loop.
/// Returns the entry count (path_size + 1).
std::int32_t build_path_pattern(TilePathPattern& pattern, std::span<const Tile> vertices);

/// T26 entry count of a normalised pattern (path_size + 1; 0 if empty).
inline std::int32_t path_entry_count(const TilePathPattern& p) { return p.path_size + 1; }

/// T26 relative tile of entry index (no bounds wrap; index must be in 0..path_size).
inline Tile path_entry(const TilePathPattern& p, std::int32_t index) {
  return {p.path_row[static_cast<std::size_t>(index)], p.path_col[static_cast<std::size_t>(index)]};
}

/// T26 the anchor the pattern offsets describe.
inline Tile pattern_anchor(const TilePathPattern& p) { return {p.row_offset, p.col_offset}; }

/// T27 per-entity patrol state (caller-owned). Plain fields a viewer can annotate.
struct TilePatrolState {
  std::int32_t index = 0;  ///< current entry of the pattern (0..path_size)
  Tile tile;               ///< current world tile = anchor + entry(index)
  bool patrolling = true;  ///< false once broken out (caller sets it back to resume)
};

/// T27 start (or restart) a patrol at entry 0, i.e. on the anchor tile.
void start_patrol(TilePatrolState& state, const TilePathPattern& pattern, Tile anchor);

/// T27 one tick. If enemy_in_range, the patrol stops on this tick without advancing
/// (patrolling = false) so a higher-level state can chase (T17/T22); returns false. Otherwise
/// index = (index + 1) mod (path_size + 1) and tile = anchor + entry(index); returns true.
/// Also returns false (no move) when not patrolling or the pattern is empty.
bool patrol_step(TilePatrolState& state, const TilePathPattern& pattern, Tile anchor, bool enemy_in_range);

/// T28 track matrix size. 32 x 32 covers the seed track (rows 3..16, cols 2..11) with margin.
inline constexpr std::int32_t kMaxTrackRows = 32;
inline constexpr std::int32_t kMaxTrackCols = 32;

/// T28 a read-only view of a track matrix of any size: rows x cols cells, row-major, 1 = legal
/// tile. Outside the matrix counts as 0 (bounds are checked, so no one-tile border is needed).
/// The world walks its own map-sized matrices through it; TileTrack converts to it.
struct TrackView {
  const std::uint8_t* cells = nullptr;  ///< rows * cols entries
  std::int32_t rows = 0;
  std::int32_t cols = 0;
};

/// T28 a writable view of a track matrix of any size (rows x cols, row-major): what
/// mark_track_segment fills. The world marks its map-sized matrices through it.
struct TrackCells {
  std::uint8_t* cells = nullptr;  ///< rows * cols entries
  std::int32_t rows = 0;
  std::int32_t cols = 0;
};

/// T28 the pattern matrix (fixed size, for the seed's track): 1 = legal tile, 0 = not.
struct TileTrack {
  std::array<std::uint8_t, kMaxTrackRows * kMaxTrackCols> cells{};  ///< row-major, 0 or 1
  constexpr operator TrackView() const { return {cells.data(), kMaxTrackRows, kMaxTrackCols}; }
  constexpr operator TrackCells() { return {cells.data(), kMaxTrackRows, kMaxTrackCols}; }
};

/// T28 clear the matrix to 0.
void clear_track(TileTrack& track);

/// T28 mark the T22 line from start to end (inclusive) with 1s. Tiles outside the matrix are
/// skipped; lines longer than kMaxPathLength tiles are truncated. Returns the number of tiles
/// newly marked (already-marked tiles do not count).
std::int32_t mark_track_segment(TrackCells track, Tile start, Tile end);

/// T28 true if t is inside the matrix and marked 1.
bool on_track(TrackView track, Tile t);

/// T28 number of tiles marked 1.
std::int32_t track_tile_count(const TileTrack& track);

/// T28 neighbour table, upper-left first: row offsets {-1,-1,-1,0,0,1,1,1}, column offsets
/// {-1,0,1,-1,1,-1,0,1}.
inline constexpr std::array<std::int32_t, 8> kNeighborRowOffsets{-1, -1, -1, 0, 0, 1, 1, 1};
inline constexpr std::array<std::int32_t, 8> kNeighborColOffsets{-1, 0, 1, -1, 1, -1, 0, 1};

/// T28 candidate moves: the 8-neighbours of current (in table order) that are on the track,
/// excluding previous. Writes at most 8 tiles to out; returns how many.
std::int32_t track_candidates(TrackView track, Tile current, Tile previous, std::span<Tile, 8> out);

/// T28 per-entity track state (caller-owned). previous starts at (-1, -1): no tile yet.
struct TrackFollower {
  Tile current;                      ///< current tile
  Tile previous{-1, -1};             ///< tile just left; excluded from the next choice
  std::int32_t candidate_count = 0;  ///< candidates seen on the last step (viewer: junction marker)
  bool dead_end = false;             ///< last step used the dead-end fallback
};

/// T28 FollowPattern: pick uniformly among the candidates (rng is drawn only when there are 2 or
/// more, so straight runs consume no randomness), then previous = current, current = chosen.
/// Dead end (no candidates): fall back to the previous tile if it is on the track, otherwise stay
/// put (the seed would call Rnd(0, -1)). Returns the new current tile.
Tile follow_track(TrackFollower& follower, TrackView track, Rng& rng);

}  // namespace flockstep::behavior
