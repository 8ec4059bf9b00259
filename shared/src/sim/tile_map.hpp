#pragma once
/// \file tile_map.hpp
/// The tile map's side of the tile model (T22, T26-T28): validation, the tables built once from
/// a scenario, and the map's geometry, shared by the tile stages (stage_tile.hpp), the World and
/// the Extrapolator. Private: not installed.
#include <cstdint>
#include <string>
#include <vector>

#include "flockstep/behavior/tile_pattern.hpp"

#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// The tile part of validate() (scenario.cpp): tiles, tile_patterns, tracks and the groups' tile
/// fields; "" when valid, else a message naming the field. Beside the tile model because it
/// checks what the model needs (free tiles on the map, patterns and tracks that stay on it).
std::string validate_tiles(const Scenario& s);

/// Largest tile map side: keeps the per-step line buffer of the T22 chase small (the simulation
/// also runs as wasm, with a small stack).
inline constexpr std::int32_t kMaxTileMapSide = 256;

/// True when tile t is on map m and not blocked.
bool tile_free_on(const TileMapSpec& m, behavior::Tile t);

/// The centre of tile t on map m, world metres.
Vec2 tile_centre_on(const TileMapSpec& m, behavior::Tile t);

/// The tile under p, clamped onto map m (clamped in real arithmetic first, so a far-away or
/// non-finite point never overflows the cast).
behavior::Tile tile_under(const TileMapSpec& m, Vec2 p);

/// T26: a scenario's tile pattern built and normalised the way the tile model walks it. The
/// World and the Extrapolator both build theirs here, so a client steps the same pattern.
behavior::TilePathPattern build_tile_pattern(const TilePatternSpec& spec);

/// T28: a track's matrix (rows x cols of the map, 1 on the track, row-major), each segment
/// rasterised as a T22 line and clipped to the map. Shared by the World and the Extrapolator.
std::vector<std::uint8_t> build_track_cells(const TrackSpec& track, const TileMapSpec& map);

}  // namespace flockstep::sim
