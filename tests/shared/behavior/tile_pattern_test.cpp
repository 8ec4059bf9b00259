#include "flockstep/behavior/tile_pattern.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <vector>

namespace fb = flockstep::behavior;
using fb::Tile;

namespace {

constexpr std::array<Tile, 5> kRectangle{{{10, 3}, {18, 3}, {18, 12}, {10, 12}, {10, 3}}};
constexpr std::array<Tile, 3> kBackAndForth{{{10, 3}, {18, 3}, {10, 3}}};
constexpr std::array<Tile, 9> kComplexPatrol{
    {{4, 2}, {4, 11}, {2, 24}, {13, 27}, {16, 24}, {13, 17}, {13, 13}, {17, 5}, {4, 2}}};

// The seed track (Example 3-10..3-12).
fb::TileTrack seed_track() {
  fb::TileTrack t;
  fb::clear_track(t);
  fb::mark_track_segment(t, {3, 2}, {16, 2});
  fb::mark_track_segment(t, {16, 2}, {16, 11});
  fb::mark_track_segment(t, {16, 11}, {9, 11});
  fb::mark_track_segment(t, {9, 11}, {9, 2});
  fb::mark_track_segment(t, {9, 6}, {3, 6});
  fb::mark_track_segment(t, {3, 6}, {3, 2});
  return t;
}

// Reference: absolute tiles of a vertex list, each segment rasterised separately (start included).
std::vector<Tile> absolute_tiles(std::span<const Tile> v) {
  std::vector<Tile> all;
  for (std::size_t i = 1; i < v.size(); ++i) {
    std::vector<Tile> seg(static_cast<std::size_t>(fb::line_tile_count(v[i - 1], v[i])));
    fb::rasterize_line(v[i - 1], v[i], seg);
    all.insert(all.end(), seg.begin(), seg.end());
  }
  return all;
}

int chebyshev(Tile a, Tile b) { return std::max(std::abs(a.row - b.row), std::abs(a.col - b.col)); }

}  // namespace

// ---------------------------------------------------------------- T26

TEST(TilePattern, T26_InitializeFillsBothArraysWithMinusOne) {
  fb::TilePathPattern p;
  fb::initialize_path(p);
  for (std::size_t i = 0; i < fb::kMaxPathLength; ++i) {
    EXPECT_EQ(p.path_row[i], -1);
    EXPECT_EQ(p.path_col[i], -1);
  }
  EXPECT_EQ(fb::path_append_index(p), 0);
  fb::normalize_pattern(p);
  EXPECT_EQ(p.path_size, -1);
  EXPECT_EQ(fb::path_entry_count(p), 0);
}

TEST(TilePattern, T26_RectangleHas38EntriesPathSize37) {
  fb::TilePathPattern p;
  EXPECT_EQ(fb::build_path_pattern(p, kRectangle), 38);
  EXPECT_EQ(p.path_size, 37);
  EXPECT_EQ(fb::path_entry(p, 0), (Tile{0, 0}));
  EXPECT_EQ(fb::path_entry(p, 37), (Tile{0, 0}));
  // Shared corners stored twice: (18,3) -> relative (8,0) at entries 8 and 9.
  EXPECT_EQ(fb::path_entry(p, 8), (Tile{8, 0}));
  EXPECT_EQ(fb::path_entry(p, 9), (Tile{8, 0}));
  EXPECT_EQ(fb::path_entry(p, 18), (Tile{8, 9}));
  EXPECT_EQ(fb::path_entry(p, 19), (Tile{8, 9}));
  EXPECT_EQ(p.path_row[38], -1);  // sentinel right after the last entry
  EXPECT_EQ(p.path_col[38], -1);
  EXPECT_EQ(fb::pattern_anchor(p), (Tile{5, 2}));  // seed offsets
}

TEST(TilePattern, T26_BackAndForthHas18AndComplexPatrolHas76Entries) {
  fb::TilePathPattern p;
  EXPECT_EQ(fb::build_path_pattern(p, kBackAndForth), 18);
  EXPECT_EQ(p.path_size, 17);
  EXPECT_EQ(fb::path_entry(p, 17), (Tile{0, 0}));
  EXPECT_EQ(fb::build_path_pattern(p, kComplexPatrol), 76);
  EXPECT_EQ(p.path_size, 75);
  EXPECT_EQ(fb::path_entry(p, 75), (Tile{0, 0}));
}

