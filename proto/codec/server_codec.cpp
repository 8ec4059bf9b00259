#include "codec/server_codec.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "codec/group_fields.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::codec {

namespace {

using math::Vec2;

void put(const Vec2& v, v1::Vec2& out) {
  out.set_x(v.x);
  out.set_y(v.y);
}

/// Read a Vec2; false if a component is NaN/Inf.
bool get(const v1::Vec2& in, Vec2& out) {
  if (!std::isfinite(in.x()) || !std::isfinite(in.y())) return false;
  out = {in.x(), in.y()};
  return true;
}

Result not_finite(const std::string& field) { return fail(Status::kNotFinite, field + " is NaN or infinite"); }

bool finite(double v) { return std::isfinite(v); }

void put_craft(const behavior::CraftParams& c, v1::CraftParams& out) {
  out.set_mass(c.mass);
  out.set_inertia(c.inertia);
  out.set_length(c.length);
  out.set_thrust(c.thrust);
  out.set_max_steering_force(c.max_steering_force);
  out.set_linear_drag(c.linear_drag);
  out.set_lateral_drag(c.lateral_drag);
  out.set_angular_drag(c.angular_drag);
}

bool get_craft(const v1::CraftParams& in, behavior::CraftParams& c) {
  const double v[] = {in.mass(),        in.inertia(),      in.length(),      in.thrust(), in.max_steering_force(),
                      in.linear_drag(), in.lateral_drag(), in.angular_drag()};
  for (double x : v)
    if (!finite(x)) return false;
  c = {in.mass(),        in.inertia(),      in.length(),      in.thrust(), in.max_steering_force(),
       in.linear_drag(), in.lateral_drag(), in.angular_drag()};
  return true;
}

template <class Message>
void serialize(const Message& m, std::string& out) {
  out.clear();
  m.SerializeToString(&out);
}

}  // namespace

v1::AgentKind to_wire(sim::AgentKind k) {
  switch (k) {
    case sim::AgentKind::kPlayer: return v1::AGENT_KIND_PLAYER;
    case sim::AgentKind::kFlock: return v1::AGENT_KIND_FLOCK;
    case sim::AgentKind::kPursuer: return v1::AGENT_KIND_PURSUER;
    case sim::AgentKind::kPatrol: return v1::AGENT_KIND_PATROL;
    case sim::AgentKind::kWanderer: return v1::AGENT_KIND_WANDERER;
    case sim::AgentKind::kCount: break;
  }
  return v1::AGENT_KIND_UNSPECIFIED;
}

bool from_wire(v1::AgentKind k, sim::AgentKind& out) {
  switch (k) {
    case v1::AGENT_KIND_PLAYER: out = sim::AgentKind::kPlayer; return true;
    case v1::AGENT_KIND_FLOCK: out = sim::AgentKind::kFlock; return true;
    case v1::AGENT_KIND_PURSUER: out = sim::AgentKind::kPursuer; return true;
    case v1::AGENT_KIND_PATROL: out = sim::AgentKind::kPatrol; return true;
    case v1::AGENT_KIND_WANDERER: out = sim::AgentKind::kWanderer; return true;
    default: return false;
  }
}

v1::BehaviourState to_wire(sim::BehaviorState s) {
  switch (s) {
    case sim::BehaviorState::kNone: return v1::BEHAVIOUR_STATE_NONE;
    case sim::BehaviorState::kSeeking: return v1::BEHAVIOUR_STATE_SEEKING;
    case sim::BehaviorState::kIntercepting: return v1::BEHAVIOUR_STATE_INTERCEPTING;
    case sim::BehaviorState::kLosFallback: return v1::BEHAVIOUR_STATE_LOS_FALLBACK;
    case sim::BehaviorState::kFleeing: return v1::BEHAVIOUR_STATE_FLEEING;
    case sim::BehaviorState::kAvoiding: return v1::BEHAVIOUR_STATE_AVOIDING;
    case sim::BehaviorState::kPatrolling: return v1::BEHAVIOUR_STATE_PATROLLING;
    case sim::BehaviorState::kHiding: return v1::BEHAVIOUR_STATE_HIDING;
    case sim::BehaviorState::kCaptured: return v1::BEHAVIOUR_STATE_CAPTURED;
  }
  return v1::BEHAVIOUR_STATE_NONE;
}

