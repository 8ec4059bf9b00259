// Scenario files: the shipped arena loads; every error names its key path.
#include <gtest/gtest.h>

#include <string>

#include "game/scenario_json.hpp"

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
  EXPECT_NE(error_of(R"({"groups": [{"technique": "teleport"}]})").find("groups[0].technique: unknown technique"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{}, {"max_sped": 3}]})").find("groups[1].max_sped: unknown key"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"flock": {"radius": 3}}]})").find("groups[0].flock.radius: unknown key"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"kind": "dragon"}]})").find("groups[0].kind: unknown kind"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"path": "nowhere"}]})").find("groups[0].path: no entry named 'nowhere'"), std::string::npos);
  EXPECT_NE(error_of(R"({"obstacles": [{"center": [1, 2]}]})").find("obstacles[0]: needs center and radius"), std::string::npos);
  EXPECT_NE(error_of(R"({"obstacles": [{"center": [1], "radius": 2}]})").find("obstacles[0].center: expected [x, y]"), std::string::npos);
  // sim::validate's messages name the field too.
  EXPECT_NE(error_of(R"({"grid_cell": 4, "groups": [{"flock": {"neighbour_radius": 6}}]})").find("groups[0].flock.neighbour_radius"),
            std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("scenario: expected an object"), std::string::npos);
  EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"groups": [{"count": -1}]})").find("groups[0].count"), std::string::npos);
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
