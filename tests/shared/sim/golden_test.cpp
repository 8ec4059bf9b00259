// Golden-hash determinism (house style section 3). The same test binary is built natively and
// with Emscripten and run under node; both must reproduce these constants bit for bit.
// The constants live in golden_hashes.hpp (shared with the task-runner and thread-pool tests);
// changing one is a deliberate, explained commit: say which behaviour changed and why.
#include <gtest/gtest.h>

#include <cmath>

#include "golden_hashes.hpp"

namespace flockstep::sim {
namespace {

using golden::run;

TEST(Golden, Flock500WithObstacles) { EXPECT_EQ(run(canonical::flock(500), 2000, false), golden::kFlock500); }
TEST(Golden, PursuitInterceptAgainstEvadingPlayer) {
  EXPECT_EQ(run(canonical::pursuit(), 3000, true), golden::kPursuit);
}
TEST(Golden, PatrolPatternsAndPaths) { EXPECT_EQ(run(canonical::patrols(), 3000, false), golden::kPatrols); }
TEST(Golden, MixedArena) { EXPECT_EQ(run(canonical::mixed(), 1000, true), golden::kMixedArena); }

TEST(Golden, HashIsSensitiveToOneBit) {
  Scenario a = canonical::pursuit();
  Scenario b = canonical::pursuit();
  b.player_craft.thrust = std::nextafter(b.player_craft.thrust, 1e9);  // one ulp
  const std::uint64_t ha = run(a, 600, true);                          // locals: argument order is unspecified
  const std::uint64_t hb = run(b, 600, true);
  EXPECT_NE(ha, hb);
}

}  // namespace
}  // namespace flockstep::sim
