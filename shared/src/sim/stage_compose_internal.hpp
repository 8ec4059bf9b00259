#pragma once
/// \file stage_compose_internal.hpp
/// Private to the composed models' steering stage (stage_compose.hpp): stage_compose.cpp (the
/// driver and the combiners), stage_compose_behaviors.cpp (one batch function per behaviour and
/// the table that dispatches to them), stage_compose_neighbours.cpp (the neighbourhood kernels).
/// Not installed, not for other code.
#include <cstdint>

#include "flockstep/behavior/combine.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/behavior/steering.hpp"
#include "stage_compose.hpp"
#include "stage_forces.hpp"

namespace flockstep::sim::compose_stage {

using Tally = TechniqueTally;

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

/// Per-agent scratch of one batch: the combiner's state and the annotation.
struct Lane {
  std::int32_t i = 0;  // dense index
  std::int32_t k = 0;  // slot index (cell order)
  Vec2 pos, vel, head;
  // T78-T81: the library's combiner for the prioritised rules (running sum, dither, priority, grouped).
  behavior::PrioritizedCombiner combine{behavior::PriorityRule::kRunningSum, 0};
  RawOutput out[kMaxBehaviors];  // raw outputs of the evaluated behaviours (valid where `has` says)
  std::uint32_t has = 0;         // bit q: behaviour q produced an output
  BehaviorState st = BehaviorState::kNone;
  AgentId target;
  Vec2 aim;
};

/// What steer_composed hands each batch function: whether a lane evaluates the behaviour, and
/// the combiner's step for its output.
struct ComposeSink {
  const ComposeTables* world;
  Tally* tally;  // this task's technique counts
  const Composition* c;
  const BehaviorSpec* bs;
  std::size_t bk;
  bool prioritized;   // running_sum, dither, priority, grouped: the lane's combiner decides and takes
  bool keep_outputs;  // blend, urgency (and traced batches): the outputs are reread at the end
  // Forced inline: the kernels call these once per agent, and an out-of-line call per agent and
  // behaviour was measured at ~3 % of the mixed arena's tick.
  [[gnu::always_inline]] bool active(Lane& L) const {
    // T81: the draw comes from the agent's own stream.
    return !prioritized || L.combine.wants(world->rng[L.i], bs->probability);
  }
  /// One more agent-tick of catalog ID T<id> (the kernels call it where the technique's work is done).
  [[gnu::always_inline]] void count(int id) const { tally->add(id); }
  /// `agents` more agent-ticks of T<id>, for lanes a batch function counted itself.
  [[gnu::always_inline]] void count(int id, std::int32_t agents) const { tally->add(id, agents); }
  [[gnu::always_inline]] void emit(Lane& L, const behavior::SteeringOutput& raw) const {
    if (prioritized) L.combine.take(bs->weight, raw);
    if (keep_outputs) {
      L.out[bk].set(raw);
      L.has |= 1u << bk;
    }
  }
};

/// The output a batch function's per-lane body fills in. It reaches the combiner when the body
/// returns (whichever `return` ends it), if `produced` was set.
struct LaneOutput {
  const ComposeSink& sink;
  Lane& lane;
  behavior::SteeringOutput o{};
  bool produced = false;
  [[gnu::always_inline]] ~LaneOutput() {
    if (produced) sink.emit(lane, o);
  }
  /// Set the output and mark it produced.
  [[gnu::always_inline]] void put(const behavior::SteeringOutput& s) {
    o = s;
    produced = true;
  }
};

/// One behaviour over the lanes of a group's batch: what every batch function gets.
struct Batch {
  const ComposeTables& w;
  const GroupSpec& g;
  std::int32_t gi;
  const BehaviorSpec& bs;
  Lane* lanes;
  std::int32_t n;
  const ComposeSink& sink;

