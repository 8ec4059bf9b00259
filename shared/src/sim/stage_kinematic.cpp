#include "stage_kinematic.hpp"

#include "flockstep/behavior/kinematic.hpp"
#include "flockstep/behavior/lamothe.hpp"

namespace flockstep::sim {

Vec2 tracker_velocity(bool track, Vec2 offset, real max_speed, real dt) {
  return track ? behavior::track_step(Vec2{}, offset, max_speed * dt) / dt
               : behavior::evade_step(Vec2{}, offset, max_speed);
}

void commit_kinematic(KinematicRef k, Vec2 velocity, real rotation, bool face, real dt) {
  behavior::Static s{k.position, k.orientation};
  behavior::kinematic_integrate(s, {velocity, rotation}, dt, face);
  k.position = s.position;
  k.velocity = velocity;
  k.orientation = s.orientation;
  k.angular_velocity = rotation;
}

}  // namespace flockstep::sim
