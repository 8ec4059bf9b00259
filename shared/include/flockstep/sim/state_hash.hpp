#pragma once
/// \file state_hash.hpp
/// FNV-1a 64-bit hashing over the exact bits of simulation state, for golden-hash determinism
/// tests (native vs wasm, 1 vs 2 threads) and replay checks.
#include <cstdint>
#include <cstring>

#include "flockstep/math/vec2.hpp"

namespace flockstep::sim {

/// Incremental FNV-1a (64-bit). Feed values in a fixed order; doubles are hashed by their bits,
/// so -0.0 and 0.0 differ and any last-bit divergence shows.
class StateHasher {
 public:
  static constexpr std::uint64_t kOffset = 0xcbf29ce484222325ULL;
  static constexpr std::uint64_t kPrime = 0x100000001b3ULL;

  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < n; ++k) {
      h_ ^= p[k];
      h_ *= kPrime;
    }
  }
  void u64(std::uint64_t v) {
    // Little-endian byte order explicitly, so the hash does not depend on the host.
    for (int k = 0; k < 8; ++k) {
      h_ ^= (v >> (8 * k)) & 0xFFu;
      h_ *= kPrime;
    }
  }
  void u32(std::uint32_t v) { u64(v); }
  void f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void vec(math::Vec2 v) {
    f64(v.x);
    f64(v.y);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = kOffset;
};

}  // namespace flockstep::sim
