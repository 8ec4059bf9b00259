#include "flockstep/behavior/lamothe.hpp"

namespace flockstep::behavior {

namespace {

std::int32_t wrap_int(std::int32_t v, std::int32_t size) {
  std::int32_t r = v % size;
  return r < 0 ? r + size : r;
}

std::int32_t clamp_int(std::int32_t v, std::int32_t lo, std::int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

std::int32_t abs_int(std::int32_t v) { return v < 0 ? -v : v; }

// Step from `from` toward `to` by at most `speed`, never past it. One rule for LaMothe's integer
// pixels and the world's metres (T17).
template <class T>
T step_toward(T from, T to, T speed) {
  if (to > from) return from + (to - from < speed ? to - from : speed);
  if (to < from) return from - (from - to < speed ? from - to : speed);
  return from;
}

// Step away from `threat`; an equal coordinate gives no direction, so no move (seed behaviour).
template <class T>
T step_away(T from, T threat, T speed) {
  if (from > threat) return from + speed;
  if (from < threat) return from - speed;
  return from;
}

Vec2 cap_speed(Vec2 v, real max_speed, SpeedCap cap, real shrink) {
  if (math::length_sq(v) <= max_speed * max_speed) return v;
  // The seed's single shrink may leave |v| above the cap (erratum); exact_clamp cannot.
  return cap == SpeedCap::exact_clamp ? math::truncate(v, max_speed) : v * shrink;
}

}  // namespace

IntVec2 wrap_playfield(IntVec2 p, const Playfield& f) { return {wrap_int(p.x, f.width), wrap_int(p.y, f.height)}; }

IntVec2 clamp_playfield(IntVec2 p, const Playfield& f) {
  return {clamp_int(p.x, 0, f.width - 1), clamp_int(p.y, 0, f.height - 1)};
}

Asteroid asteroid_spawn(IntVec2 position, const AsteroidSpawnParams& p, Rng& rng) {
  Asteroid a{position, {}};
  // A zero velocity would be a rock that never moves: redraw (bounded, in case the range is {0}).
  for (int tries = 0; tries < 16 && a.velocity == IntVec2{}; ++tries) {
    a.velocity = {rng.range(p.min_component, p.max_component), rng.range(p.min_component, p.max_component)};
  }
  return a;
}

void asteroid_update(Asteroid& a) { a.position += a.velocity; }

void fly_update(Fly& f, const FlyParams& p, Rng& rng) {
  if (f.ticks_left <= 0) {
    f.velocity = {
        clamp_int(rng.range(p.min_component, p.max_component) + p.breeze_x, p.min_component, p.max_component),
        clamp_int(rng.range(p.min_component, p.max_component) + p.breeze_y, p.min_component, p.max_component)};
    const std::int32_t burst = rng.range(p.min_burst_ticks, p.max_burst_ticks);
    // The seed's `while(++count < 10)` from 0 makes 9 moves; corrected bursts make `burst` moves.
    f.ticks_left = p.seed_literal_burst ? (burst > 1 ? burst - 1 : 1) : burst;
  }
  f.position += f.velocity;
  --f.ticks_left;
}

IntVec2 track_step(IntVec2 chaser, IntVec2 target, std::int32_t speed) {
  return {step_toward(chaser.x, target.x, speed), step_toward(chaser.y, target.y, speed)};
}

IntVec2 evade_step(IntVec2 evader, IntVec2 threat, std::int32_t speed) {
  return {step_away(evader.x, threat.x, speed), step_away(evader.y, threat.y, speed)};
}

Vec2 track_step(Vec2 chaser, Vec2 target, real speed) {
  return {step_toward(chaser.x, target.x, speed), step_toward(chaser.y, target.y, speed)};
}

Vec2 evade_step(Vec2 evader, Vec2 threat, real speed) {
  return {step_away(evader.x, threat.x, speed), step_away(evader.y, threat.y, speed)};
}

void vector_track_update(Tracker& t, Vec2 target, const VectorTrackParams& p) {
  const Vec2 tv = target - t.position;
  const real len = math::length(tv);
  // |TV| = 0: no direction to steer in; skip the steering term instead of dividing by zero.
  const Vec2 steer = len > 0 ? tv * (p.rate / len) : Vec2{};
  if (p.seed_literal_step2) {
    t.position += steer;  // the printed erratum: the tracker's velocity never changes
  } else {
    t.velocity += steer;
  }
  t.velocity = cap_speed(t.velocity, p.max_speed, p.cap, p.shrink);
  t.position += t.velocity;
}

std::int32_t fast_distance_2d(std::int32_t dx, std::int32_t dy) {
  const std::int32_t x = abs_int(dx);
  const std::int32_t y = abs_int(dy);
  const std::int32_t mn = x < y ? x : y;
  return x + y - (mn >> 1) - (mn >> 2) + (mn >> 4);
}

real fast_length(Vec2 d) {
  const real x = d.x < 0 ? -d.x : d.x;
  const real y = d.y < 0 ? -d.y : d.y;
  const real mn = math::min(x, y);
  return x + y - mn * 0.5 - mn * 0.25 + mn * 0.0625;
}

MineTick mine_update(Tracker& m, Vec2 player, const MineParams& p, Rng& rng) {
  MineTick out;
  const Vec2 d = player - m.position;
  const real len = p.fast_distance ? fast_length(d) : math::length(d);
  // The seed names the constant MIN_MINE_TRACKING_DIST but uses it as an activation radius.
  out.tracking = len < p.tracking_distance;
  const real chance = out.tracking ? p.near_noise_chance : p.far_noise_chance;
  const real amp = out.tracking ? p.near_noise : p.far_noise;
  if (out.tracking && len > 0) m.velocity += d * (p.tracking_rate / len);
  // Always draw the coin so the stream advances the same way whatever happens (replayable).
  out.noise = rng.chance(chance);
  if (out.noise) {
    const real nx = rng.uniform(-amp, amp);
    const real ny = rng.uniform(-amp, amp);
    m.velocity += Vec2{nx, ny};
  }
  m.velocity = cap_speed(m.velocity, p.max_velocity, p.cap, p.shrink);
  m.position += m.velocity;
  return out;
}

}  // namespace flockstep::behavior
