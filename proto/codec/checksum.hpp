#pragma once
// The checksum of the codec's file formats (input logs, world-state files): FNV-1a 64 over the
// bytes, the same function as the state hash (sim::StateHasher), so docs/protocol.md names one.

#include <cstdint>
#include <string_view>

#include "flockstep/sim/state_hash.hpp"

namespace flockstep::codec {

inline std::uint64_t fnv1a(std::string_view bytes) {
  sim::StateHasher h;
  h.bytes(bytes.data(), bytes.size());
  return h.value();
}

}  // namespace flockstep::codec
