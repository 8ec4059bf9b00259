#include "flockstep/sim/grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "flockstep/math/rng.hpp"

namespace flockstep::sim {
namespace {

std::vector<Vec2> random_points(std::int32_t n, real w, real h, std::uint64_t seed) {
  math::Rng rng = math::Rng::seeded(seed);
  std::vector<Vec2> p(static_cast<std::size_t>(n));
  for (auto& v : p) v = {rng.uniform(0, w), rng.uniform(0, h)};
  return p;
}

// Neighbour sets must match an O(N^2) scan exactly (catalog Part I: grid == brute force).
void check_against_brute_force(bool wrap) {
  const real w = 100, h = 60, radius = 7;
  const auto pts = random_points(600, w, h, wrap ? 7 : 3);
  Grid grid;
  grid.init(w, h, radius, wrap, 600);
  grid.rebuild(pts);
  for (std::int32_t i = 0; i < 600; ++i) {
    std::vector<std::int32_t> got, want;
    grid.query(pts[i], radius, i, pts, [&](std::int32_t j, Vec2 d, real d2) {
      got.push_back(j);
      EXPECT_DOUBLE_EQ(math::length_sq(d), d2);
    });
    for (std::int32_t j = 0; j < 600; ++j) {
      if (j == i) continue;
      const Vec2 d = wrap ? math::torus_delta(pts[i], pts[j], w, h) : pts[j] - pts[i];
      if (math::length_sq(d) <= radius * radius) want.push_back(j);
    }
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << "agent " << i;
  }
}

TEST(Grid, NeighboursMatchBruteForce) { check_against_brute_force(false); }
TEST(Grid, T14_WrappedNeighboursMatchBruteForceAcrossEdges) { check_against_brute_force(true); }

TEST(Grid, QueryOrderIsDeterministicAndAscendingWithinCells) {
  const auto pts = random_points(300, 50, 50, 11);
  Grid a, b;
  a.init(50, 50, 5, false, 300);
  b.init(50, 50, 5, false, 300);
  a.rebuild(pts);
  b.rebuild(pts);
  for (std::int32_t i = 0; i < 300; i += 7) {
    std::vector<std::int32_t> oa, ob;
    a.query(pts[i], 5, i, pts, [&](std::int32_t j, Vec2, real) { oa.push_back(j); });
    b.query(pts[i], 5, i, pts, [&](std::int32_t j, Vec2, real) { ob.push_back(j); });
    EXPECT_EQ(oa, ob);
  }
}

TEST(Grid, TinyWrappedWorldVisitsEachCellOnce) {
  // 2 x 1 cells with wrap: a naive 3x3 walk would visit cells twice and report duplicates.
  const std::vector<Vec2> pts{{1, 1}, {9, 1}, {5, 4}};
  Grid g;
  g.init(10, 5, 5, true, 3);
  g.rebuild(pts);
  std::vector<std::int32_t> seen;
  g.query(pts[0], 5, 0, pts, [&](std::int32_t j, Vec2, real) { seen.push_back(j); });
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::int32_t>{1, 2}));
}

TEST(Grid, PositionsOutsideTheWorldAreClampedNotOutOfRange) {
  const std::vector<Vec2> pts{{-5, -5}, {105, 30}, {50, 1e9}};
  Grid g;
  g.init(100, 100, 10, false, 3);
  g.rebuild(pts);
  std::int32_t n = 0;
  g.query({0, 0}, 10, -1, pts, [&](std::int32_t, Vec2, real) { ++n; });
  EXPECT_EQ(n, 1);  // only (-5,-5) is within 10 m of the origin
}

