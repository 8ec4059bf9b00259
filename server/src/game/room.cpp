#include "game/room.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "codec/group_fields.hpp"
#include "codec/world_state_codec.hpp"
#include "game/room_state.hpp"
#include "game/input_log_recorder.hpp"
#include "game/recorder.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "ops/os_random.hpp"
#include "ops/token_hash.hpp"

namespace flockstep::server::game {

const char* to_string(CloseReason r) {
  switch (r) {
    case CloseReason::kNormal: return "normal";
    case CloseReason::kShutdown: return "shutdown";
    case CloseReason::kMalformed: return "malformed";
    case CloseReason::kProtocol: return "protocol";
    case CloseReason::kTooBig: return "too_big";
    case CloseReason::kViolations: return "violations";
    case CloseReason::kTooSlow: return "too_slow";
    case CloseReason::kRoomFull: return "room_full";
    case CloseReason::kTimeout: return "timeout";
    case CloseReason::kBadResume: return "bad_resume";
    case CloseReason::kUnknownRoom: return "unknown_room";
  }
  return "unknown";
}

namespace {

sim::Scenario adjust(sim::Scenario s, const RoomConfig& c) {
  s.tick_rate_hz = static_cast<std::int32_t>(c.tick_rate_hz);
  // The world needs room for every player on top of the scripted groups.
  s.max_players = static_cast<std::int32_t>(c.max_players);
  std::int64_t groups = 0;
  for (const sim::GroupSpec& g : s.groups) groups += g.count;
  s.max_agents = static_cast<std::int32_t>(std::max<std::int64_t>(s.max_agents, groups + s.max_players));
  return s;
}

StreamConfig stream_config(const RoomConfig& c) {
  StreamConfig s;
  // kbit/s -> bytes of agent records per snapshot.
  s.budget_bytes =
      static_cast<std::uint32_t>(std::uint64_t{c.snapshot_budget_kbps} * 1000 / 8 / std::max(1u, c.snapshot_rate_hz));
  s.interest.player_radius_m = c.aoi_radius_m;
  s.interest.hysteresis_m = c.aoi_hysteresis_m;
  s.ack_every = std::max(1u, c.ack_every_snapshots);
  return s;
}

}  // namespace

Room::Room(const RoomConfig& config, sim::Scenario scenario, ops::ServerMetrics* metrics, ops::Logger* log)
    : config_(config),
      scenario_(adjust(std::move(scenario), config)),
      world_(scenario_),
      metrics_(metrics ? &metrics->room(config.room_name.empty() ? scenario_.name : config.room_name) : nullptr),
      log_(log),
      streams_(scenario_, stream_config(config)),
      resume_window_ticks_(static_cast<std::uint64_t>(config.resume_window_ms) * config.tick_rate_hz / 1000) {
  if (config_.token_key.empty()) config_.token_key = ops::new_token_key();
  for (std::uint32_t i = 0; i < config_.bots; ++i) add_bot(i);
  update_agent_metrics();
}

Room::~Room() {
  stop_input_log("room closed");
  if (!metrics_) return;
  ops::Gauge* gauges[8] = {&metrics_->clients_player, &metrics_->clients_spectator, &metrics_->clients_bot,
                           &metrics_->agents_player,  &metrics_->agents_flock,      &metrics_->agents_pursuer,
                           &metrics_->agents_patrol,  &metrics_->agents_wanderer};
  for (int i = 0; i < 8; ++i) gauges[i]->add(-reported_[i]);
}

std::size_t Room::connected_players() const {
  std::size_t n = 0;
  for (const auto& q : players_) n += (!q->bot && q->conn != 0) ? 1 : 0;
  return n;
}

void Room::update_client_metrics() {
  if (!metrics_) return;
  // Several rooms share the gauges: each adds the change of its own share.
  auto report = [this](int slot, ops::Gauge& g, std::int64_t now) {
    g.add(now - reported_[slot]);
    reported_[slot] = now;
  };
  std::int64_t bots = 0;
  for (const auto& p : players_) bots += p->bot ? 1 : 0;
  report(0, metrics_->clients_player, static_cast<std::int64_t>(connected_players()));
  report(1, metrics_->clients_spectator, static_cast<std::int64_t>(spectators_.size()));
  report(2, metrics_->clients_bot, bots);
}

TuneResult Room::tune(std::int32_t group, const std::vector<TunePatch>& patches) {
  TuneResult r;
  if (group < 0 || group >= static_cast<std::int32_t>(scenario_.groups.size())) {
    r.status = 404;
    r.error =
        "no group " + std::to_string(group) + " (the scenario has " + std::to_string(scenario_.groups.size()) + ")";
    return r;
  }
  sim::GroupSpec spec = scenario_.groups[static_cast<std::size_t>(group)];
  for (const TunePatch& p : patches) {
    if (p.key == "count") {
      if (p.value < 0 || p.value > 1'000'000 || p.value != static_cast<double>(static_cast<std::int32_t>(p.value))) {
        r.status = 400;
        r.error = "count: must be an integer in 0..1000000";
        return r;
      }
      spec.count = static_cast<std::int32_t>(p.value);
      continue;
    }
    // A group field, or for a composed group a composition or behaviour field ("behaviors[1].weight").
    if (!codec::set_group_param(spec, p.key, p.value)) {
      r.status = 400;
      r.error = p.key + ": unknown group field";
      return r;
    }
  }
  if (std::string why = world_.set_group(group, spec); !why.empty()) {
    r.status = 400;
    r.error = why;
    return r;
  }
  if (input_log_) input_log_->set_group(group, spec);
  pending_tunes_.push_back(group);
  r.spec = spec;
  return r;
}

void Room::set_recorder(Recorder* recorder) {
  recorder_ = recorder;
  if (recorder_) recorder_->start(world_, scenario_, config_);
}

std::string Room::start_input_log(std::unique_ptr<InputLogRecorder> recorder) {
  if (input_log_) return "the room is being recorded already (" + input_log_->path() + ")";
  if (!recorder || !recorder->ok()) return "the recording file could not be created";
  recorder->start(world_, config_.room_name.empty() ? scenario_.name : config_.room_name);
  if (!recorder->active()) return "the recording could not start (recording_max_mb too small? see the log)";
  input_log_ = std::move(recorder);
  if (log_) log_->info("input_log_started", {{"file", input_log_->path()}, {"tick", world_.tick()}});
  return {};
}

std::string Room::stop_input_log(std::string_view reason) {
  if (!input_log_) return {};
  input_log_->finish(world_, reason);
  std::string path = input_log_->path();
  input_log_.reset();  // joins the writer: the file is complete when this returns
  return path;
}

sim::AgentId Room::world_add_player() {
  const sim::AgentId id = world_.add_player();
  if (input_log_) input_log_->add_player(id);
  return id;
}

void Room::world_set_input(sim::AgentId id, sim::PlayerInput input) {
  world_.set_input(id, input);
  if (input_log_) input_log_->set_input(id, input);
}

void Room::world_remove(sim::AgentId id) {
  world_.remove(id);
  if (input_log_) input_log_->remove(id);
}

void Room::world_step() {
  if (input_log_) input_log_->before_step(world_);
  world_.step();
  if (input_log_) {
    input_log_->after_step(world_);
    // Ended by its size limit or an I/O error (logged by the recorder): let it go.
    if (!input_log_->active()) input_log_.reset();
  }
}

v1::RoomState Room::save_state() const {
  v1::RoomState s = session_state();
  finish_room_state(s, world_);
  return s;
}

v1::RoomState Room::save_state_deferred(std::unique_ptr<sim::World>& world) const {
  world = std::make_unique<sim::World>(world_);
  return session_state();
}

v1::RoomState Room::session_state() const {
  v1::RoomState s;
  s.set_version(kRoomStateVersion);
  s.set_room(config_.room_name.empty() ? scenario_.name : config_.room_name);
  s.set_tick_rate_hz(config_.tick_rate_hz);
  s.set_tick(world_.tick());
  s.set_next_player_id(next_player_id_);
  for (const auto& p : players_) {
    v1::SavedPlayer* o = s.add_players();
    o->set_player_id(p->player_id);
    o->set_entity_id(p->entity.value);
    o->set_display_name(p->name);
    o->set_resume_token_hash(p->token_hash);
    o->set_bot(p->bot);
    o->set_best_ticks(p->best_ticks);
    o->set_captures(p->captures);
    o->set_last_received(p->last_received);
    o->set_last_applied(p->last_applied);
    o->set_applied_tick(p->applied_tick);
    o->set_input_slips(p->input_slips);
    // A connected player's window starts at the save: the restart is its disconnect.
    o->set_disconnected_tick(p->conn == 0 ? p->disconnected_tick : world_.tick());
    if (p->bot) {
      o->set_bot_rng_state(p->bot_rng.state);
      o->set_bot_rng_inc(p->bot_rng.inc);
      o->set_bot_turn(p->bot_input.turn);
      o->set_bot_throttle(p->bot_input.throttle);
    }
  }
  s.set_saved_unix_ms(static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count()));
  return s;
}

