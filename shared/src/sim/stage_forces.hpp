#pragma once
/// \file stage_forces.hpp
/// The force-model behaviours that read only the agent, its neighbours' motion and the static
/// scene (wall and obstacle avoidance, flee from players, seek/arrive/flee/pursue/evade/hide,
/// offset pursuit and interpose) as one rule each, for one agent, over an environment that says
/// where the others are. The World runs them in its batch loops (world_behaviors.cpp, over its
/// columns) and the Extrapolator once per remote agent (extrapolate.cpp, over a snapshot), so a
/// rule lives here once. Inline templates: the World's loops inline them per lane.
/// Private: not installed.
///
/// The environment `Env` is any type with these members (all `const`):
///   const Scenario& scenario();                           // walls, obstacles, the centre
///   Vec2 delta(Vec2 from, Vec2 to);                       // shortest offset (torus-aware)
///   std::span<const Circle> obstacles_near(Vec2 p);       // at least every obstacle that can matter at p
///   std::int32_t nearest_player(Vec2 p, real* distance);  // -1: none
///   std::int32_t nearest_in_group(std::int32_t group, std::int32_t self, Vec2 p);  // never self; -1: none
///   std::int32_t leader(std::int32_t group);              // the group's leader (lowest id), -1: none
///   Vec2 position(j), velocity(j), heading(j); std::int32_t group(j);  // agent j by index
#include <cstdint>

#include "flockstep/behavior/avoid.hpp"
#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/compose.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim::stage {

using math::real;
using math::Vec2;

/// What one force-model behaviour did for one agent this tick.
struct ForceStep {
  Vec2 force{};                                ///< N; meaningful when `produced`
  bool produced = false;                       ///< false: no output (the combiners skip it)
  BehaviorState state = BehaviorState::kNone;  ///< what the agent is doing now; kNone: unchanged
  std::int32_t target = -1;                    ///< index of the agent it aimed at; -1: none
  bool aims = false;                           ///< `aim` is where it steers (the inspector's line)
  Vec2 aim{};
  /// The catalog IDs whose rule produced the force (0: none), for the World's counters.
  std::int8_t technique[2] = {0, 0};
  void credit(int a, int b = 0) {
    technique[0] = static_cast<std::int8_t>(a);
    technique[1] = static_cast<std::int8_t>(b);
  }
  void aim_at(Vec2 p) {
    aims = true;
    aim = p;
  }
};

/// Agent j as one at `from` sees it: at its copy nearest to `from` (the torus), with its velocity.
template <class Env>
inline behavior::Mover mover_at(const Env& env, std::int32_t j, Vec2 from) {
  return {from + env.delta(from, env.position(j)), env.velocity(j)};
}

/// A behaviour's target: the nearest agent of `target_group` (never `self`), or the nearest
/// player when the group is negative; -1 when there is none.
template <class Env>
inline std::int32_t target_of(const Env& env, std::int32_t target_group, std::int32_t self, Vec2 p) {
  return target_group >= 0 ? env.nearest_in_group(target_group, self, p) : env.nearest_player(p, nullptr);
}

/// T75 wall avoidance with the group's feelers; nothing when the scene has no walls.
template <class Env>
inline ForceStep wall_avoid(const Env& env, const BehaviorSpec&, const GroupSpec& g, std::int32_t,
                            const behavior::Body& body) {
  ForceStep r;
  if (env.scenario().walls.empty()) return r;
  r.force = behavior::wall_avoidance_force(body, env.scenario().walls, g.feelers);
  r.produced = true;
  r.credit(75);
  if (!math::is_zero(r.force)) r.state = BehaviorState::kAvoiding;
  return r;
}

/// T73 obstacle avoidance (its detection box in the agent's local frame, T11); nothing when no
/// obstacle is near.
template <class Env>
inline ForceStep obstacle_avoid(const Env& env, const BehaviorSpec&, const GroupSpec& g, std::int32_t,
                                const behavior::Body& body) {
  ForceStep r;
  const std::span<const Circle> near = env.obstacles_near(body.position);
  if (near.empty()) return r;
  r.force = behavior::obstacle_avoidance_force(body, near, g.detection);
  r.produced = true;
  r.credit(73, 11);
  if (!math::is_zero(r.force)) r.state = BehaviorState::kAvoiding;
  return r;
}

/// T65 flee from the nearest player inside the panic range (the spec's range, else the group's).
template <class Env>
inline ForceStep flee_players(const Env& env, const BehaviorSpec& bs, const GroupSpec& g, std::int32_t,
                              const behavior::Body& body) {
  ForceStep r;
  const real range = bs.range > 0 ? bs.range : g.panic_range;
  real d = math::kInfinity;
  const std::int32_t pj = env.nearest_player(body.position, &d);
  if (pj < 0 || !(d < range)) return r;
  r.force = behavior::flee_force(body, body.position + env.delta(body.position, env.position(pj)), range);
  r.produced = true;
  r.credit(65);
  r.state = BehaviorState::kFleeing;
  r.target = pj;
  return r;
}

