#pragma once
/// \file ray_avoid.hpp
/// T59 ray-cast obstacle and wall avoidance and T60 ray configurations with the corner-trap
/// remedies (Millington section 3.3.15). Includes the collision detector: ray casts against wall
/// segments and circles (also used by the slides' wall avoidance, T75).
///
/// Rays are segments: a cast from `origin` along `move` reports only contacts within
/// origin + move * [0, 1]; the hit normal always faces the ray's origin.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// T59 cast a segment against one wall. Parallel (including collinear) casts never hit. The normal
/// is the wall's unit normal flipped to face the origin side.
RayHit cast_segment(Vec2 origin, Vec2 move, const Wall& wall);

/// T59 cast a segment against a circle. An origin inside (or on) the circle hits at fraction 0
/// with the outward normal at the origin (the character must get out, not look further).
RayHit cast_circle(Vec2 origin, Vec2 move, const Circle& circle);

/// T59 the collision detector: static level geometry borrowed from the caller.
struct ObstacleDetector {
  std::span<const Wall> walls;      ///< wall segments
  std::span<const Circle> circles;  ///< circular obstacles
};

/// T59 getCollision(position, moveAmount): the first contact (smallest fraction) along the segment
/// position -> position + move_amount, or hit = false. Ties go to walls, then to the lower index.
RayHit get_collision(const ObstacleDetector& detector, Vec2 position, Vec2 move_amount);

/// Parameters of T59 single-ray avoidance.
struct RayAvoidParams {
  real lookahead = 4.0;  ///< ray length, m; should cover the braking distance v^2/(2a). [Limit: > 0]
  /// seek target offset from the surface along its normal, m; > character radius. Seek runs through
  /// its target at full speed before braking, so a head-on approach needs it >= v^2 / (2 a). [Limit: > 0]
  real avoid_distance = 1.5;
  real max_acceleration = 10.0;  ///< seek acceleration, m/s^2. [Limit: >= 0]
};

/// What T59 did this tick (for tests and for a viewer to draw).
struct RayAvoidDebug {
  Vec2 ray_origin;  ///< start of the cast ray
  Vec2 ray;         ///< the cast vector (origin + ray is the tip)
  RayHit hit;       ///< the detector's answer
  Vec2 target;      ///< seek target hit.position + hit.normal * avoid_distance (valid if hit.hit)
};

/// Direction a character looks along for ray casts: norm(velocity), or the facing
/// as_vector(orientation) when the velocity is zero (T59 edge case).
Vec2 ray_direction(const Kinematic& character);

/// T59 ray-cast avoidance: cast norm(v) * lookahead; on a hit, seek (max_acceleration toward)
/// hit.position + hit.normal * avoid_distance. No hit: "no steering" (zero).
SteeringOutput ray_avoidance(const Kinematic& character, const ObstacleDetector& detector, const RayAvoidParams& p,
                             RayAvoidDebug* debug = nullptr);

/// T60 ray layouts (Millington Fig. 3.26).
enum class RayConfig : std::uint8_t {
  kSingle,    ///< one ray of length lookahead
  kWhiskers,  ///< one long central ray plus two short whiskers at +-side_angle (the recommended first try)
  kParallel,  ///< two parallel rays offset +-parallel_offset sideways (prone to the corner trap)
  kFan,       ///< two splayed rays of length lookahead at +-side_angle
};

/// Largest number of rays any layout casts.
inline constexpr std::int32_t kMaxRays = 3;

/// One ray of a layout: cast from origin along move.
struct Ray {
  Vec2 origin;
  Vec2 move;
};

/// A layout's rays, fixed capacity (no allocation). Index 0 is the central ray when there is one;
/// otherwise 0 is the left ray and 1 the right ray.
struct RaySet {
  std::array<Ray, kMaxRays> rays{};
  std::int32_t count = 0;
};

