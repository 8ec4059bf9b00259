// The technique table (sim/techniques.hpp), --list-techniques and docs/techniques.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "flockstep/sim/techniques.hpp"
#include "game/rooms.hpp"
#include "game/technique_list.hpp"
#include "scenario_test_util.hpp"

namespace flockstep::server::game {
namespace {

TEST(Techniques, TableHoldsT01ToT82InOrder) {
  const auto t = sim::technique_table();
  ASSERT_EQ(t.size(), 82u);
  for (std::size_t k = 0; k < t.size(); ++k) {
    char id[24];
    std::snprintf(id, sizeof id, "T%02zu", k + 1);
    EXPECT_EQ(t[k].id, id);
    EXPECT_FALSE(t[k].keys.empty()) << id;
  }
}

TEST(Techniques, EveryBehaviourAndTechniqueNameCarriesACatalogId) {
  std::set<std::string> keys;
  for (const sim::TechniqueEntry& e : sim::technique_table()) {
    std::string_view k = e.keys;
    while (!k.empty()) {
      const auto sp = k.find(' ');
      keys.insert(std::string(k.substr(0, sp)));
      if (sp == std::string_view::npos) break;
      k.remove_prefix(sp + 1);
    }
  }
  for (int b = 0; b < static_cast<int>(sim::BehaviorType::kCount); ++b) {
    const std::string name = sim::behavior_name(static_cast<sim::BehaviorType>(b));
    EXPECT_TRUE(keys.count("behavior:" + name)) << "behaviour " << name << " is in no catalog entry";
  }
  for (int t = 0; t < static_cast<int>(sim::Technique::kCount); ++t) {
    const auto tech = static_cast<sim::Technique>(t);
    if (tech == sim::Technique::kPlayer || tech == sim::Technique::kComposed) continue;
    sim::GroupSpec g;
    g.technique = tech;
    if (!sim::composition_of(g).behaviors.empty()) continue;  // a vehicle preset: carried by its behaviours
    EXPECT_TRUE(keys.count(std::string("technique:") + sim::technique_name(tech))) << sim::technique_name(tech);
  }
}

TEST(Techniques, AtLeast76RanInTheShippedScenariosAndTheListCreditsOnlyWhatRan) {
  const scenario_test::ShippedCoverage& cov = scenario_test::shipped_coverage();
  const int used = techniques_used(cov.counts);
  std::printf("[figures] %d of 82 catalog techniques ran in the %zu shipped scenarios\n", used, cov.files.size());
  EXPECT_GE(used, 76);
  const std::string list = technique_list(cov.files, cov.counts);
  EXPECT_NE(list.find("T12  internal: math::wrap_angle"), std::string::npos);
  // Every file named on a line ran that ID in its coverage run.
  std::size_t e = 0;
  for (const sim::TechniqueEntry& t : sim::technique_table()) {
    const std::size_t at = list.find(std::string(t.id) + "  ");
    ASSERT_NE(at, std::string::npos) << t.id;
    const std::string line = list.substr(at, list.find('\n', at) - at);
    for (std::size_t k = 0; k < cov.files.size(); ++k) {
      const bool named = line.find(cov.files[k].file) != std::string::npos;
      EXPECT_EQ(named, cov.counts[k][e] > 0) << line << " / " << cov.files[k].file;
    }
    ++e;
  }
}

TEST(Techniques, T73_T75_T65_ConfiguredButIdleLayersEarnNoCredit) {
  // A wanderer runs the preset layers wall_avoid, obstacle_avoid, flee_players and wander. In an
  // empty wrapping room (no walls, not even borders) with a panic range of 0 only the wander and
  // the running sum do any work.
  sim::Scenario s;
  s.name = "idle";
  s.wrap = true;
  s.width = 100;
  s.height = 100;
  sim::GroupSpec g;
  g.name = "wanderers";
  g.kind = sim::AgentKind::kWanderer;
  g.technique = sim::Technique::kWander;
  g.count = 4;
  g.panic_range = 0;
  s.groups.push_back(g);
  const std::vector<ScenarioFile> idle{{"idle.json", s}};
  const std::string list = technique_list(idle);
  EXPECT_NE(list.find("T71  behavior wander  [idle.json]"), std::string::npos) << list;
  EXPECT_NE(list.find("T73  behavior obstacle_avoid  [no scenario]"), std::string::npos) << list;
  EXPECT_NE(list.find("T75  behavior wall_avoid  [no scenario]"), std::string::npos) << list;
  EXPECT_NE(list.find("T65  behavior flee  [no scenario]"), std::string::npos) << list;
  // Control: give the room rocks, a wall and a panic range, and the same layers earn it.
  s.obstacles.push_back({{50, 50}, 3});
  s.obstacles.push_back({{30, 70}, 3});
  s.walls.push_back({{10, 10}, {10, 90}});
  s.groups[0].panic_range = 10;
  s.groups[0].spawn_min = {20, 20};
  s.groups[0].spawn_max = {80, 80};
  const std::vector<ScenarioFile> busy{{"busy.json", s}};
  const std::string list2 = technique_list(busy);
  EXPECT_NE(list2.find("T73  behavior obstacle_avoid  [busy.json]"), std::string::npos) << list2;
  EXPECT_NE(list2.find("T75  behavior wall_avoid  [busy.json]"), std::string::npos) << list2;
  EXPECT_NE(list2.find("T65  behavior flee  [busy.json]"), std::string::npos) << list2;
}

TEST(Techniques, DocsTechniquesMdIsCurrent) {
  const std::filesystem::path doc = std::filesystem::path(FLOCKSTEP_SOURCE_DIR) / "docs" / "techniques.md";
  std::ifstream in(doc);
  std::stringstream ss;
  ss << in.rdbuf();
  const scenario_test::ShippedCoverage& cov = scenario_test::shipped_coverage();
  EXPECT_EQ(ss.str(), technique_reference_markdown(cov.files, cov.counts))
      << "docs/techniques.md is stale: regenerate it from the repository root with\n"
         "  build/release/server/flockstep-server --list-techniques=markdown > docs/techniques.md";
}

}  // namespace
}  // namespace flockstep::server::game
