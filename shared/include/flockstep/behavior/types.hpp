#pragma once
/// \file types.hpp
/// Plain data shared by every behaviour family: kinematic state, steering outputs, bodies and
/// static geometry. No behaviour lives here. Units: metres, seconds, radians, kilograms.
#include <cstdint>
#include <span>

#include "flockstep/math/angle.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/math/vec2.hpp"

namespace flockstep::behavior {

using math::real;
using math::Rng;
using math::Vec2;

/// T01 Millington "Static": position and orientation (radians, CCW from +x).
struct Static {
  Vec2 position;
  real orientation = 0;
};

/// T01 Millington "Kinematic": position, orientation, velocity (m/s), rotation (rad/s).
struct Kinematic {
  Vec2 position;
  real orientation = 0;
  Vec2 velocity;
  real rotation = 0;
};

/// T01 Millington SteeringOutput: linear acceleration (m/s^2) and angular acceleration (rad/s^2).
/// Both zero means "no steering"; behaviours return this value when they have nothing to say.
struct SteeringOutput {
  Vec2 linear;
  real angular = 0;

  constexpr SteeringOutput& operator+=(const SteeringOutput& o) {
    linear += o.linear;
    angular += o.angular;
    return *this;
  }
  friend constexpr SteeringOutput operator+(SteeringOutput a, const SteeringOutput& b) { return a += b; }
  friend constexpr SteeringOutput operator*(SteeringOutput a, real s) { return {a.linear * s, a.angular * s}; }
  friend constexpr bool operator==(const SteeringOutput&, const SteeringOutput&) = default;
  /// True when this output asks for nothing.
  constexpr bool none() const { return math::is_zero(linear) && angular == 0; }
};

/// T01 Millington KinematicSteeringOutput: desired velocity (m/s) and rotation (rad/s).
struct KinematicSteeringOutput {
  Vec2 velocity;
  real rotation = 0;
  friend constexpr bool operator==(const KinematicSteeringOutput&, const KinematicSteeringOutput&) = default;
};

/// T08 the slides' Body (Buckland vehicle): a point mass steered by forces.
struct Body {
  Vec2 position;
  Vec2 velocity;
  Vec2 heading{1, 0};   ///< unit vector; updated from velocity while speed > 1e-6 (T08)
  real mass = 1;        ///< kg. [Limit: > 0]
  real max_force = 10;  ///< N, limit on the combined steering force. [Limit: >= 0]
  real max_speed = 5;   ///< m/s. [Limit: >= 0]
  real radius = 0.5;    ///< bounding radius, m (collision-related behaviours only). [Limit: >= 0]
};

/// A moving thing a behaviour reasons about (target, prey, pursuer, neighbour).
struct Mover {
  Vec2 position;
  Vec2 velocity;
};

/// Circular obstacle (T36, T58, T73, T74).
struct Circle {
  Vec2 center;
  real radius = 1;  ///< m. [Limit: > 0]
};

/// Wall segment from a to b. Its normal is the unit left perpendicular of (b - a): the side a
/// wall faces. Behaviours orient the normal toward the agent when they need to (T75).
struct Wall {
  Vec2 a;
  Vec2 b;
  Vec2 normal() const { return math::normalized(math::perp_left(b - a)); }
};

/// Result of a ray or segment cast against geometry (T59).
struct RayHit {
  bool hit = false;
  Vec2 position;      ///< first contact point
  Vec2 normal;        ///< unit surface normal at the contact, facing the ray origin
  real fraction = 1;  ///< 0..1 along the cast segment
};

}  // namespace flockstep::behavior
