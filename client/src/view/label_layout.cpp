#include "view/label_layout.hpp"

#include <algorithm>

namespace flockstep::client {

std::vector<PlacedLabel> layout_labels(std::vector<LabelCandidate> candidates, double width, double height,
                                       const LabelStyle& style, std::span<const ScreenBox> blocked) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const LabelCandidate& a, const LabelCandidate& b) { return a.priority > b.priority; });
  if (candidates.size() > style.max_candidates) candidates.resize(style.max_candidates);
  std::vector<PlacedLabel> kept;
  auto free = [&](const PlacedLabel& p) {
    if (p.x < 0 || p.y < 0 || p.x + p.w > width || p.y + p.h > height) return false;  // partly off screen
    for (const ScreenBox& b : blocked)
      if (p.x < b.x + b.w && b.x < p.x + p.w && p.y < b.y + b.h && b.y < p.y + p.h) return false;  // under a panel
    return std::none_of(kept.begin(), kept.end(), [&](const PlacedLabel& k) {
      return p.x < k.x + k.w && k.x < p.x + p.w && p.y < k.y + k.h && k.y < p.y + p.h;
    });
  };
  for (LabelCandidate& c : candidates) {
    if (kept.size() >= style.max_labels) break;
    if (c.text.empty()) continue;
    PlacedLabel p;
    p.w = static_cast<double>(c.text.size()) * style.char_px + 2 * style.pad_px;
    p.h = style.height_px;
    // Above the anchor first; where that is taken, below it, then to its right, then its left.
    const double lift = style.gap_px + p.h;
    const double spots[4][2] = {{c.x - p.w * 0.5, c.y - lift},
                                {c.x - p.w * 0.5, c.y + lift - p.h + style.below_extra_px},
                                // beside: top just under the "above" box, clear of the "below" one
                                {c.x + style.gap_px * 2, c.y - style.gap_px + 1},
                                {c.x - style.gap_px * 2 - p.w, c.y - style.gap_px + 1}};
    bool placed = false;
    for (const auto& spot : spots) {
      p.x = spot[0];
      p.y = spot[1];
      if (free(p)) {
        placed = true;
        break;
      }
    }
    if (!placed) continue;
    p.text = std::move(c.text);
    p.color = c.color;
    kept.push_back(std::move(p));
  }
  return kept;
}

}  // namespace flockstep::client
