#include "world_impl.hpp"

#include <algorithm>
#include <string_view>

#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/body_lanes.hpp"
#include "flockstep/behavior/combine.hpp"
#include "flockstep/behavior/flocking.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/kinematic.hpp"
#include "flockstep/sim/model_params.hpp"
#include "flockstep/sim/player.hpp"
#include "flockstep/sim/rules.hpp"
#include "flockstep/behavior/steering.hpp"
#include "flockstep/behavior/los_chase.hpp"
#include "stage_craft.hpp"
#include "stage_kinematic.hpp"
#include "stage_captures.hpp"
#include "stage_confine.hpp"
#include "stage_tile.hpp"
#include "stage_vehicle.hpp"

namespace flockstep::sim {

WorldImpl::WorldImpl(const Scenario& scenario)
    : scenario_(scenario),
      dt_(1.0 / scenario.tick_rate_hz),
      capacity_(scenario.max_agents),
      world_rng_(math::Rng::seeded(scenario.seed, 0x9e3779b97f4a7c15ULL)) {
  FLOCKSTEP_ASSERT(validate(scenario).empty());
  const auto cap = static_cast<std::size_t>(capacity_);
  slot_generation_.assign(cap, 0);
  slot_dense_.assign(cap, -1);
  free_slots_.reserve(cap);
  for (std::int32_t s = capacity_ - 1; s >= 0; --s) free_slots_.push_back(s);
  id_.resize(cap);
  kind_.resize(cap);
  motion_.resize(cap);
  group_.resize(cap);
  position_.resize(cap);
  velocity_.resize(cap);
  heading_.resize(cap);
  orientation_.resize(cap);
  angular_velocity_.resize(cap);
  rng_.resize(cap);
  wander_.resize(cap);
  waypoint_.resize(cap);
  pattern_.resize(cap);
  chase_mode_.resize(cap);
  input_.resize(cap);
  spawn_tick_.resize(cap);
  force_.resize(cap);
  thrusters_.resize(cap);
  target_.resize(cap);
  aim_.resize(cap);
  state_.resize(cap);
  fly_.resize(cap);
  ray_state_.resize(cap);
  kin_rotation_.resize(cap);
  kpattern_.resize(cap);
  task_pushout_.resize(cap / static_cast<std::size_t>(kAgentsPerTask) + 1);
  task_tally_.resize(cap / static_cast<std::size_t>(kAgentsPerTask) + 1);
  dyn_wander_.resize(cap);
  path_state_.resize(cap);
  tile_.resize(cap);
  // The neighbourhood kernel reads up to kNeighbourLanes - 1 slots past a range's end: pad, with
  // a group no agent has.
  slot_group_.assign(cap + behavior::kNeighbourLanes, -1);
  slot_x_.assign(cap + behavior::kNeighbourLanes, 0);
  slot_y_.assign(cap + behavior::kNeighbourLanes, 0);
  slot_hx_.assign(cap + behavior::kNeighbourLanes, 0);
  slot_hy_.assign(cap + behavior::kNeighbourLanes, 0);
  commands_.reserve(256);
  events_.reserve(256);
  players_.reserve(static_cast<std::size_t>(scenario.max_players));
  leader_index_.assign(scenario.groups.size(), -1);
  members_.resize(scenario.groups.size());
  // T54: every scenario path as a parameterised line path, for the steering model's followers.
  line_paths_.resize(scenario_.paths.size());
  for (std::size_t p = 0; p < scenario_.paths.size(); ++p)
    behavior::make_fixed_line_path(scenario_.paths[p].points, scenario_.paths[p].loop, line_paths_[p]);
  rebuild_groups();
  // Solid borders are walls like any other, so the feelers (T75) keep agents inside.
  add_border_walls(scenario_);
  // The tile tables (T26 patterns, T28 matrices), built once: one T26 count per pattern.
  tiles_ = TileTables::build(scenario_);
  technique_counts_[25] += static_cast<std::int64_t>(tiles_.patterns.size());
  grid_.init(scenario_.width, scenario_.height, scenario_.grid_cell, scenario_.wrap, capacity_);
  build_obstacle_index();
  for (std::int32_t g = 0; g < static_cast<std::int32_t>(scenario_.groups.size()); ++g) spawn_group(g);
}

void WorldImpl::build_obstacle_index() {
  // Reach: the longest detection box (twice L_min at full speed) plus the largest body radius.
  real reach = 0;
  for (const GroupSpec& g : scenario_.groups)
    reach = math::max(reach, 2 * g.detection.min_box_length + g.max_speed * dt_ + 2 * g.radius);
  reach = math::max(reach, scenario_.player_craft.length);
  obstacles_.build(scenario_, reach);
  obstacle_cells_are_grid_cells_ =
      !obstacles_.empty() && obstacles_.columns() == grid_.columns() && obstacles_.rows() == grid_.rows();
  pushout_free_cell_ = pushout_free_cells(grid_, obstacles_, scenario_, group_model_, dt_);
}

Vec2 WorldImpl::spawn_point(const GroupSpec& g, math::Rng& rng) const {
  Vec2 lo = g.spawn_min, hi = g.spawn_max;
  if (math::is_zero(lo) && math::is_zero(hi)) hi = {scenario_.width, scenario_.height};
  // Rejection-sample a point outside obstacles (bounded tries; the last try is kept).
  Vec2 p;
  for (int attempt = 0; attempt < 16; ++attempt) {
    p = {rng.uniform(lo.x, hi.x), rng.uniform(lo.y, hi.y)};
    if (!obstacles_.overlaps(p, g.radius)) break;
  }
  return p;
}

Vec2 WorldImpl::player_spawn_point(math::Rng& rng) const {
  GroupSpec g;
  g.radius = 1;
  const real m = math::min(scenario_.width, scenario_.height) * 0.1;
  g.spawn_min = {m, m};
  g.spawn_max = {scenario_.width - m, scenario_.height - m};
  return spawn_point(g, rng);
}

void WorldImpl::spawn_group(std::int32_t gi) { spawn_agents(gi, 0, scenario_.groups[gi].count); }

void WorldImpl::spawn_agents(std::int32_t gi, std::int32_t k_begin, std::int32_t k_end) {
  const GroupSpec& g = scenario_.groups[gi];
  const Model motion = group_model_[static_cast<std::size_t>(gi)];
  for (std::int32_t k = k_begin; k < k_end; ++k) {
    const AgentId id = allocate(gi, g.kind, motion);
    if (!id.valid()) return;
    const std::int32_t i = count_ - 1;
    position_[i] = spawn_point(g, rng_[i]);
    orientation_[i] = rng_[i].uniform(-math::kPi, math::kPi);
    heading_[i] = math::as_vector(orientation_[i]);
    // Start moving at a third of top speed so flocks and crafts look alive from tick 0.
    const real v0 = motion == Model::kCraft ? real(0) : g.max_speed / 3;
    velocity_[i] = heading_[i] * v0;
    wander_[i] = behavior::wander_init(g.wander, rng_[i]);
    if (g.technique == Technique::kPattern) behavior::initialize_pattern_tracking(pattern_[i], craft_state_of(i));
    if (motion == Model::kTile)
      start_tile_walker(scenario_.tiles, tiles_, g, k, {tile_[i], position_[i], velocity_[i], angular_velocity_[i]});
    if (motion == Model::kKinematic)
      start_kinematic_agent(
          g, {fly_[i], ray_state_[i], kin_rotation_[i], kpattern_[i], orientation_[i], heading_[i], velocity_[i]});
  }
}

}  // namespace flockstep::sim

