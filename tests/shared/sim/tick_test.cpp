#include "flockstep/sim/tick.hpp"

#include <gtest/gtest.h>

#include "flockstep/math/rng.hpp"

namespace flockstep::sim {
namespace {

TEST(TickClock, T06_IrregularFrameTimesGiveWholeFixedSteps) {
  // Variable frame times in, whole fixed steps out: total steps = floor(total time / period).
  TickClock clock(100, 8);
  math::Rng rng = math::Rng::seeded(66);
  std::int64_t total = 0, steps = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t e = rng.range(0, 25000);
    total += e;
    steps += clock.advance(e);
  }
  EXPECT_EQ(steps, total / 10000);
}

TEST(TickClock, SixtyHertzHasNoDriftOverOneHour) {
  TickClock clock(60, 5);
  std::int64_t ticks = 0;
  // One hour in irregular 7 ms + 13 ms steps: exactly 216000 ticks, none dropped.
  for (std::int64_t t = 0; t < 3600LL * 1000000; t += 20000) {
    ticks += clock.advance(7000);
    ticks += clock.advance(13000);
  }
  EXPECT_EQ(ticks, 216000);
  EXPECT_EQ(clock.dropped_ticks(), 0u);
}

TEST(TickClock, CatchUpIsCappedAndCounted) {
  TickClock clock(60, 4);
  EXPECT_EQ(clock.advance(1000000), 4);  // one second stalled: 60 due, 4 run
  EXPECT_EQ(clock.dropped_ticks(), 56u);
  EXPECT_EQ(clock.advance(0), 0);
}

TEST(TickClock, NegativeElapsedIsIgnored) {
  TickClock clock(30, 3);
  EXPECT_EQ(clock.advance(-5000000), 0);
  EXPECT_EQ(clock.advance(33334), 1);
}

TEST(TickClock, UntilNextCountsDown) {
  TickClock clock(50, 3);  // 20 ms period
  EXPECT_EQ(clock.until_next_us(), 20000);
  EXPECT_EQ(clock.advance(15000), 0);
  EXPECT_EQ(clock.until_next_us(), 5000);
  EXPECT_EQ(clock.advance(5000), 1);
  EXPECT_EQ(clock.until_next_us(), 20000);
}

TEST(TickClock, HugeJumpDoesNotOverflow) {
  TickClock clock(240, 8);
  EXPECT_EQ(clock.advance(INT64_MAX / 2), 8);
  EXPECT_GT(clock.dropped_ticks(), 0u);
}

}  // namespace
}  // namespace flockstep::sim