std::string Room::restore(const v1::RoomState& saved) {
  const std::string room = config_.room_name.empty() ? scenario_.name : config_.room_name;
  if (saved.room() != room) return "room: the file is room '" + saved.room() + "', not '" + room + "'";
  if (saved.tick_rate_hz() != config_.tick_rate_hz)
    return "tick_rate_hz: saved at " + std::to_string(saved.tick_rate_hz()) + ", the server runs " +
           std::to_string(config_.tick_rate_hz) + " (a world keeps the rate it was stepped at)";
  // Everything the World sizes its storage from must be the room's own (checked before the
  // world is built): a saved file can then make the server allocate no more than the fresh
  // room did. Only the groups may differ (live tuning), and not in number.
  const codec::ScenarioCheck same_room = [this](const sim::Scenario& ws) -> std::string {
    const auto same_circles = [](const auto& a, const auto& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](const auto& x, const auto& y) { return x.center == y.center && x.radius == y.radius; });
    };
    const auto same_walls = [](const auto& a, const auto& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](const auto& x, const auto& y) { return x.a == y.a && x.b == y.b; });
    };
    if (ws.groups.size() != scenario_.groups.size() || ws.width != scenario_.width || ws.height != scenario_.height ||
        ws.wrap != scenario_.wrap || ws.max_players != scenario_.max_players ||
        ws.tick_rate_hz != scenario_.tick_rate_hz || ws.max_agents != scenario_.max_agents ||
        ws.grid_cell != scenario_.grid_cell || ws.paths.size() != scenario_.paths.size() ||
        ws.tiles.cols != scenario_.tiles.cols || ws.tiles.rows != scenario_.tiles.rows ||
        !same_circles(ws.obstacles, scenario_.obstacles) || !same_walls(ws.walls, scenario_.walls))
      return "the room's scenario or max_players changed since the save (groups " + std::to_string(ws.groups.size()) +
             " saved, " + std::to_string(scenario_.groups.size()) +
             " now; size, wrap, grid, capacity, max_players, tick rate, obstacles, walls, paths and tiles must "
             "match too)";
    return {};
  };
  codec::DecodedWorld decoded;
  try {
    decoded = codec::decode_world_state(saved.world_state(), same_room);
  } catch (const std::exception& e) {
    // The checks above should leave nothing to throw; if something still does (an allocation),
    // the file is refused like any other bad one rather than ending the process at start-up.
    return std::string("world_state: cannot be restored: ") + e.what();
  }
  if (!decoded.world) return "world_state: " + decoded.error;
  sim::World& w = *decoded.world;
  if (w.tick() != saved.tick())
    return "tick: the file says " + std::to_string(saved.tick()) + ", its world is at " + std::to_string(w.tick());
  if (w.state_hash() != saved.state_hash()) return "state_hash: the restored world differs from the saved one";
  if (saved.next_player_id() == 0) return "next_player_id: missing";
  std::vector<std::unique_ptr<Player>> players;
  std::set<std::uint32_t> ids, entities;
  std::set<std::string> token_hashes;
  for (const v1::SavedPlayer& sp : saved.players()) {
    const std::string who = "players[" + std::to_string(players.size()) + "]";
    if (sp.player_id() == 0 || sp.player_id() >= saved.next_player_id() || !ids.insert(sp.player_id()).second)
      return who + ".player_id: " + std::to_string(sp.player_id()) + " is 0, repeated or not below next_player_id";
    const sim::AgentId entity{sp.entity_id()};
    const std::int32_t idx = w.index_of(entity);
    if (idx < 0 || w.view(idx).kind != sim::AgentKind::kPlayer || !entities.insert(sp.entity_id()).second)
      return who + ".entity_id: " + std::to_string(sp.entity_id()) + " is not a player craft of the saved world";
    // Version 1 files hold the raw token: hashed now, and the next save writes only the hash.
    std::string token_hash = saved.version() == 1 && sp.resume_token().size() == codec::kResumeTokenBytes
                                 ? ops::token_hash(config_.token_key, sp.resume_token())
                                 : sp.resume_token_hash();
    if (saved.version() > 1 && !sp.resume_token().empty())
      return who + ".resume_token: a raw token in a version 2 file";
    if (!sp.bot() && (token_hash.size() != ops::kTokenHashBytes || !token_hashes.insert(token_hash).second))
      return who + ".resume_token_hash: not " + std::to_string(ops::kTokenHashBytes) + " bytes, or repeated";
    if (sp.disconnected_tick() > w.tick()) return who + ".disconnected_tick: after the saved tick";
    auto p = std::make_unique<Player>();
    p->player_id = sp.player_id();
    p->entity = entity;
    p->name = sp.display_name();
    if (!sp.bot()) p->token_hash = std::move(token_hash);
    p->bot = sp.bot();
    p->best_ticks = sp.best_ticks();
    p->captures = sp.captures();
    p->last_received = sp.last_received();
    p->last_applied = sp.last_applied();
    p->applied_tick = sp.applied_tick();
    p->input_slips = sp.input_slips();
    p->disconnected_tick = sp.disconnected_tick();
    if (p->bot) {
      p->bot_rng.state = sp.bot_rng_state();
      p->bot_rng.inc = sp.bot_rng_inc() | 1;  // a PCG32 stream is odd
      p->bot_input = {sp.bot_turn(), sp.bot_throttle()};
    }
    players.push_back(std::move(p));
  }
  // Every check passed: only now does the room change. An input log of the fresh world ends
  // here (a recording holds one continuous run).
  stop_input_log("room restored");
  const sim::TaskRunner runner = world_.task_runner();
  world_ = std::move(w);
  world_.set_task_runner(runner);
  // Players without a connection hold no input (as after leave()): a craft coasts until resumed.
  for (const auto& p : players)
    if (!p->bot) world_set_input(p->entity, sim::PlayerInput{0, 0});
  players_ = std::move(players);
  next_player_id_ = saved.next_player_id();
  // Later Welcomes carry the groups as tuned before the save.
  for (std::size_t g = 0; g < scenario_.groups.size(); ++g) scenario_.groups[g] = world_.scenario().groups[g];
  update_agent_metrics();
  return {};
}