bool from_wire(v1::BehaviourState s, sim::BehaviorState& out) {
  switch (s) {
    case v1::BEHAVIOUR_STATE_NONE: out = sim::BehaviorState::kNone; return true;
    case v1::BEHAVIOUR_STATE_SEEKING: out = sim::BehaviorState::kSeeking; return true;
    case v1::BEHAVIOUR_STATE_INTERCEPTING: out = sim::BehaviorState::kIntercepting; return true;
    case v1::BEHAVIOUR_STATE_LOS_FALLBACK: out = sim::BehaviorState::kLosFallback; return true;
    case v1::BEHAVIOUR_STATE_FLEEING: out = sim::BehaviorState::kFleeing; return true;
    case v1::BEHAVIOUR_STATE_AVOIDING: out = sim::BehaviorState::kAvoiding; return true;
    case v1::BEHAVIOUR_STATE_PATROLLING: out = sim::BehaviorState::kPatrolling; return true;
    case v1::BEHAVIOUR_STATE_HIDING: out = sim::BehaviorState::kHiding; return true;
    case v1::BEHAVIOUR_STATE_CAPTURED: out = sim::BehaviorState::kCaptured; return true;
    default: return false;
  }
}

void encode_group(const sim::GroupSpec& g, v1::AgentGroup& o) {
  o.Clear();
  o.set_name(g.name);
  o.set_kind(to_wire(g.kind));
  o.set_technique(sim::technique_name(g.technique));
  o.set_count(g.count);
  put(g.spawn_min, *o.mutable_spawn_min());
  put(g.spawn_max, *o.mutable_spawn_max());
  o.set_path(g.path);
  o.set_leader_group(g.leader_group);
  put(g.offset, *o.mutable_offset());
  o.set_pattern(pattern_name(g.pattern));
  for (const GroupField& f : group_fields()) {
    v1::Param* p = o.add_params();
    p->set_name(std::string(f.name));
    p->set_value(f.get(g));
  }
  o.set_target_group(g.target_group);
  put(g.goal, *o.mutable_goal());
  o.set_tile_pattern(g.tile_pattern);
  o.set_track(g.track);
  if (g.technique == sim::Technique::kComposed) {
    v1::Composition& c = *o.mutable_compose();
    c.set_model(sim::model_name(g.model));
    c.set_combiner(sim::combiner_name(g.compose.combiner));
    for (const sim::CompositionField& f : sim::composition_fields()) {
      v1::Param* p = c.add_params();
      p->set_name(std::string(f.name));
      p->set_value(f.get(g.compose));
    }
    for (const sim::BehaviorSpec& b : g.compose.behaviors) {
      v1::Behavior& ob = *c.add_behaviors();
      ob.set_type(sim::behavior_name(b.type));
      for (const sim::BehaviorField& f : sim::behavior_fields()) {
        v1::Param* p = ob.add_params();
        p->set_name(std::string(f.name));
        p->set_value(f.get(b));
      }
    }
  }
}

