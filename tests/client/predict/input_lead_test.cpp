// InputLead and PredictionStats: the client's input lead and reconciliation bookkeeping.
#include "predict/input_lead.hpp"
#include "predict/prediction_stats.hpp"

#include <gtest/gtest.h>

namespace flockstep::client {
namespace {

TEST(InputLead, PlayerStartsWithTheInitialLeadSpectatorWithNone) {
  InputLead p;
  p.start(true, 0);
  std::int32_t extra = 0;
  while (p.take_owed(0)) ++extra;
  EXPECT_EQ(extra, InputLead::kInitialLeadTicks);
  InputLead s;
  s.start(false, 0);
  EXPECT_FALSE(s.take_owed(0));
}

TEST(InputLead, StarvedTickShiftAddsOneInput) {
  InputLead l;
  l.start(true, 0);
  while (l.take_owed(0)) {
  }
  l.observe(100, 90, 95, 2, 10);  // tick - seq = 10
  l.observe(103, 93, 98, 2, 60);  // still 10: no starvation
  EXPECT_EQ(l.owed(), 0);
  l.observe(106, 95, 100, 2, 110);  // 11: the server held one input
  EXPECT_EQ(l.owed(), 1);
  EXPECT_EQ(l.adjustments(), 1);
  l.observe(120, 95, 100, 2, 160);  // a shift of 14 is capped
  EXPECT_EQ(l.owed(), 1 + InputLead::kMaxOwedPerShift);
}

TEST(InputLead, NoAppliedInputYetChangesNothing) {
  InputLead l;
  l.start(false, 0);
  l.observe(100, 0, 5, 2, 10);
  l.observe(200, 0, 5, 2, 20);
  EXPECT_EQ(l.owed(), 0);
  EXPECT_EQ(l.adjustments(), 0);
}

TEST(InputLead, QueueAboveTheLimitForAWholeWindowTrimsOneTick) {
  InputLead l;
  l.start(false, 0);
  // 12 unacked, 2 in flight: 10 queued > 7, for longer than the window.
  for (int k = 0; k <= 5; ++k)
    l.observe(100 + k, static_cast<std::uint32_t>(90 + k), static_cast<std::uint32_t>(102 + k), 2, k * 500.0);
  EXPECT_EQ(l.skips(), 1);
  EXPECT_TRUE(l.take_skip());
  EXPECT_FALSE(l.take_skip());
}

TEST(InputLead, QueueDippingBelowTheLimitInTheWindowKeepsTheLead) {
  InputLead l;
  l.start(false, 0);
  l.observe(100, 90, 102, 2, 0);
  l.observe(101, 91, 95, 2, 1000);  // 2 queued once in the window
  l.observe(102, 92, 104, 2, 2100);
  EXPECT_EQ(l.skips(), 0);
}

TEST(InputLead, OwedInputsStopAtTheUnackedBound) {
  InputLead l;
  l.start(true, 0);
  EXPECT_FALSE(l.take_owed(InputLead::kMaxLeadTicks + 30));
  EXPECT_TRUE(l.take_owed(0));
}

TEST(PredictionStats, CountsComparisonsCorrectionsHeldAndRespawns) {
  PredictionStats s;
  ReconcileResult ok;
  ok.compared = true;
  ok.error_m = 0;
  EXPECT_FALSE(s.add(ok, false));
  ReconcileResult bad;
  bad.compared = bad.corrected = true;
  bad.error_m = 0.25;
  EXPECT_TRUE(s.add(bad, false));
  ReconcileResult held;
  held.compared = held.held = true;
  held.error_m = 0.1;
  s.add(held, false);
  s.add(ReconcileResult{}, true);
  EXPECT_EQ(s.compared, 3u);
  EXPECT_EQ(s.corrections, 1u);
  EXPECT_EQ(s.held_states, 1u);
  EXPECT_EQ(s.respawns, 1u);
  EXPECT_NEAR(s.last_error_m, 0.1, 1e-6);
  EXPECT_NEAR(s.max_error_m, 0.25, 1e-6);
  s.reset();
  EXPECT_EQ(s.compared, 0u);
}

}  // namespace
}  // namespace flockstep::client
