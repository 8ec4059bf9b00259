#pragma once
/// \file stage_forces.hpp
/// The force-model behaviours that read only the agent, its neighbours' motion and the static
/// scene (wall and obstacle avoidance, flee from players, seek/arrive/flee/pursue/evade/hide,
/// offset pursuit and interpose) as one rule each, for one agent, over an environment that says
/// where the others are. The World runs them in its batch loops (stage_compose_behaviors.cpp, over its
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
///
/// What a rule did goes to an output `Out`, any type with these members:
///   void force(Vec2 f);             // the rule produced f (N); not called: no output, the combiners skip it
///   void credit(int id);            // catalog ID id produced it (the World's counters)
///   void state(BehaviorState s);    // what the agent is doing now (not called: unchanged)
///   void target(std::int32_t j);    // the agent it aimed at (index)
///   void aim(Vec2 p);               // where it steers (the inspector's line)
/// The World's output writes straight into its lane and counters; the Extrapolator's keeps the
/// force. An output rather than a returned struct: inlined into the World's loop, a struct was
/// built and read back for every lane, measured at +1 % of the arena's tick instructions.
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

/// The agent a rule steers: its dense index and motion (its group gives mass and limits).
struct Agent {
  std::int32_t index;
  Vec2 position, velocity, heading;
};

/// The agent as a force-model body of group g. Built by each rule only where it needs one, so an
/// agent a rule skips early (no player near, no obstacle near) costs no copy.
inline behavior::Body body_of(const Agent& a, const GroupSpec& g) {
  return {a.position, a.velocity, a.heading, g.mass, g.max_force, g.max_speed, g.radius};
}

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

/// Whether the scene has walls at all: without, wall avoidance has nothing to do for anyone, and
/// the World skips the whole batch (its lazy combiners are not even asked, so a dithering
/// combiner draws nothing for it).
template <class Env>
inline bool has_walls(const Env& env) {
  return !env.scenario().walls.empty();
}

/// T75 wall avoidance with the group's feelers; nothing when the scene has no walls.
template <class Env, class Out>
inline void wall_avoid(const Env& env, const BehaviorSpec&, const GroupSpec& g, const Agent& a, Out& out) {
  if (!has_walls(env)) return;
  const Vec2 f = behavior::wall_avoidance_force(body_of(a, g), env.scenario().walls, g.feelers);
  out.force(f);
  out.credit(75);
  if (!math::is_zero(f)) out.state(BehaviorState::kAvoiding);
}

/// T73 obstacle avoidance (its detection box in the agent's local frame, T11); nothing when no
/// obstacle is near.
template <class Env, class Out>
inline void obstacle_avoid(const Env& env, const BehaviorSpec&, const GroupSpec& g, const Agent& a, Out& out) {
  const std::span<const Circle> near = env.obstacles_near(a.position);
  if (near.empty()) return;
  const Vec2 f = behavior::obstacle_avoidance_force(body_of(a, g), near, g.detection);
  out.force(f);
  out.credit(73);
  out.credit(11);  // the detection box in the agent's local frame
  if (!math::is_zero(f)) out.state(BehaviorState::kAvoiding);
}

/// T65 flee from the nearest player inside the panic range (the spec's range, else the group's).
template <class Env, class Out>
inline void flee_players(const Env& env, const BehaviorSpec& bs, const GroupSpec& g, const Agent& a, Out& out) {
  const real range = bs.range > 0 ? bs.range : g.panic_range;
  real d = math::kInfinity;
  const std::int32_t pj = env.nearest_player(a.position, &d);
  if (pj < 0 || !(d < range)) return;
  out.force(behavior::flee_force(body_of(a, g), a.position + env.delta(a.position, env.position(pj)), range));
  out.credit(65);
  out.state(BehaviorState::kFleeing);
  out.target(pj);
}

