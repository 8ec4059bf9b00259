// Reliability and security: nothing a client sends can hurt the server or another
// player. An in-process server on an OS-chosen port; attackers use raw sockets (raw_ws.hpp) so
// they can send what no client library would; the victim is a real WebSocket client.
// Timing is only ever a generous upper bound; rates are checked through server ticks.
#include <gtest/gtest.h>

#include "net_harness.hpp"

namespace flockstep::server::net {
namespace {

using namespace harness;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// Malformed-frame storm

/// One attacker connection: a kind of garbage and a tiny state machine driven by poll().
struct Attacker {
  raw::Fd fd;
  int kind = 0;
  bool upgraded = false;  // kinds that first complete the WebSocket handshake
  bool sent = false;
  bool closed = false;
  std::string in;
};

constexpr int kGarbageKinds = 10;

/// Kinds 0-6 complete the handshake first, then send their garbage frame.
std::string garbage_frame(int kind, std::uint32_t n) {
  switch (kind) {
    case 0: return raw::frame(0x2, std::string("\x0a\xff\xff\xff\xff\x0f garbage", 12));  // bad protobuf
    case 1: return raw::frame(0x1, "{\"join\": \"text frames are not the protocol\"}");   // text frame
    case 2: return raw::close_frame(static_cast<std::uint16_t>(n % 2 ? 1005 : 999));      // invalid close codes
    case 3: return raw::frame(0x3, "reserved opcode");                                    // opcode 3
    case 4: return raw::frame(0x2, "abc", true, true, 4);                                 // RSV1 without extension
    case 5: return raw::frame(0x2, join_bytes(codec::Role::kSpectator, "unmasked"), true, false);  // unmasked
    case 6: return raw::frame(0x0, "continuation without a start");                                // stray continuation
    default: return {};
  }
}

TEST(Abuse, MalformedFrameStormLeavesTheHealthyPlayerAndMemoryUntouched) {
  constexpr int kAttackers = 1000;
  Fixture fx([](config::Config& c) {
    c.max_connections = kAttackers + 100;
    c.max_sessions_per_address = 0;  // every attacker is 127.0.0.1: this test is about the frames
    c.handshake_timeout_ms = 1500;   // half handshakes are cut after this
  });
  // The test process holds both ends of every connection: ~2,000 descriptors plus the server's.
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < 4 * kAttackers) {
    rl.rlim_cur = std::min<rlim_t>(rl.rlim_max, 4 * kAttackers);
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  ASSERT_GE(rl.rlim_cur, static_cast<rlim_t>(2 * kAttackers + 200)) << "raise the hard limit: ulimit -Hn";

  HealthyPlayer healthy(fx.port());
  std::this_thread::sleep_for(1500ms);  // calm baseline
  const std::vector<double> calm = healthy.take_gaps();
  const std::size_t heap_before = heap_in_use();
  const std::size_t rss_before = rss_bytes();
  const std::int64_t connections_before = fx.metrics().connections.value();

  // The storm: every kind at once, all connections open together.
  std::vector<Attacker> attackers(kAttackers);
  const std::string handshake = raw::upgrade_request();
  std::string bad_version = handshake;
  bad_version.replace(bad_version.find("Version: 13"), 11, "Version: 8");
  for (int i = 0; i < kAttackers; ++i) {
    Attacker& a = attackers[static_cast<std::size_t>(i)];
    a.kind = i % kGarbageKinds;
    a.fd = raw::Fd(raw::connect_tcp(fx.port()));
    ASSERT_TRUE(a.fd.ok()) << "connect " << i;
    switch (a.kind) {
      case 7:
        raw::send_all(a.fd.get(), handshake.substr(0, handshake.size() / 2));
        a.sent = true;
        break;  // half handshake
      case 8:
        raw::send_all(a.fd.get(), std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 random bytes", 24));
        a.sent = true;
        break;
      case 9:
        raw::send_all(a.fd.get(), bad_version);
        a.sent = true;
        break;  // unsupported WebSocket version
      default: raw::send_all(a.fd.get(), handshake); break;
    }
  }
  // Drive them: finish handshakes, send the garbage frame, read until the server hangs up.
  const auto storm_start = Clock::now();
  const auto deadline = storm_start + 8s;
  std::size_t open = attackers.size();
  std::vector<pollfd> pfds;
  while (open > 0 && Clock::now() < deadline) {
    pfds.clear();
    for (const Attacker& a : attackers)
      if (!a.closed) pfds.push_back(pollfd{a.fd.get(), POLLIN, 0});
    if (poll(pfds.data(), pfds.size(), 50) < 0) break;
    std::size_t k = 0;
    for (std::uint32_t n = 0; n < attackers.size(); ++n) {
      Attacker& a = attackers[n];
      if (a.closed) continue;
      const pollfd& p = pfds[k++];
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t got = recv(a.fd.get(), buf, sizeof buf, 0);
      if (got <= 0) {
        a.closed = true;
        --open;
        a.fd.reset();
        continue;
      }
      a.in.append(buf, static_cast<std::size_t>(got));
      if (!a.sent && a.in.find("\r\n\r\n") != std::string::npos) {
        a.upgraded = a.in.rfind("HTTP/1.1 101", 0) == 0;
        raw::send_all(a.fd.get(), garbage_frame(a.kind, n));
        a.sent = true;
      }
      if (a.in.size() > 65536) a.in.erase(0, 32768);  // snapshots before the close, if any
    }
  }
  const double storm_s = std::chrono::duration<double>(Clock::now() - storm_start).count();
  const std::vector<double> stormy = healthy.take_gaps();
  std::size_t upgraded = 0;
  for (const Attacker& a : attackers) upgraded += a.upgraded;

  EXPECT_EQ(open, 0u) << "every garbage connection is closed by the server";
  EXPECT_GE(upgraded, 600u) << "kinds 0-6 reached the WebSocket layer";
  // Counts back to baseline once the server has run its destructors.
  for (int i = 0; i < 200 && fx.metrics().connections.value() != connections_before; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fx.metrics().connections.value(), connections_before);
  // The healthy player never noticed: connected, and its snapshots kept their cadence. A
  // correctness bound (a stalled fan-out would show gaps of seconds), not a speed assertion.
  std::this_thread::sleep_for(500ms);
  EXPECT_FALSE(healthy.disconnected());
  ASSERT_GT(calm.size(), 10u);
  ASSERT_GT(stormy.size(), 10u);
  const double calm_p99 = p99(calm), storm_p99 = p99(stormy);
  EXPECT_LT(storm_p99, 4 * calm_p99 + 250) << "calm p99 " << calm_p99 << " ms, storm p99 " << storm_p99 << " ms";
  // Memory: live heap back near where it was (sessions, buffers and parsers all freed).
  attackers.clear();
  attackers.shrink_to_fit();
  malloc_trim(0);
  const std::size_t heap_after = heap_in_use();
  EXPECT_LT(heap_after, heap_before + (8u << 20)) << "heap before " << heap_before << " after " << heap_after;
  healthy.stop();
  // Error logging is rate limited: about log_rate_per_s lines per second per event, plus a burst.
  const std::size_t ws_close_lines = fx.log().count(" ws_close ");
  const double allowed = 2.0 * fx.config().log_rate_per_s + fx.config().log_rate_per_s * (storm_s + 2.0);
  EXPECT_LT(static_cast<double>(ws_close_lines), allowed) << ws_close_lines << " ws_close lines in " << storm_s << " s";
  EXPECT_GT(fx.metrics().log_lines_suppressed.value(), 0u);
  EXPECT_GT(fx.metrics().malformed_messages.value(), 0u);
  std::printf(
      "[ storm ] %d connections in %.2f s; healthy snapshot p99 calm %.1f ms, storm %.1f ms; heap %zu -> %zu B; "
      "RSS %zu -> %zu KiB; ws_close log lines %zu, suppressed %llu\n",
      kAttackers, storm_s, calm_p99, storm_p99, heap_before, heap_after, rss_before / 1024, rss_bytes() / 1024,
      ws_close_lines, static_cast<unsigned long long>(fx.metrics().log_lines_suppressed.value()));
}

// ---------------------------------------------------------------------------------------------
// Oversized message

TEST(Abuse, OversizedFrameIsClosedWith1009FromItsHeaderWithoutBufferingIt) {
  Fixture fx([](config::Config& c) {
    c.max_message_bytes = 4096;
    c.handshake_timeout_ms = 1000;  // also the wait for the peer's close reply
  });
  WsClient watcher;
  join(watcher, fx.port(), codec::Role::kSpectator, "watcher");
  raw::Fd fd(raw::connect_tcp(fx.port()));
  std::string rest;
  ASSERT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request(), &rest), 101);
  // A header announcing 64 MiB followed by a few bytes: the server must not wait for (or
  // allocate) the payload; it refuses on the length alone.
  ASSERT_TRUE(raw::send_all(fd.get(), raw::frame(0x2, "only a few bytes", true, true, 0, std::uint64_t{64} << 20)));
  const auto sent = Clock::now();
  EXPECT_EQ(raw::read_close_code(fd.get(), rest, 3s), 1009);
  EXPECT_LT(Clock::now() - sent, 2s);
  raw::send_all(fd.get(), raw::close_frame(1009));  // answer the close like a client library would
  // Beast sends the close frame at once; the session's read handler (which counts) runs once the
  // close handshake is over or timed out (this peer never answers it).
  for (int i = 0; i < 300 && fx.metrics().kicked_too_big.value() == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fx.metrics().kicked_too_big.value(), 1u);
  EXPECT_LT(fx.metrics().bytes_received.value(), 4096u);
  // A fragmented message over the limit in total is refused as well.
  raw::Fd frag(raw::connect_tcp(fx.port()));
  rest.clear();
  ASSERT_EQ(raw::http_exchange(frag.get(), raw::upgrade_request(), &rest), 101);
  const std::string piece(3000, 'x');
  raw::send_all(frag.get(), raw::frame(0x2, piece, false));
  raw::send_all(frag.get(), raw::frame(0x0, piece, false));
  EXPECT_EQ(raw::read_close_code(frag.get(), rest, 3s), 1009);
  // The watcher never noticed.
  v1::ServerMessage m;
  EXPECT_TRUE(next_of(watcher, kSnap, m));
  EXPECT_FALSE(watcher.closed());
}

// ---------------------------------------------------------------------------------------------
// Semantic abuse

/// Raw ClientMessage{join{role = `role`, display_name = "x"}} with any role number.
std::string join_with_role(std::uint8_t role) {
  const std::string join = std::string("\x08", 1) + static_cast<char>(role) + std::string("\x12\x01x", 3);
  return std::string("\x0a", 1) + static_cast<char>(join.size()) + join;
}

TEST(Abuse, SemanticGarbageIsNeverAppliedIsCountedAndKicks) {
  Fixture fx([](config::Config& c) { c.max_violations = 3; });
  struct Case {
    const char* what;
    std::string first;   // sent after the WebSocket handshake
    std::string second;  // sent after a Welcome, if not empty
    std::uint16_t close;
    const char* reason;
  };
  const std::string player = join_bytes(codec::Role::kPlayer, "p");
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<Case> cases = {
      {"unknown role enum", join_with_role(7), {}, 1007, "bad_enum"},
      {"invalid UTF-8 name", join_bytes(codec::Role::kPlayer, "bad\xc3\x28name"), {}, 1007, "bad_name"},
      {"overlong UTF-8 name", join_bytes(codec::Role::kPlayer, "\xc0\xaf"), {}, 1007, "bad_name"},
      {"unknown payload field", std::string("\x7a\x01\x00", 3), {}, 1007, "empty"},
      {"Inf turn", player, input_bytes({{1, inf, 1}}), 1007, "not_finite"},
      {"-Inf throttle", player, input_bytes({{1, 0, -inf}}), 1007, "not_finite"},
      {"out-of-order sequences", player, input_bytes({{5, 0, 1}, {4, 0, 1}}), 1007, "bad_sequence"},
      {"zero sequence", player, input_bytes({{0, 0, 1}}), 1007, "bad_sequence"},
  };
  for (const Case& c : cases) {
    WsClient ws;
    ASSERT_TRUE(ws.connect("127.0.0.1", fx.port())) << c.what;
    ws.send(c.first);
    if (!c.second.empty()) {
      v1::ServerMessage m;
      ASSERT_TRUE(next_of(ws, v1::ServerMessage::kWelcome, m)) << c.what;
      ws.send(c.second);
    }
    ASSERT_TRUE(ws.wait_closed(3s)) << c.what;
    EXPECT_EQ(ws.close_code(), c.close) << c.what;
    EXPECT_NE(ws.close_reason().find(c.reason), std::string::npos) << c.what << ": " << ws.close_reason();
  }

  // Huge values are clamped (never applied as sent): full throttle at most, so the craft never
  // exceeds its terminal speed thrust / linear_drag. The third offending message kicks.
  WsClient cheat;
  const v1::Welcome w = join(cheat, fx.port(), codec::Role::kPlayer, "cheat");
  const behavior::CraftParams craft = small_world().player_craft;
  const double max_speed = craft.thrust / craft.linear_drag;  // terminal speed at full throttle, m/s
  std::uint32_t seq = 0;
  auto huge_window = [&seq] {
    std::vector<codec::InputFrame> f;
    for (int i = 0; i < 16; ++i) f.push_back({++seq, (i % 2 ? 1e300 : -1e300), 1e300});
    return input_bytes(f);
  };
  for (int msg = 0; msg < 2; ++msg) cheat.send(huge_window());
  double fastest = 0;
  int snapshots = 0;
  const auto until = Clock::now() + 1500ms;
  v1::ServerMessage m;
  while (Clock::now() < until && next_of(cheat, kSnap, m, 1s)) {
    ++snapshots;
    const v1::OwnCraft& own = m.player().own();  // the craft's exact state
    ASSERT_EQ(own.id(), w.entity_id());
    ASSERT_TRUE(std::isfinite(own.velocity().x()) && std::isfinite(own.velocity().y()));
    fastest = std::max(fastest, std::hypot(own.velocity().x(), own.velocity().y()));
  }
  EXPECT_GT(snapshots, 10);
  EXPECT_GT(fastest, 0.5) << "the clamped input was applied (full throttle)";
  EXPECT_LE(fastest, max_speed + 1e-6);
  EXPECT_FALSE(cheat.closed()) << "two violations are tolerated with max_violations=3";
  cheat.send(huge_window());
  ASSERT_TRUE(cheat.wait_closed(3s));
  EXPECT_EQ(cheat.close_code(), 1008);
  EXPECT_NE(cheat.close_reason().find("out-of-range"), std::string::npos) << cheat.close_reason();

  // Everything is visible in /metrics.
  const auto metrics = bot::http_get("127.0.0.1", fx.port(), "/metrics").body;
  auto value = [&metrics](const std::string& series) {
    const auto p = metrics.find("\n" + series + " ");
    return p == std::string::npos ? -1.0 : std::atof(metrics.c_str() + p + series.size() + 2);
  };
  EXPECT_GE(value("flockstep_malformed_messages_total"), static_cast<double>(cases.size()));
  EXPECT_EQ(value("flockstep_input_violations_total"), 3.0);
  EXPECT_EQ(value("flockstep_clients_dropped_total{reason=\"violations\"}"), 1.0);
  EXPECT_GE(value("flockstep_clients_dropped_total{reason=\"malformed\"}"), static_cast<double>(cases.size()));
}

TEST(Abuse, ReplayedInputSequencesAreAppliedOnce) {
  Fixture fx;
  WsClient p;
  join(p, fx.port(), codec::Role::kPlayer, "replay");
  // The same window of four frames, sent ten times (and an older one after it): each frame is
  // applied exactly once, in order, and the acknowledged sequence never goes backwards.
  const std::string window = input_bytes({{1, 0.1, 1}, {2, 0.2, 1}, {3, 0.3, 1}, {4, 0.4, 1}});
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(p.send(window));
  ASSERT_TRUE(p.send(input_bytes({{2, 1, 1}, {3, 1, 1}})));
  std::uint32_t acked = 0;
  v1::ServerMessage m;
  for (int i = 0; i < 10 && next_of(p, kSnap, m); ++i) {
    EXPECT_GE(m.player().last_input_sequence(), acked);
    acked = std::max(acked, m.player().last_input_sequence());
  }
  EXPECT_EQ(acked, 4u);
  EXPECT_EQ(fx.metrics().inputs_applied.value(), 4u);
  EXPECT_FALSE(p.closed()) << "resending a window is normal, not a violation";
}

// ---------------------------------------------------------------------------------------------
// Input flood

TEST(Abuse, InputFloodAtTenTimesTheTickRateIsCappedAndOthersKeepTheirCadence) {
  Fixture fx([](config::Config& c) {
    c.tick_rate_hz = 30;
    c.snapshot_rate_hz = 10;
  });
  WsClient watcher, flooder;
  join(watcher, fx.port(), codec::Role::kSpectator, "watcher");
  join(flooder, fx.port(), codec::Role::kPlayer, "flooder");
  const std::uint64_t tick0 =
      fx.server().metrics().ticks.value() > 0 ? static_cast<std::uint64_t>(fx.server().metrics().ticks.value()) : 0;
  const std::uint64_t received0 = fx.metrics().messages_received.value();
  // 300 messages per second (10x the tick rate) for 2 s, each with a new frame.
  std::atomic<bool> done{false};
  std::uint32_t sent = 0;
  std::thread flood([&] {
    auto next = Clock::now();
    while (!done) {
      ++sent;
      flooder.send(input_bytes({{sent, 0.5, 1}}));
      next += std::chrono::microseconds(3333);
      std::this_thread::sleep_until(next);
    }
  });
  std::vector<std::uint64_t> ticks;
  v1::ServerMessage m;
  const auto until = Clock::now() + 2s;
  while (Clock::now() < until && next_of(watcher, kSnap, m)) ticks.push_back(m.delta_snapshot().server_tick());
  done = true;
  flood.join();
  const std::uint64_t ticks_run = static_cast<std::uint64_t>(fx.server().metrics().ticks.value()) - tick0;
  // Processed inputs are capped: at most one frame per tick reaches the world, and the token
  // bucket drops what is over input_rate_hz before it is even decoded.
  EXPECT_LE(fx.metrics().inputs_applied.value(), ticks_run + 2);
  EXPECT_GT(fx.metrics().inputs_rate_limited.value(), static_cast<std::uint64_t>(sent) / 3);
  const double accepted = static_cast<double>(fx.metrics().messages_received.value() - received0 -
                                              fx.metrics().inputs_rate_limited.value());
  EXPECT_LE(accepted, fx.config().input_burst + fx.config().input_rate_hz * 2.6 + 5);
  EXPECT_FALSE(flooder.closed()) << "flooding is dropped and counted, not fatal";
  // The watcher's snapshots kept the exact cadence (every third tick at 30/10 Hz).
  ASSERT_GE(ticks.size(), 15u);
  int exact = 0;
  for (std::size_t i = 1; i < ticks.size(); ++i) exact += ticks[i] - ticks[i - 1] == 3;
  EXPECT_GE(exact, static_cast<int>(ticks.size()) - 3);
  std::printf("[ flood ] sent %u inputs in 2 s; accepted %.0f; applied %llu over %llu ticks\n", sent, accepted,
              static_cast<unsigned long long>(fx.metrics().inputs_applied.value()),
              static_cast<unsigned long long>(ticks_run));
}

// ---------------------------------------------------------------------------------------------
// Slowloris, handshake and idle timeouts

TEST(Abuse, SlowlorisRequestIsCutAtTheHandshakeTimeout) {
  Fixture fx([](config::Config& c) { c.handshake_timeout_ms = 400; });
  raw::Fd fd(raw::connect_tcp(fx.port()));
  const std::string request = raw::upgrade_request("/ws", "X-Padding: " + std::string(200, 'a') + "\r\n");
  const auto start = Clock::now();
  bool cut = false;
  std::string got;
  // One byte every 20 ms: the whole request would take ~5 s.
  for (char ch : request) {
    if (!raw::send_all(fd.get(), std::string_view(&ch, 1)) || !raw::read_some(fd.get(), got, 20ms)) {
      cut = true;
      break;
    }
  }
  if (!cut) cut = raw::wait_eof(fd.get(), 2s);
  const auto took = Clock::now() - start;
  EXPECT_TRUE(cut);
  EXPECT_GE(took, 350ms);
  EXPECT_LT(took, 3s);
  EXPECT_EQ(got.find("101"), std::string::npos);
  for (int i = 0; i < 100 && fx.metrics().connections.value() != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fx.metrics().connections.value(), 0);
}

TEST(Abuse, IdleTimeoutClosesSilentPeersAndKeepsThoseThatAnswerPings) {
  Fixture fx([](config::Config& c) { c.idle_timeout_ms = 1000; });
  // Silent: upgrades, joins, then never sends another byte (not even a pong).
  raw::Fd silent(raw::connect_tcp(fx.port()));
  std::string rest;
  ASSERT_EQ(raw::http_exchange(silent.get(), raw::upgrade_request(), &rest), 101);
  ASSERT_TRUE(raw::send_all(silent.get(), raw::frame(0x2, join_bytes(codec::Role::kSpectator, "silent"))));
  // Answering: a real client whose WebSocket layer answers the server's pings, sending nothing else.
  WsClient answering;
  join(answering, fx.port(), codec::Role::kSpectator, "answering");
  const auto start = Clock::now();
  EXPECT_TRUE(raw::wait_eof(silent.get(), 4s)) << "the silent peer is closed after the idle timeout";
  const auto took = Clock::now() - start;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 3500ms);
  // Keep the answering client for three idle periods more, reading only at the end.
  std::this_thread::sleep_for(3s);
  v1::ServerMessage m;
  EXPECT_TRUE(next_of(answering, kSnap, m));
  EXPECT_FALSE(answering.closed());
}

