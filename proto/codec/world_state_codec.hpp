#pragma once
/// \file world_state_codec.hpp
/// Save and restore a whole sim::World bit for bit: the versioned wire form of sim::WorldState
/// (proto/flockstep/v1/world_state.proto). A world decoded from the bytes of another steps to
/// exactly the same state_hash() sequence as the original, natively and in wasm. See
/// docs/world-state.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "flockstep/sim/world.hpp"

namespace flockstep::codec {

/// The format version encode_world_state writes and the only one decode_world_state reads
/// (WorldStateFile.format_version). Any change of a record layout or of the stored state hash
/// needs a new one. Version 3: the stored state hash is sim::RowSetHasher's, the same in any row
/// order. Version 2 wrote agents in id order and hashed them in id order with FNV-1a; version 1
/// used the rows' storage order, which the World changes as it runs.
inline constexpr std::uint32_t kWorldStateFormatVersion = 3;

/// Sizes a saved world may have, checked on the decoded scenario before anything of the world
/// is allocated (the grid, the obstacle index and the agent columns are sized from them, so a
/// crafted file could otherwise ask for any amount of memory with a few bytes):
/// cells of the spatial grid, floor(width / grid_cell) x floor(height / grid_cell) (4 bytes
/// each; the obstacle index has at most as many, its cells being no smaller). 2^22 is 18 times
/// the 1,000,000-agent benchmark world's 231,361.
inline constexpr double kMaxWorldGridCells = 4194304;
/// Obstacle-index work: obstacle cells x obstacles. Every obstacle is tested against every cell
/// when the world is built (the fresh world's constructor does the same), and is listed in each
/// cell it reaches (24 bytes). 2^32 is 1.9 times the 1,000,000-agent benchmark world's
/// 231,361 cells x 10,001 obstacles; a restoring server also requires the room's own obstacles
/// (Room::restore), which bounds the listing by what the fresh room built.
inline constexpr double kMaxWorldObstacleCellPairs = 4294967296.0;

/// The whole state of a world in its versioned wire form (see world_state.proto).
std::string encode_world_state(const sim::World& world);

/// Result of decode_world_state: exactly one of `world` and `error` is set.
struct DecodedWorld {
  std::unique_ptr<sim::World> world;
  std::string error;
};

/// A caller's own check of a saved world's scenario, run after the limits above and before the
/// world is built: "" accepts, anything else refuses with that message (a server restoring a
/// room requires the room's own sizes, so a file cannot make it allocate more than it did).
using ScenarioCheck = std::function<std::string(const sim::Scenario&)>;

/// Refuses (error set, world null) anything truncated, corrupted, of another version, over the
/// size limits above, refused by `check` or inconsistent.
DecodedWorld decode_world_state(std::string_view bytes, const ScenarioCheck& check = {});

}  // namespace flockstep::codec
