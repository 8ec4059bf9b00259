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
  for (int i = 0; i < 200; ++i) c.push_back({"boid " + std::to_string(i), 200.0 + (i % 20) * 3, 150.0 + (i / 20) * 3, 0, {}});
  c.push_back({"leader", 230, 165, 5, {}});
  auto out = layout_labels(c, 640, 400);
  ASSERT_FALSE(out.empty());
  EXPECT_LT(out.size(), 10u);  // 200 anchors within 60 x 30 px leave room for a few
  EXPECT_EQ(out[0].text, "leader");
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = i + 1; j < out.size(); ++j) EXPECT_FALSE(overlap(out[i], out[j])) << out[i].text << " / " << out[j].text;
}

TEST(LabelLayout, OffScreenAndEmptyLabelsAreCulled) {
  auto out = layout_labels({{"left edge", 2, 100, 0, {}}, {"", 300, 200, 0, {}}, {"top", 300, 5, 0, {}},
                            {"fine", 300, 300, 0, {}}},
                           640, 400);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].text, "fine");
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
