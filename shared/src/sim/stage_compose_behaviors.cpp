// One batch function per behaviour family of the force models: each runs its behaviour over the
// lanes of a group's batch through Batch::each (the shared prologue), and a table indexed by
// BehaviorType picks the function. Each calls the library function of its technique.
#include <array>
#include <type_traits>
#include <utility>

#include "flockstep/behavior/collision_avoidance.hpp"
#include "flockstep/behavior/motion.hpp"
#include "flockstep/behavior/path.hpp"
#include "flockstep/behavior/steering.hpp"
#include "stage_compose_internal.hpp"

namespace flockstep::sim::compose_stage {

// The behaviours whose rules are shared with the Extrapolator (stage_forces.hpp): one batch
// function per rule, which runs it per lane over the World's columns and records what it did.
template <auto Rule, auto Scene>
void Behaviors::forces(const Batch& b) {
  const Env env{b.w};
  if constexpr (!std::is_null_pointer_v<decltype(Scene)>)
    if (!Scene(env)) return;
  b.each([&](Lane& L, LaneOutput& e) {
    LaneSink out{b, L, e};
    Rule(env, b.bs, b.g, stage::Agent{L.i, L.pos, L.vel, L.head}, out);
  });
}

void Behaviors::flock(const Batch& b) {
  const ComposeTables& w = b.w;
  behavior::Neighbour nb[kMaxNeighbours];  // once per batch: Neighbour zero-fills on construction
  CellRanges cells;
  // By lane index; the kernel writes each lane's sums here itself (not through a returned copy:
  // flocking_lanes.hpp says why).
  behavior::LaneFlockResult sums[kComposeBatch];
  std::int32_t flocked = 0;  // lanes whose flock force this batch produced, credited once below
  b.each_in_two([&](Lane& L) { flock_sums_at(w, b.g, b.gi, L.k, L.i, nb, cells, sums[&L - b.lanes]); },
                [&](Lane& L, LaneOutput& e) {
                  e.o.linear = flock_force_from_sums(w, b.g, L.i, sums[&L - b.lanes].sums);
                  ++flocked;
                  if (L.st == BehaviorState::kNone) L.st = BehaviorState::kSeeking;
                  e.produced = true;
                });
  // Each produced force ran the neighbourhood (T31) with its field of view (T32), the sums (T76)
  // and, when weighted, wander (T71).
  b.sink.count(76, flocked);
  b.sink.count(31, flocked);
  b.sink.count(32, flocked);
  if (b.g.flock.w_wander > 0) b.sink.count(71, flocked);
}

void Behaviors::obstacle_avoid(const Batch& b) {
  const ComposeTables& w = b.w;
  if (w.obstacles.empty()) return;  // the rule would find every list empty
  if (!w.obstacle_cells_are_grid_cells) return forces<stage::obstacle_avoid<Env, LaneSink>>(b);
  // The rule asks the environment for the obstacles near the agent: here the list of the cell
  // the grid sorted it into this tick, which is the cell ObstacleGrid::near would compute from
  // the same position (the same expression over the same partition), without computing it. The
  // batch's slots ascend, so the cell changes about once per four agents at flock density.
  struct CellEnv : Env {
    std::span<const Circle> list;
    std::span<const Circle> obstacles_near(Vec2) const { return list; }
  };
  const Grid& grid = w.grid;
  CellEnv env{{w}, {}};
  std::int32_t cell = 0, first = 0, last = 0;  // [first, last): the slots of `cell`
  b.each([&](Lane& L, LaneOutput& e) {
    if (!(L.k >= first && L.k < last)) {
      cell = grid.slot_cell(L.k);
      first = grid.cell_begin(cell);
      last = grid.cell_end(cell);
      env.list = w.obstacles.in_cell(cell);
    }
    FLOCKSTEP_ASSERT(cell == w.obstacles.cell_of(L.pos));
    LaneSink out{b, L, e};
    stage::obstacle_avoid(env, b.bs, b.g, stage::Agent{L.i, L.pos, L.vel, L.head}, out);
  });
}

void Behaviors::wander(const Batch& b) {
  const ComposeTables& w = b.w;
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::WanderState& ws = w.wander[L.i];  // own state only: no other agent reads it
    e.o.linear = behavior::wander_force(b.body_of(L), b.g.wander, ws, w.rng[L.i], w.dt);
    b.sink.count(71);
    L.aim = math::to_world_point(ws.target_local + Vec2{b.g.wander.distance, 0}, L.pos, L.head);
    e.produced = true;
  });
}

void Behaviors::follow_waypoints(const Batch& b) {
  const ComposeTables& w = b.w;
  const PathSpec& path = w.scenario.paths[static_cast<std::size_t>(b.bs.path)];
  const behavior::WaypointParams wp{b.g.waypoint_seek_distance, b.bs.deceleration, path.loop};
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::WaypointState ws = w.waypoint[L.i];
    e.o.linear = behavior::follow_waypoints_force(b.body_of(L), path.points, wp, ws);
    b.sink.count(72);
    w.waypoint[L.i] = ws;
    L.aim = path.points[static_cast<std::size_t>(ws.current)];
    L.st = BehaviorState::kPatrolling;
    e.produced = true;
  });
}

