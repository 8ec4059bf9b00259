// Area of interest (hysteresis, budget weights) and the per-client delta streams (history,
// acknowledgements, full snapshots when the baseline is gone, shared buffers).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "codec/server_codec.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "game/interest.hpp"
#include "game/snapshot_streams.hpp"

namespace flockstep::server::game {
namespace {

/// A world sample of agents on the x axis at the given positions (ids 1..n), all at 2 m/s.
WorldSample line_of(const std::vector<double>& xs) {
  WorldSample w;
  w.width = w.height = 1000;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    codec::QAgent q;
    q.id = static_cast<std::uint32_t>(i + 1);
    q.x = static_cast<std::int32_t>(xs[i] * codec::kPositionUnitsPerM);
    q.y = static_cast<std::int32_t>(500 * codec::kPositionUnitsPerM);
    w.agents.push_back(q);
    w.x.push_back(xs[i]);
    w.y.push_back(500);
    w.speed.push_back(2);
  }
  return w;
}

codec::ViewFrame frame_of(const std::vector<codec::QAgent>& agents) {
  codec::ViewFrame f;
  for (const codec::QAgent& q : agents) f.agents.push_back({q, 0, 0, 0});
  return f;
}

TEST(Interest, AgentOscillatingAcrossTheEdgeDoesNotFlicker) {
  InterestConfig cfg;
  cfg.hysteresis_m = 5;
  Area area;
  area.kind = Area::Kind::kCircle;
  area.cx = 500;
  area.cy = 500;
  area.radius = 50;
  std::vector<codec::QAgent> visible;
  std::vector<float> weight;
  // Starts inside, then wobbles 3 m either side of the 50 m edge: stays in view throughout.
  codec::ViewFrame prev;
  for (int step = 0; step < 20; ++step) {
    const double x = step == 0 ? 540 : (step % 2 ? 553 : 547);
    select_visible(line_of({x}), area, step ? &prev : nullptr, cfg, visible, weight);
    ASSERT_EQ(visible.size(), 1u) << "step " << step;
    prev = frame_of(visible);
  }
  // Beyond radius + hysteresis it leaves; outside the radius it does not come back...
  select_visible(line_of({556}), area, &prev, cfg, visible, weight);
  EXPECT_TRUE(visible.empty());
  prev = frame_of(visible);
  select_visible(line_of({553}), area, &prev, cfg, visible, weight);
  EXPECT_TRUE(visible.empty());
  // ...until it is inside again.
  select_visible(line_of({549}), area, &prev, cfg, visible, weight);
  EXPECT_EQ(visible.size(), 1u);
}

TEST(Interest, RectangleViewAndNearerAgentsWeighMore) {
  InterestConfig cfg;
  Area area;
  area.kind = Area::Kind::kRect;
  area.rect = {400, 450, 600, 550};
  std::vector<codec::QAgent> visible;
  std::vector<float> weight;
  select_visible(line_of({100, 410, 500, 590, 900}), area, nullptr, cfg, visible, weight);
  ASSERT_EQ(visible.size(), 3u);
  EXPECT_EQ(visible[0].id, 2u);
  EXPECT_EQ(visible[1].id, 3u);
  EXPECT_GT(weight[1], weight[0]);  // the centre one matters more
  // The own craft is always in view, whatever the area.
  area.always_id = 5;
  select_visible(line_of({100, 410, 500, 590, 900}), area, nullptr, cfg, visible, weight);
  EXPECT_EQ(visible.back().id, 5u);
}

/// A random world sample: n agents (some players) scattered over width x height.
WorldSample scattered(std::int32_t n, double width, double height, bool wrap, math::Rng& rng) {
  WorldSample w;
  w.width = width;
  w.height = height;
  w.wrap = wrap;
  for (std::int32_t i = 0; i < n; ++i) {
    codec::QAgent q;
    q.id = static_cast<std::uint32_t>(3 * i + 1);  // sorted, with gaps
    q.kind = static_cast<std::uint8_t>(rng.chance(0.02) ? sim::AgentKind::kPlayer : sim::AgentKind::kFlock);
    const double x = rng.uniform(0, width), y = rng.uniform(0, height);
    q.x = static_cast<std::int32_t>(x * codec::kPositionUnitsPerM);
    q.y = static_cast<std::int32_t>(y * codec::kPositionUnitsPerM);
    w.agents.push_back(q);
    w.x.push_back(x);
    w.y.push_back(y);
    w.speed.push_back(rng.uniform(0, 6));
  }
  return w;
}

TEST(Interest, BucketIndexSelectsExactlyWhatTheFullScanSelects) {
  // The index only narrows which agents are examined; the rule is the same. Circles and
  // rectangles anywhere (across the seam of wrapped worlds, off the edge of solid ones, wider
  // than the world), with hysteresis against a previous frame, own craft and players always in.
  math::Rng rng = math::Rng::seeded(5, 9);
  InterestConfig cfg;
  cfg.hysteresis_m = 12;
  std::int32_t checked = 0, nonempty = 0;
  for (const bool wrap : {true, false}) {
    for (const double width : {150.0, 913.0}) {
      WorldSample indexed = scattered(4000, width, width * 0.7, wrap, rng);
      WorldSample plain = indexed;  // no index: select_visible scans every agent
      indexed.build_index();
      ASSERT_GT(indexed.cols, 0);
      for (int k = 0; k < 60; ++k) {
        Area area;
        if (k % 2 == 0) {
          area.kind = Area::Kind::kCircle;
          area.cx = rng.uniform(-50, width + 50);
          area.cy = rng.uniform(-50, width * 0.7 + 50);
          area.radius = rng.uniform(5, k % 10 == 0 ? 2 * width : 150);
        } else {
          area.kind = Area::Kind::kRect;
          const double x0 = rng.uniform(-100, width), y0 = rng.uniform(-100, width * 0.7);
          const double span = k % 10 == 1 ? 2 * width : rng.uniform(1, 300);
          area.rect = {x0, y0, x0 + span, y0 + rng.uniform(1, 200)};
          area.players_always = rng.chance(0.5);
        }
        if (rng.chance(0.5)) area.always_id = indexed.agents[static_cast<std::size_t>(rng.uniform(0, 3999))].id;
        // A previous frame: what the area held a little earlier, shifted by a few metres.
        Area before = area;
        before.cx += 8;
        before.rect.min_x += 8;
        before.rect.max_x += 8;
        std::vector<codec::QAgent> prev_visible, a, b;
        std::vector<float> wa, wb;
        select_visible(plain, before, nullptr, cfg, prev_visible, wa);
        const codec::ViewFrame prev = frame_of(prev_visible);
        select_visible(indexed, area, &prev, cfg, a, wa);
        select_visible(plain, area, &prev, cfg, b, wb);
        ASSERT_EQ(a.size(), b.size()) << "wrap " << wrap << " width " << width << " case " << k;
        for (std::size_t i = 0; i < a.size(); ++i) {
          ASSERT_EQ(a[i].id, b[i].id);
          ASSERT_EQ(wa[i], wb[i]);
        }
        ++checked;
        nonempty += a.empty() ? 0 : 1;
      }
    }
  }
  EXPECT_EQ(checked, 240);
  EXPECT_GT(nonempty, 200);
}

TEST(Interest, SpectatorRectangleKeepsEveryPlayerCraftInView) {
  // Spectators cycle through players and follow them, so player crafts stay in their stream
  // wherever the camera is; other kinds still obey the rectangle.
  InterestConfig cfg;
  Area area;
  area.kind = Area::Kind::kRect;
  area.rect = {400, 450, 600, 550};
  WorldSample w = line_of({100, 500, 900});
  w.agents[0].kind = static_cast<std::uint8_t>(sim::AgentKind::kPlayer);
  w.agents[2].kind = static_cast<std::uint8_t>(sim::AgentKind::kFlock);
  std::vector<codec::QAgent> visible;
  std::vector<float> weight;
  select_visible(w, area, nullptr, cfg, visible, weight);
  ASSERT_EQ(visible.size(), 1u);  // without the flag: only the agent inside
  EXPECT_EQ(visible[0].id, 2u);
  area.players_always = true;
  select_visible(w, area, nullptr, cfg, visible, weight);
  ASSERT_EQ(visible.size(), 2u);
  EXPECT_EQ(visible[0].id, 1u);  // the far player
  EXPECT_EQ(visible[1].id, 2u);
}

class Streams : public ::testing::Test {
 protected:
  // Pacing off: these tests pin the history and baseline rules at every snapshot (pacing has
  // its own tests below, with these as the control).
  Streams() : world_(sim::canonical::flock(300)), streams_(world_.scenario(), unpaced()) {}
  static StreamConfig unpaced() {
    StreamConfig c;
    c.max_unacked = 0;
    return c;
  }