Result decode_group(const v1::AgentGroup& o, const std::string& where, sim::GroupSpec& g) {
  g = sim::GroupSpec{};
  g.name = o.name();
  if (!from_wire(o.kind(), g.kind)) return fail(Status::kBadEnum, where + ".kind unknown");
  if (!sim::parse_technique(o.technique(), g.technique)) return fail(Status::kBadEnum, where + ".technique unknown");
  g.count = o.count();
  if (!get(o.spawn_min(), g.spawn_min) || !get(o.spawn_max(), g.spawn_max) || !get(o.offset(), g.offset))
    return not_finite(where + ".spawn/offset");
  g.path = o.path();
  g.leader_group = o.leader_group();
  if (!parse_pattern(o.pattern(), g.pattern)) return fail(Status::kBadEnum, where + ".pattern unknown");
  for (const v1::Param& p : o.params()) {
    const GroupField* f = find_group_field(p.name());
    if (!f) return fail(Status::kBadEnum, where + ".params: unknown parameter '" + p.name() + "'");
    if (!finite(p.value())) return not_finite(where + "." + p.name());
    f->set(g, p.value());
  }
  g.target_group = o.target_group();
  if (o.has_goal() && !get(o.goal(), g.goal)) return not_finite(where + ".goal");
  g.tile_pattern = o.tile_pattern();
  g.track = o.track();
  if (g.technique == sim::Technique::kComposed) {
    const v1::Composition& c = o.compose();
    if (!sim::parse_model(c.model(), g.model)) return fail(Status::kBadEnum, where + ".compose.model unknown");
    if (!sim::parse_combiner(c.combiner(), g.compose.combiner))
      return fail(Status::kBadEnum, where + ".compose.combiner unknown");
    for (const v1::Param& p : c.params()) {
      const sim::CompositionField* f = sim::find_composition_field(p.name());
      if (!f) return fail(Status::kBadEnum, where + ".compose.params: unknown parameter '" + p.name() + "'");
      if (!finite(p.value())) return not_finite(where + ".compose." + p.name());
      f->set(g.compose, p.value());
    }
    if (c.behaviors_size() > sim::kMaxBehaviors) return fail(Status::kBadEnum, where + ".compose.behaviors: too many");
    for (const v1::Behavior& ob : c.behaviors()) {
      sim::BehaviorSpec b;
      if (!sim::parse_behavior(ob.type(), b.type))
        return fail(Status::kBadEnum, where + ".compose.behaviors: unknown type");
      for (const v1::Param& p : ob.params()) {
        const sim::BehaviorField* f = sim::find_behavior_field(p.name());
        if (!f) return fail(Status::kBadEnum, where + ".compose.behaviors: unknown parameter '" + p.name() + "'");
        if (!finite(p.value())) return not_finite(where + ".compose.behaviors." + p.name());
        f->set(b, p.value());
      }
      g.compose.behaviors.push_back(b);
    }
  }
  return {};
}

void encode_world_spec(const sim::Scenario& s, v1::WorldSpec& out) {
  out.Clear();
  out.set_name(s.name);
  out.set_description(s.description);
  out.set_width(s.width);
  out.set_height(s.height);
  out.set_wrap(s.wrap);
  out.set_tick_rate_hz(s.tick_rate_hz);
  out.set_seed(s.seed);
  out.set_max_agents(s.max_agents);
  out.set_max_players(s.max_players);
  out.set_grid_cell(s.grid_cell);
  put_craft(s.player_craft, *out.mutable_player_craft());
  out.set_respawn_protection_s(s.respawn_protection_s);
  out.set_steering_interval_ticks(s.steering_interval_ticks);
  for (const sim::Circle& c : s.obstacles) {
    v1::Circle* o = out.add_obstacles();
    put(c.center, *o->mutable_center());
    o->set_radius(c.radius);
  }
  for (const sim::Wall& w : s.walls) {
    v1::Wall* o = out.add_walls();
    put(w.a, *o->mutable_a());
    put(w.b, *o->mutable_b());
  }
  for (const sim::PathSpec& p : s.paths) {
    v1::Path* o = out.add_paths();
    o->set_name(p.name);
    o->set_loop(p.loop);
    for (const Vec2& v : p.points) put(v, *o->add_points());
  }
  for (const sim::GroupSpec& g : s.groups) encode_group(g, *out.add_groups());
  v1::TileMap* t = out.mutable_tiles();
  t->set_width(static_cast<std::uint32_t>(std::max(0, s.tiles.cols)));
  t->set_height(static_cast<std::uint32_t>(std::max(0, s.tiles.rows)));
  t->set_cell_size(s.tiles.cell);
  t->set_cells(std::string(s.tiles.blocked.begin(), s.tiles.blocked.end()));
  for (const sim::TilePatternSpec& p : s.tile_patterns) {
    v1::TilePattern* o = out.add_tile_patterns();
    o->set_name(p.name);
    for (const auto& v : p.vertices) {
      o->add_vertices(v[0]);
      o->add_vertices(v[1]);
    }
    o->set_row_offset(p.row_offset);
    o->set_col_offset(p.col_offset);
  }
  for (const sim::TrackSpec& k : s.tracks) {
    v1::Track* o = out.add_tracks();
    o->set_name(k.name);
    for (const auto& seg : k.segments)
      for (std::int32_t v : seg) o->add_segments(v);
  }
}

