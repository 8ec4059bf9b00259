// Reliability and security: nothing a client sends can hurt the server or another
// player. An in-process server on an OS-chosen port; attackers use raw sockets (raw_ws.hpp) so
// they can send what no client library would; the victim is a real WebSocket client.
// Timing is only ever a generous upper bound; rates are checked through server ticks.
#include <gtest/gtest.h>

#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
// From <sanitizer/allocator_interface.h>, which GCC does not install: live bytes in ASan's heap
// (ASan replaces malloc, so mallinfo2 knows nothing).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

#include "../test_util.hpp"
#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "net/access.hpp"
#include "net/server.hpp"
#include "ops/metrics.hpp"
#include "bot.hpp"
#include "raw_ws.hpp"
#include "ws_client.hpp"

namespace flockstep::server::net {
namespace {

using namespace std::chrono_literals;
using bot::Receive;
using bot::WsClient;
using Clock = std::chrono::steady_clock;

/// Small wrapped world without pursuers (no captures, so a craft's life is never reset).
sim::Scenario small_world(std::int32_t boids = 40) {
  sim::Scenario s;
  s.name = "abuse";
  s.width = 120;
  s.height = 120;
  s.wrap = true;
  s.seed = 8;
  s.max_agents = boids + 128;
  sim::GroupSpec g;
  g.name = "boids";
  g.count = boids;
  s.groups = {g};
  return s;
}

/// Thread-safe log sink: the logger writes from server threads while a test may read.
class LogSink : public std::streambuf {
 public:
  std::string text() const {
    std::lock_guard lock(mutex_);
    return text_;
  }
  std::size_t count(std::string_view needle) const {
    const std::string t = text();
    std::size_t n = 0;
    for (auto p = t.find(needle); p != std::string::npos; p = t.find(needle, p + 1)) ++n;
    return n;
  }

 protected:
  int overflow(int c) override {
    if (c != EOF) {
      std::lock_guard lock(mutex_);
      text_.push_back(static_cast<char>(c));
    }
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard lock(mutex_);
    text_.append(s, static_cast<std::size_t>(n));
    return n;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

/// An in-process server for one test.
class Fixture {
 public:
  explicit Fixture(const std::function<void(config::Config&)>& adjust = {}, std::int32_t boids = 40)
      : log_(&sink_) {
    cfg_.host = "127.0.0.1";
    cfg_.port = 0;
    cfg_.log_level = "info";
    if (adjust) adjust(cfg_);
    server_ = std::make_unique<Server>(cfg_, small_world(boids), log_);
    server_->start();
  }
  ~Fixture() {
    server_->shutdown();
    server_->wait();
  }
  std::uint16_t port() const { return server_->port(); }
  Server& server() { return *server_; }
  const ops::ServerMetrics& metrics() { return server_->metrics(); }
  const LogSink& log() const { return sink_; }
  const config::Config& config() const { return cfg_; }

 private:
  config::Config cfg_;
  LogSink sink_;
  std::ostream log_;
  std::unique_ptr<Server> server_;
};

/// Snapshots are quantised DeltaSnapshots. These tests never acknowledge one, so every
/// snapshot they get is a full one (baseline_tick 0).
constexpr auto kSnap = v1::ServerMessage::kDeltaSnapshot;

std::span<const std::byte> bytes_of(const std::string& s) { return {reinterpret_cast<const std::byte*>(s.data()), s.size()}; }

std::string join_bytes(codec::Role role, const std::string& name, const std::string& token = {}) {
  std::string b;
  codec::encode_join(codec::JoinRequest{role, name, token}, b);
  return b;
}

std::string input_bytes(std::vector<codec::InputFrame> frames) {
  std::string b;
  codec::encode_input(frames, b);
  return b;
}

/// Next message of the wanted kind (answers pings on the way).
bool next_of(WsClient& c, v1::ServerMessage::PayloadCase want, v1::ServerMessage& out,
             std::chrono::milliseconds timeout = 3s) {
  const auto deadline = Clock::now() + timeout;
  std::string bytes;
  while (Clock::now() < deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (c.receive(bytes, std::max(left, 1ms)) != Receive::kMessage) return false;
    if (!codec::decode_server_message(bytes_of(bytes), out).ok()) return false;
    if (out.payload_case() == want) return true;
    if (out.has_ping()) {
      std::string pong;
      codec::encode_pong(out.ping().sender_time_us(), pong);
      c.send(pong);
    }
  }
  return false;
}

v1::Welcome join(WsClient& c, std::uint16_t port, codec::Role role, const std::string& name,
                 const std::string& token = {}) {
  EXPECT_TRUE(c.connect("127.0.0.1", port)) << c.error();
  EXPECT_TRUE(c.send(join_bytes(role, name, token)));
  v1::ServerMessage m;
  EXPECT_TRUE(next_of(c, v1::ServerMessage::kWelcome, m));
  return m.welcome();
}

/// Bytes of heap in use (live allocations, not what the allocator keeps cached).
std::size_t heap_in_use() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

/// Resident set size of this process, bytes (reported, not asserted: the allocator may keep pages).
std::size_t rss_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

double p99(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(0.99 * static_cast<double>(v.size())))];
}

/// A player that plays (30 Hz inputs) on its own thread and records snapshot inter-arrival times.
class HealthyPlayer {
 public:
  explicit HealthyPlayer(std::uint16_t port) {
    welcome_ = join(client_, port, codec::Role::kPlayer, "healthy");
    thread_ = std::thread([this] { run(); });
  }
  ~HealthyPlayer() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  /// Start a new measurement window; returns the gaps (ms) of the previous one.
  std::vector<double> take_gaps() {
    std::lock_guard lock(mutex_);
    std::vector<double> out;
    out.swap(gaps_);
    return out;
  }
  bool disconnected() const { return disconnected_; }
  std::uint64_t snapshots() const { return snapshots_; }

