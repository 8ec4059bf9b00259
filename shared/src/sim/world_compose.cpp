// The two force models (vehicle, steering) run their group's composition as batches: one kernel
// per behaviour over the group's agents in a task, then the combiner per agent (compose.hpp).
#include <algorithm>
#include <new>
#include <type_traits>

#include "flockstep/behavior/blend.hpp"
#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/collision_avoidance.hpp"
#include "flockstep/behavior/combine.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/motion.hpp"
#include "flockstep/behavior/path.hpp"
#include "flockstep/behavior/separation.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::sim {
namespace {

using behavior::SteeringOutput;

/// An output as plain numbers: trivially constructible, so a lane's eight slots cost nothing
/// until a behaviour writes one.
struct RawOutput {
  real lx, ly, a;
  behavior::SteeringOutput get() const { return {{lx, ly}, a}; }
  void set(const behavior::SteeringOutput& o) {
    lx = o.linear.x;
    ly = o.linear.y;
    a = o.angular;
  }
};

}  // namespace

/// Per-agent scratch of one batch: the combiner's state and the annotation.
struct World::Lane {
  std::int32_t i = 0;  // dense index
  std::int32_t k = 0;  // slot index (cell order)
  Vec2 pos, vel, head;
  behavior::TruncatedRunningSum sum{0};
  RawOutput out[kMaxBehaviors];         // raw outputs of the evaluated behaviours (valid where `has` says)
  std::uint32_t has = 0;                // bit q: behaviour q produced an output
  real angular = 0;                     // running-sum / dither angular part (steering model)
  behavior::PriorityArbiter priority;   // T78
  behavior::GroupedPriorities grouped;  // T80
  std::int32_t open_priority = -1;      // T80: the priority of the group being blended (-1: none yet)
  BehaviorState st = BehaviorState::kNone;
  AgentId target;
  Vec2 aim;
};

/// What steer_composed hands each kernel: whether a lane evaluates the behaviour, and the
/// combiner's step for its output.
struct World::ComposeSink {
  World* world;
  Tally* tally;  // this task's technique counts
  const Composition* c;
  const BehaviorSpec* bs;
  std::size_t bk;
  bool lazy_sum;      // running_sum / dither: stop evaluating once the budget is full
  bool keep_outputs;  // blend, urgency (and traced batches): the outputs are reread at the end
  // Forced inline: the kernels call these once per agent, and an out-of-line call per agent and
  // behaviour was measured at ~3 % of the mixed arena's tick.
  [[gnu::always_inline]] bool active(Lane& L) const {
    if (c->combiner == Combiner::kPriority) return !L.priority.decided();
    if (c->combiner == Combiner::kGrouped) return !L.grouped.decided();
    if (lazy_sum && L.sum.full()) return false;
    // T81: the draw comes from the agent's own stream (its slot copy, written back at the end).
    if (c->combiner == Combiner::kDither) return behavior::dither_considers(world->slot_rng_[L.k], bs->probability);
    return true;
  }
  /// One more agent-tick of catalog ID T<id> (the kernels call it where the technique's work is done).
  [[gnu::always_inline]] void count(int id) const { tally->add(id); }
  [[gnu::always_inline]] void emit(Lane& L, const behavior::SteeringOutput& raw) const {
    if (lazy_sum) {
      L.sum.add(bs->weight, raw.linear);
      L.angular += raw.angular * bs->weight;
    } else if (c->combiner == Combiner::kPriority) {
      L.priority.offer(raw * bs->weight);
    } else if (c->combiner == Combiner::kGrouped) {
      L.grouped.add(raw * bs->weight);
    }
    if (keep_outputs) {
      L.out[bk].set(raw);
      L.has |= 1u << bk;
    }
  }
};

namespace {
/// Emits a lane's output when the kernel's iteration for it ends (whichever `continue` ends
/// it), if the kernel produced one.
template <class Sink, class Lane>
struct EmitOnExit {
  const Sink& sink;
  Lane& lane;
  behavior::SteeringOutput o{};
  bool produced = false;
  [[gnu::always_inline]] ~EmitOnExit() {
    if (produced) sink.emit(lane, o);
  }
};
}  // namespace

