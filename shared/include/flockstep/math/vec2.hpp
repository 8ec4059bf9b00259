#pragma once
/// \file vec2.hpp
/// 2D vector used for positions, velocities, forces and directions (metres, m/s, N, unitless).
#include "flockstep/math/scalar.hpp"

namespace flockstep::math {

/// Plain 2D vector. World frame: x right, y up.
struct Vec2 {
  real x = 0;
  real y = 0;

  constexpr Vec2& operator+=(Vec2 o) {
    x += o.x;
    y += o.y;
    return *this;
  }
  constexpr Vec2& operator-=(Vec2 o) {
    x -= o.x;
    y -= o.y;
    return *this;
  }
  constexpr Vec2& operator*=(real s) {
    x *= s;
    y *= s;
    return *this;
  }
  constexpr Vec2& operator/=(real s) {
    x /= s;
    y /= s;
    return *this;
  }
  friend constexpr bool operator==(Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; }
  friend constexpr bool operator!=(Vec2 a, Vec2 b) { return !(a == b); }
};

constexpr Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
constexpr Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
constexpr Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
constexpr Vec2 operator*(Vec2 a, real s) { return {a.x * s, a.y * s}; }
constexpr Vec2 operator*(real s, Vec2 a) { return {a.x * s, a.y * s}; }
constexpr Vec2 operator/(Vec2 a, real s) { return {a.x / s, a.y / s}; }

constexpr real dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
/// z component of the 3D cross product; > 0 when b is counter-clockwise from a.
constexpr real cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
constexpr real length_sq(Vec2 a) { return dot(a, a); }
inline real length(Vec2 a) { return sqrt(length_sq(a)); }
inline real distance(Vec2 a, Vec2 b) { return length(a - b); }
constexpr real distance_sq(Vec2 a, Vec2 b) { return length_sq(a - b); }
/// Counter-clockwise perpendicular (left of a when facing along a).
constexpr Vec2 perp_left(Vec2 a) { return {-a.y, a.x}; }
constexpr Vec2 perp_right(Vec2 a) { return {a.y, -a.x}; }
constexpr bool is_zero(Vec2 a) { return a.x == 0 && a.y == 0; }
inline bool is_finite(Vec2 a) { return is_finite(a.x) && is_finite(a.y); }

/// norm(x) = x/|x|; the zero vector stays zero (Millington's convention, catalog section 0.1).
inline Vec2 normalized(Vec2 a) {
  const real l = length(a);
  return l > 0 ? a / l : Vec2{};
}

/// T08 truncate / clip(x, L): scale a down so |a| <= max_len, keeping its direction.
/// Fixes the slides' errata: the factor is min(1, max/|a|), and a zero vector is returned as is.
inline Vec2 truncate(Vec2 a, real max_len) {
  const real l2 = length_sq(a);
  if (l2 <= max_len * max_len) return a;
  return a * (max_len / sqrt(l2));
}

}  // namespace flockstep::math
