// Scenario files: the shipped arena loads; every error names its key path.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "codec/group_fields.hpp"
#include "flockstep/sim/world.hpp"
#include "game/scenario_file.hpp"

namespace flockstep::server::game {
namespace {

std::string error_of(const std::string& json) {
  try {
    parse_scenario(json);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioJson, ShippedArenaLoadsWithEveryKindOfAgent) {
  const sim::Scenario s = load_scenario_file(std::string(FLOCKSTEP_SOURCE_DIR) + "/scenarios/arena.json");
  EXPECT_EQ(s.name, "arena");
  EXPECT_FALSE(s.obstacles.empty());
  EXPECT_FALSE(s.walls.empty());
  ASSERT_EQ(s.paths.size(), 1u);
  bool kinds[static_cast<int>(sim::AgentKind::kCount)] = {};
  for (const sim::GroupSpec& g : s.groups) kinds[static_cast<int>(g.kind)] = true;
  EXPECT_TRUE(kinds[static_cast<int>(sim::AgentKind::kFlock)]);
  EXPECT_TRUE(kinds[static_cast<int>(sim::AgentKind::kPursuer)]);
  EXPECT_TRUE(kinds[static_cast<int>(sim::AgentKind::kPatrol)]);
  EXPECT_TRUE(kinds[static_cast<int>(sim::AgentKind::kWanderer)]);
  // Names resolve to indices.
  for (const sim::GroupSpec& g : s.groups) {
    if (g.technique == sim::Technique::kPathFollow) {
      EXPECT_EQ(g.path, 0);
    }
    if (g.technique == sim::Technique::kOffsetPursuit) {
      EXPECT_GE(g.leader_group, 0);
    }
  }
  EXPECT_EQ(sim::validate(s), "");
}

TEST(ScenarioJson, NestedParametersAndNamedReferencesAreRead) {
  const sim::Scenario s = parse_scenario(R"({
    "width": 100, "height": 80, "grid_cell": 10,
    "paths": [{"name": "p", "points": [[1, 2], [3, 4]], "loop": false}],
    "groups": [
      {"name": "lead", "kind": "patrol", "technique": "path_follow", "count": 1, "path": "p"},
      {"name": "b", "technique": "offset_pursuit", "leader_group": "lead", "count": 2, "offset": [-1, 1],
       "craft": {"thrust": 5.5}, "flock": {"neighbour_radius": 9, "fov_deg": 180}, "detection": {"seed_literal": true},
       "capture_radius": 1.75}
    ]})");
  ASSERT_EQ(s.groups.size(), 2u);
  const sim::GroupSpec& b = s.groups[1];
  EXPECT_EQ(b.leader_group, 0);
  EXPECT_EQ(b.craft.thrust, 5.5);
  EXPECT_EQ(b.flock.neighbour_radius, 9);
  EXPECT_EQ(b.flock.fov_deg, 180);
  EXPECT_TRUE(b.detection.seed_literal);
  EXPECT_EQ(b.capture_radius, 1.75);
  EXPECT_EQ(b.offset, (math::Vec2{-1, 1}));
  EXPECT_FALSE(s.paths[0].loop);
}

TEST(ScenarioJson, ErrorsNameTheKeyPath) {
  EXPECT_NE(error_of(R"({"widht": 5})").find("widht: unknown key"), std::string::npos);
  EXPECT_NE(error_of(R"({"width": "wide"})").find("width: expected a number"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"technique": "teleport"}]})").find("groups[0].technique: unknown technique"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{}, {"max_sped": 3}]})").find("groups[1].max_sped: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"flock": {"radius": 3}}]})").find("groups[0].flock.radius: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"kind": "dragon"}]})").find("groups[0].kind: unknown kind"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"path": "nowhere"}]})").find("groups[0].path: no entry named 'nowhere'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"obstacles": [{"center": [1, 2]}]})").find("obstacles[0]: needs center and radius"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"obstacles": [{"center": [1], "radius": 2}]})").find("obstacles[0].center: expected [x, y]"),
            std::string::npos);
  // sim::validate's messages name the field too.
  EXPECT_NE(error_of(R"({"grid_cell": 4, "groups": [{"flock": {"neighbour_radius": 6}}]})")
                .find("groups[0].flock.neighbour_radius"),
            std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("scenario: expected an object"), std::string::npos);
  EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"count": -1}]})").find("groups[0].count"), std::string::npos);
}

