#pragma once
/// \file stage_tile.hpp
/// The tile model (T22, T26-T28) as stages: free functions over the walkers' columns and the
/// tables built once from the scenario. The World runs all of them (world.cpp's steering and
/// integrate phases call steer_tile_walker and move_tile_walkers); the Extrapolator
/// (extrapolate.cpp) runs the step rules (advance_tile_step, next_track_tile, tile_motion), so a
/// client steps a tile walker by the very rules the server does. Private: not installed.
///
/// The model: agents walk tile by tile on the scenario's tile map, moving smoothly between tile
/// centres at tile_speed steps per second.
///  * kTilePatrol: the T26 pattern executed with T27 (one entry per step); a player (or an agent
///    of target_group) within chase_range stops the pattern (T27 break-out) and the agent chases
///    it with T22 steps; when it is gone the agent walks back (T22) to the pattern tile it left
///    and resumes from there.
///  * kTileTrack: T28 track matrix with uniform random choice at junctions (agent's own stream).
///  * kTileChase: T22 line-of-sight chase of the nearest player / target_group agent.
/// Blocked tiles are never entered: when the next T22 tile is blocked (or a diagonal step would
/// cut a blocked corner) the agent steps to the free neighbour nearest the goal instead.
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/behavior/tile_line.hpp"
#include "flockstep/behavior/tile_pattern.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "stage_targets.hpp"
#include "technique_tally.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// A walker's tile state (one row of the World's tile column): it moves from the centre of
/// `from` to the centre of `to`, one tile step per 1/tile_speed s, and decides its next tile on
/// arrival.
struct TileState {
  behavior::Tile from, to;
  real progress = 0;                   ///< 0..1 of the way from `from` to `to`
  behavior::Tile previous{-1, -1};     ///< the tile before `from` (T28 exclusion, chase back-off)
  behavior::TilePatrolState patrol{};  ///< T27 position in the pattern (patrol.tile = pattern tile)
  std::uint8_t mode = 0;               ///< 0 on pattern/track, 1 chasing (T22), 2 returning to the pattern
  AgentId target;                      ///< agent chased (mode 1 or kTileChase)
  // T22 line being walked: from line_origin to line_goal, line_step entries done. A new goal
  // (the target moved) or a detour around a blocked tile restarts it from the current tile.
  behavior::Tile line_origin{-1, -1}, line_goal{-1, -1};
  std::int32_t line_step = 0;
};

/// What the tile model builds once from a scenario (world_tiles.hpp's builders): T26 patterns
/// normalised the way walkers step them, and each T28 track's map-sized matrix.
struct TileTables {
  std::vector<behavior::TilePathPattern> patterns;     ///< one per Scenario::tile_patterns
  std::vector<std::vector<std::uint8_t>> track_cells;  ///< one per Scenario::tracks, rows x cols of the map
  static TileTables build(const Scenario& s);
};

/// The columns of one walker that starting it writes.
struct TileWalkerRef {
  TileState& tile;
  Vec2& position;  ///< read first: the spawn point a chaser starts nearest to
  Vec2& velocity;
  real& angular_velocity;
};

/// Starts walker number `k` of group `g`: patrols spread evenly along their pattern (walker 0 on
/// the anchor), track walkers over the track's tiles in row-major order, chasers on the free tile
/// nearest their spawn point (Chebyshev rings, table order in a ring). The walker stands still on
/// that tile's centre (from == to) and decides its first step on its first tick.
void start_tile_walker(const TileMapSpec& map, const TileTables& tables, const GroupSpec& g, std::int32_t k,
                       TileWalkerRef w);

/// What the tile steering stage reads and writes: the tables, and the columns of the World's
/// rows (dense indices).
struct TileSteerColumns {
  const TileMapSpec& map;
  const TileTables& tables;
  std::span<const GroupSpec> groups;
  real dt;                 ///< s
  const Targets& targets;  ///< who a chase may aim at (players, or target_group's members)
  // Read.
  std::span<const std::int32_t> group;
  std::span<const AgentId> id;
  std::span<const Vec2> position;
  // Written (and tile, rng read).
  std::span<TileState> tile;
  std::span<math::Rng> rng;  ///< the walker's own stream (T28 junctions)
  std::span<AgentId> target;
  std::span<Vec2> aim;
  std::span<BehaviorState> state;
};

/// One tick of walker `i`'s decision: advance its step and, on arrival, pick the next tile by its
/// group's technique (T27 pattern entry, T22 chase step or return, T28 track); sets its target,
/// aim (the centre of `to`) and state. Credits T22 only for a step on the line of sight (not one
/// the breadth-first detour found), T27 per pattern step, T28 per track step.
void steer_tile_walker(const TileSteerColumns& c, std::int32_t i, TechniqueTally& tally);

/// What the tile integration stage reads and writes.
struct TileMoveColumns {
  const TileMapSpec& map;
  std::span<const GroupSpec> groups;
  std::span<const std::int32_t> group;
  std::span<const TileState> tile;
  std::span<Vec2> position, velocity, heading;
  std::span<real> orientation, angular_velocity;
};

/// Moves walkers [begin, end) to where their step puts them (tile_motion): on the line between
/// the two centres, facing along the step (a standing walker keeps its facing). They stay inside
/// the map, so no border or obstacle rule follows.
void move_tile_walkers(const TileMoveColumns& c, std::int32_t begin, std::int32_t end);

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
