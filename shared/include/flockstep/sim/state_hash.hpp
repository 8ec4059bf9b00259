#pragma once
/// \file state_hash.hpp
/// Hashing over the exact bits of simulation state, for golden-hash determinism tests (native
/// vs wasm, 1 vs 2 threads) and replay checks: StateHasher, byte-serial FNV-1a (files, records),
/// and RowSetHasher, the world's state hash, which does not depend on the order rows are stored.
#include <cstdint>
#include <cstring>
#include <initializer_list>

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

/// A digest of a set of rows that does not depend on the order they are visited in: each row's
/// 64-bit words are chained through xxHash64's round (one dependent multiply a word), the row's
/// value goes through MurmurHash3's 64-bit finaliser so every bit of it reaches every bit of the
/// digest, and the rows' digests are added modulo 2^64. The World stores its rows in grid-cell
/// order and moves them as it runs; summed digests let the state hash read the columns in that
/// storage order, sequentially, instead of walking them in id order (a random gather over every
/// column once rows are reordered: 66 ms at 100,000 agents against 20 ms in order, and 5 ms
/// now, docs/performance.md). A row's words must include what identifies it (the agent id), so
/// that two agents exchanging a value changes the sum. The two mixing functions are written here
/// because they are a few lines each and must give the same bits natively and in wasm.
class RowSetHasher {
 public:
  /// xxHash64's primes 1, 2 and 5 (the round and the seed), MurmurHash3's finaliser constants.
  static constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
  static constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
  static constexpr std::uint64_t kSeed = 0x27D4EB2F165667C5ULL;

  static constexpr std::uint64_t round(std::uint64_t acc, std::uint64_t word) {
    const std::uint64_t x = acc + word * kPrime2;
    return ((x << 31) | (x >> 33)) * kPrime1;  // rotate left by 31
  }
  static constexpr std::uint64_t finalise(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
  }

  void begin_row() { row_ = kSeed; }
  void u64(std::uint64_t v) { row_ = round(row_, v); }
  void f64(double v) {
    std::uint64_t bits;  // std::bit_cast is missing from Emscripten's libc++ 14
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void vec(math::Vec2 v) {
    f64(v.x);
    f64(v.y);
  }
  void end_row() { sum_ += finalise(row_); }

  /// The rows' sum, chained after the `header` words (the same in any row order).
  std::uint64_t value(std::initializer_list<std::uint64_t> header) const {
    std::uint64_t h = kSeed;
    for (std::uint64_t w : header) h = round(h, w);
    return finalise(round(h, sum_));
  }

 private:
  std::uint64_t row_ = kSeed;
  std::uint64_t sum_ = 0;
};

}  // namespace flockstep::sim