// ---------------------------------------------------------------------------------------------
// Slow consumer among 50 bots

constexpr const char* kSlowAdmin = "Bearer slow-consumer-token";

/// A stalled spectator's server: 3,000 boids make full snapshots of a few KB (the stalled client
/// never acknowledges, so full ones are all it gets), so its socket buffers fill within a second
/// or two; with 40 boids, minutes.
std::unique_ptr<Fixture> stalled_fixture(std::uint32_t send_queue_snapshots, std::uint32_t max_send_lag_ms) {
  return std::make_unique<Fixture>(
      [&](config::Config& c) {
        c.max_send_lag_ms = max_send_lag_ms;
        c.send_queue_snapshots = send_queue_snapshots;
        c.socket_send_buffer_bytes = 65536;  // else the kernel buffers up to tcp_wmem (4 MiB) first
        c.admin_token = std::string(kSlowAdmin).substr(7);
      },
      3000);
}

/// The largest of five full snapshots a fresh spectator of the fixture receives, frame header
/// included: what one queued snapshot of the stalled client weighs.
std::size_t full_snapshot_bytes(std::uint16_t port) {
  WsClient probe;
  join(probe, port, codec::Role::kSpectator, "probe");
  std::size_t largest = 0;
  std::string bytes;
  v1::ServerMessage m;
  for (int seen = 0; seen < 5 && probe.receive(bytes, 5s) == Receive::kMessage;) {
    if (!codec::decode_server_message(bytes_of(bytes), m).ok() || !m.has_delta_snapshot()) continue;
    EXPECT_EQ(m.delta_snapshot().baseline_tick(), 0u) << "a client that never acknowledges gets full snapshots";
    largest = std::max(largest, bytes.size() + 14);  // + the largest binary frame header
    ++seen;
  }
  EXPECT_GT(largest, 1024u) << "a full snapshot of 3,000 boids is KBs (the spectator's area of them)";
  return largest;
}