 private:
  void run() {
    std::uint32_t seq = 0;
    Clock::time_point last{};
    std::string bytes;
    auto next_input = Clock::now();
    while (!stop_) {
      if (Clock::now() >= next_input) {
        ++seq;
        client_.send(input_bytes({{seq, 0.3, 1.0}}));
        next_input += 33ms;
      }
      const Receive r = client_.receive(bytes, 5ms);
      if (r == Receive::kClosed) {
        disconnected_ = true;
        return;
      }
      if (r != Receive::kMessage) continue;
      v1::ServerMessage m;
      if (!codec::decode_server_message(bytes_of(bytes), m).ok()) continue;
      if (m.has_ping()) {
        std::string pong;
        codec::encode_pong(m.ping().sender_time_us(), pong);
        client_.send(pong);
      }
      if (!m.has_delta_snapshot()) continue;
      const auto now = Clock::now();
      ++snapshots_;
      if (last != Clock::time_point{}) {
        std::lock_guard lock(mutex_);
        gaps_.push_back(std::chrono::duration<double, std::milli>(now - last).count());
      }
      last = now;
    }
  }

  WsClient client_;
  v1::Welcome welcome_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> disconnected_{false};
  std::atomic<std::uint64_t> snapshots_{0};
  std::mutex mutex_;
  std::vector<double> gaps_;
};

// ---------------------------------------------------------------------------------------------
// 2. Malformed-frame storm

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
    case 1: return raw::frame(0x1, "{\"join\": \"text frames are not the protocol\"}");      // text frame
    case 2: return raw::close_frame(static_cast<std::uint16_t>(n % 2 ? 1005 : 999));        // invalid close codes
    case 3: return raw::frame(0x3, "reserved opcode");                                   // opcode 3
    case 4: return raw::frame(0x2, "abc", true, true, 4);                                // RSV1 without extension
    case 5: return raw::frame(0x2, join_bytes(codec::Role::kSpectator, "unmasked"), true, false);  // unmasked
    case 6: return raw::frame(0x0, "continuation without a start");                       // stray continuation
    default: return {};
  }
}