Room::Player* Room::find_by_conn(ConnectionId conn) {
  for (auto& p : players_)
    if (p->conn == conn && conn != 0) return p.get();
  return nullptr;
}

const Room::Player* Room::find_by_conn(ConnectionId conn) const {
  for (const auto& p : players_)
    if (p->conn == conn && conn != 0) return p.get();
  return nullptr;
}

Room::Player* Room::find_by_entity(sim::AgentId id) {
  for (auto& p : players_)
    if (p->entity == id) return p.get();
  return nullptr;
}

sim::AgentId Room::entity_of(ConnectionId conn) const {
  const Player* p = find_by_conn(conn);
  return p ? p->entity : sim::AgentId{};
}

std::uint32_t Room::last_applied_of(ConnectionId conn) const {
  const Player* p = find_by_conn(conn);
  return p ? p->last_applied : 0;
}

std::string Room::new_token(Player& p) {
  // Whoever holds a player's token can take over its craft, so it must not be guessable: every
  // token is 128 fresh bits from the kernel, never an output of a seeded generator (each player
  // sees its own token, and a PCG32 state is recoverable from a few consecutive outputs).
  std::string t(codec::kResumeTokenBytes, '\0');
  if (const int err = ops::fill_os_random(std::as_writable_bytes(std::span<char>(t)))) {
    // Without a safe token no player can join; main() checks the generator at start-up, so this
    // is a generator that broke while running. Stop loudly rather than hand out weak tokens.
    const std::string what = ops::os_random_error(err) + ": cannot make a resume token";
    if (log_) log_->error("fatal", {{"error", what}});
    else std::fprintf(stderr, "flockstep-server: fatal: %s\n", what.c_str());
    std::abort();
  }
  p.token_hash = ops::token_hash(config_.token_key, t);
  return t;
}

