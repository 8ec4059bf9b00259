// The tile model's stages (stage_tile.hpp): how a walker starts, decides its next tile and moves.
#include "stage_tile.hpp"

#include <algorithm>

#include "flockstep/math/angle.hpp"
#include "tile_map.hpp"

namespace flockstep::sim {

using behavior::Tile;

TileTables TileTables::build(const Scenario& s) {
  TileTables t;
  for (const TilePatternSpec& spec : s.tile_patterns) t.patterns.push_back(build_tile_pattern(spec));
  for (const TrackSpec& track : s.tracks) t.track_cells.push_back(build_track_cells(track, s.tiles));
  return t;
}

void start_tile_walker(const TileMapSpec& m, const TileTables& tables, const GroupSpec& g, std::int32_t k,
                       TileWalkerRef w) {
  const std::int32_t n = g.count > 0 ? g.count : 1;
  TileState ts;
  Tile start{};
  switch (g.technique) {
    case Technique::kTilePatrol: {
      // Agents of a group share the pattern, spread evenly along it (agent 0 on the anchor).
      const behavior::TilePathPattern& p = tables.patterns[static_cast<std::size_t>(g.tile_pattern)];
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
      const std::vector<std::uint8_t>& cells = tables.track_cells[static_cast<std::size_t>(g.track)];
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
      const Tile want = tile_under(m, w.position);
      start = want;
      const std::int32_t max_ring = std::max(m.rows, m.cols);
      bool found = false;
      for (std::int32_t ring = 0; ring <= max_ring && !found; ++ring)
        for (std::int32_t dr = -ring; dr <= ring && !found; ++dr)
          for (std::int32_t dc = -ring; dc <= ring && !found; ++dc) {
            if (std::max(dr < 0 ? -dr : dr, dc < 0 ? -dc : dc) != ring) continue;
            const Tile t{want.row + dr, want.col + dc};
            if (tile_free_on(m, t)) {
              start = t;
              found = true;
            }
          }
      break;
    }
  }
  ts.from = ts.to = start;
  ts.progress = 1;  // decide the first step on the first tick
  w.tile = ts;
  w.position = tile_centre_on(m, start);
  w.velocity = {};
  w.angular_velocity = 0;
}

namespace {

/// T22 the next tile from ts.from toward `goal`: along the line of sight computed when the goal
/// last changed (the seed's path arrays) while the rest of it is clear (`by_line` set), else one
/// step of a shortest 8-connected path found by a breadth-first search in a window around the
/// walker (toward the goal, or the reached tile nearest to it), after which the line restarts.
Tile tile_step_toward(const TileMapSpec& m, TileState& ts, Tile goal, bool* by_line) {
  if (by_line) *by_line = false;
  const Tile from = ts.from;
  if (from == goal) return from;
  auto corner_cut = [&](Tile a, Tile b) {
    // A diagonal step may not squeeze between blocked tiles: both orthogonal neighbours must be free.
    return a.row != b.row && a.col != b.col && (!tile_free_on(m, {a.row, b.col}) || !tile_free_on(m, {b.row, a.col}));
  };
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
      clear = tile_free_on(m, line[k]) && !corner_cut(line[k - 1], line[k]);
    if (clear) {
      ++ts.line_step;
      if (by_line) *by_line = true;
      return line[ts.line_step];
    }
  }
  // No line of sight: the breadth-first step. The line restarts afterwards.
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
      if (parent[cu] >= 0 || !tile_free_on(m, u) || corner_cut(t, u)) continue;
      parent[cu] = static_cast<std::int16_t>(c);
      queue[tail++] = static_cast<std::int16_t>(cu);
    }
  }
  if (best == start) return from;  // nowhere closer to go: wait
  std::int32_t c = best;
  while (parent[c] != start) c = parent[c];
  return tile_of_cell(c);
}

/// The agent walker `i` chases: the nearest target (a player, or an agent of the group's
/// target_group) within `range`, or -1.
std::int32_t tile_chase_target(const TileSteerColumns& c, const GroupSpec& g, std::int32_t i, real range) {
  if (!(range > 0)) return -1;
  real d = math::kInfinity;
  const auto at = static_cast<std::size_t>(i);
  const std::int32_t j = c.targets.nearest(g.target_group, i, c.position[at], &d);
  return j < 0 || d > range ? -1 : j;
}

/// Walker i's T22 step toward agent j (the tile under j's nearest image), crediting T22 when the
/// step is on the line of sight.
Tile tile_chase_step(const TileSteerColumns& c, TileState& ts, std::int32_t i, std::int32_t j, TechniqueTally& tally) {
  const Vec2 p = c.position[static_cast<std::size_t>(i)];
  const Vec2 goal = p + c.targets.plane.delta(p, c.position[static_cast<std::size_t>(j)]);
  bool by_line = false;
  const Tile to = tile_step_toward(c.map, ts, tile_under(c.map, goal), &by_line);
  if (by_line) tally.add(22);  // not when the breadth-first search found the step
  return to;
}

