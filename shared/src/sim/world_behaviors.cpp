// One batch function per behaviour family of the force models: each runs its behaviour over the
// lanes of a group's batch through Batch::each (the shared prologue), and a table indexed by
// BehaviorType picks the function. Each calls the library function of its technique.
#include <array>
#include <utility>

#include "flockstep/behavior/collision_avoidance.hpp"
#include "flockstep/behavior/motion.hpp"
#include "flockstep/behavior/path.hpp"
#include "flockstep/behavior/steering.hpp"
#include "world_compose_internal.hpp"

namespace flockstep::sim {

void WorldImpl::Behaviors::wall_avoid(const Batch& b) {
  World& w = b.w;
  if (w.scenario_.walls.empty()) return;
  b.each([&](Lane& L, LaneOutput& e) {
    e.o.linear = behavior::wall_avoidance_force(b.body_of(L), w.scenario_.walls, b.g.feelers);
    b.sink.count(75);
    if (!math::is_zero(e.o.linear)) L.st = BehaviorState::kAvoiding;
    e.produced = true;
  });
}

void WorldImpl::Behaviors::obstacle_avoid(const Batch& b) {
  b.each([&](Lane& L, LaneOutput& e) {
    const std::span<const Circle> near = b.w.obstacles_near(L.pos);
    if (near.empty()) return;
    e.o.linear = behavior::obstacle_avoidance_force(b.body_of(L), near, b.g.detection);
    b.sink.count(73);
    b.sink.count(11);  // the detection box in the agent's local frame
    if (!math::is_zero(e.o.linear)) L.st = BehaviorState::kAvoiding;
    e.produced = true;
  });
}

void WorldImpl::Behaviors::flee_players(const Batch& b) {
  World& w = b.w;
  const real range = b.bs.range > 0 ? b.bs.range : b.g.panic_range;
  b.each([&](Lane& L, LaneOutput& e) {
    real d = math::kInfinity;
    const std::int32_t pj = w.nearest_player(L.pos, &d);
    if (pj < 0 || !(d < range)) return;
    e.o.linear = behavior::flee_force(b.body_of(L), L.pos + w.delta(L.pos, w.position_[pj]), range);
    b.sink.count(65);
    L.st = BehaviorState::kFleeing;
    L.target = w.id_[pj];
    e.produced = true;
  });
}

void WorldImpl::Behaviors::flock(const Batch& b) {
  World& w = b.w;
  behavior::Neighbour nb[kMaxNeighbours];  // once per batch: Neighbour zero-fills on construction
  CellRanges cells;
  behavior::FlockSums sums[kComposeBatch];  // by lane index
  b.each_in_two([&](Lane& L) { sums[&L - b.lanes] = flock_sums_at(w, b.g, b.gi, L.k, nb, cells); },
                [&](Lane& L, LaneOutput& e) {
                  e.o.linear = flock_force_from_sums(w, b.g, L.k, sums[&L - b.lanes]);
                  b.sink.count(76);
                  b.sink.count(31);
                  b.sink.count(32);
                  if (b.g.flock.w_wander > 0) b.sink.count(71);
                  if (L.st == BehaviorState::kNone) L.st = BehaviorState::kSeeking;
                  e.produced = true;
                });
}

void WorldImpl::Behaviors::seek_like(const Batch& b) {
  World& w = b.w;
  const BehaviorSpec& bs = b.bs;
  const Vec2 centre{w.scenario_.width / 2, w.scenario_.height / 2};
  const bool seek_like = bs.type == BehaviorType::kSeek || bs.type == BehaviorType::kArrive;
  const bool to_goal = seek_like && !math::is_zero(bs.goal);
  b.each([&](Lane& L, LaneOutput& e) {
    const behavior::Body body = b.body_of(L);
    Vec2 tpos;
    behavior::Mover tm;
    const std::int32_t tj = to_goal ? -1 : b.target_of(L, tpos, tm);
    e.produced = true;
    if (to_goal) {
      L.aim = L.pos + w.delta(L.pos, bs.goal);
      e.o.linear = bs.type == BehaviorType::kSeek ? behavior::seek_force(body, L.aim)
                                                  : behavior::arrive_force(body, L.aim, bs.deceleration);
      b.sink.count(bs.type == BehaviorType::kSeek ? 64 : 66);
      L.st = BehaviorState::kSeeking;
      return;
    }
    if (tj < 0) {
      // No target (no player yet, or the target group is empty): idle at the world centre;
      // flee has nothing to flee from.
      if (bs.type != BehaviorType::kFlee) {
        e.o.linear = behavior::arrive_force(body, centre, b.g.arrive_deceleration);
        b.sink.count(66);
      }
      if (seek_like) {
        L.aim = centre;
        L.st = BehaviorState::kSeeking;
      }
      return;
    }
    L.target = w.id_[tj];
    switch (bs.type) {
      case BehaviorType::kSeek:
        e.o.linear = behavior::seek_force(body, tpos);
        L.aim = tpos;
        L.st = BehaviorState::kSeeking;
        b.sink.count(64);
        break;
      case BehaviorType::kArrive:
        e.o.linear = behavior::arrive_force(body, tpos, bs.deceleration);
        L.aim = tpos;
        L.st = BehaviorState::kSeeking;
        b.sink.count(66);
        break;
      case BehaviorType::kPursue:
        e.o.linear = behavior::pursue_force(body, tm);
        L.aim = behavior::pursue_point(body, tm);
        L.st = BehaviorState::kSeeking;
        b.sink.count(67);
        break;
      case BehaviorType::kEvade:
        e.o.linear = behavior::evade_force(body, tm);
        L.st = BehaviorState::kFleeing;
        b.sink.count(68);
        break;
      case BehaviorType::kFlee:
        e.o.linear = behavior::flee_force(body, tpos, bs.range > 0 ? bs.range : math::kInfinity);
        L.aim = tpos;
        if (!math::is_zero(e.o.linear)) {  // outside the range flee_force has nothing to do
          L.st = BehaviorState::kFleeing;
          b.sink.count(65);
        }
        break;
      default: {  // kHide
        behavior::HideDebug dbg{};
        e.o.linear = behavior::hide_force(body, tm, w.scenario_.obstacles, b.g.hide, &dbg);
        // Hide's own rule chose to hide or to ignore the hunter (T74); its fall-back is evade (T68).
        b.sink.count(dbg.action == behavior::HideAction::kEvade ? 68 : 74);
        L.aim = dbg.action == behavior::HideAction::kHide ? dbg.spot : L.pos;
        L.st = BehaviorState::kHiding;
        break;
      }
    }
  });
}

void WorldImpl::Behaviors::leader(const Batch& b) {
  World& w = b.w;
  const BehaviorSpec& bs = b.bs;
  const std::int32_t li = w.leader_index_[static_cast<std::size_t>(bs.leader_group)];
  b.each([&](Lane& L, LaneOutput& e) {
    e.produced = true;
    if (li < 0 || li == L.i) return;
    const behavior::Body body = b.body_of(L);
    if (bs.type == BehaviorType::kOffsetPursuit) {
      const GroupSpec& lg = w.scenario_.groups[static_cast<std::size_t>(w.group_[li])];
      const behavior::Body leader{L.pos + w.delta(L.pos, w.position_[li]),
                                  w.velocity_[li],
                                  w.heading_[li],
                                  lg.mass,
                                  lg.max_force,
                                  lg.max_speed,
                                  lg.radius};
      e.o.linear =
          behavior::offset_pursuit_force(body, leader, bs.offset, behavior::OffsetFrame::kLeaderLocal, bs.deceleration);
      b.sink.count(69);
      b.sink.count(11);  // the offset in the leader's local frame
      L.target = w.id_[li];
      L.aim = math::to_world_point(bs.offset, leader.position, leader.heading);
      L.st = BehaviorState::kSeeking;
    } else {
      Vec2 tpos;
      behavior::Mover tm;
      const std::int32_t tj = b.target_of(L, tpos, tm);
      if (tj < 0) return;
      const behavior::Mover leader{L.pos + w.delta(L.pos, w.position_[li]), w.velocity_[li]};
      e.o.linear = behavior::interpose_force(body, tm, leader, bs.deceleration);
      b.sink.count(70);
      L.aim = behavior::interpose_point(body, tm, leader);
      L.target = w.id_[tj];
      L.st = BehaviorState::kSeeking;
    }
  });
}

void WorldImpl::Behaviors::wander(const Batch& b) {
  World& w = b.w;
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::WanderState& ws = w.slot_wander_[L.k];  // own state only: no other agent reads it
    e.o.linear = behavior::wander_force(b.body_of(L), b.g.wander, ws, w.slot_rng_[L.k], w.dt_);
    b.sink.count(71);
    L.aim = math::to_world_point(ws.target_local + Vec2{b.g.wander.distance, 0}, L.pos, L.head);
    e.produced = true;
  });
}

