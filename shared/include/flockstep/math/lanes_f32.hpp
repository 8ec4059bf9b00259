#pragma once
/// \file lanes_f32.hpp
/// Eight single-precision lanes, in three implementations with the same interface and the same
/// bits (the float counterpart of lanes.hpp, whose rules hold here unchanged):
///   - ScalarLanesF8: a plain array and a loop per operation, the reference.
///   - SimdLanesF8: two 128-bit halves (SSE2 natively, wasm SIMD128 in the browser).
///   - SimdLanesF8x256: one 256-bit AVX register (translation units built with -mavx2).
/// Every operation is lane-wise and IEEE-754 correctly rounded in binary32 (+ - * / sqrt),
/// compares and selects are exact, nothing fuses or reassociates (-ffp-contract=off, no
/// -ffast-math), and the one cross-lane sum (reduce_add_f8) is written out in a fixed order. So
/// which form runs is a matter of speed only.
///
/// Why a float form at all: the neighbourhood kernel (flocking_lanes.hpp) spends its time on
/// compares, compaction and one square root and division per kept candidate; eight float lanes
/// do twice the candidates per instruction of four double lanes, and the float square root and
/// division are cheaper per lane. Offsets within a neighbourhood radius need nothing like double
/// precision; positions themselves stay double in the world.
///
/// Integer lanes (I) carry slot numbers and groups: comparing slot numbers as int32 keeps them
/// exact at any world size (a float holds integers exactly only up to 2^24).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "flockstep/math/lanes.hpp"

namespace flockstep::math::lanes {

inline constexpr int kWidthF8 = 8;

/// The reference implementation: one loop per operation (the arithmetic shared with ScalarLanes).
struct ScalarLanesF8 : scalar::Ops<float, std::int32_t, kWidthF8> {
  using F = D;
  /// The integer lanes share the masks' representation.
  using I = M;

  static I iload(const std::int32_t* p) {
    I r;
    for (int j = 0; j < kWidthF8; ++j) r.v[j] = p[j];
    return r;
  }
  static I isplat(std::int32_t x) { return I{{x, x, x, x, x, x, x, x}}; }
  static I iota() { return I{{0, 1, 2, 3, 4, 5, 6, 7}}; }
  static I iadd(I a, I b) { return each(a, b, std::plus<>{}); }
  static M ilt(I a, I b) { return mask(a, b, std::less<>{}); }
  static M ieq(I a, I b) { return mask(a, b, std::equal_to<>{}); }
  /// Bit j set where lane j of the mask is set.
  static unsigned bits(M m) {
    unsigned b = 0;
    for (int j = 0; j < kWidthF8; ++j) b |= unsigned(m.v[j] != 0) << j;
    return b;
  }
};

#if defined(FLOCKSTEP_LANES_SIMD)
namespace detail {
typedef float F4 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline F4 sqrt4(F4 a) {
#if defined(__SSE2__)
  return bit_as<F4>(_mm_sqrt_ps(bit_as<__m128>(a)));
#elif defined(__wasm_simd128__)
  return bit_as<F4>(wasm_f32x4_sqrt(bit_as<v128_t>(a)));
#else
  return F4{std::sqrt(a[0]), std::sqrt(a[1]), std::sqrt(a[2]), std::sqrt(a[3])};
#endif
}
}  // namespace detail

/// Eight lanes as two 128-bit halves: one SSE2 or wasm SIMD128 instruction per half.
struct SimdLanesF8 {
  using F4 = detail::F4;
  using I4 = detail::I4;
  struct F {
    F4 lo, hi;
  };
  struct M {
    I4 lo, hi;
  };
  using I = M;
  static constexpr bool kIsSimd = true;

