#pragma once
/// \file lanes.hpp
/// Four double-precision lanes, in two implementations with the same interface and the same bits:
///   - ScalarLanes: a plain array and a loop per operation. It is the reference: what a lane
///     computes is exactly what this computes, and it runs wherever C++ does.
///   - SimdLanes: GCC/Clang vector extensions, which the compiler lowers to AVX (one 256-bit op),
///     SSE2 (two 128-bit ops) or wasm SIMD128 (two f64x2 ops).
/// Kernels are templates over the lane type, so both forms come from one source and a test can
/// compare them bit for bit (tests/shared/math/lanes_test.cpp, behavior/flocking_lanes_test.cpp).
///
/// Why the bits agree: every operation here is lane-wise and IEEE-754 correctly rounded (+ - * /
/// sqrt), comparisons and selects are exact, and nothing here reassociates or fuses (the library
/// is built with -ffp-contract=off and without -ffast-math; there is no FMA and no relaxed-SIMD
/// op). Reductions across lanes are written out in one fixed order (reduce_add). min/max are
/// selects with the same NaN rule as math::min/max, not minpd/maxpd (whose NaN operand choice
/// differs between x86 and wasm).
///
/// Written by hand rather than with a SIMD library: the candidates (xsimd, Highway, std::experimental::simd)
/// are not in Debian 12 for Emscripten, and the kernels need only these dozen operations.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>
#include <iterator>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <immintrin.h>
#endif

namespace flockstep::math::lanes {

inline constexpr int kWidth = 4;

namespace scalar {
/// Lane values (double or float) and lane masks (all bits set or clear) as plain arrays.
template <class T, int W>
struct Values {
  T v[W];
};
template <class U, int W>
struct Mask {
  U v[W];
};
/// The lane-wise operations both scalar reference forms share (ScalarLanes here, ScalarLanesF8
/// in lanes_f32.hpp): one loop per operation, the IEEE operation of the element type per lane.
template <class T, class U, int W>
struct Ops {
  using D = Values<T, W>;
  using M = Mask<U, W>;
  static constexpr bool kIsSimd = false;

