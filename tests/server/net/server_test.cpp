// Loopback integration: an in-process server on an OS-chosen port, real WebSocket and HTTP
// clients (tools/bot). Timing is only used as a generous upper bound; rates are checked through
// server ticks, which are exact.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "../test_util.hpp"
#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "game/game.hpp"
#include "net/server.hpp"
#include "ops/metrics.hpp"
#include "bot.hpp"
#include "net_harness.hpp"
#include "ws_client.hpp"

namespace flockstep::server::net {
namespace {

using namespace std::chrono_literals;
using bot::Receive;
using bot::WsClient;

sim::Scenario test_world(std::int32_t boids = 40) {
  sim::Scenario s;
  s.name = "loopback";
  s.width = 120;
  s.height = 120;
  s.wrap = true;
  s.seed = 21;
  s.max_agents = boids + 128;
  sim::GroupSpec g;
  g.name = "boids";
  g.count = boids;
  s.obstacles = {{{30, 30}, 5}, {{90, 80}, 7}};
  s.groups = {g};
  return s;
}

/// An in-process server with a small world and a web root.
class TestServer {
 public:
  explicit TestServer(std::function<void(config::Config&)> adjust = {}, std::int32_t boids = 40) {
    web_.write("index.html", "<!doctype html><title>flockstep</title>");
    web_.write("viewer.wasm", std::string("\0asm\1\0\0\0", 8));
    web_.write("js/viewer.js", "console.log(1);");
    secret_ = web_.write("../outside-secret.txt", "top secret");
    cfg_.host = "127.0.0.1";
    cfg_.port = 0;  // the OS chooses
    cfg_.web_root = web_.path().string();
    cfg_.log_level = "debug";
    if (adjust) adjust(cfg_);
    server_ = std::make_unique<Server>(cfg_, test_world(boids), log_);
    server_->start();
    port_ = server_->port();
  }
  ~TestServer() {
    server_->shutdown();
    server_->wait();
  }
  std::uint16_t port() const { return port_; }
  Server& server() { return *server_; }
  /// What the server logged so far (read while its threads may still write).
  std::string log() const { return sink_.text(); }

