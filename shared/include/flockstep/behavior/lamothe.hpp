#pragma once
/// \file lamothe.hpp
/// T15-T20 LaMothe's deterministic chase/evade/random motion ("Tricks of the Windows Game
/// Programming Gurus", ch. 12). Units are LaMothe's: screen pixels and pixels per tick, one call
/// per tick (no dt). T15-T18 work in integer screen coordinates (IntVec2, int32_t) exactly as the
/// seed does; T19/T20 need fractional velocities and use Vec2.
#include <cstdint>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Integer screen-space vector (pixels or pixels/tick). Screen x right, y down in the seed; the
/// algorithms here do not care about the handedness.
struct IntVec2 {
  std::int32_t x = 0;
  std::int32_t y = 0;

  constexpr IntVec2& operator+=(IntVec2 o) {
    x += o.x;
    y += o.y;
    return *this;
  }
  friend constexpr IntVec2 operator+(IntVec2 a, IntVec2 b) { return {a.x + b.x, a.y + b.y}; }
  friend constexpr IntVec2 operator-(IntVec2 a, IntVec2 b) { return {a.x - b.x, a.y - b.y}; }
  friend constexpr IntVec2 operator*(IntVec2 a, std::int32_t s) { return {a.x * s, a.y * s}; }
  friend constexpr bool operator==(IntVec2 a, IntVec2 b) = default;
};

/// Chebyshev distance max(|dx|, |dy|) between two integer points, pixels.
constexpr std::int32_t chebyshev_distance(IntVec2 a, IntVec2 b) {
  const std::int32_t dx = a.x > b.x ? a.x - b.x : b.x - a.x;
  const std::int32_t dy = a.y > b.y ? a.y - b.y : b.y - a.y;
  return dx > dy ? dx : dy;
}

/// Screen rectangle [0, width) x [0, height) in pixels.
struct Playfield {
  std::int32_t width = 640;   ///< pixels. [Limit: > 0]
  std::int32_t height = 480;  ///< pixels. [Limit: > 0]
};

/// Wrap a point onto the playfield torus: coordinates mod width/height into [0, size).
IntVec2 wrap_playfield(IntVec2 p, const Playfield& f);
/// Clamp a point into [0, width-1] x [0, height-1] (T18: keeps an evader on screen).
IntVec2 clamp_playfield(IntVec2 p, const Playfield& f);

// ---------------------------------------------------------------------------------------------
// T15 Asteroids-style straight motion.

/// T15 an object that moves in a straight line at constant integer velocity, ignoring all input.
struct Asteroid {
  IntVec2 position;  ///< pixels
  IntVec2 velocity;  ///< pixels/tick
};

/// T15 spawn parameters: random direction and speed.
struct AsteroidSpawnParams {
  std::int32_t min_component = -4;  ///< smallest velocity component, pixels/tick. [Limit: <= max_component]
  std::int32_t max_component = 4;   ///< largest velocity component, pixels/tick
};

/// T15 spawn at position with a random velocity, components uniform in [min, max], not both 0.
Asteroid asteroid_spawn(IntVec2 position, const AsteroidSpawnParams& p, Rng& rng);

/// T15 one tick: position += velocity. Takes no player: the motion is pre-programmed. Callers
/// wrap or cull off-screen asteroids themselves (wrap_playfield).
void asteroid_update(Asteroid& a);

// ---------------------------------------------------------------------------------------------
// T16 random motion (the fly).

/// T16 fly parameters. Defaults reproduce the seed: components in [-8, 7], bursts of 10 moves.
struct FlyParams {
  std::int32_t min_component = -8;    ///< smallest velocity component, pixels/tick (seed: -8 plus a random number mod
                                      ///< 16). [Limit: <= max_component]
  std::int32_t max_component = 7;     ///< largest velocity component, pixels/tick (seed: 7, +8 excluded)
  std::int32_t min_burst_ticks = 10;  ///< shortest burst, ticks (seed: 10). [Limit: >= 1]
  std::int32_t max_burst_ticks =
      10;  ///< longest burst, ticks; > min randomises the burst length. [Limit: >= min_burst_ticks]
  std::int32_t breeze_x =
      0;  ///< bias added to each drawn vx before clamping into range, pixels/tick (< 0: westward breeze)
  std::int32_t breeze_y = 0;        ///< bias added to each drawn vy before clamping into range, pixels/tick
  bool seed_literal_burst = false;  ///< true: the seed's `while(++count < 10)` off-by-one, one move fewer per burst
};

/// T16 fly state, owned by the caller.
struct Fly {
  IntVec2 position;             ///< pixels
  IntVec2 velocity;             ///< pixels/tick, constant within a burst
  std::int32_t ticks_left = 0;  ///< moves left in the current burst; 0 draws a new burst next tick
};

/// T16 one tick: if the burst is over, draw a new velocity (each component uniform in [min, max]
/// plus the breeze, clamped into [min, max]) and burst length; then position += velocity.
/// (The seed's y-update typo `fly+y_velocity` is not reproduced.)
void fly_update(Fly& f, const FlyParams& p, Rng& rng);