  template <class V, class Op>
  static V each(V a, const V& b, Op op) {
    for (int j = 0; j < W; ++j) a.v[j] = op(a.v[j], b.v[j]);
    return a;
  }
  template <class V, class Pred>
  static M mask(const V& a, const V& b, Pred p) {
    M m;
    for (int j = 0; j < W; ++j) m.v[j] = p(a.v[j], b.v[j]) ? static_cast<U>(~U{0}) : U{0};
    return m;
  }
  static D load(const T* p) {
    D r;
    for (int j = 0; j < W; ++j) r.v[j] = p[j];
    return r;
  }
  static D splat(T x) {
    D r;
    for (T& v : r.v) v = x;
    return r;
  }
  static D add(D a, D b) { return each(a, b, std::plus<>{}); }
  static D sub(D a, D b) { return each(a, b, std::minus<>{}); }
  static D mul(D a, D b) { return each(a, b, std::multiplies<>{}); }
  static D div(D a, D b) { return each(a, b, std::divides<>{}); }
  static D sqrt(D a) {
    for (T& v : a.v) v = std::sqrt(v);
    return a;
  }
  static M lt(D a, D b) { return mask(a, b, std::less<>{}); }
  static M le(D a, D b) { return mask(a, b, std::less_equal<>{}); }
  static M mask_and(M a, M b) { return each(a, b, std::bit_and<>{}); }
  static M mask_andnot(M a, M b) {  // a & ~b
    return each(a, b, [](U x, U y) { return static_cast<U>(x & ~y); });
  }
  static M mask_or(M a, M b) { return each(a, b, std::bit_or<>{}); }
  static M all_lanes(bool on) {
    M m;
    for (U& v : m.v) v = on ? static_cast<U>(~U{0}) : U{0};
    return m;
  }
  static bool any(M m) {
    U o = 0;
    for (U v : m.v) o |= v;
    return o != 0;
  }
  /// m ? a : b per lane (exact: bits are moved, not computed).
  static D select(M m, D a, D b) {
    for (int j = 0; j < W; ++j) b.v[j] = m.v[j] ? a.v[j] : b.v[j];
    return b;
  }
  /// m ? a : 0 per lane.
  static D keep(M m, D a) { return select(m, a, splat(T{0})); }
  /// a > b ? a : b per lane (math::max's rule for NaN: b).
  static D max(D a, D b) {
    return each(a, b, [](T x, T y) { return x > y ? x : y; });
  }
  static T lane(D a, int j) { return a.v[j]; }
};
}  // namespace scalar

/// The reference implementation: one loop per operation.
struct ScalarLanes : scalar::Ops<double, std::uint64_t, kWidth> {
  static M eq(D a, D b) { return mask(a, b, std::equal_to<>{}); }
  /// Lanes where p[j] == x (four consecutive int32 values).
  static M eq_i32(const std::int32_t* p, std::int32_t x) {
    M m;
    for (int j = 0; j < kWidth; ++j) m.v[j] = p[j] == x ? ~std::uint64_t{0} : 0;
    return m;
  }
  /// Lanes j with lo <= base + j < hi and base + j != skip.
  static M index_mask(std::int32_t base, std::int32_t hi, std::int32_t skip) {
    M m;
    for (int j = 0; j < kWidth; ++j) m.v[j] = (base + j < hi && base + j != skip) ? ~std::uint64_t{0} : 0;
    return m;
  }
  /// Four (x, y) pairs stored one after the other (a column of Vec2), split into x and y lanes.
  static void load_xy(const double* p, D& x, D& y) {
    for (int j = 0; j < kWidth; ++j) {
      x.v[j] = p[2 * j];
      y.v[j] = p[2 * j + 1];
    }
  }
  /// The inverse of load_xy: lane j goes to p[2j], p[2j + 1].
  static void store_xy(double* p, D x, D y) {
    for (int j = 0; j < kWidth; ++j) {
      p[2 * j] = x.v[j];
      p[2 * j + 1] = y.v[j];
    }
  }
};

#if defined(__GNUC__) || defined(__clang__)
#define FLOCKSTEP_LANES_SIMD 1
namespace detail {
/// std::bit_cast (Emscripten 3.1.6's libc++ does not have it yet; both compilers have the builtin).
template <class To, class From>
[[gnu::always_inline]] inline To bit_as(const From& f) {
  static_assert(sizeof(To) == sizeof(From));
  return __builtin_bit_cast(To, f);
}
typedef double D2 __attribute__((vector_size(16)));
typedef long long M2 __attribute__((vector_size(16)));
typedef std::int32_t I4 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline D2 sqrt2(D2 a) {
#if defined(__SSE2__)
  return detail::bit_as<D2>(_mm_sqrt_pd(detail::bit_as<__m128d>(a)));
#elif defined(__wasm_simd128__)
  return detail::bit_as<D2>(wasm_f64x2_sqrt(detail::bit_as<v128_t>(a)));
#else
  return D2{std::sqrt(a[0]), std::sqrt(a[1])};
#endif
}
/// 32-bit lane masks {a, b, c, d} as two 64-bit lane masks {a, b} and {c, d}: each 32-bit mask
/// is all ones or all zeros, so repeating it fills its 64-bit lane.
[[gnu::always_inline]] inline M2 widen_lo(I4 m) {
  return detail::bit_as<M2>(__builtin_shufflevector(m, m, 0, 0, 1, 1));
}
[[gnu::always_inline]] inline M2 widen_hi(I4 m) {
  return detail::bit_as<M2>(__builtin_shufflevector(m, m, 2, 2, 3, 3));
}
[[gnu::always_inline]] inline I4 load_i4(const std::int32_t* p) {
  I4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline I4 index_mask_i4(std::int32_t base, std::int32_t hi, std::int32_t skip) {
  const I4 k = I4{base, base + 1, base + 2, base + 3};
  return (k < I4{hi, hi, hi, hi}) & (k != I4{skip, skip, skip, skip});
}
}  // namespace detail

/// Four lanes as two 128-bit halves: one SSE2 or wasm SIMD128 instruction per half. (GCC lowers
/// a 256-bit vector type without AVX into scalar compares and stack spills: measured 2x slower
/// than scalar code, so the halves are explicit.)
struct SimdLanes {
  using D2 = detail::D2;
  using M2 = detail::M2;
  struct D {
    D2 lo, hi;
  };
  struct M {
    M2 lo, hi;
  };
  static constexpr bool kIsSimd = true;