void WorldImpl::Behaviors::follow_waypoints(const Batch& b) {
  World& w = b.w;
  const PathSpec& path = w.scenario_.paths[static_cast<std::size_t>(b.bs.path)];
  const behavior::WaypointParams wp{b.g.waypoint_seek_distance, b.bs.deceleration, path.loop};
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::WaypointState ws = w.waypoint_[L.i];
    e.o.linear = behavior::follow_waypoints_force(b.body_of(L), path.points, wp, ws);
    b.sink.count(72);
    w.waypoint_[L.i] = ws;
    L.aim = path.points[static_cast<std::size_t>(ws.current)];
    L.st = BehaviorState::kPatrolling;
    e.produced = true;
  });
}

// ---- Millington's steering behaviours: accelerations on a Kinematic ----

void WorldImpl::Behaviors::dynamic_point(const Batch& b) {
  World& w = b.w;
  const BehaviorSpec& bs = b.bs;
  const real accel = b.accel();
  const bool has_goal = !math::is_zero(bs.goal);
  b.each([&](Lane& L, LaneOutput& e) {
    Vec2 tpos;
    behavior::Mover tm;
    Vec2 point;
    if (has_goal) {
      point = L.pos + w.delta(L.pos, bs.goal);
    } else {
      const std::int32_t tj = b.target_of(L, tpos, tm);
      if (tj < 0) return;
      L.target = w.id_[tj];
      point = tpos;
    }
    const behavior::Kinematic k = b.kin_of(L);
    e.produced = true;
    L.aim = point;
    switch (bs.type) {
      case BehaviorType::kDynamicSeek:
        e.o = behavior::dynamic_seek(k, point, {accel});
        L.st = BehaviorState::kSeeking;
        b.sink.count(42);
        break;
      case BehaviorType::kDynamicFlee:
        e.o = behavior::dynamic_flee(k, point, {accel});
        L.st = BehaviorState::kFleeing;
        b.sink.count(43);
        break;
      case BehaviorType::kDynamicArrive: {
        behavior::ArriveParams ap;
        ap.max_acceleration = accel;
        ap.max_speed = b.g.max_speed;
        ap.slow_radius = bs.slow_radius;
        ap.target_radius = bs.target_radius;
        ap.time_to_target = bs.time_to_target;
        ap.brake_inside_target = true;  // settle on the point rather than drift (T44 refinement)
        e.o = behavior::dynamic_arrive(k, point, ap);
        L.st = BehaviorState::kSeeking;
        b.sink.count(44);
        break;
      }
      default:
        e.o = behavior::face(k, point, align_params(bs));
        b.sink.count(49);
        b.sink.count(41);  // face delegates to align
        break;
    }
  });
}