namespace flockstep::sim {

AgentId WorldImpl::add_player() {
  // The id is reserved now so the caller can address the player before the next tick; the
  // body appears at the start of the next step (a command like any other).
  if (count_kind(AgentKind::kPlayer) >= scenario_.max_players) return {};
  if (free_slots_.empty()) return {};
  const AgentId id = allocate(-1, AgentKind::kPlayer, Model::kCraft);
  const std::int32_t i = count_ - 1;
  position_[i] = player_spawn_point(rng_[i]);
  orientation_[i] = rng_[i].uniform(-math::kPi, math::kPi);
  heading_[i] = math::as_vector(orientation_[i]);
  events_pending_.push_back({Event::Type::kSpawn, id, {}, tick_, 0});
  return id;
}

void WorldImpl::remove(AgentId id) { commands_.push_back({Command::Type::kRemove, id, {}}); }

void WorldImpl::set_input(AgentId player, PlayerInput input) {
  // Clamp again here (the codec already did), so the world's invariants never depend on it.
  commands_.push_back({Command::Type::kInput, player, sanitize_input(input)});
}

void WorldImpl::place(AgentId player, Vec2 position) {
  Command c{Command::Type::kPlace, player, {}};
  c.position = {std::clamp(position.x, real{0}, scenario_.width), std::clamp(position.y, real{0}, scenario_.height)};
  commands_.push_back(c);
}

void WorldImpl::apply_commands() {
  for (const Command& c : commands_) {
    const std::int32_t i = index_of(c.id);
    if (i < 0) continue;
    switch (c.type) {
      case Command::Type::kRemove:
        events_.push_back({Event::Type::kDespawn, c.id, {}, tick_, 0});
        free_index(i);
        break;
      case Command::Type::kInput:
        if (kind_[i] == AgentKind::kPlayer) input_[i] = c.input;
        break;
      case Command::Type::kPlace:
        if (kind_[i] == AgentKind::kPlayer) {
          position_[i] = c.position;
          velocity_[i] = {0, 0};
          angular_velocity_[i] = 0;
        }
        break;
    }
  }
  commands_.clear();
}

void WorldImpl::step() {
  events_.clear();
  for (const Event& e : events_pending_) events_.push_back(e);
  events_pending_.clear();
  // Phase 1: live-tuning updates (set_group), then commands, in the order they were issued.
  if (!pending_groups_.empty()) apply_group_updates();
  apply_commands();
  // Phase 2: the spatial grid (with the rows moved into its order when a reorder is due), then
  // per-tick lookups (players, group leaders, targeted groups) in id order.
  if (reorder_interval_ > 0 && tick_ % static_cast<std::uint64_t>(reorder_interval_) == 0) {
    reorder_by_cell();
  } else {
    grid_.rebuild(std::span<const Vec2>(position_.data(), static_cast<std::size_t>(count_)),
                  std::span<const AgentId>(id_.data(), static_cast<std::size_t>(count_)));
  }
  build_roster(
      count_,
      [&](std::int32_t i) {
        return RosterEntry{kind_[i], group_[i], id_[i]};
      },
      [&](std::int32_t g) { return targeted_[static_cast<std::size_t>(g)] != 0; }, players_, members_, leader_index_);
  // The lists in id order (ties in nearest_of keep the earlier entry): built over the rows in
  // storage order, which reads memory sequentially, then sorted, since rows move (reorder).
  sort_by_id(players_);
  for (std::vector<std::int32_t>& m : members_) sort_by_id(m);
  pursuers_.clear();
  for (std::int32_t i = 0; i < count_; ++i)
    if (kind_[i] == AgentKind::kPursuer) pursuers_.push_back(i);
  sort_by_id(pursuers_);
  run_phase(Phase::kGather);
  if (traced_count_ > 0) resolve_traced();
  // Phase 3: steering for everyone, reading state only.
  run_phase(Phase::kSteer);
  // Phase 4: integrate everyone, then the per-agent rules (obstacle projection, wrap/borders).
  run_phase(Phase::kIntegrate);
  const auto tasks = static_cast<std::size_t>((count_ + kAgentsPerTask - 1) / kAgentsPerTask);
  for (std::size_t t = 0; t < tasks; ++t) {
    Tally& tally = task_tally_[t];
    for (std::size_t k = 0; k < kTechniqueCount; ++k) technique_counts_[k] += tally.n[k];
    tally = Tally{};
  }
  for (PushoutStats& t : task_pushout_) {
    pushout_.corrections += t.corrections;
    pushout_.max_depth = math::max(pushout_.max_depth, t.max_depth);
    t = {};
  }
  // Phase 4b: T35 Bourg's flocks by AIDemo4's loop, a group at a time (stage_bourg.hpp), once the
  // players have moved (the seed's order); serial, so one tally.
  Tally bourg_tally;
  const BourgOutputs bourg_out{position_,  velocity_, heading_, orientation_, angular_velocity_, chase_mode_, force_,
                               thrusters_, target_,   aim_,     state_};
  for (std::int32_t g = 0; g < static_cast<std::int32_t>(scenario_.groups.size()); ++g)
    if (scenario_.groups[static_cast<std::size_t>(g)].technique == Technique::kBourgFlock)
      step_bourg_group(bourg_columns(), bourg_out, g, bourg_members_, bourg_tally, pushout_);
  for (std::size_t k = 0; k < kTechniqueCount; ++k) technique_counts_[k] += bourg_tally.n[k];
  // Phase 5: rules between agents (captures), serial and in id order.
  apply_captures();
  ++tick_;
}

void WorldImpl::run_phase(Phase phase) {
  PhaseTask task{this, phase};
  const std::int32_t tasks = (count_ + kAgentsPerTask - 1) / kAgentsPerTask;
  runner_.run_batch(tasks, &WorldImpl::run_phase_task, &task);
}

void WorldImpl::run_phase_task(void* arg, std::int32_t task_index) {
  const auto* task = static_cast<const PhaseTask*>(arg);
  WorldImpl& w = *task->world;
  const std::int32_t begin = task_index * kAgentsPerTask;
  const std::int32_t end = std::min(begin + kAgentsPerTask, w.count_);
  // Every phase writes only the state of the agents (or slots) in [begin, end) and reads what
  // no task of the same phase writes, so tasks may run concurrently and in any order.
  switch (task->phase) {
    case Phase::kGather: w.gather_slots(begin, end); break;
    case Phase::kSteer: w.compute_steering(begin, end); break;
    case Phase::kIntegrate: w.integrate(begin, end); break;
  }
}

void WorldImpl::gather_slots(std::int32_t begin, std::int32_t end) {
  const std::span<const std::int32_t> slots = grid_.slots();
  for (std::int32_t k = begin; k < end; ++k) {
    const std::int32_t i = slots[static_cast<std::size_t>(k)];
    slot_x_[k] = static_cast<float>(position_[i].x);
    slot_y_[k] = static_cast<float>(position_[i].y);
    slot_hx_[k] = static_cast<float>(heading_[i].x);
    slot_hy_[k] = static_cast<float>(heading_[i].y);
    slot_group_[k] = group_[i];
  }
}

void WorldImpl::compute_steering(std::int32_t begin, std::int32_t end) {
  // Walk agents in slot (cell) order: consecutive agents share most of their neighbour cells.
  const std::span<const std::int32_t> slots = grid_.slots();
  Tally& tally = tally_of(begin);
  // Scenario::steering_interval_ticks: force-model agents whose turn it is not keep their last output.
  const auto interval = static_cast<std::uint64_t>(scenario_.steering_interval_ticks);
  // Force-model agents are steered in batches of one group (compose.hpp); the one-controller
  // models (craft, tile, kinematic) steer agent by agent.
  const Targets targets = this->targets();
  const TileSteerColumns tiles{scenario_.tiles, tiles_, scenario_.groups, dt_,  targets, group_, id_, position_,
                               tile_,           rng_,   target_,          aim_, state_};
  const CraftSteerColumns craft{scenario_.groups,
                                {scenario_.width / 2, scenario_.height / 2},
                                targets,
                                kind_,
                                group_,
                                id_,
                                input_,
                                position_,
                                velocity_,
                                orientation_,
                                angular_velocity_,
                                chase_mode_,
                                pattern_,
                                thrusters_,
                                target_,
                                aim_,
                                state_};
  const KinematicSteerColumns kinematic{scenario_.groups,
                                        dt_,
                                        tick_,
                                        scenario_.tick_rate_hz,
                                        targets,
                                        scenario_.walls,
                                        scenario_.obstacles,
                                        group_,
                                        id_,
                                        spawn_tick_,
                                        position_,
                                        velocity_,
                                        orientation_,
                                        angular_velocity_,
                                        rng_,
                                        fly_,
                                        ray_state_,
                                        kpattern_,
                                        force_,
                                        kin_rotation_,
                                        target_,
                                        aim_,
                                        state_};
  const ComposeTables composed{scenario_,
                               dt_,
                               tick_,
                               grid_,
                               flock_kernel_,
                               obstacles_,
                               obstacle_cells_are_grid_cells_,
                               targets,
                               plane(),
                               compose_,
                               group_model_,
                               fov_cos_half_,
                               leader_index_,
                               line_paths_,
                               id_,
                               motion_,
                               group_,
                               position_,
                               velocity_,
                               heading_,
                               orientation_,
                               angular_velocity_,
                               slot_group_,
                               slot_x_,
                               slot_y_,
                               slot_hx_,
                               slot_hy_,
                               waypoint_,
                               dyn_wander_,
                               path_state_,
                               rng_,
                               wander_,
                               force_,
                               kin_rotation_,
                               target_,
                               aim_,
                               state_,
                               std::span<SteeringTrace>(traces_.data(), traced_count_),
                               std::span<const std::int32_t>(traced_index_.data(), traced_count_)};
  std::int32_t batch_slot[kAgentsPerTask];
  std::int32_t batch_group[kAgentsPerTask];
  std::int32_t m = 0;
  bool one_group = true;
  for (std::int32_t k = begin; k < end; ++k) {
    const std::int32_t i = slots[static_cast<std::size_t>(k)];
    const Model model = motion_[i];
    if (model == Model::kCraft) steer_craft_agent(craft, i, tally);
    else if (model == Model::kTile) steer_tile_walker(tiles, i, tally);
    else if (model == Model::kKinematic) steer_kinematic_agent(kinematic, i, tally);
    else if (interval == 1 || (tick_ + id_[i].slot()) % interval == 0) {
      batch_slot[m] = k;
      batch_group[m] = group_[i];
      one_group = one_group && group_[i] == batch_group[0];
      ++m;
    }
  }
  if (m == 0) return;
  // Order by group, keeping slot order inside a group. A counting sort over the scenario's
  // groups (O(m + groups), no allocation); beyond kCountingSortGroups groups, std::sort of unique
  // (group, position) keys, which is just as stable. (std::stable_sort allocates, and a
  // comparison sort per task was measured at ~10 % of the mixed arena's tick.)
  std::int32_t order[kAgentsPerTask];
  const auto ngroups = static_cast<std::int32_t>(compose_.size());
  if (one_group) {
    for (std::int32_t q = 0; q < m; ++q) order[q] = q;
  } else if (ngroups <= kCountingSortGroups) {
    std::int32_t start[kCountingSortGroups + 1] = {};
    for (std::int32_t q = 0; q < m; ++q) ++start[batch_group[q] + 1];
    for (std::int32_t g = 0; g < ngroups; ++g) start[g + 1] += start[g];
    for (std::int32_t q = 0; q < m; ++q) order[start[batch_group[q]]++] = q;
  } else {
    std::uint64_t keys[kAgentsPerTask];
    for (std::int32_t q = 0; q < m; ++q)
      keys[q] =
          static_cast<std::uint64_t>(static_cast<std::uint32_t>(batch_group[q])) << 32 | static_cast<std::uint32_t>(q);
    std::sort(keys, keys + m);
    for (std::int32_t q = 0; q < m; ++q) order[q] = static_cast<std::int32_t>(keys[q] & 0xFFFFFFFFu);
  }
  std::int32_t run[kComposeBatch];
  for (std::int32_t q = 0; q < m;) {
    const std::int32_t g = batch_group[order[q]];
    std::int32_t n = 0;
    while (q < m && batch_group[order[q]] == g && n < kComposeBatch) run[n++] = batch_slot[order[q++]];
    steer_composed(composed, g, run, n, tally);
  }
}

}  // namespace flockstep::sim

