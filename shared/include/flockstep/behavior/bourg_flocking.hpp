#pragma once
/// \file bourg_flocking.hpp
/// T31-T36 Bourg & Seemann flocking (AIDemo4): rigid-body units (T10) steered only by one net
/// LATERAL bow force built from rules with response curves; neighbour gathering with the
/// wide / limited / narrow view models; obstacle rule, Leader / Interceptor roles and a
/// follower pull; and a small headless AIDemo4 world.
///
/// Frames: Flockstep local = (forward, left). Bourg's w = (starboard, forward); his "ahead"
/// w.y > 0 is our local.x > 0 and his |w.x| is our |local.y|. Lateral forces: + = left (port
/// side), which turns the unit left (CCW), as craft_step_lateral expects.
///
/// Seed gaps and fixes (catalog T33 edge cases, Part J 5):
/// * abeam neighbours (local forward exactly 0) fail every view test in the seed; kept as the
///   default, ViewParams::abeam_visible = true counts them as ahead instead (>= 0);
/// * the averages are divided by N only when N > 0 (otherwise they are zero);
/// * neighbour distances are not wrapped around the torus (as in the seed).
/// Bourg's rule code is not in the seeds; the rule forms are the catalog's T34 suggestions.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// T33 which visibility model a unit uses.
enum class ViewModel : std::uint8_t {
  wide,     ///< everything except a wedge behind (|left| <= k_back * |back|); k_back = 1 gives 270 deg
  limited,  ///< only the half-plane ahead (180 deg)
  narrow,   ///< only a cone ahead (|left| < k_front * forward); k_front = 1 gives 90 deg
};

/// T32/T33 visibility arc parameters. Radii are multiples of the unit's length (the seed's
/// *_RADIUS_FACTOR constants, whose values the seed does not give).
struct ViewParams {
  real k_back =
      1;  ///< wide-view blind-spot slope; field of view 360 deg minus twice the arc tangent of k_back. [Limit: > 0]
  /// Narrow-view cone slope; field of view twice the arc tangent of k_front. The seed's narrow
  /// view is about 45 deg (catalog T32), so tan(22.5 deg); 1 would give 90 deg. [Limit: > 0]
  real k_front = 0.41421356237309503;
  real wide_radius_factor = 30;     ///< wide view radius / unit length. [Limit: > 0]
  real limited_radius_factor = 30;  ///< limited view radius / unit length. [Limit: > 0]
  real narrow_radius_factor = 40;   ///< narrow view radius / unit length. [Limit: > 0]
  bool abeam_visible = false;       ///< false = seed (forward == 0 never visible); true = abeam counts as ahead
};

/// T33 angle test alone: is a point at local (forward, left) inside the view model's arc?
bool in_view(Vec2 local, ViewModel model, const ViewParams& params);

/// T32/T33 view radius of a unit of the given length (m) under a view model, m.
real view_radius(real length, ViewModel model, const ViewParams& params);

/// T33 result of neighbour gathering. Averages are zero when count == 0 (no division by 0).
struct NeighborSummary {
  std::int32_t count = 0;   ///< N: visible neighbours
  Vec2 average_position;    ///< P_ave, m
  Vec2 average_velocity;    ///< V_ave, m/s
  std::int32_t stored = 0;  ///< how many visible indices were written to the caller's buffer (<= count)
};

/// T33 neighbour gathering for unit self. units is indexed by unit id (0 = the player, never
/// counted; self never counted); candidates lists the ids to test (all ids, or a spatial
/// grid's query result - the O(N^2) seed scan is just "all ids"). A candidate is counted iff
/// its local position passes the model's angle test and then |d| <= length * radius factor.
/// Visible ids are written to visible (optional) in candidate order. No allocation.
NeighborSummary gather_neighbors(std::int32_t self, Vec2 self_heading, std::span<const Mover> units,
                                 std::span<const std::int32_t> candidates, real length, ViewModel model,
                                 const ViewParams& params, std::span<std::int32_t> visible = {});

/// T33 the seed's brute-force form: every unit is a candidate.
NeighborSummary gather_neighbors_all(std::int32_t self, Vec2 self_heading, std::span<const Mover> units, real length,
                                     ViewModel model, const ViewParams& params, std::span<std::int32_t> visible = {});

