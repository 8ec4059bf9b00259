#include "flockstep/sim/state_hash.hpp"

#include "world_impl.hpp"

namespace flockstep::sim {

std::uint64_t WorldImpl::state_hash() const {
  // Rows in storage order (sequential reads of each column): the digest does not depend on
  // where rows are stored (World::set_reorder_interval), and each row carries its agent's id.
  RowSetHasher h;
  for (std::int32_t i = 0; i < count_; ++i) {
    h.begin_row();
    h.u64(id_[i].value);
    h.u64(static_cast<std::uint64_t>(kind_[i]) << 32 | static_cast<std::uint32_t>(group_[i]));
    h.vec(position_[i]);
    h.vec(velocity_[i]);
    h.vec(heading_[i]);
    // A vehicle's orientation is its heading's angle (orientation_at), hashed above already;
    // only the other models keep one of their own.
    if (motion_[i] != Model::kVehicle) h.f64(orientation_[i]);
    h.f64(angular_velocity_[i]);
    h.u64(rng_[i].state);
    h.vec(wander_[i].target_local);
    h.u64(static_cast<std::uint32_t>(waypoint_[i].current));
    h.f64(input_[i].turn);
    h.f64(input_[i].throttle);
    h.u64(spawn_tick_[i]);
    h.end_row();
  }
  return h.value({tick_, static_cast<std::uint64_t>(count_), world_rng_.state});
}

}  // namespace flockstep::sim
