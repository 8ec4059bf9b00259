#pragma once
/// \file stage_vehicle.hpp
/// The movement of the two composed models as stages: force-model vehicles (Model::kVehicle:
/// Reynolds' point mass, T08, with T82's heading filter) and Millington's steering model
/// (Model::kSteering: T04/T05 with the rotation clip, T02's facing filter). Their steering is the
/// behaviour composition (stage_compose.hpp, stage_forces.hpp); these functions move what it
/// produced, over the columns they name. The World's integrate phase runs them (world.cpp); the
/// Extrapolator runs move_vehicle_body for the vehicles it steers (extrapolate.cpp). Private:
/// not installed.
#include <cstdint>
#include <span>

#include "flockstep/behavior/body_lanes.hpp"
#include "flockstep/behavior/combine.hpp"
#include "flockstep/behavior/types.hpp"
#include "flockstep/sim/compose.hpp"
#include "flockstep/sim/scenario.hpp"
#include "technique_tally.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// T08 for one vehicle of group `g` under `force` (N) for dt, s: Reynolds' point-mass update
/// (behavior::body_update). The per-agent form of move_vehicle_bodies, and the Extrapolator's.
void move_vehicle_body(const GroupSpec& g, Vec2& position, Vec2& velocity, Vec2& heading, Vec2 force, real dt);

/// What the vehicles' move reads and writes (dense rows).
struct VehicleMoveColumns {
  std::span<const GroupSpec> groups;
  std::span<const std::int32_t> heading_samples;  ///< per group: T82's window (0: off)
  real dt;                                        ///< s
  std::span<const Model> motion;
  std::span<const std::int32_t> group;
  std::span<const Vec2> force;  ///< N, the steering phase's output
  std::span<Vec2> position, velocity, heading;
  std::span<behavior::HeadingSmoother> smoother;  ///< T82 per agent (empty when no group filters)
};

/// T08 for every run of consecutive vehicles of one group among rows [begin, end): one
/// body_update_columns call per run with the group's mass and limits splatted once, so the
/// dispatch is per run, never per agent. Each body's update reads and writes only its own row,
/// so updating the task's vehicles first and running move_vehicle_agent after gives the bits of
/// the per-agent order.
void move_vehicle_bodies(const VehicleMoveColumns& c, std::int32_t begin, std::int32_t end,
                         behavior::LaneKernel kernel);

/// The rest of vehicle i's move: its T08 body update unless move_vehicle_bodies did it
/// (`body_moved`), then T82's heading filter when its group asks for one.
void move_vehicle_agent(const VehicleMoveColumns& c, std::int32_t i, bool body_moved, TechniqueTally& tally);

/// What the steering model's move reads and writes (dense rows).
struct SteeringMoveColumns {
  std::span<const GroupSpec> groups;
  std::span<const Composition> compose;  ///< per group: integration, rotation clip, facing filter
  real dt;                               ///< s
  std::span<const std::int32_t> group;
  std::span<const Vec2> linear;    ///< m/s^2, the steering phase's linear output
  std::span<const real> rotation;  ///< rad/s^2, its angular output
  std::span<Vec2> position, velocity, heading;
  std::span<real> orientation, angular_velocity;
};

/// Moves steering-model agent i for dt: T05 (Newton-Euler-1 with the speed clip) or, when its
/// composition asks, T04 (exact for a constant acceleration) with the same clips; the angle is
/// kept in (-pi, pi] (T01, T12), and T02's facing filter turns it toward the motion instead of by
/// the angular output.
void move_steering_agent(const SteeringMoveColumns& c, std::int32_t i, TechniqueTally& tally);

}  // namespace flockstep::sim