Result decode_world_spec(const v1::WorldSpec& in, sim::Scenario& s) {
  s.name = in.name();
  s.description = in.description();
  if (!finite(in.width()) || !finite(in.height())) return not_finite("world.width/height");
  s.width = in.width();
  s.height = in.height();
  s.wrap = in.wrap();
  s.tick_rate_hz = in.tick_rate_hz();
  s.seed = in.seed();
  s.max_agents = in.max_agents();
  s.max_players = in.max_players();
  if (!finite(in.grid_cell()) || !finite(in.respawn_protection_s()))
    return not_finite("world.grid_cell/respawn_protection_s");
  s.grid_cell = in.grid_cell();
  if (!get_craft(in.player_craft(), s.player_craft)) return not_finite("world.player_craft");
  s.respawn_protection_s = in.respawn_protection_s();
  s.steering_interval_ticks = in.steering_interval_ticks() == 0 ? 1 : in.steering_interval_ticks();
  s.obstacles.clear();
  for (int i = 0; i < in.obstacles_size(); ++i) {
    sim::Circle c;
    if (!get(in.obstacles(i).center(), c.center) || !finite(in.obstacles(i).radius()))
      return not_finite("world.obstacles[" + std::to_string(i) + "]");
    c.radius = in.obstacles(i).radius();
    s.obstacles.push_back(c);
  }
  s.walls.clear();
  for (int i = 0; i < in.walls_size(); ++i) {
    sim::Wall w;
    if (!get(in.walls(i).a(), w.a) || !get(in.walls(i).b(), w.b))
      return not_finite("world.walls[" + std::to_string(i) + "]");
    s.walls.push_back(w);
  }
  s.paths.clear();
  for (int i = 0; i < in.paths_size(); ++i) {
    const v1::Path& p = in.paths(i);
    sim::PathSpec ps;
    ps.name = p.name();
    ps.loop = p.loop();
    for (int k = 0; k < p.points_size(); ++k) {
      Vec2 v;
      if (!get(p.points(k), v)) return not_finite("world.paths[" + std::to_string(i) + "].points");
      ps.points.push_back(v);
    }
    s.paths.push_back(std::move(ps));
  }
  s.groups.clear();
  for (int i = 0; i < in.groups_size(); ++i) {
    sim::GroupSpec g;
    if (Result r = decode_group(in.groups(i), "world.groups[" + std::to_string(i) + "]", g); !r.ok()) return r;
    s.groups.push_back(std::move(g));
  }
  const v1::TileMap& t = in.tiles();
  constexpr std::uint32_t kMaxTiles = 1024;  // sim limit per side (sim::validate_tiles checks it too)
  if (t.width() > kMaxTiles || t.height() > kMaxTiles) return fail(Status::kMalformed, "world.tiles too large");
  if (!finite(t.cell_size())) return not_finite("world.tiles.cell_size");
  s.tiles.cols = static_cast<std::int32_t>(t.width());
  s.tiles.rows = static_cast<std::int32_t>(t.height());
  if (t.cell_size() != 0 || s.tiles.cols != 0) s.tiles.cell = t.cell_size();
  if (t.cells().size() != std::size_t{t.width()} * t.height())
    return fail(Status::kMalformed, "world.tiles.cells must hold width x height bytes");
  s.tiles.blocked.assign(t.cells().begin(), t.cells().end());
  s.tile_patterns.clear();
  for (int i = 0; i < in.tile_patterns_size(); ++i) {
    const v1::TilePattern& p = in.tile_patterns(i);
    if (p.vertices_size() % 2 != 0)
      return fail(Status::kMalformed, "world.tile_patterns[" + std::to_string(i) + "].vertices must be pairs");
    sim::TilePatternSpec ps;
    ps.name = p.name();
    for (int k = 0; k < p.vertices_size(); k += 2) ps.vertices.push_back({p.vertices(k), p.vertices(k + 1)});
    ps.row_offset = p.row_offset();
    ps.col_offset = p.col_offset();
    s.tile_patterns.push_back(std::move(ps));
  }
  s.tracks.clear();
  for (int i = 0; i < in.tracks_size(); ++i) {
    const v1::Track& k = in.tracks(i);
    if (k.segments_size() % 4 != 0)
      return fail(Status::kMalformed, "world.tracks[" + std::to_string(i) + "].segments must be quadruples");
    sim::TrackSpec ts;
    ts.name = k.name();
    for (int j = 0; j < k.segments_size(); j += 4)
      ts.segments.push_back({k.segments(j), k.segments(j + 1), k.segments(j + 2), k.segments(j + 3)});
    s.tracks.push_back(std::move(ts));
  }
  if (std::string why = sim::validate(s); !why.empty()) return fail(Status::kMalformed, "world." + why);
  return {};
}