TEST(Abuse, MalformedFrameStormLeavesTheHealthyPlayerAndMemoryUntouched) {
  constexpr int kAttackers = 1000;
  Fixture fx([](config::Config& c) {
    c.max_connections = kAttackers + 100;
    c.handshake_timeout_ms = 1500;  // half handshakes are cut after this
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
      case 7: raw::send_all(a.fd.get(), handshake.substr(0, handshake.size() / 2)); a.sent = true; break;  // half handshake
      case 8: raw::send_all(a.fd.get(), std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 random bytes", 24)); a.sent = true; break;
      case 9: raw::send_all(a.fd.get(), bad_version); a.sent = true; break;  // unsupported WebSocket version
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
  for (int i = 0; i < 200 && fx.metrics().connections.value() != connections_before; ++i) std::this_thread::sleep_for(10ms);
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
  std::printf("[ storm ] %d connections in %.2f s; healthy snapshot p99 calm %.1f ms, storm %.1f ms; heap %zu -> %zu B; "
              "RSS %zu -> %zu KiB; ws_close log lines %zu, suppressed %llu\n",
              kAttackers, storm_s, calm_p99, storm_p99, heap_before, heap_after, rss_before / 1024, rss_bytes() / 1024,
              ws_close_lines, static_cast<unsigned long long>(fx.metrics().log_lines_suppressed.value()));
}

// ---------------------------------------------------------------------------------------------
// 3. Oversized message

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
// 4. Semantic abuse

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
    const v1::OwnCraft& own = m.delta_snapshot().own();  // the craft's exact state
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
    EXPECT_GE(m.delta_snapshot().last_input_sequence(), acked);
    acked = std::max(acked, m.delta_snapshot().last_input_sequence());
  }
  EXPECT_EQ(acked, 4u);
  EXPECT_EQ(fx.metrics().inputs_applied.value(), 4u);
  EXPECT_FALSE(p.closed()) << "resending a window is normal, not a violation";
}

// ---------------------------------------------------------------------------------------------
// 5. Input flood

TEST(Abuse, InputFloodAtTenTimesTheTickRateIsCappedAndOthersKeepTheirCadence) {
  Fixture fx([](config::Config& c) {
    c.tick_rate_hz = 30;
    c.snapshot_rate_hz = 10;
  });
  WsClient watcher, flooder;
  join(watcher, fx.port(), codec::Role::kSpectator, "watcher");
  join(flooder, fx.port(), codec::Role::kPlayer, "flooder");
  const std::uint64_t tick0 = fx.server().metrics().ticks.value() > 0 ? static_cast<std::uint64_t>(fx.server().metrics().ticks.value()) : 0;
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
              static_cast<unsigned long long>(fx.metrics().inputs_applied.value()), static_cast<unsigned long long>(ticks_run));
}

// ---------------------------------------------------------------------------------------------
// 6. Slowloris, handshake and idle timeouts

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
// 7. Slow consumer among 50 bots