/// Every field of two scenarios is equal (group parameters through the one group_fields table).
void expect_same(const sim::Scenario& a, const sim::Scenario& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  EXPECT_EQ(a.wrap, b.wrap);
  EXPECT_EQ(a.tick_rate_hz, b.tick_rate_hz);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.max_agents, b.max_agents);
  EXPECT_EQ(a.max_players, b.max_players);
  EXPECT_EQ(a.grid_cell, b.grid_cell);
  EXPECT_EQ(a.respawn_protection_s, b.respawn_protection_s);
  EXPECT_EQ(a.player_craft.mass, b.player_craft.mass);
  EXPECT_EQ(a.player_craft.inertia, b.player_craft.inertia);
  EXPECT_EQ(a.player_craft.length, b.player_craft.length);
  EXPECT_EQ(a.player_craft.thrust, b.player_craft.thrust);
  EXPECT_EQ(a.player_craft.max_steering_force, b.player_craft.max_steering_force);
  EXPECT_EQ(a.player_craft.linear_drag, b.player_craft.linear_drag);
  EXPECT_EQ(a.player_craft.lateral_drag, b.player_craft.lateral_drag);
  EXPECT_EQ(a.player_craft.angular_drag, b.player_craft.angular_drag);
  ASSERT_EQ(a.obstacles.size(), b.obstacles.size());
  for (std::size_t i = 0; i < a.obstacles.size(); ++i) {
    EXPECT_EQ(a.obstacles[i].center, b.obstacles[i].center);
    EXPECT_EQ(a.obstacles[i].radius, b.obstacles[i].radius);
  }
  ASSERT_EQ(a.walls.size(), b.walls.size());
  for (std::size_t i = 0; i < a.walls.size(); ++i) {
    EXPECT_EQ(a.walls[i].a, b.walls[i].a);
    EXPECT_EQ(a.walls[i].b, b.walls[i].b);
  }
  ASSERT_EQ(a.paths.size(), b.paths.size());
  for (std::size_t i = 0; i < a.paths.size(); ++i) {
    EXPECT_EQ(a.paths[i].name, b.paths[i].name);
    EXPECT_EQ(a.paths[i].points, b.paths[i].points);
    EXPECT_EQ(a.paths[i].loop, b.paths[i].loop);
  }
  EXPECT_EQ(a.tiles.cols, b.tiles.cols);
  EXPECT_EQ(a.tiles.rows, b.tiles.rows);
  EXPECT_EQ(a.tiles.cell, b.tiles.cell);
  EXPECT_EQ(a.tiles.blocked, b.tiles.blocked);
  ASSERT_EQ(a.tile_patterns.size(), b.tile_patterns.size());
  for (std::size_t i = 0; i < a.tile_patterns.size(); ++i) {
    EXPECT_EQ(a.tile_patterns[i].name, b.tile_patterns[i].name);
    EXPECT_EQ(a.tile_patterns[i].vertices, b.tile_patterns[i].vertices);
    EXPECT_EQ(a.tile_patterns[i].row_offset, b.tile_patterns[i].row_offset);
    EXPECT_EQ(a.tile_patterns[i].col_offset, b.tile_patterns[i].col_offset);
  }
  ASSERT_EQ(a.tracks.size(), b.tracks.size());
  for (std::size_t i = 0; i < a.tracks.size(); ++i) {
    EXPECT_EQ(a.tracks[i].name, b.tracks[i].name);
    EXPECT_EQ(a.tracks[i].segments, b.tracks[i].segments);
  }
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    const sim::GroupSpec& x = a.groups[i];
    const sim::GroupSpec& y = b.groups[i];
    SCOPED_TRACE("group " + x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.technique, y.technique);
    EXPECT_EQ(x.count, y.count);
    EXPECT_EQ(x.spawn_min, y.spawn_min);
    EXPECT_EQ(x.spawn_max, y.spawn_max);
    EXPECT_EQ(x.offset, y.offset);
    EXPECT_EQ(x.goal, y.goal);
    EXPECT_EQ(x.path, y.path);
    EXPECT_EQ(x.leader_group, y.leader_group);
    EXPECT_EQ(x.target_group, y.target_group);
    EXPECT_EQ(x.tile_pattern, y.tile_pattern);
    EXPECT_EQ(x.track, y.track);
    EXPECT_EQ(x.pattern, y.pattern);
    for (const codec::GroupField& f : codec::group_fields()) EXPECT_EQ(f.get(x), f.get(y)) << f.name;
  }
}