  /// Step one snapshot interval and encode for the given connections.
  std::vector<std::shared_ptr<const std::string>> snapshot(std::initializer_list<ConnectionId> conns) {
    for (int k = 0; k < 3; ++k) world_.step();
    streams_.begin(world_, world_.state_hash());
    std::vector<std::shared_ptr<const std::string>> out;
    for (ConnectionId c : conns) out.push_back(streams_.encode_for(c, nullptr));
    streams_.end();
    return out;
  }
  static v1::DeltaSnapshot parse(const std::string& body) {
    v1::ServerMessage m;
    EXPECT_TRUE(m.ParseFromString(body));
    return m.delta_snapshot();
  }

  sim::World world_;
  SnapshotStreams streams_;
};

TEST(StreamsBatch, BodiesAreTheSameWhicheverOrderTheEncodeTasksRun) {
  // Room queues every client and encodes the distinct bodies at once on the world's task
  // runner. Run the same snapshots serially and with a runner that takes the tasks in reverse
  // order: every body and every baseline match byte for byte.
  struct Run {
    sim::World world{sim::canonical::flock(600)};
    SnapshotStreams streams{world.scenario(), [] {
                              StreamConfig c;
                              c.parallel_encode_min_agents = 0;  // always through the runner, however small the world
                              return c;
                            }()};
  };
  const sim::TaskRunner reversed{[](void*, std::int32_t n, sim::TaskRunner::TaskFn task, void* arg) {
                                   for (std::int32_t t = n - 1; t >= 0; --t) task(arg, t);
                                 },
                                 nullptr};
  Run a, b;
  const ConnectionId conns[] = {1, 2, 3, 4, 5, 6};
  for (Run* r : {&a, &b})
    for (ConnectionId c : conns) r->streams.add(c);
  const codec::ViewRect view{10, 10, 60, 40};
  std::int32_t distinct = 0;
  for (int snap = 1; snap <= 12; ++snap) {
    std::vector<std::shared_ptr<const std::string>> bodies[2];
    std::int32_t fresh = 0;
    for (Run* r : {&a, &b}) {
      for (int k = 0; k < 3; ++k) r->world.step();
      r->streams.begin(r->world, 0);
      std::vector<std::int32_t> tickets;
      for (ConnectionId c : conns) {
        Area area;  // conns 1-2: players around different points; the rest spectators
        if (c <= 2) {
          area.kind = Area::Kind::kCircle;
          area.cx = 20.0 * static_cast<double>(c);
          area.cy = 30;
          area.radius = 25;
        }
        tickets.push_back(r->streams.queue(c, c <= 2 ? &area : nullptr));
      }
      r->streams.encode_queued(r == &a ? sim::TaskRunner{} : reversed);
      auto& out = bodies[r == &a ? 0 : 1];
      for (std::int32_t t : tickets) {
        out.push_back(r->streams.body(t));
        if (r == &a) fresh += r->streams.fresh(t) ? 1 : 0;
      }
      r->streams.end();
      // Acks: spectators 3-4 every snapshot, 5 every other one (another baseline), 6 never;
      // spectator 4 also sets a view. Players ack every snapshot.
      for (ConnectionId c : conns) {
        if (c == 6 || (c == 5 && snap % 2)) continue;
        r->streams.ack(c, r->world.tick(), c == 4 && snap == 3 ? &view : nullptr);
      }
    }
    for (std::size_t k = 0; k < bodies[0].size(); ++k) {
      ASSERT_TRUE(bodies[0][k] && bodies[1][k]);
      ASSERT_EQ(*bodies[0][k], *bodies[1][k]) << "snapshot " << snap << " client " << conns[k];
    }
    distinct += fresh;
    for (ConnectionId c : conns) EXPECT_EQ(a.streams.baseline_of(c), b.streams.baseline_of(c));
  }
  // Sharing happened (spectators 3 and 4 share until 4 sets a view) and so did distinct bodies.
  EXPECT_LT(distinct, 12 * 6);
  EXPECT_GT(distinct, 12 * 3);
  EXPECT_EQ(a.streams.stats().encodes, static_cast<std::uint64_t>(distinct));
  EXPECT_EQ(a.streams.stats().shared, static_cast<std::uint64_t>(12 * 6 - distinct));
}

TEST_F(Streams, FullOnJoinDeltaAfterAckAndIdenticalSpectatorsShareTheBuffer) {
  streams_.add(1);
  streams_.add(2);
  auto first = snapshot({1, 2});
  EXPECT_EQ(first[0].get(), first[1].get());  // same area, no baseline: one buffer
  EXPECT_EQ(parse(*first[0]).baseline_tick(), 0u);
  const std::uint64_t t1 = world_.tick();
  streams_.ack(1, t1, nullptr);
  streams_.ack(2, t1, nullptr);
  auto second = snapshot({1, 2});
  EXPECT_EQ(second[0].get(), second[1].get());
  EXPECT_EQ(parse(*second[0]).baseline_tick(), t1);
  EXPECT_LT(second[0]->size(), first[0]->size() / 3);  // deltas are far smaller than the full one
  // One client acknowledges, the other does not: different baselines, different bytes.
  streams_.ack(1, world_.tick(), nullptr);
  auto third = snapshot({1, 2});
  EXPECT_NE(third[0].get(), third[1].get());
  EXPECT_EQ(parse(*third[1]).baseline_tick(), t1);
  EXPECT_EQ(streams_.stats().shared, 2u);
}

TEST_F(Streams, ReceiverFollowsTheStreamThroughLostAcksAndViewChanges) {
  streams_.add(7);
  codec::SnapshotReceiver rx;
  rx.configure(world_.scenario());
  for (int s = 0; s < 40; ++s) {
    auto body = snapshot({7});
    const v1::DeltaSnapshot d = parse(*body[0]);
    ASSERT_TRUE(rx.receive(d).ok()) << s;
    // Every third ack is lost; from snapshot 19 the client watches a corner only.
    const codec::ViewRect corner{0, 0, 5, 5};  // + 10 m hysteresis: a quarter of the 50 m world
    if (s % 3 != 2) streams_.ack(7, rx.ack_tick(), s == 19 ? &corner : nullptr);
    if (s > 21) {
      EXPECT_LT(rx.agents().size(), 130u);
    }
  }
  EXPECT_GT(rx.agents().size(), 0u);
  // Memory: frames older than the acknowledged one are released.
  EXPECT_LE(streams_.history_size(7), 3u);
}

TEST_F(Streams, BaselineOlderThanTheHistoryGivesAFullSnapshot) {
  streams_.add(3);
  snapshot({3});
  const std::uint64_t t1 = world_.tick();
  streams_.ack(3, t1, nullptr);
  EXPECT_EQ(streams_.baseline_of(3), t1);
  // 32 more snapshots without any acknowledgement: the acknowledged frame is overwritten.
  for (std::size_t i = 0; i < SnapshotStreams::kHistory; ++i) snapshot({3});
  EXPECT_EQ(streams_.baseline_of(3), 0u);
  auto body = snapshot({3});
  EXPECT_EQ(parse(*body[0]).baseline_tick(), 0u);
  EXPECT_EQ(streams_.history_size(3), SnapshotStreams::kHistory);
  // An ack of a tick that was never sent is ignored; 0 asks for a full one.
  streams_.ack(3, world_.tick() + 1, nullptr);
  EXPECT_EQ(streams_.baseline_of(3), 0u);
  streams_.ack(3, world_.tick(), nullptr);
  EXPECT_EQ(streams_.baseline_of(3), world_.tick());
  streams_.ack(3, 0, nullptr);
  EXPECT_EQ(streams_.baseline_of(3), 0u);
}

TEST_F(Streams, PlayerBudgetSendsNearAgentsFirst) {
  StreamConfig cfg;
  cfg.budget_bytes = 200;
  SnapshotStreams tight(world_.scenario(), cfg);
  tight.add(9);
  codec::SnapshotReceiver rx;
  rx.configure(world_.scenario());
  Area area;
  area.kind = Area::Kind::kCircle;
  area.cx = world_.scenario().width / 2;
  area.cy = world_.scenario().height / 2;
  area.radius = 1e6;
  for (int s = 0; s < 5; ++s) {
    for (int k = 0; k < 3; ++k) world_.step();
    tight.begin(world_, world_.state_hash());
    auto body = tight.encode_for(9, &area);
    tight.end();
    ASSERT_TRUE(rx.receive(parse(*body)).ok());
    tight.ack(9, rx.ack_tick(), nullptr);
    EXPECT_GT(tight.stats().last.deferred, 0u);
  }
  // After a few snapshots the receiver knows the agents near the centre, not yet the far ones.
  double near = 0, far = 0;
  for (const sim::AgentView& a : rx.agents()) (math::distance(a.position, {area.cx, area.cy}) < 10 ? near : far) += 1;
  EXPECT_GT(near, 0);
  EXPECT_LT(static_cast<double>(rx.agents().size()), 300.0);
}

}  // namespace
}  // namespace flockstep::server::game