/// T64 seek, T66 arrive, T65 flee, T67 pursue, T68 evade and T74 hide (whose fall-back is evade),
/// toward the spec's goal point (seek and arrive) or the nearest target; with no target the agent
/// idles toward the world's centre (flee has nothing to flee from).
template <class Env>
inline ForceStep seek_like(const Env& env, const BehaviorSpec& bs, const GroupSpec& g, std::int32_t self,
                           const behavior::Body& body) {
  ForceStep r;
  r.produced = true;
  const Vec2 pos = body.position;
  const bool seek_like = bs.type == BehaviorType::kSeek || bs.type == BehaviorType::kArrive;
  if (seek_like && !math::is_zero(bs.goal)) {
    r.aim_at(pos + env.delta(pos, bs.goal));
    r.force = bs.type == BehaviorType::kSeek ? behavior::seek_force(body, r.aim)
                                             : behavior::arrive_force(body, r.aim, bs.deceleration);
    r.credit(bs.type == BehaviorType::kSeek ? 64 : 66);
    r.state = BehaviorState::kSeeking;
    return r;
  }
  const std::int32_t tj = target_of(env, bs.target_group, self, pos);
  if (tj < 0) {
    // No target (no player yet, or the target group is empty).
    const Vec2 centre{env.scenario().width / 2, env.scenario().height / 2};
    if (bs.type != BehaviorType::kFlee) {
      r.force = behavior::arrive_force(body, centre, g.arrive_deceleration);
      r.credit(66);
    }
    if (seek_like) {
      r.aim_at(centre);
      r.state = BehaviorState::kSeeking;
    }
    return r;
  }
  const behavior::Mover tm = mover_at(env, tj, pos);
  r.target = tj;
  switch (bs.type) {
    case BehaviorType::kSeek:
      r.force = behavior::seek_force(body, tm.position);
      r.aim_at(tm.position);
      r.state = BehaviorState::kSeeking;
      r.credit(64);
      break;
    case BehaviorType::kArrive:
      r.force = behavior::arrive_force(body, tm.position, bs.deceleration);
      r.aim_at(tm.position);
      r.state = BehaviorState::kSeeking;
      r.credit(66);
      break;
    case BehaviorType::kPursue:
      r.force = behavior::pursue_force(body, tm);
      r.aim_at(behavior::pursue_point(body, tm));
      r.state = BehaviorState::kSeeking;
      r.credit(67);
      break;
    case BehaviorType::kEvade:
      r.force = behavior::evade_force(body, tm);
      r.state = BehaviorState::kFleeing;
      r.credit(68);
      break;
    case BehaviorType::kFlee:
      r.force = behavior::flee_force(body, tm.position, bs.range > 0 ? bs.range : math::kInfinity);
      r.aim_at(tm.position);
      if (!math::is_zero(r.force)) {  // outside the range flee_force has nothing to do
        r.state = BehaviorState::kFleeing;
        r.credit(65);
      }
      break;
    default: {  // kHide
      behavior::HideDebug dbg{};
      r.force = behavior::hide_force(body, tm, env.scenario().obstacles, g.hide, &dbg);
      // Hide's own rule chose to hide or to ignore the hunter (T74); its fall-back is evade (T68).
      r.credit(dbg.action == behavior::HideAction::kEvade ? 68 : 74);
      r.aim_at(dbg.action == behavior::HideAction::kHide ? dbg.spot : pos);
      r.state = BehaviorState::kHiding;
      break;
    }
  }
  return r;
}

/// T69 offset pursuit of the group's leader (the offset in the leader's local frame, T11) and
/// T70 interpose between the nearest target and the leader. The leader itself, and an agent
/// whose group has no leader, produce a zero force.
template <class Env>
inline ForceStep leader(const Env& env, const BehaviorSpec& bs, const GroupSpec&, std::int32_t self,
                        const behavior::Body& body) {
  ForceStep r;
  r.produced = true;
  const std::int32_t li = env.leader(bs.leader_group);
  if (li < 0 || li == self) return r;
  const Vec2 pos = body.position;
  if (bs.type == BehaviorType::kOffsetPursuit) {
    const GroupSpec& lg = env.scenario().groups[static_cast<std::size_t>(env.group(li))];
    const behavior::Body lb{pos + env.delta(pos, env.position(li)),
                            env.velocity(li),
                            env.heading(li),
                            lg.mass,
                            lg.max_force,
                            lg.max_speed,
                            lg.radius};
    r.force = behavior::offset_pursuit_force(body, lb, bs.offset, behavior::OffsetFrame::kLeaderLocal, bs.deceleration);
    r.credit(69, 11);
    r.target = li;
    r.aim_at(math::to_world_point(bs.offset, lb.position, lb.heading));
    r.state = BehaviorState::kSeeking;
    return r;
  }
  const std::int32_t tj = target_of(env, bs.target_group, self, pos);
  if (tj < 0) return r;
  const behavior::Mover tm = mover_at(env, tj, pos);
  const behavior::Mover lm = mover_at(env, li, pos);
  r.force = behavior::interpose_force(body, tm, lm, bs.deceleration);
  r.credit(70);
  r.aim_at(behavior::interpose_point(body, tm, lm));
  r.target = tj;
  r.state = BehaviorState::kSeeking;
  return r;
}

/// The rule of behaviour type `bs.type` if it is one of the above; otherwise no output.
template <class Env>
inline ForceStep vehicle_force(const Env& env, const BehaviorSpec& bs, const GroupSpec& g, std::int32_t self,
                               const behavior::Body& body) {
  switch (bs.type) {
    case BehaviorType::kWallAvoid: return wall_avoid(env, bs, g, self, body);
    case BehaviorType::kObstacleAvoid: return obstacle_avoid(env, bs, g, self, body);
    case BehaviorType::kFleePlayers: return flee_players(env, bs, g, self, body);
    case BehaviorType::kSeek:
    case BehaviorType::kArrive:
    case BehaviorType::kFlee:
    case BehaviorType::kPursue:
    case BehaviorType::kEvade:
    case BehaviorType::kHide: return seek_like(env, bs, g, self, body);
    case BehaviorType::kOffsetPursuit:
    case BehaviorType::kInterpose: return leader(env, bs, g, self, body);
    default: return {};
  }
}

}  // namespace flockstep::sim::stage