TEST(Abuse, ASlowConsumerAmongFiftyBotsIsBoundedCountedAndDroppedOthersUnaffected) {
  // 3,000 boids make full snapshots of tens of KB (the stalled client never acknowledges, so it
  // gets full ones), so its socket buffers fill within seconds; with 40 boids, minutes.
  Fixture fx([](config::Config& c) {
    c.max_send_lag_ms = 500;
    c.socket_send_buffer_bytes = 65536;  // else the kernel buffers up to tcp_wmem (4 MiB) first
  }, 3000);
  raw::Fd stalled(raw::connect_tcp(fx.port(), 4096));  // small receive buffer, and never read
  std::string rest;
  ASSERT_EQ(raw::http_exchange(stalled.get(), raw::upgrade_request(), &rest), 101);
  ASSERT_TRUE(raw::send_all(stalled.get(), raw::frame(0x2, join_bytes(codec::Role::kSpectator, "stalled"))));
  const std::size_t heap_start = heap_in_use();
  bot::BotConfig cfg;
  cfg.port = fx.port();
  cfg.connections = 50;
  cfg.players = 10;
  cfg.duration_s = 6;
  cfg.decode = false;  // the bots share this process: keep their frame history out of the heap figure
  bot::BotReport report;
  std::thread bots([&] { report = bot::run_bots(cfg); });
  std::size_t heap_peak = heap_start;
  const auto give_up = Clock::now() + 9s;
  while (fx.metrics().kicked_slow.value() == 0 && Clock::now() < give_up) {
    heap_peak = std::max(heap_peak, heap_in_use());
    std::this_thread::sleep_for(50ms);
  }
  bots.join();
  EXPECT_EQ(fx.metrics().kicked_slow.value(), 1u);
  EXPECT_GT(fx.metrics().snapshots_dropped.value(), 0u) << "latest wins before the drop";
  EXPECT_TRUE(raw::wait_eof(stalled.get(), 3s));
  // The 50 bots saw nothing: all welcomed, no errors, nobody else dropped, snapshots flowing.
  EXPECT_EQ(report.errors, 0u) << report.summary();
  EXPECT_EQ(report.player.welcomed + report.spectator.welcomed, 50u) << report.summary();
  EXPECT_EQ(report.close_codes.count(1008), 0u) << report.summary();
  // Everyone kept receiving (a count, not a rate: sanitizer builds tick 3,000 boids slowly).
  EXPECT_GE(report.spectator.snapshots + report.player.snapshots, 50u * 10u) << report.summary();
  // Bounded: the stalled client pins at most send_queue_snapshots shared snapshot bodies.
  EXPECT_LT(heap_peak, heap_start + (32u << 20)) << heap_start << " -> " << heap_peak;
  std::printf("[ slow consumer ] heap %zu -> peak %zu B; dropped snapshots %llu; bots: %s\n", heap_start, heap_peak,
              static_cast<unsigned long long>(fx.metrics().snapshots_dropped.value()), report.summary().c_str());
}

// ---------------------------------------------------------------------------------------------
// 8. Connection storm above max_connections