namespace flockstep::server::game {
namespace {

/// What a spectator saw whose acknowledgements reach the server `lag` snapshots late after the
/// first `prompt` snapshots (a link that degrades after joining). `ack_every`: it acknowledges
/// as client::ProtocolCore does after a Welcome with that ack_every_snapshots (its first
/// snapshot, a missing baseline at once, else every ack_every-th).
struct PacedRun {
  std::uint32_t sent = 0;             ///< snapshots the streams produced for it
  std::uint32_t full = 0;             ///< of them full (no baseline)
  std::uint32_t full_after_join = 0;  ///< full ones after the first acknowledgement arrived
  std::uint32_t decode_errors = 0;
  std::uint32_t longest_gap = 0;  ///< most snapshot ticks between two it was sent
  std::uint64_t paced = 0;        ///< StreamStats::paced
};

PacedRun run_lagging_spectator(StreamConfig config, int prompt, int lag, int snapshots, int ack_every = 1) {
  sim::World world(sim::canonical::flock(300));
  SnapshotStreams streams(world.scenario(), config);
  const ConnectionId conn = 5;
  streams.add(conn);
  codec::SnapshotReceiver rx;
  rx.configure(world.scenario());
  std::vector<std::pair<int, std::uint64_t>> acks;  // (snapshot index it arrives before, tick)
  PacedRun out;
  bool acknowledged = false;
  int last_sent = -1;
  int since_ack = -1;
  for (int s = 0; s < snapshots; ++s) {
    for (auto& [at, tick] : acks) {
      if (at != s) continue;
      streams.ack(conn, tick, nullptr);
      acknowledged = acknowledged || streams.baseline_of(conn) != 0;
    }
    for (int k = 0; k < 3; ++k) world.step();
    streams.begin(world, 0);
    const auto body = streams.encode_for(conn, nullptr);
    streams.end();
    if (!body) continue;  // paced: nothing this snapshot
    ++out.sent;
    if (last_sent >= 0) out.longest_gap = std::max(out.longest_gap, static_cast<std::uint32_t>(s - last_sent));
    last_sent = s;
    v1::ServerMessage m;
    EXPECT_TRUE(m.ParseFromString(*body));
    if (m.delta_snapshot().baseline_tick() == 0) {
      ++out.full;
      if (acknowledged) ++out.full_after_join;
    }
    if (!rx.receive(m).ok()) ++out.decode_errors;
    if (since_ack < 0 || rx.ack_tick() == 0 || ++since_ack >= ack_every) {
      acks.emplace_back(s + 1 + (s < prompt ? 0 : lag), rx.ack_tick());
      since_ack = 0;
    }
  }
  out.paced = streams.stats().paced;
  return out;
}

TEST(StreamsPacing, LaggingSpectatorGetsALowerRateAndNoFullSnapshots) {
  // Acks arrive 40 snapshots late (2 s at 20 Hz), longer than the 32-deep history.
  const StreamConfig paced;
  const PacedRun r = run_lagging_spectator(paced, 10, 40, 400);
  std::printf("paced: %u of 400 snapshots sent, %u full, longest gap %u, %llu paced\n", r.sent, r.full, r.longest_gap,
              static_cast<unsigned long long>(r.paced));
  EXPECT_EQ(r.decode_errors, 0u);
  EXPECT_EQ(r.full, 1u) << "only the one on join: every later snapshot is a delta against a baseline it has";
  EXPECT_EQ(r.full_after_join, 0u);
  // The rate fell to what the acknowledgements allow: max_unacked per lag, plus the stalled ones.
  EXPECT_LT(r.sent, 400u / 3);
  EXPECT_GT(r.paced, 0u);
  EXPECT_EQ(r.sent + r.paced, 400u);
  // ... but never to nothing: one every stalled_every snapshots at the least.
  EXPECT_LE(r.longest_gap, paced.stalled_every);
}

TEST(StreamsPacing, ControlWithoutPacingTheLaggingSpectatorGetsFullSnapshots) {
  StreamConfig off;
  off.max_unacked = 0;
  const PacedRun r = run_lagging_spectator(off, 10, 40, 400);
  std::printf("unpaced: %u of 400 snapshots sent, %u full\n", r.sent, r.full);
  EXPECT_EQ(r.decode_errors, 0u);
  EXPECT_EQ(r.sent, 400u);
  EXPECT_EQ(r.paced, 0u);
  EXPECT_GT(r.full_after_join, 300u) << "its baseline fell out of the history: full snapshots every time";
}

TEST(StreamsPacing, JoinStormClientWhoseFirstAckIsAlreadyGoneIsPacedThenGetsDeltas) {
  // Acks 40 snapshots late from the first one: the first ack names a frame that already left
  // the 32-deep history, so the client has no baseline. It is paced once kUnusableAckOutstanding
  // full snapshots are outstanding; a later ack then finds its frame and deltas follow.
  const PacedRun r = run_lagging_spectator(StreamConfig{}, 0, 40, 400);
  std::printf("join storm: %u of 400 snapshots sent, %u full (%u after the first usable ack), %llu paced\n", r.sent,
              r.full, r.full_after_join, static_cast<unsigned long long>(r.paced));
  EXPECT_EQ(r.decode_errors, 0u);
  EXPECT_GT(r.paced, 0u);
  EXPECT_LE(r.full, 41u + 1u) << "full snapshots only until the first ack arrives, and at most one stalled send after";
  EXPECT_EQ(r.full_after_join, 0u);
  EXPECT_LT(r.sent, 400u / 3);
}

TEST(StreamsPacing, ControlJoinStormClientUnpacedGetsFullSnapshotsForever) {
  StreamConfig off;
  off.max_unacked = 0;
  const PacedRun r = run_lagging_spectator(off, 0, 40, 400);
  EXPECT_EQ(r.decode_errors, 0u);
  EXPECT_EQ(r.sent, 400u);
  EXPECT_GT(r.full, 390u) << "every ack names a frame already gone: no baseline ever";
}

TEST(StreamsPacing, ClientThatNeverAcknowledgesIsNotPaced) {
  // A reader of full snapshots only (no acks at all): every snapshot, each a full one.
  const PacedRun r = run_lagging_spectator(StreamConfig{}, 0, 1000, 200);
  EXPECT_EQ(r.sent, 200u);
  EXPECT_EQ(r.paced, 0u);
  EXPECT_EQ(r.full, 200u);
}

TEST(StreamsPacing, PromptClientsAreNeverPaced) {
  const PacedRun r = run_lagging_spectator(StreamConfig{}, 0, 2, 200);  // 100 ms of round trip
  EXPECT_EQ(r.sent, 200u);
  EXPECT_EQ(r.paced, 0u);
  EXPECT_EQ(r.full, 3u);  // until the first acknowledgement arrives
  EXPECT_EQ(r.decode_errors, 0u);
}

TEST(StreamsPacing, ClientsAcknowledgingEveryTenthSnapshotAreNotPacedAtA150msRoundTrip) {
  // Welcome.ack_every_snapshots = 10: pacing allows max_unacked + 9 outstanding, so a client
  // acknowledging every tenth snapshot, 3 snapshots late, gets every snapshot as deltas.
  StreamConfig cfg;
  cfg.ack_every = 10;
  const PacedRun r = run_lagging_spectator(cfg, 0, 3, 200, 10);
  EXPECT_EQ(r.sent, 200u);
  EXPECT_EQ(r.paced, 0u);
  EXPECT_EQ(r.full, 4u);  // until the first acknowledgement arrives
  EXPECT_EQ(r.decode_errors, 0u);
  // A link that then degrades to 2 s of round trip is still slowed down, never grown.
  const PacedRun lag = run_lagging_spectator(cfg, 10, 40, 400, 10);
  EXPECT_GT(lag.paced, 0u);
  EXPECT_LT(lag.sent, 400u / 2);
  EXPECT_EQ(lag.full, 1u);
  EXPECT_EQ(lag.decode_errors, 0u);
}

TEST(StreamsPacing, ControlAServerExpectingEveryAckPacesTheSameClient) {
  // The same client against streams that expect an ack per snapshot (ack_every 1): with six
  // outstanding it waits, so it loses snapshots although its link keeps up.
  const PacedRun r = run_lagging_spectator(StreamConfig{}, 0, 3, 200, 10);
  EXPECT_GT(r.paced, 0u);
  EXPECT_LT(r.sent, 200u);
  EXPECT_EQ(r.decode_errors, 0u);
}

TEST(StreamsPacing, BaselineLostAfterTheStallTimeoutGivesOneFullSnapshot) {
  // A client that stops acknowledging entirely: paced at once, then one snapshot every
  // stalled_every; its baseline leaves the history after kHistory - max_unacked of those.
  sim::World world(sim::canonical::flock(120));
  const StreamConfig cfg;
  SnapshotStreams streams(world.scenario(), cfg);
  streams.add(1);
  std::uint32_t sent = 0, full = 0;
  for (int s = 0; s < 800; ++s) {
    for (int k = 0; k < 3; ++k) world.step();
    streams.begin(world, 0);
    const auto body = streams.encode_for(1, nullptr);
    streams.end();
    if (s == 0) streams.ack(1, world.tick(), nullptr);
    if (!body) continue;
    ++sent;
    v1::ServerMessage m;
    ASSERT_TRUE(m.ParseFromString(*body));
    full += m.delta_snapshot().baseline_tick() == 0 ? 1 : 0;
    EXPECT_LE(streams.history_size(1), SnapshotStreams::kHistory);
  }
  // 1 on join, then max_unacked at once, then one per stalled_every.
  EXPECT_NEAR(static_cast<double>(sent), 1 + cfg.max_unacked + (800.0 - 1 - cfg.max_unacked) / cfg.stalled_every, 2);
  // The acknowledged frame and the next kHistory - 1 fill the history; the send after them
  // (still a delta) evicts it, and from then on every stalled send is full.
  const std::uint32_t kept = SnapshotStreams::kHistory + 1;
  EXPECT_GT(sent, kept);
  EXPECT_EQ(full, 1u + (sent > kept ? sent - kept : 0u))
      << "full ones only once the acknowledged frame left the history";
}

/// One snapshot of a lone client: the world steps, the streams encode for it with `delivered`
/// reported by the transport; returns the baseline tick (0 = full) and the snapshot's tick.
std::pair<std::uint64_t, std::uint64_t> next_snapshot(sim::World& world, SnapshotStreams& streams,
                                                      std::uint64_t delivered) {
  for (int k = 0; k < 3; ++k) world.step();
  streams.begin(world, 0);
  const auto body = streams.encode_for(1, nullptr, delivered);
  streams.end();
  v1::ServerMessage m;
  EXPECT_TRUE(body && m.ParseFromString(*body));
  return {m.delta_snapshot().baseline_tick(), m.delta_snapshot().server_tick()};
}

TEST(StreamsDelivered, BaselineIsTheNewestDeliveredSnapshotNewerThanTheAcknowledgedOne) {
  // The acknowledgement of the first snapshot arrives; the three after it were written to the
  // socket (delivered) but not yet acknowledged: the next is coded against the newest written.
  for (const bool report : {true, false}) {  // false: the control, no delivery reports
    sim::World world(sim::canonical::flock(60));
    SnapshotStreams streams(world.scenario(), StreamConfig{});
    streams.add(1);
    const auto [b0, t0] = next_snapshot(world, streams, 0);
    EXPECT_EQ(b0, 0u);  // join: full
    streams.ack(1, t0, nullptr);
    std::uint64_t written = t0;
    for (int s = 0; s < 3; ++s) written = next_snapshot(world, streams, report ? written : 0).second;
    const auto [b, t] = next_snapshot(world, streams, report ? written : 0);
    EXPECT_EQ(b, report ? written : t0) << (report ? "delivered" : "control: acknowledged");
    EXPECT_GT(t, written);
  }
}

TEST(StreamsDelivered, AReaderThatNeverAcknowledgesGetsFullSnapshotsWhateverWasDelivered) {
  // Only an acknowledgement shows that a client decodes deltas at all.
  sim::World world(sim::canonical::flock(60));
  SnapshotStreams streams(world.scenario(), StreamConfig{});
  streams.add(1);
  std::uint64_t written = 0;
  for (int s = 0; s < 10; ++s) {
    const auto [b, t] = next_snapshot(world, streams, written);
    EXPECT_EQ(b, 0u) << s;
    written = t;
  }
}

TEST(StreamsDelivered, AfterAnAcknowledgementOfZeroTheNextIsFullThoughFramesWereDelivered) {
  // Ack 0: the client lost its frames; what was delivered before is no baseline, until it
  // acknowledges again (the full one it then decoded).
  sim::World world(sim::canonical::flock(60));
  SnapshotStreams streams(world.scenario(), StreamConfig{});
  streams.add(1);
  auto [b, written] = next_snapshot(world, streams, 0);
  streams.ack(1, written, nullptr);
  std::tie(b, written) = next_snapshot(world, streams, written);
  EXPECT_NE(b, 0u);
  streams.ack(1, 0, nullptr);
  std::tie(b, written) = next_snapshot(world, streams, written);
  EXPECT_EQ(b, 0u) << "full after ack 0, although the previous snapshot was delivered";
  const std::uint64_t full_tick = written;
  std::tie(b, written) = next_snapshot(world, streams, written);
  EXPECT_EQ(b, 0u) << "still full: no new acknowledgement yet";
  streams.ack(1, full_tick, nullptr);
  std::tie(b, written) = next_snapshot(world, streams, written);
  EXPECT_GT(b, full_tick) << "deltas again, against the newest delivered";
}

}  // namespace
}  // namespace flockstep::server::game

