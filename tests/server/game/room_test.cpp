// The room without sockets: joins, welcome, snapshot cadence and sharing, input ordering,
// movement, capture -> respawn, obstacles, resume, limits. Driven tick by tick (no clock).
// Snapshots are quantised deltas: FakeSink decodes them like a client and presents
// each as a plain v1::Snapshot (dequantised agents, the own craft exact) for the assertions.
#include "room_test_util.hpp"

namespace flockstep::server::game {
namespace {

using namespace room_test;

TEST(Room, PlayerGetsWelcomeWithCraftTokenAndWorld) {
  Room room(config(), calm_world(), nullptr, nullptr);
  auto sink = std::make_shared<FakeSink>();
  room.join(1, sink, player("ada"));
  const v1::Welcome* w = sink->welcome();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->role(), v1::ROLE_PLAYER);
  EXPECT_NE(w->entity_id(), 0u);
  EXPECT_EQ(w->resume_token().size(), codec::kResumeTokenBytes);
  EXPECT_EQ(w->tick_rate_hz(), 60u);
  EXPECT_EQ(w->snapshot_rate_hz(), 20u);
  EXPECT_EQ(w->world().width(), 100);
  EXPECT_EQ(w->world().groups_size(), 1);
  EXPECT_GT(w->world().groups(0).params_size(), 30);  // the behaviour table travels with it
  EXPECT_EQ(room.entity_of(1).value, w->entity_id());
  room.tick();
  EXPECT_EQ(room.world().count_kind(sim::AgentKind::kPlayer), 1);
}

TEST(Room, SpectatorHasNoBody) {
  Room room(config(), calm_world(), nullptr, nullptr);
  auto sink = std::make_shared<FakeSink>();
  const std::int32_t before = room.world().size();
  room.join(1, sink, spectator());
  room.tick();
  ASSERT_NE(sink->welcome(), nullptr);
  EXPECT_EQ(sink->welcome()->entity_id(), 0u);
  EXPECT_TRUE(sink->welcome()->resume_token().empty());
  EXPECT_EQ(room.world().size(), before);
  EXPECT_EQ(room.world().count_kind(sim::AgentKind::kPlayer), 0);
}

TEST(Room, SnapshotsFollowTheConfiguredRateAndIdenticalSpectatorsShareOneBuffer) {
  RoomConfig c = config();
  c.tick_rate_hz = 60;
  c.snapshot_rate_hz = 20;
  ops::Registry reg;
  ops::ServerMetrics metrics(reg);
  Room room(c, calm_world(), &metrics, nullptr);
  auto a = std::make_shared<FakeSink>(), s1 = std::make_shared<FakeSink>(), s2 = std::make_shared<FakeSink>();
  room.join(1, a, player("a"));
  room.join(2, s1, spectator());
  room.join(3, s2, spectator());
  for (int i = 0; i < 60; ++i) {
    room.tick();
    a->ack(room, 1);
    s1->ack(room, 2);
    s2->ack(room, 3);
  }
  ASSERT_EQ(a->snapshots.size(), 20u);
  EXPECT_EQ(s1->snapshots.size(), 20u);
  EXPECT_EQ(s2->snapshots.size(), 20u);
  EXPECT_EQ(room.snapshots_encoded(), 20u);  // snapshot ticks
  // One body per tick for both spectators (same view, same baseline) and one for the player.
  EXPECT_EQ(metrics.snapshots_encoded.value(), 40u);
  EXPECT_EQ(room.streams().stats().shared, 20u);
  for (std::size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(s1->bodies[i].get(), s2->bodies[i].get());    // the very same buffer
    EXPECT_EQ(a->snapshots[i].server_tick(), 3 * (i + 1));  // every 60/20 = 3 ticks
  }
  // Full on join, then deltas against the acknowledged previous snapshot.
  EXPECT_EQ(s1->baselines[0], 0u);
  EXPECT_EQ(s1->baselines[1], 3u);
  EXPECT_EQ(a->baselines.back(), a->snapshots[18].server_tick());
  EXPECT_EQ(a->snapshots.back().agents_size(), room.world().size());
  // Other rates, including ones that do not divide the tick rate: exactly floor(t*s/r) snapshots.
  for (std::uint32_t rate : {1u, 7u, 30u, 60u}) {
    RoomConfig c2 = config();
    c2.snapshot_rate_hz = rate;
    Room r2(c2, calm_world(), nullptr, nullptr);
    auto sk = std::make_shared<FakeSink>();
    r2.join(1, sk, spectator());
    for (int i = 0; i < 120; ++i) r2.tick();
    EXPECT_EQ(sk->snapshots.size(), 2u * rate) << rate;
  }
}

TEST(Room, DecodedSnapshotsMatchTheWorldAndTheOwnCraftIsExact) {
  Room room(config(), calm_world(), nullptr, nullptr);
  auto p = std::make_shared<FakeSink>();
  room.join(1, p, player("exact"));
  const std::uint32_t id = p->welcome()->entity_id();
  std::uint32_t seq = 0;
  for (int t = 0; t < 90; ++t) {
    const codec::InputFrame f{++seq, t < 40 ? 0.5 : -0.3, 1.0};
    room.inputs(1, std::span<const codec::InputFrame>(&f, 1));
    room.tick();
    p->ack(room, 1);
    if (room.current_tick() % 3 != 0) continue;
    const v1::Snapshot& s = p->snapshots.back();
    ASSERT_EQ(s.agents_size(), room.world().size());
    for (std::int32_t i = 0; i < room.world().size(); ++i) {
      const sim::AgentView w = room.world().view(i);
      const v1::Agent* a = find_agent(s, w.id.value);
      ASSERT_NE(a, nullptr);
      if (w.id.value == id) {  // bit-exact: the client predicts it
        EXPECT_EQ(a->position().x(), w.position.x);
        EXPECT_EQ(a->position().y(), w.position.y);
        EXPECT_EQ(a->velocity().x(), w.velocity.x);
        EXPECT_EQ(a->heading(), w.orientation);
        EXPECT_EQ(a->angular_velocity(), w.angular_velocity);
      } else {  // quantised: within half a position unit (wrap-aware)
        double dx = std::fabs(a->position().x() - w.position.x), dy = std::fabs(a->position().y() - w.position.y);
        dx = std::min(dx, 100 - dx);
        dy = std::min(dy, 100 - dy);
        EXPECT_LE(std::max(dx, dy), 0.5 / codec::kPositionUnitsPerM + 1e-9);
      }
    }
  }
  EXPECT_GT(p->baselines.back(), 0u);  // it was a delta
}

/// A client that knows only the .proto files: it asked for plain snapshots and parses them with
/// the generated classes alone (no codec, no acks).
class PlainSink : public ClientSink {
 public:
  void send_snapshot(std::uint64_t, std::shared_ptr<const std::string> body, std::string suffix) override {
    bodies.push_back(body);
    v1::ServerMessage m;
    ASSERT_TRUE(m.ParseFromString(*body + suffix));
    ASSERT_TRUE(m.has_snapshot());
    // Protocol 2: a player's own part is ServerMessage.player, beside the shared body.
    EXPECT_EQ(m.has_player(), !suffix.empty());
    snapshots.push_back(m.snapshot());
    players.push_back(m.player());
  }
  void send_message(std::shared_ptr<const std::string> message) override {
    v1::ServerMessage m;
    ASSERT_TRUE(m.ParseFromString(*message));
    if (m.has_welcome()) entity = m.welcome().entity_id();
  }
  void close(CloseReason, std::string) override { closed = true; }
  std::vector<std::shared_ptr<const std::string>> bodies;
  std::vector<v1::Snapshot> snapshots;
  std::vector<v1::PlayerSnapshot> players;  // ServerMessage.player of each (empty for spectators)
  std::uint32_t entity = 0;
  bool closed = false;
};

TEST(Room, PlainSnapshotClientsGetEveryAgentExactlyWithoutAcksAndShareOneBody) {
  Room room(config(), calm_world(), nullptr, nullptr);
  auto p = std::make_shared<PlainSink>();
  auto s = std::make_shared<PlainSink>();
  auto d = std::make_shared<FakeSink>();  // a delta client alongside is unaffected
  codec::JoinRequest pj = player("plain");
  pj.plain_snapshots = true;
  codec::JoinRequest sj = spectator();
  sj.plain_snapshots = true;
  room.join(1, p, pj);
  room.join(2, s, sj);
  room.join(3, d, player("delta"));
  ASSERT_NE(p->entity, 0u);
  std::uint32_t seq = 0;
  for (int t = 0; t < 60; ++t) {
    const codec::InputFrame f{++seq, 0.4, 1.0};
    room.inputs(1, std::span<const codec::InputFrame>(&f, 1));
    room.tick();
    d->ack(room, 3);  // the plain clients never ack
  }
  ASSERT_EQ(p->snapshots.size(), 20u);
  ASSERT_EQ(s->snapshots.size(), 20u);
  EXPECT_EQ(d->snapshots.size(), 20u);
  EXPECT_GT(d->baselines.back(), 0u);
  // The same body object for both plain clients; only the player's suffix differs.
  EXPECT_EQ(p->bodies.back().get(), s->bodies.back().get());
  const v1::Snapshot& last = p->snapshots.back();
  EXPECT_EQ(last.server_tick(), room.current_tick());
  EXPECT_EQ(p->players.back().last_input_sequence(), seq);
  ASSERT_EQ(last.agents_size(), room.world().size());
  for (std::int32_t i = 0; i < room.world().size(); ++i) {
    const sim::AgentView w = room.world().view(i);
    const v1::Agent* a = find_agent(last, w.id.value);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->position().x(), w.position.x);  // doubles: exact
    EXPECT_EQ(a->position().y(), w.position.y);
    EXPECT_EQ(a->heading(), w.orientation);
  }
  EXPECT_FALSE(p->closed || s->closed);
}

