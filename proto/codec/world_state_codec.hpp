#pragma once
/// \file world_state_codec.hpp
/// Save and restore a whole sim::World bit for bit: the versioned wire form of sim::WorldState
/// (proto/flockstep/v1/world_state.proto). A world decoded from the bytes of another steps to
/// exactly the same state_hash() sequence as the original, natively and in wasm. See
/// docs/world-state.md.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "flockstep/sim/world.hpp"

namespace flockstep::codec {

/// The format version encode_world_state writes and the only one decode_world_state reads
/// (WorldStateFile.format_version). Any change of a record layout needs a new one.
inline constexpr std::uint32_t kWorldStateFormatVersion = 1;

/// The whole state of a world in its versioned wire form (see world_state.proto).
std::string encode_world_state(const sim::World& world);

/// Result of decode_world_state: exactly one of `world` and `error` is set.
struct DecodedWorld {
  std::unique_ptr<sim::World> world;
  std::string error;
};

/// Refuses (error set, world null) anything truncated, corrupted, of another version or inconsistent.
DecodedWorld decode_world_state(std::string_view bytes);

}  // namespace flockstep::codec