namespace flockstep::server::game {
namespace {

/// A spectator that never acknowledges, whose socket delivers each snapshot before the next one
/// (the session reports it written: `delivered` = the previous snapshot's tick). At snapshot
/// `lose_at` it loses its frames (a new receiver) and sends Ack{0}, while the server's newest
/// delivered frame is still one the new receiver never saw.
struct DeliveredRun {
  std::uint32_t full = 0;
  std::uint32_t decode_errors = 0;
  std::uint32_t full_after_loss = 0;
};

DeliveredRun run_delivered(bool delivered_baselines, int snapshots, int lose_at = -1) {
  sim::World world(sim::canonical::flock(200));
  StreamConfig cfg;
  cfg.max_unacked = 0;  // pacing is not under test here (after Ack{0} this client sends no more)
  SnapshotStreams streams(world.scenario(), cfg);
  const ConnectionId conn = 9;
  streams.add(conn, delivered_baselines);
  auto rx = std::make_unique<codec::SnapshotReceiver>();
  rx->configure(world.scenario());
  DeliveredRun out;
  std::uint64_t delivered = 0;
  for (int s = 0; s < snapshots; ++s) {
    if (s == lose_at) {
      rx = std::make_unique<codec::SnapshotReceiver>();
      rx->configure(world.scenario());
      streams.ack(conn, 0, nullptr);
    }
    for (int k = 0; k < 3; ++k) world.step();
    streams.begin(world, 0);
    const auto body = streams.encode_for(conn, nullptr, delivered);
    streams.end();
    EXPECT_NE(body, nullptr) << "never paced: it keeps up";
    if (!body) continue;
    v1::ServerMessage m;
    EXPECT_TRUE(m.ParseFromString(*body));
    const bool full = m.delta_snapshot().baseline_tick() == 0;
    out.full += full ? 1 : 0;
    out.full_after_loss += full && lose_at >= 0 && s > lose_at ? 1 : 0;
    if (!rx->receive(m).ok()) ++out.decode_errors;
    delivered = m.delta_snapshot().server_tick();
  }
  return out;
}

TEST(StreamsDelivered, AClientDeclaringDeliveredBaselinesGetsDeltasFromItsSecondSnapshotWithoutAnAck) {
  const DeliveredRun r = run_delivered(true, 60);
  EXPECT_EQ(r.full, 1u);
  EXPECT_EQ(r.decode_errors, 0u);
}

TEST(StreamsDelivered, ControlWithoutTheDeclarationAClientThatNeverAcksGetsFullSnapshots) {
  const DeliveredRun r = run_delivered(false, 60);
  EXPECT_EQ(r.full, 60u) << "a reader of full snapshots only keeps working";
  EXPECT_EQ(r.decode_errors, 0u);
}

TEST(StreamsDelivered, AfterAckZeroNoFrameDeliveredBeforeItIsABaseline) {
  // The newest delivered frame when the Ack{0} arrives is one the new receiver never had: the
  // next snapshot is full, and the deltas resume against it once it was delivered.
  const DeliveredRun r = run_delivered(true, 60, 30);
  EXPECT_EQ(r.decode_errors, 0u);
  EXPECT_EQ(r.full_after_loss, 0u) << "the snapshot at the loss itself is the full one";
  EXPECT_EQ(r.full, 2u);
}

// The sample every body is cut from: each live agent quantised from the world, in id order,
// whatever order the world keeps its rows in and after agents join and leave.
std::vector<codec::QAgent> reference_sample(const sim::World& w, const codec::WireGeometry& g) {
  std::vector<std::pair<std::uint32_t, std::int32_t>> order;
  for (std::int32_t i = 0; i < w.size(); ++i) order.emplace_back(w.id_at(i).value, i);
  std::sort(order.begin(), order.end());
  std::vector<codec::QAgent> out;
  for (const auto& [id, i] : order) out.push_back(codec::quantize(w.view(i), g));
  return out;
}

TEST(StreamsSample, IsTheWorldInIdOrderWhileRowsMoveAndAgentsJoinAndLeave) {
  const sim::Scenario scenario = sim::canonical::flock(500);
  sim::World world(scenario);
  world.set_reorder_interval(1);  // the rows move into cell order on every tick
  SnapshotStreams streams(scenario, StreamConfig{});
  const codec::WireGeometry g = codec::WireGeometry::of(scenario);
  std::int32_t snapshots_with_rows_out_of_id_order = 0;
  std::vector<sim::AgentId> players;
  for (int snapshot = 0; snapshot < 24; ++snapshot) {
    if (snapshot == 8 || snapshot == 9) players.push_back(world.add_player());
    if (snapshot == 16) world.remove(players.front());
    for (int k = 0; k < 3; ++k) world.step();
    streams.begin(world, 0);
    const WorldSample& s = streams.sample();
    ASSERT_EQ(s.agents, reference_sample(world, g)) << "snapshot " << snapshot;
    ASSERT_EQ(s.x.size(), s.agents.size());
    for (std::size_t k = 0; k < s.agents.size(); ++k) {
      const sim::AgentView v = world.view(world.index_of(sim::AgentId{s.agents[k].id}));
      ASSERT_EQ(s.x[k], v.position.x);
      ASSERT_EQ(s.y[k], v.position.y);
    }
    bool ascending = true;
    for (std::int32_t i = 1; i < world.size(); ++i)
      ascending = ascending && world.id_at(i - 1).value < world.id_at(i).value;
    snapshots_with_rows_out_of_id_order += ascending ? 0 : 1;
  }
  // The test means something only if the rows were out of id order: a sample read in storage
  // order would then differ from the reference.
  EXPECT_GE(snapshots_with_rows_out_of_id_order, 20);
  EXPECT_GT(world.reorders(), 60);
  // Sorted again only when the agents changed: the first snapshot, two joins, one leave.
  EXPECT_EQ(streams.order_rebuilds(), 4u);
}

TEST(StreamsSample, ControlTheRowsInStorageOrderAreNotTheSample) {
  // The same world: its rows in storage order differ from the id-ordered sample, so the test
  // above fails for a sampling that skips the reordering.
  const sim::Scenario scenario = sim::canonical::flock(500);
  sim::World world(scenario);
  world.set_reorder_interval(1);
  for (int k = 0; k < 9; ++k) world.step();
  const codec::WireGeometry g = codec::WireGeometry::of(scenario);
  std::vector<codec::QAgent> storage_order;
  for (std::int32_t i = 0; i < world.size(); ++i) storage_order.push_back(codec::quantize(world.view(i), g));
  EXPECT_NE(storage_order, reference_sample(world, g));
}

}  // namespace
}  // namespace flockstep::server::game