TEST(Room, InputsApplyOncePerTickInSequenceOrderAndResendsAreIgnored) {
  Room room(config(), calm_world(), nullptr, nullptr);
  auto sink = std::make_shared<FakeSink>();
  room.join(1, sink, player());
  const std::vector<codec::InputFrame> window{{1, 0.1, 1}, {2, 0.2, 1}, {3, 0.3, 1}};
  room.inputs(1, window);
  room.inputs(1, window);  // the same window resent: nothing new
  const std::vector<codec::InputFrame> more{{2, 0.2, 1}, {3, 0.3, 1}, {4, 0.4, 1}};
  room.inputs(1, more);
  std::vector<std::uint32_t> applied;
  for (int i = 0; i < 6; ++i) {
    room.tick();
    applied.push_back(room.last_applied_of(1));
  }
  EXPECT_EQ(applied, (std::vector<std::uint32_t>{1, 2, 3, 4, 4, 4}));
  // The acknowledged sequence travels in the player's snapshot suffix; spectators get none.
  for (int i = 0; i < 3; ++i) room.tick();
  ASSERT_FALSE(sink->snapshots.empty());
  EXPECT_EQ(sink->players.back().last_input_sequence(), 4u);
}

TEST(Room, SnapshotsReportTicksThatHeldALateInputAndEverySlip) {
  // The client predicts one tick per input; when its queue at the server runs dry the world
  // holds the last input. The player's suffix says so (input_held_ticks after the newest
  // applied input, input_slips in all), so the client compares exactly instead of guessing.
  RoomConfig c = config();
  c.input_buffer_ticks = 4;
  Room room(c, calm_world(), nullptr, nullptr);
  auto sink = std::make_shared<FakeSink>();
  room.join(1, sink, player());
  const std::vector<codec::InputFrame> two{{1, 0.5, 1}, {2, 0.5, 1}};
  room.inputs(1, two);
  while (room.current_tick() % 3 != 2) room.tick();  // the next tick sends a snapshot
  const std::uint64_t t0 = room.current_tick();
  room.tick();
  ASSERT_FALSE(sink->snapshots.empty());
  ASSERT_EQ(sink->snapshots.back().server_tick(), t0 + 1);
  const v1::PlayerSnapshot s0 = sink->players.back();
  EXPECT_EQ(s0.last_input_sequence(), 2u);
  // Inputs 1 and 2 were applied in the first two ticks; every tick since held input 2.
  EXPECT_EQ(s0.input_held_ticks(), sink->snapshots.back().server_tick() - 2);
  EXPECT_EQ(s0.input_slips(), s0.input_held_ticks());

  // A fresh input resets the held count; the slips so far stay counted.
  const std::uint32_t slips_before = s0.input_slips();
  const codec::InputFrame third{3, 0, 1};
  room.inputs(1, std::span<const codec::InputFrame>(&third, 1));
  room.tick();
  room.tick();
  room.tick();  // applied in the first of these, held in the next two; a snapshot is due
  const v1::PlayerSnapshot s1 = sink->players.back();
  EXPECT_EQ(s1.last_input_sequence(), 3u);
  EXPECT_EQ(s1.input_held_ticks(), 2u);
  EXPECT_EQ(s1.input_slips(), slips_before + 2);

  // A burst over the backlog drops frames: each is a slip too.
  std::vector<codec::InputFrame> burst;
  for (std::uint32_t q = 4; q <= 10; ++q) burst.push_back({q, 0, 1});
  room.inputs(1, burst);  // 7 frames into a backlog of 4: 3 dropped
  room.tick();
  room.tick();
  room.tick();
  const v1::PlayerSnapshot s2 = sink->players.back();
  EXPECT_EQ(s2.last_input_sequence(), 9u);  // 4..6 dropped, 7, 8, 9 applied
  EXPECT_EQ(s2.input_held_ticks(), 0u);
  EXPECT_EQ(s2.input_slips(), slips_before + 2 + 3);
}

