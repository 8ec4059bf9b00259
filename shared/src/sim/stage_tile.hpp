#pragma once
/// \file stage_tile.hpp
/// The tile model's per-tick rules (T22, T26-T28) as free functions over plain data, run by both
/// the World (world_tiles.cpp) and the Extrapolator (extrapolate.cpp), so a client steps a tile
/// walker by the very rules the server does. Private: not installed.
#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/vec2.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// Where a walker is on its step between two tile centres: what the step rule reads and writes.
struct TileStepRef {
  behavior::Tile& from;      ///< tile it left (on arrival: the tile it stands on)
  const behavior::Tile& to;  ///< tile it walks to (== from: standing on from's centre)
  behavior::Tile& previous;  ///< the tile before `from` (T28 excludes it; a chase backs off it)
  real& progress;            ///< fraction of the step done, [0, 1)
};

/// One tick of the step: progress grows by tile_speed * dt; on reaching 1 the walker stands on
/// `to` (from = to; previous = the tile it left, only if it moved: a walker that stood still
/// keeps the tile before) with the remainder of the progress (tile_speed <= tick rate: at most one
/// step a tick, so a remainder of 1 or more restarts at 0). Returns true on arrival: the caller
/// then decides the next `to`. tile_speed: steps per second, dt: s.
bool advance_tile_step(TileStepRef s, real tile_speed, real dt);

/// T28 the next tile of a track walker standing on `from`, having come from `previous`
/// (behavior::follow_track: the one way on, a random branch at a junction drawn from the
/// walker's own stream `rng`, back at a dead end).
behavior::Tile next_track_tile(behavior::Tile from, behavior::Tile previous, behavior::TrackView track, math::Rng& rng);

/// Where the step puts the walker: on the line between the two centres at `progress`, moving at
/// (to - from) * tile_speed; it faces along the step, or keeps its facing while it stands.
struct TileMotion {
  Vec2 position, velocity;
  bool moving = false;   ///< false: standing on a centre; heading and orientation are not set
  Vec2 heading;          ///< unit direction of the step (moving only)
  real orientation = 0;  ///< its angle, rad (moving only)
};

/// The motion of a walker `progress` of the way from `from_centre` to `to_centre` (world metres).
TileMotion tile_motion(Vec2 from_centre, Vec2 to_centre, real progress, real tile_speed);

}  // namespace flockstep::sim