/// What the admin API showed of the stalled client's send queue while it was connected.
struct StalledQueue {
  std::uint64_t peak_bytes = 0;     ///< the largest queued_peak_bytes seen
  std::uint64_t most_messages = 0;  ///< the largest queued_messages seen
  int polls = 0;                    ///< lists that named the stalled client
};

/// Poll /api/admin/clients every 50 ms until the server kicks a client as too slow or `ticks`
/// server ticks pass. Patience is counted in the server's ticks, not in wall time: what fills the
/// stalled socket is the snapshots sent to it, one per tick, and a sanitizer build sharing two
/// cores with another test can tick 3,000 boids eight times slower than real time (CI once saw
/// 2.5 snapshots a second, and a 9 s wall deadline expired before the buffers were full). The
/// wall cap only stops a server that no longer ticks at all.
StalledQueue watch_stalled(Fixture& fx, std::int64_t ticks, const std::function<bool(const StalledQueue&)>& enough) {
  StalledQueue q;
  const std::int64_t tick_start = fx.metrics().ticks.value();
  const auto wall_cap = Clock::now() + 120s;
  while (fx.metrics().kicked_slow.value() == 0 && fx.metrics().ticks.value() - tick_start < ticks &&
         Clock::now() < wall_cap && !enough(q)) {
    for (const auto& c : admin_clients(fx.port(), kSlowAdmin)) {
      if (c.value("name", std::string()) != "stalled") continue;
      q.peak_bytes = std::max(q.peak_bytes, c.value("queued_peak_bytes", std::uint64_t{0}));
      q.most_messages = std::max(q.most_messages, c.value("queued_messages", std::uint64_t{0}));
      ++q.polls;
    }
    std::this_thread::sleep_for(50ms);
  }
  return q;
}

