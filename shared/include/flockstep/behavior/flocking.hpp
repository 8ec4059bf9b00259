#pragma once
/// \file flocking.hpp
/// T76 the slides' flocking forces (Buckland style): neighbour selection by radius and optional
/// field of view, separation (sum of norm(p - p_j) / |p - p_j|), alignment (average neighbour
/// heading - own heading), cohesion (seek the neighbours' centre) and their weighted combination
/// with wander, so an isolated body still moves.
///
/// The simulation gathers candidates with a spatial grid (sorted by distance and index) and
/// passes the span here. Results are deterministic for a given span; the floating-point sums
/// depend on the order only in the last bits, never in meaning.
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// What flocking needs to know about another body.
struct Neighbour {
  Vec2 position;  ///< m
  Vec2 velocity;  ///< m/s
  Vec2 heading;   ///< unit vector
};

/// T76 neighbourhood: who counts as a neighbour.
struct NeighbourhoodParams {
  real radius = 5.0;  ///< neighbourhood radius, m; a body at exactly this distance counts. [Limit: >= 0]
  /// Full field-of-view angle centred on the heading, rad. >= 2 pi (default) means all round;
  /// the slides' variation is pi (180 deg, everything in front). [Limit: 0..2 pi]
  real field_of_view = math::kTwoPi;
};

/// T76 true when a body at `position` is a neighbour of `self`: within the radius and inside the
/// field of view. A body exactly at self's position has no bearing and always counts (the caller
/// excludes self by identity, not by position).
bool is_neighbour(const Body& self, Vec2 position, const NeighbourhoodParams& p);

/// T76 neighbour selection: copies the candidates that pass `is_neighbour` into `out`, in input
/// order, and returns how many were written. Stops when `out` is full (so with a sorted input the
/// nearest are kept). No allocation.
std::int32_t select_neighbours(const Body& self, std::span<const Neighbour> candidates, const NeighbourhoodParams& p,
                               std::span<Neighbour> out);

/// Smallest distance separation divides by, m. Keeps a nearly coincident neighbour's push finite
/// (at most 1 / kSeparationMinDistance = 1000 per neighbour); the combined force is truncated to
/// max_force later anyway.
inline constexpr real kSeparationMinDistance = 1e-3;

/// T76 separation: sum over neighbours of norm(p - p_j) / |p - p_j| (magnitude 1/d, away from
/// each). A neighbour exactly at p has no direction: it pushes along norm(v - v_j), else along
/// norm(heading - heading_j), at magnitude 1 / kSeparationMinDistance; if self and neighbour
/// are identical in all three it contributes nothing (no pure rule can tell them apart). Never NaN.
Vec2 separation_force(const Body& self, std::span<const Neighbour> neighbours);

/// T76 alignment: average neighbour heading - own heading. Zero with no neighbours.
Vec2 alignment_force(const Body& self, std::span<const Neighbour> neighbours);

/// T76 cohesion: seek (T64, normalized mode) the average neighbour position. Zero with no
/// neighbours.
Vec2 cohesion_force(const Body& self, std::span<const Neighbour> neighbours);

/// The three flocking forces of one body and how many neighbours produced them.
struct FlockForces {
  Vec2 separation;         ///< sum of away / distance, 1/m
  Vec2 alignment;          ///< average heading - own heading, unitless
  Vec2 cohesion;           ///< seek(centre) force, m/s (desired - current velocity)
  std::int32_t count = 0;  ///< number of neighbours used
};

/// T76 all three forces in one pass over an already selected neighbour span: the sums of
/// flock_sums() in list order, finished by flocking_forces_from_sums().
FlockForces flocking_forces(const Body& self, std::span<const Neighbour> neighbours);

/// What the three forces need from a neighbourhood, as sums: the form both the per-neighbour loop
/// and the batched lane kernel (flocking_lanes.hpp) produce. Offsets are neighbour - self, so the
/// cohesion centre is exact across a wrapped world's seam and far from the origin.
struct FlockSums {
  Vec2 separation;         ///< sum of away / distance (separation terms), 1/m
  Vec2 heading_sum;        ///< sum of neighbour headings
  Vec2 offset_sum;         ///< sum of (neighbour position - own position), m
  std::int32_t count = 0;  ///< neighbours summed
};

/// T76 one neighbour's separation term: away / |away| / max(|away|, kSeparationMinDistance) with
/// away = self - neighbour; the coincident rule of separation_force() when |away| = 0.
Vec2 separation_term(const Body& self, const Neighbour& n);

/// T76 the sums over a neighbour span, in list order.
FlockSums flock_sums(const Body& self, std::span<const Neighbour> neighbours);

/// T76 the forces from the sums: alignment = heading_sum / count - heading, cohesion = seek
/// (normalised) of position + offset_sum / count. Zero forces for count 0.
FlockForces flocking_forces_from_sums(const Body& self, const FlockSums& s);

/// T76 weights of the flocking combination (unitless multipliers; tuned by trial and error, the
/// seed gives none). Different weights give different kinds of flock. The defaults were tuned for
/// max_speed 4, max_force 8, mass 1, radius 6 and the default WanderParams: a dozen bodies align
/// (polarisation ~0.99) into a ~4 m flock cruising at ~3.4 m/s. Note that cohesion = seek(centre)
/// contains a -v term that acts as drag: without the wander term's forward push a flock stalls,
/// and a large cohesion weight makes it mill around its centre instead of aligning.
struct FlockWeights {
  real separation = 1.0;  ///< [Limit: >= 0]
  real alignment = 3.0;   ///< [Limit: >= 0]
  real cohesion = 0.5;    ///< [Limit: >= 0]
  real wander = 1.0;      ///< [Limit: >= 0]
};

/// T76 flock = w_sep separation + w_ali alignment + w_coh cohesion + w_wan wander (N, not
/// truncated: the Body update or combine.hpp limits it). With no neighbours the result is exactly
/// w_wan * wander, so an isolated body keeps wandering.
Vec2 flock_force(const FlockForces& f, Vec2 wander, const FlockWeights& w);

}  // namespace flockstep::behavior
