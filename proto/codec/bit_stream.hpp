#pragma once
/// \file bit_stream.hpp
/// Bit-level writer and reader for the agent records of a quantised snapshot.
///
/// Hand-written on purpose: protobuf packs at byte granularity (varints), and a moving boid's
/// residuals are a few bits each; the bandwidth target (<= 1.5 bytes per moving agent per
/// snapshot, docs/performance.md) is out of reach with one varint byte per field. Neither
/// protobuf-lite nor the other libraries of the project have a bit packer, so this small one
/// (Gaffer on Games' "bitpacker" idea: a 64-bit scratch word flushed 8 bits at a time) travels
/// inside a protobuf `bytes` field. Variable-length integers are exp-Golomb codes of order k,
/// signed values zigzag-mapped first.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace flockstep::codec {

/// Zigzag map: 0, -1, 1, -2, 2 ... -> 0, 1, 2, 3, 4 ...
constexpr std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
/// Inverse of zigzag.
constexpr std::int64_t unzigzag(std::uint64_t u) {
  return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
}

/// Number of bits of an exp-Golomb code of order k for u (k <= 32, u < 2^62).
constexpr unsigned exp_golomb_bits(std::uint64_t u, unsigned k) {
  const std::uint64_t x = (u >> k) + 1;
  unsigned lg = 0;
  while ((x >> (lg + 1)) != 0) ++lg;
  return 2 * lg + 1 + k;
}

/// Appends bits MSB-first to a byte string.
class BitWriter {
 public:
  /// Start a new stream in `out` (cleared).
  explicit BitWriter(std::string& out) : out_(out) { out_.clear(); }
  /// The low `bits` bits of v (bits <= 32).
  void put(std::uint64_t v, unsigned bits) {
    if (bits == 0) return;
    acc_ = (acc_ << bits) | (v & ((std::uint64_t{1} << bits) - 1));
    fill_ += bits;
    count_ += bits;
    while (fill_ >= 8) {
      fill_ -= 8;
      out_.push_back(static_cast<char>(static_cast<std::uint8_t>(acc_ >> fill_)));
    }
  }
  /// Unsigned exp-Golomb code of order k (u < 2^62, k <= 24).
  void put_ueg(std::uint64_t u, unsigned k) {
    const std::uint64_t x = (u >> k) + 1;
    unsigned lg = 0;
    while ((x >> (lg + 1)) != 0) ++lg;
    // lg zeros, then x in lg+1 bits (its leading 1 ends the zero run), then the low k bits of u.
    for (unsigned z = lg; z > 0;) {
      const unsigned n = z > 32 ? 32 : z;
      put(0, n);
      z -= n;
    }
    if (lg + 1 > 32) {
      put(x >> 32, lg + 1 - 32);
      put(x & 0xFFFFFFFFu, 32);
    } else {
      put(x, lg + 1);
    }
    put(u, k);
  }
  /// Signed exp-Golomb (zigzag) of order k.
  void put_seg(std::int64_t v, unsigned k) { put_ueg(zigzag(v), k); }
  /// Pad the last byte with zeros. Call once, at the end.
  void finish() {
    if (fill_ > 0) {
      out_.push_back(static_cast<char>(static_cast<std::uint8_t>(acc_ << (8 - fill_))));
      fill_ = 0;
    }
  }
  /// Bits written so far.
  std::size_t bit_count() const { return count_; }

 private:
  std::string& out_;
  std::uint64_t acc_ = 0;
  unsigned fill_ = 0;
  std::size_t count_ = 0;
};

/// Reads what BitWriter wrote. Reading past the end sets a sticky error flag and yields zeros, so
/// callers check ok() once per record instead of after every field (the bytes are untrusted).
class BitReader {
 public:
  /// Largest code a reader accepts, in value bits (see get_ueg).
  static constexpr unsigned kMaxCodeBits = 48;
  explicit BitReader(std::string_view in) : in_(in) {}
  /// The next `bits` bits (bits <= 32).
  std::uint64_t get(unsigned bits) {
    if (bits == 0) return 0;
    if (pos_ + bits > in_.size() * 8) {
      error_ = true;
      pos_ = in_.size() * 8;
      return 0;
    }
    std::uint64_t v = 0;
    unsigned left = bits;
    while (left > 0) {  // whole bytes where possible
      const auto byte = static_cast<std::uint8_t>(in_[pos_ >> 3]);
      const unsigned avail = 8 - static_cast<unsigned>(pos_ & 7);
      const unsigned take = avail < left ? avail : left;
      v = (v << take) | ((static_cast<unsigned>(byte) >> (avail - take)) & ((1u << take) - 1u));
      pos_ += take;
      left -= take;
    }
    return v;
  }
  /// Unsigned exp-Golomb of order k. A code whose value could reach 2^kMaxCodeBits is an error:
  /// no field we send comes near it, and the cap keeps every sum a decoder forms from a few
  /// decoded values (index + gap, prediction + residual) far inside int64, so hostile bytes can
  /// not overflow them (the snapshot fuzzer found exactly that with 62-bit codes).
  std::uint64_t get_ueg(unsigned k) {
    unsigned lg = 0;
    while (get(1) == 0) {
      if (error_ || ++lg + k >= kMaxCodeBits) {
        error_ = true;
        return 0;
      }
    }
    std::uint64_t x = 1;
    for (unsigned i = 0; i < lg; ++i) x = (x << 1) | get(1);
    return ((x - 1) << k) | get(k);
  }
  /// Signed exp-Golomb (zigzag) of order k.
  std::int64_t get_seg(unsigned k) { return unzigzag(get_ueg(k)); }
  /// False once a read ran past the end or a code was invalid.
  bool ok() const { return !error_; }
  /// Bits consumed.
  std::size_t position() const { return pos_; }
  /// Bits not yet read.
  std::size_t remaining() const { return in_.size() * 8 > pos_ ? in_.size() * 8 - pos_ : 0; }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  bool error_ = false;
};

}  // namespace flockstep::codec