void Room::add_bot(std::uint32_t index) {
  const sim::AgentId id = world_add_player();
  if (!id.valid()) return;
  auto p = std::make_unique<Player>();
  p->player_id = next_player_id_++;
  p->entity = id;
  p->name = "bot-" + std::to_string(index + 1);
  p->bot = true;
  p->bot_rng = math::Rng::seeded(scenario_.seed ^ 0xb07b07ULL, index + 1);
  p->bot_input = {p->bot_rng.uniform(-1, 1), p->bot_rng.uniform(0.6, 1.0)};
  players_.push_back(std::move(p));
}

void Room::drive_bot(Player& p) {
  // A wandering pilot: new control state about every 0.5-2 s, mostly full throttle.
  if (p.bot_rng.chance(1.0 / (static_cast<double>(config_.tick_rate_hz) * 1.2))) {
    p.bot_input.turn = p.bot_rng.uniform(-1, 1);
    p.bot_input.throttle = p.bot_rng.uniform(0.6, 1.0);
  }
  world_set_input(p.entity, p.bot_input);
}

void Room::join(ConnectionId conn, const std::shared_ptr<ClientSink>& sink, const codec::JoinRequest& request) {
  codec::WelcomeInfo info;
  info.tick_rate_hz = config_.tick_rate_hz;
  info.snapshot_rate_hz = config_.snapshot_rate_hz;
  info.server_tick = world_.tick();
  info.resume_window_ms = config_.resume_window_ms;
  info.max_input_frames = config_.max_input_frames;
  info.ack_every_snapshots = std::max(1u, config_.ack_every_snapshots);
  info.role = request.role;
  info.room = config_.room_name;

  if (find_by_conn(conn) || spectators_.count(conn)) {
    sink->close(CloseReason::kProtocol, "already joined");
    return;
  }
  if (request.role == codec::Role::kSpectator) {
    Spectator s{next_player_id_++, sink, request.display_name, request.plain_snapshots};
    info.player_id = s.player_id;
    spectators_.emplace(conn, std::move(s));
    streams_.add(conn, request.delivered_baselines);
    update_client_metrics();
  } else {
    Player* p = nullptr;
    std::string token;  // the token this Welcome hands out
    if (!request.resume_token.empty()) {
      const std::string hash = ops::token_hash(config_.token_key, request.resume_token);
      for (auto& cand : players_)
        if (!cand->bot && ops::same_secret(cand->token_hash, hash)) p = cand.get();
      if (!p || p->conn != 0) {
        sink->close(CloseReason::kBadResume, p ? "resume token in use" : "resume token unknown or expired");
        return;
      }
      // Take the craft back: same entity, inputs continue from where the server is. The token
      // is rotated: the one just used (which may have been seen on its way) is dead from now.
      token = new_token(*p);
      p->conn = conn;
      p->sink = sink;
      p->pending.clear();
      p->name = request.display_name;
    } else {
      const auto humans_and_bots = players_.size();
      if (humans_and_bots >= config_.max_players) {
        sink->close(CloseReason::kRoomFull, "no player slot left; join as spectator or retry later");
        return;
      }
      const sim::AgentId id = world_add_player();
      if (!id.valid()) {
        sink->close(CloseReason::kRoomFull, "world has no room for another craft");
        return;
      }
      auto np = std::make_unique<Player>();
      np->player_id = next_player_id_++;
      np->conn = conn;
      np->sink = sink;
      np->entity = id;
      np->name = request.display_name;
      token = new_token(*np);
      p = np.get();
      players_.push_back(std::move(np));
    }
    streams_.add(conn, request.delivered_baselines);  // join or resume: a new connection starts with a full snapshot
    p->plain = request.plain_snapshots;
    info.player_id = p->player_id;
    info.entity = p->entity;
    info.resume_token = std::move(token);
    update_client_metrics();
  }
  std::string bytes;
  codec::encode_welcome(info, scenario_, bytes);
  sink->send_message(std::make_shared<const std::string>(std::move(bytes)));
  if (log_)
    log_->info("join", {{"conn", conn},
                        {"player", info.player_id},
                        {"role", request.role == codec::Role::kPlayer ? "player" : "spectator"},
                        {"name", request.display_name},
                        {"resumed", !request.resume_token.empty()}});
  if (request.role == codec::Role::kPlayer)
    if (const Player* p = find_by_conn(conn)) send_presence(*p, true);
}