// The tick's neighbour queries name agents by slot (query_slots): they must see exactly the
// agents query() sees, in the same order and with the same bits, or the flocking sums (and the
// golden hashes) change.
void check_slot_query_matches_query(real w, real h, real cell, bool wrap, std::int32_t n, std::uint64_t seed) {
  const auto pts = random_points(n, w, h, seed);
  Grid g;
  g.init(w, h, cell, wrap, n);
  g.rebuild(pts);
  const std::span<const std::int32_t> slots = g.slots();
  ASSERT_EQ(slots.size(), static_cast<std::size_t>(n));
  std::vector<std::int32_t> slot_of(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < slots.size(); ++k)
    slot_of[static_cast<std::size_t>(slots[k])] = static_cast<std::int32_t>(k);
  std::int64_t visits = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    std::vector<std::tuple<std::int32_t, real, real, real>> want, got;
    g.query(pts[i], cell, i, pts, [&](std::int32_t j, Vec2 d, real d2) { want.emplace_back(j, d.x, d.y, d2); });
    g.query_slots(pts[i], cell, slot_of[static_cast<std::size_t>(i)], pts, [&](std::int32_t k, Vec2 d, real d2) {
      got.emplace_back(slots[static_cast<std::size_t>(k)], d.x, d.y, d2);
    });
    ASSERT_EQ(got, want) << "agent " << i;
    visits += static_cast<std::int64_t>(got.size());
  }
  EXPECT_GT(visits, n);  // dense enough that the comparison is not vacuous
}

TEST(Grid, SlotQueryVisitsWhatQueryVisitsInTheSameOrder) { check_slot_query_matches_query(100, 60, 7, false, 800, 5); }
TEST(Grid, T14_WrappedSlotQueryVisitsWhatQueryVisitsAcrossEdges) {
  check_slot_query_matches_query(100, 60, 7, true, 800, 9);
}
TEST(Grid, SlotQueryOnTinyWrappedWorldMatchesQuery) { check_slot_query_matches_query(14, 7, 7, true, 60, 13); }

/// The ids each cell lists, cell by cell, after a rebuild of `pts` stored in `perm` order.
std::vector<std::uint32_t> cell_sequence(const std::vector<Vec2>& pts, const std::vector<std::int32_t>& perm,
                                         bool by_id) {
  std::vector<Vec2> stored;
  std::vector<AgentId> ids;
  for (const std::int32_t p : perm) {
    stored.push_back(pts[static_cast<std::size_t>(p)]);
    ids.push_back(AgentId{(1u << AgentId::kSlotBits) | static_cast<std::uint32_t>(p)});
  }
  Grid grid;
  grid.init(100, 60, 7, true, static_cast<std::int32_t>(pts.size()));
  if (by_id) grid.rebuild(stored, ids);
  else grid.rebuild(stored);
  std::vector<std::uint32_t> seq;
  for (const std::int32_t i : grid.slots()) seq.push_back(ids[static_cast<std::size_t>(i)].slot());
  return seq;
}

TEST(Grid, WithIdsEachCellListsItsAgentsInIdOrderWhereverTheirRowsAreStored) {
  // The World moves rows into cell order; the order a query visits a cell's agents in (and so
  // every neighbour sum) must not move with them. Two storage orders of the same 600 agents:
  const auto pts = random_points(600, 100, 60, 11);
  std::vector<std::int32_t> identity(600), shuffled(600);
  for (std::int32_t i = 0; i < 600; ++i) identity[static_cast<std::size_t>(i)] = i;
  shuffled = identity;
  math::Rng rng = math::Rng::seeded(5);
  for (std::size_t i = shuffled.size() - 1; i > 0; --i)
    std::swap(shuffled[i], shuffled[static_cast<std::size_t>(rng.next_u32() % (i + 1))]);
  EXPECT_EQ(cell_sequence(pts, identity, true), cell_sequence(pts, shuffled, true));
  // Control: without the ids a cell lists its agents in storage order, which moved.
  EXPECT_NE(cell_sequence(pts, identity, false), cell_sequence(pts, shuffled, false));
  EXPECT_EQ(cell_sequence(pts, identity, false), cell_sequence(pts, identity, true));
}

}  // namespace
}  // namespace flockstep::sim
