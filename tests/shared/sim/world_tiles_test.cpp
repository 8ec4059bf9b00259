// Tile techniques in the World (T22, T26-T28): the troll patrols of catalog Part H.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::sim {
namespace {

using behavior::Tile;

// Seed pattern vertices (Bourg & Seemann Examples 3-6..3-9), anchored with offsets (5, 2).
const std::vector<std::array<std::int32_t, 2>> kRectangle{{10, 3}, {18, 3}, {18, 12}, {10, 12}, {10, 3}};
const std::vector<std::array<std::int32_t, 2>> kBackAndForth{{10, 3}, {18, 3}, {10, 3}};
const std::vector<std::array<std::int32_t, 2>> kComplexPatrol{{4, 2},   {4, 11},  {2, 24}, {13, 27}, {16, 24},
                                                              {13, 17}, {13, 13}, {17, 5}, {4, 2}};
// The seed track (Example 3-10): 47 tiles, T-junctions at (9, 2) and (9, 6).
const std::vector<std::array<std::int32_t, 4>> kSeedTrack{{3, 2, 16, 2}, {16, 2, 16, 11}, {16, 11, 9, 11},
                                                          {9, 11, 9, 2}, {9, 6, 3, 6},    {3, 6, 3, 2}};

GroupSpec tile_group(const char* name, Technique t, real tile_speed) {
  GroupSpec g;
  g.name = name;
  g.kind = AgentKind::kPatrol;
  g.technique = t;
  g.count = 1;
  g.tile_speed = tile_speed;
  g.chase_range = 0;
  return g;
}

/// 30 x 20 open tiles of 4 m, 64 Hz (dt = 1/64 exactly, so one step per tick is exact).
Scenario open_tiles() {
  Scenario s;
  s.name = "troll";
  s.width = 120;
  s.height = 80;
  s.tick_rate_hz = 64;
  s.max_agents = 64;
  s.max_players = 4;
  s.tiles.cols = 30;
  s.tiles.rows = 20;
  s.tiles.cell = 4;
  s.tiles.blocked.assign(30 * 20, 0);
  return s;
}

/// The three seed troll patterns and the seed track, one agent each, one step per tick.
Scenario troll_patrols() {
  Scenario s = open_tiles();
  s.tile_patterns = {
      {"rectangle", kRectangle, 5, 2}, {"back_and_forth", kBackAndForth, 5, 2}, {"complex", kComplexPatrol, 5, 2}};
  s.tracks = {{"seed_track", kSeedTrack}};
  for (std::int32_t p = 0; p < 3; ++p) {
    GroupSpec g = tile_group(s.tile_patterns[static_cast<std::size_t>(p)].name.c_str(), Technique::kTilePatrol, 64);
    g.tile_pattern = p;
    s.groups.push_back(g);
  }
  GroupSpec t = tile_group("walker", Technique::kTileTrack, 64);
  t.track = 0;
  s.groups.push_back(t);
  return s;
}

std::int32_t index_of_group(const World& w, std::int32_t group) {
  for (std::int32_t i = 0; i < w.size(); ++i)
    if (w.view(i).group == group) return i;
  return -1;
}

Tile tile_of(const Scenario& s, Vec2 p) {
  return {static_cast<std::int32_t>(std::floor(p.y / s.tiles.cell)),
          static_cast<std::int32_t>(std::floor(p.x / s.tiles.cell))};
}

Vec2 centre(const Scenario& s, Tile t) { return {(t.col + 0.5) * s.tiles.cell, (t.row + 0.5) * s.tiles.cell}; }

bool blocked(const Scenario& s, Tile t) {
  if (t.row < 0 || t.col < 0 || t.row >= s.tiles.rows || t.col >= s.tiles.cols) return true;
  return s.tiles.blocked[static_cast<std::size_t>(t.row * s.tiles.cols + t.col)] != 0;
}

std::int32_t chebyshev(Tile a, Tile b) { return std::max(std::abs(a.row - b.row), std::abs(a.col - b.col)); }

/// Tiles of each group's first agent, one per tick (exact tile centres at one step per tick).
std::vector<std::vector<Tile>> record_tiles(World& w, std::int32_t ticks) {
  std::vector<std::vector<Tile>> out(w.scenario().groups.size());
  for (std::int32_t t = 0; t < ticks; ++t) {
    w.step();
    for (std::size_t g = 0; g < out.size(); ++g) {
      const AgentView v = w.view(index_of_group(w, static_cast<std::int32_t>(g)));
      const Tile tile = tile_of(w.scenario(), v.position);
      EXPECT_EQ(v.position, centre(w.scenario(), tile)) << "one step per tick lands on tile centres";
      out[g].push_back(tile);
    }
  }
  return out;
}

std::int32_t period_of(const std::vector<Tile>& seq) {
  for (std::size_t p = 1; p < seq.size() / 2; ++p) {
    bool same = true;
    for (std::size_t t = 0; t + p < seq.size() && same; ++t) same = seq[t] == seq[t + p];
    if (same) return static_cast<std::int32_t>(p);
  }
  return -1;
}

TEST(WorldTiles, T26_T27_TrollPatternsLoopWithTheCatalogEntryCounts) {
  const Scenario s = troll_patrols();
  ASSERT_EQ(validate(s), "");
  World w(s);
  const auto tiles = record_tiles(w, 400);
  // Catalog T26: 38 / 18 / 76 entries; T27: back on the anchor after pathSize + 1 steps.
  const std::int32_t expected[3] = {38, 18, 76};
  for (std::size_t g = 0; g < 3; ++g) {
    SCOPED_TRACE(s.groups[g].name);
    EXPECT_EQ(period_of(tiles[g]), expected[g]);
    EXPECT_EQ(tiles[g][0], (Tile{5, 2})) << "starts on the anchor (offsets 5, 2)";
    EXPECT_EQ(tiles[g][static_cast<std::size_t>(expected[g])], (Tile{5, 2}));
    for (std::size_t t = 1; t < tiles[g].size(); ++t) {
      EXPECT_LE(chebyshev(tiles[g][t - 1], tiles[g][t]), 1);
    }
  }
  // The rectangle visits exactly its perimeter: (5..13) x (2..11).
  std::set<std::pair<int, int>> visited;
  for (const Tile t : tiles[0]) visited.insert({t.row, t.col});
  EXPECT_EQ(visited.size(), 34u);  // 38 entries minus the 4 duplicated corners
  for (const auto& [r, c] : visited) {
    EXPECT_TRUE(r == 5 || r == 13 || c == 2 || c == 11) << r << "," << c;
  }
}

TEST(WorldTiles, T28_TrackWalkerStaysOnThe47SeedTilesAndNeverTurnsBack) {
  const Scenario s = troll_patrols();
  World w(s);
  const auto tiles = record_tiles(w, 3000)[3];
  behavior::TileTrack track;
  behavior::clear_track(track);
  for (const auto& sg : kSeedTrack) behavior::mark_track_segment(track, {sg[0], sg[1]}, {sg[2], sg[3]});
  ASSERT_EQ(behavior::track_tile_count(track), 47);
  std::set<std::pair<int, int>> visited;
  bool from_above_left = false, from_above_right = false;  // junction (9, 6) reached from (8, 6)
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    ASSERT_TRUE(behavior::on_track(track, tiles[t])) << t;
    visited.insert({tiles[t].row, tiles[t].col});
    if (t == 0) continue;
    ASSERT_EQ(chebyshev(tiles[t - 1], tiles[t]), 1) << "moves every step, to an 8-neighbour";
    if (t >= 2) {
      ASSERT_FALSE(tiles[t] == tiles[t - 2]) << "no dead ends on the seed track: never turns back";
    }
    if (t >= 2 && tiles[t - 1] == (Tile{9, 6}) && tiles[t - 2] == (Tile{8, 6})) {
      from_above_left = from_above_left || tiles[t].col < 6;
      from_above_right = from_above_right || tiles[t].col > 6;
    }
  }
  EXPECT_EQ(visited.size(), 47u);
  EXPECT_TRUE(from_above_left && from_above_right) << "both branches at the junction (9, 6)";
}