void World::steer_composed(std::int32_t gi, const std::int32_t* slot_list, std::int32_t n, Tally& tally) {
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(gi)];
  const Composition& c = compose_[static_cast<std::size_t>(gi)];
  const bool vehicle = group_model_[static_cast<std::size_t>(gi)] == Model::kVehicle;
  // Vehicles combine forces (N) under max_force; steering agents accelerations under max_force / mass.
  const real budget = vehicle ? g.max_force : g.max_force / g.mass;
  const behavior::BlendParams clip{budget, c.max_angular};
  const std::span<const std::int32_t> slots = grid_.slots();
  const auto nb = static_cast<std::size_t>(c.behaviors.size());
  const bool lazy_sum = c.combiner == Combiner::kRunningSum || c.combiner == Combiner::kDither;
  bool uses_rng = c.combiner == Combiner::kDither;
  for (const BehaviorSpec& b : c.behaviors)
    uses_rng = uses_rng || b.type == BehaviorType::kWander || b.type == BehaviorType::kDynamicWander ||
               (b.type == BehaviorType::kFlock && g.flock.w_wander > 0);

  // Only the n lanes in use are constructed (a default-constructed array of kComposeBatch lanes
  // zeroed ~20 KB per call: measured 10 % of the mixed arena's tick, whose groups are small).
  alignas(Lane) unsigned char lane_storage[sizeof(Lane) * kComposeBatch];
  Lane* lanes = reinterpret_cast<Lane*>(lane_storage);
  static_assert(std::is_trivially_destructible_v<Lane>);
  // Steering traces (the inspector): which lanes of this batch are traced. Their batch keeps
  // every raw output; that changes what is stored, never what is computed.
  std::int32_t traced_lane[kMaxTraced];
  bool traced_here = false;
  for (std::size_t t = 0; t < traced_count_; ++t) {
    traced_lane[t] = -1;
    if (traced_index_[t] < 0 || group_[traced_index_[t]] != gi) continue;
    for (std::int32_t j = 0; j < n; ++j)
      if (slots[static_cast<std::size_t>(slot_list[j])] == traced_index_[t]) {
        traced_lane[t] = j;
        traced_here = true;
      }
  }
  for (std::int32_t j = 0; j < n; ++j) {
    Lane& L = *new (&lanes[j]) Lane;  // default member initialisers; the output slots stay raw
    L.k = slot_list[j];
    L.i = slots[static_cast<std::size_t>(L.k)];
    L.pos = slot_position_[L.k];
    L.vel = slot_velocity_[L.k];
    L.head = slot_heading_[L.k];
    L.sum = behavior::TruncatedRunningSum{budget};
    L.priority = behavior::PriorityArbiter{c.epsilon};
    L.grouped = behavior::GroupedPriorities{c.epsilon};
    L.aim = L.pos;
  }

  for (std::size_t bk = 0; bk < nb; ++bk) {
    const BehaviorSpec& bs = c.behaviors[bk];
    if (!(bs.weight > 0)) continue;  // T09: a zero weight switches the behaviour off
    // T80: entering a new priority group, the previous group's blend decides if it is non-zero.
    if (c.combiner == Combiner::kGrouped) {
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (L.open_priority >= 0 && L.open_priority != bs.priority && !L.grouped.decided()) L.grouped.close_group();
        L.open_priority = bs.priority;
      }
    }
    // The combiner's step for this behaviour, fused into the kernel's loop: which lanes evaluate
    // it (the lazy combiners skip the rest) and what happens to each output (measured: separate
    // loops cost the mixed arena's many small batches ~5 % of its tick).
    ComposeSink sink{this,
                     &tally,
                     &c,
                     &bs,
                     bk,
                     lazy_sum,
                     traced_here || c.combiner == Combiner::kBlend || c.combiner == Combiner::kUrgency};
    run_behavior(g, gi, bs, lanes, n, sink);
  }

  for (std::int32_t j = 0; j < n; ++j) {
    Lane& L = lanes[j];
    SteeringOutput r{};
    switch (c.combiner) {
      case Combiner::kRunningSum:
      case Combiner::kDither:
        r = {L.sum.result(), math::clamp(L.angular, -c.max_angular, c.max_angular)};
        if (c.combiner == Combiner::kDither) {
          tally.add(81);
        } else {
          tally.add(79);
          tally.add(9);  // layers in priority order, weight 0 switching one off
        }
        break;
      case Combiner::kPriority:
        r = L.priority.decided() ? behavior::clip_steering(L.priority.winner(), clip) : SteeringOutput{};
        tally.add(78);
        break;
      case Combiner::kGrouped: {
        if (!L.grouped.decided() && L.open_priority >= 0)
          L.grouped.close_group();  // the last group decides, or nothing does
        r = L.grouped.decided() ? behavior::clip_steering(L.grouped.winner(), clip) : SteeringOutput{};
        tally.add(80);
        break;
      }
      case Combiner::kBlend:
      case Combiner::kUrgency: {
        SteeringOutput outs[kMaxBehaviors];
        real base[kMaxBehaviors];
        for (std::size_t q = 0; q < nb; ++q) {
          const bool has = (L.has >> q & 1u) != 0;
          outs[q] = has ? L.out[q].get() : SteeringOutput{};
          base[q] = has ? c.behaviors[q].weight : 0;
        }
        const std::span<const SteeringOutput> so(outs, nb);
        if (c.combiner == Combiner::kBlend) {
          r = behavior::blend_steering(so, std::span<const real>(base, nb), clip);
          tally.add(vehicle ? 77 : 61);
        } else {
          tally.add(62);
          const behavior::BlendWeights bw = behavior::urgency_weights(so, std::span<const real>(base, nb), c.sharpness);
          r = behavior::blend_steering(so, bw.view(), clip);
        }
        break;
      }
      default: break;
    }
    if (!vehicle && c.actuation == 1) {
      // T07: what a car can do of it: force only along the heading, bounded, and a bounded torque.
      behavior::CarActuatorParams car;
      car.inertia = {g.mass, g.mass * g.radius * g.radius};
      car.max_drive_force = g.max_force;
      car.max_brake_force = g.max_force;
      car.max_torque = g.max_force * g.radius;
      r = behavior::acceleration_of(behavior::actuate_car(r, L.head, car), car.inertia);
      tally.add(7);
    }
    // The agent's random streams were advanced in its slot copies: write them back (only
    // compositions with a random behaviour or dithering draw at all).
    if (uses_rng) {
      rng_[L.i] = slot_rng_[L.k];
      wander_[L.i] = slot_wander_[L.k];
    }
    if (traced_here)
      for (std::size_t t = 0; t < traced_count_; ++t)
        if (traced_lane[t] == j) record_trace(t, L, c, r);
    force_[L.i] = r.linear;
    if (!vehicle) kin_rotation_[L.i] = r.angular;  // vehicles never read it
    target_[L.i] = L.target;
    aim_[L.i] = L.aim;
    state_[L.i] = L.st;
  }
}

