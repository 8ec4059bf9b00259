#pragma once
/// \file geometry.hpp
/// Plain drawing data shared by the renderer and the pure view code (world layers, labels):
/// camera, colours, instances and coloured vertices. No GL here, so unit tests under node can
/// build layers and lay out labels without a WebGL context.
#include <cstdint>

#include "flockstep/math/vec2.hpp"

namespace flockstep::client {

/// A view of the world: centre (m) and zoom (pixels per metre) on a canvas of width x height px.
struct Camera {
  double cx = 0, cy = 0;      ///< world point at the canvas centre, m
  double zoom = 8;            ///< px per m. [Limit: > 0]
  int width = 1, height = 1;  ///< canvas size, device px

  /// Canvas pixel (origin top-left, y down) to world metres.
  math::Vec2 to_world(double px, double py) const {
    return {cx + (px - width * 0.5) / zoom, cy - (py - height * 0.5) / zoom};
  }
  /// World metres to canvas pixel.
  math::Vec2 to_screen(math::Vec2 p) const {
    return {(p.x - cx) * zoom + width * 0.5, height * 0.5 - (p.y - cy) * zoom};
  }
  /// Half the visible extent, m.
  double half_w() const { return width * 0.5 / zoom; }
  double half_h() const { return height * 0.5 / zoom; }
};

/// RGBA, 8 bits per channel.
struct Rgba {
  std::uint8_t r = 255, g = 255, b = 255, a = 255;
  friend constexpr bool operator==(Rgba, Rgba) = default;
};

/// One drawn shape: position (m), its +x axis (the unit direction scaled by the size, m per
/// shape unit: the rotation is done on the CPU, so the vertex shader needs no sin/cos), colour.
struct Instance {
  float x, y, ux, uy;
  Rgba color;
};
static_assert(sizeof(Instance) == 20);

/// Instance of a shape at `p` (m) turned to `angle` (rad, CCW from +x) with size `scale` (m).
Instance make_instance(math::Vec2 p, double angle, float scale, Rgba color);

/// One vertex of a line or triangle list.
struct ColorVertex {
  float x, y;
  Rgba color;
};
static_assert(sizeof(ColorVertex) == 12);

}  // namespace flockstep::client
