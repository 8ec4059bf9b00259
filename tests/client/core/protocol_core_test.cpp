// The client's protocol core (client/core): a fake server built from the real codec and a local
// sim::World produces the bytes a Flockstep server sends; the core's replies are decoded with
// the server's own client-message decoder. Each test names what would make it fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "codec/snapshot_codec.hpp"
#include "core/protocol_core.hpp"
#include "core/reconnect_policy.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::client {
namespace {

using sim::AgentId;
using sim::Scenario;

std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// Two flocks and a wanderer group in a walled arena (no pursuers: captures only when a test says).
Scenario arena() {
  Scenario s;
  s.name = "core-test";
  s.width = 120;
  s.height = 80;
  s.seed = 11;
  s.max_agents = 128;
  s.max_players = 4;
  s.grid_cell = 8;
  s.tick_rate_hz = 60;
  s.obstacles = {{{30, 30}, 5}};
  for (const char* name : {"red", "blue", "green"}) {
    sim::GroupSpec g;
    g.name = name;
    g.kind = sim::AgentKind::kFlock;
    g.technique = sim::Technique::kFlock;
    g.count = 6;
    s.groups.push_back(g);
  }
  return s;
}

// What a server sends, made with the server-side codec from a local World.
struct FakeServer {
  sim::World world;
  AgentId me;
  codec::WireGeometry geo;
  std::vector<codec::ViewFrame> frames;  // every frame sent (baselines)
  std::string token = std::string(codec::kResumeTokenBytes, '\x5a');

  explicit FakeServer(const Scenario& s) : world(s), geo(codec::WireGeometry::of(s)) { me = world.add_player(); }

  std::string welcome(codec::Role role, std::uint32_t ack_every = 1) {
    codec::WelcomeInfo info;
    info.ack_every_snapshots = ack_every;
    info.role = role;
    info.player_id = 3;
    info.entity = role == codec::Role::kPlayer ? me : AgentId{};
    info.server_tick = world.tick();
    info.resume_token = role == codec::Role::kPlayer ? token : std::string();
    info.resume_window_ms = 10000;
    std::string out;
    codec::encode_welcome(info, world.scenario(), out);
    return out;
  }

  /// A delta snapshot of the world now against the frame of `base_tick` (0 = full). `own`: the
  /// player's exact craft (null: a spectator's frame).
  std::string delta(std::uint64_t base_tick, const sim::AgentView* own = nullptr, codec::InputProgress progress = {}) {
    std::vector<codec::QAgent> q;
    for (std::int32_t i = 0; i < world.size(); ++i) q.push_back(codec::quantize(world.view(i), geo));
    std::sort(q.begin(), q.end(), [](const codec::QAgent& a, const codec::QAgent& b) { return a.id < b.id; });
    const codec::ViewFrame* base = nullptr;
    for (const codec::ViewFrame& f : frames)
      if (f.tick == base_tick) base = &f;
    codec::EncodeInput in;
    in.tick = world.tick();
    in.base = base;
    in.visible = q;
    std::string agents, body;
    codec::ViewFrame frame;
    codec::encode_agents(in, geo, agents, frame);
    frames.push_back(frame);
    codec::encode_delta_body(world.tick(), base_tick, 0, agents, static_cast<std::uint32_t>(q.size()), body);
    if (own) {
      std::string suffix;
      codec::encode_delta_suffix(progress, own, suffix);
      body += suffix;
    }
    return body;
  }