void World::set_traced(std::span<const AgentId> agents) {
  traced_count_ = std::min(agents.size(), static_cast<std::size_t>(kMaxTraced));
  for (std::size_t t = 0; t < traced_count_; ++t) {
    if (traces_[t].agent != agents[t]) traces_[t] = SteeringTrace{};  // a new agent: no trace yet
    traces_[t].agent = agents[t];
  }
}

void World::resolve_traced() {
  for (std::size_t t = 0; t < traced_count_; ++t) {
    const std::int32_t i = index_of(traces_[t].agent);
    traced_index_[t] = i;
    SteeringTrace& tr = traces_[t];
    if (i < 0 || group_[i] < 0) {
      tr.group = -1;
      tr.count = 0;
      continue;
    }
    tr.group = group_[i];
    // One-controller models (craft, tile, kinematic) have no composition to break down.
    const Model m = group_model_[static_cast<std::size_t>(tr.group)];
    if (m != Model::kVehicle && m != Model::kSteering) {
      tr.count = 0;
      tr.tick = tick_ + 1;
    }
  }
}

/// Called by the one task that steers the traced agent's batch: one writer per entry.
void World::record_trace(std::size_t t, const Lane& L, const Composition& c, const behavior::SteeringOutput& result) {
  SteeringTrace& tr = traces_[t];
  tr.tick = tick_ + 1;
  tr.count = static_cast<std::int32_t>(c.behaviors.size());
  for (std::size_t q = 0; q < c.behaviors.size(); ++q) {
    BehaviorTrace& b = tr.behaviors[q];
    b.type = c.behaviors[q].type;
    b.evaluated = (L.has >> q & 1u) != 0;
    b.raw = b.evaluated ? L.out[q].get() : behavior::SteeringOutput{};
    b.weight = c.behaviors[q].weight;
  }
  tr.result = result;
}