TEST(Abuse, ConnectionStormAboveMaxConnectionsGets503BeforeUpgradeAndCountsReturnToBaseline) {
  Fixture fx([](config::Config& c) {
    c.max_connections = 40;
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

// ---------------------------------------------------------------------------------------------
// 9. Origin allow-list and admin token

TEST(Access, OriginOutsideTheAllowListGets403BeforeTheUpgrade) {
  Fixture fx([](config::Config& c) { c.allowed_origins = "https://game.example, http://localhost:8080"; });
  auto status = [&](const std::string& headers) {
    raw::Fd fd(raw::connect_tcp(fx.port()));
    return raw::http_exchange(fd.get(), raw::upgrade_request("/ws", headers));
  };
  EXPECT_EQ(status("Origin: https://evil.example\r\n"), 403);
  EXPECT_EQ(status("Origin: https://game.example.evil.example\r\n"), 403);
  EXPECT_EQ(status("Origin: null\r\n"), 403);
  EXPECT_EQ(status("Origin: https://game.example\r\n"), 101);
  EXPECT_EQ(status("Origin: HTTP://LOCALHOST:8080\r\n"), 101);
  EXPECT_EQ(status(""), 101) << "non-browser clients send no Origin";
  EXPECT_GE(fx.log().count("origin_refused"), 1u);
}

TEST(Access, OriginAndTokenChecksArePureFunctions) {
  EXPECT_TRUE(origin_allowed("https://a.example", ""));
  EXPECT_TRUE(origin_allowed("https://a.example", "*"));
  EXPECT_TRUE(origin_allowed("https://a.example", "https://b.example,https://a.example/"));
  EXPECT_FALSE(origin_allowed("https://a.example.b", "https://a.example"));
  EXPECT_FALSE(origin_allowed("https://a.exampl", "https://a.example"));
  EXPECT_TRUE(constant_time_equals("secret", "secret"));
  EXPECT_FALSE(constant_time_equals("secreT", "secret"));
  EXPECT_FALSE(constant_time_equals("secret-longer", "secret"));
  EXPECT_FALSE(constant_time_equals("secre", "secret"));
  EXPECT_FALSE(constant_time_equals("", "secret"));
  EXPECT_EQ(check_admin("Bearer secret", "secret"), AdminAuth::kAllowed);
  EXPECT_EQ(check_admin("bearer secret", "secret"), AdminAuth::kAllowed);
  EXPECT_EQ(check_admin("Bearer secret ", "secret"), AdminAuth::kDenied);
  EXPECT_EQ(check_admin("Basic c2VjcmV0", "secret"), AdminAuth::kDenied);
  EXPECT_EQ(check_admin("", "secret"), AdminAuth::kDenied);
  EXPECT_EQ(check_admin("Bearer ", ""), AdminAuth::kDisabled);
}

TEST(Access, AdminApiRequiresTheBearerTokenAndCanKick) {
  Fixture fx([](config::Config& c) { c.admin_token = "t0ken-for-tests"; });
  WsClient victim;
  join(victim, fx.port(), codec::Role::kSpectator, "victim");
  auto request = [&](const std::string& method, const std::string& target, const std::string& auth, std::string* body) {
    raw::Fd fd(raw::connect_tcp(fx.port()));
    std::string rest;
    const int code = raw::http_exchange(fd.get(), method + " " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" +
                                                      (auth.empty() ? "" : "Authorization: " + auth + "\r\n") +
                                                      "Content-Length: 0\r\n\r\n",
                                        &rest);
    raw::wait_eof(fd.get(), 2s, &rest);
    if (body) *body = rest;
    return code;
  };
  std::string body;
  EXPECT_EQ(request("GET", "/api/admin/clients", "", nullptr), 401);
  EXPECT_EQ(request("GET", "/api/admin/clients", "Bearer wrong", nullptr), 401);
  EXPECT_EQ(request("GET", "/api/admin/clients", "Bearer t0ken-for-test", nullptr), 401);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=1", "Bearer nope", nullptr), 401);
  EXPECT_FALSE(victim.closed());
  ASSERT_EQ(request("GET", "/api/admin/clients", "Bearer t0ken-for-tests", &body), 200);
  EXPECT_NE(body.find("\"name\":\"victim\""), std::string::npos) << body;
  const auto at = body.find("\"conn\":");
  ASSERT_NE(at, std::string::npos) << body;
  const std::string conn = std::to_string(std::atoll(body.c_str() + at + 7));
  EXPECT_EQ(request("GET", "/api/admin/kick?conn=" + conn, "Bearer t0ken-for-tests", nullptr), 405);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=abc", "Bearer t0ken-for-tests", nullptr), 400);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=999999", "Bearer t0ken-for-tests", nullptr), 404);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=" + conn, "Bearer t0ken-for-tests", nullptr), 200);
  ASSERT_TRUE(victim.wait_closed(3s));
  EXPECT_NE(victim.close_reason().find("kicked"), std::string::npos);
  EXPECT_GE(fx.log().count("admin_denied"), 1u);
}

TEST(Access, AdminTokenIsNeverPrintedInTheEffectiveConfiguration) {
  const auto loaded = config::load({"--admin-token=super-secret-value"}, [](const char*) -> const char* { return nullptr; });
  EXPECT_EQ(loaded.config.admin_token, "super-secret-value");
  const std::string dump = config::describe(loaded);
  EXPECT_EQ(dump.find("super-secret-value"), std::string::npos) << dump;
  EXPECT_NE(dump.find("admin_token = (set)"), std::string::npos) << dump;
  EXPECT_NE(config::help_text().find("--admin-token"), std::string::npos);
  EXPECT_NE(config::help_text().find("--allowed-origins"), std::string::npos);
  EXPECT_NE(config::help_text().find("--echo-endpoint"), std::string::npos);
}

TEST(Access, AdminApiDoesNotExistWithoutAToken) {
  Fixture fx;
  raw::Fd fd(raw::connect_tcp(fx.port()));
  EXPECT_EQ(raw::http_exchange(fd.get(), "GET /api/admin/clients HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \r\n\r\n"), 404);
}

// ---------------------------------------------------------------------------------------------
// 10. Reconnect and resume

/// Join as a player over a raw socket (so the test can drop TCP without any close); the Welcome.
v1::Welcome raw_join(raw::Fd& fd, std::uint16_t port, const std::string& name) {
  fd = raw::Fd(raw::connect_tcp(port));
  std::string buf;
  EXPECT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request(), &buf), 101);
  raw::send_all(fd.get(), raw::frame(0x2, join_bytes(codec::Role::kPlayer, name)));
  const auto deadline = Clock::now() + 3s;
  while (Clock::now() < deadline) {
    while (auto f = raw::pop_frame(buf)) {
      v1::ServerMessage m;
      if (f->opcode == 0x2 && codec::decode_server_message(bytes_of(f->payload), m).ok() && m.has_welcome())
        return m.welcome();
    }
    if (!raw::read_some(fd.get(), buf, 20ms)) break;
  }
  ADD_FAILURE() << "no Welcome";
  return {};
}