TEST(TilePattern, T26_ConsecutiveEntriesAdjacentAndPauseOnlyAtVertices) {
  for (const std::span<const Tile> v : {std::span<const Tile>(kRectangle), std::span<const Tile>(kBackAndForth),
                                        std::span<const Tile>(kComplexPatrol)}) {
    fb::TilePathPattern p;
    const std::int32_t n = fb::build_path_pattern(p, v);
    int pauses = 0;
    for (std::int32_t i = 1; i < n; ++i) {
      const int d = chebyshev(fb::path_entry(p, i - 1), fb::path_entry(p, i));
      EXPECT_LE(d, 1);
      pauses += d == 0 ? 1 : 0;
    }
    // One duplicated tile per interior vertex: segments - 1.
    EXPECT_EQ(pauses, static_cast<int>(v.size()) - 2);
  }
}

TEST(TilePattern, T26_NormalizedPatternIndependentOfAbsoluteStart) {
  fb::TilePathPattern a;
  fb::TilePathPattern b;
  std::array<Tile, 9> shifted = kComplexPatrol;
  for (Tile& t : shifted) t = {t.row + 7, t.col + 3};
  fb::build_path_pattern(a, kComplexPatrol);
  fb::build_path_pattern(b, shifted);
  EXPECT_EQ(a.path_size, b.path_size);
  EXPECT_EQ(a.path_row, b.path_row);
  EXPECT_EQ(a.path_col, b.path_col);
}

TEST(TilePattern, T26_SeedLiteralAppendSearchWouldOverwriteFirstSegment) {
  // Erratum Part J 1: the seed looks for pathCol == 1, never matches on a -1 array and appends
  // at 0 every time, overwriting the first segment. The corrected search appends after it.
  fb::TilePathPattern p;
  fb::initialize_path(p);
  EXPECT_EQ(fb::build_path_segment(p, 10, 3, 18, 3), 9);
  EXPECT_EQ(fb::path_append_index(p, false), 9);
  EXPECT_EQ(fb::path_append_index(p, true), 0);
  EXPECT_EQ(fb::build_path_segment(p, 18, 3, 18, 12), 10);
  EXPECT_EQ(p.path_row[0], 10);  // first segment intact
  EXPECT_EQ(p.path_row[9], 18);
  EXPECT_EQ(p.path_col[9], 3);
  EXPECT_EQ(p.path_col[18], 12);
  EXPECT_EQ(fb::path_append_index(p, false), 19);
}

TEST(TilePattern, T26_FullArraySetsPathSizeAndTruncates) {
  fb::TilePathPattern p;
  fb::initialize_path(p);
  EXPECT_EQ(fb::build_path_segment(p, 0, 0, 0, 200), 201);
  EXPECT_EQ(fb::build_path_segment(p, 0, 200, 100, 200), fb::kMaxPathLength - 201);  // truncated
  EXPECT_EQ(fb::path_append_index(p), fb::kMaxPathLength);
  EXPECT_EQ(fb::build_path_segment(p, 0, 0, 5, 5), 0);  // no room
  fb::normalize_pattern(p);
  EXPECT_EQ(p.path_size, fb::kMaxPathLength - 1);  // the seed would leave it unset
  EXPECT_EQ(fb::path_entry(p, fb::kMaxPathLength - 1), (Tile{fb::kMaxPathLength - 202, 200}));
  // Normalising twice is a no-op, and appending to a normalised pattern is refused.
  fb::normalize_pattern(p);
  EXPECT_EQ(fb::path_entry(p, 1), (Tile{0, 1}));
  EXPECT_EQ(fb::build_path_segment(p, 0, 0, 1, 1), 0);
}

// ---------------------------------------------------------------- T27

TEST(TilePattern, T27_BackAtAnchorAfterPathSizePlusOneTicks) {
  fb::TilePathPattern p;
  fb::build_path_pattern(p, kRectangle);
  const Tile anchor = fb::pattern_anchor(p);
  fb::TilePatrolState s;
  fb::start_patrol(s, p, anchor);
  EXPECT_EQ(s.tile, anchor);
  for (int t = 0; t < p.path_size + 1; ++t) {
    ASSERT_TRUE(fb::patrol_step(s, p, anchor, false));
    if (t < p.path_size) {
      EXPECT_NE(s.index, 0);
    }
  }
  EXPECT_EQ(s.index, 0);
  EXPECT_EQ(s.tile, anchor);
}