void World::run_behavior(const GroupSpec& g, std::int32_t gi, const BehaviorSpec& bs, Lane* lanes, std::int32_t n,
                         const ComposeSink& sink) {
  const Vec2 centre{scenario_.width / 2, scenario_.height / 2};
  const real accel = g.max_force / g.mass;
  // Resolve the behaviour's target for lane j: the nearest live agent of target_group, or the
  // nearest player; its position is taken at its torus copy nearest to the agent.
  auto target_of = [&](Lane& L, Vec2& tpos, behavior::Mover& tmover) -> std::int32_t {
    std::int32_t tj;
    if (bs.target_group >= 0) tj = nearest_in_group(bs.target_group, L.i, L.pos, nullptr);
    else tj = nearest_player(L.pos, nullptr);
    tpos = tj >= 0 ? L.pos + delta(L.pos, position_[tj]) : Vec2{};
    tmover = {tpos, tj >= 0 ? velocity_[tj] : Vec2{}};
    return tj;
  };
  auto body_of = [&](const Lane& L) {
    return behavior::Body{L.pos, L.vel, L.head, g.mass, g.max_force, g.max_speed, g.radius};
  };
  auto kin_of = [&](const Lane& L) {
    return behavior::Kinematic{L.pos, orientation_at(L.i), L.vel, angular_velocity_[L.i]};
  };
  const bool has_goal = !math::is_zero(bs.goal);

  // One loop per behaviour type: the switch is outside the per-agent loop.
  switch (bs.type) {
    case BehaviorType::kWallAvoid:
      if (scenario_.walls.empty()) return;
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        e.o.linear = behavior::wall_avoidance_force(body_of(L), scenario_.walls, g.feelers);
        sink.count(75);
        if (!math::is_zero(e.o.linear)) L.st = BehaviorState::kAvoiding;
        e.produced = true;
      }
      return;
    case BehaviorType::kObstacleAvoid:
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        const std::span<const Circle> near = obstacles_near(L.pos);
        if (near.empty()) continue;
        e.o.linear = behavior::obstacle_avoidance_force(body_of(L), near, g.detection);
        sink.count(73);
        sink.count(11);  // the detection box in the agent's local frame
        if (!math::is_zero(e.o.linear)) L.st = BehaviorState::kAvoiding;
        e.produced = true;
      }
      return;
    case BehaviorType::kFleePlayers: {
      const real range = bs.range > 0 ? bs.range : g.panic_range;
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        real d = math::kInfinity;
        const std::int32_t pj = nearest_player(L.pos, &d);
        if (pj < 0 || !(d < range)) continue;
        e.o.linear = behavior::flee_force(body_of(L), L.pos + delta(L.pos, position_[pj]), range);
        sink.count(65);
        L.st = BehaviorState::kFleeing;
        L.target = id_[pj];
        e.produced = true;
      }
      return;
    }
    case BehaviorType::kFlock: {
      behavior::Neighbour nb[kMaxNeighbours];  // once per batch: Neighbour zero-fills on construction
      CellRanges cells;
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        e.o.linear = flock_force(g, gi, L.k, nb, cells);
        sink.count(76);
        sink.count(31);
        sink.count(32);
        if (g.flock.w_wander > 0) sink.count(71);
        if (L.st == BehaviorState::kNone) L.st = BehaviorState::kSeeking;
        e.produced = true;
      }
      return;
    }
    case BehaviorType::kSeek:
    case BehaviorType::kArrive:
    case BehaviorType::kPursue:
    case BehaviorType::kEvade:
    case BehaviorType::kHide:
    case BehaviorType::kFlee:
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        const behavior::Body b = body_of(L);
        Vec2 tpos;
        behavior::Mover tm;
        const bool seek_like = bs.type == BehaviorType::kSeek || bs.type == BehaviorType::kArrive;
        const std::int32_t tj = (seek_like && has_goal) ? -1 : target_of(L, tpos, tm);
        e.produced = true;
        if (seek_like && has_goal) {
          L.aim = L.pos + delta(L.pos, bs.goal);
          e.o.linear = bs.type == BehaviorType::kSeek ? behavior::seek_force(b, L.aim)
                                                      : behavior::arrive_force(b, L.aim, bs.deceleration);
          sink.count(bs.type == BehaviorType::kSeek ? 64 : 66);
          L.st = BehaviorState::kSeeking;
          continue;
        }
        if (tj < 0) {
          // No target (no player yet, or the target group is empty): idle at the world centre;
          // flee has nothing to flee from.
          if (bs.type != BehaviorType::kFlee) {
            e.o.linear = behavior::arrive_force(b, centre, g.arrive_deceleration);
            sink.count(66);
          }
          if (seek_like) {
            L.aim = centre;
            L.st = BehaviorState::kSeeking;
          }
          continue;
        }
        L.target = id_[tj];
        switch (bs.type) {
          case BehaviorType::kSeek:
            e.o.linear = behavior::seek_force(b, tpos);
            L.aim = tpos;
            L.st = BehaviorState::kSeeking;
            sink.count(64);
            break;
          case BehaviorType::kArrive:
            e.o.linear = behavior::arrive_force(b, tpos, bs.deceleration);
            L.aim = tpos;
            L.st = BehaviorState::kSeeking;
            sink.count(66);
            break;
          case BehaviorType::kPursue:
            e.o.linear = behavior::pursue_force(b, tm);
            L.aim = behavior::pursue_point(b, tm);
            L.st = BehaviorState::kSeeking;
            sink.count(67);
            break;
          case BehaviorType::kEvade:
            e.o.linear = behavior::evade_force(b, tm);
            L.st = BehaviorState::kFleeing;
            sink.count(68);
            break;
          case BehaviorType::kFlee:
            e.o.linear = behavior::flee_force(b, tpos, bs.range > 0 ? bs.range : math::kInfinity);
            L.aim = tpos;
            if (!math::is_zero(e.o.linear)) {  // outside the range flee_force has nothing to do
              L.st = BehaviorState::kFleeing;
              sink.count(65);
            }
            break;
          default: {  // kHide
            behavior::HideDebug dbg{};
            e.o.linear = behavior::hide_force(b, tm, scenario_.obstacles, g.hide, &dbg);
            sink.count(74);
            L.aim = dbg.action == behavior::HideAction::kHide ? dbg.spot : L.pos;
            L.st = BehaviorState::kHiding;
            break;
          }
        }
      }
      return;
    case BehaviorType::kOffsetPursuit:
    case BehaviorType::kInterpose: {
      const std::int32_t li = leader_index_[static_cast<std::size_t>(bs.leader_group)];
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        e.produced = true;
        if (li < 0 || li == L.i) continue;
        const behavior::Body b = body_of(L);
        if (bs.type == BehaviorType::kOffsetPursuit) {
          const GroupSpec& lg = scenario_.groups[static_cast<std::size_t>(group_[li])];
          const behavior::Body leader{L.pos + delta(L.pos, position_[li]),
                                      velocity_[li],
                                      heading_[li],
                                      lg.mass,
                                      lg.max_force,
                                      lg.max_speed,
                                      lg.radius};
          e.o.linear = behavior::offset_pursuit_force(b, leader, bs.offset, behavior::OffsetFrame::kLeaderLocal,
                                                      bs.deceleration);
          sink.count(69);
          sink.count(11);  // the offset in the leader's local frame
          L.target = id_[li];
          L.aim = math::to_world_point(bs.offset, leader.position, leader.heading);
          L.st = BehaviorState::kSeeking;
        } else {
          Vec2 tpos;
          behavior::Mover tm;
          const std::int32_t tj = target_of(L, tpos, tm);
          if (tj < 0) continue;
          const behavior::Mover leader{L.pos + delta(L.pos, position_[li]), velocity_[li]};
          e.o.linear = behavior::interpose_force(b, tm, leader, bs.deceleration);
          sink.count(70);
          L.aim = behavior::interpose_point(b, tm, leader);
          L.target = id_[tj];
          L.st = BehaviorState::kSeeking;
        }
      }
      return;
    }
    case BehaviorType::kWander:
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        behavior::WanderState& ws = slot_wander_[L.k];  // own state only: no other agent reads it
        e.o.linear = behavior::wander_force(body_of(L), g.wander, ws, slot_rng_[L.k], dt_);
        sink.count(71);
        L.aim = math::to_world_point(ws.target_local + Vec2{g.wander.distance, 0}, L.pos, L.head);
        e.produced = true;
      }
      return;
    case BehaviorType::kFollowWaypoints: {
      const PathSpec& path = scenario_.paths[static_cast<std::size_t>(bs.path)];
      const behavior::WaypointParams wp{g.waypoint_seek_distance, bs.deceleration, path.loop};
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        behavior::WaypointState ws = waypoint_[L.i];
        e.o.linear = behavior::follow_waypoints_force(body_of(L), path.points, wp, ws);
        sink.count(72);
        waypoint_[L.i] = ws;
        L.aim = path.points[static_cast<std::size_t>(ws.current)];
        L.st = BehaviorState::kPatrolling;
        e.produced = true;
      }
      return;
    }
    // ---- Millington's steering behaviours: accelerations on a Kinematic ----
    case BehaviorType::kDynamicSeek:
    case BehaviorType::kDynamicFlee:
    case BehaviorType::kDynamicArrive:
    case BehaviorType::kFace:
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        Vec2 tpos;
        behavior::Mover tm;
        Vec2 point;
        if (has_goal) {
          point = L.pos + delta(L.pos, bs.goal);
        } else {
          const std::int32_t tj = target_of(L, tpos, tm);
          if (tj < 0) continue;
          L.target = id_[tj];
          point = tpos;
        }
        const behavior::Kinematic k = kin_of(L);
        e.produced = true;
        L.aim = point;
        switch (bs.type) {
          case BehaviorType::kDynamicSeek:
            e.o = behavior::dynamic_seek(k, point, {accel});
            L.st = BehaviorState::kSeeking;
            sink.count(42);
            break;
          case BehaviorType::kDynamicFlee:
            e.o = behavior::dynamic_flee(k, point, {accel});
            L.st = BehaviorState::kFleeing;
            sink.count(43);
            break;
          case BehaviorType::kDynamicArrive: {
            behavior::ArriveParams ap;
            ap.max_acceleration = accel;
            ap.max_speed = g.max_speed;
            ap.slow_radius = bs.slow_radius;
            ap.target_radius = bs.target_radius;
            ap.time_to_target = bs.time_to_target;
            ap.brake_inside_target = true;  // settle on the point rather than drift (T44 refinement)
            e.o = behavior::dynamic_arrive(k, point, ap);
            L.st = BehaviorState::kSeeking;
            sink.count(44);
            break;
          }
          default:
            e.o = behavior::face(k, point, align_params(bs));
            sink.count(49);
            sink.count(41);  // face delegates to align
            break;
        }
      }
      return;
    case BehaviorType::kAlign:
    case BehaviorType::kVelocityMatch:
    case BehaviorType::kDynamicPursue:
    case BehaviorType::kDynamicEvade:
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        Vec2 tpos;
        behavior::Mover tm;
        const std::int32_t tj = target_of(L, tpos, tm);
        if (tj < 0) continue;
        // Evade's panic range: beyond it no output, so a lower priority (arrive home) can win.
        if (bs.type == BehaviorType::kDynamicEvade && bs.range > 0 &&
            math::length_sq(tpos - L.pos) > bs.range * bs.range)
          continue;
        const behavior::Kinematic k = kin_of(L);
        e.produced = true;
        L.target = id_[tj];
        L.aim = tpos;
        switch (bs.type) {
          case BehaviorType::kAlign:
            e.o = behavior::align(k, orientation_at(tj), align_params(bs));
            sink.count(45);
            break;
          case BehaviorType::kVelocityMatch:
            e.o = behavior::velocity_match(k, tm.velocity, {accel, bs.time_to_target});
            sink.count(46);
            break;
          case BehaviorType::kDynamicPursue: {
            behavior::DynamicPursueParams pp;
            pp.prediction.max_prediction = bs.max_prediction;
            pp.base = bs.arrive ? behavior::PursueBase::arrive : behavior::PursueBase::seek;
            pp.seek.max_acceleration = accel;
            pp.arrive.max_acceleration = accel;
            pp.arrive.max_speed = g.max_speed;
            pp.arrive.slow_radius = bs.slow_radius;
            pp.arrive.target_radius = bs.target_radius;
            pp.arrive.time_to_target = bs.time_to_target;
            const behavior::Delegated<Vec2> d = behavior::dynamic_pursue_delegated(k, tm, pp);
            sink.count(47);
            sink.count(41);
            e.o = d.steering;
            L.aim = d.surrogate;
            L.st = BehaviorState::kSeeking;
            break;
          }
          default: {
            behavior::DynamicEvadeParams ep;
            ep.prediction.max_prediction = bs.max_prediction;
            ep.flee.max_acceleration = accel;
            const behavior::Delegated<Vec2> d = behavior::dynamic_evade_delegated(k, tm, ep);
            sink.count(48);
            sink.count(41);
            e.o = d.steering;
            L.aim = d.surrogate;
            L.st = BehaviorState::kFleeing;
            break;
          }
        }
      }
      return;
    case BehaviorType::kLookWhereGoing:
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        sink.emit(L, behavior::look_where_you_are_going(kin_of(L), align_params(bs)));
        sink.count(50);
        sink.count(41);
      }
      return;
    case BehaviorType::kDynamicWander: {
      behavior::DynamicWanderParams wp;
      wp.max_acceleration = accel;
      if (bs.range > 0) wp.wander_radius = bs.range;
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        behavior::DynamicWanderState ws = dyn_wander_[L.i];
        const behavior::DynamicWanderOutput o = behavior::dynamic_wander(kin_of(L), ws, wp, slot_rng_[L.k]);
        sink.count(51);
        sink.count(13);  // the wander orientation moves by a binomial draw
        sink.count(41);
        dyn_wander_[L.i] = ws;
        e.o = o.steering;
        L.aim = o.target;
        e.produced = true;
      }
      return;
    }
    case BehaviorType::kFollowPath: {
      const behavior::LinePath path = line_paths_[static_cast<std::size_t>(bs.path)].view();
      behavior::PredictivePathFollowParams pp;
      pp.follow.path_offset = bs.path_offset;
      pp.follow.seek.max_acceleration = accel;
      pp.follow.arrive.max_acceleration = accel;
      pp.follow.arrive.max_speed = g.max_speed;
      pp.predict_time = bs.predict_time;
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        EmitOnExit<ComposeSink, Lane> e{sink, L};
        behavior::PathFollowState ps = path_state_[L.i];
        const behavior::PathFollowOutput o = bs.predict_time > 0
                                                 ? behavior::follow_path_predictive(kin_of(L), path, ps, pp)
                                                 : behavior::follow_path(kin_of(L), path, ps, pp.follow);
        path_state_[L.i] = ps;
        sink.count(52);
        sink.count(54);  // the scenario path as a parameterised line path
        sink.count(41);
        if (bs.predict_time > 0) sink.count(53);
        e.o = o.steering;
        L.aim = o.target;
        L.st = BehaviorState::kPatrolling;
        e.produced = true;
      }
      return;
    }
    case BehaviorType::kSeparation:
    case BehaviorType::kAttraction:
    case BehaviorType::kConeAvoid:
    case BehaviorType::kCollisionAvoid:
    case BehaviorType::kMillingtonFlock:
      for (std::int32_t j = 0; j < n; ++j) {
        Lane& L = lanes[j];
        if (!sink.active(L)) continue;
        sink.emit(L, neighbour_behavior(g, gi, bs, L.i, L.k, &L.st));
        switch (bs.type) {
          case BehaviorType::kSeparation: sink.count(55); break;
          case BehaviorType::kAttraction: sink.count(56); break;
          case BehaviorType::kConeAvoid: sink.count(57); break;
          case BehaviorType::kCollisionAvoid: sink.count(58); break;
          default:
            sink.count(63);
            sink.count(31);  // Reynolds' three rules, blended
            break;
        }
      }
      return;
    default: return;
  }
}