namespace flockstep::sim {

void WorldImpl::integrate(std::int32_t begin, std::int32_t end) {
  Tally& tally = tally_of(begin);
  PushoutStats& pushout = task_pushout_[static_cast<std::size_t>(begin / kAgentsPerTask)];
  // The end-of-tick rules (stage_confine.hpp) for row k, after its model moved it. They depend
  // only on row k and static geometry, so they run inside the integrate task.
  const ConfineColumns confined{scenario_, obstacles_, group_, position_, velocity_};
  auto confine = [&](std::int32_t k) {
    confine_agent(confined, k, tally, pushout);
    FLOCKSTEP_ASSERT(math::is_finite(position_[k]) && math::is_finite(velocity_[k]));
  };
  // One dispatch per run of rows of one movement model, then that model's stage over the run:
  // rows are stored grouped (reorder_by_cell), so a task holds a few runs, and no inner loop
  // asks an agent's model.
  for (std::int32_t i = begin, e = begin; i < end; i = e) {
    const Model model = motion_[i];
    while (e < end && motion_[e] == model) ++e;
    switch (model) {
      case Model::kTile:
        // Walkers move between tile centres inside the map: nothing to confine.
        move_tile_walkers({scenario_.tiles, scenario_.groups, group_, tile_, position_, velocity_, heading_,
                           orientation_, angular_velocity_},
                          i, e);
        break;
      case Model::kKinematic: {
        const KinematicMoveColumns c{scenario_.groups, dt_,       group_,   force_,       kin_rotation_,
                                     position_,        velocity_, heading_, orientation_, angular_velocity_};
        for (std::int32_t k = i; k < e; ++k) {
          move_kinematic_agent(c, k, tally);
          confine(k);
        }
        break;
      }
      case Model::kSteering: {
        const SteeringMoveColumns c{scenario_.groups, compose_,  dt_,       group_,   force_,
                                    kin_rotation_,    position_, velocity_, heading_, orientation_,
                                    angular_velocity_};
        for (std::int32_t k = i; k < e; ++k) {
          move_steering_agent(c, k, tally);
          confine(k);
        }
        break;
      }
      case Model::kCraft: {
        const CraftMoveColumns c{scenario_, dt_,       kind_,    group_,       input_,           thrusters_,
                                 position_, velocity_, heading_, orientation_, angular_velocity_};
        for (std::int32_t k = i; k < e; ++k) {
          // A player (step_player confined it) or a Bourg unit (its group's loop moves it) is done.
          if (move_craft_agent(c, k, tally)) confine(k);
          FLOCKSTEP_ASSERT(math::is_finite(position_[k]) && math::is_finite(velocity_[k]));
        }
        break;
      }
      case Model::kVehicle:
      case Model::kCount: {
        const VehicleMoveColumns c{scenario_.groups, heading_samples_, dt_,       motion_,  group_,
                                   force_,           position_,        velocity_, heading_, smoother_};
        // The bodies of the run first, a group at a time in lanes, unless the flock kernel asks
        // for the per-agent update (World::FlockKernel).
        const bool bodies_moved =
            flock_kernel_ != FlockKernel::kPerNeighbour && flock_kernel_ != FlockKernel::kLanesPerAgentBody;
        if (bodies_moved)
          move_vehicle_bodies(
              c, i, e,
              flock_kernel_ == FlockKernel::kLanesScalar ? behavior::LaneKernel::kScalar : behavior::LaneKernel::kSimd);
        for (std::int32_t k = i; k < e; ++k) {
          move_vehicle_agent(c, k, bodies_moved, tally);
          // orientation_[k] is not kept for vehicles: orientation_at() derives it from the heading.
          if (bodies_moved && pushout_free_cell_[static_cast<std::size_t>(grid_.agent_cell(k))]) {
            confine_agent_border(confined, k, tally);  // no obstacle within reach of this cell's vehicles
            FLOCKSTEP_ASSERT(math::is_finite(position_[k]) && math::is_finite(velocity_[k]));
          } else {
            confine(k);
          }
        }
        break;
      }
    }
  }
}

// ---- steering traces (the inspector): which rows are traced this tick ----

void WorldImpl::set_traced(std::span<const AgentId> agents) {
  traced_count_ = std::min(agents.size(), static_cast<std::size_t>(kMaxTraced));
  for (std::size_t t = 0; t < traced_count_; ++t) {
    if (traces_[t].agent != agents[t]) traces_[t] = SteeringTrace{};  // a new agent: no trace yet
    traces_[t].agent = agents[t];
  }
}

void WorldImpl::resolve_traced() {
  for (std::size_t t = 0; t < traced_count_; ++t) {
    const std::int32_t i = index_of(traces_[t].agent);
    traced_index_[t] = i;
    SteeringTrace& tr = traces_[t];
    if (i < 0 || group_[i] < 0) {
      tr.group = -1;
      tr.count = 0;
      continue;
    }
    tr.group = group_[i];
    // One-controller models (craft, tile, kinematic) have no composition to break down.
    const Model m = group_model_[static_cast<std::size_t>(tr.group)];
    if (m != Model::kVehicle && m != Model::kSteering) {
      tr.count = 0;
      tr.tick = tick_ + 1;
    }
  }
}

void WorldImpl::apply_captures() {
  // Who caught whom (stage_captures.hpp), then each caught agent respawned where its kind
  // spawns, in the order the captures were found. A respawn moves only the caught agent, which
  // the capture stage has already protected for the rest of the tick, so finding every capture
  // first gives what finding and respawning one at a time gives.
  const CaptureColumns rows{scenario_, tick_, plane(), group_, position_, spawn_tick_};
  captures_.clear();
  find_player_captures(rows, players_, pursuers_, captures_);
  for (const Capture& c : captures_) {
    const std::int32_t pj = c.caught;
    events_.push_back({Event::Type::kCapture, id_[pj], id_[c.pursuer], tick_, c.survived_ticks});
    // Respawn: same entity, new place, at rest, protected for a while.
    position_[pj] = player_spawn_point(rng_[pj]);
    velocity_[pj] = {};
    angular_velocity_[pj] = 0;
    events_.push_back({Event::Type::kRespawn, id_[pj], {}, tick_, 0});
  }
  captures_.clear();
  find_prey_captures(rows, pursuers_, members_, captures_);
  for (const Capture& c : captures_) {
    const std::int32_t j = c.caught;
    events_.push_back({Event::Type::kCapture, id_[j], id_[c.pursuer], tick_, c.survived_ticks});
    // Respawn in the prey group's spawn area, as a fresh agent of its technique.
    const GroupSpec& pg = scenario_.groups[static_cast<std::size_t>(group_[j])];
    position_[j] = spawn_point(pg, rng_[j]);
    orientation_[j] = rng_[j].uniform(-math::kPi, math::kPi);
    heading_[j] = math::as_vector(orientation_[j]);
    velocity_[j] = motion_[j] == Model::kCraft ? Vec2{} : heading_[j] * (pg.max_speed / 3);
    angular_velocity_[j] = 0;
    chase_mode_[j] = behavior::ChaseMode::intercept;
    waypoint_[j] = {};
    if (pg.technique == Technique::kPattern) behavior::initialize_pattern_tracking(pattern_[j], craft_state_of(j));
    if (motion_[j] == Model::kTile)
      start_tile_walker(scenario_.tiles, tiles_, pg, 0, {tile_[j], position_[j], velocity_[j], angular_velocity_[j]});
    if (motion_[j] == Model::kKinematic)
      start_kinematic_agent(
          pg, {fly_[j], ray_state_[j], kin_rotation_[j], kpattern_[j], orientation_[j], heading_[j], velocity_[j]});
    events_.push_back({Event::Type::kRespawn, id_[j], {}, tick_, 0});
  }
}

AgentView WorldImpl::view(std::int32_t i) const {
  FLOCKSTEP_ASSERT(i >= 0 && i < count_);
  return {id_[i],     kind_[i], group_[i], position_[i],  velocity_[i], orientation_at(i), angular_velocity_[i],
          target_[i], aim_[i],  state_[i], spawn_tick_[i]};
}

std::int32_t WorldImpl::count_kind(AgentKind k) const {
  std::int32_t n = 0;
  for (std::int32_t i = 0; i < count_; ++i) n += kind_[i] == k ? 1 : 0;
  return n;
}

}  // namespace flockstep::sim

