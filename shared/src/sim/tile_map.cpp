// The tile map's side of the tile model (tile_map.hpp): validation, the tables built once from a
// scenario (T26 patterns, T28 track matrices) and the map's geometry. The per-tick rules are the
// stages of stage_tile.cpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "tile_map.hpp"

namespace flockstep::sim {

using behavior::Tile;

namespace {

bool is_tile_technique(Technique t) {
  return t == Technique::kTilePatrol || t == Technique::kTileTrack || t == Technique::kTileChase;
}

std::string tile_text(Tile t) { return "(" + std::to_string(t.row) + ", " + std::to_string(t.col) + ")"; }

bool on_map(const TileMapSpec& m, Tile t) { return t.row >= 0 && t.col >= 0 && t.row < m.rows && t.col < m.cols; }

/// Every tile of the T22 line a -> b (inclusive).
std::vector<Tile> line_tiles(Tile a, Tile b) {
  std::vector<Tile> out(static_cast<std::size_t>(behavior::line_tile_count(a, b)));
  out.resize(static_cast<std::size_t>(behavior::rasterize_line(a, b, out)));
  return out;
}

/// A checked tile for error messages: on the map and free, else a message.
std::string check_tile(const TileMapSpec& m, Tile t, const std::string& field) {
  if (!on_map(m, t)) return field + ": tile " + tile_text(t) + " is off the tile map";
  if (!tile_free_on(m, t)) return field + ": tile " + tile_text(t) + " is blocked";
  return {};
}

}  // namespace

bool tile_free_on(const TileMapSpec& m, Tile t) {
  return on_map(m, t) && m.blocked[static_cast<std::size_t>(t.row) * static_cast<std::size_t>(m.cols) +
                                   static_cast<std::size_t>(t.col)] == 0;
}

std::string validate_tiles(const Scenario& s) {
  const TileMapSpec& m = s.tiles;
  if (m.cols < 0 || m.cols > kMaxTileMapSide) return "tiles.cols: must be in 0..256";
  if (m.rows < 0 || m.rows > kMaxTileMapSide) return "tiles.rows: must be in 0..256";
  if ((m.cols == 0) != (m.rows == 0)) return "tiles.rows: cols and rows must both be 0 (no tile map) or both > 0";
  if (!(m.cell > 0) || !math::is_finite(m.cell)) return "tiles.cell: must be > 0";
  const bool has_map = m.cols > 0;
  if (has_map) {
    if (m.cols * m.cell > s.width) return "tiles.cols: cols * cell must be <= width";
    if (m.rows * m.cell > s.height) return "tiles.rows: rows * cell must be <= height";
  }
  if (m.blocked.size() != static_cast<std::size_t>(m.cols) * static_cast<std::size_t>(m.rows))
    return "tiles.blocked: must hold cols * rows entries";
  for (std::size_t k = 0; k < m.blocked.size(); ++k)
    if (m.blocked[k] > 1) return "tiles.blocked[" + std::to_string(k) + "]: must be 0 or 1";
  for (std::size_t i = 0; i < s.tile_patterns.size(); ++i) {
    const TilePatternSpec& p = s.tile_patterns[i];
    const std::string f = "tile_patterns[" + std::to_string(i) + "]";
    if (!has_map) return f + ": needs a tile map (tiles)";
    if (p.vertices.size() < 2) return f + ".vertices: needs at least 2 vertices";
    for (std::size_t k = 0; k < p.vertices.size(); ++k)
      if (p.vertices[k][0] < 0 || p.vertices[k][1] < 0)
        return f + ".vertices[" + std::to_string(k) + "]: row and col must be >= 0";
    if (p.vertices.front() != p.vertices.back()) return f + ".vertices: the last vertex must equal the first (a loop)";
    std::int64_t entries = 0;
    const Tile first{p.vertices[0][0], p.vertices[0][1]};
    for (std::size_t k = 0; k + 1 < p.vertices.size(); ++k) {
      const Tile a{p.vertices[k][0], p.vertices[k][1]}, b{p.vertices[k + 1][0], p.vertices[k + 1][1]};
      entries += behavior::line_tile_count(a, b);
      if (entries > behavior::kMaxPathLength)
        return f + ".vertices: more than " + std::to_string(behavior::kMaxPathLength) + " pattern entries";
      for (const Tile t : line_tiles(a, b)) {
        const Tile world{p.row_offset + t.row - first.row, p.col_offset + t.col - first.col};
        if (std::string why = check_tile(m, world, f); !why.empty())
          return why + " (vertex " + std::to_string(k) + " + offset)";
      }
    }
  }
  for (std::size_t i = 0; i < s.tracks.size(); ++i) {
    const TrackSpec& t = s.tracks[i];
    const std::string f = "tracks[" + std::to_string(i) + "]";
    if (!has_map) return f + ": needs a tile map (tiles)";
    if (t.segments.empty()) return f + ".segments: needs at least 1 segment";
    for (std::size_t k = 0; k < t.segments.size(); ++k) {
      const auto& sg = t.segments[k];
      for (const Tile tile : line_tiles({sg[0], sg[1]}, {sg[2], sg[3]}))
        if (std::string why = check_tile(m, tile, f + ".segments[" + std::to_string(k) + "]"); !why.empty()) return why;
    }
  }
  bool any_free = false;
  for (const std::uint8_t b : m.blocked) any_free = any_free || b == 0;
  for (std::size_t gi = 0; gi < s.groups.size(); ++gi) {
    const GroupSpec& g = s.groups[gi];
    const std::string p = "groups[" + std::to_string(gi) + "]";
    if (!(g.tile_speed > 0 && g.tile_speed <= s.tick_rate_hz)) return p + ".tile_speed: must be in (0, tick_rate_hz]";
    if (!(g.chase_range >= 0) || !math::is_finite(g.chase_range)) return p + ".chase_range: must be >= 0";
    if (g.tile_pattern < -1 || g.tile_pattern >= static_cast<std::int32_t>(s.tile_patterns.size()))
      return p + ".tile_pattern: must name an existing tile pattern";
    if (g.track < -1 || g.track >= static_cast<std::int32_t>(s.tracks.size()))
      return p + ".track: must name an existing track";
    if (!is_tile_technique(g.technique)) continue;
    if (!has_map) return p + ".technique: tile techniques need a tile map (tiles)";
    if (g.technique == Technique::kTilePatrol && g.tile_pattern < 0)
      return p + ".tile_pattern: must name an existing tile pattern";
    if (g.technique == Technique::kTileTrack && g.track < 0) return p + ".track: must name an existing track";
    if (g.technique == Technique::kTileChase && !any_free)
      return "tiles.blocked: tile_chase needs at least one free tile";
  }
  return {};
}

behavior::TilePathPattern build_tile_pattern(const TilePatternSpec& spec) {
  std::vector<Tile> vertices;
  for (const auto& v : spec.vertices) vertices.push_back({v[0], v[1]});
  behavior::TilePathPattern p;
  behavior::build_path_pattern(p, vertices);  // T26: build segments, normalise
  p.row_offset = spec.row_offset;
  p.col_offset = spec.col_offset;
  return p;
}

std::vector<std::uint8_t> build_track_cells(const TrackSpec& track, const TileMapSpec& m) {
  std::vector<std::uint8_t> cells(static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols), 0);
  for (const auto& sg : track.segments)  // T28: mark each T22 line with 1s
    behavior::mark_track_segment({cells.data(), m.rows, m.cols}, {sg[0], sg[1]}, {sg[2], sg[3]});
  return cells;
}

Vec2 tile_centre_on(const TileMapSpec& m, Tile t) {
  return {(t.col + real(0.5)) * m.cell, (t.row + real(0.5)) * m.cell};
}

Tile tile_under(const TileMapSpec& m, Vec2 p) {
  const real fc = std::floor(p.x / m.cell), fr = std::floor(p.y / m.cell);
  // Clamp in real arithmetic first: a far-away (or non-finite) point never overflows the cast.
  const real c = fc >= 0 ? (fc < m.cols ? fc : m.cols - 1) : 0;
  const real r = fr >= 0 ? (fr < m.rows ? fr : m.rows - 1) : 0;
  return {static_cast<std::int32_t>(r), static_cast<std::int32_t>(c)};
}

}  // namespace flockstep::sim
