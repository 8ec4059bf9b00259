#pragma once
/// \file scalar.hpp
/// The one floating type of all simulation state, and exact scalar helpers.
///
/// Choice: double. The catalog (Part I) recommends double for integration state, fast rotations
/// stay stable, wasm32 has native f64, and scalar double arithmetic costs the same as float on
/// x86-64. Determinism comes from IEEE-754 semantics, -ffp-contract=off and our own
/// transcendentals (angle.hpp), not from the width of the type.
#include <cmath>
#include <cstdint>
#include <limits>

namespace flockstep::math {

using real = double;
static_assert(std::numeric_limits<real>::is_iec559, "Flockstep needs IEEE-754 doubles");

inline constexpr real kPi = 3.14159265358979323846;
inline constexpr real kTwoPi = 6.28318530717958647692;
inline constexpr real kHalfPi = 1.57079632679489661923;
inline constexpr real kDegToRad = kPi / 180.0;
inline constexpr real kRadToDeg = 180.0 / kPi;
inline constexpr real kInfinity = std::numeric_limits<real>::infinity();

/// Clamp x into [lo, hi]. Exact.
constexpr real clamp(real x, real lo, real hi) { return x < lo ? lo : (x > hi ? hi : x); }

/// T12: sign(x) = x/|x| for x != 0; we return 0 for x == 0 (the seed leaves it undefined).
/// |x|, constexpr (-0 stays -0, which compares and adds as +0).
constexpr real abs(real x) { return x < 0 ? -x : x; }

constexpr real sign(real x) { return x > 0 ? real(1) : (x < 0 ? real(-1) : real(0)); }

/// Minimum / maximum without std::min's reference semantics. Exact.
constexpr real min(real a, real b) { return a < b ? a : b; }
constexpr real max(real a, real b) { return a > b ? a : b; }

/// True when x is neither NaN nor infinite.
inline bool is_finite(real x) { return std::isfinite(x); }

/// Square root: IEEE-754 requires it to be correctly rounded, so it is deterministic everywhere.
inline real sqrt(real x) { return std::sqrt(x); }

}  // namespace flockstep::math

/// Overridable assertion for shared/ (no exceptions there; see house style section 5).
#ifndef FLOCKSTEP_ASSERT
#include <cassert>
#define FLOCKSTEP_ASSERT(cond) assert(cond)
#endif