 private:
  testing::TempDir web_;
  std::string secret_;
  config::Config cfg_;
  harness::LogSink sink_;
  std::ostream log_{&sink_};
  std::unique_ptr<Server> server_;
  std::uint16_t port_ = 0;
};

std::string join_bytes(codec::Role role, const std::string& name = "tester") {
  std::string b;
  codec::encode_join(codec::JoinRequest{role, name, {}}, b);
  return b;
}

std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

/// Snapshots are quantised deltas since the delta stream. These clients never acknowledge one, so the
/// server sends them full snapshots; decode one into the plain v1::Snapshot form the assertions
/// read (dequantised agents, the own craft exact from ServerMessage.player, which stays set).
/// False if it does not decode.
bool to_plain(v1::ServerMessage& m) {
  if (!m.has_delta_snapshot()) return true;
  sim::Scenario world = test_world();
  codec::SnapshotReceiver rx;
  rx.configure(world);  // geometry only: width, height, wrap (full snapshots need no prediction)
  const v1::DeltaSnapshot d = m.delta_snapshot();
  if (!rx.receive(m).ok()) return false;
  v1::Snapshot* s = m.mutable_snapshot();
  s->set_server_tick(d.server_tick());
  s->set_state_hash(d.state_hash());
  for (const sim::AgentView& a : rx.agents()) codec::encode_agent(a, *s->add_agents());
  return true;
}

/// Next message with the given payload (others, e.g. pings and events, are skipped).
bool next_of(WsClient& c, v1::ServerMessage::PayloadCase want, v1::ServerMessage& out,
             std::chrono::milliseconds timeout = 3s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string bytes;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (c.receive(bytes, std::max(left, 1ms)) != Receive::kMessage) return false;
    if (!codec::decode_server_message(bytes_of(bytes), out).ok() || !to_plain(out)) return false;
    if (out.payload_case() == want) return true;
    if (out.has_ping()) {  // a well-behaved client answers pings
      std::string pong;
      codec::encode_pong(out.ping().sender_time_us(), pong);
      c.send(pong);
    }
  }
  return false;
}

/// Connect and join; returns the Welcome.
v1::Welcome join(WsClient& c, std::uint16_t port, codec::Role role, const std::string& name = "tester") {
  EXPECT_TRUE(c.connect("127.0.0.1", port)) << c.error();
  EXPECT_TRUE(c.send(join_bytes(role, name)));
  // The Welcome is the first message of the game (an application Ping may only come later).
  std::string bytes;
  v1::ServerMessage m;
  EXPECT_EQ(c.receive(bytes, 3s), Receive::kMessage);
  EXPECT_TRUE(codec::decode_server_message(bytes_of(bytes), m).ok());
  EXPECT_EQ(m.payload_case(), v1::ServerMessage::kWelcome);
  return m.welcome();
}

int count_snapshots(WsClient& c, int n, std::chrono::milliseconds timeout = 3s) {
  v1::ServerMessage m;
  int got = 0;
  while (got < n && next_of(c, v1::ServerMessage::kSnapshot, m, timeout)) ++got;
  return got;
}

TEST(Server, PlayerAndSpectatorGetWelcomeThenSnapshotsAtTheConfiguredRate) {
  TestServer ts([](config::Config& c) {
    c.tick_rate_hz = 60;
    c.snapshot_rate_hz = 20;
  });
  WsClient p, s;
  const v1::Welcome wp = join(p, ts.port(), codec::Role::kPlayer, "pat");
  const v1::Welcome ws = join(s, ts.port(), codec::Role::kSpectator, "sam");
  EXPECT_EQ(wp.role(), v1::ROLE_PLAYER);
  EXPECT_NE(wp.entity_id(), 0u);
  EXPECT_EQ(ws.role(), v1::ROLE_SPECTATOR);
  EXPECT_EQ(ws.entity_id(), 0u);
  EXPECT_EQ(wp.snapshot_rate_hz(), 20u);
  EXPECT_EQ(wp.world().obstacles_size(), 2);

  for (WsClient* c : {&p, &s}) {
    std::vector<std::uint64_t> ticks;
    v1::ServerMessage m;
    const auto start = std::chrono::steady_clock::now();
    while (ticks.size() < 12 && next_of(*c, v1::ServerMessage::kSnapshot, m))
      ticks.push_back(m.snapshot().server_tick());
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(ticks.size(), 12u);
    int exact = 0;
    for (std::size_t i = 1; i < ticks.size(); ++i) {
      const std::uint64_t d = ticks[i] - ticks[i - 1];
      EXPECT_EQ(d % 3, 0u) << "snapshots only on every third tick at 60/20 Hz";
      exact += d == 3;
    }
    EXPECT_GE(exact, 9) << "at most a couple of latest-wins replacements on loopback";
    EXPECT_LT(took, 3s);  // 12 snapshots at 20 Hz take ~0.6 s; generous bound
  }
  // The player's craft is in the snapshot; nothing in it for the spectator.
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(s, v1::ServerMessage::kSnapshot, m));
  int players = 0;
  for (const auto& a : m.snapshot().agents()) players += a.kind() == v1::AGENT_KIND_PLAYER;
  EXPECT_EQ(players, 1);
}

TEST(Server, PlayerInputsMoveItsCraftAndAreAcknowledged) {
  TestServer ts;
  WsClient p;
  const v1::Welcome w = join(p, ts.port(), codec::Role::kPlayer);
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(p, v1::ServerMessage::kSnapshot, m));
  auto own = [&](const v1::Snapshot& s) -> const v1::Agent* {
    for (const auto& a : s.agents())
      if (a.id() == w.entity_id()) return &a;
    return nullptr;
  };
  ASSERT_NE(own(m.snapshot()), nullptr);
  const v1::Agent start = *own(m.snapshot());
  std::uint32_t seq = 0;
  std::vector<codec::InputFrame> window;
  const auto until = std::chrono::steady_clock::now() + 1500ms;
  std::uint32_t acked = 0;
  while (std::chrono::steady_clock::now() < until) {
    window.push_back({++seq, 0.0, 1.0});
    while (!window.empty() && window.front().sequence <= acked) window.erase(window.begin());
    std::string bytes;
    codec::encode_input(window, bytes);
    ASSERT_TRUE(p.send(bytes));
    std::string in;
    while (p.receive(in, 16ms) == Receive::kMessage) {
      v1::ServerMessage sm;
      if (codec::decode_server_message(bytes_of(in), sm).ok() && to_plain(sm) && sm.has_snapshot()) {
        acked = std::max(acked, sm.player().last_input_sequence());
        m = sm;
      }
    }
  }
  const v1::Agent* now = own(m.snapshot());
  ASSERT_NE(now, nullptr);
  double dx = std::abs(now->position().x() - start.position().x()),
         dy = std::abs(now->position().y() - start.position().y());
  dx = std::min(dx, 120 - dx);
  dy = std::min(dy, 120 - dy);
  EXPECT_GT(std::hypot(dx, dy), 2.0);
  EXPECT_GT(acked, seq / 2);  // the server applies them about as fast as they arrive
  EXPECT_LE(acked, seq);
}

