// Bourg's rigid-body flocks (T35), a group at a time by AIDemo4's own loop
// (behavior::demo4_step_units). The rest of the craft model is stages (stage_craft.hpp).
#include "stage_craft.hpp"
#include "world_impl.hpp"

#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/sim/model_params.hpp"
#include "flockstep/sim/player.hpp"
#include "flockstep/sim/rules.hpp"

namespace flockstep::sim {

behavior::CraftState WorldImpl::craft_state_of(std::int32_t i) const {
  return {position_[i], velocity_[i], orientation_[i], angular_velocity_[i]};
}

behavior::Demo4World WorldImpl::bourg_world(std::int32_t group, behavior::Demo4Params& params,
                                            std::vector<std::int32_t>* members) const {
  behavior::Demo4World w;
  w.num_units = 1;
  params = behavior::Demo4Params{};
  if (members) members->assign(1, -1);
  if (group < 0 || group >= static_cast<std::int32_t>(scenario_.groups.size())) return w;
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(group)];
  // The unit table: ids 1.. are the group's units in id order (validate caps a group at 63).
  // Roles by id value, so they survive swap-remove reordering: the lowest leads, the next intercepts.
  std::int32_t leader = -1, interceptor = -1;
  std::uint32_t lowest = 0, second = 0;
  for_each_by_id([&](std::int32_t i) {
    if (group_[i] != group || w.num_units >= behavior::kDemo4MaxUnits) return;
    const std::int32_t n = w.num_units++;
    if (members) members->push_back(i);
    w.units[static_cast<std::size_t>(n)] = craft_state_of(i);
    w.modes[static_cast<std::size_t>(n)] = chase_mode_[i];
    w.roles[static_cast<std::size_t>(n)] = behavior::FlockRole::follower;
    const std::uint32_t v = id_[i].value;
    if (leader < 0 || v < lowest) {
      interceptor = leader;
      second = lowest;
      leader = n;
      lowest = v;
    } else if (interceptor < 0 || v < second) {
      interceptor = n;
      second = v;
    }
  });
  params.leader = g.leader_unit ? leader : -1;
  params.interceptor = g.interceptor_unit && interceptor > 0 ? interceptor : -1;
  if (params.leader > 0) w.roles[static_cast<std::size_t>(params.leader)] = behavior::FlockRole::leader;
  if (params.interceptor > 0) w.roles[static_cast<std::size_t>(params.interceptor)] = behavior::FlockRole::interceptor;
  // Id 0, the unit everyone hunts: the player nearest the leader (the first unit without one), at
  // its torus copy nearest that unit, so the line of sight does not go the long way round the seam
  // (the seed has one player and measures no wrapped distances). No player: an idle target, the
  // world's centre at rest, so the flock circles inside the world.
  if (w.num_units > 1) {
    const Vec2 ref = w.units[static_cast<std::size_t>(leader > 0 ? leader : 1)].position;
    real best = math::kInfinity;
    std::int32_t player = -1;
    for_each_by_id([&](std::int32_t i) {
      if (kind_[i] != AgentKind::kPlayer) return;
      const real d2 = math::length_sq(delta(ref, position_[i]));
      if (d2 < best) {  // strict: ties keep the lower id slot
        best = d2;
        player = i;
      }
    });
    if (player >= 0) {
      if (members) (*members)[0] = player;
      w.units[0] = craft_state_of(player);
      w.units[0].position = ref + delta(ref, position_[player]);
    } else {
      w.units[0].position = {scenario_.width / 2, scenario_.height / 2};
    }
  }
  for (const Circle& c : scenario_.obstacles) {
    if (w.num_obstacles >= behavior::kDemo4MaxObstacles) break;  // validate rejects more
    w.obstacles[static_cast<std::size_t>(w.num_obstacles++)] = c;
  }
  w.view = static_cast<behavior::ViewModel>(g.view_model);
  w.flocking = g.flocking;
  params.num_units = w.num_units;
  params.width = scenario_.width;
  params.height = scenario_.height;
  params.dt = dt_;
  params.wrap = scenario_.wrap;  // solid borders: confine() below keeps the units in
  params.craft = g.craft;
  params.ai.los.tolerance = g.los_tolerance;
  params.ai.intercept.max_prediction = g.intercept_max_prediction;
  if (!g.avoid_obstacles) params.ai.rules.obstacle_weight = 0;
  return w;
}

