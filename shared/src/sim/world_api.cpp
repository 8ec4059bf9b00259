// sim::World, the public API (world.hpp): every call forwards to the implementation behind it
// (world_impl.hpp). One pointer hop per call; the tick itself is one call per step, so the
// indirection costs nothing measurable (docs/architecture.md gives the benchmark figures).
#include <utility>

#include "world_impl.hpp"

namespace flockstep::sim {

World::World(const Scenario& scenario) : impl_(std::make_unique<WorldImpl>(scenario)) {}
World::World(std::unique_ptr<WorldImpl> impl) : impl_(std::move(impl)) {}
World::World(const World& other) : impl_(std::make_unique<WorldImpl>(*other.impl_)) {}
World& World::operator=(const World& other) {
  if (this != &other) impl_ = std::make_unique<WorldImpl>(*other.impl_);
  return *this;
}
World::World(World&& other) noexcept = default;
World& World::operator=(World&& other) noexcept = default;
World::~World() = default;

AgentId World::add_player() { return impl_->add_player(); }
void World::remove(AgentId id) { impl_->remove(id); }
void World::set_input(AgentId player, PlayerInput input) { impl_->set_input(player, input); }
void World::place(AgentId player, Vec2 position) { impl_->place(player, position); }
void World::step() { impl_->step(); }
void World::set_task_runner(const TaskRunner& runner) { impl_->set_task_runner(runner); }
const TaskRunner& World::task_runner() const { return impl_->task_runner(); }
behavior::Demo4World World::bourg_world(std::int32_t group, behavior::Demo4Params& params,
                                        std::vector<std::int32_t>* members) const {
  return impl_->bourg_world(group, params, members);
}
std::uint64_t World::tick() const { return impl_->tick(); }
real World::dt() const { return impl_->dt(); }
std::uint64_t World::state_hash() const { return impl_->state_hash(); }
std::int32_t World::size() const { return impl_->size(); }
AgentView World::view(std::int32_t index) const { return impl_->view(index); }
AgentId World::id_at(std::int32_t index) const { return impl_->id_at(index); }
std::int32_t World::index_of(AgentId id) const { return impl_->index_of(id); }
std::span<const Event> World::events() const { return impl_->events(); }
const Scenario& World::scenario() const { return impl_->scenario(); }
std::int32_t World::count_kind(AgentKind k) const { return impl_->count_kind(k); }
World::PushoutStats World::pushout_stats() const { return impl_->pushout_stats(); }
const TechniqueCounts& World::technique_counts() const { return impl_->technique_counts(); }
std::string World::set_group(std::int32_t group, const GroupSpec& spec) { return impl_->set_group(group, spec); }
std::int32_t World::group_size(std::int32_t group) const { return impl_->group_size(group); }
void World::set_flock_kernel(FlockKernel k) { impl_->set_flock_kernel(k); }
void World::set_reorder_interval(std::int32_t ticks) { impl_->set_reorder_interval(ticks); }
std::int32_t World::reorder_interval() const { return impl_->reorder_interval(); }
std::int64_t World::reorders() const { return impl_->reorders(); }
World::FlockKernel World::flock_kernel() const { return impl_->flock_kernel(); }
void World::set_traced(std::span<const AgentId> agents) { impl_->set_traced(agents); }
std::span<const World::SteeringTrace> World::traces() const { return impl_->traces(); }
WorldState World::export_state() const { return impl_->export_state(); }

std::unique_ptr<World> World::from_state(WorldState state, std::string& error) {
  std::unique_ptr<WorldImpl> impl = WorldImpl::from_state(std::move(state), error);
  if (!impl) return nullptr;
  return std::unique_ptr<World>(new World(std::move(impl)));  // the constructor is private
}

}  // namespace flockstep::sim
