// The state hash's two hashers: RowSetHasher (the world's state hash, the same in any row order)
// and StateHasher (byte-serial FNV-1a, for files and records).
#include "flockstep/sim/state_hash.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <vector>

#include "flockstep/math/rng.hpp"

namespace flockstep::sim {
namespace {

using Row = std::vector<std::uint64_t>;

std::vector<Row> random_rows(std::size_t n, std::size_t words, std::uint64_t seed) {
  math::Rng rng = math::Rng::seeded(seed);
  std::vector<Row> rows(n, Row(words));
  for (Row& r : rows)
    for (std::uint64_t& w : r) w = static_cast<std::uint64_t>(rng.next_u32()) << 32 | rng.next_u32();
  return rows;
}

/// The digest of `rows` visited in `order`, after the world-like header words.
std::uint64_t digest(const std::vector<Row>& rows, const std::vector<std::size_t>& order) {
  RowSetHasher h;
  for (std::size_t i : order) {
    h.begin_row();
    for (std::uint64_t w : rows[i]) h.u64(w);
    h.end_row();
  }
  return h.value({42, rows.size(), 7});
}

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  return order;
}

TEST(StateHash, RowSetHasherGivesTheSameDigestInEveryRowOrder) {
  const auto rows = random_rows(64, 18, 1);
  auto order = identity(rows.size());
  const std::uint64_t first = digest(rows, order);
  math::Rng rng = math::Rng::seeded(2);
  for (int k = 0; k < 50; ++k) {
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.next_u32() % i]);
    ASSERT_EQ(digest(rows, order), first) << "permutation " << k;
  }
}

TEST(StateHash, RowSetHasherSeesEveryBitOfEveryWord) {
  auto rows = random_rows(8, 18, 3);
  const auto order = identity(rows.size());
  const std::uint64_t base = digest(rows, order);
  int unchanged = 0;
  for (Row& r : rows)
    for (std::uint64_t& w : r)
      for (int bit = 0; bit < 64; ++bit) {
        w ^= std::uint64_t{1} << bit;
        unchanged += digest(rows, order) == base;
        w ^= std::uint64_t{1} << bit;
      }
  EXPECT_EQ(unchanged, 0);
}

TEST(StateHash, RowSetHasherSeesTwoRowsExchangingAValue) {
  // The world's rows start with the agent's id, so one agent's velocity moving to another is a
  // different state even though the multiset of all words is the same.
  auto rows = random_rows(16, 18, 4);
  const auto order = identity(rows.size());
  const std::uint64_t base = digest(rows, order);
  int unchanged = 0;
  for (std::size_t word = 1; word < 18; ++word)
    for (std::size_t a = 0; a + 1 < rows.size(); ++a) {
      std::swap(rows[a][word], rows[a + 1][word]);
      unchanged += digest(rows, order) == base;
      std::swap(rows[a][word], rows[a + 1][word]);
    }
  EXPECT_EQ(unchanged, 0);
}

TEST(StateHash, RowSetHasherSeesWordsMovingWithinARowAndTheHeader) {
  auto rows = random_rows(4, 18, 5);
  const auto order = identity(rows.size());
  const std::uint64_t base = digest(rows, order);
  std::swap(rows[2][3], rows[2][4]);
  EXPECT_NE(digest(rows, order), base);
  std::swap(rows[2][3], rows[2][4]);
  RowSetHasher h;
  for (const Row& r : rows) {
    h.begin_row();
    for (std::uint64_t w : r) h.u64(w);
    h.end_row();
  }
  EXPECT_EQ(h.value({42, rows.size(), 7}), base);
  EXPECT_NE(h.value({43, rows.size(), 7}), base);
  EXPECT_NE(h.value({42, rows.size(), 8}), base);
}

TEST(StateHash, ControlAPlainSumOfFinalisedWordsCannotTellTwoRowsExchangingAValue) {
  // What the per-row chain is for: without it (each word finalised on its own and summed), the
  // exchange above leaves the digest as it was.
  auto rows = random_rows(2, 18, 4);
  const auto plain = [&] {
    std::uint64_t s = 0;
    for (const Row& r : rows)
      for (std::size_t k = 0; k < r.size(); ++k) s += RowSetHasher::finalise(r[k] + k);
    return s;
  };
  const std::uint64_t base = plain();
  std::swap(rows[0][5], rows[1][5]);
  EXPECT_EQ(plain(), base);
}

TEST(StateHash, StateHasherIsFnv1a64) {
  // The published FNV-1a 64 test vectors: "" and "a".
  StateHasher empty;
  EXPECT_EQ(empty.value(), 0xcbf29ce484222325ULL);
  StateHasher a;
  constexpr std::string_view text = "a";
  a.bytes(text.data(), text.size());
  EXPECT_EQ(a.value(), 0xaf63dc4c8601ec8cULL);
}

}  // namespace
}  // namespace flockstep::sim
