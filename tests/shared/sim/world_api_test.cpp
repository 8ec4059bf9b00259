// The World's public surface: copies and moves of the handle behave as values (the storage
// behind it is private, world_impl.hpp), world.hpp pulls in no behaviour or private header, and
// only files that use a World include it.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"

#ifndef FLOCKSTEP_SOURCE_DIR
#error "FLOCKSTEP_SOURCE_DIR must name the repository root (tests/CMakeLists.txt defines it)"
#endif

namespace flockstep::sim {
namespace {

namespace fs = std::filesystem;

/// Step `w` `ticks` times, steering its player (if any) with the pursuit scenario's weave.
void run(World& w, AgentId player, int ticks) {
  for (int t = 0; t < ticks; ++t) {
    if (player.valid()) w.set_input(player, canonical::evasive_input(w.tick()));
    w.step();
  }
}

TEST(WorldApi, CopyStepsExactlyAsTheOriginalAndOwnsItsState) {
  World a(canonical::pursuit());
  const AgentId player = a.add_player();
  run(a, player, 30);
  World copy(a);
  ASSERT_EQ(copy.state_hash(), a.state_hash());
  run(a, player, 60);
  run(copy, player, 60);
  EXPECT_EQ(copy.state_hash(), a.state_hash()) << "a copy steps as the original";
  EXPECT_EQ(copy.tick(), 90u);
  // Independent storage: stepping the copy leaves the original where it was.
  const std::uint64_t before = a.state_hash();
  run(copy, player, 10);
  EXPECT_EQ(a.state_hash(), before);
  EXPECT_NE(copy.state_hash(), before) << "the copy moved on (or the check proves nothing)";
  // Copy assignment replaces the whole state, agents included.
  World other(canonical::flock(50));
  other = a;
  EXPECT_EQ(other.state_hash(), a.state_hash());
  EXPECT_EQ(other.size(), a.size());
}

TEST(WorldApi, MovedWorldKeepsSteppingFromWhereItWas) {
  World a(canonical::flock(200));
  World reference(canonical::flock(200));
  run(a, {}, 20);
  run(reference, {}, 20);
  World moved(std::move(a));
  run(moved, {}, 40);
  run(reference, {}, 40);
  EXPECT_EQ(moved.state_hash(), reference.state_hash());
  World assigned(canonical::flock(10));
  assigned = std::move(moved);
  EXPECT_EQ(assigned.state_hash(), reference.state_hash());
  EXPECT_EQ(assigned.size(), 200);
}

// ---- what the public header pulls in, and who includes it ----

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

/// The lines of a text.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// The include targets of a source text, in order.
std::vector<std::string> includes(const std::string& text) {
  static const std::regex kInclude(R"(^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"])");
  std::vector<std::string> out;
  std::smatch m;
  for (const std::string& line : lines_of(text))
    if (std::regex_search(line, m, kInclude)) out.push_back(m[1].str());
  return out;
}

/// True when a source text includes world.hpp but never names World outside comments and
/// preprocessor lines (WorldState, WorldImpl and the like do not count: they are other types).
/// Comments are recognised by line (`//` to the end; lines starting with `/*` or `*`), which is
/// how this tree writes them; a regex over whole files would backtrack through long comments.
bool includes_world_without_using_it(const std::string& text) {
  bool included = false;
  for (const std::string& inc : includes(text)) included |= inc == "flockstep/sim/world.hpp";
  if (!included) return false;
  static const std::regex kWorld(R"(\bWorld\b)");
  for (const std::string& line : lines_of(text)) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line.compare(first, 2, "/*") == 0 || line[first] == '*')
      continue;
    if (std::regex_search(line.substr(0, line.find("//")), kWorld)) return false;
  }
  return true;
}

TEST(WorldApi, IncludeDetectorFlagsOnlyFilesThatDoNotUseAWorld) {
  const std::string unused =
      "#include \"flockstep/sim/world.hpp\"\n// a World is mentioned only here\n"
      "sim::WorldState s;  // World\n/* World\n * World */\n";
  const std::string used = "#include <vector>\n#  include \"flockstep/sim/world.hpp\"\nvoid f(const sim::World& w);\n";
  const std::string not_included = "#include \"flockstep/sim/world_state.hpp\"\nint x;\n";
  EXPECT_TRUE(includes_world_without_using_it(unused));
  EXPECT_FALSE(includes_world_without_using_it(used));
  EXPECT_FALSE(includes_world_without_using_it(not_included));
  EXPECT_EQ(includes(used), (std::vector<std::string>{"vector", "flockstep/sim/world.hpp"}));
}

TEST(WorldApi, PublicHeaderIncludesNoBehaviourOrPrivateHeader) {
  const fs::path header = fs::path(FLOCKSTEP_SOURCE_DIR) / "shared/include/flockstep/sim/world.hpp";
  std::error_code ec;
  ASSERT_TRUE(fs::is_regular_file(header, ec)) << header << " is not readable here";
  const std::vector<std::string> inc = includes(read(header));
  ASSERT_GE(inc.size(), 3u) << "found too few includes for the check to mean anything";
  for (const std::string& i : inc) {
    EXPECT_NE(i.rfind("flockstep/behavior/", 0), 0u) << "world.hpp includes " << i;
    EXPECT_EQ(i.find("world_impl"), std::string::npos) << "world.hpp includes " << i;
    EXPECT_EQ(i.find("world_storage"), std::string::npos) << "world.hpp includes " << i;
    EXPECT_NE(i, "flockstep/sim/world_state.hpp") << "WorldState is declared, not included";
  }
}

TEST(WorldApi, OnlyFilesThatUseAWorldIncludeWorldHpp) {
  const fs::path root(FLOCKSTEP_SOURCE_DIR);
  std::vector<std::string> offenders;
  std::int32_t includers = 0, scanned = 0;
  for (const char* top : {"shared", "server", "client", "proto", "tools", "bench", "tests", "sdk"}) {
    std::error_code ec;
    if (!fs::is_directory(root / top, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root / top, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_directory() && (name == "node_modules" || name == "build")) {
        it.disable_recursion_pending();
        continue;
      }
      const std::string ext = it->path().extension().string();
      if (!it->is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
      ++scanned;
      const std::string text = read(it->path());
      for (const std::string& inc : includes(text)) includers += inc == "flockstep/sim/world.hpp" ? 1 : 0;
      if (includes_world_without_using_it(text))
        offenders.push_back(it->path().lexically_relative(root).generic_string());
    }
  }
  // The walk must have found the includers, or an empty list would prove nothing.
  EXPECT_GE(includers, 20) << "scanned " << scanned << " files";
  std::string list;
  for (const std::string& o : offenders) list += "  " + o + "\n";
  EXPECT_TRUE(offenders.empty()) << "include what you use: these include world.hpp without using a World:\n" << list;
}

}  // namespace
}  // namespace flockstep::sim
