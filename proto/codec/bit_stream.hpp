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
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
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
/// (One count-leading-zeros: the encoder asks this for every residual under several orders to
/// pick the cheapest, so it is on the server's per-snapshot path.)
constexpr unsigned exp_golomb_bits(std::uint64_t u, unsigned k) {
  const std::uint64_t x = (u >> k) + 1;
  return 2 * (static_cast<unsigned>(std::bit_width(x)) - 1) + 1 + k;
}

/// The cheapest exp-Golomb order for coding `values`, among 0..max_order (the encoder picks one
/// per field per snapshot and names it in the header). Orders are tried upwards and the search
/// stops once the total exceeds the best by more than one bit per value.
///
/// The totals come from two 65-entry histograms filled in one pass, instead of one pass over the
/// values per order (the encoder asks this six times per client per snapshot). For u of bit
/// width L whose top r bits are ones (d = L - r), the order-k code is
///   2 max(L - k, 0) + 2 [k >= d] - 1 + k  bits
/// ((u >> k) + 1 gains a bit exactly when u >> k is all ones, i.e. when k >= d), so the total is
///   2 sum_{L > k} cnt_L (L - k) + 2 #{u : d <= k} + n (k - 1),
/// the same as summing exp_golomb_bits over the values (BitStream tests in tests/proto/codec/snapshot_codec_test.cpp).
inline unsigned cheapest_exp_golomb_order(std::span<const std::uint64_t> values, unsigned max_order) {
  if (values.empty()) return 0;
  std::array<std::uint64_t, 65> by_width{}, by_d{};
  unsigned max_width = 0;
  for (std::uint64_t u : values) {
    const auto width = static_cast<unsigned>(std::bit_width(u));
    const unsigned ones = width == 0 ? 0 : static_cast<unsigned>(std::countl_one(u << (64 - width)));
    ++by_width[width];
    ++by_d[width - ones];
    max_width = width > max_width ? width : max_width;
  }
  const std::uint64_t n = values.size();
  unsigned best = 0;
  std::uint64_t best_bits = ~std::uint64_t{0};
  std::uint64_t d_at_most_k = 0;
  for (unsigned k = 0; k <= max_order && k < by_d.size(); ++k) {
    d_at_most_k += by_d[k];
    std::uint64_t above = 0;  // sum over widths L > k of cnt_L (L - k)
    for (unsigned width = k + 1; width <= max_width; ++width) above += by_width[width] * (width - k);
    const std::uint64_t bits = 2 * above + 2 * d_at_most_k + n * k - n;
    if (bits < best_bits) {
      best_bits = bits;
      best = k;
    } else if (bits > best_bits + n) {
      break;
    }
  }
  return best;
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
    const auto lg = static_cast<unsigned>(std::bit_width(x)) - 1;
    // lg zeros, then x in lg+1 bits (its leading 1 ends the zero run), then the low k bits of u.
    if (2 * lg + 1 + k <= 32) {  // the common case: the whole code in one put (x's zeros lead)
      put((x << k) | (u & ((std::uint64_t{1} << k) - 1)), 2 * lg + 1 + k);
      return;
    }
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