// ---------------------------------------------------------------------------------------------
// T17/T18 axis-wise tracking and anti-tracking.

/// T17 brute-force tracking: on each axis step toward the target by min(speed, |d|) pixels
/// (seed: speed 1); an axis already equal does not move, so the chaser ends sitting on the
/// target and stays there. speed in pixels/tick. [Limit: >= 0]
IntVec2 track_step(IntVec2 chaser, IntVec2 target, std::int32_t speed = 1);

/// T18 anti-tracking: on each axis step `speed` pixels away from the threat; an axis where the
/// coordinates are equal does not move (so the evader never separates on it). Unbounded: apply
/// clamp_playfield or wrap_playfield to stay on screen. speed in pixels/tick. [Limit: >= 0]
IntVec2 evade_step(IntVec2 evader, IntVec2 threat, std::int32_t speed = 1);

/// T17 on continuous coordinates (the world's metres): the same axis-wise rule, `speed` in
/// units per step. [Limit: >= 0]
Vec2 track_step(Vec2 chaser, Vec2 target, real speed);

/// T18 on continuous coordinates: the same axis-wise rule, `speed` in units per step. [Limit: >= 0]
Vec2 evade_step(Vec2 evader, Vec2 threat, real speed);

// ---------------------------------------------------------------------------------------------
// T19 trajectory vectoring and T20 mines (fractional velocities).

/// T19/T20 how an over-speed velocity is brought back.
enum class SpeedCap : std::uint8_t {
  exact_clamp,  ///< rescale to exactly the cap (corrected; |v| <= cap always)
  scale_once,   ///< the seed: multiply once by a shrink factor (0.75); may stay over the cap
};

/// T19/T20 a point tracker: position (pixels) and velocity (pixels/tick).
struct Tracker {
  Vec2 position;
  Vec2 velocity;
};

/// T19 parameters of trajectory-vectoring tracking.
struct VectorTrackParams {
  real rate = 1;                         ///< velocity change per tick toward the target, pixels/tick^2. [Limit: >= 0]
  real max_speed = 8;                    ///< MAX_SPEED, pixels/tick. [Limit: > 0]
  SpeedCap cap = SpeedCap::exact_clamp;  ///< corrected exact clamp or the seed's single shrink
  real shrink = 0.75;  ///< factor for SpeedCap::scale_once (seed: 0.75; 0.5 and 0.9 also named). [Limit: (0, 1)]
  bool seed_literal_step2 =
      false;  ///< true: the printed erratum, rate * TV* is added to the POSITION, not the velocity
};

/// T19 one tick: v += rate * norm(target - p) (skipped when coincident), cap the speed, p += v.
void vector_track_update(Tracker& t, Vec2 target, const VectorTrackParams& p);

/// T20 LaMothe's Fast_Distance_2D: integer approximation of sqrt(dx^2 + dy^2) with shifts,
/// max + min - min/2 - min/4 + min/16 (about max + 0.31 min); error within about -7% .. +5%.
std::int32_t fast_distance_2d(std::int32_t dx, std::int32_t dy);
/// T20 the same approximation on reals (the shifts as exact binary fractions).
real fast_length(Vec2 d);

/// T20 mine parameters. The seed's constants are not in the catalog; these are ours.
struct MineParams {
  real tracking_distance = 400;  ///< activation radius (seed name MIN_MINE_TRACKING_DIST), pixels. [Limit: > 0]
  real tracking_rate = 0.5;      ///< homing velocity change per tick inside the radius, pixels/tick^2. [Limit: >= 0]
  real max_velocity = 6;         ///< MAX_MINE_VELOCITY, pixels/tick. [Limit: > 0]
  real near_noise_chance = 0.1;  ///< per-tick noise probability inside the radius (seed 1/10). [Limit: [0, 1]]
  real near_noise = 1;           ///< noise amplitude per axis inside, uniform in [-a, a], pixels/tick
  real far_noise_chance = 1.0 / 30.0;   ///< per-tick noise probability outside the radius (seed 1/30). [Limit: [0, 1]]
  real far_noise = 2;                   ///< noise amplitude per axis outside, pixels/tick
  SpeedCap cap = SpeedCap::scale_once;  ///< the seed shrinks once by `shrink`; exact_clamp is the corrected form
  real shrink = 0.75;                   ///< factor for SpeedCap::scale_once. [Limit: (0, 1)]
  bool fast_distance = true;  ///< true: range test and normalisation use fast_length (seed); false: exact length
};

/// T20 what happened to a mine this tick (for HUDs and tests).
struct MineTick {
  bool tracking = false;  ///< the player was inside the activation radius
  bool noise = false;     ///< random noise was added to the velocity
};

/// T20 one tick of a range-gated noisy mine: inside the radius home on the player
/// (v += rate d/len) and add noise with probability 1/10; outside only add bigger noise with
/// probability 1/30; then cap the speed and move p += v. Draws from rng every tick.
MineTick mine_update(Tracker& m, Vec2 player, const MineParams& p, Rng& rng);

}  // namespace flockstep::behavior
