// Bourg's rigid-body flocks (T35), a group at a time by AIDemo4's own loop
// (behavior::demo4_step_units). The rest of the craft model is stages (stage_craft.hpp).
#include "stage_bourg.hpp"

#include "flockstep/math/angle.hpp"
#include "flockstep/sim/rules.hpp"

namespace flockstep::sim {

namespace {
/// Rows in id order (the seed's unit order; roles by id value survive swap-remove reordering).
template <class F>
void bourg_rows_by_id(const BourgColumns& c, F&& f) {
  for (const std::int32_t i : c.slot_dense)
    if (i >= 0) f(i);
}

behavior::CraftState bourg_craft_state(const BourgColumns& c, std::int32_t i) {
  return {c.position[i], c.velocity[i], c.orientation[i], c.angular_velocity[i]};
}
}  // namespace

behavior::Demo4World bourg_world(const BourgColumns& c, std::int32_t group, behavior::Demo4Params& params,
                                 std::vector<std::int32_t>* members) {
  behavior::Demo4World w;
  w.num_units = 1;
  params = behavior::Demo4Params{};
  if (members) members->assign(1, -1);
  const Scenario& scenario = c.scenario;
  if (group < 0 || group >= static_cast<std::int32_t>(scenario.groups.size())) return w;
  const GroupSpec& g = scenario.groups[static_cast<std::size_t>(group)];
  // The unit table: ids 1.. are the group's units in id order (validate caps a group at 63).
  // Roles by id value, so they survive swap-remove reordering: the lowest leads, the next intercepts.
  std::int32_t leader = -1, interceptor = -1;
  std::uint32_t lowest = 0, second = 0;
  bourg_rows_by_id(c, [&](std::int32_t i) {
    if (c.group[i] != group || w.num_units >= behavior::kDemo4MaxUnits) return;
    const std::int32_t n = w.num_units++;
    if (members) members->push_back(i);
    w.units[static_cast<std::size_t>(n)] = bourg_craft_state(c, i);
    w.modes[static_cast<std::size_t>(n)] = c.chase_mode[i];
    w.roles[static_cast<std::size_t>(n)] = behavior::FlockRole::follower;
    const std::uint32_t v = c.id[i].value;
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
    bourg_rows_by_id(c, [&](std::int32_t i) {
      if (c.kind[i] != AgentKind::kPlayer) return;
      const real d2 = math::length_sq(c.plane.delta(ref, c.position[i]));
      if (d2 < best) {  // strict: ties keep the lower id slot
        best = d2;
        player = i;
      }
    });
    if (player >= 0) {
      if (members) (*members)[0] = player;
      w.units[0] = bourg_craft_state(c, player);
      w.units[0].position = ref + c.plane.delta(ref, c.position[player]);
    } else {
      w.units[0].position = {scenario.width / 2, scenario.height / 2};
    }
  }
  for (const Circle& o : scenario.obstacles) {
    if (w.num_obstacles >= behavior::kDemo4MaxObstacles) break;  // validate rejects more
    w.obstacles[static_cast<std::size_t>(w.num_obstacles++)] = o;
  }
  w.view = static_cast<behavior::ViewModel>(g.view_model);
  w.flocking = g.flocking;
  params.num_units = w.num_units;
  params.width = scenario.width;
  params.height = scenario.height;
  params.dt = c.dt;
  params.wrap = scenario.wrap;  // solid borders: the border rule below keeps the units in
  params.craft = g.craft;
  params.ai.los.tolerance = g.los_tolerance;
  params.ai.intercept.max_prediction = g.intercept_max_prediction;
  if (!g.avoid_obstacles) params.ai.rules.obstacle_weight = 0;
  return w;
}

void step_bourg_group(const BourgColumns& c, const BourgOutputs& out, std::int32_t group,
                      std::vector<std::int32_t>& members, TechniqueTally& tally, World::PushoutStats& pushout) {
  behavior::Demo4Params params;
  behavior::Demo4World w = bourg_world(c, group, params, &members);
  if (members.size() < 2) return;
  // The target's id, for viewers: the player the table put at id 0 (none when idle).
  const AgentId target = members[0] >= 0 ? c.id[members[0]] : AgentId{};
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
    out.position[i] = cs.position;
    out.velocity[i] = cs.velocity;
    out.orientation[i] = math::wrap_angle(cs.orientation);
    out.angular_velocity[i] = cs.angular_velocity;
    out.heading[i] = math::as_vector(out.orientation[i]);
    out.chase_mode[i] = w.modes[u];
    out.force[i] = {};
    out.thrusters[i] = {};
    switch (w.roles[u]) {
      case behavior::FlockRole::leader:
        out.aim[i] = w.aims[u];
        out.target[i] = target;
        out.state[i] = BehaviorState::kSeeking;
        break;
      case behavior::FlockRole::interceptor:
        out.aim[i] = w.aims[u];
        out.target[i] = target;
        out.state[i] =
            w.modes[u] == behavior::ChaseMode::intercept ? BehaviorState::kIntercepting : BehaviorState::kLosFallback;
        break;
      case behavior::FlockRole::follower:
        // A follower steers by its neighbours, not at a point: it aims where it is.
        out.aim[i] = out.position[i];
        out.target[i] = {};
        out.state[i] = BehaviorState::kNone;
        break;
    }
    // The push-out rule as for every agent (what the obstacle rule missed is counted), and the
    // border when the world does not wrap: on a torus demo4_step_units wrapped the unit itself.
    const real r = body_radius(c.scenario, c.group[i]);
    const real depth = push_out_of_obstacles(out.position[i], out.velocity[i], r, c.obstacles.near(out.position[i]));
    if (depth > 0) {
      ++pushout.corrections;
      pushout.max_depth = math::max(pushout.max_depth, depth);
    }
    if (!c.scenario.wrap) apply_border(out.position[i], out.velocity[i], r, c.scenario);
    FLOCKSTEP_ASSERT(math::is_finite(out.position[i]) && math::is_finite(out.velocity[i]));
  }
}

}  // namespace flockstep::sim