TEST(ScenarioJson, ExportOfTheShippedArenaRoundTripsExactly) {
  const sim::Scenario s = load_scenario_file(std::string(FLOCKSTEP_SOURCE_DIR) + "/scenarios/arena.json");
  const std::string text = scenario_to_json(s);
  const sim::Scenario back = parse_scenario(text);
  expect_same(s, back);
  EXPECT_EQ(scenario_to_json(back), text);
}

TEST(ScenarioJson, ExportRoundTripsAwkwardDoublesAndEveryReference) {
  sim::Scenario s = parse_scenario(R"({"name": "x", "description": "d \"quoted\"", "width": 100, "height": 80,
    "paths": [{"name": "p", "points": [[1, 2], [3, 4]]}],
    "groups": [{"name": "a", "technique": "path_follow", "path": "p", "count": 1},
               {"name": "b", "technique": "offset_pursuit", "leader_group": "a", "target_group": "a", "goal": [3, 4]}]})");
  s.groups[1].max_speed = 0.1 + 0.2;  // 0.30000000000000004
  s.groups[1].flock.w_cohesion = 1.0 / 3.0;
  s.groups[1].detection.seed_literal = true;
  s.groups[1].pattern = sim::PatternKind::kZigZag;
  s.respawn_protection_s = 1e-300;
  s.width = 123.456789012345678;
  s.seed = 0x7fffffffffffffffULL;
  const sim::Scenario back = parse_scenario(scenario_to_json(s));
  expect_same(s, back);
}

// T26-T28 troll patrol demo: a tile map drawn as text, a pattern and a track referenced by name.
constexpr const char* kTileScenario = R"({
  "name": "trolls", "width": 48, "height": 24, "tick_rate_hz": 60,
  "tiles": {"cols": 12, "rows": 6, "cell": 4, "rows_text": [
    "############",
    "#..........#",
    "#..#####...#",
    "#..........#",
    "#..........#",
    "############"]},
  "tile_patterns": [{"name": "loop", "vertices": [[0, 0], [0, 8], [3, 8], [3, 0], [0, 0]], "offset": [1, 1]}],
  "tracks": [{"name": "rail", "segments": [[1, 1, 1, 10], [1, 10, 4, 10]]}],
  "groups": [
    {"name": "troll", "kind": "pursuer", "technique": "tile_patrol", "tile_pattern": "loop", "count": 2,
     "tile_speed": 3, "chase_range": 10},
    {"name": "walker", "kind": "patrol", "technique": "tile_track", "track": "rail", "count": 1},
    {"name": "hunter", "kind": "pursuer", "technique": "tile_chase", "count": 1, "target_group": "walker"}
  ]})";

