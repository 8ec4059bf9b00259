#pragma once
/// \file rng.hpp
/// Deterministic random numbers: PCG32 (O'Neill, pcg-random.org) with explicit state.
/// Written by hand because <random>'s distributions are not specified bit-for-bit across
/// standard libraries (libstdc++ vs the wasm libc++ would give different streams).
#include <cstdint>

#include "flockstep/math/scalar.hpp"

namespace flockstep::math {

/// PCG32 generator: 64-bit state, 32-bit output. Copyable plain state, so it can be hashed,
/// serialised and stored per agent.
struct Rng {
  std::uint64_t state = 0x853c49e6748fea9bULL;
  std::uint64_t inc = 0xda3e39cb94b95bdbULL;  ///< stream selector, always odd

  /// Seed with a value and a stream id (the same pair always gives the same sequence).
  static constexpr Rng seeded(std::uint64_t seed, std::uint64_t stream = 0x5851f42d4c957f2dULL) {
    Rng r{0, (stream << 1u) | 1u};
    r.next_u32();
    r.state += seed;
    r.next_u32();
    return r;
  }

  /// Next 32 uniformly distributed bits.
  constexpr std::uint32_t next_u32() {
    const std::uint64_t old = state;
    state = old * 6364136223846793005ULL + inc;
    const auto xorshifted = static_cast<std::uint32_t>(((old >> 18u) ^ old) >> 27u);
    const auto rot = static_cast<std::uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((0u - rot) & 31u));
  }

  /// Uniform real in [0, 1) with 53 random bits (made from bits, no division).
  constexpr real uniform01() {
    const std::uint64_t hi = next_u32();
    const std::uint64_t lo = next_u32();
    return static_cast<real>(((hi << 32) | lo) >> 11) * 0x1.0p-53;
  }

  /// Uniform real in [lo, hi).
  constexpr real uniform(real lo, real hi) { return lo + (hi - lo) * uniform01(); }

  /// Uniform integer in [lo, hi] (inclusive; requires lo <= hi). Unbiased (Lemire's method
  /// with rejection).
  constexpr std::int32_t range(std::int32_t lo, std::int32_t hi) {
    const std::uint32_t span = static_cast<std::uint32_t>(static_cast<std::int64_t>(hi) - lo) + 1u;
    if (span == 0) return static_cast<std::int32_t>(next_u32());  // full 32-bit range
    std::uint64_t m = static_cast<std::uint64_t>(next_u32()) * span;
    auto low = static_cast<std::uint32_t>(m);
    if (low < span) {
      const std::uint32_t threshold = (0u - span) % span;
      while (low < threshold) {
        m = static_cast<std::uint64_t>(next_u32()) * span;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return static_cast<std::int32_t>(lo + static_cast<std::int64_t>(m >> 32));
  }

  /// True with probability p.
  constexpr bool chance(real p) { return uniform01() < p; }

  /// T13 randomBinomial: random() - random(), triangular on (-1, 1), peaked at 0.
  constexpr real binomial() { return uniform01() - uniform01(); }
};

}  // namespace flockstep::math
