// Storage in cell order (World::set_reorder_interval): every few ticks the World moves its rows
// into the neighbour grid's cell order. The rows move; what the world computes must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/state_hash.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::sim {
namespace {

struct PairRun {
  std::int64_t differing_ticks = 0;       ///< ticks whose state hash (agents by id) differed
  std::int64_t dense_digest_differs = 0;  ///< ticks whose digest of the rows in storage order differed
  std::int64_t reorders = 0;              ///< reorders the reordering world did
  std::int64_t despawns = 0;              ///< swap-removes during the run (players leaving, a group shrunk)
};

/// A digest of the rows in the order they are stored (what the state hash deliberately is not).
std::uint64_t dense_digest(const World& w) {
  StateHasher h;
  for (std::int32_t i = 0; i < w.size(); ++i) {
    h.u32(w.id_at(i).value);
    h.vec(w.view(i).position);
  }
  return h.value();
}

/// The same scenario stepped twice with the same commands: one world reorders its rows every
/// `interval` ticks, the other never. Players join and leave and the first group shrinks and
/// grows back mid-run, so swap-removes and respawns shuffle the rows too.
PairRun run_pair(const Scenario& s, std::int32_t interval, std::int32_t ticks) {
  World a(s), b(s);
  a.set_reorder_interval(interval);
  b.set_reorder_interval(0);
  std::vector<AgentId> pa, pb;
  PairRun r;
  for (std::int32_t t = 0; t < ticks; ++t) {
    if (t % 40 == 0 && pa.size() < 3) {
      pa.push_back(a.add_player());
      pb.push_back(b.add_player());
    }
    if (t % 90 == 89 && !pa.empty()) {
      a.remove(pa.front());
      b.remove(pb.front());
      pa.erase(pa.begin());
      pb.erase(pb.begin());
    }
    if ((t == ticks / 3 || t == 2 * ticks / 3) && !s.groups.empty()) {
      GroupSpec g = s.groups[0];
      if (t == ticks / 3) g.count = g.count > 3 ? g.count * 2 / 3 : g.count;
      EXPECT_EQ(a.set_group(0, g), "");
      EXPECT_EQ(b.set_group(0, g), "");
    }
    for (std::size_t k = 0; k < pa.size(); ++k) {
      const PlayerInput in = canonical::evasive_input(a.tick() + 37 * k);
      a.set_input(pa[k], in);
      b.set_input(pb[k], in);
    }
    a.step();
    b.step();
    for (const Event& e : a.events()) r.despawns += e.type == Event::Type::kDespawn ? 1 : 0;
    r.differing_ticks += a.state_hash() != b.state_hash() ? 1 : 0;
    r.dense_digest_differs += dense_digest(a) != dense_digest(b) ? 1 : 0;
  }
  r.reorders = a.reorders();
  EXPECT_EQ(b.reorders(), 0);
  return r;
}

void expect_same_bits(const char* name, const Scenario& s, std::int32_t interval, std::int32_t ticks) {
  const PairRun r = run_pair(s, interval, ticks);
  std::printf(
      "[figures] %s, reorder every %d ticks: %lld reorders, %lld despawns, rows stored differently on "
      "%lld of %d ticks, state differing on %lld\n",
      name, interval, static_cast<long long>(r.reorders), static_cast<long long>(r.despawns),
      static_cast<long long>(r.dense_digest_differs), ticks, static_cast<long long>(r.differing_ticks));
  EXPECT_EQ(r.differing_ticks, 0) << name;
  // Not vacuous: rows really moved (the reordering world stored them differently most of the
  // time), and swap-removes happened as well.
  EXPECT_GT(r.reorders, 0) << name;
  EXPECT_GT(r.dense_digest_differs, ticks / 2) << name;
  EXPECT_GT(r.despawns, 0) << name;
}

TEST(WorldStorage, ReorderingTheRowsNeverChangesTheBitsOfAFlock) {
  expect_same_bits("flock 2,000", canonical::flock(2000), World::kReorderIntervalTicks, 400);
  expect_same_bits("flock 2,000", canonical::flock(2000), 1, 120);
}

TEST(WorldStorage, ReorderingTheRowsNeverChangesTheBitsOfTheMixedArena) {
  expect_same_bits("mixed arena", canonical::mixed(), World::kReorderIntervalTicks, 600);
  expect_same_bits("mixed arena", canonical::mixed(), 3, 200);
}

TEST(WorldStorage, ReorderingTheRowsNeverChangesTheBitsOfPursuitAndPatrols) {
  expect_same_bits("pursuit", canonical::pursuit(), World::kReorderIntervalTicks, 600);
  expect_same_bits("patrols", canonical::patrols(), World::kReorderIntervalTicks, 600);
}

/// Share of neighbouring rows whose cells ascend, right after a tick that reordered.
double rows_in_cell_order(std::int32_t interval) {
  const Scenario s = canonical::flock(5000);
  World w(s);
  w.set_reorder_interval(interval);
  for (std::int32_t t = 0; t < 33; ++t) w.step();  // the last step is tick 32: a reorder with 16
  const auto cols = static_cast<std::int32_t>(std::floor(s.width / s.grid_cell));
  const auto rows = static_cast<std::int32_t>(std::floor(s.height / s.grid_cell));
  auto cell = [&](Vec2 p) {
    const auto cx = static_cast<std::int32_t>(std::floor(p.x * cols / s.width));
    const auto cy = static_cast<std::int32_t>(std::floor(p.y * rows / s.height));
    return cy * cols + cx;
  };
  std::int32_t ascending = 0;
  for (std::int32_t i = 1; i < w.size(); ++i) ascending += cell(w.view(i).position) >= cell(w.view(i - 1).position);
  return static_cast<double>(ascending) / (w.size() - 1);
}

TEST(WorldStorage, AfterAReorderTheRowsAreInCellOrder) {
  // One tick of motion after the reorder moves a few agents across a border, so nearly all.
  const double reordered = rows_in_cell_order(World::kReorderIntervalTicks);
  EXPECT_GT(reordered, 0.95);
  // Control: never reordered, the rows stay in spawn order, which is random in space.
  const double never = rows_in_cell_order(0);
  EXPECT_LT(never, 0.6);
  std::printf("[figures] flock 5,000: rows in ascending cell order %.3f reordered, %.3f never\n", reordered, never);
}

TEST(WorldStorage, AfterAReorderEachGroupIsOneRunOfRows) {
  // Rows are ordered by group first, then by cell: integrate updates each group's vehicles in
  // one run (one call per run of one group), so a cell-only order would cut the mixed arena's
  // groups into many short runs. A player joins after spawn and leaves, so rows also move by
  // swap-remove before the reorder at tick 32.
  World w(canonical::mixed());
  const AgentId p = w.add_player();
  const AgentId q = w.add_player();
  for (std::int32_t t = 0; t < 33; ++t) {
    if (t == 5) w.remove(p);
    w.step();
  }
  (void)q;
  std::vector<std::int32_t> seen;
  std::int32_t runs = 0;
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const std::int32_t g = w.view(i).group;
    if (i > 0 && g == w.view(i - 1).group) continue;
    ++runs;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), g), 0) << "group " << g << " is split";
    seen.push_back(g);
  }
  EXPECT_EQ(runs, static_cast<std::int32_t>(seen.size()));
  EXPECT_GT(w.reorders(), 0);
  EXPECT_EQ(w.view(0).kind, AgentKind::kPlayer);  // players (no group) first
}

}  // namespace
}  // namespace flockstep::sim
