// The composed models' movement as stages (stage_vehicle.hpp).
#include "stage_vehicle.hpp"

#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/motion.hpp"
#include "flockstep/behavior/steering.hpp"

namespace flockstep::sim {

void move_vehicle_body(const GroupSpec& g, Vec2& position, Vec2& velocity, Vec2& heading, Vec2 force, real dt) {
  behavior::Body b{position, velocity, heading, g.mass, g.max_force, g.max_speed, g.radius};
  behavior::body_update(b, force, dt);
  position = b.position;
  velocity = b.velocity;
  heading = b.heading;
}

void move_vehicle_bodies(const VehicleMoveColumns& c, std::int32_t begin, std::int32_t end,
                         behavior::LaneKernel kernel) {
  for (std::int32_t i = begin; i < end;) {
    if (c.motion[static_cast<std::size_t>(i)] != Model::kVehicle) {
      ++i;
      continue;
    }
    const std::int32_t gi = c.group[static_cast<std::size_t>(i)];
    std::int32_t e = i + 1;
    while (e < end && c.motion[static_cast<std::size_t>(e)] == Model::kVehicle &&
           c.group[static_cast<std::size_t>(e)] == gi)
      ++e;
    const GroupSpec& g = c.groups[static_cast<std::size_t>(gi)];
    const auto at = static_cast<std::size_t>(i);
    behavior::body_update_columns(
        {&c.position[at], &c.velocity[at], &c.heading[at], &c.force[at], g.mass, g.max_force, g.max_speed}, e - i, c.dt,
        kernel);
    i = e;
  }
}

void move_vehicle_agent(const VehicleMoveColumns& c, std::int32_t i, bool body_moved, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  const auto gi = static_cast<std::size_t>(c.group[at]);
  if (!body_moved) move_vehicle_body(c.groups[gi], c.position[at], c.velocity[at], c.heading[at], c.force[at], c.dt);
  tally.add(8);
  // T82: the heading the agent shows (and looks ahead with) averages its recent velocity
  // directions, so a force that flips side every tick does not judder it; the velocity is untouched.
  const std::int32_t samples = c.heading_samples[gi];
  if (samples > 0) {
    c.heading[at] = behavior::smooth_heading(c.smoother[at], samples, c.velocity[at], c.heading[at]);
    tally.add(82);
  }
}

void move_steering_agent(const SteeringMoveColumns& c, std::int32_t i, TechniqueTally& tally) {
  // T05 Newton-Euler-1 with the speed clip, as Millington's steering behaviours expect; the
  // angular output turns the facing unless T02 facing smoothing is on, which turns it toward the
  // direction of motion instead.
  const auto at = static_cast<std::size_t>(i);
  const auto gi = static_cast<std::size_t>(c.group[at]);
  const GroupSpec& g = c.groups[gi];
  const Composition& comp = c.compose[gi];
  behavior::Kinematic k{c.position[at], c.orientation[at], c.velocity[at], c.angular_velocity[at]};
  if (comp.integration == 1) {
    // T04 exact for piecewise-constant acceleration, then the same clips as T05.
    behavior::integrate_exact(k, {c.linear[at], c.rotation[at]}, c.dt);
    k.velocity = math::truncate(k.velocity, g.max_speed);
    k.rotation = math::clamp(k.rotation, -comp.max_rotation, comp.max_rotation);
    k.orientation = math::wrap_angle(k.orientation);
    tally.add(4);
  } else {
    behavior::integrate_steering(k, {c.linear[at], c.rotation[at]}, g.max_speed, c.dt, comp.max_rotation);
    tally.add(5);
  }
  tally.add(1);   // the orientation kept as an angle and shown as a vector
  tally.add(12);  // wrapped
  if (comp.filters.facing_fraction > 0) {
    tally.add(2);
    k.orientation = behavior::smooth_facing(k.orientation, k.velocity, {comp.filters.facing_fraction});
    k.rotation = 0;
  }
  c.position[at] = k.position;
  c.velocity[at] = k.velocity;
  c.orientation[at] = k.orientation;
  c.angular_velocity[at] = k.rotation;
  c.heading[at] = math::as_vector(c.orientation[at]);
}

}  // namespace flockstep::sim