void WorldImpl::step_bourg_groups() {
  std::vector<std::int32_t> members;
  Tally tally;  // serial phase: one tally, folded below
  for (std::int32_t g = 0; g < static_cast<std::int32_t>(scenario_.groups.size()); ++g) {
    if (scenario_.groups[static_cast<std::size_t>(g)].technique != Technique::kBourgFlock) continue;
    behavior::Demo4Params params;
    behavior::Demo4World w = bourg_world(g, params, &members);
    if (members.size() < 2) continue;
    // The target's id, for viewers: the player the table put at id 0 (none when idle).
    const AgentId target = members[0] >= 0 ? id_[members[0]] : AgentId{};
    behavior::demo4_step_units(w, params);  // T35: AIDemo4's loop, step 2
    // Coverage, from what the loop reports it did for each unit: it integrates every unit as a
    // rigid-body craft (T35, T10, angle wrapped: T12) and the torus carries some across the seam
    // (T14); a follower's three rules (T31, by its lateral bow force: T34) act only in a tick in
    // which its view arc (T32) and view model (T33) gathered a neighbour, and the follow-the-leader
    // pull (T36) only when it saw the leader; the leader LOS-chases (T21), the interceptor
    // intercepts (T23/T24).
    for (std::size_t u = 1; u < members.size(); ++u) {
      for (const int id : {35, 10, 12}) tally.add(id);
      if (w.wrapped[u]) tally.add(14);
      switch (w.roles[u]) {
        case behavior::FlockRole::leader: tally.add(21); break;
        case behavior::FlockRole::interceptor:
          tally.add(23);
          tally.add(24);
          break;
        case behavior::FlockRole::follower:
          if (w.flocking && w.seen[u] > 0)
            for (const int id : {31, 32, 33, 34}) tally.add(id);
          if (w.flocking && w.leader_seen[u]) tally.add(36);
          break;
      }
    }
    for (std::size_t u = 1; u < members.size(); ++u) {
      const std::int32_t i = members[u];
      const behavior::CraftState& cs = w.units[u];
      position_[i] = cs.position;
      velocity_[i] = cs.velocity;
      orientation_[i] = math::wrap_angle(cs.orientation);
      angular_velocity_[i] = cs.angular_velocity;
      heading_[i] = math::as_vector(orientation_[i]);
      chase_mode_[i] = w.modes[u];
      force_[i] = {};
      thrusters_[i] = {};
      switch (w.roles[u]) {
        case behavior::FlockRole::leader:
          aim_[i] = w.aims[u];
          target_[i] = target;
          state_[i] = BehaviorState::kSeeking;
          break;
        case behavior::FlockRole::interceptor:
          aim_[i] = w.aims[u];
          target_[i] = target;
          state_[i] =
              w.modes[u] == behavior::ChaseMode::intercept ? BehaviorState::kIntercepting : BehaviorState::kLosFallback;
          break;
        case behavior::FlockRole::follower:
          // A follower steers by its neighbours, not at a point: it aims where it is.
          aim_[i] = position_[i];
          target_[i] = {};
          state_[i] = BehaviorState::kNone;
          break;
      }
      // The push-out rule as for every agent (what the obstacle rule missed is counted), and the
      // border when the world does not wrap: on a torus demo4_step_units wrapped the unit itself.
      const real r = body_radius(scenario_, group_[i]);
      const real depth = push_out_of_obstacles(position_[i], velocity_[i], r, obstacles_.near(position_[i]));
      if (depth > 0) {
        ++pushout_.corrections;
        pushout_.max_depth = math::max(pushout_.max_depth, depth);
      }
      if (!scenario_.wrap) apply_border(position_[i], velocity_[i], r, scenario_);
      FLOCKSTEP_ASSERT(math::is_finite(position_[i]) && math::is_finite(velocity_[i]));
    }
  }
  for (std::size_t k = 0; k < kTechniqueCount; ++k) technique_counts_[k] += tally.n[k];
}

}  // namespace flockstep::sim