behavior::AlignParams World::align_params(const BehaviorSpec& bs) {
  behavior::AlignParams ap;
  ap.slow_radius = bs.slow_radius;
  ap.target_radius = bs.target_radius;
  ap.time_to_target = bs.time_to_target;
  ap.brake_inside_target = true;
  return ap;
}

behavior::SteeringOutput World::neighbour_behavior(const GroupSpec& g, std::int32_t gi, const BehaviorSpec& bs,
                                                   std::int32_t i, std::int32_t slot, BehaviorState* st) const {
  const real accel = g.max_force / g.mass;
  const Vec2 pos = slot_position_[slot];
  const bool millington_flock = bs.type == BehaviorType::kMillingtonFlock;
  // Default neighbourhoods: the catalog's figures (separation threshold 2 m, cone range 10 m
  // clipped to the grid, flocking 5 m).
  real radius = bs.range > 0 ? bs.range : (millington_flock ? real(5) : real(2));
  radius = math::min(radius, scenario_.grid_cell);
  const bool same_group_only = millington_flock;
  const std::int32_t want_group = bs.type == BehaviorType::kAttraction && bs.target_group >= 0 ? bs.target_group : -1;
  // Candidates as Kinematics (position at the torus copy nearest to this agent), at most
  // kMaxCandidates, in the grid's deterministic visiting order.
  behavior::Kinematic others[kMaxCandidates + 1];
  std::int32_t count = 0;
  std::int32_t self_index = -1;
  const behavior::Kinematic self{pos, orientation_at(i), slot_velocity_[slot], angular_velocity_[i]};
  if (millington_flock) {
    others[0] = self;
    self_index = 0;
    count = 1;
  }
  grid_.query_slots(pos, radius, slot, slot_position_.data(), [&](std::int32_t k, Vec2 d, real) {
    if (count >= kMaxCandidates) return;
    if (same_group_only && slot_group_[k] != gi) return;
    if (want_group >= 0 && slot_group_[k] != want_group) return;
    others[count++] = {pos + d, math::orientation_of(slot_heading_[k]), slot_velocity_[k], 0};
  });
  const std::span<const behavior::Kinematic> span(others, static_cast<std::size_t>(count));
  switch (bs.type) {
    case BehaviorType::kSeparation:
    case BehaviorType::kAttraction: {
      behavior::SeparationParams sp;
      sp.threshold = radius;
      sp.decay_coefficient = bs.decay;
      sp.max_acceleration = accel;
      sp.decay = behavior::SeparationDecay::kInverseSquare;
      if (bs.type == BehaviorType::kSeparation) return behavior::separation(self, span, sp);
      Vec2 pts[kMaxCandidates + 1];
      for (std::int32_t q = 0; q < count; ++q) pts[q] = others[q].position;
      return behavior::attraction(self, std::span<const Vec2>(pts, static_cast<std::size_t>(count)), sp);
    }
    case BehaviorType::kConeAvoid: {
      behavior::ConeCheckParams cp;
      cp.half_angle = bs.cone_deg * math::kDegToRad;
      cp.range = radius;
      cp.max_acceleration = accel;
      const SteeringOutput s = behavior::cone_check_avoidance(self, span, cp);
      if (!s.none()) *st = BehaviorState::kAvoiding;
      return s;
    }
    case BehaviorType::kCollisionAvoid: {
      behavior::CollisionAvoidanceParams cp;
      cp.max_acceleration = accel;
      cp.collision_radius = 2 * g.radius;
      cp.time_horizon = bs.max_prediction;
      const SteeringOutput s = behavior::collision_avoidance(self, span, cp);
      if (!s.none()) *st = BehaviorState::kAvoiding;
      return s;
    }
    default: {
      behavior::FlockingParams fp;
      fp.neighbourhood_radius = radius;
      fp.blend.max_acceleration = accel;
      fp.cohesion.max_acceleration = accel;
      fp.cohesion.max_speed = g.max_speed;
      fp.alignment.max_acceleration = accel;
      fp.separation.max_acceleration = accel;
      *st = BehaviorState::kSeeking;
      return behavior::millington_flocking(self, span, self_index, fp);
    }
  }
}

