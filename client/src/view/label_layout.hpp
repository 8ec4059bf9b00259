#pragma once
/// \file label_layout.hpp
/// Screen-space labels (player names, group / technique captions): each wants a box centred
/// above its anchor (else below it, right of it, left of it); higher priority first, a label is
/// kept only if one of those boxes is on screen and overlaps no label kept before it, so crowded
/// places show a few readable labels instead of a smear. Text is drawn by the page in a monospaced font of a known
/// advance (LabelStyle).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "view/geometry.hpp"

namespace flockstep::client {

/// Metrics of the page's label font (client/web/overlay.js draws 12 px monospace).
struct LabelStyle {
  double char_px = 7.3;          ///< advance of one character, CSS px
  double height_px = 15;         ///< box height, CSS px
  double gap_px = 4;             ///< box bottom above the anchor, CSS px
  double pad_px = 3;             ///< extra room on each side of the text, CSS px
  double below_extra_px = 8;     ///< a label below its anchor leaves room for the shape, CSS px
  std::size_t max_labels = 300;  ///< kept labels per frame at most. [Limit: >= 1]
  /// Candidates tried per frame at most, highest priority first: with 10,000 agents labelled the
  /// overlap tests would otherwise cost several ms a frame. [Limit: >= max_labels]
  std::size_t max_candidates = 1500;
};

/// A label that wants to be drawn. `x`, `y`: anchor in CSS px (origin top-left).
struct LabelCandidate {
  std::string text;
  double x = 0, y = 0;
  std::int32_t priority = 0;  ///< higher first (followed agent > players > group captions)
  Rgba color;
};

/// A label kept: its box (CSS px, x/y = top-left) and text.
struct PlacedLabel {
  std::string text;
  double x = 0, y = 0, w = 0, h = 0;
  Rgba color;
};

/// A screen rectangle no label may cover (the page's panels, the minimap), CSS px, top-left.
struct ScreenBox {
  double x = 0, y = 0, w = 0, h = 0;
};

/// Lay out `candidates` on a `width` x `height` CSS px screen, clear of every box in `blocked`.
/// Stable: equal priorities keep their order. Empty texts are skipped.
std::vector<PlacedLabel> layout_labels(std::vector<LabelCandidate> candidates, double width, double height,
                                       const LabelStyle& style = {}, std::span<const ScreenBox> blocked = {});

}  // namespace flockstep::client