TEST(TilePattern, T27_VisitsExactlyTheRasterisedTilesInOrder) {
  fb::TilePathPattern p;
  fb::build_path_pattern(p, kComplexPatrol);
  const Tile anchor{5, 2};
  const auto ref = absolute_tiles(kComplexPatrol);
  ASSERT_EQ(ref.size(), 76u);
  fb::TilePatrolState s;
  fb::start_patrol(s, p, anchor);
  for (std::size_t k = 0; k < 2 * ref.size(); ++k) {
    const Tile want = ref[k % ref.size()];
    EXPECT_EQ(s.tile, (Tile{anchor.row + want.row - 4, anchor.col + want.col - 2})) << "tick " << k;
    fb::patrol_step(s, p, anchor, false);
  }
}

TEST(TilePattern, T27_MovingTheAnchorTranslatesTheVisitSequence) {
  fb::TilePathPattern p;
  fb::build_path_pattern(p, kRectangle);
  fb::TilePatrolState a;
  fb::TilePatrolState b;
  fb::start_patrol(a, p, {5, 2});
  fb::start_patrol(b, p, {20, -4});
  for (int t = 0; t < 50; ++t) {
    EXPECT_EQ(b.tile.row - a.tile.row, 15);
    EXPECT_EQ(b.tile.col - a.tile.col, -6);
    fb::patrol_step(a, p, {5, 2}, false);
    fb::patrol_step(b, p, {20, -4}, false);
  }
}

TEST(TilePattern, T27_EnemyInRangeStopsAdvancementAndTrollChases) {
  // Troll patrols the back-and-forth pattern at the seed anchor; an enemy stands still at
  // (15, 5). When it is within 4 tiles (Chebyshev) the patrol stops on that tick and the troll
  // switches to T22 line-of-sight chase, reaching the enemy in max(|dR|, |dC|) ticks.
  fb::TilePathPattern p;
  fb::build_path_pattern(p, kBackAndForth);
  const Tile anchor = fb::pattern_anchor(p);
  const Tile enemy{15, 5};
  fb::TilePatrolState s;
  fb::start_patrol(s, p, anchor);
  int tick = 0;
  while (s.patrolling && tick < 100) {
    const bool in_range = chebyshev(s.tile, enemy) <= 4;
    const Tile before = s.tile;
    const std::int32_t index_before = s.index;
    const bool moved = fb::patrol_step(s, p, anchor, in_range);
    EXPECT_EQ(moved, !in_range);
    if (in_range) {
      EXPECT_EQ(s.tile, before);  // no advancement on the event tick
      EXPECT_EQ(s.index, index_before);
    }
    ++tick;
  }
  ASSERT_FALSE(s.patrolling);
  EXPECT_EQ(s.tile, (Tile{11, 2}));  // first patrol tile within 4 tiles of the enemy
  // Not patrolling: later ticks do not move it even without the event.
  EXPECT_FALSE(fb::patrol_step(s, p, anchor, false));
  EXPECT_EQ(s.tile, (Tile{11, 2}));
  // Chase.
  Tile troll = s.tile;
  std::array<Tile, 64> line{};
  const std::int32_t n = fb::rasterize_line(troll, enemy, line);
  int chase_ticks = 0;
  for (std::int32_t i = 1; i < n; ++i, ++chase_ticks) troll = line[static_cast<std::size_t>(i)];
  EXPECT_EQ(troll, enemy);
  EXPECT_EQ(chase_ticks, 4);
  // Resuming continues from the stored index.
  s.patrolling = true;
  EXPECT_TRUE(fb::patrol_step(s, p, anchor, false));
  EXPECT_EQ(s.tile, (Tile{12, 2}));
}

// ---------------------------------------------------------------- T28

TEST(TilePattern, T28_SeedTrackHas47TilesWithJunctionsAt9_2And9_6) {
  const fb::TileTrack t = seed_track();
  EXPECT_EQ(fb::track_tile_count(t), 47);
  std::vector<Tile> junctions;
  for (std::int32_t r = 0; r < fb::kMaxTrackRows; ++r) {
    for (std::int32_t c = 0; c < fb::kMaxTrackCols; ++c) {
      if (!fb::on_track(t, {r, c})) continue;
      const int n4 = int{fb::on_track(t, {r - 1, c})} + int{fb::on_track(t, {r + 1, c})} +
                     int{fb::on_track(t, {r, c - 1})} + int{fb::on_track(t, {r, c + 1})};
      if (n4 >= 3) junctions.push_back({r, c});
    }
  }
  ASSERT_EQ(junctions.size(), 2u);
  EXPECT_EQ(junctions[0], (Tile{9, 2}));
  EXPECT_EQ(junctions[1], (Tile{9, 6}));
}

