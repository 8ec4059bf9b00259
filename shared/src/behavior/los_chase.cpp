/// \file los_chase.cpp
/// T21 continuous LOS chase and T22 tile LOS chase stepping.
#include "flockstep/behavior/los_chase.hpp"

namespace flockstep::behavior {

Vec2 los_bearing(const CraftState& craft, Vec2 target) {
  return math::normalized(math::to_local(target - craft.position, craft_heading(craft)));
}

Thrusters los_chase_thrusters(const CraftState& craft, Vec2 target, const LosChaseParams& params) {
  Thrusters t{false, false, params.factor, 1};
  const Vec2 u = los_bearing(craft, target);  // (forward, left); zero when coincident
  if (params.seed_literal) {
    // The seed's test in Bourg's frame (x to starboard, y forward): port iff u.x < -TOL.
    // With the book's y-down screen that x pointed to port; here it points to starboard, so
    // this fires the thruster that turns the bow away from the target (erratum, Part J 6).
    const Vec2 w{-u.y, u.x};
    t.port = w.x < -params.tolerance;
    t.starboard = w.x > params.tolerance;
    return t;
  }
  if (u.y > params.tolerance) {
    t.starboard = true;  // target on the left: starboard thruster turns the bow left
  } else if (u.y < -params.tolerance) {
    t.port = true;  // target on the right: port thruster turns the bow right
  } else if (u.x < 0) {
    // In the rear dead band: the forward dead band must not apply, or a target behind would
    // never make the craft turn round. Turn toward the side it is on; exactly behind -> tie side.
    const bool left = u.y > 0 || (u.y == 0 && params.behind_turn_left);
    t.starboard = left;
    t.port = !left;
  }
  return t;
}

Tile tile_los_chase_step(Tile chaser, Tile target, std::span<Tile> path, TileChaseState& state) {
  FLOCKSTEP_ASSERT(path.size() >= 2);
  if (chaser == target) {
    state.count = 0;  // nothing planned: a future target move forces a fresh path
    return chaser;
  }
  const bool on_plan = state.count > 0 && state.next > 0 && state.next < state.count &&
                       path[static_cast<std::size_t>(state.next - 1)] == chaser;
  if (!on_plan || !(state.planned_target == target)) {
    state.count = rasterize_line(chaser, target, path);
    state.planned_target = target;
    state.next = 1;  // path[0] is the chaser's own tile
  }
  const Tile step = path[static_cast<std::size_t>(state.next)];
  ++state.next;
  return step;
}

Tile tile_los_next(Tile chaser, Tile target) {
  Tile buffer[2];
  const std::int32_t n = rasterize_line(chaser, target, buffer);
  return n >= 2 ? buffer[1] : chaser;
}

}  // namespace flockstep::behavior