/// T64 seek, T66 arrive, T65 flee, T67 pursue, T68 evade and T74 hide (whose fall-back is evade),
/// toward the spec's goal point (seek and arrive) or the nearest target; with no target the agent
/// idles toward the world's centre (flee has nothing to flee from). Always an output (zero when
/// there is nothing to do).
template <class Env, class Out>
inline void seek_like(const Env& env, const BehaviorSpec& bs, const GroupSpec& g, const Agent& a, Out& out) {
  out.force({});
  const Vec2 pos = a.position;
  const behavior::Body body = body_of(a, g);
  const bool seek_like = bs.type == BehaviorType::kSeek || bs.type == BehaviorType::kArrive;
  if (seek_like && !math::is_zero(bs.goal)) {
    const Vec2 goal = pos + env.delta(pos, bs.goal);
    out.aim(goal);
    out.force(bs.type == BehaviorType::kSeek ? behavior::seek_force(body, goal)
                                             : behavior::arrive_force(body, goal, bs.deceleration));
    out.credit(bs.type == BehaviorType::kSeek ? 64 : 66);
    out.state(BehaviorState::kSeeking);
    return;
  }
  const std::int32_t tj = target_of(env, bs.target_group, a.index, pos);
  if (tj < 0) {
    // No target (no player yet, or the target group is empty).
    const Vec2 centre{env.scenario().width / 2, env.scenario().height / 2};
    if (bs.type != BehaviorType::kFlee) {
      out.force(behavior::arrive_force(body, centre, g.arrive_deceleration));
      out.credit(66);
    }
    if (seek_like) {
      out.aim(centre);
      out.state(BehaviorState::kSeeking);
    }
    return;
  }
  const behavior::Mover tm = mover_at(env, tj, pos);
  out.target(tj);
  switch (bs.type) {
    case BehaviorType::kSeek:
      out.force(behavior::seek_force(body, tm.position));
      out.aim(tm.position);
      out.state(BehaviorState::kSeeking);
      out.credit(64);
      break;
    case BehaviorType::kArrive:
      out.force(behavior::arrive_force(body, tm.position, bs.deceleration));
      out.aim(tm.position);
      out.state(BehaviorState::kSeeking);
      out.credit(66);
      break;
    case BehaviorType::kPursue:
      out.force(behavior::pursue_force(body, tm));
      out.aim(behavior::pursue_point(body, tm));
      out.state(BehaviorState::kSeeking);
      out.credit(67);
      break;
    case BehaviorType::kEvade:
      out.force(behavior::evade_force(body, tm));
      out.state(BehaviorState::kFleeing);
      out.credit(68);
      break;
    case BehaviorType::kFlee: {
      const Vec2 f = behavior::flee_force(body, tm.position, bs.range > 0 ? bs.range : math::kInfinity);
      out.force(f);
      out.aim(tm.position);
      if (!math::is_zero(f)) {  // outside the range flee_force has nothing to do
        out.state(BehaviorState::kFleeing);
        out.credit(65);
      }
      break;
    }
    default: {  // kHide
      behavior::HideDebug dbg{};
      out.force(behavior::hide_force(body, tm, env.scenario().obstacles, g.hide, &dbg));
      // Hide's own rule chose to hide or to ignore the hunter (T74); its fall-back is evade (T68).
      out.credit(dbg.action == behavior::HideAction::kEvade ? 68 : 74);
      out.aim(dbg.action == behavior::HideAction::kHide ? dbg.spot : pos);
      out.state(BehaviorState::kHiding);
      break;
    }
  }
}

/// T69 offset pursuit of the group's leader (the offset in the leader's local frame, T11) and
/// T70 interpose between the nearest target and the leader. Always an output: zero for the
/// leader itself, an agent whose group has no leader, and an interposer with no target.
template <class Env, class Out>
inline void leader(const Env& env, const BehaviorSpec& bs, const GroupSpec& g, const Agent& a, Out& out) {
  out.force({});
  const std::int32_t li = env.leader(bs.leader_group);
  if (li < 0 || li == a.index) return;
  const Vec2 pos = a.position;
  const behavior::Body body = body_of(a, g);
  if (bs.type == BehaviorType::kOffsetPursuit) {
    const GroupSpec& lg = env.scenario().groups[static_cast<std::size_t>(env.group(li))];
    const behavior::Body lb{pos + env.delta(pos, env.position(li)),
                            env.velocity(li),
                            env.heading(li),
                            lg.mass,
                            lg.max_force,
                            lg.max_speed,
                            lg.radius};
    out.force(
        behavior::offset_pursuit_force(body, lb, bs.offset, behavior::OffsetFrame::kLeaderLocal, bs.deceleration));
    out.credit(69);
    out.credit(11);  // the offset in the leader's local frame
    out.target(li);
    out.aim(math::to_world_point(bs.offset, lb.position, lb.heading));
    out.state(BehaviorState::kSeeking);
    return;
  }
  const std::int32_t tj = target_of(env, bs.target_group, a.index, pos);
  if (tj < 0) return;
  const behavior::Mover tm = mover_at(env, tj, pos);
  const behavior::Mover lm = mover_at(env, li, pos);
  out.force(behavior::interpose_force(body, tm, lm, bs.deceleration));
  out.credit(70);
  out.aim(behavior::interpose_point(body, tm, lm));
  out.target(tj);
  out.state(BehaviorState::kSeeking);
}

/// The rule of behaviour type `bs.type` if it is one of the above; otherwise no output.
template <class Env, class Out>
inline void vehicle_force(const Env& env, const BehaviorSpec& bs, const GroupSpec& g, const Agent& a, Out& out) {
  switch (bs.type) {
    case BehaviorType::kWallAvoid: return wall_avoid(env, bs, g, a, out);
    case BehaviorType::kObstacleAvoid: return obstacle_avoid(env, bs, g, a, out);
    case BehaviorType::kFleePlayers: return flee_players(env, bs, g, a, out);
    case BehaviorType::kSeek:
    case BehaviorType::kArrive:
    case BehaviorType::kFlee:
    case BehaviorType::kPursue:
    case BehaviorType::kEvade:
    case BehaviorType::kHide: return seek_like(env, bs, g, a, out);
    case BehaviorType::kOffsetPursuit:
    case BehaviorType::kInterpose: return leader(env, bs, g, a, out);
    default: return;
  }
}

}  // namespace flockstep::sim::stage