/// A spectator that decodes the snapshot stream like the viewer does.
struct Watcher {
  WsClient ws;
  codec::SnapshotReceiver receiver;
  explicit Watcher(std::uint16_t port) {
    const v1::Welcome w = join(ws, port, codec::Role::kSpectator, "watcher");
    sim::Scenario scenario;
    EXPECT_TRUE(codec::decode_world_spec(w.world(), scenario).ok());
    receiver.configure(scenario);
  }
  /// A snapshot sent after this call, decoded (older ones queued in the client are skipped);
  /// false if none arrived.
  bool next() {
    std::string bytes;
    while (ws.receive(bytes, 1ms) == Receive::kMessage) {
    }
    v1::ServerMessage m;
    if (!next_of(ws, kSnap, m)) return false;
    return receiver.receive(m.delta_snapshot()).ok();
  }
  /// Player crafts in the newest snapshot; `found` gets the one with `id`, if present.
  int count_players(std::uint32_t id, std::optional<sim::AgentView>* found) const {
    int n = 0;
    for (const sim::AgentView& a : receiver.agents()) {
      n += a.kind == sim::AgentKind::kPlayer;
      if (a.id.value == id && found) *found = a;
    }
    return n;
  }
};

TEST(Resume, DroppedPlayerResumesTheSameCraftWithinTheWindowAndGetsANewOneAfterIt) {
  Fixture fx([](config::Config& c) { c.resume_window_ms = 1200; });
  Watcher watcher(fx.port());
  raw::Fd first;
  const v1::Welcome w1 = raw_join(first, fx.port(), "ada");
  ASSERT_NE(w1.entity_id(), 0u);
  ASSERT_EQ(w1.resume_token().size(), codec::kResumeTokenBytes);
  std::optional<sim::AgentView> craft;
  ASSERT_TRUE(watcher.next());
  ASSERT_TRUE(watcher.next());
  ASSERT_EQ(watcher.count_players(w1.entity_id(), &craft), 1);
  ASSERT_TRUE(craft);
  const std::uint64_t spawn_tick = craft->spawn_tick;

  first.abort();  // TCP reset mid-game: no close frame, no goodbye
  std::this_thread::sleep_for(200ms);
  // Forged token: refused, and it creates nothing.
  const std::string forged(codec::kResumeTokenBytes, '\x42');
  WsClient forger;
  ASSERT_TRUE(forger.connect("127.0.0.1", fx.port()));
  forger.send(join_bytes(codec::Role::kPlayer, "forger", forged));
  ASSERT_TRUE(forger.wait_closed(3s));
  EXPECT_EQ(forger.close_code(), 1008);
  EXPECT_NE(forger.close_reason().find("unknown"), std::string::npos) << forger.close_reason();

  // Resume within the window: same craft, same life, and the first snapshot is a full one.
  WsClient back;
  const v1::Welcome w2 = join(back, fx.port(), codec::Role::kPlayer, "ada", w1.resume_token());
  EXPECT_EQ(w2.entity_id(), w1.entity_id());
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(back, kSnap, m));
  EXPECT_EQ(m.delta_snapshot().baseline_tick(), 0u) << "full snapshot on resume";
  EXPECT_EQ(m.delta_snapshot().own().id(), w1.entity_id());
  EXPECT_EQ(m.delta_snapshot().own().spawn_tick(), spawn_tick) << "state continues: the same life, not a respawn";
  ASSERT_TRUE(watcher.next());
  EXPECT_EQ(watcher.count_players(w1.entity_id(), &craft), 1) << "never a duplicate craft";

  // Reusing the token while its owner is connected is refused.
  WsClient thief;
  ASSERT_TRUE(thief.connect("127.0.0.1", fx.port()));
  thief.send(join_bytes(codec::Role::kPlayer, "thief", w1.resume_token()));
  ASSERT_TRUE(thief.wait_closed(3s));
  EXPECT_EQ(thief.close_code(), 1008);
  EXPECT_NE(thief.close_reason().find("in use"), std::string::npos) << thief.close_reason();
  EXPECT_FALSE(back.closed());

  // Drop again and wait past the window: the token is dead and the craft is gone.
  back.close();
  std::this_thread::sleep_for(1800ms);
  WsClient late;
  ASSERT_TRUE(late.connect("127.0.0.1", fx.port()));
  late.send(join_bytes(codec::Role::kPlayer, "ada", w1.resume_token()));
  ASSERT_TRUE(late.wait_closed(3s));
  EXPECT_EQ(late.close_code(), 1008);
  WsClient fresh;
  const v1::Welcome w3 = join(fresh, fx.port(), codec::Role::kPlayer, "ada");
  EXPECT_NE(w3.entity_id(), 0u);
  EXPECT_NE(w3.entity_id(), w1.entity_id());
  ASSERT_TRUE(watcher.next());
  ASSERT_TRUE(watcher.next());
  craft.reset();
  EXPECT_EQ(watcher.count_players(w3.entity_id(), &craft), 1) << "exactly one craft: the new one";
  EXPECT_TRUE(craft);
  craft.reset();
  watcher.count_players(w1.entity_id(), &craft);
  EXPECT_FALSE(craft) << "the old craft left the world";
}