TEST(ScenarioJson, T26_T28_TileMapPatternsAndTracksAreReadTopRowFirst) {
  const sim::Scenario s = parse_scenario(kTileScenario);
  ASSERT_EQ(s.tiles.cols, 12);
  ASSERT_EQ(s.tiles.rows, 6);
  EXPECT_EQ(s.tiles.cell, 4);
  ASSERT_EQ(s.tiles.blocked.size(), 72u);
  // rows_text[2] = "#..#####...#" is row 3 (row 0 is the bottom row, the last string).
  EXPECT_EQ(s.tiles.blocked[3 * 12 + 3], 1);
  EXPECT_EQ(s.tiles.blocked[3 * 12 + 2], 0);
  EXPECT_EQ(s.tiles.blocked[2 * 12 + 3], 0);
  EXPECT_EQ(s.tiles.blocked[0], 1);
  ASSERT_EQ(s.tile_patterns.size(), 1u);
  EXPECT_EQ(s.tile_patterns[0].vertices.size(), 5u);
  EXPECT_EQ(s.tile_patterns[0].row_offset, 1);
  EXPECT_EQ(s.tile_patterns[0].col_offset, 1);
  ASSERT_EQ(s.tracks.size(), 1u);
  EXPECT_EQ(s.tracks[0].segments[1], (std::array<std::int32_t, 4>{1, 10, 4, 10}));
  EXPECT_EQ(s.groups[0].tile_pattern, 0);
  EXPECT_EQ(s.groups[0].tile_speed, 3);
  EXPECT_EQ(s.groups[0].chase_range, 10);
  EXPECT_EQ(s.groups[1].track, 0);
  EXPECT_EQ(s.groups[2].target_group, 1);
  EXPECT_EQ(s.groups[2].technique, sim::Technique::kTileChase);
  // The world runs it.
  sim::World w(s);
  for (int t = 0; t < 120; ++t) w.step();
  EXPECT_EQ(w.size(), 4);
}

TEST(ScenarioJson, T26_T28_TileScenarioExportRoundTripsExactly) {
  const sim::Scenario s = parse_scenario(kTileScenario);
  const std::string text = scenario_to_json(s);
  EXPECT_NE(text.find("\"#..#####...#\""), std::string::npos) << text;
  const sim::Scenario back = parse_scenario(text);
  expect_same(s, back);
  EXPECT_EQ(scenario_to_json(back), text);
}

TEST(ScenarioJson, TileErrorsNameTheKey) {
  auto with_tiles = [](const std::string& tiles, const std::string& rest = "") {
    return error_of(R"({"width": 48, "height": 24, "tiles": )" + tiles + rest + "}");
  };
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2, "rows_text": ["...", "..x"]})")
                .find("tiles.rows_text[1]: character 2 must be '#'"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2, "rows_text": ["...", "...."]})")
                .find("tiles.rows_text[1]: expected 3 characters"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2, "rows_text": ["..."]})").find("tiles.rows_text: expected 2 strings"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2, "size": 4})").find("tiles.size: unknown key"), std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 13, "rows": 2})").find("tiles.cols: cols * cell must be <= width"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 0})").find("tiles.rows"), std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2, "rows_text": ["...", "#.."]})",
                       R"(, "tile_patterns": [{"vertices": [[0, 0], [0, 2], [0, 0]]}])")
                .find("tile_patterns[0]: tile (0, 0) is blocked"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2})", R"(, "tile_patterns": [{"vertices": [[0, 0], [0, 2]]}])")
                .find("tile_patterns[0].vertices: the last vertex must equal the first"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2})", R"(, "tile_patterns": [{"vertices": [[0, 0, 1]]}])")
                .find("tile_patterns[0].vertices[0]: expected [row, col]"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2})", R"(, "tracks": [{"segments": [[0, 0, 5, 0]]}])")
                .find("tracks[0].segments[0]: tile (2, 0) is off the tile map"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2})", R"(, "tracks": [{"segments": [[0, 0, 1]]}])")
                .find("tracks[0].segments[0]: expected [row0, col0, row1, col1]"),
            std::string::npos);
  EXPECT_NE(
      with_tiles(R"({"cols": 3, "rows": 2})", R"(, "groups": [{"technique": "tile_patrol", "tile_pattern": "nope"}])")
          .find("groups[0].tile_pattern: no entry named 'nope'"),
      std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2})", R"(, "groups": [{"technique": "tile_track"}])")
                .find("groups[0].track: must name an existing track"),
            std::string::npos);
  EXPECT_NE(with_tiles(R"({"cols": 3, "rows": 2})", R"(, "groups": [{"technique": "tile_chase", "tile_speed": 0}])")
                .find("groups[0].tile_speed: must be in (0, tick_rate_hz]"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"technique": "tile_chase"}]})")
                .find("groups[0].technique: tile techniques need a tile map"),
            std::string::npos);
}

TEST(ScenarioJson, MissingFileIsNamed) {
  try {
    load_scenario_file("/nonexistent/arena.json");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/arena.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace flockstep::server::game
