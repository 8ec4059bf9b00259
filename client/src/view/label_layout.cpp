#include "view/label_layout.hpp"

#include <algorithm>

namespace flockstep::client {

std::vector<PlacedLabel> layout_labels(std::vector<LabelCandidate> candidates, double width, double height,
                                       const LabelStyle& style) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const LabelCandidate& a, const LabelCandidate& b) { return a.priority > b.priority; });
  std::vector<PlacedLabel> kept;
  for (LabelCandidate& c : candidates) {
    if (kept.size() >= style.max_labels) break;
    if (c.text.empty()) continue;
    PlacedLabel p;
    p.w = static_cast<double>(c.text.size()) * style.char_px + 2 * style.pad_px;
    p.h = style.height_px;
    p.x = c.x - p.w * 0.5;
    p.y = c.y - style.gap_px - p.h;
    if (p.x < 0 || p.y < 0 || p.x + p.w > width || p.y + p.h > height) continue;  // partly off screen
    const bool overlaps = std::any_of(kept.begin(), kept.end(), [&](const PlacedLabel& k) {
      return p.x < k.x + k.w && k.x < p.x + p.w && p.y < k.y + k.h && k.y < p.y + p.h;
    });
    if (overlaps) continue;
    p.text = std::move(c.text);
    p.color = c.color;
    kept.push_back(std::move(p));
  }
  return kept;
}

}  // namespace flockstep::client