Vec2 World::flock_force(const GroupSpec& g, std::int32_t own_group, std::int32_t slot, behavior::Neighbour* nb,
                        CellRanges& cells) {
  // Own state comes from the slot copies (the same values, gathered this tick): the agents are
  // walked in slot order, so these reads are sequential while position_[i] & co. would not be.
  const Vec2 pos = slot_position_[slot];
  const Vec2 vel = slot_velocity_[slot];
  const Vec2 head = slot_heading_[slot];
  const behavior::Body b{pos, vel, head, g.mass, g.max_force, g.max_speed, g.radius};
  behavior::FlockSums sums;
  bool by_candidate = flock_kernel_ == FlockKernel::kPerNeighbour;
  if (!by_candidate) {
    // The lane kernel scans the rows of neighbour cells four slots at a time (flocking_lanes.hpp).
    if (!(slot >= cells.first && slot < cells.last)) {
      const std::int32_t cell = grid_.slot_cell(slot);
      cells.count = grid_.cell_ranges(cell, cells.range);
      cells.first = grid_.cell_begin(cell);
      cells.last = grid_.cell_end(cell);
    }
    behavior::LaneQuery q;
    q.position = pos;
    q.heading = head;
    q.self = slot;
    q.group = own_group;
    q.radius = g.flock.neighbour_radius;
    q.cos_half_fov = fov_cos_half_[static_cast<std::size_t>(own_group)];
    q.wrap = grid_.needs_fold();  // else the ranges carry their images
    q.width = scenario_.width;
    q.height = scenario_.height;
    const behavior::NeighbourArrays arrays{slot_x_.data(), slot_y_.data(), slot_hx_.data(), slot_hy_.data(),
                                           slot_group_.data()};
    const behavior::LaneFlockResult lr = behavior::flock_sums_lanes(
        q, arrays, std::span<const behavior::SlotRange>(cells.range, static_cast<std::size_t>(cells.count)),
        flock_kernel_ == FlockKernel::kLanes ? behavior::LaneKernel::kSimd : behavior::LaneKernel::kScalar);
    sums = lr.sums;
    // Rare bodies the lanes do not express: a crowd beyond kMaxNeighbours (the nearest are kept)
    // or a neighbour exactly on top (the coincident separation rule).
    by_candidate = lr.coincident || lr.sums.count > kMaxNeighbours;
  }
  if (by_candidate) sums = flock_sums_per_neighbour(g, own_group, slot, nb);
  const behavior::FlockForces ff = behavior::flocking_forces_from_sums(b, sums);
  Vec2 f = ff.separation * g.flock.w_separation + ff.alignment * g.flock.w_alignment +
           ff.cohesion * g.flock.w_cohesion + (head * (g.max_speed * g.flock.cruise_fraction) - vel) * g.flock.w_cruise;
  if (g.flock.w_wander > 0)
    f += behavior::wander_force(b, g.wander, slot_wander_[slot], slot_rng_[slot], dt_) * g.flock.w_wander;
  return f;
}