/// Walker i, standing on ts.from, decides ts.to by its group's technique.
void next_tile(const TileSteerColumns& c, const GroupSpec& g, std::int32_t i, TileState& ts, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  switch (g.technique) {
    case Technique::kTilePatrol: {
      const behavior::TilePathPattern& p = c.tables.patterns[static_cast<std::size_t>(g.tile_pattern)];
      const Tile anchor = behavior::pattern_anchor(p);
      const std::int32_t j = tile_chase_target(c, g, i, g.chase_range);
      if (ts.mode == 2 && ts.from == ts.patrol.tile && j < 0) {
        ts.mode = 0;  // back on the pattern tile it left: resume (T27)
        ts.patrol.patrolling = true;
      }
      if (ts.mode == 0) {
        // T27 one entry per step; an enemy in range stops the pattern on this step. (The pattern
        // itself, T26, was built once at load and counted there.)
        tally.add(27);
        if (behavior::patrol_step(ts.patrol, p, anchor, j >= 0)) {
          ts.to = ts.patrol.tile;
          ts.target = {};
          return;
        }
        ts.mode = 1;
      }
      if (j >= 0) {
        ts.mode = 1;  // the break-out chase
        ts.target = c.id[static_cast<std::size_t>(j)];
        ts.to = tile_chase_step(c, ts, i, j, tally);
      } else {
        ts.mode = 2;  // the enemy is gone: walk back to the pattern tile it left
        ts.target = {};
        ts.to = tile_step_toward(c.map, ts, ts.patrol.tile, nullptr);
      }
      return;
    }
    case Technique::kTileTrack: {
      // T28 FollowPattern on this track's map-sized matrix, with the walker's own stream (only it
      // draws from it). advance_tile_step keeps `previous`, on arrival.
      const std::vector<std::uint8_t>& cells = c.tables.track_cells[static_cast<std::size_t>(g.track)];
      ts.to = next_track_tile(ts.from, ts.previous, {cells.data(), c.map.rows, c.map.cols}, c.rng[at]);
      tally.add(28);
      return;
    }
    default: {
      const std::int32_t j = tile_chase_target(c, g, i, math::kInfinity);
      if (j < 0) {
        ts.target = {};
        ts.to = ts.from;
        return;
      }
      ts.target = c.id[static_cast<std::size_t>(j)];
      ts.to = tile_chase_step(c, ts, i, j, tally);
      return;
    }
  }
}

}  // namespace

void steer_tile_walker(const TileSteerColumns& c, std::int32_t i, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  const GroupSpec& g = c.groups[static_cast<std::size_t>(c.group[at])];
  TileState ts = c.tile[at];
  // Arrived on `to`: decide the next step.
  if (advance_tile_step({ts.from, ts.to, ts.previous, ts.progress}, g.tile_speed, c.dt)) next_tile(c, g, i, ts, tally);
  c.tile[at] = ts;
  c.target[at] = ts.target;
  c.aim[at] = tile_centre_on(c.map, ts.to);
  if (g.technique == Technique::kTileChase)
    c.state[at] = ts.target.valid() ? BehaviorState::kSeeking : BehaviorState::kNone;
  else c.state[at] = ts.mode == 1 ? BehaviorState::kSeeking : BehaviorState::kPatrolling;
}

void move_tile_walkers(const TileMoveColumns& c, std::int32_t begin, std::int32_t end) {
  for (auto at = static_cast<std::size_t>(begin); at < static_cast<std::size_t>(end); ++at) {
    const TileState& ts = c.tile[at];
    const TileMotion m = tile_motion(tile_centre_on(c.map, ts.from), tile_centre_on(c.map, ts.to), ts.progress,
                                     c.groups[static_cast<std::size_t>(c.group[at])].tile_speed);
    c.position[at] = m.position;
    c.velocity[at] = m.velocity;
    c.angular_velocity[at] = 0;
    if (m.moving) {
      c.heading[at] = m.heading;
      c.orientation[at] = m.orientation;
    }
  }
}

bool advance_tile_step(TileStepRef s, real tile_speed, real dt) {
  s.progress += tile_speed * dt;
  if (s.progress < 1) return false;
  s.progress -= 1;
  if (s.progress >= 1) s.progress = 0;
  if (!(s.to == s.from)) s.previous = s.from;
  s.from = s.to;
  return true;
}

behavior::Tile next_track_tile(behavior::Tile from, behavior::Tile previous, behavior::TrackView track,
                               math::Rng& rng) {
  behavior::TrackFollower follower{from, previous};
  return behavior::follow_track(follower, track, rng);
}

TileMotion tile_motion(Vec2 from_centre, Vec2 to_centre, real progress, real tile_speed) {
  const Vec2 d = to_centre - from_centre;
  TileMotion m;
  m.position = from_centre + d * progress;
  m.velocity = d * tile_speed;
  m.moving = !math::is_zero(d);
  if (m.moving) {
    m.heading = math::normalized(d);
    m.orientation = math::orientation_of(m.heading);
  }
  return m;
}

}  // namespace flockstep::sim
