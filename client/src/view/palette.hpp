#pragma once
/// \file palette.hpp
/// Every colour the viewer draws with, in one place so docs/viewer.md and the legend describe
/// the same thing the canvas shows.
#include "flockstep/sim/scenario.hpp"
#include "view/geometry.hpp"

namespace flockstep::client::palette {

inline constexpr Rgba kBackground{11, 16, 32, 255};
inline constexpr Rgba kGridMinor{22, 30, 52, 255};
inline constexpr Rgba kGridMajor{30, 42, 72, 255};
inline constexpr Rgba kBorder{80, 100, 140, 255};
inline constexpr Rgba kObstacleFill{43, 53, 80, 255};
inline constexpr Rgba kObstacleEdge{96, 112, 150, 255};
inline constexpr Rgba kWall{170, 185, 215, 255};
// Tiles: free cells a dark meadow green, blocked cells light stone: different in hue and in
// brightness, so they stay apart in a screenshot, for colour-blind people and in greyscale.
inline constexpr Rgba kTileFree{22, 44, 34, 255};
inline constexpr Rgba kTileBlocked{128, 112, 92, 255};
inline constexpr Rgba kTileGrid{34, 60, 46, 255};
inline constexpr Rgba kTrack{214, 150, 90, 230};
inline constexpr Rgba kTilePattern{255, 216, 74, 200};
inline constexpr Rgba kPath{255, 216, 74, 150};
inline constexpr Rgba kPattern{255, 216, 74, 170};
inline constexpr Rgba kOwnCraft{57, 230, 255, 255};
inline constexpr Rgba kOtherPlayer{125, 255, 138, 255};
inline constexpr Rgba kPursuer{255, 90, 79, 255};
inline constexpr Rgba kPursuerIntercept{255, 159, 64, 255};
inline constexpr Rgba kFlock{184, 199, 255, 230};
inline constexpr Rgba kPatrol{255, 216, 74, 255};
inline constexpr Rgba kWanderer{208, 139, 255, 255};
inline constexpr Rgba kCaptured{255, 255, 255, 255};
// AIDemo4's colours (catalog T35): the leader red, the interceptor magenta, the other units blue.
inline constexpr Rgba kFlockLeader{255, 90, 79, 255};
inline constexpr Rgba kFlockInterceptor{240, 80, 240, 255};
inline constexpr Rgba kFlockFollower{96, 150, 255, 255};
// The inspector's force breakdown: one colour per behaviour slot of a composition (at most
// sim::kMaxBehaviors), distinct from each other and from the agents; the combined result white.
inline constexpr Rgba kBehaviour[8] = {{255, 99, 132, 255}, {54, 162, 235, 255},  {255, 206, 86, 255},
                                       {75, 192, 132, 255}, {153, 102, 255, 255}, {255, 159, 64, 255},
                                       {0, 220, 220, 255},  {240, 120, 220, 255}};
inline constexpr Rgba kSteeringResult{255, 255, 255, 255};

/// Colour of an agent kind (players: other players' green).
inline Rgba kind_color(sim::AgentKind k) {
  switch (k) {
    case sim::AgentKind::kPlayer: return kOtherPlayer;
    case sim::AgentKind::kPursuer: return kPursuer;
    case sim::AgentKind::kFlock: return kFlock;
    case sim::AgentKind::kPatrol: return kPatrol;
    case sim::AgentKind::kWanderer: return kWanderer;
    default: return kFlock;
  }
}

inline Rgba with_alpha(Rgba c, std::uint8_t a) { return {c.r, c.g, c.b, a}; }

/// "#rrggbb" for the page (legend swatches).
inline void to_hex(Rgba c, char (&out)[8]) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::uint8_t v[3] = {c.r, c.g, c.b};
  out[0] = '#';
  for (int i = 0; i < 3; ++i) {
    out[1 + 2 * i] = kHex[v[i] >> 4];
    out[2 + 2 * i] = kHex[v[i] & 15];
  }
  out[7] = 0;
}

}  // namespace flockstep::client::palette