TEST(Room, InputBacklogIsBoundedOldestDropped) {
  RoomConfig c = config();
  c.input_buffer_ticks = 4;
  ops::Registry reg;
  ops::ServerMetrics metrics(reg);
  Room room(c, calm_world(), &metrics, nullptr);
  room.join(1, std::make_shared<FakeSink>(), player());
  std::vector<codec::InputFrame> burst;
  for (std::uint32_t s = 1; s <= 10; ++s) burst.push_back({s, 0, 1});
  room.inputs(1, burst);
  EXPECT_EQ(metrics.inputs_late.value(), 6u);
  room.tick();
  EXPECT_EQ(room.last_applied_of(1), 7u);  // frames 1..6 were dropped, 7 is next
}

TEST(Room, PlayerInputsMoveItsCraft) {
  Room room(config(), calm_world(), nullptr, nullptr);
  auto mover = std::make_shared<FakeSink>(), idle = std::make_shared<FakeSink>();
  room.join(1, mover, player("mover"));
  room.join(2, idle, player("idle"));
  const std::uint32_t mover_id = mover->welcome()->entity_id();
  const std::uint32_t idle_id = idle->welcome()->entity_id();
  room.tick();
  const v1::Snapshot first = [&] {
    for (int i = 0; i < 3; ++i) room.tick();
    return mover->snapshots.back();
  }();
  std::uint32_t seq = 0;
  for (int t = 0; t < 120; ++t) {
    const codec::InputFrame f{++seq, 0.0, 1.0};
    room.inputs(1, std::span<const codec::InputFrame>(&f, 1));
    room.tick();
  }
  const v1::Snapshot& last = mover->snapshots.back();
  const v1::Agent* m0 = find_agent(first, mover_id);
  const v1::Agent* m1 = find_agent(last, mover_id);
  const v1::Agent* i0 = find_agent(first, idle_id);
  const v1::Agent* i1 = find_agent(last, idle_id);
  ASSERT_TRUE(m0 && m1 && i0 && i1);
  // 2 s of full throttle: the craft accelerates well away from its start (torus-aware).
  auto dist = [](const v1::Agent& a, const v1::Agent& b) {
    double dx = std::abs(a.position().x() - b.position().x()), dy = std::abs(a.position().y() - b.position().y());
    dx = std::min(dx, 100 - dx);
    dy = std::min(dy, 100 - dy);
    return std::sqrt(dx * dx + dy * dy);
  };
  EXPECT_GT(dist(*m0, *m1), 3.0);
  EXPECT_GT(std::hypot(m1->velocity().x(), m1->velocity().y()), 2.0);
  EXPECT_LT(dist(*i0, *i1), 0.01);  // no input, no thrust
  // Snapshots go out every third tick, so the last one may predate the last input or two.
  EXPECT_GE(mover->players.back().last_input_sequence(), seq - 2);
  EXPECT_LE(mover->players.back().last_input_sequence(), seq);
}