  [[gnu::always_inline]] static D load(const double* p) {
    D r;
    std::memcpy(&r.lo, p, sizeof r.lo);  // unaligned loads
    std::memcpy(&r.hi, p + 2, sizeof r.hi);
    return r;
  }
  [[gnu::always_inline]] static D splat(double x) { return D{D2{x, x}, D2{x, x}}; }
  [[gnu::always_inline]] static D add(D a, D b) { return D{a.lo + b.lo, a.hi + b.hi}; }
  [[gnu::always_inline]] static D sub(D a, D b) { return D{a.lo - b.lo, a.hi - b.hi}; }
  [[gnu::always_inline]] static D mul(D a, D b) { return D{a.lo * b.lo, a.hi * b.hi}; }
  [[gnu::always_inline]] static D div(D a, D b) { return D{a.lo / b.lo, a.hi / b.hi}; }
  [[gnu::always_inline]] static D sqrt(D a) { return D{detail::sqrt2(a.lo), detail::sqrt2(a.hi)}; }
  [[gnu::always_inline]] static M lt(D a, D b) {
    return M{detail::bit_as<M2>(a.lo < b.lo), detail::bit_as<M2>(a.hi < b.hi)};
  }
  [[gnu::always_inline]] static M le(D a, D b) {
    return M{detail::bit_as<M2>(a.lo <= b.lo), detail::bit_as<M2>(a.hi <= b.hi)};
  }
  [[gnu::always_inline]] static M eq(D a, D b) {
    return M{detail::bit_as<M2>(a.lo == b.lo), detail::bit_as<M2>(a.hi == b.hi)};
  }
  [[gnu::always_inline]] static M eq_i32(const std::int32_t* p, std::int32_t x) {
    const detail::I4 e = detail::load_i4(p) == detail::I4{x, x, x, x};
    return M{detail::widen_lo(e), detail::widen_hi(e)};
  }
  [[gnu::always_inline]] static M index_mask(std::int32_t base, std::int32_t hi, std::int32_t skip) {
    const detail::I4 m = detail::index_mask_i4(base, hi, skip);
    return M{detail::widen_lo(m), detail::widen_hi(m)};
  }
  [[gnu::always_inline]] static M mask_and(M a, M b) { return M{a.lo & b.lo, a.hi & b.hi}; }
  [[gnu::always_inline]] static M mask_andnot(M a, M b) { return M{a.lo & ~b.lo, a.hi & ~b.hi}; }
  [[gnu::always_inline]] static M mask_or(M a, M b) { return M{a.lo | b.lo, a.hi | b.hi}; }
  [[gnu::always_inline]] static M all_lanes(bool on) {
    const long long x = on ? -1 : 0;
    return M{M2{x, x}, M2{x, x}};
  }
  [[gnu::always_inline]] static bool any(M m) {
    const M2 o = m.lo | m.hi;
    return (o[0] | o[1]) != 0;
  }
  [[gnu::always_inline]] static D2 select2(M2 m, D2 a, D2 b) {
    return detail::bit_as<D2>((detail::bit_as<M2>(a) & m) | (detail::bit_as<M2>(b) & ~m));
  }
  [[gnu::always_inline]] static D select(M m, D a, D b) {
    return D{select2(m.lo, a.lo, b.lo), select2(m.hi, a.hi, b.hi)};
  }
  [[gnu::always_inline]] static D keep(M m, D a) {
    return D{detail::bit_as<D2>(detail::bit_as<M2>(a.lo) & m.lo), detail::bit_as<D2>(detail::bit_as<M2>(a.hi) & m.hi)};
  }
  [[gnu::always_inline]] static D max(D a, D b) { return select(lt(b, a), a, b); }
  [[gnu::always_inline]] static double lane(D a, int j) { return j < 2 ? a.lo[j] : a.hi[j - 2]; }
  /// Four (x, y) pairs in a row split into x and y lanes: data movement only (unpack low/high).
  [[gnu::always_inline]] static void load_xy(const double* p, D& x, D& y) {
    D2 a, b, c, d;
    std::memcpy(&a, p, sizeof a);
    std::memcpy(&b, p + 2, sizeof b);
    std::memcpy(&c, p + 4, sizeof c);
    std::memcpy(&d, p + 6, sizeof d);
    x = D{__builtin_shufflevector(a, b, 0, 2), __builtin_shufflevector(c, d, 0, 2)};
    y = D{__builtin_shufflevector(a, b, 1, 3), __builtin_shufflevector(c, d, 1, 3)};
  }
  [[gnu::always_inline]] static void store_xy(double* p, D x, D y) {
    const D2 a = __builtin_shufflevector(x.lo, y.lo, 0, 2), b = __builtin_shufflevector(x.lo, y.lo, 1, 3);
    const D2 c = __builtin_shufflevector(x.hi, y.hi, 0, 2), d = __builtin_shufflevector(x.hi, y.hi, 1, 3);
    std::memcpy(p, &a, sizeof a);
    std::memcpy(p + 2, &b, sizeof b);
    std::memcpy(p + 4, &c, sizeof c);
    std::memcpy(p + 6, &d, sizeof d);
  }
};

#if defined(__AVX__)
/// Four lanes in one 256-bit AVX register (translation units built with -mavx2, see
/// FLOCKSTEP_SIMD_AVX2). A separate type, so a program may mix such units with SimdLanes ones.
struct SimdLanes256 {
  typedef double D __attribute__((vector_size(32)));
  typedef long long M __attribute__((vector_size(32)));
  static constexpr bool kIsSimd = true;