// ---------------------------------------------------------------------------------------------
// Diagnostics echo

TEST(Echo, EchoEndpointIsOffByDefaultAndEchoesBothFrameTypesWhenOn) {
  {
    Fixture off;
    raw::Fd fd(raw::connect_tcp(off.port()));
    EXPECT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request("/echo")), 404);
  }
  Fixture fx([](config::Config& c) { c.echo_endpoint = "on"; });
  WsClient c;
  ASSERT_TRUE(c.connect("127.0.0.1", fx.port(), "/echo")) << c.error();
  std::string got;
  const std::string binary("\x00\x01\xfe\xff binary", 11);
  ASSERT_TRUE(c.send(binary));
  ASSERT_EQ(c.receive(got, 3s), Receive::kMessage);
  EXPECT_EQ(got, binary);
  ASSERT_TRUE(c.send("h\xc3\xa9llo text", true));
  ASSERT_EQ(c.receive(got, 3s), Receive::kMessage);
  EXPECT_EQ(got, "h\xc3\xa9llo text");
  const std::string big(1 << 20, 'z');  // far above max_message_bytes of /ws
  ASSERT_TRUE(c.send(big));
  ASSERT_EQ(c.receive(got, 5s), Receive::kMessage);
  EXPECT_EQ(got.size(), big.size());
  // Raw: a fragmented text message comes back whole; invalid UTF-8 in a text frame is 1007.
  raw::Fd fd(raw::connect_tcp(fx.port()));
  std::string buf;
  ASSERT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request("/echo"), &buf), 101);
  raw::send_all(fd.get(), raw::frame(0x1, "frag", false) + raw::frame(0x0, "mented"));
  const auto deadline = Clock::now() + 3s;
  std::optional<raw::ServerFrame> f;
  while (!(f = raw::pop_frame(buf)) && Clock::now() < deadline) raw::read_some(fd.get(), buf, 20ms);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 0x1);
  EXPECT_EQ(f->payload, "fragmented");
  raw::send_all(fd.get(), raw::frame(0x1, "\xff\xfe"));
  EXPECT_EQ(raw::read_close_code(fd.get(), buf, 3s), 1007);
  c.close();
}

}  // namespace
}  // namespace flockstep::server::net