/// T34/T36 rule weights and response-curve constants. Forces in N; S is the unit's own
/// CraftParams::max_steering_force (one bow thruster at full deflection), and the net lateral
/// force of all rules together is bounded by +-S: the rules share the one thruster the craft has.
/// Weights above 1 make a rule saturate the thruster before its response curve peaks; the
/// defaults were tuned in headless AIDemo4 runs (demo4_* with the default Demo4Params).
struct FlockRuleParams {
  real cohesion_weight = 4;        ///< k_c (response: bearing to P_ave / 180 deg). [Limit: >= 0]
  real alignment_weight = 3;       ///< k_a (response: angle to mean heading / 180 deg). [Limit: >= 0]
  real separation_weight = 1;      ///< k_s (response: threshold / distance). [Limit: >= 0]
  real separation_factor = 4;      ///< separation acts inside length * this, m/m. [Limit: > 0]
  real min_distance_factor = 0.2;  ///< 1/d is evaluated at no less than length * this (coincident units). [Limit: > 0]
  real obstacle_weight = 3;  ///< k_o: response k_o S look_ahead/gap, so >= 3 S inside the look-ahead. [Limit: >= 0]
  real obstacle_look_ahead_factor = 20;  ///< obstacles are considered within length * this ahead. [Limit: > 0]
  real obstacle_clearance_factor = 3;    ///< extra lateral clearance, length * this, m/m. [Limit: >= 0]
  real leader_pull_weight = 2;  ///< T36 follower pull toward a visible leader (bearing / 180 deg). [Limit: >= 0]
  real player_pull_weight =
      1;  ///< T35 follower pull toward the player (id 0) while it is in view: the flock chases it. [Limit: >= 0]
};

/// T34 cohesion: lateral force toward the neighbours' average position, S k_c bearing/pi
/// (signed: + = left), with S = max_steering_force, N. Zero when the centroid coincides with the unit.
real cohesion_force(Vec2 position, Vec2 heading, Vec2 average_position, real max_steering_force,
                    const FlockRuleParams& params);

/// T34 alignment: lateral force S k_a phi/pi toward the neighbours' mean heading, phi = acos of
/// the heading/mean-velocity dot product, on the side of the mean velocity (exactly opposite:
/// left). Zero for a zero mean velocity.
real alignment_force(Vec2 heading, Vec2 average_velocity, real max_steering_force, const FlockRuleParams& params);

/// T34 separation from one neighbour: -sign(left) S k_s (L R_sep)/|d| inside L R_sep, zero
/// beyond; steers away (neighbour dead ahead or coincident: turn right). |d| is floored at
/// length * min_distance_factor so coincident units give a finite force.
real separation_force(Vec2 position, Vec2 heading, Vec2 neighbor_position, const CraftParams& craft,
                      const FlockRuleParams& params);

/// T36 obstacle rule: for each circle whose centre is ahead within the look-ahead distance and
/// laterally within radius + clearance, steer away from it with S k_o (look_ahead / gap), gap =
/// distance from the unit to the circle's surface (floored at length * min_distance_factor);
/// also when already inside the
/// clearance ring and not clearly behind. Obstacle dead ahead: turn left.
real obstacle_force(Vec2 position, Vec2 heading, std::span<const Circle> obstacles, const CraftParams& craft,
                    const FlockRuleParams& params);

/// T36 unit roles (the seed's Leader / Interceptor flags).
enum class FlockRole : std::uint8_t {
  follower,     ///< flocks (T31/T34) and is pulled toward a visible leader
  leader,       ///< skips flocking, LOS-chases the player (T21)
  interceptor,  ///< skips flocking, intercepts the player (T23/T24)
};

/// Everything DoUnitAI reads besides the unit itself. Spans are borrowed for the call.
struct FlockContext {
  std::span<const Mover> units;              ///< all units by id; id 0 is the player
  std::span<const std::int32_t> candidates;  ///< ids to test as neighbours; empty = all ids
  std::span<const Circle> obstacles;         ///< circular obstacles
  std::int32_t leader = -1;                  ///< id of the leader followers are pulled toward, -1 = none
  ViewModel view = ViewModel::wide;          ///< view model in use
  bool flocking = true;                      ///< false: followers skip the three rules and the pull
};

/// T34-T36 one unit's steering for this tick, plus what a viewer may want to draw.
struct FlockSteering {
  real lateral_force = 0;       ///< net lateral bow force, N (+ = left), already clamped
  NeighborSummary neighbors;    ///< what the unit saw (followers only)
  Vec2 aim;                     ///< leader/interceptor aim point (the player or S_t), m
  bool leader_visible = false;  ///< follower saw the leader this tick
};

/// Tuning bundle for flock_unit_ai.
struct FlockUnitParams {
  ViewParams view;            ///< T32/T33
  FlockRuleParams rules;      ///< T34/T36
  LosChaseParams los;         ///< leader and interceptor turning (T21)
  InterceptParams intercept;  ///< interceptor prediction (T23/T24)
};

/// T34-T36 DoUnitAI for unit self (id >= 1) flying `craft`: followers sum cohesion, alignment,
/// separation, the leader pull, the player pull (player in view) and the obstacle rule into one
/// lateral force; a leader LOS-chases the player (id 0), an interceptor intercepts it (its
/// persistent chase mode is mode), both with the craft's own bow thrusters; all avoid obstacles.
/// The result is bounded by the craft's steering force, +-craft.max_steering_force.
FlockSteering flock_unit_ai(std::int32_t self, const CraftState& state, const CraftParams& craft, FlockRole role,
                            const FlockContext& context, const FlockUnitParams& params, ChaseMode& mode);

// ---------------------------------------------------------------- T35 AIDemo4

/// Capacity of the headless AIDemo4 world (fixed arrays: the tick never allocates).
inline constexpr std::int32_t kDemo4MaxUnits = 64;
/// Capacity for obstacles in the AIDemo4 world.
inline constexpr std::int32_t kDemo4MaxObstacles = 8;