  [[gnu::always_inline]] static D load(const double* p) {
    D r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  [[gnu::always_inline]] static D splat(double x) { return D{x, x, x, x}; }
  [[gnu::always_inline]] static D add(D a, D b) { return a + b; }
  [[gnu::always_inline]] static D sub(D a, D b) { return a - b; }
  [[gnu::always_inline]] static D mul(D a, D b) { return a * b; }
  [[gnu::always_inline]] static D div(D a, D b) { return a / b; }
  [[gnu::always_inline]] static D sqrt(D a) { return detail::bit_as<D>(_mm256_sqrt_pd(detail::bit_as<__m256d>(a))); }
  [[gnu::always_inline]] static M lt(D a, D b) { return detail::bit_as<M>(a < b); }
  [[gnu::always_inline]] static M le(D a, D b) { return detail::bit_as<M>(a <= b); }
  [[gnu::always_inline]] static M eq(D a, D b) { return detail::bit_as<M>(a == b); }
  [[gnu::always_inline]] static M eq_i32(const std::int32_t* p, std::int32_t x) {
    return __builtin_convertvector(detail::load_i4(p) == detail::I4{x, x, x, x}, M);
  }
  [[gnu::always_inline]] static M index_mask(std::int32_t base, std::int32_t hi, std::int32_t skip) {
    return __builtin_convertvector(detail::index_mask_i4(base, hi, skip), M);
  }
  [[gnu::always_inline]] static M mask_and(M a, M b) { return a & b; }
  [[gnu::always_inline]] static M mask_andnot(M a, M b) { return a & ~b; }
  [[gnu::always_inline]] static M mask_or(M a, M b) { return a | b; }
  [[gnu::always_inline]] static M all_lanes(bool on) {
    const long long x = on ? -1 : 0;
    return M{x, x, x, x};
  }
  [[gnu::always_inline]] static bool any(M m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }
  [[gnu::always_inline]] static D select(M m, D a, D b) {
    return detail::bit_as<D>((detail::bit_as<M>(a) & m) | (detail::bit_as<M>(b) & ~m));
  }
  [[gnu::always_inline]] static D keep(M m, D a) { return detail::bit_as<D>(detail::bit_as<M>(a) & m); }
  [[gnu::always_inline]] static D max(D a, D b) { return select(lt(b, a), a, b); }
  [[gnu::always_inline]] static double lane(D a, int j) { return a[j]; }
  /// Four (x, y) pairs in a row split into x and y lanes: data movement only.
  [[gnu::always_inline]] static void load_xy(const double* p, D& x, D& y) {
    D a, b;
    std::memcpy(&a, p, sizeof a);
    std::memcpy(&b, p + 4, sizeof b);
    x = __builtin_shufflevector(a, b, 0, 2, 4, 6);
    y = __builtin_shufflevector(a, b, 1, 3, 5, 7);
  }
  [[gnu::always_inline]] static void store_xy(double* p, D x, D y) {
    const D a = __builtin_shufflevector(x, y, 0, 4, 1, 5), b = __builtin_shufflevector(x, y, 2, 6, 3, 7);
    std::memcpy(p, &a, sizeof a);
    std::memcpy(p + 4, &b, sizeof b);
  }
};
#endif
#endif

/// Sum of the four lanes in the one fixed order ((l0 + l1) + (l2 + l3)), for either type.
template <class L>
inline double reduce_add(typename L::D a) {
  return (L::lane(a, 0) + L::lane(a, 1)) + (L::lane(a, 2) + L::lane(a, 3));
}

}  // namespace flockstep::math::lanes
