#include "flockstep/sim/state_hash.hpp"

#include "world_impl.hpp"

namespace flockstep::sim {

std::uint64_t WorldImpl::state_hash() const {
  StateHasher h;
  h.u64(tick_);
  h.u32(static_cast<std::uint32_t>(count_));
  h.u64(world_rng_.state);
  // In id order: where the rows are stored (World::set_reorder_interval) is not state.
  for_each_by_id([&](std::int32_t i) {
    h.u32(id_[i].value);
    h.u32(static_cast<std::uint32_t>(kind_[i]));
    h.u32(static_cast<std::uint32_t>(group_[i]));
    h.vec(position_[i]);
    h.vec(velocity_[i]);
    h.vec(heading_[i]);
    h.f64(orientation_at(i));
    h.f64(angular_velocity_[i]);
    h.u64(rng_[i].state);
    h.vec(wander_[i].target_local);
    h.u32(static_cast<std::uint32_t>(waypoint_[i].current));
    h.f64(input_[i].turn);
    h.f64(input_[i].throttle);
    h.u64(spawn_tick_[i]);
  });
  return h.value();
}

}  // namespace flockstep::sim
