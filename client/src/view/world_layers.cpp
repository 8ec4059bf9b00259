#include "view/world_layers.hpp"

#include <algorithm>
#include <cmath>

#include "view/palette.hpp"

namespace flockstep::client {
namespace {

using math::Vec2;

void quad(std::vector<ColorVertex>& t, double x0, double y0, double x1, double y1, Rgba c) {
  const float a = static_cast<float>(x0), b = static_cast<float>(y0), cx = static_cast<float>(x1),
              d = static_cast<float>(y1);
  t.insert(t.end(), {{a, b, c}, {cx, b, c}, {cx, d, c}, {a, b, c}, {cx, d, c}, {a, d, c}});
}

void seg(std::vector<ColorVertex>& l, Vec2 a, Vec2 b, Rgba c) {
  l.push_back({static_cast<float>(a.x), static_cast<float>(a.y), c});
  l.push_back({static_cast<float>(b.x), static_cast<float>(b.y), c});
}

void cross(std::vector<ColorVertex>& l, Vec2 p, double r, Rgba c) {
  seg(l, p + Vec2{-r, -r}, p + Vec2{r, r}, c);
  seg(l, p + Vec2{-r, r}, p + Vec2{r, -r}, c);
}

/// A thick segment as two triangles (WebGL lines are 1 px: tracks and patterns need weight).
void thick(std::vector<ColorVertex>& t, Vec2 a, Vec2 b, double w, Rgba c) {
  const Vec2 d = b - a;
  const double len = std::sqrt(d.x * d.x + d.y * d.y);
  if (len <= 0) return;
  const Vec2 n{-d.y / len * w * 0.5, d.x / len * w * 0.5};
  const Vec2 p[4] = {a + n, b + n, b - n, a - n};
  auto v = [&](Vec2 q) { t.push_back({static_cast<float>(q.x), static_cast<float>(q.y), c}); };
  v(p[0]);
  v(p[1]);
  v(p[2]);
  v(p[0]);
  v(p[2]);
  v(p[3]);
}

void dashed_rect(std::vector<ColorVertex>& l, Vec2 lo, Vec2 hi, Rgba c) {
  const Vec2 corners[4] = {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
  for (int i = 0; i < 4; ++i) {
    const Vec2 a = corners[i], b = corners[(i + 1) % 4];
    const Vec2 d = b - a;
    const double len = std::sqrt(d.x * d.x + d.y * d.y);
    const int n = std::max(1, static_cast<int>(len / 2));  // 1 m dash, 1 m gap
    for (int k = 0; k < n; k += 2)
      seg(l, a + d * (static_cast<double>(k) / n), a + d * (static_cast<double>(k + 1) / n), c);
  }
}

Vec2 tile_centre(const sim::TileMapSpec& t, std::int32_t row, std::int32_t col) {
  return {(col + 0.5) * t.cell, (row + 0.5) * t.cell};
}

const char* pattern_label(sim::PatternKind k) {
  switch (k) {
    case sim::PatternKind::kSquare: return "square pattern";
    case sim::PatternKind::kZigZag: return "zig-zag pattern";
    default: return "arbitrary pattern";
  }
}

}  // namespace

const char* layer_name(Layer l) {
  static constexpr const char* kNames[] = {"tiles",    "tracks", "tile_patterns", "paths",
                                           "patterns", "walls",  "obstacles",     "spawn_areas"};
  const auto i = static_cast<int>(l);
  return i >= 0 && i < kLayerCount ? kNames[i] : "?";
}

const char* layer_key(Layer l) {
  static constexpr const char* kKeys[] = {"KeyG", "KeyK", "KeyJ", "KeyO", "KeyU", "KeyY", "KeyI", "KeyZ"};
  const auto i = static_cast<int>(l);
  return i >= 0 && i < kLayerCount ? kKeys[i] : "";
}

std::int32_t LayerCounts::of(Layer l) const {
  switch (l) {
    case Layer::kTiles: return tiles_blocked + tiles_free;
    case Layer::kTracks: return tracks;
    case Layer::kTilePatterns: return tile_patterns;
    case Layer::kPaths: return paths;
    case Layer::kPatterns: return patterns;
    case Layer::kWalls: return walls;
    case Layer::kObstacles: return obstacles;
    case Layer::kSpawnAreas: return spawn_areas;
    default: return 0;
  }
}

WorldLayers build_world_layers(const sim::Scenario& s) {
  WorldLayers out;
  auto tris = [&](Layer l) -> std::vector<ColorVertex>& { return out.triangles[static_cast<int>(l)]; };
  auto lines = [&](Layer l) -> std::vector<ColorVertex>& { return out.lines[static_cast<int>(l)]; };

  // Tile map: one quad per cell; a faint grid between free cells so single tiles can be counted.
  const sim::TileMapSpec& t = s.tiles;
  if (t.cols > 0 && t.rows > 0 &&
      t.blocked.size() == static_cast<std::size_t>(t.cols) * static_cast<std::size_t>(t.rows)) {
    for (std::int32_t r = 0; r < t.rows; ++r) {
      for (std::int32_t c = 0; c < t.cols; ++c) {
        const bool blocked =
            t.blocked[static_cast<std::size_t>(r) * static_cast<std::size_t>(t.cols) + static_cast<std::size_t>(c)] !=
            0;
        quad(tris(Layer::kTiles), c * t.cell, r * t.cell, (c + 1) * t.cell, (r + 1) * t.cell,
             blocked ? palette::kTileBlocked : palette::kTileFree);
        ++(blocked ? out.counts.tiles_blocked : out.counts.tiles_free);
      }
    }
    for (std::int32_t c = 0; c <= t.cols; ++c)
      seg(lines(Layer::kTiles), {c * t.cell, 0}, {c * t.cell, t.rows * t.cell}, palette::kTileGrid);
    for (std::int32_t r = 0; r <= t.rows; ++r)
      seg(lines(Layer::kTiles), {0, r * t.cell}, {t.cols * t.cell, r * t.cell}, palette::kTileGrid);
  }

  // Tracks (T28): thick bands between tile centres.
  for (const sim::TrackSpec& tr : s.tracks) {
    for (const auto& q : tr.segments)
      thick(tris(Layer::kTracks), tile_centre(t, q[0], q[1]), tile_centre(t, q[2], q[3]), t.cell * 0.3,
            palette::kTrack);
    if (!tr.segments.empty())
      out.captions.push_back({tr.name.empty() ? "track" : tr.name, tile_centre(t, tr.segments[0][0], tr.segments[0][1]),
                              Layer::kTracks, palette::kTrack});
    ++out.counts.tracks;
  }

  // Tile patterns (T26): the loop the patrol walks, anchored at its offset, with its vertices.
  for (const sim::TilePatternSpec& p : s.tile_patterns) {
    if (p.vertices.empty()) continue;
    const auto v0 = p.vertices.front();
    auto at = [&](const std::array<std::int32_t, 2>& v) {
      return tile_centre(t, p.row_offset + v[0] - v0[0], p.col_offset + v[1] - v0[1]);
    };
    for (std::size_t i = 0; i + 1 < p.vertices.size(); ++i)
      thick(tris(Layer::kTilePatterns), at(p.vertices[i]), at(p.vertices[i + 1]), t.cell * 0.15, palette::kTilePattern);
    for (const auto& v : p.vertices) cross(lines(Layer::kTilePatterns), at(v), t.cell * 0.3, palette::kTilePattern);
    out.captions.push_back(
        {p.name.empty() ? "tile pattern" : p.name, at(v0), Layer::kTilePatterns, palette::kTilePattern});
    ++out.counts.tile_patterns;
  }

  // Waypoint paths (T72).
  for (const sim::PathSpec& p : s.paths) {
    for (std::size_t i = 0; i + 1 < p.points.size(); ++i)
      seg(lines(Layer::kPaths), p.points[i], p.points[i + 1], palette::kPath);
    if (p.loop && p.points.size() > 2) seg(lines(Layer::kPaths), p.points.back(), p.points.front(), palette::kPath);
    for (const Vec2& q : p.points) cross(lines(Layer::kPaths), q, 0.6, palette::kPath);
    if (!p.points.empty())
      out.captions.push_back({p.name.empty() ? "path" : p.name, p.points.front(), Layer::kPaths, palette::kPath});
    ++out.counts.paths;
  }

  // Physics patterns (T30): the craft flies its figure from wherever it is, so there is no fixed
  // track to draw; a sketch of the figure in the group's spawn area tells what to look for.
  for (const sim::GroupSpec& g : s.groups) {
    if (g.technique != sim::Technique::kPattern) continue;
    const bool area = !(g.spawn_max.x == 0 && g.spawn_max.y == 0);
    const Vec2 lo = area ? g.spawn_min : Vec2{0, 0}, hi = area ? g.spawn_max : Vec2{s.width, s.height};
    const Vec2 c = (lo + hi) * 0.5;
    const double r = std::max(2.0, std::min(hi.x - lo.x, hi.y - lo.y) * 0.3);
    std::vector<Vec2> fig;
    if (g.pattern == sim::PatternKind::kSquare)
      fig = {c + Vec2{-r, -r}, c + Vec2{r, -r}, c + Vec2{r, r}, c + Vec2{-r, r}, c + Vec2{-r, -r}};
    else if (g.pattern == sim::PatternKind::kZigZag)
      fig = {c + Vec2{-r, -r}, c + Vec2{-r * 0.5, r}, c + Vec2{0, -r}, c + Vec2{r * 0.5, r}, c + Vec2{r, -r}};
    else
      fig = {c + Vec2{-r, 0},      c + Vec2{-r * 0.3, r}, c + Vec2{r * 0.4, r * 0.2},
             c + Vec2{r, r * 0.8}, c + Vec2{r * 0.6, -r}, c + Vec2{-r, 0}};
    for (std::size_t i = 0; i + 1 < fig.size(); ++i)
      seg(lines(Layer::kPatterns), fig[i], fig[i + 1], palette::kPattern);
    out.captions.push_back(
        {g.name + " (" + pattern_label(g.pattern) + ")", c + Vec2{0, r}, Layer::kPatterns, palette::kPattern});
    ++out.counts.patterns;
  }

  for (const behavior::Wall& w : s.walls) {
    thick(tris(Layer::kWalls), w.a, w.b, 0.4, palette::kWall);
    ++out.counts.walls;
  }

  for (const behavior::Circle& c : s.obstacles) {
    auto& d = out.discs[static_cast<int>(Layer::kObstacles)];
    d.push_back({static_cast<float>(c.center.x), static_cast<float>(c.center.y), palette::kObstacleFill});
    d.push_back({static_cast<float>(c.radius), 0, palette::kObstacleEdge});
    ++out.counts.obstacles;
  }

  for (const sim::GroupSpec& g : s.groups) {
    if (g.spawn_max.x == 0 && g.spawn_max.y == 0) continue;  // (0, 0) = the whole world
    const Rgba c = palette::with_alpha(palette::kind_color(g.kind), 110);
    // No caption: the rectangle has the group's kind colour, and its agents carry the labels.
    dashed_rect(lines(Layer::kSpawnAreas), g.spawn_min, g.spawn_max, c);
    ++out.counts.spawn_areas;
  }
  return out;
}

}  // namespace flockstep::client
