// A slow consumer of the delta snapshot stream: its acknowledgements reach the server late, so the
// server keeps coding against old baselines while the client keeps decoding newer snapshots. The
// baseline rule (docs/protocol.md, "Baselines") says the client still holds every frame the server
// may code against; these tests count decode failures for every acknowledgement lag, first with
// the server's streams in-process (deterministic), then over loopback with a client made slow on
// purpose.
#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "flockstep/math/rng.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "game/snapshot_streams.hpp"
#include "net_harness.hpp"

namespace flockstep::server::net {
namespace {

using namespace harness;
using namespace std::chrono_literals;

/// What one slow stream did.
struct LagRun {
  std::uint32_t decode_errors = 0;  ///< snapshots the receiver could not decode
  std::uint32_t at_the_edge = 0;    ///< deltas whose baseline was >= kHistory - 1 snapshots old
  std::uint32_t deltas = 0;
  std::uint32_t full = 0;
  std::uint32_t paced = 0;             ///< snapshots not sent (pacing: the client lags)
  std::uint32_t full_after_delta = 0;  ///< full snapshots after the stream had a baseline
  int oldest_baseline_age = 0;         ///< most snapshots between a delta and its baseline
};

/// In-process: the server's SnapshotStreams and the client's SnapshotReceiver, with every
/// acknowledgement delivered `lag` snapshots after the client sent it (lag 0: before the next
/// snapshot). `jitter` adds 0..jitter snapshots of extra delay per acknowledgement (seeded, and
/// never reordering them: one TCP stream). `delivered`: the transport reports each snapshot as
/// written in full as soon as it is sent (the server's delivered baseline, TCP), else nothing.
LagRun run_with_ack_lag(std::uint32_t lag, std::uint32_t jitter, int snapshots, bool paced = false,
                        bool delivered = false) {
  sim::World world(sim::canonical::flock(120));
  game::StreamConfig config;
  if (!paced) config.max_unacked = 0;  // every snapshot sent, whatever the lag
  game::SnapshotStreams streams(world.scenario(), config);
  const game::ConnectionId conn = 1;
  streams.add(conn);
  codec::SnapshotReceiver rx;
  rx.configure(world.scenario());
  math::Rng rng = math::Rng::seeded(lag * 7919u + jitter);
  std::deque<std::pair<int, std::uint64_t>> in_flight;  // (snapshot index it arrives before, tick)
  std::map<std::uint64_t, int> index_of_tick;
  LagRun out;
  std::uint64_t written = 0;  // newest snapshot tick handed to the transport
  std::map<std::uint64_t, int> sent_index;
  int sent = 0;
  for (int s = 0; s < snapshots; ++s) {
    while (!in_flight.empty() && in_flight.front().first <= s) {
      streams.ack(conn, in_flight.front().second, nullptr);
      in_flight.pop_front();
    }
    for (int k = 0; k < 3; ++k) world.step();
    streams.begin(world, 0);
    const auto body = streams.encode_for(conn, nullptr, delivered ? written : 0);
    streams.end();
    if (!body) {
      ++out.paced;
      continue;
    }
    v1::ServerMessage m;
    EXPECT_TRUE(m.ParseFromString(*body));
    const v1::DeltaSnapshot& d = m.delta_snapshot();
    written = d.server_tick();
    if (d.baseline_tick() != 0)  // in snapshots sent, so a paced client's skipped ones do not count
      out.oldest_baseline_age = std::max(out.oldest_baseline_age, sent - sent_index[d.baseline_tick()]);
    sent_index[d.server_tick()] = sent++;
    index_of_tick[d.server_tick()] = s;
    if (d.baseline_tick() == 0) {
      ++out.full;
      out.full_after_delta += out.deltas > 0 ? 1 : 0;
    } else {
      ++out.deltas;
      if (s - index_of_tick[d.baseline_tick()] >= static_cast<int>(codec::SnapshotReceiver::kHistory) - 1)
        ++out.at_the_edge;
    }
    if (!rx.receive(m).ok()) ++out.decode_errors;
    const int extra = jitter ? static_cast<int>(rng.next_u32() % (jitter + 1)) : 0;
    const int arrives = std::max(s + 1 + static_cast<int>(lag) + extra, in_flight.empty() ? 0 : in_flight.back().first);
    in_flight.emplace_back(arrives, rx.ack_tick());
  }
  return out;
}

TEST(SlowConsumer, NoAcknowledgementLagMakesTheReceiverLoseABaseline) {
  std::uint32_t edge = 0;
  for (std::uint32_t lag = 0; lag <= 40; ++lag) {
    const LagRun r = run_with_ack_lag(lag, 0, 120);
    EXPECT_EQ(r.decode_errors, 0u) << "acknowledgements " << lag << " snapshots late";
    EXPECT_GT(r.deltas + r.full, 0u);
    edge += r.at_the_edge;
    // Lags the server's history covers stay deltas; longer ones fall back to full snapshots.
    if (lag + 1 < game::SnapshotStreams::kHistory) {
      EXPECT_EQ(r.full, lag + 1) << lag;  // until the first acknowledgement arrives
    }
    if (lag > game::SnapshotStreams::kHistory) {
      EXPECT_EQ(r.deltas, 0u) << lag;
    }
  }
  EXPECT_GT(edge, 50u) << "the sweep coded against baselines at the edge of the history";
  // Lag that wanders across the history's depth (as a starved client's does).
  for (std::uint32_t lag : {24u, 28u, 30u}) {
    const LagRun r = run_with_ack_lag(lag, 6, 400);
    EXPECT_EQ(r.decode_errors, 0u) << "lag " << lag << " + jitter";
    EXPECT_GT(r.at_the_edge, 0u) << lag;
  }
}

TEST(SlowConsumer, PacedLaggingClientKeepsDecodingDeltasAtALowerRate) {
  // The same sweep with pacing on (the server's default): however late the acknowledgements,
  // the only full snapshots are the ones before the first acknowledgement arrives.
  for (std::uint32_t lag = 0; lag + 1 < game::SnapshotStreams::kHistory; ++lag) {
    const LagRun r = run_with_ack_lag(lag, 0, 300, true);
    EXPECT_EQ(r.decode_errors, 0u) << lag;
    EXPECT_EQ(r.full, lag + 1) << lag;
    EXPECT_EQ(r.full_after_delta, 0u) << lag;
    if (lag >= game::StreamConfig{}.max_unacked) {
      EXPECT_GT(r.paced, 0u) << lag;
    } else {
      EXPECT_EQ(r.paced, 0u) << lag;
    }
  }
  for (std::uint32_t lag : {24u, 28u, 30u}) {
    const LagRun r = run_with_ack_lag(lag, 6, 400, true);
    EXPECT_EQ(r.decode_errors, 0u) << "lag " << lag << " + jitter";
    EXPECT_EQ(r.full_after_delta, 0u) << lag;
  }
}

TEST(SlowConsumer, DeliveredBaselineCodesAgainstThePreviousSnapshotWhateverTheAckLag) {
  // The server's default on TCP: once the client acknowledged once, the baseline is the newest
  // snapshot written to its socket, so acknowledgements however late (they still pace it) no
  // longer age the baseline. Control: the same runs without delivery reports code against the
  // acknowledged snapshot, lag + 1 snapshots back.
  for (std::uint32_t lag : {0u, 1u, 2u, 5u, 11u, 20u, 30u}) {
    for (const bool paced : {false, true}) {
      const LagRun r = run_with_ack_lag(lag, 0, 120, paced, true);
      EXPECT_EQ(r.decode_errors, 0u) << lag;
      EXPECT_EQ(r.full, lag + 1) << lag;  // until the first acknowledgement arrives
      EXPECT_EQ(r.full_after_delta, 0u) << lag;
      EXPECT_GT(r.deltas, 0u) << lag;
      // Paced, a lagging client skips snapshots, so "previous" is the previous one it was sent.
      EXPECT_EQ(r.oldest_baseline_age, 1) << "lag " << lag << (paced ? " paced" : "");
      const LagRun control = run_with_ack_lag(lag, 0, 120, paced, false);
      if (!paced) {
        EXPECT_EQ(control.oldest_baseline_age, static_cast<int>(lag) + 1) << lag;
      }
    }
  }
  for (std::uint32_t lag : {24u, 30u}) {
    const LagRun r = run_with_ack_lag(lag, 6, 400, true, true);
    EXPECT_EQ(r.decode_errors, 0u) << "lag " << lag << " + jitter";
    EXPECT_EQ(r.full_after_delta, 0u) << lag;
    EXPECT_EQ(r.oldest_baseline_age, 1) << lag;
  }
}

/// Over loopback: a spectator that handles each message only `delay` after it arrived (its
/// acknowledgements are that late), the delay swinging slowly across the depth of the history.
/// The server paces it (StreamConfig::max_unacked): fewer snapshots, every one a delta once the
/// first acknowledgement arrived.
TEST(SlowConsumer, SpectatorDecodingLateOverLoopbackNeverFailsADecode) {
  constexpr std::uint32_t kRate = 60;
  Fixture fx([](config::Config& c) {
    c.tick_rate_hz = kRate;
    c.snapshot_rate_hz = kRate;
  });
  WsClient ws;
  const v1::Welcome w = join(ws, fx.port(), codec::Role::kSpectator, "slow");
  sim::Scenario scenario;
  ASSERT_TRUE(codec::decode_world_spec(w.world(), scenario).ok());
  codec::SnapshotReceiver rx;
  rx.configure(scenario);

  const auto interval = std::chrono::duration<double>(1.0 / kRate);
  const auto start = Clock::now();
  // Delay from 20 to 44 snapshot intervals and back, period 4 s: acknowledgements lag behind
  // the server's history depth (32) part of the time and within it the rest.
  auto delay_now = [&] {
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    const double phase = std::fmod(t, 4.0) / 4.0;
    const double tri = phase < 0.5 ? 2 * phase : 2 - 2 * phase;
    return std::chrono::duration_cast<Clock::duration>(interval * (20 + 24 * tri));
  };
  std::deque<std::pair<Clock::time_point, std::string>> queue;
  std::map<std::uint64_t, std::uint32_t> index_of_tick;
  std::uint32_t decoded = 0, errors = 0, full = 0, full_after_delta = 0, edge = 0, snapshots = 0;
  std::uint32_t deltas = 0, against_previous = 0;  // the delivered baseline (SnapshotStreams)
  std::uint64_t previous_tick = 0;
  std::string bytes;
  while (Clock::now() - start < 8s) {
    const Receive r = ws.receive(bytes, 1ms);
    ASSERT_NE(r, Receive::kClosed) << "the server dropped the slow client";
    if (r == Receive::kMessage) queue.emplace_back(Clock::now(), bytes);
    while (!queue.empty() && queue.front().first + delay_now() <= Clock::now()) {
      v1::ServerMessage m;
      ASSERT_TRUE(codec::decode_server_message(bytes_of(queue.front().second), m).ok());
      queue.pop_front();
      if (m.has_ping()) {
        std::string pong;
        codec::encode_pong(m.ping().sender_time_us(), pong);
        ws.send(pong);
      }
      if (!m.has_delta_snapshot()) continue;
      const v1::DeltaSnapshot& d = m.delta_snapshot();
      index_of_tick[d.server_tick()] = snapshots++;
      if (d.baseline_tick() == 0) {
        ++full;
        full_after_delta += snapshots > full ? 1 : 0;  // a delta came before it
      } else {
        ++deltas;
        against_previous += d.baseline_tick() == previous_tick ? 1 : 0;
        if (index_of_tick.count(d.baseline_tick()) &&
            snapshots - 1 - index_of_tick[d.baseline_tick()] >= codec::SnapshotReceiver::kHistory - 1)
          ++edge;
      }
      previous_tick = d.server_tick();
      if (rx.receive(m).ok()) ++decoded;
      else ++errors;
      std::string ack;
      codec::encode_ack(rx.ack_tick(), nullptr, ack);
      ws.send(ack);
    }
  }
  std::printf(
      "slow consumer: %u snapshots, %u decoded, %u decode errors, %u full (%u after a delta), %u deltas at the "
      "history's edge\n",
      snapshots, decoded, errors, full, full_after_delta, edge);
  EXPECT_EQ(errors, 0u);
  EXPECT_GT(snapshots, 60u);
  // Without pacing it got every snapshot (480 in 8 s) and full ones whenever the lag went past
  // the history; paced, its rate follows its acknowledgements and its baselines stay in reach.
  EXPECT_LT(snapshots, 8u * kRate / 2);
  EXPECT_EQ(full_after_delta, 0u) << "no full snapshot once it had a baseline";
  EXPECT_EQ(edge, 0u) << "baselines never near the edge of the history";
  // Its acknowledgements are 20-44 snapshots late, yet its deltas are coded against the snapshot
  // just before (the server's delivered baseline: written in full to the socket, so it arrives
  // first). Coded against the acknowledged one, none would be.
  std::printf("slow consumer: %u of %u deltas against the snapshot before\n", against_previous, deltas);
  EXPECT_GT(deltas, 40u);
  EXPECT_GE(against_previous * 10, deltas * 9);
}

}  // namespace
}  // namespace flockstep::server::net