TEST(Room, PursuersCloseInCaptureAndThePlayerRespawns) {
  ops::Registry reg;
  ops::ServerMetrics metrics(reg);
  Room room(config(), hunt_world(), &metrics, nullptr);
  auto sink = std::make_shared<FakeSink>();
  room.join(1, sink, player("prey"));
  const std::uint32_t me = sink->welcome()->entity_id();
  room.tick();
  auto distance = [&] {
    const sim::World& w = room.world();
    math::Vec2 p{}, q{};
    for (std::int32_t i = 0; i < w.size(); ++i) {
      const sim::AgentView v = w.view(i);
      if (v.id.value == me) p = v.position;
      if (v.kind == sim::AgentKind::kPursuer) q = v.position;
    }
    return math::distance(p, q);
  };
  const double start = distance();
  double closest = start;
  int ticks = 0;
  while (sink->count_captures() == 0 && ticks < 60 * 30) {
    room.tick();
    closest = std::min(closest, distance());
    ++ticks;
  }
  ASSERT_EQ(sink->count_captures(), 1) << "no capture in 30 s; start distance " << start;
  EXPECT_LT(closest, 2.5);
  EXPECT_EQ(sink->count_respawns(), 1);
  EXPECT_EQ(metrics.captures.value(), 1u);
  // The capture names the player, its craft, the pursuer, and the life's length as its score.
  for (const auto& m : sink->messages) {
    if (!m.has_events() || m.events().captures_size() == 0) continue;
    const v1::Capture& c = m.events().captures(0);
    EXPECT_EQ(c.entity_id(), me);
    EXPECT_EQ(c.player_id(), sink->welcome()->player_id());
    EXPECT_NE(c.pursuer_id(), 0u);
    EXPECT_GT(c.survived_ticks(), 0u);
  }
  // Same entity after the respawn, far from the pursuer again, and the scoreboard counts it.
  EXPECT_EQ(room.entity_of(1).value, me);
  EXPECT_GT(distance(), 1.0);
  for (int i = 0; i < 60; ++i) room.tick();
  bool scored = false;
  for (const auto& m : sink->messages)
    if (m.has_events())
      for (const auto& s : m.events().scores())
        if (s.player_id() == sink->welcome()->player_id() && s.captures() == 1 && s.best_ticks() > 0) scored = true;
  EXPECT_TRUE(scored);
}

