#pragma once
/// \file avoid.hpp
/// The slides' (Buckland-style) force behaviours that look at static geometry: T73 obstacle
/// avoidance with a detection box, T74 hide, T75 wall avoidance with three feelers. They take a
/// Body (T08) and return a steering FORCE in the world frame (N), to be combined and truncated to
/// max_force (T77) and integrated by body_update. Each can fill an optional out-struct with the
/// geometry a viewer would draw.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

// ---------------------------------------------------------------------------------------------
// T73 detection-box obstacle avoidance.

/// Parameters of T73. Box length L = min_box_length * (1 + speed / max_speed) (Buckland).
struct DetectionBoxParams {
  real min_box_length = 4.0;  ///< L_min, box length at rest, m. [Limit: > 0]
  real box_width = 0;         ///< W, box width, m; <= 0 means the body's diameter 2 * radius. [Limit: >= 0]
  /// Weight of the braking (local x) force; 2.0 is the slides' value. Measured: with 2.0 the
  /// braking outweighs a seek force for obstacles a few metres ahead and a seeking agent stalls in
  /// front of them; Buckland's code uses 0.2. [Limit: >= 0]
  real braking_weight = 2.0;
  /// false (default): sign-correct lateral force F_y = -side(y) * (R - |y|) * multiplier, away from
  /// the obstacle (y = 0 pushes to the left, +y). true: the slides' literal F_y = (r - y) * multiplier,
  /// which pushes TOWARD an obstacle sitting at 0 < y < r (erratum J.8).
  bool seed_literal = false;
};

/// What T73 saw and did (local frame: x forward along the heading, y to the left).
struct DetectionBoxDebug {
  real box_length = 0;               ///< L this tick, m
  real box_width = 0;                ///< W, m
  std::int32_t obstacle_index = -1;  ///< closest intersecting obstacle, -1 if none
  Vec2 local_obstacle;               ///< its centre in the local frame (x_obs, y_obs)
  real x_hit = 0;                    ///< local x of the intersection with the expanded circle, m
  real multiplier = 0;               ///< 1 + (L - x_obs) / L clamped to [1, 2]
  Vec2 local_force;                  ///< (braking F_x, lateral F_y) before rotating to world
};

/// T73 detection-box length L = min_box_length * (1 + |v| / max_speed); max_speed <= 0 gives L_min.
real detection_box_length(const Body& b, const DetectionBoxParams& p);

/// T73 obstacle avoidance with a detection box projected along b.heading. Obstacles with local
/// x < 0 (centre behind), x - r > L, or |y| >= R = r + W/2 are ignored; of the rest, the one whose
/// expanded circle the path line meets first (x_hit = x - sqrt(R^2 - y^2), or x + sqrt(...) when
/// that is <= 0) is used. Force (local): F_x = (r - x_obs) * braking_weight, F_y as in
/// DetectionBoxParams::seed_literal, both scaled by multiplier in [1, 2] (F_y only, as in the
/// seed); then rotated to world. Zero when nothing is in the box.
Vec2 obstacle_avoidance_force(const Body& b, std::span<const Circle> obstacles, const DetectionBoxParams& p,
                              DetectionBoxDebug* debug = nullptr);

// ---------------------------------------------------------------------------------------------
// T74 hide.

/// Parameters of T74. The refinements (panic distance, visibility memory) are off by default.
struct HideParams {
  real gap = 1.0;           ///< clearance from the obstacle's surface to the hiding spot, m. [Limit: >= 0]
  real deceleration = 4.0;  ///< arrive DECELERATION (T66) to reach the spot; >= 4 mass does not overshoot. [Limit: > 0]
  /// Refinement: flee the hunter (evade) instead of hiding when it is closer than this, m; 0 = off.
  real panic_distance = 0;
  /// Refinement: hide only if the hunter was seen (mutual line of sight, not blocked by an
  /// obstacle) within this many seconds; < 0 = always hide (default); 0 = only while it is seen now.
  /// With a HideMemory the time since last seen is remembered; without one only "seen now" counts.
  real seen_within_s = -1;
};

/// T74 caller-owned memory for the "seen in the last n seconds" refinement.
struct HideMemory {
  real time_since_seen_s = math::kInfinity;  ///< s since the hunter and agent last saw each other
};

/// What T74 chose this tick.
enum class HideAction : std::uint8_t {
  kHide,    ///< arrive at the closest hiding spot
  kEvade,   ///< no obstacles (or panic): evade the hunter
  kIgnore,  ///< refinement: hunter not seen recently, zero force
};

/// What T74 computed (for tests and for a viewer).
struct HideDebug {
  HideAction action = HideAction::kIgnore;
  std::int32_t obstacle_index = -1;  ///< obstacle of the chosen spot, -1 if none
  Vec2 spot;                         ///< chosen hiding spot (valid with kHide)
  bool hunter_visible = false;       ///< line of sight hunter <-> agent this tick
};

/// T74 hiding spot behind one obstacle: c + norm(c - hunter) * (r + gap). A hunter exactly on the
/// centre gives the point at +x (documented fixed choice).
Vec2 hiding_spot(const Circle& obstacle, Vec2 hunter_position, real gap);

/// T74 line of sight: true when the segment from `from` to `to` passes through no obstacle circle.
bool line_of_sight(Vec2 from, Vec2 to, std::span<const Circle> obstacles);

/// T74 update the memory: time since seen resets to 0 when visible, otherwise grows by dt.
void hide_memory_update(HideMemory& memory, bool visible, real dt);

/// T74 hide: arrive_force at the hiding spot closest to the agent (ties: lower index); with no
/// obstacles, evade_force(hunter) (T68). Refinements per HideParams. `memory` is read, not updated.
Vec2 hide_force(const Body& b, const Mover& hunter, std::span<const Circle> obstacles, const HideParams& p,
                HideDebug* debug = nullptr, const HideMemory* memory = nullptr);

// ---------------------------------------------------------------------------------------------
// T75 wall avoidance with three feelers.

/// Parameters of T75: one feeler straight ahead and two angled to the sides.
struct FeelerParams {
  real length = 4.0;                     ///< straight-ahead feeler length, m. [Limit: > 0]
  real side_length = 2.0;                ///< side feeler length (Buckland: half), m. [Limit: > 0]
  real side_angle = 0.7853981633974483;  ///< side feeler angle from the heading, rad (45 deg). [Limit: 0..pi/2]
};

/// What T75 computed.
struct FeelerDebug {
  std::array<Vec2, 3> tips{};      ///< feeler tips: 0 ahead, 1 left, 2 right
  std::int32_t feeler_index = -1;  ///< feeler of the closest intersection, -1 if none
  std::int32_t wall_index = -1;    ///< wall of the closest intersection, -1 if none
  Vec2 hit_point;                  ///< closest intersection point
  Vec2 normal;                     ///< wall normal oriented toward the agent
  real depth = 0;                  ///< penetration depth |tip - hit_point|, m
};

/// T75 the three feeler tips for a body: ahead (length), left and right (side_length at
/// +-side_angle from b.heading).
std::array<Vec2, 3> feeler_tips(const Body& b, const FeelerParams& p);

/// T75 wall avoidance: of every feeler/wall intersection, only the one closest to the body counts;
/// force = n * |tip - hit| with n the wall's unit normal oriented toward the agent's side
/// (dot(n, p - wall.a) >= 0). Zero when no feeler touches a wall.
Vec2 wall_avoidance_force(const Body& b, std::span<const Wall> walls, const FeelerParams& p,
                          FeelerDebug* debug = nullptr);

}  // namespace flockstep::behavior
