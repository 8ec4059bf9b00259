// build_world_layers: every item of a WorldSpec becomes drawn geometry, counted per layer. The
// scenario goes through the codec (encode -> WorldSpec -> decode) exactly as the viewer gets it.
#include "view/world_layers.hpp"

#include <gtest/gtest.h>

#include "codec/server_codec.hpp"
#include "view/palette.hpp"

namespace flockstep::client {
namespace {

sim::Scenario via_world_spec(const sim::Scenario& s) {
  v1::WorldSpec spec;
  codec::encode_world_spec(s, spec);
  sim::Scenario out;
  const codec::Result r = codec::decode_world_spec(spec, out);
  EXPECT_TRUE(r.usable()) << r.detail;
  return out;
}

sim::Scenario tile_world() {
  sim::Scenario s;
  s.name = "tiles";
  s.width = 40;
  s.height = 24;
  s.tiles.cols = 10;
  s.tiles.rows = 6;
  s.tiles.cell = 4;
  s.tiles.blocked.assign(60, 0);
  for (int c = 0; c < 10; ++c) s.tiles.blocked[static_cast<std::size_t>(c)] = 1;  // bottom row is wall
  s.tiles.blocked[3 * 10 + 5] = 1;
  sim::TilePatternSpec p;
  p.name = "loop";
  p.vertices = {{1, 1}, {1, 3}, {2, 3}, {1, 1}};
  p.row_offset = 2;
  p.col_offset = 1;
  s.tile_patterns.push_back(p);
  sim::TrackSpec t;
  t.name = "rails";
  t.segments = {{1, 1, 1, 8}, {1, 8, 4, 8}};
  s.tracks.push_back(t);
  sim::GroupSpec g;
  g.name = "troll";
  g.kind = sim::AgentKind::kPursuer;
  g.technique = sim::Technique::kTilePatrol;
  g.count = 1;
  g.tile_pattern = 0;
  s.groups.push_back(g);
  return s;
}

TEST(WorldLayers, TileMapCellsTracksAndPatternsAreCounted) {
  const WorldLayers l = build_world_layers(via_world_spec(tile_world()));
  EXPECT_EQ(l.counts.tiles_blocked, 11);
  EXPECT_EQ(l.counts.tiles_free, 49);
  EXPECT_EQ(l.counts.tracks, 1);
  EXPECT_EQ(l.counts.tile_patterns, 1);
  EXPECT_EQ(l.counts.paths, 0);
  EXPECT_EQ(l.counts.spawn_areas, 0);
  // Two triangles per cell, in two clearly different colours.
  const auto& tiles = l.triangles[static_cast<int>(Layer::kTiles)];
  ASSERT_EQ(tiles.size(), 60u * 6);
  int blocked = 0, free = 0;
  for (std::size_t i = 0; i < tiles.size(); i += 6) {
    const Rgba c = tiles[i].color;
    if (c.r == palette::kTileBlocked.r && c.g == palette::kTileBlocked.g) ++blocked;
    else if (c.r == palette::kTileFree.r && c.g == palette::kTileFree.g) ++free;
  }
  EXPECT_EQ(blocked, 11);
  EXPECT_EQ(free, 49);
  // The blocked cell (row 3, col 5) is the quad at x 20..24, y 12..16.
  const ColorVertex& v = tiles[(3 * 10 + 5) * 6];
  EXPECT_FLOAT_EQ(v.x, 20);
  EXPECT_FLOAT_EQ(v.y, 12);
  EXPECT_EQ(v.color.r, palette::kTileBlocked.r);
  EXPECT_FALSE(l.triangles[static_cast<int>(Layer::kTracks)].empty());
  EXPECT_FALSE(l.triangles[static_cast<int>(Layer::kTilePatterns)].empty());
}

TEST(WorldLayers, TilePatternStartsAtItsOffsetTileCentre) {
  const WorldLayers l = build_world_layers(via_world_spec(tile_world()));
  bool found = false;
  for (const WorldCaption& c : l.captions)
    if (c.layer == Layer::kTilePatterns) {
      EXPECT_EQ(c.text, "loop");
      EXPECT_DOUBLE_EQ(c.at.x, (1 + 0.5) * 4);  // col_offset 1
      EXPECT_DOUBLE_EQ(c.at.y, (2 + 0.5) * 4);  // row_offset 2
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(WorldLayers, GeometryLayersAndSpawnAreasMatchTheScenario) {
  sim::Scenario s;
  s.width = 100;
  s.height = 80;
  s.obstacles = {{{20, 20}, 3}, {{60, 40}, 5}};
  s.walls = {{{10, 10}, {90, 10}}, {{10, 70}, {90, 70}}, {{5, 5}, {5, 60}}};
  sim::PathSpec p;
  p.name = "beat";
  p.points = {{10, 10}, {50, 10}, {50, 50}};
  s.paths.push_back(p);
  sim::GroupSpec a;
  a.name = "square";
  a.kind = sim::AgentKind::kPatrol;
  a.technique = sim::Technique::kPattern;
  a.pattern = sim::PatternKind::kSquare;
  a.count = 1;
  a.spawn_min = {40, 40};
  a.spawn_max = {60, 60};
  s.groups.push_back(a);
  sim::GroupSpec b;  // whole world: no spawn area
  b.name = "flock";
  b.count = 3;
  s.groups.push_back(b);
  const WorldLayers l = build_world_layers(via_world_spec(s));
  EXPECT_EQ(l.counts.obstacles, 2);
  EXPECT_EQ(l.counts.walls, 3);
  EXPECT_EQ(l.counts.paths, 1);
  EXPECT_EQ(l.counts.patterns, 1);
  EXPECT_EQ(l.counts.spawn_areas, 1);
  EXPECT_EQ(l.counts.tiles_blocked + l.counts.tiles_free, 0);
  EXPECT_EQ(l.counts.of(Layer::kWalls), 3);
  EXPECT_EQ(l.discs[static_cast<int>(Layer::kObstacles)].size(), 4u);
  EXPECT_EQ(l.triangles[static_cast<int>(Layer::kWalls)].size(), 3u * 6);
  EXPECT_TRUE(l.triangles[static_cast<int>(Layer::kTiles)].empty());
  EXPECT_FALSE(l.lines[static_cast<int>(Layer::kSpawnAreas)].empty());
}

TEST(WorldLayers, NamesAndKeysAreDistinct) {
  for (int i = 0; i < kLayerCount; ++i)
    for (int j = i + 1; j < kLayerCount; ++j) {
      EXPECT_STRNE(layer_name(static_cast<Layer>(i)), layer_name(static_cast<Layer>(j)));
      EXPECT_STRNE(layer_key(static_cast<Layer>(i)), layer_key(static_cast<Layer>(j)));
    }
}

}  // namespace
}  // namespace flockstep::client