void encode_agent(const sim::AgentView& a, v1::Agent& out) {
  out.set_id(a.id.value);
  out.set_kind(to_wire(a.kind));
  put(a.position, *out.mutable_position());
  put(a.velocity, *out.mutable_velocity());
  out.set_heading(a.orientation);
  out.set_target_id(a.target.value);
  put(a.aim, *out.mutable_aim_point());
  out.set_state(to_wire(a.state));
  out.set_group(a.group);
  out.set_angular_velocity(a.angular_velocity);
  out.set_spawn_tick(a.spawn_tick);
}

Result decode_agent(const v1::Agent& in, sim::AgentView& a) {
  a.id.value = in.id();
  if (!from_wire(in.kind(), a.kind)) return fail(Status::kBadEnum, "agent.kind unknown");
  if (!get(in.position(), a.position) || !get(in.velocity(), a.velocity) || !get(in.aim_point(), a.aim) ||
      !finite(in.heading()) || !finite(in.angular_velocity()))
    return not_finite("agent " + std::to_string(in.id()));
  a.orientation = in.heading();
  a.target.value = in.target_id();
  if (!from_wire(in.state(), a.state)) return fail(Status::kBadEnum, "agent.state unknown");
  a.group = in.group();
  a.angular_velocity = in.angular_velocity();
  a.spawn_tick = in.spawn_tick();
  return {};
}

const std::string& SnapshotEncoder::encode_body(const sim::World& world) {
  v1::Snapshot* snap = message_.mutable_snapshot();
  snap->set_server_tick(world.tick());
  snap->set_state_hash(world.state_hash());
  auto* agents = snap->mutable_agents();
  const std::int32_t n = world.size();
  // Reuse the Agent objects of the previous call: RepeatedPtrField keeps cleared elements.
  while (agents->size() > n) agents->RemoveLast();
  for (std::int32_t i = 0; i < n; ++i) {
    v1::Agent* a = i < agents->size() ? agents->Mutable(i) : agents->Add();
    encode_agent(world.view(i), *a);
  }
  bytes_.clear();
  message_.SerializeToString(&bytes_);
  return bytes_;
}

void encode_snapshot_suffix(InputProgress input, std::string& out) {
  v1::ServerMessage m;
  // A zero would not be encoded at all (proto3 default), which is exactly "none applied yet";
  // `player` itself is always present for a player (an empty PlayerSnapshot is 2 bytes).
  v1::PlayerSnapshot* p = m.mutable_player();
  p->set_last_input_sequence(input.last_sequence);
  p->set_input_held_ticks(input.held_ticks);
  p->set_input_slips(input.slips);
  serialize(m, out);
}