  sim::AgentView own_view() const { return world.view(world.index_of(me)); }
};

codec::ClientCommand decode_reply(const std::string* bytes) {
  codec::ClientCommand c;
  EXPECT_NE(bytes, nullptr);
  if (bytes) {
    EXPECT_TRUE(codec::decode_client_message(bytes_of(*bytes), codec::DecodeLimits{}, c).usable());
  }
  return c;
}

CoreConfig spectator_config() {
  CoreConfig c;
  c.role = codec::Role::kSpectator;
  c.display_name = "watcher";
  return c;
}

CoreConfig player_config() {
  CoreConfig c;
  c.role = codec::Role::kPlayer;
  c.display_name = "pilot";
  return c;
}

TEST(ProtocolCore, WelcomeConfiguresTheReceiverWithTheWorldDecodedOnce) {
  FakeServer server(arena());
  for (int i = 0; i < 5; ++i) server.world.step();
  ProtocolCore core;
  core.start(spectator_config(), 0);
  core.opened(0);
  // Control: before the Welcome a snapshot is not taken (nothing configures the receiver yet).
  EXPECT_EQ(core.receive(server.delta(0), 1).type, Received::kIgnored);
  const ReceiveResult w = core.receive(server.welcome(codec::Role::kSpectator), 2);
  ASSERT_EQ(w.type, Received::kWelcome);
  EXPECT_TRUE(w.world_ok) << w.detail;
  EXPECT_TRUE(core.live());
  EXPECT_EQ(core.scenario().name, "core-test");
  EXPECT_EQ(core.scenario().groups.size(), 3u);
  // The receiver decodes with the world's geometry: every agent comes back where the world has
  // it, within the wire's quantisation (a receiver configured for another world size would not).
  server.world.step();
  const ReceiveResult s = core.receive(server.delta(0), 3);
  ASSERT_EQ(s.type, Received::kSnapshot) << s.detail;
  ASSERT_EQ(static_cast<std::int32_t>(core.agents().size()), server.world.size());
  for (const sim::AgentView& a : core.agents()) {
    const sim::AgentView truth = server.world.view(server.world.index_of(a.id));
    EXPECT_LT(math::length(a.position - truth.position), 0.05) << "agent " << a.id.value;
  }
  EXPECT_EQ(core.receiver().tick(), server.world.tick());
}

TEST(ProtocolCore, DeltaIsAcknowledgedAndAMissingBaselineAsksForAFullOne) {
  FakeServer server(arena());
  ProtocolCore core;
  core.start(spectator_config(), 0);
  core.opened(0);
  core.receive(server.welcome(codec::Role::kSpectator), 0);
  ASSERT_TRUE(core.set_view({10, 10, 50, 40}));
  server.world.step();
  const std::uint64_t t1 = server.world.tick();
  const ReceiveResult full = core.receive(server.delta(0), 1);
  ASSERT_EQ(full.type, Received::kSnapshot);
  const codec::ClientCommand a1 = decode_reply(full.reply);
  EXPECT_EQ(a1.type, codec::ClientCommand::Type::kAck);
  EXPECT_EQ(a1.ack.snapshot_tick, t1);
  EXPECT_TRUE(a1.ack.has_view) << "the view rectangle rides on the first Ack";
  EXPECT_EQ(a1.ack.view, (codec::ViewRect{10, 10, 50, 40}));
  for (int i = 0; i < 3; ++i) server.world.step();
  const ReceiveResult d = core.receive(server.delta(t1), 2);
  ASSERT_EQ(d.type, Received::kSnapshot) << d.detail;
  const codec::ClientCommand a2 = decode_reply(d.reply);
  EXPECT_EQ(a2.ack.snapshot_tick, server.world.tick());
  EXPECT_FALSE(a2.ack.has_view) << "sent once, not with every Ack";
  // A delta against a baseline this client never had: acknowledged 0, counted.
  server.world.step();
  server.frames.push_back({server.world.tick() - 100, {}});  // a baseline the client never saw
  const ReceiveResult miss = core.receive(server.delta(server.world.tick() - 100), 3);
  EXPECT_EQ(miss.type, Received::kSnapshotSkipped);
  EXPECT_TRUE(miss.baseline_missing);
  EXPECT_EQ(decode_reply(miss.reply).ack.snapshot_tick, 0u);
  EXPECT_EQ(core.baseline_misses(), 1u);
}

/// The interval a core takes from a Welcome that says `every`.
std::uint32_t core_ack_every_of(std::uint32_t every) {
  FakeServer server(arena());
  ProtocolCore core;
  core.start(spectator_config(), 0);
  core.opened(0);
  core.receive(server.welcome(codec::Role::kSpectator, every), 0);
  return core.ack_every();
}

/// Which of `n` delta snapshots (each against the previous one) the core acknowledged, after a
/// Welcome with ack_every_snapshots = `every`; `view_at`: set_view before that snapshot (-1 none);
/// `miss_at`: that snapshot names a baseline the client never had (-1 none); after an Ack{0}
/// the next snapshot is a full one, as the server sends.
std::string ack_pattern(std::uint32_t every, int n, int view_at = -1, int miss_at = -1) {
  FakeServer server(arena());
  ProtocolCore core;
  core.start(spectator_config(), 0);
  core.opened(0);
  core.receive(server.welcome(codec::Role::kSpectator, every), 0);
  std::string pattern;
  std::uint64_t base = 0;
  for (int i = 0; i < n; ++i) {
    server.world.step();
    if (i == view_at) {
      EXPECT_TRUE(core.set_view({10, 10, 50, 40}));
    }
    std::uint64_t use = !pattern.empty() && pattern.back() == '0' ? 0 : base;
    if (i == miss_at) {
      use = server.world.tick() - 100;
      server.frames.push_back({use, {}});  // a baseline the client never saw
    }
    const ReceiveResult r = core.receive(server.delta(use), i);
    base = server.world.tick();
    if (!r.reply) {
      pattern += '.';
      continue;
    }
    const codec::ClientCommand c = decode_reply(r.reply);
    pattern += c.ack.snapshot_tick == 0 ? '0' : c.ack.has_view ? 'v' : 'a';
  }
  EXPECT_EQ(core.deltas_received(), static_cast<std::uint64_t>(n));
  return pattern;
}

TEST(ProtocolCore, AcksTheFirstSnapshotThenEveryNthAsTheWelcomeSays) {
  EXPECT_EQ(core_ack_every_of(4), 4u);
  EXPECT_EQ(ack_pattern(4, 13), "a...a...a...a");
  EXPECT_EQ(ack_pattern(10, 25), "a.........a.........a....");
  // Clamped to the limit both ends keep frames for.
  EXPECT_EQ(core_ack_every_of(1000), codec::kMaxAckEverySnapshots);
}

TEST(ProtocolCore, ANewViewOrAMissingBaselineIsAcknowledgedAtOnce) {
  // The view rides on the next snapshot's ack, whatever the interval; the count restarts there.
  EXPECT_EQ(ack_pattern(4, 12, 2), "a.v...a...a.");
  // A missing baseline: ack 0 at once; the full snapshot that answers it is acknowledged at once
  // too (a server that waits for an ack before it codes deltas again needs no more than that).
  EXPECT_EQ(ack_pattern(4, 10, -1, 5), "a...a0a...");
}

TEST(ProtocolCore, ControlAWelcomeWithoutTheIntervalIsAcknowledgedEverySnapshot) {
  // Servers before Welcome.ack_every_snapshots (0 on the wire) pace by every ack.
  EXPECT_EQ(core_ack_every_of(0), 1u);
  EXPECT_EQ(ack_pattern(0, 6), "aaaaaa");
  EXPECT_EQ(ack_pattern(1, 6), "aaaaaa");
}

TEST(ProtocolCore, PingIsAnsweredAndPongsGiveTheRoundTripTime) {
  FakeServer server(arena());
  ProtocolCore core;
  core.start(spectator_config(), 0);
  core.opened(0);
  core.receive(server.welcome(codec::Role::kSpectator), 0);
  std::string ping;
  codec::encode_server_ping(123456789, ping);
  const ReceiveResult r = core.receive(ping, 10);
  ASSERT_EQ(r.type, Received::kPing);
  const codec::ClientCommand pong = decode_reply(r.reply);
  EXPECT_EQ(pong.type, codec::ClientCommand::Type::kPong);
  EXPECT_EQ(pong.time_us, 123456789u);
  // Our pings: the echo of a ping sent at t comes back at t + 40 ms; the first two of a
  // connection are skipped (they measure the page starting up).
  for (int i = 0; i < 4; ++i) {
    const double sent = 1000.0 + 100.0 * i;
    const codec::ClientCommand p = decode_reply(core.ping(sent));
    ASSERT_EQ(p.type, codec::ClientCommand::Type::kPing);
    std::string answer;
    codec::encode_server_pong(p.time_us, 7, answer);
    EXPECT_EQ(core.receive(answer, sent + (i < 2 ? 900.0 : 40.0)).type, Received::kPong);
  }
  EXPECT_NEAR(core.rtt_ms(), 40.0, 1e-6);
}

// A player's session in lockstep with the fake server: every input is applied at once.
struct PlayerLoop {
  FakeServer server{arena()};
  ProtocolCore core;
  std::uint32_t applied = 0;