void Room::inputs(ConnectionId conn, std::span<const codec::InputFrame> frames) {
  Player* p = find_by_conn(conn);
  if (!p) return;
  for (const codec::InputFrame& f : frames) {
    if (f.sequence <= p->last_received) continue;  // resent window: already have it
    p->last_received = f.sequence;
    p->pending.push_back(f);
  }
  // Bounded backlog: a client that sends faster than the tick rate loses its oldest frames
  // (they would only add latency) instead of growing the queue.
  while (p->pending.size() > config_.input_buffer_ticks) {
    p->pending.pop_front();
    ++p->input_slips;
    if (metrics_) metrics_->inputs_late.inc();
  }
}

void Room::ack(ConnectionId conn, const codec::AckRequest& ack) {
  streams_.ack(conn, ack.snapshot_tick, ack.has_view ? &ack.view : nullptr);
}

void Room::leave(ConnectionId conn, bool ended) {
  streams_.remove(conn);
  if (inspecting_.erase(conn) > 0) inspect_dirty_ = true;
  if (auto it = spectators_.find(conn); it != spectators_.end()) {
    spectators_.erase(it);
    update_client_metrics();
    return;
  }
  Player* p = find_by_conn(conn);
  if (!p) return;
  if (ended) {
    // A deliberate leave: nobody may come back with the token, so the session ends now.
    if (log_) log_->info("leave", {{"conn", conn}, {"player", p->player_id}, {"ended", true}});
    for (auto it = players_.begin(); it != players_.end(); ++it)
      if (it->get() == p) {
        drop_player(it);
        break;
      }
    update_client_metrics();
    return;
  }
  p->conn = 0;
  p->sink.reset();
  p->pending.clear();
  p->disconnected_tick = world_.tick();
  // The craft coasts with no control while it waits for a resume.
  world_set_input(p->entity, sim::PlayerInput{0, 0});
  update_client_metrics();
  if (log_)
    log_->info("leave", {{"conn", conn}, {"player", p->player_id}, {"resume_window_ms", config_.resume_window_ms}});
}

