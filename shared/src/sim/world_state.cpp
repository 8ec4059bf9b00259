// World state as plain data: export_state() copies every store a later step() reads;
// from_state() checks a WorldState for consistency and rebuilds a World from it.
#include "flockstep/sim/world_state.hpp"

#include <algorithm>
#include <string>

#include "flockstep/sim/player.hpp"
#include "world_impl.hpp"

namespace flockstep::sim {

WorldState WorldImpl::export_state() const {
  WorldState s;
  s.scenario = scenario_;
  // The constructor appends the four border walls of a non-wrapping world (and nothing else
  // changes walls); from_state() runs the constructor again, which adds them back.
  if (!s.scenario.wrap) s.scenario.walls.resize(s.scenario.walls.size() - 4);
  s.tick = tick_;
  s.world_rng = world_rng_;
  s.flock_kernel = static_cast<std::uint8_t>(flock_kernel_);
  s.slot_generation = slot_generation_;
  s.free_slots = free_slots_;
  const auto n = static_cast<std::size_t>(count_);
  // Rows in id order: where the World stores them (set_reorder_interval) is not state, so a
  // saved world's bytes do not depend on when it was last reordered. The slot table follows.
  std::vector<std::int32_t> order;
  order.reserve(n);
  for_each_by_id([&](std::int32_t i) { order.push_back(i); });
  s.slot_dense.assign(slot_dense_.size(), -1);
  for (std::size_t r = 0; r < n; ++r) s.slot_dense[id_[order[r]].slot()] = static_cast<std::int32_t>(r);
  const auto dense = [&order](const auto& column) {
    std::vector<typename std::decay_t<decltype(column)>::value_type> out;
    out.reserve(order.size());
    for (const std::int32_t i : order) out.push_back(column[static_cast<std::size_t>(i)]);
    return out;
  };
  s.id = dense(id_);
  s.kind = dense(kind_);
  s.motion = dense(motion_);
  s.group = dense(group_);
  s.position = dense(position_);
  s.velocity = dense(velocity_);
  s.heading = dense(heading_);
  s.orientation = dense(orientation_);
  s.angular_velocity = dense(angular_velocity_);
  s.rng = dense(rng_);
  s.wander = dense(wander_);
  s.waypoint = dense(waypoint_);
  s.pattern = dense(pattern_);
  s.chase_mode = dense(chase_mode_);
  s.input = dense(input_);
  s.spawn_tick = dense(spawn_tick_);
  s.force = dense(force_);
  s.thrusters = dense(thrusters_);
  s.target = dense(target_);
  s.aim = dense(aim_);
  s.state = dense(state_);
  // WorldState::Tile mirrors the World's private TileState field by field (world_storage.hpp keeps
  // that type private); a field added to one and not the other changes the size and stops the build.
  static_assert(sizeof(WorldState::Tile) == sizeof(TileState), "TileState changed: mirror it in WorldState::Tile");
  s.tile.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    const TileState& t = tile_[order[r]];
    const std::size_t i = r;
    s.tile[i] = {t.from, t.to,     t.progress,    t.previous,  t.patrol,
                 t.mode, t.target, t.line_origin, t.line_goal, t.line_step};
  }
  s.fly = dense(fly_);
  s.ray_state = dense(ray_state_);
  s.kin_rotation = dense(kin_rotation_);
  s.dyn_wander = dense(dyn_wander_);
  s.kpattern = dense(kpattern_);
  s.path_state = dense(path_state_);
  s.smoothing_allocated = !smoother_.empty();
  if (s.smoothing_allocated) s.smoother = dense(smoother_);
  for (const Command& c : commands_)
    s.commands.push_back({static_cast<WorldState::Command::Type>(c.type), c.id, c.input, c.position});
  s.pending_groups = pending_groups_;
  s.events = events_;
  s.events_pending = events_pending_;
  // The roster's dense indices, renumbered to the rows as written.
  std::vector<std::int32_t> row_of(static_cast<std::size_t>(count_), -1);
  for (std::size_t r = 0; r < n; ++r) row_of[static_cast<std::size_t>(order[r])] = static_cast<std::int32_t>(r);
  const auto rows = [&row_of](std::int32_t i) { return i < 0 ? i : row_of[static_cast<std::size_t>(i)]; };
  for (const std::int32_t i : players_) s.players.push_back(rows(i));
  for (const std::int32_t i : leader_index_) s.leader_index.push_back(rows(i));
  s.members.resize(members_.size());
  for (std::size_t g = 0; g < members_.size(); ++g)
    for (const std::int32_t i : members_[g]) s.members[g].push_back(rows(i));
  s.technique_counts = technique_counts_;
  s.pushout_corrections = pushout_.corrections;
  s.pushout_max_depth = pushout_.max_depth;
  return s;
}

