#include "flockstep/sim/techniques.hpp"

#include <algorithm>
#include <iterator>

#include "flockstep/sim/world.hpp"

namespace flockstep::sim {
namespace {

using C = Carrier;

// One row per catalog ID, T01..T82. Titles are ours; the catalog is the specification.
constexpr TechniqueEntry kTable[] = {
    {"T01", "Millington's kinematic state, orientation as a vector", C::kInternal, "model:steering",
     "behavior::Kinematic / SteeringOutput, math::as_vector in World::integrate_steering_model"},
    {"T02", "Facing smoothing toward the direction of motion", C::kFilter, "filter:facing_fraction", "steering model"},
    {"T03", "Kinematic update: velocity set directly", C::kModel, "model:kinematic", "behavior::kinematic_integrate"},
    {"T04", "Exact constant-acceleration update", C::kOption, "option:exact_integration",
     "\"integration\": 1 (steering model)"},
    {"T05", "Newton-Euler-1 update with speed clip and drag", C::kModel, "model:steering",
     "behavior::integrate_steering"},
    {"T06", "Fixed steps from a variable frame clock", C::kInternal, "*",
     "sim::TickClock in the server's room loop (every room)"},
    {"T07", "Forces and actuation (car actuator)", C::kOption, "option:car_actuation",
     "\"actuation\": 1 (steering model)"},
    {"T08", "The slides' point-mass vehicle and truncate", C::kModel, "model:vehicle", "behavior::body_update"},
    {"T09", "Layered steering and behaviour switches", C::kCombiner, "combiner:running_sum",
     "layers in priority order; weight 0 switches one off"},
    {"T10", "Bourg's rigid-body craft with bow thrusters", C::kModel, "model:craft", "behavior::craft_step"},
    {"T11", "World to local transforms and relative tests", C::kInternal,
     "behavior:obstacle_avoid behavior:offset_pursuit behavior:hide technique:los_chase technique:bourg_flock",
     "math::to_local / to_world_point in obstacle_avoidance_force, offset_pursuit_force, los_bearing"},
    {"T12", "Angle wrapping and scalar sign", C::kInternal, "model:craft model:steering model:kinematic",
     "math::wrap_angle in craft_step, integrate_steering, kinematic_integrate"},
    {"T13", "Binomial random numbers", C::kInternal, "behavior:dynamic_wander technique:kinematic_wander",
     "math::Rng::binomial in dynamic_wander and kinematic_wander (wander_force draws uniform numbers)"},
    {"T14", "Toroidal world wrap", C::kWorld, "world:wrap", "scenario \"wrap\": true"},
    {"T15", "Straight-line constant-velocity motion", C::kTechnique, "technique:straight", ""},
    {"T16", "Random motion (LaMothe's fly)", C::kTechnique, "technique:fly", ""},
    {"T17", "Axis-wise tracking (basic chase)", C::kTechnique, "technique:track", ""},
    {"T18", "Axis-wise anti-tracking", C::kTechnique, "technique:anti_track", ""},
    {"T19", "Trajectory-vectoring tracker with a speed cap", C::kTechnique, "technique:vector_track", ""},
    {"T20", "Range-gated noisy homing mine", C::kTechnique, "technique:mine", ""},
    {"T21", "Line-of-sight chase with bow thrusters", C::kTechnique, "technique:los_chase technique:bourg_flock",
     "also the bourg_flock leader"},
    {"T22", "Line-of-sight chase on tiles", C::kTechnique, "technique:tile_patrol technique:tile_chase",
     "tile_patrol's break-out chase (a player within chase_range); also the tile_chase technique"},
    {"T23", "Intercept (predictive chase)", C::kTechnique, "technique:intercept technique:bourg_flock",
     "also the bourg_flock interceptor"},
    {"T24", "Intercept feasibility and the fall-back to line of sight", C::kTechnique,
     "technique:intercept technique:bourg_flock", ""},
    {"T25", "Standard pattern algorithm (control instructions)", C::kTechnique, "technique:kinematic_pattern", ""},
    {"T26", "Tile path patterns: build and normalise", C::kTechnique, "technique:tile_patrol", "\"tile_patterns\""},
    {"T27", "Tile pattern patrol that breaks off to chase", C::kTechnique, "technique:tile_patrol", ""},
    {"T28", "Tile track matrix with random branching", C::kTechnique, "technique:tile_track", "\"tracks\""},
    {"T29", "Pattern movement under physics (DoPattern)", C::kTechnique, "technique:pattern", ""},
    {"T30", "AIDemo3-2 patterns: square, zig-zag, arbitrary", C::kTechnique, "technique:pattern", "\"pattern\""},
    {"T31", "Reynolds' three flocking rules", C::kBehavior,
     "behavior:flock behavior:millington_flock technique:bourg_flock", ""},
    {"T32", "Visibility arc: radius and field of view", C::kBehavior,
     "behavior:flock behavior:millington_flock technique:bourg_flock", "flock.fov_deg, view_model"},
    {"T33", "Neighbour gathering with three view models", C::kTechnique, "technique:bourg_flock", "\"view_model\""},
    {"T34", "Flocking by a lateral bow force with response curves", C::kTechnique, "technique:bourg_flock", ""},
    {"T35", "AIDemo4: compute-then-commit units on a torus", C::kTechnique, "technique:bourg_flock",
     "every tick is compute-then-commit; add \"wrap\": true for the torus"},
    {"T36", "Flock obstacle avoidance and follow-the-leader", C::kTechnique, "technique:bourg_flock",
     "\"leader_unit\", \"interceptor_unit\""},
    {"T37", "Kinematic seek", C::kTechnique, "technique:kinematic_seek", ""},
    {"T38", "Kinematic flee", C::kTechnique, "technique:kinematic_flee", ""},
    {"T39", "Kinematic arrive", C::kTechnique, "technique:kinematic_arrive", ""},
    {"T40", "Kinematic wander", C::kTechnique, "technique:kinematic_wander", ""},
    {"T41", "Steering framework: matching, delegation", C::kInternal,
     "behavior:dynamic_arrive behavior:dynamic_pursue behavior:dynamic_evade behavior:face behavior:look_where_going "
     "behavior:dynamic_wander behavior:follow_path",
     "behavior::Delegated<T> returned by the *_delegated forms"},
    {"T42", "Dynamic seek", C::kBehavior, "behavior:dynamic_seek", ""},
    {"T43", "Dynamic flee", C::kBehavior, "behavior:dynamic_flee", ""},
    {"T44", "Dynamic arrive", C::kBehavior, "behavior:dynamic_arrive", ""},
    {"T45", "Align", C::kBehavior, "behavior:align", ""},
    {"T46", "Velocity matching", C::kBehavior, "behavior:velocity_match", ""},
    {"T47", "Pursue with a prediction cap", C::kBehavior, "behavior:dynamic_pursue", ""},
    {"T48", "Evade", C::kBehavior, "behavior:dynamic_evade", ""},
    {"T49", "Face", C::kBehavior, "behavior:face", ""},
    {"T50", "Look where you're going", C::kBehavior, "behavior:look_where_going", ""},
    {"T51", "Dynamic wander", C::kBehavior, "behavior:dynamic_wander", ""},
    {"T52", "Path following (chase the rabbit)", C::kBehavior, "behavior:follow_path", ""},
    {"T53", "Predictive path following", C::kOption, "option:predictive_path", "follow_path with predict_time > 0"},
    {"T54", "Parameterised line-segment paths with coherence", C::kBehavior, "behavior:follow_path",
     "behavior::FixedLinePath built from every scenario path"},
    {"T55", "Separation (inverse-square)", C::kBehavior, "behavior:separation", ""},
    {"T56", "Attraction (negative decay)", C::kBehavior, "behavior:attraction", ""},
    {"T57", "Cone-check collision avoidance", C::kBehavior, "behavior:cone_avoid", ""},
    {"T58", "Predictive collision avoidance", C::kBehavior, "behavior:collision_avoid", ""},
    {"T59", "Ray-cast obstacle and wall avoidance", C::kTechnique, "technique:ray_avoid", ""},
    {"T60", "Ray configurations, the corner trap and remedies", C::kTechnique, "technique:ray_avoid",
     "rays.config, rays.corner_remedy"},
    {"T61", "Weighted blending of steering outputs", C::kCombiner, "option:steering_blend",
     "blend (on the steering model)"},
    {"T62", "Blending to arbitration: dynamic weights", C::kCombiner, "combiner:urgency", "\"sharpness\""},
    {"T63", "Flocking as a weighted blend", C::kBehavior, "behavior:millington_flock", ""},
    {"T64", "Seek (force)", C::kBehavior, "behavior:seek", "presets chase, seek"},
    {"T65", "Flee (force)", C::kBehavior, "behavior:flee behavior:flee_players", "presets flee; prey's panic layer"},
    {"T66", "Arrive with a deceleration tweak", C::kBehavior, "behavior:arrive", ""},
    {"T67", "Pursue with the dead-ahead shortcut", C::kBehavior, "behavior:pursue", ""},
    {"T68", "Evade (force)", C::kBehavior, "behavior:evade", ""},
    {"T69", "Offset pursuit", C::kBehavior, "behavior:offset_pursuit", ""},
    {"T70", "Interpose", C::kBehavior, "behavior:interpose", ""},
    {"T71", "Wander on a jittered circle", C::kBehavior, "behavior:wander behavior:flock", ""},
    {"T72", "Waypoint path following", C::kBehavior, "behavior:follow_waypoints", "preset path_follow"},
    {"T73", "Obstacle avoidance with a detection box", C::kBehavior, "behavior:obstacle_avoid", ""},
    {"T74", "Hide", C::kBehavior, "behavior:hide", ""},
    {"T75", "Wall avoidance with three feelers", C::kBehavior, "behavior:wall_avoid", ""},
    {"T76", "The slides' flocking forces", C::kBehavior, "behavior:flock", ""},
    {"T77", "Blended forces truncated to max_force", C::kCombiner, "option:vehicle_blend",
     "blend (on the vehicle model)"},
    {"T78", "Prioritised steering: first non-zero wins", C::kCombiner, "combiner:priority", ""},
    {"T79", "Weighted truncated running sum with priorities", C::kCombiner, "combiner:running_sum",
     "every preset vehicle"},
    {"T80", "Grouped priorities", C::kCombiner, "combiner:grouped", "behaviour \"priority\""},
    {"T81", "Prioritised dithering", C::kCombiner, "combiner:dither", "behaviour \"probability\""},
    {"T82", "Heading smoothing against judder", C::kFilter, "filter:heading_samples", "vehicle model"},
};
static_assert(std::size(kTable) == 82);

constexpr const char* kCarrierNames[] = {"behavior", "combiner",  "model", "option",
                                         "filter",   "technique", "world", "internal"};

}  // namespace

const char* carrier_name(Carrier c) { return kCarrierNames[static_cast<std::size_t>(c)]; }

std::span<const TechniqueEntry> technique_table() { return kTable; }

TechniqueCounts exercise_scenario(const Scenario& s, std::int32_t ticks) {
  World w(s);
  const AgentId player = w.add_player();
  std::int32_t visit = 0;
  for (std::int32_t t = 0; t < ticks; ++t) {
    if (player.valid() && t % kCoverageVisitTicks == 0 && !s.groups.empty()) {
      // The next group in turn that has agents: its agent with the lowest id (where rows are
      // stored is not state: World::set_reorder_interval).
      for (std::size_t tries = 0; tries < s.groups.size(); ++tries, ++visit) {
        const auto group = static_cast<std::int32_t>(static_cast<std::size_t>(visit) % s.groups.size());
        std::int32_t at = -1;
        for (std::int32_t k = 0; k < w.size(); ++k)
          if (w.view(k).group == group && w.view(k).kind != AgentKind::kPlayer &&
              (at < 0 || w.view(k).id.value < w.view(at).id.value))
            at = k;
        if (at < 0) continue;
        w.place(player, w.view(at).position + Vec2{4, 0});
        ++visit;
        break;
      }
    }
    // Fly forward, turning one way for a second and the other way the next.
    w.set_input(player, {(t / 60) % 2 == 0 ? real(0.5) : real(-0.5), 1});
    w.step();
  }
  return w.technique_counts();
}

std::string technique_carrier_name(const TechniqueEntry& t) {
  if (t.carrier == Carrier::kInternal) return "internal";
  std::string_view first = t.keys.substr(0, t.keys.find(' '));
  if (const std::size_t colon = first.find(':'); colon != std::string_view::npos) first.remove_prefix(colon + 1);
  return std::string(first);
}

}  // namespace flockstep::sim
