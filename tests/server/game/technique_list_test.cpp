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

namespace flockstep::server::game {
namespace {

std::vector<ScenarioFile> shipped() {
  return load_scenario_files((std::filesystem::path(FLOCKSTEP_SOURCE_DIR) / "scenarios").string());
}

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

TEST(Techniques, AtLeast75AreUsedByShippedScenarios) {
  const auto files = shipped();
  const int used = techniques_used(files);
  std::printf("[figures] %d of 82 catalog techniques are used by the %zu shipped scenarios\n", used, files.size());
  EXPECT_GE(used, 75);
  const std::string list = technique_list(files);
  EXPECT_NE(list.find("T42  behavior dynamic_seek  [millington.json]"), std::string::npos) << list;
  EXPECT_NE(list.find("T12  internal: math::wrap_angle"), std::string::npos);
}

TEST(Techniques, UsesFollowPresetsAndSwitchedOffBehavioursDoNotCount) {
  sim::Scenario s;
  sim::GroupSpec g;
  g.technique = sim::Technique::kChase;
  g.kind = sim::AgentKind::kPursuer;
  s.groups.push_back(g);
  const auto uses = sim::scenario_uses(s);
  EXPECT_TRUE(std::binary_search(uses.begin(), uses.end(), "behavior:seek"));
  EXPECT_TRUE(std::binary_search(uses.begin(), uses.end(), "combiner:running_sum"));
  s.groups[0].layers.obstacles = 0;
  const auto off = sim::scenario_uses(s);
  EXPECT_FALSE(std::binary_search(off.begin(), off.end(), "behavior:obstacle_avoid"));
}

TEST(Techniques, DocsTechniquesMdIsCurrent) {
  const std::filesystem::path doc = std::filesystem::path(FLOCKSTEP_SOURCE_DIR) / "docs" / "techniques.md";
  std::ifstream in(doc);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), technique_reference_markdown(shipped()))
      << "docs/techniques.md is stale: regenerate it from the repository root with\n"
         "  build/release/server/flockstep-server --list-techniques=markdown > docs/techniques.md";
}

}  // namespace
}  // namespace flockstep::server::game