  [[gnu::always_inline]] static F load(const float* p) {
    F r;
    std::memcpy(&r.lo, p, sizeof r.lo);  // unaligned loads
    std::memcpy(&r.hi, p + 4, sizeof r.hi);
    return r;
  }
  [[gnu::always_inline]] static F splat(float x) { return F{F4{x, x, x, x}, F4{x, x, x, x}}; }
  [[gnu::always_inline]] static F add(F a, F b) { return F{a.lo + b.lo, a.hi + b.hi}; }
  [[gnu::always_inline]] static F sub(F a, F b) { return F{a.lo - b.lo, a.hi - b.hi}; }
  [[gnu::always_inline]] static F mul(F a, F b) { return F{a.lo * b.lo, a.hi * b.hi}; }
  [[gnu::always_inline]] static F div(F a, F b) { return F{a.lo / b.lo, a.hi / b.hi}; }
  [[gnu::always_inline]] static F sqrt(F a) { return F{detail::sqrt4(a.lo), detail::sqrt4(a.hi)}; }
  [[gnu::always_inline]] static M lt(F a, F b) {
    return M{detail::bit_as<I4>(a.lo < b.lo), detail::bit_as<I4>(a.hi < b.hi)};
  }
  [[gnu::always_inline]] static M le(F a, F b) {
    return M{detail::bit_as<I4>(a.lo <= b.lo), detail::bit_as<I4>(a.hi <= b.hi)};
  }
  [[gnu::always_inline]] static I iload(const std::int32_t* p) { return I{detail::load_i4(p), detail::load_i4(p + 4)}; }
  [[gnu::always_inline]] static I isplat(std::int32_t x) { return I{I4{x, x, x, x}, I4{x, x, x, x}}; }
  [[gnu::always_inline]] static I iota() { return I{I4{0, 1, 2, 3}, I4{4, 5, 6, 7}}; }
  [[gnu::always_inline]] static I iadd(I a, I b) { return I{a.lo + b.lo, a.hi + b.hi}; }
  [[gnu::always_inline]] static M ilt(I a, I b) { return M{a.lo < b.lo, a.hi < b.hi}; }
  [[gnu::always_inline]] static M ieq(I a, I b) { return M{a.lo == b.lo, a.hi == b.hi}; }
  [[gnu::always_inline]] static M mask_and(M a, M b) { return M{a.lo & b.lo, a.hi & b.hi}; }
  [[gnu::always_inline]] static M mask_andnot(M a, M b) { return M{a.lo & ~b.lo, a.hi & ~b.hi}; }
  [[gnu::always_inline]] static M all_lanes(bool on) { return isplat(on ? -1 : 0); }
  [[gnu::always_inline]] static unsigned bits(M m) {
#if defined(__SSE2__)
    return static_cast<unsigned>(_mm_movemask_ps(detail::bit_as<__m128>(m.lo))) |
           static_cast<unsigned>(_mm_movemask_ps(detail::bit_as<__m128>(m.hi))) << 4;
#elif defined(__wasm_simd128__)
    return static_cast<unsigned>(wasm_i32x4_bitmask(detail::bit_as<v128_t>(m.lo))) |
           static_cast<unsigned>(wasm_i32x4_bitmask(detail::bit_as<v128_t>(m.hi))) << 4;
#else
    unsigned b = 0;
    for (int j = 0; j < 4; ++j) b |= unsigned(m.lo[j] != 0) << j | unsigned(m.hi[j] != 0) << (j + 4);
    return b;
#endif
  }
  [[gnu::always_inline]] static F select(M m, F a, F b) {
    return F{detail::bit_as<F4>((detail::bit_as<I4>(a.lo) & m.lo) | (detail::bit_as<I4>(b.lo) & ~m.lo)),
             detail::bit_as<F4>((detail::bit_as<I4>(a.hi) & m.hi) | (detail::bit_as<I4>(b.hi) & ~m.hi))};
  }
  [[gnu::always_inline]] static F keep(M m, F a) {
    return F{detail::bit_as<F4>(detail::bit_as<I4>(a.lo) & m.lo), detail::bit_as<F4>(detail::bit_as<I4>(a.hi) & m.hi)};
  }
  [[gnu::always_inline]] static F max(F a, F b) { return select(lt(b, a), a, b); }
  [[gnu::always_inline]] static float lane(F a, int j) { return j < 4 ? a.lo[j] : a.hi[j - 4]; }
};

#if defined(__AVX__)
/// Eight lanes in one 256-bit AVX register (units built with -mavx2: the integer compares are
/// AVX2 instructions).
struct SimdLanesF8x256 {
  typedef float F __attribute__((vector_size(32)));
  typedef std::int32_t M __attribute__((vector_size(32)));
  using I = M;
  static constexpr bool kIsSimd = true;

  [[gnu::always_inline]] static F load(const float* p) {
    F r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  [[gnu::always_inline]] static F splat(float x) { return F{x, x, x, x, x, x, x, x}; }
  [[gnu::always_inline]] static F add(F a, F b) { return a + b; }
  [[gnu::always_inline]] static F sub(F a, F b) { return a - b; }
  [[gnu::always_inline]] static F mul(F a, F b) { return a * b; }
  [[gnu::always_inline]] static F div(F a, F b) { return a / b; }
  [[gnu::always_inline]] static F sqrt(F a) { return detail::bit_as<F>(_mm256_sqrt_ps(detail::bit_as<__m256>(a))); }
  [[gnu::always_inline]] static M lt(F a, F b) { return a < b; }
  [[gnu::always_inline]] static M le(F a, F b) { return a <= b; }
  [[gnu::always_inline]] static I iload(const std::int32_t* p) {
    I r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  [[gnu::always_inline]] static I isplat(std::int32_t x) { return I{x, x, x, x, x, x, x, x}; }
  [[gnu::always_inline]] static I iota() { return I{0, 1, 2, 3, 4, 5, 6, 7}; }
  [[gnu::always_inline]] static I iadd(I a, I b) { return a + b; }
  [[gnu::always_inline]] static M ilt(I a, I b) { return a < b; }
  [[gnu::always_inline]] static M ieq(I a, I b) { return a == b; }
  [[gnu::always_inline]] static M mask_and(M a, M b) { return a & b; }
  [[gnu::always_inline]] static M mask_andnot(M a, M b) { return a & ~b; }
  [[gnu::always_inline]] static M all_lanes(bool on) { return isplat(on ? -1 : 0); }
  [[gnu::always_inline]] static unsigned bits(M m) {
    return static_cast<unsigned>(_mm256_movemask_ps(detail::bit_as<__m256>(m)));
  }
  [[gnu::always_inline]] static F select(M m, F a, F b) {
    return detail::bit_as<F>((detail::bit_as<M>(a) & m) | (detail::bit_as<M>(b) & ~m));
  }
  [[gnu::always_inline]] static F keep(M m, F a) { return detail::bit_as<F>(detail::bit_as<M>(a) & m); }
  [[gnu::always_inline]] static F max(F a, F b) { return select(lt(b, a), a, b); }
  [[gnu::always_inline]] static float lane(F a, int j) { return a[j]; }
};
#endif
#endif

/// Sum of the eight lanes in the one fixed order ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
template <class L>
inline float reduce_add_f8(typename L::F a) {
  return ((L::lane(a, 0) + L::lane(a, 1)) + (L::lane(a, 2) + L::lane(a, 3))) +
         ((L::lane(a, 4) + L::lane(a, 5)) + (L::lane(a, 6) + L::lane(a, 7)));
}

}  // namespace flockstep::math::lanes