behavior::FlockSums World::flock_sums_per_neighbour(const GroupSpec& g, std::int32_t own_group, std::int32_t slot,
                                                    behavior::Neighbour* nb) const {
  const Vec2 pos = slot_position_[slot];
  const Vec2 vel = slot_velocity_[slot];
  const Vec2 head = slot_heading_[slot];
  const behavior::Body b{pos, vel, head, g.mass, g.max_force, g.max_speed, g.radius};
  // Candidates as plain arrays (a Neighbour array would be zero-filled on every call:
  // measured as a visible share of the tick). Only the kept ones become Neighbours.
  // One spare entry: the branch-free visitor writes before it knows whether it keeps.
  real cdx[kMaxCandidates + 1], cdy[kMaxCandidates + 1], cd2[kMaxCandidates + 1];
  std::int32_t cslot[kMaxCandidates + 1];
  std::int32_t n = 0;
  const real cos_half = fov_cos_half_[static_cast<std::size_t>(own_group)];
  const bool check_fov = cos_half > -1;
  const Vec2 h = head;
  const std::int32_t* groups = slot_group_.data();
  grid_.query_slots(pos, g.flock.neighbour_radius, slot, slot_position_.data(), [&](std::int32_t k, Vec2 d, real d2) {
    // Field of view (T32): keep k if the angle between heading and d is within
    // fov/2, i.e. unless dot(h, d) < cos_half |d|. Evaluated without branches
    // (ahead or behind is a coin flip for the branch predictor): the candidate
    // is always written and n advances only if it is kept.
    const bool outside = check_fov & (d2 > 0) & (math::dot(h, d) < cos_half * math::sqrt(d2));
    const bool keep = (groups[k] == own_group) & (n < kMaxCandidates) & !outside;
    cdx[n] = d.x;
    cdy[n] = d.y;
    cd2[n] = d2;
    cslot[n] = k;
    n += static_cast<std::int32_t>(keep);
  });
  // Which candidates to keep, in the order their forces are summed: all of them in visiting
  // order, or beyond kMaxNeighbours the nearest, ordered by (distance, id) for determinism.
  std::int32_t order[kMaxCandidates];
  for (std::int32_t c = 0; c < n; ++c) order[c] = c;
  if (n > kMaxNeighbours) {
    std::partial_sort(order, order + kMaxNeighbours, order + n, [&](std::int32_t a, std::int32_t c) {
      return cd2[a] < cd2[c] || (cd2[a] == cd2[c] && slot_id_[cslot[a]] < slot_id_[cslot[c]]);
    });
    n = kMaxNeighbours;
  }
  for (std::int32_t c = 0; c < n; ++c) {
    const std::int32_t o = order[c];
    const std::int32_t k = cslot[o];
    nb[c] = {pos + Vec2{cdx[o], cdy[o]}, slot_velocity_[k], slot_heading_[k]};
  }
  return behavior::flock_sums(b, std::span<const behavior::Neighbour>(nb, static_cast<std::size_t>(n)));
}