void WorldImpl::Behaviors::dynamic_target(const Batch& b) {
  World& w = b.w;
  const BehaviorSpec& bs = b.bs;
  const real accel = b.accel();
  b.each([&](Lane& L, LaneOutput& e) {
    Vec2 tpos;
    behavior::Mover tm;
    const std::int32_t tj = b.target_of(L, tpos, tm);
    if (tj < 0) return;
    // Evade's panic range: beyond it no output, so a lower priority (arrive home) can win.
    if (bs.type == BehaviorType::kDynamicEvade && bs.range > 0 && math::length_sq(tpos - L.pos) > bs.range * bs.range)
      return;
    const behavior::Kinematic k = b.kin_of(L);
    e.produced = true;
    L.target = w.id_[tj];
    L.aim = tpos;
    // Pursue and evade delegate to seek / flee (T41) toward a predicted surrogate point.
    auto delegated = [&](const behavior::Delegated<Vec2>& d, int id, BehaviorState st) {
      b.sink.count(id);
      b.sink.count(41);
      e.o = d.steering;
      L.aim = d.surrogate;
      L.st = st;
    };
    switch (bs.type) {
      case BehaviorType::kAlign:
        e.o = behavior::align(k, w.orientation_at(tj), align_params(bs));
        b.sink.count(45);
        break;
      case BehaviorType::kVelocityMatch:
        e.o = behavior::velocity_match(k, tm.velocity, {accel, bs.time_to_target});
        b.sink.count(46);
        break;
      case BehaviorType::kDynamicPursue: {
        behavior::DynamicPursueParams pp;
        pp.prediction.max_prediction = bs.max_prediction;
        pp.base = bs.arrive ? behavior::PursueBase::arrive : behavior::PursueBase::seek;
        pp.seek.max_acceleration = accel;
        pp.arrive.max_acceleration = accel;
        pp.arrive.max_speed = b.g.max_speed;
        pp.arrive.slow_radius = bs.slow_radius;
        pp.arrive.target_radius = bs.target_radius;
        pp.arrive.time_to_target = bs.time_to_target;
        delegated(behavior::dynamic_pursue_delegated(k, tm, pp), 47, BehaviorState::kSeeking);
        break;
      }
      default: {
        behavior::DynamicEvadeParams ep;
        ep.prediction.max_prediction = bs.max_prediction;
        ep.flee.max_acceleration = accel;
        delegated(behavior::dynamic_evade_delegated(k, tm, ep), 48, BehaviorState::kFleeing);
        break;
      }
    }
  });
}