namespace {

/// First consistency problem of `s` (scenario already validated), or "".
std::string check_state(const WorldState& s) {
  const Scenario& sc = s.scenario;
  const auto cap = static_cast<std::size_t>(sc.max_agents);
  const std::size_t ngroups = sc.groups.size();
  const std::size_t n = s.id.size();
  const auto bad = [](const std::string& field, const std::string& why) { return field + ": " + why; };
  if (s.flock_kernel > 2) return bad("flock_kernel", "unknown kernel");
  if (s.slot_generation.size() != cap || s.slot_dense.size() != cap)
    return bad("slot table", "must have max_agents (" + std::to_string(cap) + ") entries");
  if (n > cap) return bad("agents", "more than max_agents");
  const std::size_t sizes[] = {s.kind.size(),       s.motion.size(),   s.group.size(),       s.position.size(),
                               s.velocity.size(),   s.heading.size(),  s.orientation.size(), s.angular_velocity.size(),
                               s.rng.size(),        s.wander.size(),   s.waypoint.size(),    s.pattern.size(),
                               s.chase_mode.size(), s.input.size(),    s.spawn_tick.size(),  s.force.size(),
                               s.thrusters.size(),  s.target.size(),   s.aim.size(),         s.state.size(),
                               s.tile.size(),       s.fly.size(),      s.ray_state.size(),   s.kin_rotation.size(),
                               s.dyn_wander.size(), s.kpattern.size(), s.path_state.size()};
  for (const std::size_t k : sizes)
    if (k != n) return bad("agent columns", "every column must have one entry per agent (" + std::to_string(n) + ")");
  if (s.smoother.size() != (s.smoothing_allocated ? n : 0))
    return bad("smoother", "one entry per agent when allocated");
  // Generations have the bits of an AgentId above the slot; a used slot never has generation 0.
  constexpr std::uint32_t kMaxGeneration = (1u << (32 - AgentId::kSlotBits)) - 1u;
  for (std::size_t k = 0; k < cap; ++k) {
    if (s.slot_generation[k] > kMaxGeneration) return bad("slot_generation", "more than 12 bits");
    if (s.slot_dense[k] < -1 || s.slot_dense[k] >= static_cast<std::int32_t>(n))
      return bad("slot_dense", "dense index out of range");
  }
  if (s.free_slots.size() != cap - n) return bad("free_slots", "must hold every slot no agent uses");
  std::vector<std::uint8_t> seen(cap, 0);
  for (const std::int32_t f : s.free_slots) {
    if (f < 0 || static_cast<std::size_t>(f) >= cap) return bad("free_slots", "slot out of range");
    if (seen[static_cast<std::size_t>(f)]++) return bad("free_slots", "slot listed twice");
    if (s.slot_dense[static_cast<std::size_t>(f)] != -1) return bad("free_slots", "a free slot has an agent");
  }
  std::int32_t players = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const AgentId id = s.id[i];
    const std::string at = "agent " + std::to_string(i);
    if (!id.valid() || id.slot() >= cap || id.generation() == 0) return bad(at + ".id", "invalid id");
    if (seen[id.slot()]++) return bad(at + ".id", "slot used twice");
    if (s.slot_generation[id.slot()] != id.generation())
      return bad(at + ".id", "generation differs from the slot table");
    if (s.slot_dense[id.slot()] != static_cast<std::int32_t>(i)) return bad(at + ".id", "slot table points elsewhere");
    if (s.kind[i] >= AgentKind::kCount) return bad(at + ".kind", "unknown kind");
    if (s.motion[i] >= Model::kCount) return bad(at + ".motion", "unknown model");
    if (s.state[i] > BehaviorState::kCaptured) return bad(at + ".state", "unknown behaviour state");
    if (s.chase_mode[i] > behavior::ChaseMode::line_of_sight) return bad(at + ".chase_mode", "unknown mode");
    // The kinematic state a live world keeps: finite, and positions inside the world (the border
    // rule brings back what a tick carries out; one world size on each side is allowed). Beyond,
    // a position divided by the cell size may overflow to an infinite cell coordinate.
    const Vec2 p = s.position[i];
    if (!math::is_finite(p) || !math::is_finite(s.velocity[i]) || !math::is_finite(s.heading[i]) ||
        !math::is_finite(s.orientation[i]) || !math::is_finite(s.angular_velocity[i]))
      return bad(at, "position, velocity, heading, orientation and angular velocity must be finite");
    if (p.x < -sc.width || p.x > 2 * sc.width || p.y < -sc.height || p.y > 2 * sc.height)
      return bad(at + ".position", "more than one world size outside the world");
    const std::int32_t g = s.group[i];
    if (s.kind[i] == AgentKind::kPlayer) {
      ++players;
      if (g != -1 || s.motion[i] != Model::kCraft) return bad(at, "a player has no group and moves as a craft");
    } else {
      if (g < 0 || static_cast<std::size_t>(g) >= ngroups) return bad(at + ".group", "no such group");
      const GroupSpec& spec = sc.groups[static_cast<std::size_t>(g)];
      if (s.kind[i] != spec.kind) return bad(at + ".kind", "differs from its group's");
      const Model gm = model_of(spec);
      const bool composed = gm == Model::kVehicle || gm == Model::kSteering;
      const bool m_composed = s.motion[i] == Model::kVehicle || s.motion[i] == Model::kSteering;
      if (composed ? !m_composed : s.motion[i] != gm) return bad(at + ".motion", "not a model of its group");
    }
    if (s.motion[i] == Model::kTile) {
      // Tile cells index the map: each must be on it (or the (-1, -1) "none" marker where allowed).
      const auto on = [&](behavior::Tile t, bool none_ok) {
        if (none_ok && t.row == -1 && t.col == -1) return true;
        return t.row >= 0 && t.col >= 0 && t.row < sc.tiles.rows && t.col < sc.tiles.cols;
      };
      const WorldState::Tile& t = s.tile[i];
      if (!on(t.from, false) || !on(t.to, false) || !on(t.previous, true) || !on(t.line_origin, true) ||
          !on(t.line_goal, true) || t.mode > 2 || t.line_step < 0)
        return bad(at + ".tile", "tile state off the map");
    }
    if (s.smoothing_allocated) {
      const behavior::HeadingSmoother& h = s.smoother[i];
      if (h.count < 0 || h.count > behavior::kMaxSmoothingSamples || h.next < 0 ||
          h.next >= behavior::kMaxSmoothingSamples)
        return bad(at + ".smoother", "ring buffer index out of range");
    }
  }
  if (players > sc.max_players) return bad("agents", "more players than max_players");
  for (const WorldState::Command& c : s.commands) {
    if (c.type >= WorldState::Command::Type::kCount) return bad("commands", "unknown command");
    // set_input and place queue only clamped values; the step applies them as they are.
    const PlayerInput clamped = sanitize_input(c.input);
    if (clamped.turn != c.input.turn || clamped.throttle != c.input.throttle)
      return bad("commands", "input out of range");
    if (c.position.x < 0 || c.position.x > sc.width || c.position.y < 0 || c.position.y > sc.height)
      return bad("commands", "place outside the world");
  }
  for (const std::vector<Event>* list : {&s.events, &s.events_pending})
    for (const Event& e : *list)
      if (e.type > Event::Type::kDespawn) return bad("events", "unknown event type");
  for (const auto& [g, spec] : s.pending_groups)
    if (g < 0 || static_cast<std::size_t>(g) >= ngroups) return bad("pending_groups", "no such group");
  const auto in_dense = [n](std::int32_t i) { return i >= 0 && static_cast<std::size_t>(i) < n; };
  for (const std::int32_t p : s.players)
    if (!in_dense(p)) return bad("players", "dense index out of range");
  if (s.players.size() > static_cast<std::size_t>(sc.max_players)) return bad("players", "more than max_players");
  if (s.leader_index.size() != ngroups) return bad("leader_index", "one entry per group");
  for (const std::int32_t l : s.leader_index)
    if (l != -1 && !in_dense(l)) return bad("leader_index", "dense index out of range");
  if (s.members.size() != ngroups) return bad("members", "one list per group");
  for (const auto& list : s.members)
    for (const std::int32_t m : list)
      if (!in_dense(m)) return bad("members", "dense index out of range");
  if (s.pushout_corrections < 0) return bad("pushout_corrections", "negative");
  return {};
}

}  // namespace

