#pragma once
/// \file rules.hpp
/// The per-body rules that end every tick (World phase 4), as free functions so a client that
/// predicts its own craft runs exactly the same code as the server (client/src/predict):
///   1. obstacles: no body ends a tick inside one; it is put on the surface and loses the
///      inward part of its velocity (steering avoids obstacles, this rule guarantees it);
///   2. the border: torus wrap (T14) or the solid clamp that cancels outward velocity.
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"
#include "flockstep/math/vec2.hpp"

namespace flockstep::sim {

struct Scenario;

/// Keep a body of `radius` m at `p` (velocity `v`, m/s) outside every circle of `obstacles`.
/// One pass in the given order projects it out of each circle it overlaps. Only when that pass
/// leaves it inside a circle (two overlapping obstacles: leaving one pushed it into the other)
/// is it moved to the nearest point outside both, where their grown circles cross. With
/// `wrap_width`/`wrap_height` > 0 every centre is first taken at its torus copy nearest to the
/// body (the centres of World's per-cell obstacle lists are already shifted: pass 0).
/// Returns how deep the body was inside an obstacle before the rule moved it, m (0: it was
/// outside every one and nothing changed): what steering failed to avoid.
math::real push_out_of_obstacles(math::Vec2& p, math::Vec2& v, math::real radius,
                                 std::span<const behavior::Circle> obstacles, math::real wrap_width = 0,
                                 math::real wrap_height = 0);

/// The radius of a body of `group` in `scenario`, m: the group's radius, or for a player (group
/// -1; any index outside the scenario's groups) half the player craft's length.
math::real body_radius(const Scenario& scenario, std::int32_t group);

/// The border rule of `scenario` for a body of `radius` m: torus wrap, or clamp inside
/// [radius, size - radius] and cancel the outward velocity component.
void apply_border(math::Vec2& p, math::Vec2& v, math::real radius, const Scenario& scenario);
/// apply_border, and whether the torus carried the body across the seam (T14). confine_body's
/// second half, alone for bodies that cannot reach an obstacle this tick.
bool border_wrapped(math::Vec2& p, math::Vec2& v, math::real radius, const Scenario& scenario);

/// What confine_body did.
struct Confined {
  math::real depth = 0;  ///< push_out_of_obstacles' depth, m (0: nothing to push out of)
  bool wrapped = false;  ///< the torus carried the body across the seam (T14)
};

/// The end-of-tick rules for one body, in their order: pushed out of `obstacles`
/// (push_out_of_obstacles, wrap sizes as there), then the border (apply_border). The World
/// confines every agent but players and tile walkers with it; the Extrapolator the same.
Confined confine_body(math::Vec2& p, math::Vec2& v, math::real radius, std::span<const behavior::Circle> obstacles,
                      const Scenario& scenario, math::real wrap_width = 0, math::real wrap_height = 0);

}  // namespace flockstep::sim