// ---- target groups, live tuning ----
namespace flockstep::sim {

std::int32_t WorldImpl::group_size(std::int32_t group) const {
  if (group < 0 || group >= static_cast<std::int32_t>(scenario_.groups.size())) return 0;
  std::int32_t n = 0;
  for (std::int32_t i = 0; i < count_; ++i) n += group_[i] == group ? 1 : 0;
  return n;
}

std::string WorldImpl::set_group(std::int32_t group, const GroupSpec& spec) {
  if (group < 0 || group >= static_cast<std::int32_t>(scenario_.groups.size())) return "group: no such group";
  const GroupSpec& cur = scenario_.groups[static_cast<std::size_t>(group)];
  const std::string p = "groups[" + std::to_string(group) + "]";
  const char* fixed = nullptr;
  if (spec.technique != cur.technique) fixed = "technique";
  else if (spec.kind != cur.kind) fixed = "kind";
  else if (spec.path != cur.path) fixed = "path";
  else if (spec.leader_group != cur.leader_group) fixed = "leader_group";
  else if (spec.target_group != cur.target_group) fixed = "target_group";
  else if (spec.tile_pattern != cur.tile_pattern) fixed = "tile_pattern";
  else if (spec.track != cur.track) fixed = "track";
  if (fixed) return p + "." + fixed + ": cannot change while running";
  // The same rules as validate(), on the scenario as it will be after every queued update.
  Scenario s = scenario_;
  for (const auto& [gi, gs] : pending_groups_) s.groups[static_cast<std::size_t>(gi)] = gs;
  s.groups[static_cast<std::size_t>(group)] = spec;
  if (std::string e = validate(s); !e.empty()) return e;
  pending_groups_.emplace_back(group, spec);
  return {};
}

void WorldImpl::rebuild_groups() {
  const std::size_t n = scenario_.groups.size();
  compose_.resize(n);
  group_model_.resize(n);
  heading_samples_.resize(n);
  fov_cos_half_.resize(n);
  targeted_.assign(n, 0);
  bool smoothing = false;
  for (std::size_t g = 0; g < n; ++g) {
    const GroupSpec& spec = scenario_.groups[g];
    compose_[g] = composition_of(spec);
    group_model_[g] = model_of(spec);
    fov_cos_half_[g] =
        spec.flock.fov_deg >= 360 ? real(-1) : math::sin_cos(spec.flock.fov_deg * 0.5 * math::kDegToRad).cos;
    if (spec.target_group >= 0) targeted_[static_cast<std::size_t>(spec.target_group)] = 1;
    for (const BehaviorSpec& b : compose_[g].behaviors)
      if (b.target_group >= 0) targeted_[static_cast<std::size_t>(b.target_group)] = 1;
    heading_samples_[g] = compose_[g].filters.heading_samples;
    smoothing = smoothing || heading_samples_[g] > 0;
  }
  // T82 ring buffers (~260 B an agent) only once some group smooths its heading.
  if (smoothing && smoother_.empty()) smoother_.resize(static_cast<std::size_t>(capacity_));
}

void WorldImpl::apply_group_updates() {
  for (const auto& [gi, spec] : pending_groups_) {
    const auto g = static_cast<std::size_t>(gi);
    scenario_.groups[g] = spec;
    rebuild_groups();
    std::int32_t n = group_size(gi);
    if (spec.count > n) {
      const std::int32_t first = count_;
      spawn_agents(gi, n, spec.count);
      for (std::int32_t i = first; i < count_; ++i) events_.push_back({Event::Type::kSpawn, id_[i], {}, tick_, 0});
    }
    for (; n > spec.count; --n) {
      // Highest id value first: independent of the dense order.
      std::int32_t last = -1;
      for (std::int32_t i = 0; i < count_; ++i)
        if (group_[i] == gi && (last < 0 || id_[i].value > id_[last].value)) last = i;
      events_.push_back({Event::Type::kDespawn, id_[last], {}, tick_, 0});
      free_index(last);
    }
  }
  pending_groups_.clear();
  build_obstacle_index();  // the reach depends on the groups' speeds and detection boxes
}

}  // namespace flockstep::sim