  PlayerLoop() {
    core.start(player_config(), 0);
    core.opened(0);
    EXPECT_TRUE(core.receive(server.welcome(codec::Role::kPlayer), 0).world_ok);
  }
  /// One tick: the client predicts, the server applies the same input and sends its state.
  ReceiveResult tick(sim::PlayerInput in) {
    applied = core.advance(in);
    EXPECT_NE(core.input_message(), nullptr);
    server.world.set_input(server.me, in);
    server.world.step();
    const sim::AgentView own = server.own_view();
    return core.receive(server.delta(0, &own, {applied, 0, 0}), 0);
  }
  /// A snapshot whose own craft the server put elsewhere (a capture and respawn).
  ReceiveResult teleported_snapshot() {
    applied = core.advance({0, 1});
    server.world.set_input(server.me, {0, 1});
    server.world.step();
    sim::AgentView own = server.own_view();
    own.position = {100, 60};
    own.velocity = {0, 0};
    return core.receive(server.delta(0, &own, {applied, 0, 0}), 0);
  }
  std::string capture_event() const {
    v1::Events ev;
    ev.set_server_tick(server.world.tick());
    v1::Capture* c = ev.add_captures();
    c->set_player_id(3);
    c->set_entity_id(server.me.value);
    c->set_pursuer_id(99);
    c->set_tick(server.world.tick());
    std::string out;
    codec::encode_events(ev, out);
    return out;
  }
};

TEST(ProtocolCore, ReconcileAfterACaptureEventSnapsToTheServerStateWithoutAMisprediction) {
  PlayerLoop loop;
  for (int i = 0; i < 30; ++i) {
    const ReceiveResult r = loop.tick({i < 15 ? 0.5 : -0.5, 1});
    ASSERT_EQ(r.type, Received::kSnapshot);
    ASSERT_TRUE(r.own.reconciled);
  }
  EXPECT_EQ(loop.core.predictor().corrections(), 0u) << "lockstep: the prediction is exact";
  ASSERT_EQ(loop.core.receive(loop.capture_event(), 0).type, Received::kEvents);
  EXPECT_TRUE(loop.core.respawn_pending());
  const ReceiveResult r = loop.teleported_snapshot();
  ASSERT_TRUE(r.own.reconciled);
  EXPECT_TRUE(r.own.respawned);
  EXPECT_FALSE(r.own.result.compared) << "a respawn is never compared";
  EXPECT_FALSE(r.own.result.corrected);
  EXPECT_EQ(loop.core.predictor().corrections(), 0u);
  EXPECT_FALSE(loop.core.respawn_pending());
  // Every input was applied: the prediction is the server's state, bit for bit.
  EXPECT_TRUE(same_bits(loop.core.predictor().state(), r.own.server));
  EXPECT_EQ(loop.core.predictor().state().position, (Vec2{100, 60}));
}

TEST(ProtocolCore, ControlTheSameTeleportWithoutTheEventReadsAsAMisprediction) {
  PlayerLoop loop;
  for (int i = 0; i < 30; ++i) loop.tick({0.3, 1});
  const ReceiveResult r = loop.teleported_snapshot();
  ASSERT_TRUE(r.own.reconciled);
  EXPECT_FALSE(r.own.respawned);
  EXPECT_TRUE(r.own.result.compared);
  EXPECT_TRUE(r.own.result.corrected);
  EXPECT_EQ(loop.core.predictor().corrections(), 1u);
  EXPECT_TRUE(same_bits(loop.core.predictor().state(), r.own.server)) << "rebased all the same";
}

TEST(ProtocolCore, InputWindowCarriesTheUnacknowledgedInputsUpToTheLimit) {
  PlayerLoop loop;
  loop.tick({0, 1});
  // Five more inputs that the server does not acknowledge: all five go out, oldest first.
  for (int i = 0; i < 5; ++i) loop.core.advance({0.1 * i, 1});
  const codec::ClientCommand in = decode_reply(loop.core.input_message());
  ASSERT_EQ(in.type, codec::ClientCommand::Type::kInput);
  ASSERT_EQ(in.inputs.size(), 5u);
  EXPECT_EQ(in.inputs.front().sequence, loop.applied + 1);
  EXPECT_EQ(in.inputs.back().sequence, loop.applied + 5);
  // A bot's window (no prediction, a cap of 3): trimmed by the server's acknowledgement alone.
  ProtocolCore bot;
  CoreConfig c = player_config();
  c.predict = false;
  c.decode_snapshots = false;
  c.max_input_frames = 3;
  bot.start(c, 0);
  bot.opened(0);
  bot.receive(loop.server.welcome(codec::Role::kPlayer), 0);
  for (int i = 0; i < 6; ++i) bot.advance({0, 1});
  EXPECT_EQ(decode_reply(bot.input_message()).inputs.size(), 3u);
  const sim::AgentView own = loop.server.own_view();
  const ReceiveResult r = bot.receive(loop.server.delta(0, &own, {5, 0, 0}), 0);
  EXPECT_EQ(r.type, Received::kSnapshotSkipped);
  EXPECT_EQ(decode_reply(r.reply).ack.snapshot_tick, loop.server.world.tick()) << "acknowledged undecoded";
  const codec::ClientCommand left = decode_reply(bot.input_message());
  ASSERT_EQ(left.inputs.size(), 1u);
  EXPECT_EQ(left.inputs[0].sequence, 6u);
}

TEST(ReconnectPolicy, ViewerScheduleDoublesFromAQuarterSecondToEightSecondsWithJitter) {
  const ReconnectPolicy p = ReconnectPolicy::viewer();
  const double expect[] = {250, 500, 1000, 2000, 4000, 8000, 8000, 8000};
  for (int a = 0; a < 8; ++a) EXPECT_DOUBLE_EQ(p.delay_ms(a, 0.5), expect[a]) << "attempt " << a;
  EXPECT_DOUBLE_EQ(p.delay_ms(0, 0.0), 200);  // -20 %
  EXPECT_DOUBLE_EQ(p.delay_ms(0, 1.0), 300);  // +20 %
  EXPECT_DOUBLE_EQ(p.delay_ms(1000, 0.5), 8000) << "a long outage stays at the cap";
  const ReconnectPolicy sdk = ReconnectPolicy::sdk();
  EXPECT_DOUBLE_EQ(sdk.delay_ms(0, 0.9), 100);
  EXPECT_DOUBLE_EQ(sdk.delay_ms(6, 0.1), 5000);
  LinkEnd lost;
  lost.had_welcome = true;
  EXPECT_TRUE(sdk.decide(lost, 9, 0).retry);
  EXPECT_FALSE(sdk.decide(lost, 10, 0).retry) << "ten attempts";
  EXPECT_TRUE(p.decide(lost, 1000, 0).retry) << "the viewer never gives up";
  lost.lost_for_ms = 9950;
  EXPECT_FALSE(sdk.decide(lost, 0, 0, 10000).retry) << "the resume window has passed";
  lost.lost_for_ms = 0;
  lost.server_code = v1::Close::CODE_ROOM_FULL;
  EXPECT_FALSE(sdk.decide(lost, 0, 0).retry);
  EXPECT_TRUE(p.decide(lost, 0, 0).retry);
  lost.server_code = v1::Close::CODE_UNKNOWN_ROOM;
  EXPECT_TRUE(p.decide(lost, 0, 0).refused);
  EXPECT_FALSE(p.decide(lost, 0, 0).retry);
}

// The JavaScript SDK asks is_final (through sdk_core.cpp) which server closes end a session, so
// the viewer and the SDK decide from one list; decide() must stop on exactly those codes.
TEST(ReconnectPolicy, FinalCloseCodesAreTheOnesDecideStopsOn) {
  const ReconnectPolicy sdk = ReconnectPolicy::sdk();
  const ReconnectPolicy viewer = ReconnectPolicy::viewer();
  for (v1::Close::Code c : {v1::Close::CODE_NORMAL, v1::Close::CODE_MALFORMED, v1::Close::CODE_TOO_BIG,
                            v1::Close::CODE_RATE_LIMITED, v1::Close::CODE_ROOM_FULL}) {
    EXPECT_TRUE(sdk.is_final(c, "")) << "a new connection would be refused the same way: " << c;
    EXPECT_FALSE(viewer.is_final(c, "")) << "the viewer retries " << c;
  }
  EXPECT_TRUE(sdk.is_final(v1::Close::CODE_UNKNOWN_ROOM, ""));
  EXPECT_TRUE(viewer.is_final(v1::Close::CODE_UNKNOWN_ROOM, ""));
  EXPECT_TRUE(sdk.is_final(v1::Close::CODE_BAD_RESUME, "token expired"));
  EXPECT_FALSE(sdk.is_final(v1::Close::CODE_BAD_RESUME, "resume token in use")) << "retried with backoff";
  EXPECT_FALSE(viewer.is_final(v1::Close::CODE_BAD_RESUME, "token expired")) << "the viewer joins afresh";
  EXPECT_FALSE(sdk.is_final(v1::Close::CODE_UNSPECIFIED, "")) << "a lost socket is reconnected";
  for (int c = v1::Close::Code_MIN; c <= v1::Close::Code_MAX; ++c) {
    if (!v1::Close::Code_IsValid(c)) continue;
    for (const ReconnectPolicy* p : {&sdk, &viewer}) {
      LinkEnd end;
      end.had_welcome = true;
      end.server_code = static_cast<v1::Close::Code>(c);
      end.server_reason = "refused";
      EXPECT_EQ(p->decide(end, 0, 0.5).retry, !p->is_final(end.server_code, end.server_reason)) << "code " << c;
    }
  }
}

TEST(ProtocolCore, ReconnectsWithBackoffAndResumesWithTheWelcomesToken) {
  FakeServer server(arena());
  ProtocolCore core;
  core.start(player_config(), 0);
  EXPECT_TRUE(decode_reply(&core.opened(0)).join.resume_token.empty()) << "a fresh session has no token";
  core.receive(server.welcome(codec::Role::kPlayer), 10);
  EXPECT_EQ(core.resume_token(), server.token);
  // Lost three times in a row (no Welcome in between): 250, 500, 1000 ms (jitter at its middle).
  double now = 100;
  const double expect[] = {250, 500, 1000};
  for (double delay : expect) {
    const ReconnectDecision d = core.closed("socket closed", now, 0.5);
    ASSERT_TRUE(d.retry);
    EXPECT_DOUBLE_EQ(d.delay_ms, delay);
    EXPECT_EQ(core.state(), LinkState::kWaitingRetry);
    EXPECT_FALSE(core.update(now + delay - 1).connect);
    EXPECT_TRUE(core.update(now + delay).connect);
    const codec::ClientCommand join = decode_reply(&core.opened(now + delay));
    EXPECT_EQ(join.join.resume_token, server.token) << "the same craft is asked back";
    now += delay + 1;
  }
  EXPECT_EQ(core.attempt(), 3);
  // The server refuses the resume (the craft is gone): the viewer's policy joins afresh at once.
  std::string close;
  codec::encode_close(v1::Close::CODE_BAD_RESUME, "unknown resume token", close);
  EXPECT_EQ(core.receive(close, now).type, Received::kClose);
  const ReconnectDecision d = core.closed("socket closed", now, 0.5);
  ASSERT_TRUE(d.retry);
  EXPECT_FALSE(d.resume);
  EXPECT_EQ(d.delay_ms, 0);
  EXPECT_TRUE(core.update(now).connect);
  EXPECT_TRUE(decode_reply(&core.opened(now)).join.resume_token.empty());
  const ReceiveResult w = core.receive(server.welcome(codec::Role::kPlayer), now + 5);
  EXPECT_FALSE(w.resumed);
  EXPECT_EQ(core.attempt(), 0) << "a Welcome resets the schedule";
  EXPECT_EQ(core.reconnects(), 1u);
  // A silent server counts as lost after 5 s.
  EXPECT_FALSE(core.update(now + 5 + 4999).lost);
  EXPECT_TRUE(core.update(now + 5 + 5001).lost);
}

TEST(ProtocolCore, GroupUpdateChangesOnlyThatGroup) {
  FakeServer server(arena());
  ProtocolCore core;
  core.start(spectator_config(), 0);
  core.opened(0);
  core.receive(server.welcome(codec::Role::kSpectator), 0);
  auto wire = [](const sim::GroupSpec& g) {
    v1::AgentGroup a;
    codec::encode_group(g, a);
    return a.SerializeAsString();
  };
  const std::string red = wire(core.scenario().groups[0]), green = wire(core.scenario().groups[2]);
  sim::GroupSpec blue = core.scenario().groups[1];
  blue.max_speed = blue.max_speed * 0.5 + 1;
  blue.count = 9;
  std::string update;
  codec::encode_group_update(50, 1, blue, update);
  const ReceiveResult r = core.receive(update, 1);
  ASSERT_EQ(r.type, Received::kGroupUpdate);
  EXPECT_TRUE(r.applied) << r.detail;
  EXPECT_EQ(r.group, 1);
  EXPECT_EQ(core.scenario().groups[1].max_speed, blue.max_speed);
  EXPECT_EQ(core.scenario().groups[1].count, 9);
  EXPECT_EQ(wire(core.scenario().groups[1]), wire(blue));
  EXPECT_EQ(wire(core.scenario().groups[0]), red) << "the other groups are untouched";
  EXPECT_EQ(wire(core.scenario().groups[2]), green);
  EXPECT_EQ(core.world_spec().groups(1).SerializeAsString(), wire(blue));
  // An update the world refuses (a negative count) or for a group that is not there changes nothing.
  sim::GroupSpec bad = blue;
  bad.count = -4;
  codec::encode_group_update(51, 1, bad, update);
  const ReceiveResult refused = core.receive(update, 2);
  EXPECT_FALSE(refused.applied);
  EXPECT_FALSE(refused.detail.empty());
  EXPECT_EQ(wire(core.scenario().groups[1]), wire(blue));
  codec::encode_group_update(52, 7, blue, update);
  EXPECT_FALSE(core.receive(update, 3).applied);
  EXPECT_EQ(core.scenario().groups.size(), 3u);
}

}  // namespace
}  // namespace flockstep::client
