// The neighbourhood kernels of the force models: T76 flocking (the lane kernel of
// flocking_lanes.hpp, with the per-neighbour path for the bodies it leaves out) and Millington's
// neighbour behaviours (T55-T58, T63) over grid queries in cell order.
#include <algorithm>

#include "flockstep/behavior/blend.hpp"
#include "flockstep/behavior/collision_avoidance.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/separation.hpp"
#include "flockstep/behavior/steering.hpp"
#include "stage_compose_internal.hpp"

namespace flockstep::sim::compose_stage {

using behavior::SteeringOutput;

behavior::AlignParams align_params(const BehaviorSpec& bs) {
  behavior::AlignParams ap;
  ap.slow_radius = bs.slow_radius;
  ap.target_radius = bs.target_radius;
  ap.time_to_target = bs.time_to_target;
  ap.brake_inside_target = true;
  return ap;
}

behavior::SteeringOutput neighbour_behavior(const ComposeTables& w, const GroupSpec& g, std::int32_t gi,
                                            const BehaviorSpec& bs, std::int32_t i, std::int32_t slot,
                                            BehaviorState* st) {
  const real accel = g.max_force / g.mass;
  const Vec2 pos = w.position[i];
  const bool millington_flock = bs.type == BehaviorType::kMillingtonFlock;
  // Default neighbourhoods: the catalog's figures (separation threshold 2 m, cone range 10 m
  // clipped to the grid, flocking 5 m).
  real radius = bs.range > 0 ? bs.range : (millington_flock ? real(5) : real(2));
  radius = math::min(radius, w.scenario.grid_cell);
  const bool same_group_only = millington_flock;
  const std::int32_t want_group = bs.type == BehaviorType::kAttraction && bs.target_group >= 0 ? bs.target_group : -1;
  // Candidates as Kinematics (position at the torus copy nearest to this agent), at most
  // kMaxCandidates, in the grid's deterministic visiting order.
  behavior::Kinematic others[kMaxCandidates + 1];
  std::int32_t count = 0;
  std::int32_t self_index = -1;
  const behavior::Kinematic self{pos, w.orientation_at(i), w.velocity[i], w.angular_velocity[i]};
  if (millington_flock) {
    others[0] = self;
    self_index = 0;
    count = 1;
  }
  const std::span<const std::int32_t> slots = w.grid.slots();
  w.grid.query_slots(pos, radius, slot, w.position, [&](std::int32_t k, Vec2 d, real) {
    if (count >= kMaxCandidates) return;
    if (same_group_only && w.slot_group[k] != gi) return;
    if (want_group >= 0 && w.slot_group[k] != want_group) return;
    const auto j = static_cast<std::size_t>(slots[static_cast<std::size_t>(k)]);
    others[count++] = {pos + d, math::orientation_of(w.heading[j]), w.velocity[j], 0};
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

void Behaviors::flock_sums_at(const ComposeTables& w, const GroupSpec& g, std::int32_t own_group, std::int32_t slot,
                              std::int32_t row, behavior::Neighbour* nb, CellRanges& cells,
                              behavior::LaneFlockResult& out) {
  if (w.flock_kernel == World::FlockKernel::kPerNeighbour) {
    out.sums = flock_sums_per_neighbour(w, g, own_group, slot, row, nb);
    return;
  }
  // The lane kernel scans the rows of neighbour cells eight slots at a time (flocking_lanes.hpp).
  const Grid& grid = w.grid;
  if (!(slot >= cells.first && slot < cells.last)) {
    const std::int32_t cell = grid.slot_cell(slot);
    cells.count = grid.cell_ranges(cell, cells.range);
    cells.first = grid.cell_begin(cell);
    cells.last = grid.cell_end(cell);
  }
  behavior::LaneQuery q;
  q.position = w.position[row];
  q.heading = w.heading[row];
  q.self = slot;
  q.group = own_group;
  q.radius = g.flock.neighbour_radius;
  q.cos_half_fov = w.fov_cos_half[static_cast<std::size_t>(own_group)];
  q.wrap = grid.needs_fold();  // else the ranges carry their images
  q.width = w.scenario.width;
  q.height = w.scenario.height;
  const behavior::NeighbourArrays arrays{w.slot_x.data(), w.slot_y.data(), w.slot_hx.data(), w.slot_hy.data(),
                                         w.slot_group.data()};
  behavior::flock_sums_lanes(
      q, arrays, std::span<const behavior::SlotRange>(cells.range, static_cast<std::size_t>(cells.count)),
      w.flock_kernel == World::FlockKernel::kLanesScalar ? behavior::LaneKernel::kScalar : behavior::LaneKernel::kSimd,
      out);
  // Rare bodies the lanes do not express: a crowd beyond kMaxNeighbours (the nearest are kept)
  // or a neighbour exactly on top (the coincident separation rule).
  if (out.coincident || out.sums.count > kMaxNeighbours)
    out.sums = flock_sums_per_neighbour(w, g, own_group, slot, row, nb);
}

Vec2 Behaviors::flock_force_from_sums(const ComposeTables& w, const GroupSpec& g, std::int32_t row,
                                      const behavior::FlockSums& sums) {
  const Vec2 vel = w.velocity[row];
  const Vec2 head = w.heading[row];
  const behavior::Body b{w.position[row], vel, head, g.mass, g.max_force, g.max_speed, g.radius};
  const behavior::FlockForces ff = behavior::flocking_forces_from_sums(b, sums);
  Vec2 f = ff.separation * g.flock.w_separation + ff.alignment * g.flock.w_alignment +
           ff.cohesion * g.flock.w_cohesion + (head * (g.max_speed * g.flock.cruise_fraction) - vel) * g.flock.w_cruise;
  if (g.flock.w_wander > 0)
    f += behavior::wander_force(b, g.wander, w.wander[row], w.rng[row], w.dt) * g.flock.w_wander;
  return f;
}

behavior::FlockSums flock_sums_per_neighbour(const ComposeTables& w, const GroupSpec& g, std::int32_t own_group,
                                             std::int32_t slot, std::int32_t row, behavior::Neighbour* nb) {
  const std::span<const std::int32_t> slots = w.grid.slots();
  const Vec2 pos = w.position[row];
  const Vec2 vel = w.velocity[row];
  const Vec2 head = w.heading[row];
  const behavior::Body b{pos, vel, head, g.mass, g.max_force, g.max_speed, g.radius};
  // Candidates as plain arrays (a Neighbour array would be zero-filled on every call:
  // measured as a visible share of the tick). Only the kept ones become Neighbours.
  // One spare entry: the branch-free visitor writes before it knows whether it keeps.
  real cdx[kMaxCandidates + 1], cdy[kMaxCandidates + 1], cd2[kMaxCandidates + 1];
  std::int32_t cslot[kMaxCandidates + 1];
  std::int32_t n = 0;
  const real cos_half = w.fov_cos_half[static_cast<std::size_t>(own_group)];
  const bool check_fov = cos_half > -1;
  const Vec2 h = head;
  const std::int32_t* groups = w.slot_group.data();
  w.grid.query_slots(pos, g.flock.neighbour_radius, slot, w.position, [&](std::int32_t k, Vec2 d, real d2) {
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
    // Ties by id value, read through the slots (rare: crowds only).
    auto id_of = [&](std::int32_t c) {
      return w.id[static_cast<std::size_t>(slots[static_cast<std::size_t>(cslot[c])])].value;
    };
    std::partial_sort(order, order + kMaxNeighbours, order + n, [&](std::int32_t a, std::int32_t c) {
      return cd2[a] < cd2[c] || (cd2[a] == cd2[c] && id_of(a) < id_of(c));
    });
    n = kMaxNeighbours;
  }
  for (std::int32_t c = 0; c < n; ++c) {
    const std::int32_t o = order[c];
    const std::int32_t k = cslot[o];
    const auto j = static_cast<std::size_t>(slots[static_cast<std::size_t>(k)]);
    nb[c] = {pos + Vec2{cdx[o], cdy[o]}, w.velocity[j], w.heading[j]};
  }
  return behavior::flock_sums(b, std::span<const behavior::Neighbour>(nb, static_cast<std::size_t>(n)));
}

}  // namespace flockstep::sim::compose_stage