void World::integrate_steering_model(std::int32_t i, Tally& tally) {
  // T05 Newton-Euler-1 with the speed clip, as Millington's steering behaviours expect; the
  // angular output turns the facing unless T02 facing smoothing is on, which turns it toward the
  // direction of motion instead.
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(group_[i])];
  const Composition& c = compose_[static_cast<std::size_t>(group_[i])];
  behavior::Kinematic k{position_[i], orientation_[i], velocity_[i], angular_velocity_[i]};
  if (c.integration == 1) {
    // T04 exact for piecewise-constant acceleration, then the same clips as T05.
    behavior::integrate_exact(k, {force_[i], kin_rotation_[i]}, dt_);
    k.velocity = math::truncate(k.velocity, g.max_speed);
    k.rotation = math::clamp(k.rotation, -c.max_rotation, c.max_rotation);
    k.orientation = math::wrap_angle(k.orientation);
    tally.add(4);
  } else {
    behavior::integrate_steering(k, {force_[i], kin_rotation_[i]}, g.max_speed, dt_, c.max_rotation);
    tally.add(5);
  }
  tally.add(1);   // the orientation kept as an angle and shown as a vector
  tally.add(12);  // wrapped
  if (c.filters.facing_fraction > 0) {
    tally.add(2);
    k.orientation = behavior::smooth_facing(k.orientation, k.velocity, {c.filters.facing_fraction});
    k.rotation = 0;
  }
  position_[i] = k.position;
  velocity_[i] = k.velocity;
  orientation_[i] = k.orientation;
  angular_velocity_[i] = k.rotation;
  heading_[i] = math::as_vector(orientation_[i]);
}

}  // namespace flockstep::sim
