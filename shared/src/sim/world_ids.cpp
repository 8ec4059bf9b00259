// Agent storage: generational ids over dense structure-of-arrays indices (Box2D-style handles).
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
    id_[i] = id_[last];
    kind_[i] = kind_[last];
    motion_[i] = motion_[last];
    group_[i] = group_[last];
    position_[i] = position_[last];
    velocity_[i] = velocity_[last];
    heading_[i] = heading_[last];
    orientation_[i] = orientation_[last];
    angular_velocity_[i] = angular_velocity_[last];
    rng_[i] = rng_[last];
    wander_[i] = wander_[last];
    waypoint_[i] = waypoint_[last];
    pattern_[i] = pattern_[last];
    chase_mode_[i] = chase_mode_[last];
    input_[i] = input_[last];
    spawn_tick_[i] = spawn_tick_[last];
    force_[i] = force_[last];
    thrusters_[i] = thrusters_[last];
    target_[i] = target_[last];
    aim_[i] = aim_[last];
    state_[i] = state_[last];
    tile_[i] = tile_[last];
    fly_[i] = fly_[last];
    ray_state_[i] = ray_state_[last];
    kin_rotation_[i] = kin_rotation_[last];
    dyn_wander_[i] = dyn_wander_[last];
    kpattern_[i] = kpattern_[last];
    path_state_[i] = path_state_[last];
    if (!smoother_.empty()) smoother_[i] = smoother_[last];
    slot_dense_[id_[i].slot()] = i;
  }
  --count_;
}

std::int32_t WorldImpl::index_of(AgentId id) const {
  if (!id.valid() || id.slot() >= static_cast<std::uint32_t>(capacity_)) return -1;
  if (slot_generation_[id.slot()] != id.generation()) return -1;
  return slot_dense_[id.slot()];
}

}  // namespace flockstep::sim