/// Connect the stalled client: a 4 KiB receive buffer, joined as a spectator, never read again.
raw::Fd connect_stalled(std::uint16_t port) {
  raw::Fd stalled(raw::connect_tcp(port, 4096));
  std::string rest;
  EXPECT_EQ(raw::http_exchange(stalled.get(), raw::upgrade_request(), &rest), 101);
  EXPECT_TRUE(raw::send_all(stalled.get(), raw::frame(0x2, join_bytes(codec::Role::kSpectator, "stalled"))));
  return stalled;
}

/// What send_queue_snapshots full snapshots weigh (a quarter more for their spread), plus 4 KiB
/// for the small messages a stalled spectator is sent in these few seconds (pings and events of
/// tens of bytes; send_queue_messages caps their count and kicks beyond it): the bound the
/// stalled client's queue must stay within.
std::uint64_t queue_bound(const config::Config& c, std::size_t snapshot_bytes) {
  return c.send_queue_snapshots * snapshot_bytes * 5 / 4 + 4096;
}

TEST(Abuse, ASlowConsumerAmongFiftyBotsIsBoundedCountedAndDroppedOthersUnaffected) {
  auto fx = stalled_fixture(2, 500);
  const std::size_t snapshot_bytes = full_snapshot_bytes(fx->port());
  raw::Fd stalled = connect_stalled(fx->port());
  bot::BotConfig cfg;
  cfg.port = fx->port();
  cfg.connections = 50;
  cfg.players = 10;
  cfg.duration_s = 6;
  cfg.decode = false;
  bot::BotReport report;
  std::thread bots([&] { report = bot::run_bots(cfg); });
  const StalledQueue q = watch_stalled(*fx, 200, [](const StalledQueue&) { return false; });
  bots.join();
  EXPECT_EQ(fx->metrics().kicked_slow.value(), 1u);
  EXPECT_GT(fx->metrics().snapshots_dropped.value(), 0u) << "latest wins before the drop";
  EXPECT_TRUE(raw::wait_eof(stalled.get(), 3s));
  // The 50 bots saw nothing: all welcomed, no errors, nobody else dropped, snapshots flowing.
  EXPECT_EQ(report.errors, 0u) << report.summary();
  EXPECT_EQ(report.player.welcomed + report.spectator.welcomed, 50u) << report.summary();
  EXPECT_EQ(report.close_codes.count(1008), 0u) << report.summary();
  // Everyone kept receiving (a count, not a rate: sanitizer builds tick 3,000 boids slowly).
  EXPECT_GE(report.spectator.snapshots + report.player.snapshots, 50u * 10u) << report.summary();
  // Bounded: what the server held for the stalled client, as its admin API reported it, stayed
  // within send_queue_snapshots snapshots (plus a few small messages), and it did fill up to
  // a snapshot, so the bound was reached for, not met by an empty queue.
  ASSERT_GT(q.polls, 0) << "the admin list never named the stalled client";
  EXPECT_GE(q.peak_bytes, snapshot_bytes * 3 / 4);
  EXPECT_LE(q.peak_bytes, queue_bound(fx->config(), snapshot_bytes)) << "full snapshot " << snapshot_bytes << " B";
  EXPECT_LE(q.most_messages, fx->config().send_queue_snapshots + fx->config().send_queue_messages);
  std::printf(
      "[ slow consumer ] full snapshot %zu B; stalled queue peak %llu B over %d polls; dropped %llu; bots: %s\n",
      snapshot_bytes, static_cast<unsigned long long>(q.peak_bytes), q.polls,
      static_cast<unsigned long long>(fx->metrics().snapshots_dropped.value()), report.summary().c_str());
}