/// Parameters of T60 multi-ray avoidance and its corner-trap remedies.
struct MultiRayParams {
  RayConfig config = RayConfig::kWhiskers;  ///< ray layout
  real lookahead = 4.0;                     ///< main / fan / parallel ray length, m. [Limit: > 0]
  real whisker_length = 2.0;                ///< kWhiskers side ray length, m. [Limit: > 0]
  real side_angle = 0.5;         ///< side ray angle from the heading when not adaptive, rad. [Limit: 0..pi/2]
  real parallel_offset = 0.5;    ///< kParallel lateral offset of each ray, m (about the radius). [Limit: >= 0]
  real avoid_distance = 1.5;     ///< seek target offset from the surface, m. [Limit: > character radius]
  real max_acceleration = 10.0;  ///< seek acceleration, m/s^2. [Limit: >= 0]
  // Remedy 1: adaptive fan angle (applies to kWhiskers and kFan).
  bool adaptive_angle = false;  ///< narrow the side angle while clear, widen it on consecutive hits
  real min_angle = 0.25;        ///< lower bound of the adaptive angle, rad. [Limit: 0..max_angle]
  real max_angle = 1.2;         ///< upper bound of the adaptive angle, rad. [Limit: min_angle..pi/2]
  real widen_rate = 2.0;        ///< widening speed while hits continue, rad/s. [Limit: >= 0]
  real narrow_rate = 0.2;  ///< narrowing speed while clear (slow, so the width is remembered), rad/s. [Limit: >= 0]
  // Remedy 2: corner-trap detection by a winner ray.
  bool winner_ray = false;      ///< first ray to hit wins and fixes the turn side; later hits cannot flip it
  real winner_hold_time = 1.5;  ///< how long a winner keeps control after its last hit, s. [Limit: >= 0]
};

/// Per-character persistent state of T60 (caller-owned, trivially copyable).
struct MultiRayState {
  real side_angle = -1;               ///< current adaptive angle, rad; < 0 means "not started" (min_angle)
  std::int32_t consecutive_hits = 0;  ///< frames in a row with at least one hit
  std::int32_t winner = -1;           ///< winning ray index, -1 if none
  real winner_time_left = 0;          ///< s of winner control left
  real winner_side = 1;               ///< turn side the winner chose: +1 left, -1 right
};

/// What T60 did this tick.
struct MultiRayDebug {
  RaySet rays;                          ///< the rays cast this tick
  std::array<RayHit, kMaxRays> hits{};  ///< per ray
  std::int32_t used_ray = -1;           ///< ray whose hit steered, -1 none
  Vec2 target;                          ///< seek target used
  real side_angle = 0;                  ///< side angle used for this tick's rays, rad
};

/// T60 build the rays of a layout for a character at `position` looking along unit `direction`.
RaySet make_rays(Vec2 position, Vec2 direction, RayConfig config, const MultiRayParams& p, real side_angle);

/// T60 multi-ray avoidance. Casts the layout along ray_direction(character); among the hits,
/// reacts to the one nearest the character (seek its hit + normal * avoid_distance).
/// Remedy 1 (adaptive_angle): the side angle used next tick grows by widen_rate*dt on every frame
/// with a hit and shrinks by narrow_rate*dt on a clear one, clamped to [min_angle, max_angle].
/// Remedy 2 (winner_ray): the first ray to hit after a clear spell wins and fixes the turn side
/// (the side of its seek target). Until winner_hold_time passes without any hit, no hit (in
/// practice another ray's) can flip the turn: the nearest hit's target keeps its distance
/// ahead/behind but is put on the winner's side of the heading line. This stops the left/right
/// flip-flop of the corner trap.
SteeringOutput multi_ray_avoidance(const Kinematic& character, const ObstacleDetector& detector,
                                   const MultiRayParams& p, MultiRayState& state, real dt,
                                   MultiRayDebug* debug = nullptr);

}  // namespace flockstep::behavior
