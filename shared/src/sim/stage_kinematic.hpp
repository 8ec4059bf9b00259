#pragma once
/// \file stage_kinematic.hpp
/// The kinematic model (T03) as stages: the technique sets the velocity directly (T15-T20, T25,
/// T37-T40), and the ray-cast steering of T59/T60 goes through Millington's update (T05). Free
/// functions over the columns they name; the World runs all of them (world.cpp's spawn, steering
/// and integrate phases), the Extrapolator (extrapolate.cpp) the per-tick rules it can feed from
/// a snapshot (tracker_velocity, fly_velocity, commit_kinematic). Private: not installed.
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"
#include "flockstep/behavior/lamothe.hpp"
#include "flockstep/behavior/pattern.hpp"
#include "flockstep/behavior/ray_avoid.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "stage_targets.hpp"
#include "technique_tally.hpp"

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

/// The columns of one kinematic agent that starting it writes.
struct KinematicStartRef {
  behavior::Fly& fly;
  behavior::MultiRayState& ray_state;
  real& rotation;  ///< the steering output's rotation, rad/s
  behavior::PatternState& pattern;
  real& orientation;  ///< read first: the spawn facing (T25 starts along it)
  Vec2& heading;
  Vec2& velocity;
};

/// Resets a (re)spawned agent's technique state; kStraight and kRayAvoid start along the
/// group's heading_deg, kStraight at full speed.
void start_kinematic_agent(const GroupSpec& g, KinematicStartRef r);

/// What the kinematic steering stage reads and writes (dense rows).
struct KinematicSteerColumns {
  std::span<const GroupSpec> groups;
  real dt;  ///< s
  std::uint64_t tick;
  std::int32_t tick_rate_hz;
  const Targets& targets;  ///< who a tracker or seeker aims at
  std::span<const behavior::Wall> walls;
  std::span<const Circle> obstacles;  ///< T59/T60 rays test every wall and obstacle
  // Read.
  std::span<const std::int32_t> group;
  std::span<const AgentId> id;
  std::span<const std::uint64_t> spawn_tick;
  std::span<const Vec2> position, velocity;
  std::span<const real> orientation, angular_velocity;
  // The agent's own technique state, read and written.
  std::span<math::Rng> rng;
  std::span<behavior::Fly> fly;
  std::span<behavior::MultiRayState> ray_state;
  std::span<behavior::PatternState> kpattern;
  // Written: what integration commits, and what viewers see.
  std::span<Vec2> force;         ///< the new velocity, m/s (kRayAvoid: the linear acceleration, m/s^2)
  std::span<real> kin_rotation;  ///< rad/s
  std::span<AgentId> target;
  std::span<Vec2> aim;
  std::span<BehaviorState> state;
};

/// Agent i's technique decides its velocity (or, for kRayAvoid, its acceleration) and rotation
/// this tick; writes only its own outputs and technique state.
void steer_kinematic_agent(const KinematicSteerColumns& c, std::int32_t i, TechniqueTally& tally);

/// What the kinematic integration stage reads and writes.
struct KinematicMoveColumns {
  std::span<const GroupSpec> groups;
  real dt;  ///< s
  std::span<const std::int32_t> group;
  std::span<const Vec2> force;
  std::span<const real> kin_rotation;
  std::span<Vec2> position, velocity, heading;
  std::span<real> orientation, angular_velocity;
};

/// Moves agent i by its steering: T03 (velocity set directly; wander keeps its own facing), or
/// for kRayAvoid Millington's T05 update with the facing following the velocity (T01).
void move_kinematic_agent(const KinematicMoveColumns& c, std::int32_t i, TechniqueTally& tally);

}  // namespace flockstep::sim