// ---- Millington's steering behaviours: accelerations on a Kinematic ----

void Behaviors::dynamic_point(const Batch& b) {
  const ComposeTables& w = b.w;
  const BehaviorSpec& bs = b.bs;
  const real accel = b.accel();
  const bool has_goal = !math::is_zero(bs.goal);
  b.each([&](Lane& L, LaneOutput& e) {
    Vec2 tpos;
    behavior::Mover tm;
    Vec2 point;
    if (has_goal) {
      point = L.pos + w.plane.delta(L.pos, bs.goal);
    } else {
      const std::int32_t tj = b.target_of(L, tpos, tm);
      if (tj < 0) return;
      L.target = w.id[tj];
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

void Behaviors::dynamic_target(const Batch& b) {
  const ComposeTables& w = b.w;
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
    L.target = w.id[tj];
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

void Behaviors::look_where_going(const Batch& b) {
  b.each([&](Lane& L, LaneOutput& e) {
    e.put(behavior::look_where_you_are_going(b.kin_of(L), align_params(b.bs)));
    b.sink.count(50);
    b.sink.count(41);
  });
}

void Behaviors::dynamic_wander(const Batch& b) {
  const ComposeTables& w = b.w;
  behavior::DynamicWanderParams wp;
  wp.max_acceleration = b.accel();
  if (b.bs.range > 0) wp.wander_radius = b.bs.range;
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::DynamicWanderState ws = w.dyn_wander[L.i];
    const behavior::DynamicWanderOutput o = behavior::dynamic_wander(b.kin_of(L), ws, wp, w.rng[L.i]);
    b.sink.count(51);
    b.sink.count(13);  // the wander orientation moves by a binomial draw
    b.sink.count(41);
    w.dyn_wander[L.i] = ws;
    e.put(o.steering);
    L.aim = o.target;
  });
}

void Behaviors::follow_path(const Batch& b) {
  const ComposeTables& w = b.w;
  const BehaviorSpec& bs = b.bs;
  const real accel = b.accel();
  const behavior::LinePath path = w.line_paths[static_cast<std::size_t>(bs.path)].view();
  behavior::PredictivePathFollowParams pp;
  pp.follow.path_offset = bs.path_offset;
  pp.follow.seek.max_acceleration = accel;
  pp.follow.arrive.max_acceleration = accel;
  pp.follow.arrive.max_speed = b.g.max_speed;
  pp.predict_time = bs.predict_time;
  b.each([&](Lane& L, LaneOutput& e) {
    behavior::PathFollowState ps = w.path_state[L.i];
    const behavior::PathFollowOutput o = bs.predict_time > 0
                                             ? behavior::follow_path_predictive(b.kin_of(L), path, ps, pp)
                                             : behavior::follow_path(b.kin_of(L), path, ps, pp.follow);
    w.path_state[L.i] = ps;
    b.sink.count(52);
    b.sink.count(54);  // the scenario path as a parameterised line path
    b.sink.count(41);
    if (bs.predict_time > 0) b.sink.count(53);
    e.put(o.steering);
    L.aim = o.target;
    L.st = BehaviorState::kPatrolling;
  });
}

void Behaviors::neighbours(const Batch& b) {
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
    e.put(neighbour_behavior(b.w, b.g, b.gi, b.bs, L.i, L.k, &L.st));
    b.sink.count(id);
    if (reynolds) b.sink.count(31);  // Reynolds' three rules, blended
  });
}

Behaviors::Fn Behaviors::of(BehaviorType t) {
  // One row per BehaviorType, in the enum's order (checked below at compile time).
  using T = BehaviorType;
  static constexpr std::pair<T, Fn> kTable[] = {
      {T::kWallAvoid, forces<stage::wall_avoid<Env, LaneSink>, stage::has_walls<Env>>},
      {T::kObstacleAvoid, obstacle_avoid},
      {T::kFleePlayers, forces<stage::flee_players<Env, LaneSink>>},
      {T::kFlock, flock},
      {T::kSeek, forces<stage::seek_like<Env, LaneSink>>},
      {T::kFlee, forces<stage::seek_like<Env, LaneSink>>},
      {T::kArrive, forces<stage::seek_like<Env, LaneSink>>},
      {T::kPursue, forces<stage::seek_like<Env, LaneSink>>},
      {T::kEvade, forces<stage::seek_like<Env, LaneSink>>},
      {T::kOffsetPursuit, forces<stage::leader<Env, LaneSink>>},
      {T::kInterpose, forces<stage::leader<Env, LaneSink>>},
      {T::kWander, wander},
      {T::kFollowWaypoints, follow_waypoints},
      {T::kHide, forces<stage::seek_like<Env, LaneSink>>},
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

}  // namespace flockstep::sim::compose_stage