  /// The prologue every batch function shares, written once: `body(L, out)` runs for each lane
  /// the combiner still wants this behaviour for (the lazy combiners skip the rest), and `out`
  /// goes to the combiner when the body returns. Forced inline so the body inlines into the loop.
  template <class Body>
  [[gnu::always_inline]] void each(Body&& body) const {
    for (std::int32_t j = 0; j < n; ++j) {
      Lane& L = lanes[j];
      if (!sink.active(L)) continue;
      LaneOutput out{sink, L};
      body(L, out);
    }
  }
  /// The same prologue in two loops, for behaviours that batch their work: `first(L)` runs for
  /// every lane the combiner wants (asked once per lane, as each() asks: dithering draws there),
  /// then `body(L, out)` for the same lanes in the same order. Only each lane's own state is
  /// touched, so the bits are those of each().
  template <class First, class Body>
  [[gnu::always_inline]] void each_in_two(First&& first, Body&& body) const {
    bool wanted[kComposeBatch];
    for (std::int32_t j = 0; j < n; ++j) {
      wanted[j] = sink.active(lanes[j]);
      if (wanted[j]) first(lanes[j]);
    }
    for (std::int32_t j = 0; j < n; ++j) {
      if (!wanted[j]) continue;
      LaneOutput out{sink, lanes[j]};
      body(lanes[j], out);
    }
  }
  /// Accelerations are the steering model's unit: max_force / mass.
  real accel() const { return g.max_force / g.mass; }
  behavior::Body body_of(const Lane& L) const {
    return behavior::Body{L.pos, L.vel, L.head, g.mass, g.max_force, g.max_speed, g.radius};
  }
  behavior::Kinematic kin_of(const Lane& L) const {
    return behavior::Kinematic{L.pos, w.orientation_at(L.i), L.vel, w.angular_velocity[static_cast<std::size_t>(L.i)]};
  }
  /// The behaviour's target for lane L (stage::target_of): the nearest live agent of
  /// target_group, or the nearest player (-1: none); its position is taken at its torus copy
  /// nearest to the agent.
  std::int32_t target_of(const Lane& L, Vec2& tpos, behavior::Mover& tmover) const;
};

/// The slot ranges around the cell last asked for: agents are steered in slot (cell) order,
/// so consecutive agents of a batch mostly share them.
struct CellRanges {
  std::int32_t first = 0, last = 0;  ///< slots of the cached cell
  std::int32_t count = 0;
  behavior::SlotRange range[Grid::kMaxSlotRanges];
};

/// Millington's align parameters of a behaviour (T45, and face and look-where-you-are-going,
/// which delegate to it).
behavior::AlignParams align_params(const BehaviorSpec& bs);
/// One of Millington's neighbour behaviours (T55-T58, T63) for the agent at row i, slot `slot`.
behavior::SteeringOutput neighbour_behavior(const ComposeTables& w, const GroupSpec& g, std::int32_t gi,
                                            const BehaviorSpec& bs, std::int32_t i, std::int32_t slot,
                                            BehaviorState* st);
/// The flock's neighbourhood sums by candidate (the kPerNeighbour kernel, and the path for the
/// bodies the lanes leave out: more than kMaxNeighbours neighbours, or a coincident one).
behavior::FlockSums flock_sums_per_neighbour(const ComposeTables& w, const GroupSpec& g, std::int32_t gi,
                                             std::int32_t slot, std::int32_t row, behavior::Neighbour* scratch);

/// The batch functions (stage_compose_behaviors.cpp), one per behaviour family, and the table indexed by
/// BehaviorType that steer_composed dispatches through.
struct Behaviors {
  using Fn = void (*)(const Batch&);
  /// The batch function of behaviour type t. [Limit: t < BehaviorType::kCount]
  static Fn of(BehaviorType t);
  /// The World's side of the rules in stage_forces.hpp: where the others are, from its columns.
  struct Env;
  /// The World's output for those rules: straight into the lane and the task's counters.
  struct LaneSink;
  /// Rule (one of stage_forces.hpp) over the batch's lanes: wall and obstacle avoidance, flee
  /// from players, seek/flee/arrive/pursue/evade/hide, offset pursuit/interpose.
  /// `Scene` (optional): asked once per batch, false skips the batch (stage::has_walls).
  template <auto Rule, auto Scene = nullptr>
  static void forces(const Batch& b);
  static void flock(const Batch& b);
  /// T73 over the batch: stage::obstacle_avoid with each agent's list read from the obstacle
  /// cell it was sorted into, where the two grids share their cells (else through forces<>).
  static void obstacle_avoid(const Batch& b);
  static void wander(const Batch& b);
  static void follow_waypoints(const Batch& b);
  static void dynamic_point(const Batch& b);   // dynamic seek, flee, arrive; face
  static void dynamic_target(const Batch& b);  // align, velocity match, dynamic pursue, evade
  static void look_where_going(const Batch& b);
  static void dynamic_wander(const Batch& b);
  static void follow_path(const Batch& b);
  static void neighbours(const Batch& b);  // separation, attraction, cone, collision, Millington flock
  // T76 in two steps (stage_compose_neighbours.cpp), so a batch runs every lane's neighbourhood kernel
  // first and the per-boid force arithmetic after: each boid's chain of square roots and
  // divisions then overlaps its neighbours' instead of waiting behind the next kernel call.
  /// The neighbourhood sums of the boid in `slot`, stored in `row` (lane kernel, or per neighbour
  /// where it must), written into `out.sums` (out.coincident is the kernel's scratch).
  static void flock_sums_at(const ComposeTables& w, const GroupSpec& g, std::int32_t gi, std::int32_t slot,
                            std::int32_t row, behavior::Neighbour* scratch, CellRanges& cells,
                            behavior::LaneFlockResult& out);
  /// Its flock force from those sums: forces, cruise term and wander (advances the wander state
  /// and random stream of its row).
  static Vec2 flock_force_from_sums(const ComposeTables& w, const GroupSpec& g, std::int32_t row,
                                    const behavior::FlockSums& sums);
};

struct Behaviors::Env {
  const ComposeTables& w;
  const Scenario& scenario() const { return w.scenario; }
  Vec2 delta(Vec2 from, Vec2 to) const { return w.plane.delta(from, to); }
  std::span<const Circle> obstacles_near(Vec2 p) const { return w.obstacles.near(p); }
  std::int32_t nearest_player(Vec2 p, real* distance) const { return w.targets.nearest_player(p, distance); }
  std::int32_t nearest_in_group(std::int32_t group, std::int32_t self, Vec2 p) const {
    return w.targets.nearest_in_group(group, self, p, nullptr);
  }
  std::int32_t leader(std::int32_t group) const { return w.leader_index[static_cast<std::size_t>(group)]; }
  Vec2 position(std::int32_t j) const { return w.position[static_cast<std::size_t>(j)]; }
  Vec2 velocity(std::int32_t j) const { return w.velocity[static_cast<std::size_t>(j)]; }
  Vec2 heading(std::int32_t j) const { return w.heading[static_cast<std::size_t>(j)]; }
  std::int32_t group(std::int32_t j) const { return w.group[static_cast<std::size_t>(j)]; }
};

struct Behaviors::LaneSink {
  const Batch& b;
  Lane& L;
  LaneOutput& e;
  [[gnu::always_inline]] void force(Vec2 f) {
    e.o.linear = f;
    e.produced = true;
  }
  [[gnu::always_inline]] void credit(int id) { b.sink.count(id); }
  [[gnu::always_inline]] void state(BehaviorState s) { L.st = s; }
  [[gnu::always_inline]] void target(std::int32_t j) { L.target = b.w.id[static_cast<std::size_t>(j)]; }
  [[gnu::always_inline]] void aim(Vec2 p) { L.aim = p; }
};

inline std::int32_t Batch::target_of(const Lane& L, Vec2& tpos, behavior::Mover& tmover) const {
  const Behaviors::Env env{w};
  const std::int32_t tj = stage::target_of(env, bs.target_group, L.i, L.pos);
  tmover = tj >= 0 ? stage::mover_at(env, tj, L.pos) : behavior::Mover{};
  tpos = tmover.position;
  return tj;
}

}  // namespace flockstep::sim::compose_stage
