#include "flockstep/behavior/flocking.hpp"

#include <cmath>

#include "flockstep/behavior/force_steering.hpp"

namespace flockstep::behavior {

// One neighbour's separation push: (p - p_j) / |p - p_j|^2, i.e. unit away-vector over distance.
Vec2 separation_term(const Body& self, const Neighbour& n) {
  const Vec2 away = self.position - n.position;
  const real d = math::length(away);
  if (d > 0) {
    // Clamp the divisor so a nearly coincident neighbour gives a large but finite push. Divide
    // by d twice rather than by d*d: d*d underflows to 0 for d < 1e-162.
    const real dc = math::max(d, kSeparationMinDistance);
    return (away / d) / dc;
  }
  // Coincident: pick a direction from data that differs between the two bodies, so the pair
  // receives opposite pushes and separates. Evaluated identically on every machine.
  Vec2 dir = math::normalized(self.velocity - n.velocity);
  if (math::is_zero(dir)) dir = math::normalized(self.heading - n.heading);
  return dir / kSeparationMinDistance;
}

bool is_neighbour(const Body& self, Vec2 position, const NeighbourhoodParams& p) {
  const Vec2 to = position - self.position;
  const real d2 = math::length_sq(to);
  if (d2 > p.radius * p.radius) return false;
  if (p.field_of_view >= math::kTwoPi || d2 == 0) return true;
  // Inside the cone iff the angle to the heading is at most half the field of view:
  // dot(h, to) >= cos_half |to| with cos_half the cosine of fov/2. The >= keeps the 180 deg view's abeam bodies (dot =
  // 0) visible, unlike Bourg's strict test (catalog Part J item 5).
  real cos_half = math::sin_cos(0.5 * p.field_of_view).cos;
  // The cosine of pi/2 evaluates to 6e-17, not 0: snap it so a 180 deg view includes abeam bodies exactly.
  if (std::abs(cos_half) < 1e-15) cos_half = 0;
  return math::dot(math::normalized(self.heading), to) >= cos_half * math::sqrt(d2);
}

std::int32_t select_neighbours(const Body& self, std::span<const Neighbour> candidates, const NeighbourhoodParams& p,
                               std::span<Neighbour> out) {
  const auto capacity = static_cast<std::int32_t>(out.size());
  std::int32_t written = 0;
  for (const Neighbour& c : candidates) {
    if (written == capacity) break;
    if (is_neighbour(self, c.position, p)) out[written++] = c;
  }
  return written;
}

Vec2 separation_force(const Body& self, std::span<const Neighbour> neighbours) {
  Vec2 sum;
  for (const Neighbour& n : neighbours) sum += separation_term(self, n);
  return sum;
}

Vec2 alignment_force(const Body& self, std::span<const Neighbour> neighbours) {
  if (neighbours.empty()) return {};  // erratum: the slides divide by the count unguarded
  Vec2 sum;
  for (const Neighbour& n : neighbours) sum += n.heading;
  return sum / static_cast<real>(neighbours.size()) - self.heading;
}

Vec2 cohesion_force(const Body& self, std::span<const Neighbour> neighbours) {
  if (neighbours.empty()) return {};
  Vec2 offsets;  // summed relative to self, as flocking_forces() does
  for (const Neighbour& n : neighbours) offsets += n.position - self.position;
  return seek_force(self, self.position + offsets / static_cast<real>(neighbours.size()), SeekMode::kNormalized);
}

FlockForces flocking_forces(const Body& self, std::span<const Neighbour> neighbours) {
  return flocking_forces_from_sums(self, flock_sums(self, neighbours));
}

FlockSums flock_sums(const Body& self, std::span<const Neighbour> neighbours) {
  FlockSums s;
  for (const Neighbour& n : neighbours) {
    s.separation += separation_term(self, n);
    s.heading_sum += n.heading;
    s.offset_sum += n.position - self.position;
  }
  s.count = static_cast<std::int32_t>(neighbours.size());
  return s;
}

FlockForces flocking_forces_from_sums(const Body& self, const FlockSums& s) {
  FlockForces f;
  f.count = s.count;
  if (s.count == 0) return f;
  const auto count = static_cast<real>(s.count);
  f.separation = s.separation;
  f.alignment = s.heading_sum / count - self.heading;
  f.cohesion = seek_force(self, self.position + s.offset_sum / count, SeekMode::kNormalized);
  return f;
}

Vec2 flock_force(const FlockForces& f, Vec2 wander, const FlockWeights& w) {
  const Vec2 wander_term = wander * w.wander;
  if (f.count == 0) return wander_term;  // exactly the wander term for an isolated body
  return f.separation * w.separation + f.alignment * w.alignment + f.cohesion * w.cohesion + wander_term;
}

}  // namespace flockstep::behavior