Result decode_snapshot_agents(const v1::Snapshot& in, std::vector<sim::AgentView>& out) {
  out.resize(static_cast<std::size_t>(in.agents_size()));
  for (int i = 0; i < in.agents_size(); ++i) {
    Result r = decode_agent(in.agents(i), out[static_cast<std::size_t>(i)]);
    if (!r.ok()) return r;
  }
  return {};
}

void encode_delta_body(std::uint64_t server_tick, std::uint64_t baseline_tick, std::uint64_t state_hash,
                       std::string_view agents, std::uint32_t agent_count, std::string& out) {
  v1::ServerMessage m;
  v1::DeltaSnapshot* d = m.mutable_delta_snapshot();
  d->set_server_tick(server_tick);
  d->set_baseline_tick(baseline_tick);
  d->set_state_hash(state_hash);
  d->set_agents(std::string(agents));
  d->set_agent_count(agent_count);
  serialize(m, out);
}

void encode_delta_suffix(InputProgress input, const sim::AgentView* own, std::string& out) {
  v1::ServerMessage m;
  v1::PlayerSnapshot* d = m.mutable_player();
  d->set_last_input_sequence(input.last_sequence);
  d->set_input_held_ticks(input.held_ticks);
  d->set_input_slips(input.slips);
  if (own) {
    v1::OwnCraft* o = d->mutable_own();
    o->set_id(own->id.value);
    put(own->position, *o->mutable_position());
    put(own->velocity, *o->mutable_velocity());
    o->set_heading(own->orientation);
    o->set_angular_velocity(own->angular_velocity);
    o->set_spawn_tick(own->spawn_tick);
  }
  serialize(m, out);
}

void SnapshotReceiver::configure(const sim::Scenario& scenario) {
  geometry_ = WireGeometry::of(scenario);
  reset();
}

void SnapshotReceiver::reset() {
  for (ViewFrame& f : ring_) {
    f.tick = 0;
    f.agents.clear();
  }
  newest_ = 0;
  need_full_ = false;
  views_.clear();
}

const ViewFrame* SnapshotReceiver::frame(std::uint64_t tick) const {
  if (tick == 0) return nullptr;
  for (const ViewFrame& f : ring_)
    if (f.tick == tick) return &f;
  return nullptr;
}

Result SnapshotReceiver::receive(const v1::DeltaSnapshot& in, const v1::PlayerSnapshot* player) {
  const std::uint64_t tick = in.server_tick();
  if (tick == 0) return fail(Status::kMalformed, "delta_snapshot.server_tick is 0");
  if (tick <= newest_) {
    // Late: a newer frame is already here. While a full snapshot is awaited it stays awaited
    // (ack 0); taking an older one would move the view back in time.
    if (need_full_)
      return fail(Status::kEmpty, "snapshot " + std::to_string(tick) + " is older than the newest, " +
                                      std::to_string(newest_) + "; waiting for a full snapshot");
    return {};
  }
  const ViewFrame* base = nullptr;
  if (in.baseline_tick() != 0) {
    base = frame(in.baseline_tick());
    if (!base) {
      need_full_ = true;  // ack 0: the server answers with a full snapshot
      return fail(Status::kEmpty, "baseline " + std::to_string(in.baseline_tick()) + " is not in the history");
    }
  }
  // The ring keeps the kHistory newest decoded frames: the new frame (decoded aside first, so
  // the baseline stays readable) replaces the oldest one, even when that is its own baseline.
  // Every baseline the server may still choose is among them (docs/protocol.md, "Baselines").
  // Keeping the baseline instead and evicting the next-oldest frame (as this receiver once did)
  // dropped exactly the frame a late acknowledgement makes the next baseline.
  ViewFrame* slot = &ring_[0];
  for (ViewFrame& f : ring_)
    if (f.tick < slot->tick) slot = &f;
  ViewFrame decoded;
  Result r = decode_agents(base, tick, in.agents(), geometry_, decoded);
  if (!r.ok()) return r;
  if (in.agent_count() != decoded.agents.size())
    return fail(Status::kMalformed, "delta_snapshot.agent_count does not match the decoded agents");
  *slot = std::move(decoded);
  newest_ = tick;
  need_full_ = false;
  frame_views(*slot, geometry_, views_);
  if (player && player->has_own()) {
    const v1::OwnCraft& o = player->own();
    sim::AgentView own;
    own.id.value = o.id();
    if (own.id.value == 0) return fail(Status::kMalformed, "player.own.id is 0 (no agent)");
    if (!get(o.position(), own.position) || !get(o.velocity(), own.velocity) || !finite(o.heading()) ||
        !finite(o.angular_velocity()))
      return not_finite("player.own");
    auto it = std::lower_bound(views_.begin(), views_.end(), own.id.value,
                               [](const sim::AgentView& a, std::uint32_t id) { return a.id.value < id; });
    if (it == views_.end() || it->id.value != own.id.value) {
      own.kind = sim::AgentKind::kPlayer;
      own.group = -1;
      it = views_.insert(it, own);
    }
    it->position = own.position;
    it->velocity = own.velocity;
    it->orientation = o.heading();
    it->angular_velocity = o.angular_velocity();
    it->spawn_tick = o.spawn_tick();
  }
  return {};
}

