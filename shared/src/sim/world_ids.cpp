// Agent storage: generational ids over dense structure-of-arrays indices (Box2D-style handles).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "world_impl.hpp"

namespace flockstep::sim {

AgentId WorldImpl::allocate(std::int32_t group, AgentKind kind, Model motion) {
  if (free_slots_.empty()) return {};
  const std::int32_t slot = free_slots_.back();
  free_slots_.pop_back();
  std::uint32_t& gen = slot_generation_[slot];
  gen = (gen + 1) & 0xFFFu;
  if (gen == 0) gen = 1;  // generation 0 would make id 0 valid-looking
  const AgentId id{(gen << AgentId::kSlotBits) | static_cast<std::uint32_t>(slot)};
  const std::int32_t i = count_++;
  slot_dense_[slot] = i;
  id_[i] = id;
  kind_[i] = kind;
  motion_[i] = motion;
  group_[i] = group;
  position_[i] = {};
  velocity_[i] = {};
  heading_[i] = {1, 0};
  orientation_[i] = 0;
  angular_velocity_[i] = 0;
  rng_[i] = math::Rng::seeded(world_rng_.next_u32(), id.value);
  wander_[i] = {};
  waypoint_[i] = {};
  pattern_[i] = {};
  chase_mode_[i] = behavior::ChaseMode::intercept;
  input_[i] = {};
  spawn_tick_[i] = tick_;
  force_[i] = {};
  thrusters_[i] = {};
  target_[i] = {};
  aim_[i] = {};
  state_[i] = BehaviorState::kNone;
  tile_[i] = {};
  fly_[i] = {};
  ray_state_[i] = {};
  kin_rotation_[i] = 0;
  dyn_wander_[i] = {};
  kpattern_[i] = {};
  path_state_[i] = {};
  if (!smoother_.empty()) smoother_[i] = {};
  return id;
}

void WorldImpl::free_index(std::int32_t i) {
  const std::int32_t last = count_ - 1;
  slot_dense_[id_[i].slot()] = -1;
  free_slots_.push_back(static_cast<std::int32_t>(id_[i].slot()));
  if (i != last) {
    // Swap-remove keeps storage dense; every SoA column moves together.
    for_each_column(
        [&](auto& column) { column[static_cast<std::size_t>(i)] = column[static_cast<std::size_t>(last)]; });
    slot_dense_[id_[i].slot()] = i;
  }
  --count_;
}

namespace {
/// One block of rows of one column gathered into the scratch in the new order, or copied back.
/// Typed, so that each row's copy is a fixed-size move the compiler inlines: with the row size
/// known only at run time it was a call to memcpy per row and column (56 million calls for a
/// million agents), which made the reorder most of a large world's tick.
template <class T>
struct GatherRows {
  T* column;
  unsigned char* scratch;     // untyped storage, max_align_t-aligned: rows are moved as bytes
  const std::int32_t* order;  // new row k is old row order[k]
  std::int32_t n;
  static constexpr std::int32_t kBlock = 4096;
  static std::int32_t blocks(std::int32_t n) { return (n + kBlock - 1) / kBlock; }
  static void gather(void* arg, std::int32_t block) {
    const auto& g = *static_cast<const GatherRows*>(arg);
    const std::int32_t end = std::min(g.n, (block + 1) * kBlock);
    for (std::int32_t k = block * kBlock; k < end; ++k)
      std::memcpy(g.scratch + static_cast<std::size_t>(k) * sizeof(T), &g.column[g.order[k]], sizeof(T));
  }
  static void copy_back(void* arg, std::int32_t block) {
    const auto& g = *static_cast<const GatherRows*>(arg);
    const std::int32_t begin = block * kBlock;
    const std::int32_t end = std::min(g.n, begin + kBlock);
    std::memcpy(static_cast<void*>(g.column + begin), g.scratch + static_cast<std::size_t>(begin) * sizeof(T),
                sizeof(T) * static_cast<std::size_t>(end - begin));
  }
};
}  // namespace

void WorldImpl::reorder_by_cell() {
  grid_.rebuild(std::span<const Vec2>(position_.data(), static_cast<std::size_t>(count_)),
                std::span<const AgentId>(id_.data(), static_cast<std::size_t>(count_)));
  // The new order: by group (players first), and inside a group the grid's (cell, then id):
  // a stable counting sort of the slots by group. Each group's rows stay one run, so the
  // per-model loops of integrate keep long runs of one group, and the steering walk finds its
  // neighbours' rows next to each other.
  const std::span<const std::int32_t> slots = grid_.slots();
  const std::size_t groups = scenario_.groups.size();
  reorder_start_.assign(groups + 2, 0);
  for (const std::int32_t i : slots) ++reorder_start_[static_cast<std::size_t>(group_[i] + 1) + 1];
  for (std::size_t g = 1; g < reorder_start_.size(); ++g) reorder_start_[g] += reorder_start_[g - 1];
  reorder_order_.resize(static_cast<std::size_t>(count_));
  for (const std::int32_t i : slots)
    reorder_order_[static_cast<std::size_t>(reorder_start_[static_cast<std::size_t>(group_[i] + 1)]++)] = i;
  const std::span<const std::int32_t> order(reorder_order_.data(), reorder_order_.size());
  std::int32_t k = 0;
  while (k < count_ && order[static_cast<std::size_t>(k)] == k) ++k;
  if (k == count_) return;  // already in this order: nothing moves, and the grid is current
  // The permutation runs column by column through one scratch column (the widest row), each in
  // blocks of rows on the task runner, then one copy back. Written by hand: a permutation of
  // many parallel arrays by one index list is not something a library here does.
  std::size_t widest = 0;
  for_each_column([&](auto& column) {
    using T = typename std::remove_reference_t<decltype(column)>::value_type;
    static_assert(std::is_trivially_copyable_v<T>, "rows are moved as bytes");
    widest = std::max(widest, sizeof(T));
  });
  const std::size_t bytes = widest * static_cast<std::size_t>(count_);
  reorder_scratch_.resize((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
  auto* scratch = reinterpret_cast<unsigned char*>(reorder_scratch_.data());
  for_each_column([&](auto& column) {
    using Rows = GatherRows<typename std::remove_reference_t<decltype(column)>::value_type>;
    Rows g{column.data(), scratch, order.data(), count_};
    runner_.run_batch(Rows::blocks(count_), &Rows::gather, &g);
    runner_.run_batch(Rows::blocks(count_), &Rows::copy_back, &g);
  });
  for (std::int32_t q = 0; q < count_; ++q) slot_dense_[id_[q].slot()] = q;
  // The same positions under the new numbering (the flock, one group, could adopt the grid's
  // order as it is; with groups the slots are no longer the rows).
  grid_.rebuild(std::span<const Vec2>(position_.data(), static_cast<std::size_t>(count_)),
                std::span<const AgentId>(id_.data(), static_cast<std::size_t>(count_)));
  ++reorders_;
}

std::int32_t WorldImpl::index_of(AgentId id) const {
  if (!id.valid() || id.slot() >= static_cast<std::uint32_t>(capacity_)) return -1;
  if (slot_generation_[id.slot()] != id.generation()) return -1;
  return slot_dense_[id.slot()];
}

}  // namespace flockstep::sim