TEST(WorldTiles, T28_BranchingIsDeterministicPerSeed) {
  Scenario s = troll_patrols();
  World a(s), b(s);
  const auto ta = record_tiles(a, 1000)[3];
  const auto tb = record_tiles(b, 1000)[3];
  EXPECT_EQ(ta, tb);
  EXPECT_EQ(a.state_hash(), b.state_hash());
  s.seed = 2;
  World c(s);
  EXPECT_NE(record_tiles(c, 1000)[3], ta) << "another seed branches differently";
}

TEST(WorldTiles, T22_TileChaseReachesAStaticPlayerInChebyshevSteps) {
  Scenario s = open_tiles();
  GroupSpec g = tile_group("chaser", Technique::kTileChase, 64);
  g.spawn_min = g.spawn_max = {2, 2};  // tile (0, 0)
  s.groups.push_back(g);
  ASSERT_EQ(validate(s), "");
  World w(s);
  const AgentId player = w.add_player();
  const Vec2 p = w.view(w.index_of(player)).position;
  const Tile goal = tile_of(s, p);
  const std::int32_t steps = chebyshev({0, 0}, goal);
  ASSERT_GT(steps, 3);
  // By id: a step may move rows (World::set_reorder_interval).
  const AgentId chaser_id = w.id_at(index_of_group(w, 0));
  const auto chaser = [&] { return w.index_of(chaser_id); };
  Tile last{0, 0};
  for (std::int32_t t = 1; t <= steps + 1; ++t) {
    w.step();
    const AgentView v = w.view(chaser());
    const Tile now = tile_of(s, v.position);
    EXPECT_LE(chebyshev(last, now), 1);
    // Monotone in both coordinates, like the T22 line.
    EXPECT_LE(std::abs(goal.row - now.row), std::abs(goal.row - last.row));
    EXPECT_LE(std::abs(goal.col - now.col), std::abs(goal.col - last.col));
    EXPECT_EQ(v.target, player);
    EXPECT_EQ(v.state, BehaviorState::kSeeking);
    last = now;
  }
  EXPECT_EQ(w.view(chaser()).position, centre(s, goal)) << "reached in max(|dRow|, |dCol|) steps";
  w.step();
  EXPECT_EQ(w.view(chaser()).position, centre(s, goal)) << "stays on the target tile";
  EXPECT_EQ(w.view(w.index_of(player)).position, p);
}

