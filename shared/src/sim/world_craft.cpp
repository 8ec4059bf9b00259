// The craft model (T10): players (sim::step_player), line-of-sight chase, intercept, physics
// patterns and Bourg's rigid-body flocking, one controller per agent.
#include "flockstep/sim/world.hpp"

#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/sim/player.hpp"

namespace flockstep::sim {

behavior::CraftState World::craft_state_of(std::int32_t i) const {
  return {position_[i], velocity_[i], orientation_[i], angular_velocity_[i]};
}

void World::steer_craft(std::int32_t i, Tally& tally) {
  const behavior::CraftState cs = craft_state_of(i);
  behavior::Thrusters t{};
  AgentId target{};
  Vec2 aim = position_[i];
  BehaviorState st = BehaviorState::kNone;
  if (kind_[i] == AgentKind::kPlayer) {
    t = player_thrusters(input_[i]);  // for viewers; integrate() runs step_player itself
  } else {
    const GroupSpec& g = scenario_.groups[group_[i]];
    real player_dist = math::kInfinity;
    // The target: the nearest player, or the nearest agent of target_group.
    const std::int32_t pj = nearest_target(g, i, position_[i], &player_dist);
    const behavior::LosChaseParams los{g.los_tolerance, 1, true, false};
    const Vec2 centre{scenario_.width / 2, scenario_.height / 2};
    switch (g.technique) {
      case Technique::kLosChase: {
        const Vec2 goal = pj >= 0 ? position_[i] + delta(position_[i], position_[pj]) : centre;
        t = behavior::los_chase_thrusters(cs, goal, los);
        tally.add(21);
        tally.add(11);  // the bearing in the craft's local frame
        aim = goal;
        if (pj >= 0) { target = id_[pj]; st = BehaviorState::kSeeking; }
        break;
      }
      case Technique::kIntercept: {
        if (pj >= 0) {
          const behavior::Mover prey{position_[i] + delta(position_[i], position_[pj]), velocity_[pj]};
          const behavior::InterceptParams ip{g.intercept_max_prediction, true};
          const behavior::InterceptChaseOutput out = behavior::intercept_chase(cs, prey, ip, los, chase_mode_[i]);
          t = out.thrusters;
          tally.add(23);
          tally.add(24);  // the feasibility test and its fall-back
          aim = out.aim.point;
          target = id_[pj];
          st = out.aim.mode == behavior::ChaseMode::intercept ? BehaviorState::kIntercepting : BehaviorState::kLosFallback;
        } else {
          t = behavior::los_chase_thrusters(cs, centre, los);
          tally.add(21);
          aim = centre;
        }
        break;
      }
      case Technique::kPattern: {
        t = pattern_thrusters(i, cs);
        tally.add(29);
        tally.add(30);
        aim = pattern_[i].initial_position;
        st = BehaviorState::kPatrolling;
        break;
      }
      case Technique::kBourgFlock: {
        const behavior::FlockSteering fs = bourg_flock_steering(i, g, cs, pj, tally);
        force_[i] = {fs.lateral_force, 0};  // integrate() applies it with craft_step_lateral
        aim = fs.aim;
        if (pj >= 0) target = id_[pj];
        st = fs.neighbors.count > 0 || fs.leader_visible ? BehaviorState::kSeeking : BehaviorState::kNone;
        break;
      }
      default:
        break;
    }
  }
  thrusters_[i] = t;
  target_[i] = target;
  aim_[i] = aim;
  state_[i] = st;
}

behavior::FlockSteering World::bourg_flock_steering(std::int32_t i, const GroupSpec& g, const behavior::CraftState& cs,
                                                    std::int32_t player, Tally& tally) {
  // AIDemo4's unit table, seen from this unit: id 0 is the player (the nearest one; none: a
  // point out of every view), then the group's units in dense order, each at its torus copy
  // nearest to this unit. At most 64 entries (validate caps the group at 63 units).
  const std::vector<std::int32_t>& members = members_[static_cast<std::size_t>(group_[i])];
  const Vec2 pos = position_[i];
  std::array<behavior::Mover, behavior::kDemo4MaxUnits> units{};
  units[0] = player >= 0 ? behavior::Mover{pos + delta(pos, position_[player]), velocity_[player]}
                         : behavior::Mover{pos + Vec2{1e6, 0}, {}};
  std::int32_t n = 1, self = -1, leader = -1, interceptor = -1;
  std::uint32_t lowest = 0, second = 0;
  for (const std::int32_t j : members) {
    if (n >= behavior::kDemo4MaxUnits) break;
    if (j == i) self = n;
    units[static_cast<std::size_t>(n)] = {pos + delta(pos, position_[j]), velocity_[j]};
    // Roles by id value, so they survive swap-remove reordering.
    const std::uint32_t v = id_[j].value;
    if (leader < 0 || v < lowest) { interceptor = leader; second = lowest; leader = n; lowest = v; }
    else if (interceptor < 0 || v < second) { interceptor = n; second = v; }
    ++n;
  }
  behavior::FlockContext ctx;
  ctx.units = std::span<const behavior::Mover>(units.data(), static_cast<std::size_t>(n));
  ctx.obstacles = scenario_.obstacles;
  ctx.view = static_cast<behavior::ViewModel>(g.view_model);
  ctx.leader = g.leader_unit ? leader : -1;
  behavior::FlockRole role = behavior::FlockRole::follower;
  if (g.leader_unit && self == leader) role = behavior::FlockRole::leader;
  else if (g.interceptor_unit && self == interceptor) role = behavior::FlockRole::interceptor;
  behavior::FlockUnitParams params;
  params.los.tolerance = g.los_tolerance;
  params.intercept.max_prediction = g.intercept_max_prediction;
  behavior::ChaseMode mode = chase_mode_[i];
  const behavior::FlockSteering fs = behavior::flock_unit_ai(self, cs, g.craft.length, role, ctx, params, mode);
  // Coverage: every unit gathers by its view model and applies the rules; the leader LOS-chases
  // (T21), the interceptor intercepts (T23/T24).
  for (const int id : {31, 32, 33, 34, 35, 36}) tally.add(id);
  if (role == behavior::FlockRole::leader) tally.add(21);
  if (role == behavior::FlockRole::interceptor) {
    tally.add(23);
    tally.add(24);
  }
  chase_mode_[i] = mode;  // own state only
  return fs;
}

behavior::Thrusters World::pattern_thrusters(std::int32_t i, const behavior::CraftState& cs) {
  std::span<const behavior::PhysicsInstruction> pattern;
  switch (scenario_.groups[group_[i]].pattern) {
    case PatternKind::kSquare: pattern = behavior::kSquarePattern; break;
    case PatternKind::kZigZag: pattern = behavior::kZigZagPattern; break;
    case PatternKind::kArbitrary: pattern = behavior::kArbitraryPattern; break;
  }
  behavior::Thrusters t{};
  behavior::run_repeating_pattern(pattern_[i], pattern, cs, behavior::DoPatternParams{}, t);
  return t;
}

}  // namespace flockstep::sim
