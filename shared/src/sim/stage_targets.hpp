#pragma once
/// \file stage_targets.hpp
/// Who an agent aims at: the nearest of a candidate list (the players, or a target group's
/// members), on the plane or the torus. One rule for the World (world.cpp, world_impl.hpp) and
/// the Extrapolator (extrapolate.cpp). Inline: the World's steering kernels call it per agent
/// from several translation units. Private: not installed.
#include <cstdint>
#include <span>

#include "flockstep/math/transform.hpp"
#include "flockstep/math/vec2.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// The world's plane: width x height m, a torus when `wrap`.
struct Plane {
  real width = 0, height = 0;
  bool wrap = false;
  /// The shortest offset from `from` to `to` (across the seam on a torus).
  Vec2 delta(Vec2 from, Vec2 to) const { return wrap ? math::torus_delta(from, to, width, height) : to - from; }
};

/// The nearest of `candidates` (indices into `position`) to p, never `self`; ties keep the
/// earlier candidate (callers list them in dense order). -1 when there is none. `distance`
/// (optional) gets the distance, kInfinity when there is none.
inline std::int32_t nearest_of(std::span<const std::int32_t> candidates, const Vec2* position, std::int32_t self,
                               Vec2 p, const Plane& plane, real* distance) {
  std::int32_t best = -1;
  real best_d2 = math::kInfinity;
  for (const std::int32_t j : candidates) {
    if (j == self) continue;
    const real d2 = math::length_sq(plane.delta(p, position[j]));
    if (d2 < best_d2) {  // strict <: ties keep the earlier candidate
      best_d2 = d2;
      best = j;
    }
  }
  if (distance) *distance = best >= 0 ? math::sqrt(best_d2) : math::kInfinity;
  return best;
}

}  // namespace flockstep::sim