TEST(Server, BadClientsAreClosedWithAReasonAndOthersKeepReceiving) {
  TestServer ts([](config::Config& c) {
    c.max_message_bytes = 1024;
    c.max_violations = 3;
  });
  WsClient healthy;
  join(healthy, ts.port(), codec::Role::kSpectator, "healthy");
  ASSERT_EQ(count_snapshots(healthy, 3), 3);

  // Garbage bytes: not a ClientMessage.
  WsClient garbage;
  ASSERT_TRUE(garbage.connect("127.0.0.1", ts.port()));
  ASSERT_TRUE(garbage.send(std::string("\xff\xfe\xfd\xfc garbage", 12)));
  ASSERT_TRUE(garbage.wait_closed(3s));
  EXPECT_EQ(garbage.close_code(), 1007);
  EXPECT_NE(garbage.close_reason().find("malformed"), std::string::npos) << garbage.close_reason();

  // Oversized: closed with 1009 by the WebSocket layer, before anything is decoded.
  WsClient big;
  join(big, ts.port(), codec::Role::kPlayer, "big");
  ASSERT_TRUE(big.send(std::string(4000, 'x')));
  ASSERT_TRUE(big.wait_closed(3s));
  EXPECT_EQ(big.close_code(), 1009);

  // Out-of-range values: clamped and counted; the third violation kicks.
  WsClient cheat;
  join(cheat, ts.port(), codec::Role::kPlayer, "cheat");
  for (std::uint32_t s = 1; s <= 3; ++s) {
    std::string b;
    codec::encode_input(std::vector<codec::InputFrame>{{s, 5.0, 1.0}}, b);
    cheat.send(b);
  }
  ASSERT_TRUE(cheat.wait_closed(3s));
  EXPECT_EQ(cheat.close_code(), 1008);
  EXPECT_NE(cheat.close_reason().find("out-of-range"), std::string::npos) << cheat.close_reason();

  // NaN: rejected at once.
  WsClient nan;
  join(nan, ts.port(), codec::Role::kPlayer, "nan");
  std::string b;
  codec::encode_input(std::vector<codec::InputFrame>{{1, std::nan(""), 1.0}}, b);
  nan.send(b);
  ASSERT_TRUE(nan.wait_closed(3s));
  EXPECT_EQ(nan.close_code(), 1007);
  EXPECT_NE(nan.close_reason().find("not_finite"), std::string::npos) << nan.close_reason();

  // Text frames and Input before Join break the protocol.
  WsClient text;
  ASSERT_TRUE(text.connect("127.0.0.1", ts.port()));
  text.send("hello", true);
  ASSERT_TRUE(text.wait_closed(3s));
  EXPECT_EQ(text.close_code(), 1008);
  WsClient early;
  ASSERT_TRUE(early.connect("127.0.0.1", ts.port()));
  b.clear();
  codec::encode_input(std::vector<codec::InputFrame>{{1, 0, 1}}, b);
  early.send(b);
  ASSERT_TRUE(early.wait_closed(3s));
  EXPECT_EQ(early.close_code(), 1008);
  EXPECT_NE(early.close_reason().find("before Join"), std::string::npos);

  // The well-behaved client never noticed.
  EXPECT_FALSE(healthy.closed());
  EXPECT_EQ(count_snapshots(healthy, 10), 10);
  const ops::ServerMetrics& m = ts.server().metrics();
  EXPECT_GE(m.malformed_messages.value(), 3u);
  EXPECT_EQ(m.kicked_too_big.value(), 1u);
  EXPECT_EQ(m.kicked_violations.value(), 1u);
  EXPECT_GE(m.violations.value(), 3u);
}

TEST(Server, AClientThatNeverJoinsIsClosedAfterTheHandshakeTimeout) {
  TestServer ts([](config::Config& c) { c.handshake_timeout_ms = 300; });
  WsClient lurker;
  ASSERT_TRUE(lurker.connect("127.0.0.1", ts.port()));
  ASSERT_TRUE(lurker.wait_closed(3s));
  EXPECT_EQ(lurker.close_code(), 1008);
  EXPECT_NE(lurker.close_reason().find("no Join"), std::string::npos);
}

