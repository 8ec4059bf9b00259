// The composed models' steering stage (stage_compose.hpp): for each group present in a task, one
// batch function per behaviour over the group's lanes (dispatched through Behaviors' table,
// stage_compose_behaviors.cpp), then the combiner per agent (compose.hpp). This file is the
// driver: the lanes' set-up, the combiners, the write-back and the traces; the neighbourhood
// kernels are in stage_compose_neighbours.cpp.
#include <algorithm>
#include <new>
#include <type_traits>

#include "flockstep/behavior/blend.hpp"
#include "flockstep/behavior/motion.hpp"
#include "flockstep/behavior/steering.hpp"
#include "stage_compose_internal.hpp"

namespace flockstep::sim {

using behavior::SteeringOutput;

namespace compose_stage {
/// Called by the one task that steers the traced agent's batch: one writer per entry.
void record_trace(const ComposeTables& w, std::size_t t, const Lane& L, const Composition& c,
                  const behavior::SteeringOutput& result) {
  SteeringTrace& tr = w.traces[t];
  tr.tick = w.tick + 1;
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
}  // namespace compose_stage

void steer_composed(const ComposeTables& w, std::int32_t gi, const std::int32_t* slot_list, std::int32_t n,
                    TechniqueTally& tally) {
  using namespace compose_stage;
  const GroupSpec& g = w.scenario.groups[static_cast<std::size_t>(gi)];
  const Composition& c = w.compose[static_cast<std::size_t>(gi)];
  const bool vehicle = w.group_model[static_cast<std::size_t>(gi)] == Model::kVehicle;
  // Vehicles combine forces (N) under max_force; steering agents accelerations under max_force / mass.
  const real budget = vehicle ? g.max_force : g.max_force / g.mass;
  const behavior::BlendParams clip{budget, c.max_angular};
  const std::span<const std::int32_t> slots = w.grid.slots();
  const auto nb = static_cast<std::size_t>(c.behaviors.size());
  const bool prioritized = c.combiner == Combiner::kRunningSum || c.combiner == Combiner::kDither ||
                           c.combiner == Combiner::kPriority || c.combiner == Combiner::kGrouped;
  const behavior::PriorityRule rule = c.combiner == Combiner::kDither     ? behavior::PriorityRule::kDither
                                      : c.combiner == Combiner::kPriority ? behavior::PriorityRule::kPriority
                                      : c.combiner == Combiner::kGrouped  ? behavior::PriorityRule::kGrouped
                                                                          : behavior::PriorityRule::kRunningSum;

  // Only the n lanes in use are constructed (a default-constructed array of kComposeBatch lanes
  // zeroed ~20 KB per call: measured 10 % of the mixed arena's tick, whose groups are small).
  alignas(Lane) unsigned char lane_storage[sizeof(Lane) * kComposeBatch];
  Lane* lanes = reinterpret_cast<Lane*>(lane_storage);
  static_assert(std::is_trivially_destructible_v<Lane>);
  // Steering traces (the inspector): which lanes of this batch are traced. Their batch keeps
  // every raw output; that changes what is stored, never what is computed.
  std::int32_t traced_lane[kMaxTraced];
  bool traced_here = false;
  for (std::size_t t = 0; t < w.traced_index.size(); ++t) {
    traced_lane[t] = -1;
    if (w.traced_index[t] < 0 || w.group[w.traced_index[t]] != gi) continue;
    for (std::int32_t j = 0; j < n; ++j)
      if (slots[static_cast<std::size_t>(slot_list[j])] == w.traced_index[t]) {
        traced_lane[t] = j;
        traced_here = true;
      }
  }
  for (std::int32_t j = 0; j < n; ++j) {
    Lane& L = *new (&lanes[j]) Lane;  // default member initialisers; the output slots stay raw
    L.k = slot_list[j];
    L.i = slots[static_cast<std::size_t>(L.k)];
    L.pos = w.position[L.i];
    L.vel = w.velocity[L.i];
    L.head = w.heading[L.i];
    L.combine = behavior::PrioritizedCombiner{rule, budget, c.epsilon};
    L.aim = L.pos;
  }

  for (std::size_t bk = 0; bk < nb; ++bk) {
    const BehaviorSpec& bs = c.behaviors[bk];
    if (!(bs.weight > 0)) continue;  // T09: a zero weight switches the behaviour off
    // T80: entering a new priority group, the previous group's blend decides if it is non-zero.
    if (c.combiner == Combiner::kGrouped)
      for (std::int32_t j = 0; j < n; ++j) lanes[j].combine.enter_group(bs.priority);
    // The combiner's step for this behaviour, fused into the kernel's loop: which lanes evaluate
    // it (the lazy combiners skip the rest) and what happens to each output (measured: separate
    // loops cost the mixed arena's many small batches ~5 % of its tick).
    ComposeSink sink{&w,
                     &tally,
                     &c,
                     &bs,
                     bk,
                     prioritized,
                     traced_here || c.combiner == Combiner::kBlend || c.combiner == Combiner::kUrgency};
    Behaviors::of(bs.type)(Batch{w, g, gi, bs, lanes, n, sink});
  }

  for (std::int32_t j = 0; j < n; ++j) {
    Lane& L = lanes[j];
    SteeringOutput r{};
    switch (c.combiner) {
      case Combiner::kRunningSum:
      case Combiner::kDither:
      case Combiner::kPriority:
      case Combiner::kGrouped:
        r = L.combine.result(c.max_angular);
        if (c.combiner == Combiner::kDither) {
          tally.add(81);
        } else if (c.combiner == Combiner::kPriority) {
          tally.add(78);
        } else if (c.combiner == Combiner::kGrouped) {
          tally.add(80);
        } else {
          tally.add(79);
          tally.add(9);  // layers in priority order, weight 0 switching one off
        }
        break;
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
    if (traced_here)
      for (std::size_t t = 0; t < w.traced_index.size(); ++t)
        if (traced_lane[t] == j) record_trace(w, t, L, c, r);
    w.force[L.i] = r.linear;
    if (!vehicle) w.kin_rotation[L.i] = r.angular;  // vehicles never read it
    w.target[L.i] = L.target;
    w.aim[L.i] = L.aim;
    w.state[L.i] = L.st;
  }
}

}  // namespace flockstep::sim
