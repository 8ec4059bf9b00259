#pragma once
/// \file stage_kinematic.hpp
/// The kinematic model's per-tick rules (T03, T17, T18) as free functions over plain data, run by
/// both the World (world_kinematic.cpp) and the Extrapolator (extrapolate.cpp). Private: not
/// installed.
#include "flockstep/math/vec2.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// T17 (track) / T18 (anti-track) on metres: LaMothe's per-axis step from the agent (at the
/// origin) toward, or away from, a target at `offset`, as a velocity, m/s. Tracking moves
/// max_speed * dt a tick on each axis (the step divided by dt: the T17 unit conversion);
/// anti-tracking moves away at max_speed on each axis (an equal axis stays).
Vec2 tracker_velocity(bool track, Vec2 offset, real max_speed, real dt);

/// T16 LaMothe's fly velocity in pixels a tick (components in [-8, 7]) as m/s: a component of 8
/// is max_speed.
inline Vec2 fly_velocity(Vec2 pixels_per_tick, real max_speed) { return pixels_per_tick * (max_speed / 8); }

/// A kinematic agent's columns the T03 update writes.
struct KinematicRef {
  Vec2& position;
  Vec2& velocity;
  real& orientation;       ///< rad
  real& angular_velocity;  ///< rad/s
};

/// T03: the velocity (m/s) is set directly and moves the agent for dt; with `face` it faces
/// along its velocity (wander keeps its own facing and turns by `rotation`, rad/s).
void commit_kinematic(KinematicRef k, Vec2 velocity, real rotation, bool face, real dt);

}  // namespace flockstep::sim
