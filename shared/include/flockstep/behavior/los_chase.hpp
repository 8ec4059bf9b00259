#pragma once
/// \file los_chase.hpp
/// T21 continuous line-of-sight chase for a bow-thruster craft (T10) and T22 line-of-sight chase
/// on tiles (one Bresenham path entry per tick).
///
/// T21 is written by meaning ("turn toward the target"), not by copying the seed's sign test,
/// whose port/starboard choice only holds in the book's y-down screen frame (catalog Part J 6).
/// The seed's literal test is kept behind LosChaseParams::seed_literal so the difference is
/// testable: in Flockstep's y-up frame it steers AWAY from the target.
#include <cstdint>
#include <span>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Tuning of the continuous LOS chase (T21).
struct LosChaseParams {
  real tolerance = 0.05;         ///< TOL: sine of the dead-band half-angle around dead ahead, unitless. [Limit: 0..1)
  real factor = 1;               ///< thruster factor used when turning, fraction of max steering force. [Limit: 0..1]
  bool behind_turn_left = true;  ///< side to turn when the target is EXACTLY behind (seed deadlock tie-break)
  bool seed_literal = false;  ///< true: the seed's raw sign test (port iff Bourg-local x < -TOL); wrong in a y-up world
};

/// T21 bearing of a target in the craft's local frame, normalised: (forward, left) = (cos, sin)
/// of the bearing. Zero vector when the target coincides with the craft.
Vec2 los_bearing(const CraftState& craft, Vec2 target);

/// T21 LOS chase: thruster setting that swings the bow toward target. Target more than TOL to the
/// left -> starboard thruster (left turn); to the right -> port thruster (right turn); inside the
/// +-TOL band ahead -> neither. Inside the band but BEHIND the craft the band does not apply:
/// turn toward the side the target is on, and when it is exactly behind turn by behind_turn_left
/// (otherwise the craft would never turn round). Coincident target -> no thrusters.
/// Throttle is always 1 (constant forward thrust). Call every physics tick.
Thrusters los_chase_thrusters(const CraftState& craft, Vec2 target, const LosChaseParams& params);

/// Progress of a tile LOS chase (T22). The caller owns it together with the path buffer.
struct TileChaseState {
  Tile planned_target;     ///< target tile the stored path was computed for
  std::int32_t next = 0;   ///< index of the next path entry to move to
  std::int32_t count = 0;  ///< number of valid entries in the path buffer (0 = no plan)
};

/// T22 one tick of tile LOS chase with a stored path, as in the seed: (re)compute the Bresenham
/// path from the chaser to the target into the caller's buffer whenever the target has moved,
/// the chaser is not where the plan expects, or the buffer is used up (a path longer than the
/// buffer is followed in pieces); then return the next tile (one entry per tick). Returns the
/// chaser's own tile when it is already on the target. path must hold at least 2 tiles.
Tile tile_los_chase_step(Tile chaser, Tile target, std::span<Tile> path, TileChaseState& state);

/// T22 stateless form: recompute the line every tick and return the tile after the chaser on
/// it (the chaser itself when on the target). Same arrival time as the stored-path form,
/// max(|dRow|, |dCol|) ticks for a static target.
Tile tile_los_next(Tile chaser, Tile target);

}  // namespace flockstep::behavior
