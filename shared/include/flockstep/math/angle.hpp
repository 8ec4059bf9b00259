#pragma once
/// \file angle.hpp
/// Angles (radians) and deterministic transcendentals.
///
/// libm's sin/cos/atan2 differ between glibc and the wasm musl build, so the simulation never
/// calls them. These are fdlibm-style polynomial kernels (the coefficients are the classic
/// freely-distributable fdlibm minimax constants) evaluated with plain + and *, so they give the
/// same bits on every IEEE-754 machine compiled with -ffp-contract=off. Accuracy is about 1 ulp
/// for |x| < 1e5, which is far more than a game needs; determinism is the point.
///
/// Orientation convention: theta is measured counter-clockwise from the world +x axis, so
/// as_vector(0) = (1, 0) and as_vector(pi/2) = (0, 1).
#include "flockstep/math/vec2.hpp"

namespace flockstep::math {

/// sin and cos of one angle.
struct SinCos {
  real sin = 0;
  real cos = 1;
};

/// Deterministic sin and cos of x (radians). Any finite x gives a bounded result; accuracy is
/// ~1 ulp for |x| < 1e5, ~1e-6 at 1e10, and meaningless beyond 1e15 (where one ulp > 0.1 rad).
SinCos sin_cos(real x);

/// Deterministic atan2(y, x) in (-pi, pi]. atan2(0, 0) = 0; atan2(+-0, x<0) = +pi.
real arctan2(real y, real x);
/// Deterministic acos with the argument clamped to [-1, 1] (catalog T29: rounding otherwise gives NaN).
real arccos_clamped(real x);

/// T12: wrap an angle into (-pi, pi]. wrap(pi) = pi, wrap(-pi) = pi.
real wrap_angle(real phi);

/// T01: unit vector for orientation theta.
inline Vec2 as_vector(real theta) {
  const SinCos sc = sin_cos(theta);
  return {sc.cos, sc.sin};
}
/// T01: orientation of a vector; for the zero vector returns 0.
inline real orientation_of(Vec2 v) { return arctan2(v.y, v.x); }
/// T01: newOrientation(current, velocity): the angle of velocity, or current if velocity is zero.
inline real new_orientation(real current, Vec2 velocity) {
  return is_zero(velocity) ? current : orientation_of(velocity);
}

/// Rotate v by the angle whose sin/cos are given.
constexpr Vec2 rotate(Vec2 v, SinCos sc) { return {v.x * sc.cos - v.y * sc.sin, v.x * sc.sin + v.y * sc.cos}; }
/// Rotate v by angle phi (radians, counter-clockwise).
inline Vec2 rotate(Vec2 v, real phi) { return rotate(v, sin_cos(phi)); }

}  // namespace flockstep::math