/// T35 AIDemo4's craft (T10), the units' and the player's: the default CraftParams with a 6 N bow
/// thruster. The seed gives no constants. 6 N turns a 1 m unit at up to 1.5 rad/s
/// (omega = F L / (2 c_a)), a 6.7 m radius at 10 m/s, well inside the 30-length view; with 3 N
/// (0.75 rad/s) headless runs splintered: turns wider than the view lost neighbours, and
/// separation, bounded by the same thruster, no longer kept units from touching.
inline constexpr CraftParams kDemo4Craft{1, 0.5, 1, 4, 6, 0.4, 4, 2};

/// T35 AIDemo4 scenario parameters.
struct Demo4Params {
  std::int32_t num_units = 20;          ///< including the player (id 0). [Limit: 2..kDemo4MaxUnits]
  real width = 200;                     ///< world width W, m. [Limit: > 0]
  real height = 150;                    ///< world height H, m. [Limit: > 0]
  real dt = 1.0 / 60.0;                 ///< fixed physics step (_TIMESTEP), s. [Limit: > 0]
  std::int32_t render_frame_count = 4;  ///< render once every this many ticks (_RENDER_FRAME_COUNT). [Limit: >= 1]
  real player_factor = 0.5;             ///< thruster factor of the arrow keys. [Limit: 0..1]
  std::int32_t leader = 1;              ///< id flagged Leader, -1 = none. [Limit: -1 or 1..num_units-1]
  std::int32_t interceptor = 2;         ///< id flagged Interceptor, -1 = none. [Limit: -1 or 1..num_units-1]
  bool wrap = true;        ///< T14 wrap every unit; false: no wrap (a host that confines units itself, or a control)
  bool seed_wrap = false;  ///< with wrap: true = the seed's snap wrap (x > W -> 0); false = continuous x mod W
  real spawn_speed = 8;    ///< initial speed of the units, m/s. [Limit: >= 0]
  /// Physics of every unit, the player's included: AIDemo4 flies one RigidBody2D class (T10).
  CraftParams craft = kDemo4Craft;
  FlockUnitParams ai;  ///< flocking / chase tuning
};

/// T35 player keyboard input for one tick (arrow keys).
struct Demo4Input {
  bool left = false;   ///< left arrow: starboard thruster at player_factor (turn left)
  bool right = false;  ///< right arrow: port thruster at player_factor (turn right)
};

/// T35 the AIDemo4 world. Plain fixed-size data, copyable and hashable.
struct Demo4World {
  std::array<CraftState, kDemo4MaxUnits> units{};      ///< id 0 = the player
  std::array<FlockRole, kDemo4MaxUnits> roles{};       ///< role per id (id 0 unused)
  std::array<ChaseMode, kDemo4MaxUnits> modes{};       ///< interceptor chase mode per id
  std::array<Vec2, kDemo4MaxUnits> aims{};             ///< annotation: last aim point per id
  std::array<std::int32_t, kDemo4MaxUnits> seen{};     ///< annotation: neighbours each unit saw last tick
  std::array<bool, kDemo4MaxUnits> leader_seen{};      ///< annotation: the unit saw the leader last tick
  std::array<bool, kDemo4MaxUnits> wrapped{};          ///< annotation: T14 carried the unit across the seam last tick
  std::array<Circle, kDemo4MaxObstacles> obstacles{};  ///< circular obstacles
  std::int32_t num_units = 0;                          ///< units in use, including the player
  std::int32_t num_obstacles = 0;                      ///< obstacles in use
  ViewModel view = ViewModel::wide;                    ///< current view model (run-time toggle)
  bool flocking = true;                                ///< flocking on/off toggle
  std::uint32_t tick = 0;                              ///< physics ticks done
  std::int32_t render_counter = 0;                     ///< ticks since the last render (decimation only)
  std::uint32_t frames_rendered = 0;                   ///< renders signalled so far
};

/// T35 set up the demo: player at the world centre heading +x, units placed uniformly at random
/// (rng) outside the obstacles (with a margin) with random headings and spawn_speed. Obstacles
/// beyond kDemo4MaxObstacles are ignored.
Demo4World demo4_make(const Demo4Params& params, std::span<const Circle> obstacles, Rng& rng);

/// T35 one physics tick, in the seed's order: the player (id 0) from the arrow keys, integrated
/// and wrapped; then demo4_step_units. Returns true when this tick should be rendered; the render
/// counter never feeds back into the physics.
bool demo4_step(Demo4World& world, const Demo4Params& params, Demo4Input input);

/// T35 the units' half of the tick (step 2 of the seed's loop): every AI unit's DoUnitAI from the
/// state after the player moved (compute-then-commit, so unit order does not matter; the seed
/// updates in place), then every AI unit integrated (T10) and wrapped (T14, when params.wrap).
/// The player (id 0) is read, never moved: the live world (sim::World) moves its players with
/// the step its clients predict with, then calls this for each bourg_flock group.
void demo4_step_units(Demo4World& world, const Demo4Params& params);

}  // namespace flockstep::behavior