TEST(Server, HttpEndpointsAndStaticFiles) {
  TestServer ts;
  const auto port = ts.port();
  auto r = bot::http_get("127.0.0.1", port, "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_EQ(bot::http_get("127.0.0.1", port, "/readyz").status, 200);
  r = bot::http_get("127.0.0.1", port, "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.content_type.find("text/plain; version=0.0.4"), std::string::npos);
  for (const char* name :
       {"flockstep_tick_duration_seconds_bucket", "flockstep_tick_overruns_total", "flockstep_clients{role=\"player\"}",
        "flockstep_agents{kind=\"flock\"} 40", "flockstep_ws_bytes_sent_total", "flockstep_snapshot_size_bytes",
        "flockstep_snapshots_dropped_total", "flockstep_malformed_messages_total", "flockstep_rtt_seconds"})
    EXPECT_NE(r.body.find(name), std::string::npos) << name;

  r = bot::http_get("127.0.0.1", port, "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  r = bot::http_get("127.0.0.1", port, "/viewer.wasm");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/wasm");
  EXPECT_EQ(r.body.size(), 8u);
  EXPECT_EQ(bot::http_get("127.0.0.1", port, "/js/viewer.js").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(bot::http_get("127.0.0.1", port, "/missing.js").status, 404);
  EXPECT_EQ(bot::http_request("127.0.0.1", port, "HEAD", "/viewer.wasm").status, 200);

  // Traversal in raw, encoded and mixed spellings never reaches the file next to the root.
  for (const char* t : {"/../outside-secret.txt", "/js/../../outside-secret.txt", "/%2e%2e/outside-secret.txt",
                        "/js/%2E%2E%2F%2E%2E%2Foutside-secret.txt", "/..%5coutside-secret.txt"}) {
    r = bot::http_get("127.0.0.1", port, t);
    EXPECT_EQ(r.status, 403) << t;
    EXPECT_EQ(r.body.find("top secret"), std::string::npos) << t;
  }
  EXPECT_EQ(bot::http_get("127.0.0.1", port, "/%00").status, 400);
  EXPECT_EQ(bot::http_get("127.0.0.1", port, "/ws").status, 426);
  EXPECT_EQ(bot::http_request("127.0.0.1", port, "POST", "/metrics").status, 405);
}

TEST(Server, MetricsPortServesOnlyMetricsAndTheGamePortNoLonger) {
  TestServer ts([](config::Config& c) { c.metrics_port = "0"; });  // 0: the OS chooses
  const auto game = ts.port();
  const auto ops = ts.server().metrics_port();
  ASSERT_NE(ops, 0);
  ASSERT_NE(ops, game);
  auto r = bot::http_get("127.0.0.1", ops, "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("flockstep_tick_duration_seconds_bucket"), std::string::npos);
  EXPECT_EQ(bot::http_get("127.0.0.1", ops, "/healthz").status, 200);
  for (const char* other : {"/", "/api/rooms", "/readyz", "/ws", "/api/admin/clients"})
    EXPECT_EQ(bot::http_get("127.0.0.1", ops, other).status, 404) << other;
  EXPECT_EQ(bot::http_get("127.0.0.1", game, "/metrics").status, 404);
  EXPECT_EQ(bot::http_get("127.0.0.1", game, "/healthz").status, 200);  // the game port serves the rest
  // Control: without metrics_port the game port serves /metrics (HttpEndpointsAndStaticFiles).
  TestServer plain;
  EXPECT_EQ(plain.server().metrics_port(), 0);
  EXPECT_EQ(bot::http_get("127.0.0.1", plain.port(), "/metrics").status, 200);
}

TEST(Server, ConnectionsOverTheLimitAreRefusedWith503) {
  TestServer ts([](config::Config& c) { c.max_connections = 2; });
  WsClient a, b;
  join(a, ts.port(), codec::Role::kSpectator);
  join(b, ts.port(), codec::Role::kSpectator);
  const auto r = bot::http_get("127.0.0.1", ts.port(), "/healthz");
  EXPECT_EQ(r.status, 503);
  EXPECT_GE(ts.server().metrics().connections_rejected.value(), 1u);
  a.close();
  // Once a slot is free again, requests are served.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    served = bot::http_get("127.0.0.1", ts.port(), "/healthz").status == 200;
    if (!served) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(served);
}

TEST(Server, ShutdownFlipsReadinessAndClosesClientsWith1001) {
  auto ts = std::make_unique<TestServer>();
  WsClient p, s;
  join(p, ts->port(), codec::Role::kPlayer);
  join(s, ts->port(), codec::Role::kSpectator);
  const auto start = std::chrono::steady_clock::now();
  ts->server().shutdown();
  for (WsClient* c : {&p, &s}) {
    v1::ServerMessage m;
    ASSERT_TRUE(next_of(*c, v1::ServerMessage::kClose, m, 3s));
    EXPECT_EQ(m.close().code(), v1::Close::CODE_SHUTDOWN);
    ASSERT_TRUE(c->wait_closed(3s));
    EXPECT_EQ(c->close_code(), 1001);
  }
  ts->server().wait();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_NE(ts->log().find("shutdown_complete sessions_left=0"), std::string::npos) << ts->log();
}

/// A plain TCP connection (POSIX), opened now and used later: lets a test talk to an HTTP
/// session that was accepted before the server began shutting down.
class RawConnection {
 public:
  explicit RawConnection(std::uint16_t port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawConnection() { close(fd_); }
  /// Send a request and return the status code of the response (0 on failure).
  int request(const std::string& text) {
    if (!ok_ || send(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return 0;
    timeval tv{3, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[512];
    const ssize_t n = recv(fd_, buf, sizeof buf - 1, 0);
    if (n < 12) return 0;
    return std::atoi(std::string(buf + 9, 3).c_str());  // "HTTP/1.1 503 ..."
  }

 private:
  int fd_;
  bool ok_ = false;
};

TEST(Server, ReadinessFlipsAtOnceWhenShutdownStarts) {
  TestServer ts;
  RawConnection early(ts.port());  // accepted while the server is still ready
  WsClient player;                 // keeps the drain going: it does not answer the close at once
  join(player, ts.port(), codec::Role::kPlayer);
  RawConnection probe(ts.port());
  EXPECT_EQ(probe.request("GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n"), 200);
  ts.server().shutdown();
  EXPECT_EQ(early.request("GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n"), 503);
  EXPECT_TRUE(player.wait_closed(3s));
  EXPECT_EQ(player.close_code(), 1001);
}

TEST(Server, AClientThatStopsReadingLosesOldSnapshotsThenIsDroppedOthersUnaffected) {
  // Big snapshots (2000 agents, ~160 KB each at 20 Hz) fill the loopback socket buffers of a
  // client that never reads within a second or two; then its write stalls.
  // The delta stream shrank them (~22 KB full, no budget, never acknowledged): 60 Hz keeps the pace.
  TestServer ts(
      [](config::Config& c) {
        c.max_send_lag_ms = 300;
        c.snapshot_budget_kbps = 0;
        c.snapshot_rate_hz = 60;
      },
      2000);
  WsClient healthy, stalled;
  join(healthy, ts.port(), codec::Role::kSpectator, "healthy");
  join(stalled, ts.port(), codec::Role::kSpectator, "stalled");  // from now on never reads
  const ops::ServerMetrics& m = ts.server().metrics();
  int healthy_snapshots = 0;
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (m.kicked_slow.value() == 0 && std::chrono::steady_clock::now() < deadline)
    healthy_snapshots += count_snapshots(healthy, 1, 1s);
  EXPECT_EQ(m.kicked_slow.value(), 1u);
  EXPECT_GT(m.snapshots_dropped.value(), 0u);  // latest wins before the drop
  EXPECT_GT(healthy_snapshots, 10);
  EXPECT_FALSE(healthy.closed());
  EXPECT_EQ(count_snapshots(healthy, 5), 5);
  EXPECT_NE(ts.log().find("reason=too_slow"), std::string::npos);
}

TEST(Server, BotToolDrivesPlayersAndSpectators) {
  TestServer ts([](config::Config& c) { c.bots = 2; });
  bot::BotConfig cfg;
  cfg.port = ts.port();
  cfg.connections = 6;
  cfg.players = 3;
  cfg.duration_s = 1.0;
  const bot::BotReport r = bot::run_bots(cfg);
  EXPECT_EQ(r.player.welcomed, 3u) << r.summary();
  EXPECT_EQ(r.spectator.welcomed, 3u) << r.summary();
  EXPECT_GE(r.player.snapshots, 3u * 10) << r.summary();
  EXPECT_GE(r.spectator.snapshots, 3u * 10) << r.summary();
  EXPECT_GT(r.player.inputs_sent, 0u);
  EXPECT_EQ(r.errors, 0u) << r.summary();
  EXPECT_EQ(r.max_agents_seen, 40u + 2u + 3u);  // boids + server bots + bot players
}

}  // namespace
}  // namespace flockstep::server::net
