// Frame once, write to many: a spectator's shared snapshot body is framed once (net/ws_frame.hpp)
// and written to every socket as is, beside Beast (net/frame_writer.hpp). These tests check the
// frame against a standard client (Beast's websocket client), that spectators of one view get
// one frame object, and that over loopback every spectator socket receives the same bytes.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "game/snapshot_streams.hpp"
#include "net/ws_frame.hpp"
#include "net_harness.hpp"
#include "raw_ws.hpp"

namespace flockstep::server::net {
namespace {

using namespace harness;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

TEST(FrameOnce, EveryLengthFormIsDecodedByBeastsWebSocketClient) {
  // A Beast server accepts a Beast client over loopback; then frames built by
  // make_binary_frame are written to the server's socket as raw bytes (as WsSession does) and
  // the client must read each as one binary message with the same payload.
  asio::io_context ioc;
  tcp::acceptor acceptor(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  websocket::stream<tcp::socket> server(ioc), client(ioc);
  acceptor.async_accept(server.next_layer(), [&](beast::error_code ec) {
    ASSERT_FALSE(ec) << ec.message();
    server.async_accept([](beast::error_code e) { ASSERT_FALSE(e) << e.message(); });
  });
  client.next_layer().async_connect(acceptor.local_endpoint(), [&](beast::error_code ec) {
    ASSERT_FALSE(ec) << ec.message();
    client.async_handshake("127.0.0.1", "/ws", [](beast::error_code e) { ASSERT_FALSE(e) << e.message(); });
  });
  ioc.run();
  ASSERT_TRUE(client.is_open());
  // Every length form: 7-bit (0, 125), 16-bit (126, 65,535) and 64-bit (65,536 and more).
  for (std::size_t n : {0u, 1u, 125u, 126u, 127u, 500u, 65535u, 65536u, 200000u}) {
    std::string payload(n, '\0');
    for (std::size_t i = 0; i < n; ++i) payload[i] = static_cast<char>((i * 131u + n) & 0xFF);
    const auto frame = make_binary_frame(payload);
    const std::size_t header = n < 126 ? 2 : n < 65536 ? 4 : 10;
    ASSERT_EQ(frame->size(), header + n) << n;
    EXPECT_EQ(binary_frame_header(n).size, header);
    std::thread writer([&] { asio::write(server.next_layer(), asio::buffer(*frame)); });
    beast::flat_buffer buf;
    beast::error_code ec;
    client.read(buf, ec);
    writer.join();
    ASSERT_FALSE(ec) << n << ": " << ec.message();
    EXPECT_TRUE(client.got_binary()) << n;
    EXPECT_EQ(beast::buffers_to_string(buf.data()), payload) << n;
  }
}

TEST(FrameOnce, SpectatorsOfOneViewShareOneFrameObject) {
  sim::World world(sim::canonical::flock(200));
  game::SnapshotStreams streams(world.scenario(), game::StreamConfig{});
  for (game::ConnectionId c : {1, 2, 3, 4}) streams.add(c);
  for (int snap = 0; snap < 5; ++snap) {
    for (int k = 0; k < 3; ++k) world.step();
    streams.begin(world, 0);
    game::Area around;
    around.kind = game::Area::Kind::kCircle;
    around.radius = 20;
    const std::int32_t t1 = streams.queue(1, nullptr), t2 = streams.queue(2, nullptr), t3 = streams.queue(3, nullptr);
    const std::int32_t player = streams.queue(4, &around);
    streams.encode_queued(sim::TaskRunner{});
    const auto w1 = streams.wire(t1);
    ASSERT_NE(w1, nullptr);
    EXPECT_EQ(w1.get(), streams.wire(t2).get()) << "built once, not per client";
    EXPECT_EQ(w1.get(), streams.wire(t3).get());
    const auto body = streams.body(t1);
    EXPECT_EQ(*w1, std::string(binary_frame_header(body->size()).view()) + *body) << "header + the shared body";
    EXPECT_EQ(streams.wire(player), nullptr) << "a player's message has its own suffix: framed by its session";
    streams.end();
    for (game::ConnectionId c : {1, 2, 3, 4}) streams.ack(c, world.tick(), nullptr);
  }
}

/// One raw spectator: the handshake by hand, then every byte the server sends, split into whole
/// frames (header included) so they can be compared byte for byte.
struct RawSpectator {
  raw::Fd fd;
  std::string buf;
  std::map<std::uint64_t, std::string> snapshot_frames;  // server tick -> the whole frame

  void open(std::uint16_t port, const std::string& name) {
    fd = raw::Fd(raw::connect_tcp(port));
    ASSERT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request(), &buf), 101);
    ASSERT_TRUE(raw::send_all(fd.get(), raw::frame(0x2, join_bytes(codec::Role::kSpectator, name))));
  }
  void pump() {
    raw::read_some(fd.get(), buf, 5ms);
    for (;;) {
      std::string copy = buf;
      const auto f = raw::pop_frame(copy);
      if (!f) return;
      const std::string whole = buf.substr(0, buf.size() - copy.size());
      buf = std::move(copy);
      v1::ServerMessage m;
      if (f->opcode == 0x2 && codec::decode_server_message(bytes_of(f->payload), m).ok() && m.has_delta_snapshot()) {
        snapshot_frames[m.delta_snapshot().server_tick()] = whole;
        EXPECT_EQ(whole, std::string(binary_frame_header(f->payload.size()).view()) + f->payload);
      }
    }
  }
};

TEST(FrameOnce, EverySpectatorSocketGetsTheSameBytesAndABeastClientDecodesThem) {
  Fixture fx;
  RawSpectator raw[3];
  for (int i = 0; i < 3; ++i) raw[i].open(fx.port(), "raw" + std::to_string(i));
  WsClient beast_client;
  join(beast_client, fx.port(), codec::Role::kSpectator, "beast");
  std::map<std::uint64_t, std::string> beast_payloads;  // server tick -> payload read through Beast
  const auto until = Clock::now() + 1500ms;
  std::string bytes;
  while (Clock::now() < until) {
    for (RawSpectator& r : raw) r.pump();
    while (beast_client.receive(bytes, 1ms) == Receive::kMessage) {
      v1::ServerMessage m;
      ASSERT_TRUE(codec::decode_server_message(bytes_of(bytes), m).ok());
      if (m.has_delta_snapshot()) beast_payloads[m.delta_snapshot().server_tick()] = bytes;
    }
  }
  // None of them acknowledges: all get the same full snapshot body, one frame for all.
  std::size_t common = 0;
  for (const auto& [tick, frame] : raw[0].snapshot_frames) {
    if (!raw[1].snapshot_frames.count(tick) || !raw[2].snapshot_frames.count(tick)) continue;
    ++common;
    EXPECT_EQ(raw[1].snapshot_frames[tick], frame) << tick;
    EXPECT_EQ(raw[2].snapshot_frames[tick], frame) << tick;
    if (beast_payloads.count(tick)) {
      std::string copy = frame;
      EXPECT_EQ(raw::pop_frame(copy)->payload, beast_payloads[tick]) << "the Beast client read the same message";
    }
  }
  EXPECT_GT(common, 10u);
  EXPECT_GT(beast_payloads.size(), 10u);
}

// ---------------------------------------------------------------------------------------------
// Rare acknowledgements: spectators acknowledge at the Welcome's interval, the server paces by it

struct AckRun {
  bot::BotReport report;
  std::uint64_t messages_received = 0;  ///< the server's flockstep_ws_messages_received_total
  std::uint64_t paced = 0;              ///< the server's flockstep_snapshots_paced_total
  double acks_per_snapshot() const {
    return static_cast<double>(report.spectator.acks_sent) / static_cast<double>(report.spectator.snapshots);
  }
  double received_per_snapshot() const {
    return static_cast<double>(messages_received) / static_cast<double>(report.spectator.snapshots);
  }
};

/// 20 decoding spectators (the bot speaks through client::ProtocolCore, as the viewer does) for
/// 3 s against a server whose Welcome says ack_every_snapshots = `every`.
AckRun run_ack_spectators(std::uint32_t every, double ack_delay_ms = 0) {
  Fixture fx([every](config::Config& c) {
    c.ack_every_snapshots = every;
    c.max_sessions_per_address = 0;
  });
  bot::BotConfig cfg;
  cfg.port = fx.port();
  cfg.connections = 20;
  cfg.players = 0;
  cfg.duration_s = 3;
  cfg.decode = true;
  cfg.ack_delay_ms = ack_delay_ms;
  AckRun run;
  run.report = bot::run_bots(cfg);
  run.messages_received = static_cast<std::uint64_t>(fx.metrics().messages_received.value());
  run.paced = static_cast<std::uint64_t>(fx.metrics().snapshots_paced.value());
  std::printf("[ ack every %u ] acks per snapshot %.3f, messages received per snapshot %.3f, paced %llu\n%s", every,
              run.acks_per_snapshot(), run.received_per_snapshot(), static_cast<unsigned long long>(run.paced),
              run.report.summary().c_str());
  return run;
}

TEST(RareAcks, SpectatorsAcknowledgeEveryTenthSnapshotAndStillGetEveryOneAsADelta) {
  const AckRun r = run_ack_spectators(10);
  const bot::RoleReport& s = r.report.spectator;
  ASSERT_EQ(s.welcomed, 20u) << r.report.summary();
  EXPECT_EQ(r.report.errors, 0u);
  EXPECT_EQ(r.report.decode_errors, 0u) << "every delta's baseline was at hand";
  EXPECT_GT(s.snapshots, 20u * 20u) << "about 60 each at 20 Hz";
  // What the clients did: the first snapshot, then one in ten.
  EXPECT_LT(r.acks_per_snapshot(), 0.2);
  EXPECT_GT(r.acks_per_snapshot(), 0.05);
  // What the server read: that, a Join and the pongs; and it did not slow anyone down.
  EXPECT_LT(r.received_per_snapshot(), 0.3);
  EXPECT_EQ(r.paced, 0u);
  EXPECT_LE(s.full_snapshots, 2u * 20u) << "full ones only on join, until the first ack arrives";
}

TEST(RareAcks, JoinersGetDeltasBeforeTheirFirstAckArrives) {
  // Acks 400 ms late (8 snapshot intervals): a client that declared delivered baselines in its
  // Join (client::ProtocolCore does) gets deltas from its second snapshot on; before, it got
  // about 9 full snapshots until its first ack arrived (the control is the streams test
  // StreamsDelivered.ControlWithoutTheDeclarationAClientThatNeverAcksGetsFullSnapshots).
  const AckRun r = run_ack_spectators(10, 400);
  ASSERT_EQ(r.report.spectator.welcomed, 20u) << r.report.summary();
  EXPECT_EQ(r.report.decode_errors, 0u);
  EXPECT_GT(r.report.spectator.snapshots, 20u * 20u);
  EXPECT_LE(r.report.spectator.full_snapshots, 2u * 20u) << r.report.summary();
}

TEST(RareAcks, ControlWithAnAckPerSnapshotTheServerReadsOnePerSnapshot) {
  const AckRun r = run_ack_spectators(1);
  ASSERT_EQ(r.report.spectator.welcomed, 20u) << r.report.summary();
  EXPECT_EQ(r.report.decode_errors, 0u);
  EXPECT_GT(r.acks_per_snapshot(), 0.95);
  EXPECT_GT(r.received_per_snapshot(), 0.95);
}

}  // namespace
}  // namespace flockstep::server::net
