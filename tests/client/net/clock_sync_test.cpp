// ClockSync: the server clock estimate follows the least-delayed snapshot.
#include "net/clock_sync.hpp"

#include <gtest/gtest.h>

namespace flockstep::client {
namespace {

constexpr double kDt = 1000.0 / 60;

TEST(ClockSync, FirstSampleSetsTheOffset) {
  ClockSync c;
  EXPECT_FALSE(c.valid());
  EXPECT_EQ(c.server_tick(1000, kDt), 0);
  c.observe(600, 5000, kDt);  // tick 600 = 10,000 ms of server time, seen at 5,000 ms local
  ASSERT_TRUE(c.valid());
  EXPECT_NEAR(c.offset_ms(), 10000 - 5000, 1e-9);
  EXPECT_NEAR(c.server_tick(5000 + kDt * 3, kDt), 603, 1e-9);
}

TEST(ClockSync, LessDelayedSnapshotWinsAtOnceMoreDelayedOnlyNudges) {
  ClockSync c;
  c.observe(600, 5040, kDt);  // arrived 40 ms late
  const double late = c.offset_ms();
  c.observe(603, 5000 + 3 * kDt, kDt);  // no delay: a larger sample
  EXPECT_NEAR(c.offset_ms(), late + 40, 1e-9);
  const double best = c.offset_ms();
  c.observe(606, 5000 + 6 * kDt + 100, kDt);  // 100 ms of jitter: moved by only 2 %
  EXPECT_NEAR(c.offset_ms(), best - 100 * ClockSync::kDriftGain, 1e-9);
}

TEST(ClockSync, FarOffSampleResets) {
  ClockSync c;
  c.observe(600, 5000, kDt);
  c.observe(600, 5000 + 1000, kDt);  // the same tick a second later: a stall, > kSnapMs
  EXPECT_NEAR(c.offset_ms(), 10000 - 6000, 1e-9);
  c.reset();
  EXPECT_FALSE(c.valid());
}

}  // namespace
}  // namespace flockstep::client