void encode_welcome(const WelcomeInfo& info, const sim::Scenario& scenario, std::string& out) {
  v1::ServerMessage m;
  v1::Welcome* w = m.mutable_welcome();
  w->set_player_id(info.player_id);
  w->set_entity_id(info.entity.value);
  w->set_role(info.role == Role::kPlayer ? v1::ROLE_PLAYER : v1::ROLE_SPECTATOR);
  w->set_tick_rate_hz(info.tick_rate_hz);
  w->set_snapshot_rate_hz(info.snapshot_rate_hz);
  w->set_server_tick(info.server_tick);
  w->set_resume_token(info.resume_token);
  w->set_resume_window_ms(info.resume_window_ms);
  w->set_max_input_frames(info.max_input_frames);
  w->set_room(info.room);
  w->set_protocol_version(kProtocolVersion);
  w->set_ack_every_snapshots(info.ack_every_snapshots);
  encode_world_spec(scenario, *w->mutable_world());
  serialize(m, out);
}

void encode_group_update(std::uint64_t server_tick, std::int32_t group, const sim::GroupSpec& spec, std::string& out) {
  v1::ServerMessage m;
  v1::GroupUpdate* u = m.mutable_group_update();
  u->set_server_tick(server_tick);
  u->set_group(group);
  encode_group(spec, *u->mutable_spec());
  serialize(m, out);
}

void encode_steering_trace(const sim::SteeringTrace& trace, std::string& out) {
  v1::ServerMessage m;
  v1::SteeringTrace* t = m.mutable_steering_trace();
  t->set_server_tick(trace.tick);
  t->set_agent_id(trace.agent.value);
  t->set_group(trace.group);
  t->set_available(true);
  for (std::int32_t q = 0; q < trace.count; ++q) {
    const sim::BehaviorTrace& b = trace.behaviors[q];
    v1::BehaviourOutput* o = t->add_behaviours();
    o->set_type(sim::behavior_name(b.type));
    o->set_weight(b.weight);
    o->set_evaluated(b.evaluated);
    o->mutable_linear()->set_x(b.raw.linear.x);
    o->mutable_linear()->set_y(b.raw.linear.y);
    o->set_angular(b.raw.angular);
  }
  t->mutable_linear()->set_x(trace.result.linear.x);
  t->mutable_linear()->set_y(trace.result.linear.y);
  t->set_angular(trace.result.angular);
  serialize(m, out);
}