TEST(TilePattern, T28_EveryMoveOnTrackAdjacentAndNeverBackToPrevious) {
  const fb::TileTrack t = seed_track();
  auto rng = flockstep::math::Rng::seeded(28);
  fb::TrackFollower f;
  f.current = {3, 2};
  for (int step = 0; step < 3000; ++step) {
    const Tile before = f.current;
    const Tile prev = f.previous;
    const Tile now = fb::follow_track(f, t, rng);
    EXPECT_TRUE(fb::on_track(t, now));
    EXPECT_EQ(chebyshev(before, now), 1);
    EXPECT_FALSE(f.dead_end);  // the seed track is a closed network
    EXPECT_NE(now, prev) << "step " << step;
    EXPECT_EQ(f.previous, before);
  }
}

TEST(TilePattern, T28_JunctionFromAboveTakesEveryBranch) {
  const fb::TileTrack t = seed_track();
  std::array<Tile, 8> cand{};
  ASSERT_EQ(fb::track_candidates(t, {9, 6}, {8, 6}, cand), 2);
  EXPECT_EQ(cand[0], (Tile{9, 5}));  // table order: left before right
  EXPECT_EQ(cand[1], (Tile{9, 7}));
  auto rng = flockstep::math::Rng::seeded(2806);
  int left = 0, right = 0;
  for (int trial = 0; trial < 400; ++trial) {
    fb::TrackFollower f{{9, 6}, {8, 6}};
    const Tile next = fb::follow_track(f, t, rng);
    EXPECT_EQ(f.candidate_count, 2);
    if (next == Tile{9, 5}) ++left;
    else if (next == Tile{9, 7}) ++right;
    else ADD_FAILURE() << "left the junction to (" << next.row << "," << next.col << ")";
  }
  EXPECT_GT(left, 150);  // uniform: 200 +- ~3 sigma
  EXPECT_GT(right, 150);
  // (9,2) from above: on along the top row or on down column 2.
  ASSERT_EQ(fb::track_candidates(t, {9, 2}, {8, 2}, cand), 2);
  EXPECT_EQ(cand[0], (Tile{9, 3}));
  EXPECT_EQ(cand[1], (Tile{10, 2}));
}

TEST(TilePattern, T28_StraightRunWalkedDeterministicallyWithoutRandomness) {
  const fb::TileTrack t = seed_track();
  for (const std::uint64_t seed : {1u, 2u, 99u}) {
    auto rng = flockstep::math::Rng::seeded(seed);
    const auto rng_before = rng;
    fb::TrackFollower f{{16, 4}, {16, 3}};
    for (int c = 5; c <= 10; ++c) EXPECT_EQ(fb::follow_track(f, t, rng), (Tile{16, c}));
    EXPECT_EQ(rng.state, rng_before.state);  // single candidates draw nothing
  }
}

TEST(TilePattern, T28_CornerCuttingCandidatesDocumented) {
  // Moving up column 2 toward the (3,2) corner, the 8-neighbourhood also offers the diagonal
  // (3,3): the entity may cut the corner (catalog T28 edge case).
  const fb::TileTrack t = seed_track();
  std::array<Tile, 8> cand{};
  ASSERT_EQ(fb::track_candidates(t, {4, 2}, {5, 2}, cand), 2);
  EXPECT_EQ(cand[0], (Tile{3, 2}));
  EXPECT_EQ(cand[1], (Tile{3, 3}));
}

TEST(TilePattern, T28_DeadEndFallsBackToPreviousTile) {
  fb::TileTrack t;
  fb::clear_track(t);
  EXPECT_EQ(fb::mark_track_segment(t, {5, 5}, {5, 10}), 6);
  auto rng = flockstep::math::Rng::seeded(7);
  fb::TrackFollower f{{5, 8}, {5, 7}};
  EXPECT_EQ(fb::follow_track(f, t, rng), (Tile{5, 9}));
  EXPECT_EQ(fb::follow_track(f, t, rng), (Tile{5, 10}));
  EXPECT_FALSE(f.dead_end);
  EXPECT_EQ(fb::follow_track(f, t, rng), (Tile{5, 9}));  // dead end: back where it came from
  EXPECT_TRUE(f.dead_end);
  EXPECT_EQ(f.candidate_count, 0);
  EXPECT_EQ(fb::follow_track(f, t, rng), (Tile{5, 8}));  // and onward, no jitter
  EXPECT_FALSE(f.dead_end);
  // An isolated tile with no previous tile: stays put (no Rnd(0,-1)).
  fb::TileTrack lone;
  fb::clear_track(lone);
  fb::mark_track_segment(lone, {2, 2}, {2, 2});
  fb::TrackFollower g{{2, 2}};
  EXPECT_EQ(fb::follow_track(g, lone, rng), (Tile{2, 2}));
  EXPECT_TRUE(g.dead_end);
  EXPECT_EQ(g.previous, (Tile{-1, -1}));
}