void WorldImpl::Behaviors::look_where_going(const Batch& b) {
  b.each([&](Lane& L, LaneOutput& e) {
    e.put(behavior::look_where_you_are_going(b.kin_of(L), align_params(b.bs)));
    b.sink.count(50);
    b.sink.count(41);
  });
}

void WorldImpl::Behaviors::dynamic_wander(const Batch& b) {
  World& w = b.w;
  behavior::DynamicWanderParams wp;
  wp.max_acceleration = b.accel();
  if (b.bs.range > 0) wp.wander_radius = b.bs.range;
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::DynamicWanderState ws = w.dyn_wander_[L.i];
    const behavior::DynamicWanderOutput o = behavior::dynamic_wander(b.kin_of(L), ws, wp, w.slot_rng_[L.k]);
    b.sink.count(51);
    b.sink.count(13);  // the wander orientation moves by a binomial draw
    b.sink.count(41);
    w.dyn_wander_[L.i] = ws;
    e.put(o.steering);
    L.aim = o.target;
  });
}

void WorldImpl::Behaviors::follow_path(const Batch& b) {
  World& w = b.w;
  const BehaviorSpec& bs = b.bs;
  const real accel = b.accel();
  const behavior::LinePath path = w.line_paths_[static_cast<std::size_t>(bs.path)].view();
  behavior::PredictivePathFollowParams pp;
  pp.follow.path_offset = bs.path_offset;
  pp.follow.seek.max_acceleration = accel;
  pp.follow.arrive.max_acceleration = accel;
  pp.follow.arrive.max_speed = b.g.max_speed;
  pp.predict_time = bs.predict_time;
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::PathFollowState ps = w.path_state_[L.i];
    const behavior::PathFollowOutput o = bs.predict_time > 0
                                             ? behavior::follow_path_predictive(b.kin_of(L), path, ps, pp)
                                             : behavior::follow_path(b.kin_of(L), path, ps, pp.follow);
    w.path_state_[L.i] = ps;
    b.sink.count(52);
    b.sink.count(54);  // the scenario path as a parameterised line path
    b.sink.count(41);
    if (bs.predict_time > 0) b.sink.count(53);
    e.put(o.steering);
    L.aim = o.target;
    L.st = BehaviorState::kPatrolling;
  });
}

