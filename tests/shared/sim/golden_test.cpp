// Golden-hash determinism (house style section 3). The same test binary is built natively and
// with Emscripten and run under node; both must reproduce these constants bit for bit.
// Changing a constant is a deliberate, explained commit: say which behaviour changed and why.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "flockstep/sim/canonical.hpp"

namespace flockstep::sim {
namespace {

std::uint64_t run(const Scenario& s, std::int32_t ticks, bool with_player) {
  World w(s);
  AgentId player{};
  if (with_player) player = w.add_player();
  for (std::int32_t t = 0; t < ticks; ++t) {
    if (with_player) w.set_input(player, canonical::evasive_input(w.tick()));
    w.step();
  }
  const std::uint64_t h = w.state_hash();
  std::printf("[ golden   ] %-8s ticks=%d hash=0x%016" PRIx64 "\n", s.name.c_str(), ticks, h);
  return h;
}

TEST(Golden, Flock500WithObstacles) { EXPECT_EQ(run(canonical::flock(500), 2000, false), 0xd705e59de33d2017ULL); }
TEST(Golden, PursuitInterceptAgainstEvadingPlayer) { EXPECT_EQ(run(canonical::pursuit(), 3000, true), 0x10ec4c440ff84f2cULL); }
TEST(Golden, PatrolPatternsAndPaths) { EXPECT_EQ(run(canonical::patrols(), 3000, false), 0x8e45305b98d1ee64ULL); }
TEST(Golden, MixedArena) { EXPECT_EQ(run(canonical::mixed(), 1000, true), 0xbf3953a0c93a7e7fULL); }

TEST(Golden, HashIsSensitiveToOneBit) {
  Scenario a = canonical::pursuit();
  Scenario b = canonical::pursuit();
  b.player_craft.thrust = std::nextafter(b.player_craft.thrust, 1e9);  // one ulp
  const std::uint64_t ha = run(a, 600, true);  // locals: argument order is unspecified
  const std::uint64_t hb = run(b, 600, true);
  EXPECT_NE(ha, hb);
}

}  // namespace
}  // namespace flockstep::sim