/// A 12 x 12 room with a blocked border and a rectangle patrol inside.
Scenario troll_room() {
  Scenario s;
  s.name = "room";
  s.width = 48;
  s.height = 48;
  s.tiles.cols = 12;
  s.tiles.rows = 12;
  s.tiles.cell = 4;
  s.tiles.blocked.assign(144, 0);
  for (std::int32_t k = 0; k < 12; ++k) {
    s.tiles.blocked[static_cast<std::size_t>(k)] = s.tiles.blocked[static_cast<std::size_t>(11 * 12 + k)] = 1;
    s.tiles.blocked[static_cast<std::size_t>(k * 12)] = s.tiles.blocked[static_cast<std::size_t>(k * 12 + 11)] = 1;
  }
  s.tile_patterns = {{"square", {{0, 0}, {0, 7}, {7, 7}, {7, 0}, {0, 0}}, 2, 2}};
  GroupSpec g = tile_group("troll", Technique::kTilePatrol, 8);
  g.tile_pattern = 0;
  g.chase_range = 100;
  s.groups.push_back(g);
  return s;
}

TEST(WorldTiles, T27_TrollBreaksOutToChaseANearPlayerAndResumesThePattern) {
  const Scenario s = troll_room();
  ASSERT_EQ(validate(s), "");
  World w(s);
  // By id: a step may move rows (World::set_reorder_interval).
  const AgentId troll_id = w.id_at(index_of_group(w, 0));
  const auto troll = [&] { return w.index_of(troll_id); };
  std::set<std::pair<int, int>> pattern;
  for (std::int32_t k = 2; k <= 9; ++k) {
    pattern.insert({2, k});
    pattern.insert({9, k});
    pattern.insert({k, 2});
    pattern.insert({k, 9});
  }
  // Patrol alone for a while: only pattern tiles, back on the anchor.
  for (std::int32_t t = 0; t < 60 * 5; ++t) {
    w.step();
    const Tile tile = tile_of(s, w.view(troll()).position);
    ASSERT_TRUE(pattern.count({tile.row, tile.col})) << t;
    EXPECT_EQ(w.view(troll()).state, BehaviorState::kPatrolling);
  }
  // A player arrives: the troll leaves the pattern and catches up with it.
  const AgentId player = w.add_player();
  const Vec2 p = w.view(w.index_of(player)).position;
  bool reached = false;
  for (std::int32_t t = 0; t < 60 * 4 && !reached; ++t) {
    w.step();
    const AgentView v = w.view(troll());
    ASSERT_FALSE(blocked(s, tile_of(s, v.position)));
    EXPECT_EQ(v.state, BehaviorState::kSeeking);
    EXPECT_EQ(v.target, player);
    reached = math::distance(v.position, centre(s, tile_of(s, p))) < 1e-6;
  }
  EXPECT_TRUE(reached) << "the troll reaches the player's tile";
  // The player leaves: the troll walks back and resumes the loop.
  w.remove(player);
  for (std::int32_t t = 0; t < 60 * 3; ++t) {
    w.step();
    ASSERT_FALSE(blocked(s, tile_of(s, w.view(troll()).position)));
  }
  std::int32_t anchor_visits = 0;
  for (std::int32_t t = 0; t < 60 * 9; ++t) {  // 2 loops of 32 steps at 8 steps/s
    w.step();
    const AgentView v = w.view(troll());
    const Tile tile = tile_of(s, v.position);
    ASSERT_TRUE(pattern.count({tile.row, tile.col})) << t;
    EXPECT_EQ(v.state, BehaviorState::kPatrolling);
    anchor_visits += math::distance(v.position, centre(s, {2, 2})) < 0.1 ? 1 : 0;
  }
  EXPECT_GE(anchor_visits, 2);
}