std::vector<std::unique_ptr<Room::Player>>::iterator Room::drop_player(
    std::vector<std::unique_ptr<Player>>::iterator it) {
  world_remove((*it)->entity);
  send_presence(**it, false);
  return players_.erase(it);
}

void Room::inspect(ConnectionId conn, std::uint32_t agent) {
  if (!find_by_conn(conn) && !spectators_.contains(conn)) return;  // not joined (or gone)
  if (agent == 0) {
    if (inspecting_.erase(conn) > 0) inspect_dirty_ = true;
    return;
  }
  Inspecting& in = inspecting_[conn];
  if (in.agent.value == agent) return;
  in = Inspecting{};
  in.agent = sim::AgentId{agent};
  inspect_dirty_ = true;
}

void Room::apply_inspect_requests() {
  inspect_dirty_ = false;
  // Agents already traced keep their place; waiting requests fill the free places in connection
  // order (deterministic for tests; tracing never changes the simulation, so the order only
  // decides who waits when more than kMaxTraced agents are asked for).
  std::vector<std::pair<ConnectionId, Inspecting*>> order;
  order.reserve(inspecting_.size());
  for (auto& [conn, in] : inspecting_) order.emplace_back(conn, &in);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->traced != b.second->traced ? a.second->traced : a.first < b.first;
  });
  std::vector<sim::AgentId> agents;
  for (auto& [conn, in] : order) {
    const bool known = std::find(agents.begin(), agents.end(), in->agent) != agents.end();
    if (!known && agents.size() < static_cast<std::size_t>(sim::kMaxTraced)) agents.push_back(in->agent);
    in->traced = known || agents.back() == in->agent;
  }
  world_.set_traced(agents);
}

void Room::close_clients(CloseReason reason, const std::string& detail) {
  for (const auto& p : players_)
    if (p->conn != 0)
      if (auto sink = p->sink.lock()) sink->close(reason, detail);
  for (const auto& [conn, s] : spectators_)
    if (auto sink = s.sink.lock()) sink->close(reason, detail);
}

std::shared_ptr<ClientSink> Room::sink_of(ConnectionId conn) const {
  if (const Player* p = find_by_conn(conn)) return p->sink.lock();
  if (auto it = spectators_.find(conn); it != spectators_.end()) return it->second.sink.lock();
  return nullptr;
}

void Room::send_traces() {
  const std::span<const sim::SteeringTrace> traces = world_.traces();
  for (auto& [conn, in] : inspecting_) {
    if (!in.traced) {
      if (in.told_unavailable) continue;
      if (auto sink = sink_of(conn)) {
        codec::encode_trace_unavailable(in.agent.value, world_.tick(), scratch_);
        sink->send_message(std::make_shared<const std::string>(scratch_));
      }
      in.told_unavailable = true;
      continue;
    }
    for (const sim::SteeringTrace& tr : traces) {
      if (tr.agent != in.agent) continue;
      // Only news: a trace is sent once (agents steered every n-th tick keep their last one).
      if (tr.tick == 0 || tr.tick <= in.sent_tick) break;
      if (auto sink = sink_of(conn)) {
        codec::encode_steering_trace(tr, scratch_);
        sink->send_message(std::make_shared<const std::string>(scratch_));
      }
      in.sent_tick = tr.tick;
      break;
    }
  }
}

void Room::broadcast(const std::shared_ptr<const std::string>& message) {
  if (recorder_) recorder_->message(*message);
  for (auto& p : players_)
    if (auto s = p->sink.lock()) s->send_message(message);
  for (auto& [conn, s] : spectators_)
    if (auto sink = s.sink.lock()) sink->send_message(message);
}

void Room::send_presence(const Player& p, bool joined) {
  v1::Events ev;
  ev.set_server_tick(world_.tick());
  v1::PlayerPresence* pr = ev.add_presence();
  pr->set_player_id(p.player_id);
  pr->set_entity_id(p.entity.value);
  pr->set_display_name(p.name);
  pr->set_joined(joined);
  pr->set_bot(p.bot);
  codec::encode_events(ev, scratch_);
  broadcast(std::make_shared<const std::string>(scratch_));
}

