#pragma once
/// \file world_layers.hpp
/// The static layers of a world, built once from the scenario the client decoded from the
/// WorldSpec (and again after every GroupUpdate): tile map, T28 tracks, T26 tile patterns, patrol
/// paths, physics patterns, walls, obstacles and spawn areas. Each layer is coloured triangles and
/// lines in world metres plus world-anchored captions, and counts what it holds so tests can
/// check that every item of the scenario is drawn.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/scenario.hpp"
#include "view/geometry.hpp"

namespace flockstep::client {

/// The layers, in drawing order (bottom first).
enum class Layer : std::uint8_t {
  kTiles = 0,     ///< tile map: blocked and free cells (T22, T26-T28)
  kTracks,        ///< T28 track segments between tile centres
  kTilePatterns,  ///< T26 tile patrol patterns at their offsets
  kPaths,         ///< T72 waypoint paths
  kPatterns,      ///< T30 physics patterns: a sketch of each pattern group's figure in its spawn area
  kWalls,         ///< walls (T75)
  kObstacles,     ///< circular obstacles (T73, T74)
  kSpawnAreas,    ///< every group's explicit spawn rectangle
  kCount
};
inline constexpr int kLayerCount = static_cast<int>(Layer::kCount);

/// Short name of a layer ("tiles", "tracks", ...): option names, toggles and the legend.
const char* layer_name(Layer l);
/// Key that toggles a layer in the viewer (KeyboardEvent.code).
const char* layer_key(Layer l);

/// Items per layer, as in the scenario (tiles split into blocked and free cells).
struct LayerCounts {
  std::int32_t tiles_blocked = 0, tiles_free = 0, tracks = 0, tile_patterns = 0, paths = 0, patterns = 0, walls = 0,
               obstacles = 0, spawn_areas = 0;
  /// Items of one layer (tiles: blocked + free).
  std::int32_t of(Layer l) const;
};

/// A caption anchored in the world (a path's or pattern's name, a spawn area's group).
struct WorldCaption {
  std::string text;
  math::Vec2 at;  ///< m
  Layer layer = Layer::kPaths;
  Rgba color;
};

/// Geometry of every layer.
struct WorldLayers {
  std::array<std::vector<ColorVertex>, kLayerCount> triangles;  ///< triples, m
  std::array<std::vector<ColorVertex>, kLayerCount> lines;      ///< pairs, m
  std::array<std::vector<ColorVertex>, kLayerCount> discs;      ///< obstacles: centre + radius in x of the 2nd
  std::vector<WorldCaption> captions;
  LayerCounts counts;
};

/// Build every layer of `s`. Pure: no GL, tested under node.
WorldLayers build_world_layers(const sim::Scenario& s);

}  // namespace flockstep::client