TEST(Room, FlocksNeverEnterObstacles) {
  sim::Scenario s;
  s.name = "rocks";
  s.width = 80;
  s.height = 80;
  s.wrap = true;
  s.seed = 3;
  s.max_agents = 128;
  s.obstacles = {{{20, 20}, 6}, {{60, 30}, 4}, {{40, 60}, 8}, {{15, 65}, 3}};
  sim::GroupSpec g;
  g.name = "boids";
  g.count = 80;
  g.radius = 0.4;
  s.groups = {g};
  Room room(config(), s, nullptr, nullptr);
  const sim::World& w = room.world();
  int checked = 0;
  for (int t = 0; t < 600; ++t) {
    room.tick();
    for (std::int32_t i = 0; i < w.size(); ++i) {
      const sim::AgentView v = w.view(i);
      if (v.kind != sim::AgentKind::kFlock) continue;
      for (const auto& c : s.obstacles) {
        ASSERT_GE(math::distance(v.position, c.center), c.radius + 0.4 - 1e-9)
            << "agent " << v.id.value << " inside obstacle at tick " << w.tick();
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 600 * 80 * 4);
}

TEST(Room, ResumeWithinTheWindowKeepsTheCraftAfterItIsRemoved) {
  RoomConfig c = config();
  c.resume_window_ms = 1000;  // 60 ticks
  Room room(c, calm_world(), nullptr, nullptr);
  auto first = std::make_shared<FakeSink>();
  room.join(1, first, player("r"));
  const std::string token = first->welcome()->resume_token();
  const std::uint32_t entity = first->welcome()->entity_id();
  for (int i = 0; i < 5; ++i) room.tick();
  room.leave(1);
  for (int i = 0; i < 30; ++i) room.tick();
  EXPECT_TRUE(room.world().alive(sim::AgentId{entity}));
  auto second = std::make_shared<FakeSink>();
  room.join(2, second, player("r", token));
  ASSERT_NE(second->welcome(), nullptr);
  EXPECT_EQ(second->welcome()->entity_id(), entity);               // same craft
  EXPECT_EQ(room.world().count_kind(sim::AgentKind::kPlayer), 1);  // never a duplicate
  // A second resume with a token in use, and a forged token, are refused.
  auto third = std::make_shared<FakeSink>();
  room.join(3, third, player("r", token));
  EXPECT_TRUE(third->closed);
  EXPECT_EQ(third->close_reason, CloseReason::kBadResume);
  auto forged = std::make_shared<FakeSink>();
  room.join(4, forged, player("x", std::string(codec::kResumeTokenBytes, 'f')));
  EXPECT_EQ(forged->close_reason, CloseReason::kBadResume);
  // After the window the craft leaves the world and the token is dead.
  room.leave(2);
  for (int i = 0; i < 61; ++i) room.tick();
  EXPECT_FALSE(room.world().alive(sim::AgentId{entity}));
  auto late = std::make_shared<FakeSink>();
  room.join(5, late, player("r", token));
  EXPECT_EQ(late->close_reason, CloseReason::kBadResume);
}

// Resume tokens come from the operating system's generator: two rooms built alike (same
// scenario seed, same configuration), as two servers started alike would be, hand out different
// tokens; and no token is 16 consecutive bytes of a generator seeded from the room's seed (the
// world's stream, the default stream): a token derived from a seeded generator fails both.
TEST(Room, ResumeTokensComeFromTheOperatingSystemNotTheRoomsGenerator) {
  constexpr int kPlayers = 8;
  auto tokens_of = [](Room& room, ConnectionId first) {
    std::vector<std::string> out;
    for (int i = 0; i < kPlayers; ++i) {
      auto sink = std::make_shared<FakeSink>();
      room.join(first + static_cast<ConnectionId>(i), sink, player("t" + std::to_string(i)));
      EXPECT_NE(sink->welcome(), nullptr);
      if (sink->welcome()) out.push_back(sink->welcome()->resume_token());
    }
    return out;
  };
  Room a(config(kPlayers), calm_world(), nullptr, nullptr);
  Room b(config(kPlayers), calm_world(), nullptr, nullptr);
  const auto ta = tokens_of(a, 1), tb = tokens_of(b, 1);
  ASSERT_EQ(ta.size(), static_cast<std::size_t>(kPlayers));
  ASSERT_EQ(tb.size(), static_cast<std::size_t>(kPlayers));
  std::vector<std::string> all = ta;
  all.insert(all.end(), tb.begin(), tb.end());
  for (const auto& t : all) EXPECT_EQ(t.size(), codec::kResumeTokenBytes);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "two tokens are equal";

  // Every 16-byte window (4 consecutive 32-bit outputs, little-endian, at any offset) of the
  // first 4096 outputs of generators seeded from the scenario's seed.
  const std::uint64_t seed = calm_world().seed;
  for (const std::uint64_t stream : {std::uint64_t{0x5851f42d4c957f2dULL}, std::uint64_t{0x9e3779b97f4a7c15ULL}}) {
    math::Rng rng = math::Rng::seeded(seed, stream);
    std::string bytes;
    for (int i = 0; i < 4096; ++i) {
      const std::uint32_t r = rng.next_u32();
      for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<char>((r >> (8 * k)) & 0xFF));
    }
    for (const auto& t : all)
      for (std::size_t at = 0; at + t.size() <= bytes.size(); at += 4)
        ASSERT_NE(bytes.compare(at, t.size(), t), 0) << "token = outputs " << at / 4 << ".. of stream " << stream;
  }
}

TEST(Room, FullRoomRefusesPlayersButNotSpectators) {
  Room room(config(1), calm_world(), nullptr, nullptr);
  auto a = std::make_shared<FakeSink>(), b = std::make_shared<FakeSink>(), s = std::make_shared<FakeSink>();
  room.join(1, a, player());
  room.join(2, b, player());
  room.join(3, s, spectator());
  EXPECT_FALSE(a->closed);
  EXPECT_TRUE(b->closed);
  EXPECT_EQ(b->close_reason, CloseReason::kRoomFull);
  EXPECT_NE(s->welcome(), nullptr);
}

TEST(Room, BotsPlayWithoutConnections) {
  RoomConfig c = config();
  c.bots = 3;
  Room room(c, calm_world(), nullptr, nullptr);
  room.tick();
  ASSERT_EQ(room.world().count_kind(sim::AgentKind::kPlayer), 3);
  std::vector<math::Vec2> start;
  for (std::int32_t i = 0; i < room.world().size(); ++i)
    if (room.world().view(i).kind == sim::AgentKind::kPlayer) start.push_back(room.world().view(i).position);
  for (int t = 0; t < 180; ++t) room.tick();
  std::size_t k = 0, moved = 0;
  for (std::int32_t i = 0; i < room.world().size(); ++i)
    if (room.world().view(i).kind == sim::AgentKind::kPlayer)
      moved += math::distance(room.world().view(i).position, start[k++]) > 1.0;
  EXPECT_EQ(moved, 3u);
}

/// The SteeringTrace messages a sink received, in order.
std::vector<v1::SteeringTrace> traces_of(const FakeSink& sink) {
  std::vector<v1::SteeringTrace> out;
  for (const auto& m : sink.messages)
    if (m.has_steering_trace()) out.push_back(m.steering_trace());
  return out;
}

TEST(Room, InspectorGetsTheWorldsOwnSteeringTraceWithEachSnapshot) {
  Room room(config(), calm_world(), nullptr, nullptr);
  auto sink = std::make_shared<FakeSink>();
  room.join(1, sink, spectator());
  // A twin world of the room's scenario, traced independently: the room must send its numbers.
  sim::World twin(room.scenario());
  const sim::AgentId id = room.world().id_at(3);
  const sim::AgentId ids[] = {id};
  twin.set_traced(ids);
  room.inspect(1, id.value);
  std::vector<sim::SteeringTrace> want;
  for (int t = 0; t < 30; ++t) {
    room.tick();
    twin.step();
    want.push_back(twin.traces()[0]);
  }
  ASSERT_EQ(room.world().state_hash(), twin.state_hash());
  const std::vector<v1::SteeringTrace> got = traces_of(*sink);
  ASSERT_EQ(got.size(), 10u) << "one trace with each of the 10 snapshots of 30 ticks at 60/20 Hz";
  for (const v1::SteeringTrace& g : got) {
    const sim::SteeringTrace& w = want[static_cast<std::size_t>(g.server_tick() - 1)];
    EXPECT_EQ(g.server_tick(), w.tick);
    EXPECT_EQ(g.agent_id(), id.value);
    EXPECT_TRUE(g.available());
    EXPECT_EQ(g.group(), 0);
    ASSERT_EQ(g.behaviours_size(), w.count);
    ASSERT_GT(w.count, 0);
    for (std::int32_t q = 0; q < w.count; ++q) {
      EXPECT_EQ(g.behaviours(q).type(),
                sim::behavior_name(
                    sim::composition_of(room.scenario().groups[0]).behaviors[static_cast<std::size_t>(q)].type));
      EXPECT_EQ(g.behaviours(q).evaluated(), w.behaviors[q].evaluated);
      EXPECT_EQ(g.behaviours(q).linear().x(), w.behaviors[q].raw.linear.x);
      EXPECT_EQ(g.behaviours(q).linear().y(), w.behaviors[q].raw.linear.y);
      EXPECT_EQ(g.behaviours(q).weight(), w.behaviors[q].weight);
    }
    EXPECT_EQ(g.linear().x(), w.result.linear.x);
    EXPECT_EQ(g.linear().y(), w.result.linear.y);
  }
  // A flock member really steers: some output is non-zero (so the equalities above bite).
  bool moving = false;
  for (const v1::SteeringTrace& g : got) moving = moving || g.linear().x() != 0 || g.linear().y() != 0;
  EXPECT_TRUE(moving);

  // Stopping: no more traces; another agent: its traces.
  room.inspect(1, 0);
  for (int t = 0; t < 6; ++t) room.tick();
  EXPECT_EQ(traces_of(*sink).size(), 10u);
  room.inspect(1, room.world().id_at(5).value);
  for (int t = 0; t < 6; ++t) room.tick();
  const std::vector<v1::SteeringTrace> after = traces_of(*sink);
  ASSERT_EQ(after.size(), 12u);
  EXPECT_EQ(after.back().agent_id(), room.world().id_at(5).value);
}

TEST(Room, InspectingMoreAgentsThanTheTraceLimitIsRefusedOnceAndHarmsNobody) {
  sim::Scenario s = calm_world();
  s.groups[0].count = 40;
  Room room(config(), s, nullptr, nullptr);
  std::vector<std::shared_ptr<FakeSink>> sinks;
  const std::int32_t n = sim::kMaxTraced + 2;
  for (std::int32_t c = 0; c < n; ++c) {
    sinks.push_back(std::make_shared<FakeSink>());
    room.join(static_cast<ConnectionId>(c + 1), sinks.back(), spectator());
    room.inspect(static_cast<ConnectionId>(c + 1), room.world().id_at(c).value);
  }
  // Two connections on one agent count once.
  auto twin = std::make_shared<FakeSink>();
  room.join(100, twin, spectator());
  room.inspect(100, room.world().id_at(0).value);
  for (int t = 0; t < 9; ++t) room.tick();
  for (std::int32_t c = 0; c < n; ++c) {
    const std::vector<v1::SteeringTrace> got = traces_of(*sinks[static_cast<std::size_t>(c)]);
    if (c < sim::kMaxTraced) {
      ASSERT_EQ(got.size(), 3u) << "connection " << c;
      EXPECT_TRUE(got[0].available());
      EXPECT_GT(got[0].behaviours_size(), 0);
    } else {
      ASSERT_EQ(got.size(), 1u) << "refused once, not with every snapshot";
      EXPECT_FALSE(got[0].available());
      EXPECT_EQ(got[0].behaviours_size(), 0);
    }
    EXPECT_EQ(sinks[static_cast<std::size_t>(c)]->snapshots.size(), 3u);
  }
  EXPECT_EQ(traces_of(*twin).size(), 3u);
  // A traced connection leaves: the first waiting connection gets its place (the others keep
  // theirs: places are never reshuffled), and the next one still waits.
  room.leave(2);
  for (int t = 0; t < 3; ++t) room.tick();
  EXPECT_TRUE(traces_of(*sinks[static_cast<std::size_t>(sim::kMaxTraced)]).back().available());
  EXPECT_EQ(traces_of(*sinks[static_cast<std::size_t>(sim::kMaxTraced + 1)]).size(), 1u);
  EXPECT_EQ(traces_of(*sinks[2]).size(), 4u);
}

TEST(Room, InspectBeforeJoinOrOfAGoneAgentIsHarmless) {
  Room room(config(), calm_world(), nullptr, nullptr);
  room.inspect(7, room.world().id_at(0).value);  // no such connection: ignored
  auto sink = std::make_shared<FakeSink>();
  room.join(1, sink, spectator());
  room.inspect(1, 0xFFFFFu);  // no such agent: traced as gone
  for (int t = 0; t < 3; ++t) room.tick();
  const std::vector<v1::SteeringTrace> got = traces_of(*sink);
  ASSERT_EQ(got.size(), 0u) << "a gone agent has no steering to report";
}

// ---------------------------------------------------------------------------------------------
// Rooms that survive a restart: save_state / restore

/// The newest Score of `player_id` the sink got, if any.
}  // namespace
}  // namespace flockstep::server::game