void Room::send_scores() {
  v1::Events ev;
  ev.set_server_tick(world_.tick());
  for (const auto& p : players_) {
    const std::int32_t idx = world_.index_of(p->entity);
    const std::uint64_t alive = idx >= 0 ? world_.tick() - world_.view(idx).spawn_tick : 0;
    v1::Score* s = ev.add_scores();
    s->set_player_id(p->player_id);
    s->set_display_name(p->name);
    s->set_alive_ticks(alive);
    s->set_best_ticks(std::max(p->best_ticks, alive));
    s->set_captures(p->captures);
    s->set_bot(p->bot);
  }
  codec::encode_events(ev, scratch_);
  broadcast(std::make_shared<const std::string>(scratch_));
}

void Room::send_snapshot() {
  // Nobody to send to and nothing recording: skip the sampling (a 100,000-agent world costs
  // milliseconds to quantise).
  bool anyone = recorder_ != nullptr || !spectators_.empty();
  for (const auto& p : players_) anyone = anyone || !p->sink.expired();
  if (!anyone) return;
  // The state hash walks every agent's full state (~15 ms for 100,000 agents), and nothing but a
  // desync check reads it, so it travels once per second; other snapshots carry 0 (absent).
  const std::uint64_t hash = world_.tick() % config_.tick_rate_hz == 0 ? world_.state_hash() : 0;
  // The world is quantised once; each client gets the agents of its area delta-coded against the
  // snapshot it acknowledged. Clients needing the same bytes share one body (SnapshotStreams).
  streams_.begin(world_, hash);
  if (recorder_) recorder_->snapshot(world_.tick(), streams_.sample().agents, hash);
  ++snapshots_encoded_;
  const std::uint64_t encodes_before = streams_.stats().encodes;
  const std::uint64_t paced_before = streams_.stats().paced;
  // Clients that asked for plain snapshots (Join.plain_snapshots) share one body of the whole
  // world, encoded only when one of them is present.
  std::shared_ptr<const std::string> plain;
  auto plain_body = [&] {
    if (!plain) plain = std::make_shared<const std::string>(plain_encoder_.encode_body(world_));
    return plain;
  };
  // Every client's body is queued first, then the distinct ones are encoded at once on the
  // world's task runner (both cores), then sent.
  struct Out {
    std::shared_ptr<ClientSink> sink;
    std::int32_t ticket;
    std::string suffix;
  };
  std::vector<Out> outs;
  outs.reserve(players_.size() + spectators_.size());
  for (auto& p : players_) {
    auto s = p->sink.lock();
    if (!s) continue;
    if (p->plain) {
      std::string suffix;
      codec::encode_snapshot_suffix(input_progress(*p), suffix);
      s->send_snapshot(world_.tick(), plain_body(), std::move(suffix));
      continue;
    }
    const std::int32_t idx = world_.index_of(p->entity);
    Area area;
    sim::AgentView own;
    if (idx >= 0) {
      own = world_.view(idx);
      area.always_id = p->entity.value;
      if (config_.aoi_radius_m > 0) {
        area.kind = Area::Kind::kCircle;
        area.cx = own.position.x;
        area.cy = own.position.y;
        area.radius = config_.aoi_radius_m;
      }
    }
    const std::int32_t ticket = streams_.queue(p->conn, &area, s->delivered_snapshot());
    if (ticket < 0) continue;
    std::string suffix;
    codec::encode_delta_suffix(input_progress(*p), idx >= 0 ? &own : nullptr, suffix);
    outs.push_back({std::move(s), ticket, std::move(suffix)});
  }
  for (auto& [conn, sp] : spectators_) {
    auto s = sp.sink.lock();
    if (!s) continue;
    if (sp.plain) {
      s->send_snapshot(world_.tick(), plain_body(), {});
      continue;
    }
    const std::int32_t ticket = streams_.queue(conn, nullptr, s->delivered_snapshot());
    if (ticket >= 0) outs.push_back({std::move(s), ticket, {}});
  }
  streams_.encode_queued(world_.task_runner());
  for (Out& o : outs) {
    auto body = streams_.body(o.ticket);
    if (!body) continue;
    if (metrics_ && streams_.fresh(o.ticket)) metrics_->snapshot_bytes.observe(static_cast<double>(body->size()));
    // A spectator's body is shared: its WebSocket frame too (built once, written as is).
    if (auto wire = o.suffix.empty() ? streams_.wire(o.ticket) : nullptr)
      o.sink->send_frame(world_.tick(), std::move(body), std::move(wire));
    else o.sink->send_snapshot(world_.tick(), std::move(body), std::move(o.suffix));
  }
  streams_.end();
  if (metrics_) metrics_->snapshots_encoded.inc(streams_.stats().encodes - encodes_before);
  if (metrics_) metrics_->snapshots_paced.inc(streams_.stats().paced - paced_before);
}