TEST(Abuse, ControlWithARoomierSendQueueTheStalledClientHoldsMoreThanTheBound) {
  // The same stalled client with room for eight snapshots and a lag limit it cannot reach: the
  // admin API then shows its queue beyond what two snapshots weigh, so the bound above measures
  // send_queue_snapshots at work and not a queue that could never grow.
  auto fx = stalled_fixture(8, 60000);
  const std::size_t snapshot_bytes = full_snapshot_bytes(fx->port());
  config::Config two = fx->config();
  two.send_queue_snapshots = 2;
  const std::uint64_t bound = queue_bound(two, snapshot_bytes);
  raw::Fd stalled = connect_stalled(fx->port());
  const StalledQueue q = watch_stalled(*fx, 400, [&](const StalledQueue& s) { return s.peak_bytes > bound; });
  EXPECT_EQ(fx->metrics().kicked_slow.value(), 0u);
  EXPECT_GT(q.peak_bytes, bound) << "full snapshot " << snapshot_bytes << " B";
}

// ---------------------------------------------------------------------------------------------
// Connection storm above max_connections

TEST(Abuse, ConnectionStormAboveMaxConnectionsGets503BeforeUpgradeAndCountsReturnToBaseline) {
  Fixture fx([](config::Config& c) {
    c.max_connections = 40;
    c.max_sessions_per_address = 0;  // one address: the limit under test is max_connections
    c.handshake_timeout_ms = 10000;
  });
  std::vector<raw::Fd> held;
  for (int i = 0; i < 40; ++i) {
    held.emplace_back(raw::connect_tcp(fx.port()));
    ASSERT_TRUE(held.back().ok());
  }
  for (int i = 0; i < 100 && fx.metrics().connections.value() < 40; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(fx.metrics().connections.value(), 40);
  // 200 more, each trying to upgrade: all refused with 503 before any WebSocket exists.
  int refused = 0;
  for (int i = 0; i < 200; ++i) {
    raw::Fd fd(raw::connect_tcp(fx.port()));
    refused += raw::http_exchange(fd.get(), raw::upgrade_request()) == 503;
  }
  EXPECT_EQ(refused, 200);
  EXPECT_EQ(fx.metrics().connections_rejected.value(), 200u);
  EXPECT_EQ(fx.metrics().connections.value(), 40);
  held.clear();
  for (int i = 0; i < 300 && fx.metrics().connections.value() != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fx.metrics().connections.value(), 0);
  WsClient late;
  const v1::Welcome w = join(late, fx.port(), codec::Role::kSpectator, "late");
  EXPECT_NE(w.player_id(), 0u);
}

}  // namespace
}  // namespace flockstep::server::net
