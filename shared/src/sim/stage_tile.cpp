#include "stage_tile.hpp"

#include "flockstep/math/angle.hpp"

namespace flockstep::sim {

bool advance_tile_step(TileStepRef s, real tile_speed, real dt) {
  s.progress += tile_speed * dt;
  if (s.progress < 1) return false;
  s.progress -= 1;
  if (s.progress >= 1) s.progress = 0;
  if (!(s.to == s.from)) s.previous = s.from;
  s.from = s.to;
  return true;
}

behavior::Tile next_track_tile(behavior::Tile from, behavior::Tile previous, behavior::TrackView track,
                               math::Rng& rng) {
  behavior::TrackFollower follower{from, previous};
  return behavior::follow_track(follower, track, rng);
}

TileMotion tile_motion(Vec2 from_centre, Vec2 to_centre, real progress, real tile_speed) {
  const Vec2 d = to_centre - from_centre;
  TileMotion m;
  m.position = from_centre + d * progress;
  m.velocity = d * tile_speed;
  m.moving = !math::is_zero(d);
  if (m.moving) {
    m.heading = math::normalized(d);
    m.orientation = math::orientation_of(m.heading);
  }
  return m;
}

}  // namespace flockstep::sim