void Room::update_agent_metrics() {
  if (!metrics_) return;
  auto report = [this](int slot, ops::Gauge& g, std::int64_t now) {
    g.add(now - reported_[slot]);
    reported_[slot] = now;
  };
  report(3, metrics_->agents_player, world_.count_kind(sim::AgentKind::kPlayer));
  report(4, metrics_->agents_flock, world_.count_kind(sim::AgentKind::kFlock));
  report(5, metrics_->agents_pursuer, world_.count_kind(sim::AgentKind::kPursuer));
  report(6, metrics_->agents_patrol, world_.count_kind(sim::AgentKind::kPatrol));
  report(7, metrics_->agents_wanderer, world_.count_kind(sim::AgentKind::kWanderer));
  update_client_metrics();
}

codec::InputProgress Room::input_progress(const Player& p) const {
  codec::InputProgress in;
  in.last_sequence = p.last_applied;
  in.slips = p.input_slips;
  // Ticks after the one that applied the input, in which the world held it (the queue was dry).
  if (p.last_applied > 0 && world_.tick() > p.applied_tick)
    in.held_ticks = static_cast<std::uint32_t>(std::min<std::uint64_t>(world_.tick() - p.applied_tick, UINT32_MAX));
  return in;
}

void Room::tick() {
  // 1. Inputs: one frame per player per tick, in sequence order; none queued = hold the last.
  for (auto& p : players_) {
    if (p->bot) {
      drive_bot(*p);
      continue;
    }
    if (p->pending.empty()) {
      if (p->last_applied > 0) ++p->input_slips;  // the world holds the last input this tick
      continue;
    }
    const codec::InputFrame f = p->pending.front();
    p->pending.pop_front();
    world_set_input(p->entity, sim::PlayerInput{f.turn, f.throttle});
    p->last_applied = f.sequence;
    p->applied_tick = world_.tick() + 1;  // the step below applies it
    if (metrics_) metrics_->inputs_applied.inc();
  }

  // 2. The simulation (group updates queued by tune() apply at its start).
  if (inspect_dirty_) apply_inspect_requests();
  applied_tunes_.clear();
  world_step();
  if (!pending_tunes_.empty()) {
    for (const std::int32_t g : pending_tunes_) {
      const sim::GroupSpec& now = world_.scenario().groups[static_cast<std::size_t>(g)];
      scenario_.groups[static_cast<std::size_t>(g)] = now;  // later Welcomes carry the tuned group
      TuneResult r;
      r.tick = world_.tick();
      r.spec = now;
      codec::encode_group_update(world_.tick(), g, now, scratch_);
      broadcast(std::make_shared<const std::string>(scratch_));
      if (log_) log_->info("group_tuned", {{"group", g}, {"tick", world_.tick()}, {"count", now.count}});
      applied_tunes_.emplace_back(g, std::move(r));
    }
    pending_tunes_.clear();
  }

  // 3. Events of this tick, batched into one message.
  v1::Events ev;
  for (const sim::Event& e : world_.events()) {
    if (e.type != sim::Event::Type::kCapture && e.type != sim::Event::Type::kRespawn) continue;
    Player* p = find_by_entity(e.subject);
    if (!p) continue;
    if (e.type == sim::Event::Type::kCapture) {
      codec::add_capture(ev, p->player_id, e);
      p->best_ticks = std::max(p->best_ticks, e.survived_ticks);
      ++p->captures;
      if (metrics_) metrics_->captures.inc();
      if (log_)
        log_->info("capture",
                   {{"player", p->player_id}, {"pursuer", e.other.value}, {"survived_ticks", e.survived_ticks}});
    } else {
      codec::add_respawn(ev, p->player_id, e);
    }
  }
  if (ev.captures_size() + ev.respawns_size() > 0) {
    ev.set_server_tick(world_.tick());
    codec::encode_events(ev, scratch_);
    broadcast(std::make_shared<const std::string>(scratch_));
  }

  // 4. Resume windows that ran out: the craft leaves the world.
  for (auto it = players_.begin(); it != players_.end();) {
    Player& p = **it;
    if (!p.bot && p.conn == 0 && world_.tick() - p.disconnected_tick >= resume_window_ticks_) {
      it = drop_player(it);
    } else {
      ++it;
    }
  }

  // 5. Snapshot when due: floor(t * s / r) advanced (exact for any pair of rates).
  const std::uint64_t t = world_.tick();
  const std::uint64_t r = config_.tick_rate_hz, s = config_.snapshot_rate_hz;
  if (t * s / r != (t - 1) * s / r) {
    send_snapshot();
    if (!inspecting_.empty()) send_traces();
    update_agent_metrics();
  }
  if (t % r == 0) send_scores();
}

}  // namespace flockstep::server::game