void WorldImpl::Behaviors::neighbours(const Batch& b) {
  // The catalog ID each neighbour behaviour counts (Millington's flock also counts T31 below).
  int id = 63;
  switch (b.bs.type) {
    case BehaviorType::kSeparation: id = 55; break;
    case BehaviorType::kAttraction: id = 56; break;
    case BehaviorType::kConeAvoid: id = 57; break;
    case BehaviorType::kCollisionAvoid: id = 58; break;
    default: break;
  }
  const bool reynolds = id == 63;
  b.each([&](Lane& L, LaneOutput& e) {
    e.put(b.w.neighbour_behavior(b.g, b.gi, b.bs, L.i, L.k, &L.st));
    b.sink.count(id);
    if (reynolds) b.sink.count(31);  // Reynolds' three rules, blended
  });
}

WorldImpl::Behaviors::Fn WorldImpl::Behaviors::of(BehaviorType t) {
  // One row per BehaviorType, in the enum's order (checked below at compile time).
  using T = BehaviorType;
  static constexpr std::pair<T, Fn> kTable[] = {
      {T::kWallAvoid, wall_avoid},
      {T::kObstacleAvoid, obstacle_avoid},
      {T::kFleePlayers, flee_players},
      {T::kFlock, flock},
      {T::kSeek, seek_like},
      {T::kFlee, seek_like},
      {T::kArrive, seek_like},
      {T::kPursue, seek_like},
      {T::kEvade, seek_like},
      {T::kOffsetPursuit, leader},
      {T::kInterpose, leader},
      {T::kWander, wander},
      {T::kFollowWaypoints, follow_waypoints},
      {T::kHide, seek_like},
      {T::kDynamicSeek, dynamic_point},
      {T::kDynamicFlee, dynamic_point},
      {T::kDynamicArrive, dynamic_point},
      {T::kAlign, dynamic_target},
      {T::kVelocityMatch, dynamic_target},
      {T::kDynamicPursue, dynamic_target},
      {T::kDynamicEvade, dynamic_target},
      {T::kFace, dynamic_point},
      {T::kLookWhereGoing, look_where_going},
      {T::kDynamicWander, dynamic_wander},
      {T::kFollowPath, follow_path},
      {T::kSeparation, neighbours},
      {T::kAttraction, neighbours},
      {T::kConeAvoid, neighbours},
      {T::kCollisionAvoid, neighbours},
      {T::kMillingtonFlock, neighbours},
  };
  static_assert(std::size(kTable) == static_cast<std::size_t>(T::kCount), "one row per behaviour type");
  static_assert(
      [] {
        for (std::size_t q = 0; q < std::size(kTable); ++q)
          if (static_cast<std::size_t>(kTable[q].first) != q) return false;
        return true;
      }(),
      "rows in BehaviorType order");
  const auto q = static_cast<std::size_t>(t);
  FLOCKSTEP_ASSERT(q < std::size(kTable));  // validate_composition admits only listed types
  return kTable[q].second;
}

}  // namespace flockstep::sim
