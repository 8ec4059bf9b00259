// Scenario JSON in the codec layer: what the viewer's lab relies on, natively and in wasm (where
// only scenario_json.cpp catches exceptions). The file-based tests of the shipped scenarios are
// the server's (tests/server/game/scenario_json_test.cpp, scenarios_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "codec/scenario_json.hpp"

namespace flockstep::codec {
namespace {

TEST(ScenarioJsonCodec, TryParseReturnsTheScenario) {
  std::string error;
  const auto s = try_parse_scenario(R"({"name": "lab", "width": 120, "height": 90, "seed": 7,
    "groups": [{"name": "boids", "technique": "flock", "count": 30}]})",
                                    error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->name, "lab");
  EXPECT_EQ(s->width, 120);
  ASSERT_EQ(s->groups.size(), 1u);
  EXPECT_EQ(s->groups[0].count, 30);
  EXPECT_TRUE(error.empty());
}

TEST(ScenarioJsonCodec, TryParseReportsTheKeyPathInsteadOfThrowing) {
  // In the wasm build an exception escaping here would abort the test program.
  std::string error;
  EXPECT_FALSE(try_parse_scenario(R"({"groups": [{}, {"max_sped": 3}]})", error).has_value());
  EXPECT_NE(error.find("groups[1].max_sped: unknown key"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(try_parse_scenario("{not json", error).has_value());
  EXPECT_NE(error.find("not valid JSON"), std::string::npos) << error;
}

TEST(ScenarioJsonCodec, ExportedJsonParsesBackToTheSameScenario) {
  std::string error;
  const auto s = try_parse_scenario(R"({"name": "lab", "width": 150, "height": 100, "seed": 3,
    "groups": [{"name": "boids", "technique": "flock", "count": 12, "max_speed": 5.25}]})",
                                    error);
  ASSERT_TRUE(s.has_value()) << error;
  const std::string text = scenario_to_json(*s);
  const auto back = try_parse_scenario(text, error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(scenario_to_json(*back), text);
  EXPECT_EQ(back->groups[0].max_speed, 5.25);
  EXPECT_EQ(back->seed, 3u);
}

}  // namespace
}  // namespace flockstep::codec