void encode_trace_unavailable(std::uint32_t agent_id, std::uint64_t server_tick, std::string& out) {
  v1::ServerMessage m;
  v1::SteeringTrace* t = m.mutable_steering_trace();
  t->set_server_tick(server_tick);
  t->set_agent_id(agent_id);
  t->set_group(-1);
  t->set_available(false);
  serialize(m, out);
}

Result decode_steering_trace(const v1::SteeringTrace& in, sim::SteeringTrace& out) {
  if (in.behaviours_size() > sim::kMaxBehaviors)
    return fail(Status::kTooBig, "steering_trace: " + std::to_string(in.behaviours_size()) + " behaviours, at most " +
                                     std::to_string(sim::kMaxBehaviors));
  auto finite = [](const v1::Vec2& v) { return std::isfinite(v.x()) && std::isfinite(v.y()); };
  out = sim::SteeringTrace{};
  out.agent = sim::AgentId{in.agent_id()};
  out.tick = in.server_tick();
  out.group = in.group();
  out.count = in.behaviours_size();
  for (std::int32_t q = 0; q < out.count; ++q) {
    const v1::BehaviourOutput& b = in.behaviours(q);
    if (!finite(b.linear()) || !std::isfinite(b.angular()) || !std::isfinite(b.weight()))
      return fail(Status::kNotFinite, "steering_trace.behaviours: non-finite number");
    sim::BehaviorType type{};
    if (!sim::parse_behavior(b.type(), type))
      return fail(Status::kBadEnum, "steering_trace.behaviours.type unknown: " + b.type());
    out.behaviors[q] = {type, b.evaluated(), {{b.linear().x(), b.linear().y()}, b.angular()}, b.weight()};
  }
  if (!finite(in.linear()) || !std::isfinite(in.angular()))
    return fail(Status::kNotFinite, "steering_trace: non-finite number");
  out.result = {{in.linear().x(), in.linear().y()}, in.angular()};
  return {};
}

void add_capture(v1::Events& events, std::uint32_t player_id, const sim::Event& e) {
  v1::Capture* c = events.add_captures();
  c->set_player_id(player_id);
  c->set_entity_id(e.subject.value);
  c->set_pursuer_id(e.other.value);
  c->set_tick(e.tick);
  c->set_survived_ticks(e.survived_ticks);
}

void add_respawn(v1::Events& events, std::uint32_t player_id, const sim::Event& e) {
  v1::Respawn* r = events.add_respawns();
  r->set_player_id(player_id);
  r->set_entity_id(e.subject.value);
  r->set_tick(e.tick);
}

void encode_close(v1::Close::Code code, std::string_view reason, std::string& out) {
  v1::ServerMessage m;
  m.mutable_close()->set_code(code);
  m.mutable_close()->set_reason(std::string(reason.substr(0, 120)));
  serialize(m, out);
}

void encode_server_pong(std::uint64_t echo_time_us, std::uint64_t server_tick, std::string& out) {
  v1::ServerMessage m;
  m.mutable_pong()->set_echo_time_us(echo_time_us);
  m.mutable_pong()->set_server_tick(server_tick);
  serialize(m, out);
}

void encode_server_ping(std::uint64_t time_us, std::string& out) {
  v1::ServerMessage m;
  m.mutable_ping()->set_sender_time_us(time_us);
  serialize(m, out);
}

void encode_events(const v1::Events& events, std::string& out) {
  v1::ServerMessage m;
  *m.mutable_events() = events;
  serialize(m, out);
}

Result decode_server_message(std::span<const std::byte> bytes, v1::ServerMessage& out) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return fail(Status::kTooBig, "too big");
  if (!out.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return fail(Status::kMalformed, "not a valid ServerMessage encoding");
  if (out.payload_case() == v1::ServerMessage::PAYLOAD_NOT_SET)
    return fail(Status::kEmpty, "ServerMessage without payload");
  // Protocol 2: the per-player part travels beside the shared body, never alone.
  if (out.has_player() && !out.has_delta_snapshot() && !out.has_snapshot())
    return fail(Status::kMalformed, "ServerMessage.player without a snapshot");
  return {};
}

}  // namespace flockstep::codec
