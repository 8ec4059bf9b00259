// Tests for the slides' flocking forces (catalog T76).
#include "flockstep/behavior/flocking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/force_steering.hpp"

namespace flockstep::behavior {
namespace {

using math::distance;
using math::length;

constexpr real kDt = 1.0 / 60.0;

Body body_at(Vec2 p, Vec2 heading = {1, 0}) {
  Body b;
  b.position = p;
  b.heading = heading;
  b.max_speed = 4;
  b.max_force = 8;
  return b;
}

Neighbour neighbour_at(Vec2 p, Vec2 heading = {1, 0}, Vec2 v = {}) { return {p, v, heading}; }

TEST(Flocking, T76_SeparationFromOneNeighbourHasMagnitudeOneOverD) {
  const Body self = body_at({1, 1});
  for (real d : {0.25, 1.0, 2.0, 7.5}) {
    const std::array<Neighbour, 1> n{neighbour_at(Vec2{1, 1} + math::as_vector(0.7) * d)};
    const Vec2 f = separation_force(self, n);
    EXPECT_NEAR(length(f), 1.0 / d, 1e-15 / d);
    const Vec2 away = self.position - n[0].position;
    EXPECT_NEAR(math::cross(f, away), 0.0, 1e-14);
    EXPECT_GT(math::dot(f, away), 0.0);
  }
  // Two neighbours on opposite sides at equal distance cancel; a nearer one dominates.
  const std::array<Neighbour, 2> both{neighbour_at({3, 1}), neighbour_at({-1, 1})};
  EXPECT_NEAR(length(separation_force(self, both)), 0.0, 1e-15);
  const std::array<Neighbour, 2> uneven{neighbour_at({2, 1}), neighbour_at({-3, 1})};
  EXPECT_NEAR(separation_force(self, uneven).x, -1.0 + 0.25, 1e-15);
}

TEST(Flocking, T76_CoincidentNeighbourIsFiniteAndDeterministic) {
  Body a = body_at({5, 5});
  a.velocity = {1, 0};
  const Neighbour b_as_neighbour = neighbour_at({5, 5}, {1, 0}, {0, 1});
  const Vec2 fa = separation_force(a, std::span<const Neighbour>(&b_as_neighbour, 1));
  EXPECT_TRUE(math::is_finite(fa));
  EXPECT_NEAR(length(fa), 1.0 / kSeparationMinDistance, 1e-9);
  // The partner's view gives the opposite push, so the pair separates.
  Body b = body_at({5, 5});
  b.velocity = {0, 1};
  const Neighbour a_as_neighbour = neighbour_at({5, 5}, {1, 0}, {1, 0});
  const Vec2 fb = separation_force(b, std::span<const Neighbour>(&a_as_neighbour, 1));
  EXPECT_NEAR(distance(fa, -fb), 0.0, 1e-9);
  // Same velocity: the headings break the tie; identical in everything: no push, still no NaN.
  const Neighbour same_v_other_heading = neighbour_at({5, 5}, {0, 1}, {1, 0});
  EXPECT_GT(length(separation_force(a, std::span<const Neighbour>(&same_v_other_heading, 1))), 0.0);
  const Neighbour twin = neighbour_at({5, 5}, {1, 0}, {1, 0});
  EXPECT_EQ(separation_force(a, std::span<const Neighbour>(&twin, 1)), (Vec2{}));
  // Nearly coincident (d^2 would underflow): clamped magnitude, right direction.
  const Neighbour tiny = neighbour_at({5 - 1e-200, 5});
  const Vec2 ft = separation_force(a, std::span<const Neighbour>(&tiny, 1));
  EXPECT_TRUE(math::is_finite(ft));
  EXPECT_NEAR(ft.x, 1.0 / kSeparationMinDistance, 1e-9);
  // The whole flocking pass stays finite too.
  const FlockForces all = flocking_forces(a, std::span<const Neighbour>(&twin, 1));
  EXPECT_TRUE(math::is_finite(all.separation) && math::is_finite(all.alignment) && math::is_finite(all.cohesion));
}

TEST(Flocking, T76_AlignmentIsZeroWhenHeadingsAreEqual) {
  const Vec2 h = math::as_vector(1.1);
  const Body self = body_at({0, 0}, h);
  const std::array<Neighbour, 3> n{neighbour_at({1, 0}, h), neighbour_at({0, 2}, h), neighbour_at({-1, -1}, h)};
  EXPECT_NEAR(length(alignment_force(self, n)), 0.0, 1e-15);
  // Otherwise: average heading - own heading.
  const std::array<Neighbour, 2> m{neighbour_at({1, 0}, {0, 1}), neighbour_at({0, 2}, {0, -1})};
  const Body east = body_at({0, 0}, {1, 0});
  EXPECT_EQ(alignment_force(east, m), (Vec2{-1, 0}));
  const std::array<Neighbour, 2> north{neighbour_at({1, 0}, {0, 1}), neighbour_at({0, 2}, {0, 1})};
  EXPECT_EQ(alignment_force(east, north), (Vec2{-1, 1}));
}

TEST(Flocking, T76_CohesionSeeksTheCentroid) {
  Body self = body_at({0, 0});
  self.velocity = {0, 0};
  const std::array<Neighbour, 3> n{neighbour_at({3, 0}), neighbour_at({3, 6}), neighbour_at({6, 3})};
  const Vec2 centroid{4, 3};
  const Vec2 f = cohesion_force(self, n);
  EXPECT_EQ(f, seek_force(self, centroid));
  EXPECT_NEAR(math::cross(f, centroid), 0.0, 1e-12);
  EXPECT_GT(math::dot(f, centroid), 0.0);
  EXPECT_NEAR(length(f), self.max_speed, 1e-12);
}

TEST(Flocking, T76_NoNeighboursGivesExactlyTheWeightedWanderTerm) {
  const Body self = body_at({0, 0});
  const FlockForces none = flocking_forces(self, {});
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.separation, (Vec2{}));
  EXPECT_EQ(none.alignment, (Vec2{}));  // no 0/0 (slides' erratum)
  EXPECT_EQ(none.cohesion, (Vec2{}));
  const FlockWeights w{2.0, 3.0, 4.0, 0.7};
  const Vec2 wander{0.3, -1.9};
  EXPECT_EQ(flock_force(none, wander, w), wander * 0.7);
  // With neighbours the force is the full weighted sum.
  const std::array<Neighbour, 1> one{neighbour_at({2, 0}, {0, 1})};
  const FlockForces f = flocking_forces(self, one);
  EXPECT_EQ(f.count, 1);
  EXPECT_EQ(flock_force(f, wander, w), f.separation * 2.0 + f.alignment * 3.0 + f.cohesion * 4.0 + wander * 0.7);
  // A wandering isolated body actually moves (the reason wander is in the mix).
  Body lone = body_at({0, 0});
  Rng rng = Rng::seeded(76);
  const WanderParams wp{};
  WanderState ws = wander_init(wp, rng);
  for (int t = 0; t < 120; ++t) {
    body_update(lone, flock_force(flocking_forces(lone, {}), wander_force(lone, wp, ws, rng, kDt), w), kDt);
  }
  EXPECT_GT(length(lone.position), 0.5);
}

TEST(Flocking, T76_NeighbourOutsideRadiusOrFieldOfViewIsIgnored) {
  const Body self = body_at({0, 0}, {1, 0});
  NeighbourhoodParams all_round{3.0};
  EXPECT_TRUE(is_neighbour(self, {3, 0}, all_round));  // exactly on the radius counts
  EXPECT_FALSE(is_neighbour(self, {3.0001, 0}, all_round));
  EXPECT_TRUE(is_neighbour(self, {-2, 0}, all_round));  // behind, but no field of view set
  NeighbourhoodParams front{3.0, math::kPi};            // the slides' 180 deg variation
  EXPECT_TRUE(is_neighbour(self, {2, 1}, front));
  EXPECT_TRUE(is_neighbour(self, {0, 2}, front));  // abeam is the edge of a 180 deg view
  EXPECT_FALSE(is_neighbour(self, {-0.01, 2}, front));
  EXPECT_FALSE(is_neighbour(self, {-2, 0}, front));
  EXPECT_TRUE(is_neighbour(self, {0, 0}, front));  // coincident has no bearing: counts
  // Through select_neighbours: only the visible ones reach the forces.
  const std::array<Neighbour, 4> candidates{neighbour_at({1, 0}), neighbour_at({-1, 0}), neighbour_at({10, 0}),
                                            neighbour_at({0, -1})};
  std::array<Neighbour, 4> out{};
  const std::int32_t n = select_neighbours(self, candidates, front, out);
  ASSERT_EQ(n, 2);
  EXPECT_EQ(out[0].position, (Vec2{1, 0}));
  EXPECT_EQ(out[1].position, (Vec2{0, -1}));
  // Ignored bodies have no influence at all: forces equal those from the visible ones alone.
  const FlockForces from_selected = flocking_forces(self, std::span<const Neighbour>(out.data(), 2));
  const std::array<Neighbour, 2> visible{candidates[0], candidates[3]};
  const FlockForces direct = flocking_forces(self, visible);
  EXPECT_EQ(from_selected.separation, direct.separation);
  EXPECT_EQ(from_selected.cohesion, direct.cohesion);
}

TEST(Flocking, T76_SelectNeighboursStopsWhenBufferIsFull) {
  const Body self = body_at({0, 0});
  std::array<Neighbour, 6> candidates{};
  for (std::size_t i = 0; i < candidates.size(); ++i) candidates[i] = neighbour_at({0.5 * static_cast<real>(i + 1), 0});
  std::array<Neighbour, 3> out{};
  EXPECT_EQ(select_neighbours(self, candidates, NeighbourhoodParams{}, out), 3);
  EXPECT_EQ(out[2].position, (Vec2{1.5, 0}));  // input order kept: the first three
  EXPECT_EQ(select_neighbours(self, candidates, NeighbourhoodParams{}, std::span<Neighbour>{}), 0);
}

TEST(Flocking, T76_CombinedPassEqualsTheSingleForceFunctions) {
  Body self = body_at({0.5, -0.25}, math::as_vector(0.4));
  self.velocity = {1, 0.5};
  const std::array<Neighbour, 4> n{neighbour_at({1, 1}, math::as_vector(1.0), {1, 1}),
                                   neighbour_at({-2, 0.5}, math::as_vector(-0.3), {0, 2}),
                                   neighbour_at({0.5, -0.25}, math::as_vector(2.0), {-1, 0}),  // coincident
                                   neighbour_at({3, -2}, math::as_vector(3.0), {})};
  const FlockForces f = flocking_forces(self, n);
  EXPECT_EQ(f.count, 4);
  EXPECT_EQ(f.separation, separation_force(self, n));
  EXPECT_EQ(f.alignment, alignment_force(self, n));
  EXPECT_EQ(f.cohesion, cohesion_force(self, n));
  // Another order changes at most the last bits (the grid's order is fixed, so bits are stable).
  std::array<Neighbour, 4> reversed = n;
  std::reverse(reversed.begin(), reversed.end());
  const FlockForces r = flocking_forces(self, reversed);
  EXPECT_NEAR(distance(f.separation, r.separation), 0.0, 1e-9);
  EXPECT_NEAR(distance(f.alignment, r.alignment), 0.0, 1e-12);
  EXPECT_NEAR(distance(f.cohesion, r.cohesion), 0.0, 1e-12);
  EXPECT_EQ(flocking_forces(self, n).separation, f.separation);  // deterministic
}

TEST(Flocking, T76_FlockStaysCohesiveAlignedAndSeparated) {
  // 12 bodies on a jittered grid with random headings; all-pairs candidates (radius 6, 270 deg),
  // default weights with each body's own wander term.
  constexpr int kN = 12;
  std::array<Body, kN> bodies{};
  Rng rng = Rng::seeded(7676);
  for (int i = 0; i < kN; ++i) {
    Body& b = bodies[static_cast<std::size_t>(i)];
    b = body_at({static_cast<real>(i % 4) * 2.0 + rng.uniform(-0.3, 0.3),
                 static_cast<real>(i / 4) * 2.0 + rng.uniform(-0.3, 0.3)},
                math::as_vector(rng.uniform(-math::kPi, math::kPi)));
    b.velocity = b.heading * 2.0;
  }
  auto polarisation = [&] {
    Vec2 s;
    for (const Body& b : bodies) s += b.heading;
    return length(s) / kN;
  };
  const real initial_polarisation = polarisation();
  const NeighbourhoodParams np{6.0, 1.5 * math::kPi};
  const FlockWeights w{};  // defaults: 1 / 3 / 0.5 / 1
  const WanderParams wp{};
  std::array<WanderState, kN> wander{};
  for (WanderState& s : wander) s = wander_init(wp, rng);
  real min_gap_late = 1e9;
  std::array<Neighbour, kN> candidates{};
  std::array<Neighbour, kN> selected{};
  std::array<Vec2, kN> forces{};
  for (int t = 0; t < 600; ++t) {
    // Compute-then-commit, as the simulation does.
    for (int i = 0; i < kN; ++i) {
      int c = 0;
      for (int j = 0; j < kN; ++j) {
        if (j == i) continue;
        const Body& o = bodies[static_cast<std::size_t>(j)];
        candidates[static_cast<std::size_t>(c++)] = {o.position, o.velocity, o.heading};
      }
      const Body& self = bodies[static_cast<std::size_t>(i)];
      const std::int32_t n = select_neighbours(
          self, std::span<const Neighbour>(candidates.data(), static_cast<std::size_t>(c)), np, selected);
      const Vec2 wf = wander_force(self, wp, wander[static_cast<std::size_t>(i)], rng, kDt);
      forces[static_cast<std::size_t>(i)] = flock_force(
          flocking_forces(self, std::span<const Neighbour>(selected.data(), static_cast<std::size_t>(n))), wf, w);
    }
    for (int i = 0; i < kN; ++i)
      body_update(bodies[static_cast<std::size_t>(i)], forces[static_cast<std::size_t>(i)], kDt);
    if (t >= 300) {
      for (int i = 0; i < kN; ++i)
        for (int j = i + 1; j < kN; ++j)
          min_gap_late = math::min(min_gap_late, distance(bodies[static_cast<std::size_t>(i)].position,
                                                          bodies[static_cast<std::size_t>(j)].position));
    }
  }
  Vec2 centre;
  for (const Body& b : bodies) {
    ASSERT_TRUE(math::is_finite(b.position));
    centre += b.position / kN;
  }
  real spread = 0;
  for (const Body& b : bodies) spread = math::max(spread, distance(b.position, centre));
  EXPECT_GT(polarisation(), initial_polarisation + 0.3);
  EXPECT_GT(polarisation(), 0.9);
  EXPECT_LT(spread, 6.0);
  EXPECT_GT(min_gap_late, 0.2);
  real speed = 0;
  for (const Body& b : bodies) speed += length(b.velocity) / kN;
  EXPECT_GT(speed, 2.0);  // cruising, not stalled or milling
}

}  // namespace
}  // namespace flockstep::behavior
