// layout_labels: screen-space labels never overlap, priorities win, off-screen ones are culled.
#include "view/label_layout.hpp"

#include <gtest/gtest.h>

namespace flockstep::client {
namespace {

bool overlap(const PlacedLabel& a, const PlacedLabel& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

TEST(LabelLayout, SeparateLabelsAreAllKeptCentredAboveTheirAnchor) {
  const LabelStyle st;
  auto out = layout_labels({{"alpha", 100, 100, 0, {}}, {"beta", 300, 200, 0, {}}}, 640, 400, st);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].text, "alpha");
  EXPECT_NEAR(out[0].x + out[0].w / 2, 100, 1e-9);
  EXPECT_NEAR(out[0].y + out[0].h, 100 - st.gap_px, 1e-9);
  EXPECT_NEAR(out[0].w, 5 * st.char_px + 2 * st.pad_px, 1e-9);
}

TEST(LabelLayout, CrowdedLabelsNeverOverlapAndHigherPriorityWins) {
  std::vector<LabelCandidate> c;
  for (int i = 0; i < 200; ++i)
    c.push_back({"boid " + std::to_string(i), 200.0 + (i % 20) * 3, 150.0 + (i / 20) * 3, 0, {}});
  c.push_back({"leader", 230, 165, 5, {}});
  auto out = layout_labels(c, 640, 400);
  ASSERT_FALSE(out.empty());
  EXPECT_LT(out.size(), 10u);  // 200 anchors within 60 x 30 px leave room for a few
  EXPECT_EQ(out[0].text, "leader");
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = i + 1; j < out.size(); ++j)
      EXPECT_FALSE(overlap(out[i], out[j])) << out[i].text << " / " << out[j].text;
}

TEST(LabelLayout, ATakenSpotFallsBackBelowThenBeside) {
  const LabelStyle st;
  auto out = layout_labels({{"first", 300, 200, 1, {}}, {"second", 300, 200, 0, {}}, {"third", 300, 200, 0, {}}}, 640,
                           400, st);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_LT(out[0].y + out[0].h, 200);  // above
  EXPECT_GT(out[1].y, 200);             // below
  EXPECT_GT(out[2].x, 300);             // right
}

TEST(LabelLayout, OffScreenAndEmptyLabelsAreCulled) {
  // Off screen wherever it goes (an anchor far outside), or empty: dropped.
  auto out = layout_labels({{"", 300, 200, 0, {}}, {"outside", 300, -60, 0, {}}, {"fine", 300, 300, 0, {}}}, 640, 400);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].text, "fine");
  // A long text at the left edge goes to the right of its anchor instead.
  auto edge = layout_labels({{"a rather long label at the left edge", 2, 100, 0, {}}}, 640, 400);
  ASSERT_EQ(edge.size(), 1u);
  EXPECT_GT(edge[0].x, 2);
  // Near the top a label goes below its anchor instead of being dropped.
  auto top = layout_labels({{"top", 300, 5, 0, {}}}, 640, 400);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_GT(top[0].y, 5);
}

TEST(LabelLayout, OnlyTheFirstCandidatesByPriorityAreTried) {
  LabelStyle st;
  st.max_candidates = 2;
  // Three separate places; the lowest-priority candidate is never tried.
  auto out =
      layout_labels({{"low", 500, 300, 0, {}}, {"high", 100, 100, 2, {}}, {"mid", 300, 200, 1, {}}}, 640, 400, st);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].text, "high");
  EXPECT_EQ(out[1].text, "mid");
}

TEST(LabelLayout, LabelsStayClearOfBlockedBoxes) {
  const LabelStyle st;
  const ScreenBox panel{0, 0, 640, 190};  // covers the spot above an anchor at y = 200
  const ScreenBox boxes[] = {panel};
  auto out = layout_labels({{"name", 300, 200, 0, {}}}, 640, 400, st, boxes);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_GE(out[0].y, 190);  // below the panel: moved under its anchor
  const ScreenBox all[] = {{0, 0, 640, 400}};
  EXPECT_TRUE(layout_labels({{"name", 300, 200, 0, {}}}, 640, 400, st, all).empty());
}

TEST(LabelLayout, AtMostMaxLabels) {
  LabelStyle st;
  st.max_labels = 3;
  std::vector<LabelCandidate> c;
  for (int i = 0; i < 10; ++i) c.push_back({"x", 20.0 + i * 40, 100, 0, {}});
  EXPECT_EQ(layout_labels(c, 640, 400, st).size(), 3u);
}

}  // namespace
}  // namespace flockstep::client