std::unique_ptr<WorldImpl> WorldImpl::from_state(WorldState s, std::string& error) {
  error.clear();
  if (std::string e = validate(s.scenario); !e.empty()) {
    error = "scenario: " + e;
    return nullptr;
  }
  // A pending set_group update must be one set_group() would have accepted.
  {
    Scenario tuned = s.scenario;
    for (const auto& [g, spec] : s.pending_groups)
      if (g >= 0 && static_cast<std::size_t>(g) < tuned.groups.size()) tuned.groups[static_cast<std::size_t>(g)] = spec;
    if (std::string e = validate(tuned); !e.empty()) {
      error = "pending_groups: " + e;
      return nullptr;
    }
  }
  if (std::string e = check_state(s); !e.empty()) {
    error = e;
    return nullptr;
  }
  // Build the derived data (compositions, obstacle index, tiles, grid, border walls) with the
  // constructor, spawning nothing (every group count 0: no random draws, no ids), then put the
  // stored state in place.
  Scenario empty = s.scenario;
  for (GroupSpec& g : empty.groups) g.count = 0;
  if (std::string e = validate(empty); !e.empty()) {  // the constructor asserts on it
    error = "scenario without agents: " + e;
    return nullptr;
  }
  std::unique_ptr<WorldImpl> w(new WorldImpl(empty));
  for (std::size_t g = 0; g < s.scenario.groups.size(); ++g) w->scenario_.groups[g].count = s.scenario.groups[g].count;
  w->tick_ = s.tick;
  w->world_rng_ = s.world_rng;
  w->flock_kernel_ = static_cast<FlockKernel>(s.flock_kernel);
  w->slot_generation_ = std::move(s.slot_generation);
  w->slot_dense_ = std::move(s.slot_dense);
  w->free_slots_ = std::move(s.free_slots);
  w->count_ = s.size();
  const auto put = [](auto& column, const auto& values) { std::copy(values.begin(), values.end(), column.begin()); };
  put(w->id_, s.id);
  put(w->kind_, s.kind);
  put(w->motion_, s.motion);
  put(w->group_, s.group);
  put(w->position_, s.position);
  put(w->velocity_, s.velocity);
  put(w->heading_, s.heading);
  put(w->orientation_, s.orientation);
  put(w->angular_velocity_, s.angular_velocity);
  put(w->rng_, s.rng);
  put(w->wander_, s.wander);
  put(w->waypoint_, s.waypoint);
  put(w->pattern_, s.pattern);
  put(w->chase_mode_, s.chase_mode);
  put(w->input_, s.input);
  put(w->spawn_tick_, s.spawn_tick);
  put(w->force_, s.force);
  put(w->thrusters_, s.thrusters);
  put(w->target_, s.target);
  put(w->aim_, s.aim);
  put(w->state_, s.state);
  for (std::size_t i = 0; i < s.tile.size(); ++i) {
    const WorldState::Tile& t = s.tile[i];
    w->tile_[i] = {t.from, t.to,     t.progress,    t.previous,  t.patrol,
                   t.mode, t.target, t.line_origin, t.line_goal, t.line_step};
  }
  put(w->fly_, s.fly);
  put(w->ray_state_, s.ray_state);
  put(w->kin_rotation_, s.kin_rotation);
  put(w->dyn_wander_, s.dyn_wander);
  put(w->kpattern_, s.kpattern);
  put(w->path_state_, s.path_state);
  if (s.smoothing_allocated) {
    w->smoother_.resize(static_cast<std::size_t>(w->capacity_));
    put(w->smoother_, s.smoother);
  } else if (!w->smoother_.empty()) {
    error = "smoother: a group smooths its heading but the state has no heading filters";
    return nullptr;
  }
  for (const WorldState::Command& c : s.commands) {
    Command cmd{static_cast<Command::Type>(c.type), c.id, c.input};
    cmd.position = c.position;
    w->commands_.push_back(cmd);
  }
  w->pending_groups_ = std::move(s.pending_groups);
  w->events_ = std::move(s.events);
  w->events_pending_ = std::move(s.events_pending);
  w->players_ = std::move(s.players);
  w->leader_index_ = std::move(s.leader_index);
  w->members_ = std::move(s.members);
  w->technique_counts_ = s.technique_counts;
  w->pushout_ = {s.pushout_corrections, s.pushout_max_depth};
  return w;
}

}  // namespace flockstep::sim
