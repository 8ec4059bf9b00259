#include "flockstep/behavior/body.hpp"

namespace flockstep::behavior {

namespace {

// T08 step 5: heading follows velocity only while the body really moves, so a stopped body keeps
// its last facing instead of snapping to an arbitrary or NaN direction.
void update_heading(Body& b) {
  const real speed = math::length(b.velocity);
  if (speed > kHeadingMinSpeed) b.heading = b.velocity / speed;
}

}  // namespace

void body_update(Body& b, Vec2 steering_force, real dt) {
  const Vec2 force = math::truncate(steering_force, b.max_force);
  const Vec2 acceleration = force / b.mass;
  // Erratum (c) fixed: clamp the NEW velocity, not the change a dt.
  b.velocity = math::truncate(b.velocity + acceleration * dt, b.max_speed);
  b.position += b.velocity * dt;
  update_heading(b);
}

void body_update_seed_literal(Body& b, Vec2 steering_force, real dt) {
  const Vec2 force = math::truncate(steering_force, b.max_force);
  const Vec2 acceleration = force / b.mass;
  b.velocity += math::truncate(acceleration * dt, b.max_speed);  // as printed: wrong quantity clamped
  b.position += b.velocity * dt;
  update_heading(b);
}

Vec2 truncate_seed_literal(Vec2 v, real max_len) {
  const real l = math::length(v);
  if (l == 0) return v;
  const real factor = math::max(1.0, max_len / l);  // as printed: clamps upward
  return v * factor;
}

Vec2 calc_force(const BehaviorSwitches& sw, std::span<const BehaviorForce> forces, real max_force) {
  Vec2 sum;
  for (const BehaviorForce& f : forces) {
    if (sw.is_on(f.behavior)) sum += f.force;
  }
  return math::truncate(sum, max_force);
}

}  // namespace flockstep::behavior
