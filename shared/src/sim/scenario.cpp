#include "flockstep/sim/scenario.hpp"

#include <iterator>
#include <string_view>

#include "flockstep/behavior/bourg_flocking.hpp"
#include "flockstep/math/angle.hpp"
#include "flockstep/sim/group_kind.hpp"
#include "tile_map.hpp"

namespace flockstep::sim {
namespace {

constexpr const char* kTechniqueNames[] = {"player",
                                           "flock",
                                           "chase",
                                           "los_chase",
                                           "intercept",
                                           "pursue",
                                           "offset_pursuit",
                                           "wander",
                                           "path_follow",
                                           "pattern",
                                           "hide",
                                           "evade",
                                           "tile_patrol",
                                           "tile_track",
                                           "tile_chase",
                                           "straight",
                                           "seek",
                                           "flee",
                                           "arrive",
                                           "interpose",
                                           "fly",
                                           "track",
                                           "anti_track",
                                           "vector_track",
                                           "mine",
                                           "kinematic_seek",
                                           "kinematic_wander",
                                           "ray_avoid",
                                           "kinematic_flee",
                                           "kinematic_arrive",
                                           "kinematic_pattern",
                                           "bourg_flock",
                                           "composed"};
static_assert(std::size(kTechniqueNames) == static_cast<std::size_t>(Technique::kCount));
constexpr const char* kKindNames[] = {"player", "flock", "pursuer", "patrol", "wanderer"};
static_assert(std::size(kKindNames) == static_cast<std::size_t>(AgentKind::kCount));

}  // namespace

const char* technique_name(Technique t) {
  const auto i = static_cast<std::size_t>(t);
  return i < std::size(kTechniqueNames) ? kTechniqueNames[i] : "unknown";
}

bool parse_technique(std::string_view name, Technique& out) {
  for (std::size_t i = 0; i < std::size(kTechniqueNames); ++i) {
    if (name == kTechniqueNames[i]) {
      out = static_cast<Technique>(i);
      return true;
    }
  }
  return false;
}

const char* kind_name(AgentKind k) {
  const auto i = static_cast<std::size_t>(k);
  return i < std::size(kKindNames) ? kKindNames[i] : "unknown";
}

std::string group_kind(const Scenario& s, std::int32_t group) {
  if (group < 0 || static_cast<std::size_t>(group) >= s.groups.size()) return "player";
  const GroupSpec& g = s.groups[static_cast<std::size_t>(group)];
  if (g.technique == Technique::kComposed) return std::string("composed/") + model_name(g.model);
  return technique_name(g.technique);
}

namespace {

/// A craft's parameters (the player's and each group's): finite, masses away from zero.
std::string craft_error(const behavior::CraftParams& c, const std::string& p) {
  const real all[] = {c.mass,        c.inertia,      c.length,      c.thrust, c.max_steering_force,
                      c.linear_drag, c.lateral_drag, c.angular_drag};
  for (real v : all)
    if (!math::is_finite(v)) return p + ": every value must be a finite number";
  if (!(c.mass >= behavior::kMinCraftMass)) return p + ".mass: must be >= 0.001";
  if (!(c.inertia >= behavior::kMinCraftInertia)) return p + ".inertia: must be >= 0.001";
  if (!(c.length > 0)) return p + ".length: must be > 0";
  if (!(c.thrust >= 0 && c.max_steering_force >= 0)) return p + ".thrust and max_steering_force: must be >= 0";
  if (!(c.linear_drag >= 0 && c.lateral_drag >= 0 && c.angular_drag >= 0)) return p + ": drags must be >= 0";
  return {};
}

}  // namespace

std::string validate(const Scenario& s) {
  auto bad = [](const std::string& field, const std::string& why) { return field + ": " + why; };
  if (std::string e = craft_error(s.player_craft, "player_craft"); !e.empty()) return e;
  if (!(s.width >= kMinWorldSide) || !math::is_finite(s.width)) return bad("width", "must be a number >= 1 (m)");
  if (!(s.height >= kMinWorldSide) || !math::is_finite(s.height)) return bad("height", "must be a number >= 1 (m)");
  if (s.tick_rate_hz < 1 || s.tick_rate_hz > 240) return bad("tick_rate_hz", "must be in 1..240");
  if (s.steering_interval_ticks < 1 || s.steering_interval_ticks > 8)
    return bad("steering_interval_ticks", "must be in 1..8");
  if (s.max_agents < 1 || s.max_agents > 1000000) return bad("max_agents", "must be in 1..1000000");
  if (s.max_players < 0 || s.max_players > s.max_agents) return bad("max_players", "must be in 0..max_agents");
  if (!(s.grid_cell > 0)) return bad("grid_cell", "must be > 0");
  // Converted to a tick count (capture_protected): a negative, huge or non-finite value would be
  // an out-of-range conversion (the world-state fuzzer sent -3e92).
  if (!(s.respawn_protection_s >= 0 && s.respawn_protection_s <= kMaxRespawnProtectionS))
    return bad("respawn_protection_s", "must be in 0..3600");
  std::int64_t total = 0;
  for (std::size_t gi = 0; gi < s.groups.size(); ++gi) {
    const GroupSpec& g = s.groups[gi];
    const std::string p = "groups[" + std::to_string(gi) + "]";
    if (g.count < 0) return bad(p + ".count", "must be >= 0");
    total += g.count;
    if (g.technique == Technique::kPlayer) return bad(p + ".technique", "'player' is reserved for connected players");
    if (g.view_model < 0 || g.view_model > 2)
      return bad(p + ".view_model", "must be 0 (wide), 1 (limited) or 2 (narrow)");
    // AIDemo4's fixed unit table: the player plus the group's units.
    if (g.technique == Technique::kBourgFlock && g.count > behavior::kDemo4MaxUnits - 1)
      return bad(p + ".count", "a bourg_flock group holds at most 63 units");
    if (g.technique == Technique::kBourgFlock &&
        s.obstacles.size() > static_cast<std::size_t>(behavior::kDemo4MaxObstacles))
      return bad(p + ".technique", "bourg_flock runs AIDemo4's world, which holds at most 8 obstacles");
    if (g.technique == Technique::kComposed) {
      if (std::string e = validate_composition(g.compose, g.model, static_cast<std::int32_t>(s.groups.size()),
                                               static_cast<std::int32_t>(s.paths.size()), s.grid_cell, p);
          !e.empty())
        return e;
      for (std::size_t k = 0; k < g.compose.behaviors.size(); ++k)
        if (g.compose.behaviors[k].leader_group == static_cast<std::int32_t>(gi) ||
            g.compose.behaviors[k].target_group == static_cast<std::int32_t>(gi))
          return bad(p + ".behaviors[" + std::to_string(k) + "]",
                     "target_group and leader_group must name another group");
    }

    if (std::string e = craft_error(g.craft, p + ".craft"); !e.empty()) return e;
    if (!(g.max_speed > 0)) return bad(p + ".max_speed", "must be > 0");
    if (!(g.max_force > 0)) return bad(p + ".max_force", "must be > 0");
    if (!(g.mass > 0)) return bad(p + ".mass", "must be > 0");
    if (!(g.radius > 0)) return bad(p + ".radius", "must be > 0");
    if (g.flock.neighbour_radius > s.grid_cell) return bad(p + ".flock.neighbour_radius", "must be <= grid_cell");
    if (!(g.flock.fov_deg > 0 && g.flock.fov_deg <= 360)) return bad(p + ".flock.fov_deg", "must be in (0, 360]");
    if (g.arrive_deceleration < 1) return bad(p + ".arrive_deceleration", "must be >= 1");
    if (g.technique == Technique::kPathFollow && (g.path < 0 || g.path >= static_cast<std::int32_t>(s.paths.size())))
      return bad(p + ".path", "must name an existing path");
    if (g.technique == Technique::kOffsetPursuit &&
        (g.leader_group < 0 || g.leader_group >= static_cast<std::int32_t>(s.groups.size()) ||
         g.leader_group == static_cast<std::int32_t>(gi)))
      return bad(p + ".leader_group", "must name another group");
    const auto ngroups = static_cast<std::int32_t>(s.groups.size());
    if (g.technique == Technique::kInterpose &&
        (g.leader_group < 0 || g.leader_group >= ngroups || g.leader_group == static_cast<std::int32_t>(gi)))
      return bad(p + ".leader_group", "must name another group");
    if (g.target_group < -1 || g.target_group >= ngroups || g.target_group == static_cast<std::int32_t>(gi))
      return bad(p + ".target_group", "must be -1 (nearest player) or name another group");
    if (!math::is_finite(g.goal)) return bad(p + ".goal", "must be finite");
    if (!math::is_finite(g.heading_deg)) return bad(p + ".heading_deg", "must be finite");
    if (!(g.swerve_after_s >= 0)) return bad(p + ".swerve_after_s", "must be >= 0");
    if (!(g.swerve_deg >= -360 && g.swerve_deg <= 360)) return bad(p + ".swerve_deg", "must be in -360..360");
    if (g.fly.min_burst_ticks < 1) return bad(p + ".fly.min_burst_ticks", "must be >= 1");
    if (g.fly.max_burst_ticks < g.fly.min_burst_ticks)
      return bad(p + ".fly.max_burst_ticks", "must be >= fly.min_burst_ticks");
    if (!(g.mine.tracking_distance > 0)) return bad(p + ".mine.tracking_distance", "must be > 0");
    if (!(g.mine.near_noise_chance >= 0 && g.mine.near_noise_chance <= 1))
      return bad(p + ".mine.near_noise_chance", "must be in [0, 1]");
    if (!(g.mine.far_noise_chance >= 0 && g.mine.far_noise_chance <= 1))
      return bad(p + ".mine.far_noise_chance", "must be in [0, 1]");
    if (!(g.kinematic_max_rotation >= 0)) return bad(p + ".kinematic_max_rotation", "must be >= 0");
    if (g.rays.config < 0 || g.rays.config > 3)
      return bad(p + ".rays.config", "must be 0 (single), 1 (whiskers), 2 (parallel) or 3 (fan)");
    if (!(g.rays.lookahead > 0)) return bad(p + ".rays.lookahead", "must be > 0");
    if (!(g.rays.whisker_length > 0)) return bad(p + ".rays.whisker_length", "must be > 0");
    if (!(g.rays.side_angle >= 0 && g.rays.side_angle <= math::kPi / 2))
      return bad(p + ".rays.side_angle", "must be in 0..pi/2");
    if (!(g.rays.parallel_offset >= 0)) return bad(p + ".rays.parallel_offset", "must be >= 0");
    if (!(g.rays.avoid_distance > g.radius)) return bad(p + ".rays.avoid_distance", "must be > radius");
  }
  if (std::string t = validate_tiles(s); !t.empty()) return t;
  if (total + s.max_players > s.max_agents)
    return bad("max_agents", "smaller than the sum of group counts plus max_players");
  for (std::size_t i = 0; i < s.paths.size(); ++i)
    if (s.paths[i].points.size() < 2) return bad("paths[" + std::to_string(i) + "].points", "needs at least 2 points");
  for (std::size_t i = 0; i < s.obstacles.size(); ++i)
    if (!(s.obstacles[i].radius > 0)) return bad("obstacles[" + std::to_string(i) + "].radius", "must be > 0");
  return {};
}

}  // namespace flockstep::sim
