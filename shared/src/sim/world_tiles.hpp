#pragma once
/// \file world_tiles.hpp
/// What the tile model (world_tiles.cpp) offers the rest of shared/src/sim/ besides its
/// WorldImpl methods. Private: not installed.
#include <string>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// The tile part of validate() (scenario.cpp): tiles, tile_patterns, tracks and the groups' tile
/// fields; "" when valid, else a message naming the field. Beside the tile model because it
/// checks what the model needs (free tiles on the map, patterns and tracks that stay on it).
std::string validate_tiles(const Scenario& s);

}  // namespace flockstep::sim