TEST(TilePattern, T28_AMapSizedTrackBeyondTheSeedMatrixIsWalkedByTheSameRule) {
  // The world walks matrices the size of its tile map (a 3 x 40 corridor here, wider than the
  // seed's 32 columns) through a TrackView.
  std::vector<std::uint8_t> cells(3 * 40, 0);
  for (std::int32_t c = 0; c < 40; ++c) cells[static_cast<std::size_t>(40 + c)] = 1;  // row 1
  const fb::TrackView view{cells.data(), 3, 40};
  EXPECT_TRUE(fb::on_track(view, {1, 39}));
  EXPECT_FALSE(fb::on_track(view, {1, 40}));
  EXPECT_FALSE(fb::on_track(view, {0, 39}));
  auto rng = flockstep::math::Rng::seeded(28);
  fb::TrackFollower f{{1, 30}, {1, 29}};
  for (std::int32_t c = 31; c < 40; ++c) EXPECT_EQ(fb::follow_track(f, view, rng), (Tile{1, c}));
  EXPECT_EQ(fb::follow_track(f, view, rng), (Tile{1, 38}));  // the end of the corridor: turn back
  EXPECT_TRUE(f.dead_end);
}

TEST(TilePattern, T28_MarkTrackSegmentFillsAMapSizedMatrixClippedToItsOwnBounds) {
  // The world builds its map-sized track matrices with this function (3 x 40 here).
  std::vector<std::uint8_t> cells(3 * 40, 0);
  EXPECT_EQ(fb::mark_track_segment({cells.data(), 3, 40}, {1, -5}, {1, 45}), 40);  // clipped to 40 columns
  EXPECT_EQ(fb::mark_track_segment({cells.data(), 3, 40}, {1, 0}, {1, 39}), 0);    // already marked
  EXPECT_EQ(fb::mark_track_segment({cells.data(), 3, 40}, {0, 35}, {5, 35}), 2);   // rows 0 and 2 only
  const fb::TrackView view{cells.data(), 3, 40};
  for (std::int32_t c = 0; c < 40; ++c) EXPECT_TRUE(fb::on_track(view, {1, c}));
  EXPECT_TRUE(fb::on_track(view, {0, 35}));
  EXPECT_TRUE(fb::on_track(view, {2, 35}));
  EXPECT_FALSE(fb::on_track(view, {0, 34}));
  std::int32_t marked = 0;
  for (const std::uint8_t c : cells) marked += c;
  EXPECT_EQ(marked, 42);
}

TEST(TilePattern, T28_BoundsCheckedAtMatrixEdges) {
  fb::TileTrack t;
  fb::clear_track(t);
  // Only the in-bounds part of a line that starts outside the matrix is marked.
  EXPECT_EQ(fb::mark_track_segment(t, {-3, -3}, {3, 3}), 4);
  EXPECT_EQ(fb::mark_track_segment(t, {0, 0}, {0, 31}), 31);
  EXPECT_EQ(fb::mark_track_segment(t, {31, 31}, {31, 40}), 1);
  EXPECT_FALSE(fb::on_track(t, {-1, -1}));
  EXPECT_FALSE(fb::on_track(t, {0, 32}));
  EXPECT_FALSE(fb::on_track(t, {32, 0}));
  auto rng = flockstep::math::Rng::seeded(3);
  fb::TrackFollower f{{0, 5}, {0, 6}};
  for (int i = 0; i < 40; ++i) {
    const Tile now = fb::follow_track(f, t, rng);
    EXPECT_TRUE(fb::on_track(t, now));
  }
  fb::TrackFollower corner{{31, 31}};
  EXPECT_EQ(fb::follow_track(corner, t, rng), (Tile{31, 31}));  // isolated corner tile, in bounds
}
