// Tile techniques of the World (T22, T26-T28): agents that walk tile by tile on the scenario's
// tile map, moving smoothly between tile centres at tile_speed steps per second.
//  * kTilePatrol: the T26 pattern executed with T27 (one entry per step); a player (or an agent
//    of target_group) within chase_range stops the pattern (T27 break-out) and the agent chases
//    it with T22 steps; when it is gone the agent walks back (T22) to the pattern tile it left
//    and resumes from there.
//  * kTileTrack: T28 track matrix with uniform random choice at junctions (agent's own stream).
//  * kTileChase: T22 line-of-sight chase of the nearest player / target_group agent.
// Blocked tiles are never entered: when the next T22 tile is blocked (or a diagonal step would
// cut a blocked corner) the agent steps to the free neighbour nearest the goal instead.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "world_impl.hpp"
#include "stage_tile.hpp"
#include "world_tiles.hpp"

namespace flockstep::sim {

using behavior::Tile;

namespace {

/// Largest tile map side: keeps the per-step line buffer small (the sim also runs as wasm, with
/// a small stack).
constexpr std::int32_t kMaxTileMapSide = 256;

bool is_tile_technique(Technique t) {
  return t == Technique::kTilePatrol || t == Technique::kTileTrack || t == Technique::kTileChase;
}

std::string tile_text(Tile t) { return "(" + std::to_string(t.row) + ", " + std::to_string(t.col) + ")"; }

bool on_map(const TileMapSpec& m, Tile t) { return t.row >= 0 && t.col >= 0 && t.row < m.rows && t.col < m.cols; }

bool free_on(const TileMapSpec& m, Tile t) {
  return on_map(m, t) && m.blocked[static_cast<std::size_t>(t.row) * static_cast<std::size_t>(m.cols) +
                                   static_cast<std::size_t>(t.col)] == 0;
}

/// Every tile of the T22 line a -> b (inclusive).
std::vector<Tile> line_tiles(Tile a, Tile b) {
  std::vector<Tile> out(static_cast<std::size_t>(behavior::line_tile_count(a, b)));
  out.resize(static_cast<std::size_t>(behavior::rasterize_line(a, b, out)));
  return out;
}

/// A checked tile for error messages: on the map and free, else a message.
std::string check_tile(const TileMapSpec& m, Tile t, const std::string& field) {
  if (!on_map(m, t)) return field + ": tile " + tile_text(t) + " is off the tile map";
  if (!free_on(m, t)) return field + ": tile " + tile_text(t) + " is blocked";
  return {};
}

}  // namespace

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

void WorldImpl::build_tiles() {
  tile_patterns_.clear();
  // T26 runs here, once per pattern at load: one count each (the patrol steps count T27).
  for (const TilePatternSpec& spec : scenario_.tile_patterns) tile_patterns_.push_back(build_tile_pattern(spec));
  technique_counts_[25] += static_cast<std::int64_t>(tile_patterns_.size());
  track_cells_.clear();
  for (const TrackSpec& t : scenario_.tracks) track_cells_.push_back(build_track_cells(t, scenario_.tiles));
}

bool WorldImpl::tile_free(Tile t) const { return free_on(scenario_.tiles, t); }

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

Vec2 WorldImpl::tile_centre(Tile t) const { return tile_centre_on(scenario_.tiles, t); }

Tile WorldImpl::tile_at(Vec2 p) const { return tile_under(scenario_.tiles, p); }

void WorldImpl::init_tile_agent(std::int32_t i, std::int32_t k) {
  const GroupSpec& g = scenario_.groups[group_[i]];
  const TileMapSpec& m = scenario_.tiles;
  const std::int32_t n = g.count > 0 ? g.count : 1;
  TileState ts;
  Tile start{};
  switch (g.technique) {
    case Technique::kTilePatrol: {
      // Agents of a group share the pattern, spread evenly along it (agent 0 on the anchor).
      const behavior::TilePathPattern& p = tile_patterns_[static_cast<std::size_t>(g.tile_pattern)];
      behavior::start_patrol(ts.patrol, p, behavior::pattern_anchor(p));
      const std::int32_t entries = behavior::path_entry_count(p);
      ts.patrol.index = static_cast<std::int32_t>((static_cast<std::int64_t>(k % n) * entries) / n);
      const Tile e = behavior::path_entry(p, ts.patrol.index);
      ts.patrol.tile = {p.row_offset + e.row, p.col_offset + e.col};
      start = ts.patrol.tile;
      break;
    }
    case Technique::kTileTrack: {
      // Spread over the track's tiles in row-major order.
      const std::vector<std::uint8_t>& cells = track_cells_[static_cast<std::size_t>(g.track)];
      std::int32_t on = 0;
      for (const std::uint8_t c : cells) on += c;
      std::int32_t want = static_cast<std::int32_t>((static_cast<std::int64_t>(k % n) * on) / n);
      for (std::size_t c = 0; c < cells.size(); ++c) {
        if (cells[c] == 0) continue;
        if (want-- == 0) {
          start = {static_cast<std::int32_t>(c / static_cast<std::size_t>(m.cols)),
                   static_cast<std::int32_t>(c % static_cast<std::size_t>(m.cols))};
          break;
        }
      }
      break;
    }
    default: {
      // The free tile nearest the random spawn point (Chebyshev rings, table order within a ring).
      const Tile want = tile_at(position_[i]);
      start = want;
      const std::int32_t max_ring = std::max(m.rows, m.cols);
      bool found = false;
      for (std::int32_t ring = 0; ring <= max_ring && !found; ++ring)
        for (std::int32_t dr = -ring; dr <= ring && !found; ++dr)
          for (std::int32_t dc = -ring; dc <= ring && !found; ++dc) {
            if (std::max(dr < 0 ? -dr : dr, dc < 0 ? -dc : dc) != ring) continue;
            const Tile t{want.row + dr, want.col + dc};
            if (tile_free(t)) {
              start = t;
              found = true;
            }
          }
      break;
    }
  }
  ts.from = ts.to = start;
  ts.progress = 1;  // decide the first step on the first tick
  tile_[i] = ts;
  position_[i] = tile_centre(start);
  velocity_[i] = {};
  angular_velocity_[i] = 0;
}

std::int32_t WorldImpl::tile_target(std::int32_t i, real range, real* distance) const {
  if (distance) *distance = math::kInfinity;
  if (!(range > 0)) return -1;
  real d = math::kInfinity;
  // The nearest player, or the nearest live agent of target_group when the group sets one.
  const std::int32_t j = nearest_target(scenario_.groups[static_cast<std::size_t>(group_[i])], i, position_[i], &d);
  if (j < 0 || d > range) return -1;
  if (distance) *distance = d;
  return j;
}

Tile WorldImpl::tile_step_toward(TileState& ts, Tile goal, bool* by_line) const {
  if (by_line) *by_line = false;
  const Tile from = ts.from;
  if (from == goal) return from;
  auto corner_cut = [&](Tile a, Tile b) {
    // A diagonal step may not squeeze between blocked tiles: both orthogonal neighbours must be free.
    return a.row != b.row && a.col != b.col && (!tile_free({a.row, b.col}) || !tile_free({b.row, a.col}));
  };
  // T22: keep walking the line computed when the goal last changed (the seed's path arrays),
  // as long as the rest of it is clear: line of sight to the goal.
  if (!(goal == ts.line_goal)) {
    ts.line_origin = from;
    ts.line_goal = goal;
    ts.line_step = 0;
  }
  constexpr std::int32_t kLineCapacity = kMaxTileMapSide + 1;  // longest line on the largest map
  Tile line[kLineCapacity];
  const std::int32_t n = behavior::rasterize_line(ts.line_origin, goal, std::span<Tile>(line, kLineCapacity));
  if (ts.line_step + 1 < n && line[ts.line_step] == from) {
    bool clear = true;
    for (std::int32_t k = ts.line_step + 1; k < n && clear; ++k)
      clear = tile_free(line[k]) && !corner_cut(line[k - 1], line[k]);
    if (clear) {
      ++ts.line_step;
      if (by_line) *by_line = true;
      return line[ts.line_step];
    }
  }
  // No line of sight: one step along a shortest 8-connected path (no corner cutting), found by a
  // breadth-first search in a window around the agent, toward the goal or, if it is outside the
  // window or unreachable, toward the reached tile nearest to it. The line restarts afterwards.
  ts.line_goal = {-1, -1};
  constexpr std::int32_t kR = 16, kW = 2 * kR + 1;  // 33 x 33 tiles, ~4 KB of stack
  std::int16_t parent[kW * kW];
  std::int16_t queue[kW * kW];
  std::fill(parent, parent + kW * kW, std::int16_t{-1});
  auto cell_of = [&](Tile t) { return (t.row - from.row + kR) * kW + (t.col - from.col + kR); };
  auto tile_of_cell = [&](std::int32_t c) { return Tile{from.row - kR + c / kW, from.col - kR + c % kW}; };
  auto h = [&](Tile t) {
    const std::int64_t dr = goal.row - t.row, dc = goal.col - t.col;
    return dr * dr + dc * dc;
  };
  const std::int32_t start = cell_of(from);
  parent[start] = static_cast<std::int16_t>(start);
  std::int32_t head = 0, tail = 0;
  queue[tail++] = static_cast<std::int16_t>(start);
  std::int32_t best = start;
  std::int64_t best_h = h(from);
  while (head < tail) {
    const std::int32_t c = queue[head++];
    const Tile t = tile_of_cell(c);
    if (t == goal) {
      best = c;
      break;
    }
    if (const std::int64_t ht = h(t); ht < best_h) {
      best_h = ht;
      best = c;
    }
    for (std::size_t k = 0; k < 8; ++k) {
      const Tile u{t.row + behavior::kNeighborRowOffsets[k], t.col + behavior::kNeighborColOffsets[k]};
      if (u.row < from.row - kR || u.row > from.row + kR || u.col < from.col - kR || u.col > from.col + kR) continue;
      const std::int32_t cu = cell_of(u);
      if (parent[cu] >= 0 || !tile_free(u) || corner_cut(t, u)) continue;
      parent[cu] = static_cast<std::int16_t>(c);
      queue[tail++] = static_cast<std::int16_t>(cu);
    }
  }
  if (best == start) return from;  // nowhere closer to go: wait
  std::int32_t c = best;
  while (parent[c] != start) c = parent[c];
  return tile_of_cell(c);
}

void WorldImpl::next_tile(std::int32_t i, TileState& ts, Tally& tally) {
  const GroupSpec& g = scenario_.groups[group_[i]];
  const TileMapSpec& m = scenario_.tiles;
  switch (g.technique) {
    case Technique::kTilePatrol: {
      const behavior::TilePathPattern& p = tile_patterns_[static_cast<std::size_t>(g.tile_pattern)];
      const Tile anchor = behavior::pattern_anchor(p);
      const std::int32_t j = tile_target(i, g.chase_range, nullptr);
      if (ts.mode == 2 && ts.from == ts.patrol.tile && j < 0) {
        ts.mode = 0;  // back on the pattern tile it left: resume (T27)
        ts.patrol.patrolling = true;
      }
      if (ts.mode == 0) {
        // T27 one entry per step; an enemy in range stops the pattern on this step. (The pattern
        // itself, T26, was built once at load: build_tiles counts it there.)
        tally.add(27);
        if (behavior::patrol_step(ts.patrol, p, anchor, j >= 0)) {
          ts.to = ts.patrol.tile;
          ts.target = {};
          return;
        }
        ts.mode = 1;
      }
      if (j >= 0) {
        ts.mode = 1;
        ts.target = id_[j];
        bool by_line = false;
        ts.to = tile_step_toward(ts, tile_at(position_[i] + delta(position_[i], position_[j])), &by_line);
        if (by_line) tally.add(22);  // the break-out chase, on its line of sight
      } else {
        ts.mode = 2;  // the enemy is gone: walk back to the pattern tile it left
        ts.target = {};
        ts.to = tile_step_toward(ts, ts.patrol.tile);
      }
      return;
    }
    case Technique::kTileTrack: {
      // T28 FollowPattern on this track's map-sized matrix, with the agent's own stream (only
      // it draws from it). steer_tile keeps `previous` itself, on arrival.
      const std::vector<std::uint8_t>& cells = track_cells_[static_cast<std::size_t>(g.track)];
      ts.to = next_track_tile(ts.from, ts.previous, {cells.data(), m.rows, m.cols}, rng_[i]);
      tally.add(28);
      return;
    }
    default: {
      const std::int32_t j = tile_target(i, math::kInfinity, nullptr);
      if (j < 0) {
        ts.target = {};
        ts.to = ts.from;
        return;
      }
      ts.target = id_[j];
      bool by_line = false;
      ts.to = tile_step_toward(ts, tile_at(position_[i] + delta(position_[i], position_[j])), &by_line);
      if (by_line) tally.add(22);  // not when the breadth-first search found the step
      return;
    }
  }
}

void WorldImpl::steer_tile(std::int32_t i, Tally& tally) {
  const GroupSpec& g = scenario_.groups[group_[i]];
  TileState ts = tile_[i];
  // Arrived on `to`: decide the next step.
  if (advance_tile_step({ts.from, ts.to, ts.previous, ts.progress}, g.tile_speed, dt_)) next_tile(i, ts, tally);
  tile_[i] = ts;
  target_[i] = ts.target;
  aim_[i] = tile_centre(ts.to);
  if (g.technique == Technique::kTileChase)
    state_[i] = ts.target.valid() ? BehaviorState::kSeeking : BehaviorState::kNone;
  else state_[i] = ts.mode == 1 ? BehaviorState::kSeeking : BehaviorState::kPatrolling;
}

void WorldImpl::integrate_tile(std::int32_t i) {
  const TileState& ts = tile_[i];
  const TileMotion m =
      tile_motion(tile_centre(ts.from), tile_centre(ts.to), ts.progress, scenario_.groups[group_[i]].tile_speed);
  position_[i] = m.position;
  velocity_[i] = m.velocity;
  angular_velocity_[i] = 0;
  if (m.moving) {
    heading_[i] = m.heading;
    orientation_[i] = m.orientation;
  }
}

}  // namespace flockstep::sim