TEST(WorldTiles, T22_TileChaseNeverEntersBlockedTiles) {
  // A wall across the map with one gap; the chaser starts on the left, players spawn anywhere.
  Scenario s = open_tiles();
  s.tick_rate_hz = 60;
  for (std::int32_t r = 0; r < 20; ++r)
    if (r != 15) s.tiles.blocked[static_cast<std::size_t>(r * 30 + 12)] = 1;
  GroupSpec g = tile_group("chaser", Technique::kTileChase, 8);
  g.spawn_min = {2, 2};
  g.spawn_max = {40, 78};
  g.count = 20;
  s.groups.push_back(g);
  ASSERT_EQ(validate(s), "");
  World w(s);
  const AgentId a = w.add_player();
  const AgentId b = w.add_player();
  const Vec2 pa = w.view(w.index_of(a)).position, pb = w.view(w.index_of(b)).position;
  auto sum_distance = [&] {
    real sum = 0;
    for (std::int32_t i = 0; i < w.size(); ++i)
      if (w.view(i).kind != AgentKind::kPlayer)
        sum += math::min(math::distance(w.view(i).position, pa), math::distance(w.view(i).position, pb));
    return sum;
  };
  const real before = sum_distance();
  for (std::int32_t t = 0; t < 60 * 20; ++t) {
    w.step();
    for (std::int32_t i = 0; i < w.size(); ++i) {
      const AgentView v = w.view(i);
      if (v.kind == AgentKind::kPlayer) continue;
      ASSERT_FALSE(blocked(s, tile_of(s, v.position))) << "tick " << t << " agent " << i;
    }
  }
  EXPECT_LT(sum_distance(), before * 0.5) << "the chasers close in (through the gap where needed)";
}

TEST(WorldTiles, ValidateNamesTheBadTileField) {
  Scenario s = troll_patrols();
  s.tiles.blocked.pop_back();
  EXPECT_EQ(validate(s), "tiles.blocked: must hold cols * rows entries");
  s = troll_patrols();
  s.tiles.blocked[static_cast<std::size_t>(5 * 30 + 2)] = 1;
  EXPECT_EQ(validate(s), "tile_patterns[0]: tile (5, 2) is blocked (vertex 0 + offset)");
  s = troll_patrols();
  s.tile_patterns[1].row_offset = 15;
  EXPECT_NE(validate(s).find("tile_patterns[1]: tile (20, 2) is off the tile map"), std::string::npos);
  s = troll_patrols();
  s.tile_patterns[0].vertices.pop_back();
  EXPECT_EQ(validate(s), "tile_patterns[0].vertices: the last vertex must equal the first (a loop)");
  s = troll_patrols();
  s.tracks[0].segments.push_back({0, 0, 0, 40});
  EXPECT_EQ(validate(s), "tracks[0].segments[6]: tile (0, 30) is off the tile map");
  s = troll_patrols();
  s.groups[3].track = -1;
  EXPECT_EQ(validate(s), "groups[3].track: must name an existing track");
  s = troll_patrols();
  s.groups[0].tile_speed = 65;
  EXPECT_EQ(validate(s), "groups[0].tile_speed: must be in (0, tick_rate_hz]");
  s = troll_patrols();
  s.tiles.cols = 31;
  EXPECT_EQ(validate(s), "tiles.cols: cols * cell must be <= width");
  s = troll_patrols();
  s.tiles = {};
  EXPECT_EQ(validate(s), "tile_patterns[0]: needs a tile map (tiles)");
}

}  // namespace
}  // namespace flockstep::sim
