#include "stage_craft.hpp"

#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/behavior/physics_pattern.hpp"
#include "flockstep/math/angle.hpp"
#include "flockstep/sim/model_params.hpp"

namespace flockstep::sim {

behavior::CraftState step_craft(behavior::CraftState cs, const behavior::CraftParams& craft,
                                const behavior::Thrusters& thrusters, real dt) {
  behavior::craft_step(cs, craft, thrusters, dt);
  cs.orientation = math::wrap_angle(cs.orientation);
  return cs;
}

CraftChase chase_craft(const GroupSpec& g, const behavior::CraftState& cs, const behavior::Mover* prey, Vec2 centre,
                       behavior::ChaseMode& mode) {
  const behavior::LosChaseParams los = los_chase_params(g);
  CraftChase out;
  if (g.technique == Technique::kIntercept && prey) {
    const behavior::InterceptChaseOutput ic = behavior::intercept_chase(cs, *prey, intercept_params(g), los, mode);
    out.thrusters = ic.thrusters;
    out.aim = ic.aim.point;
    out.state =
        ic.aim.mode == behavior::ChaseMode::intercept ? BehaviorState::kIntercepting : BehaviorState::kLosFallback;
    return out;
  }
  // Line of sight: the LOS chaser always, the interceptor while it has no prey (to the centre).
  out.aim = prey ? prey->position : centre;
  out.thrusters = behavior::los_chase_thrusters(cs, out.aim, los);
  if (prey && g.technique == Technique::kLosChase) out.state = BehaviorState::kSeeking;
  return out;
}

namespace {

/// The physics pattern's thrusters for craft state `cs` (T29/T30), advancing `tracking`.
behavior::Thrusters pattern_thrusters(PatternKind kind, behavior::PatternTracking& tracking,
                                      const behavior::CraftState& cs) {
  std::span<const behavior::PhysicsInstruction> pattern;
  switch (kind) {
    case PatternKind::kSquare: pattern = behavior::kSquarePattern; break;
    case PatternKind::kZigZag: pattern = behavior::kZigZagPattern; break;
    case PatternKind::kArbitrary: pattern = behavior::kArbitraryPattern; break;
  }
  behavior::Thrusters t{};
  behavior::run_repeating_pattern(tracking, pattern, cs, behavior::DoPatternParams{}, t);
  return t;
}

}  // namespace

void steer_craft_agent(const CraftSteerColumns& c, std::int32_t i, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  const behavior::CraftState cs{c.position[at], c.velocity[at], c.orientation[at], c.angular_velocity[at]};
  behavior::Thrusters t{};
  AgentId target{};
  Vec2 aim = c.position[at];
  BehaviorState st = BehaviorState::kNone;
  if (c.kind[at] == AgentKind::kPlayer) {
    t = player_thrusters(c.input[at]);  // for viewers; move_craft_agent runs step_player itself
  } else {
    const GroupSpec& g = c.groups[static_cast<std::size_t>(c.group[at])];
    real player_dist = math::kInfinity;
    // The target: the nearest player, or the nearest agent of target_group.
    const std::int32_t pj = c.targets.nearest(g.target_group, i, c.position[at], &player_dist);
    const auto pat = static_cast<std::size_t>(pj);
    switch (g.technique) {
      case Technique::kLosChase:
      case Technique::kIntercept: {
        // The prey at its copy nearest the chaser (shared with the Extrapolator).
        const behavior::Mover prey{
            pj >= 0 ? c.position[at] + c.targets.plane.delta(c.position[at], c.position[pat]) : Vec2{},
            pj >= 0 ? c.velocity[pat] : Vec2{}};
        const CraftChase chase = chase_craft(g, cs, pj >= 0 ? &prey : nullptr, c.centre, c.chase_mode[at]);
        t = chase.thrusters;
        aim = chase.aim;
        st = chase.state;
        if (pj >= 0) target = c.id[pat];
        if (g.technique == Technique::kIntercept && pj >= 0) {
          tally.add(23);
          tally.add(24);  // the feasibility test and its fall-back
        } else {
          tally.add(21);
          if (g.technique == Technique::kLosChase) tally.add(11);  // the bearing in the craft's local frame
        }
        break;
      }
      case Technique::kPattern: {
        t = pattern_thrusters(g.pattern, c.pattern[at], cs);
        tally.add(29);
        tally.add(30);
        aim = c.pattern[at].initial_position;
        st = BehaviorState::kPatrolling;
        break;
      }
      case Technique::kBourgFlock: return;  // stepped whole by its group's loop, after the players moved
      default: break;
    }
  }
  c.thrusters[at] = t;
  c.target[at] = target;
  c.aim[at] = aim;
  c.state[at] = st;
}

bool move_craft_agent(const CraftMoveColumns& c, std::int32_t i, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  behavior::CraftState cs{c.position[at], c.velocity[at], c.orientation[at], c.angular_velocity[at]};
  bool confine = true;
  if (c.kind[at] == AgentKind::kPlayer) {
    // The one player step shared with every client's predictor (player.hpp); it confines the craft.
    step_player(cs, c.input[at], c.scenario, c.dt);
    confine = false;
  } else {
    const GroupSpec& g = c.scenario.groups[static_cast<std::size_t>(c.group[at])];
    // Bourg's flocking units move with their group, by AIDemo4's own loop.
    if (g.technique == Technique::kBourgFlock) return false;
    cs = step_craft(cs, g.craft, c.thrusters[at], c.dt);
    tally.add(10);  // the rigid-body craft
    tally.add(12);  // its angle kept wrapped
  }
  c.position[at] = cs.position;
  c.velocity[at] = cs.velocity;
  c.orientation[at] = cs.orientation;
  c.angular_velocity[at] = cs.angular_velocity;
  c.heading[at] = math::as_vector(c.orientation[at]);
  return confine;
}

}  // namespace flockstep::sim
