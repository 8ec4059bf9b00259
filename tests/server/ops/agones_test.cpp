// The Agones SDK client against a local stand-in for the sidecar's REST API: a small Beast HTTP
// server on an OS-chosen loopback port that records every request it receives (method, path,
// body, arrival time) and answers as configured. Also `flockstep-server --healthcheck`.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "config/config.hpp"
#include "game/scenario_file.hpp"
#include "net/server.hpp"
#include "ops/agones.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "codec/client_codec.hpp"
#include "ws_client.hpp"

namespace flockstep::server::ops {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// Upper bound for "eventually" in these tests: generous for a loaded 2-core machine; a passing
/// run waits only as long as the behaviour takes.
constexpr auto kWait = 10s;

struct Recorded {
  std::string method;
  std::string target;
  std::string body;
  Clock::time_point at;
};

/// The stand-in sidecar. Every request is answered 200 `{}` unless `fail_next` says otherwise;
/// GET /gameserver answers `{"status":{"state":<state>}}`.
class FakeSidecar {
 public:
  /// kSilent: accept connections, count them and hold them open, never read or answer (a hung sidecar).
  enum Mode { kAnswers, kSilent };
  explicit FakeSidecar(Mode mode = kAnswers)
      : mode_(mode), acceptor_(ioc_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeSidecar() {
    stopping_ = true;
    // Wake the blocking accept with one last connection, then join.
    beast::error_code ec;
    tcp::socket s(ioc_);
    s.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  /// Connections accepted so far.
  int connections() const { return connections_.load(); }

  /// Answer the next `n` requests for `target` with `status`.
  void fail_next(const std::string& target, int n, unsigned status) {
    std::lock_guard lock(mutex_);
    failures_[target] = {n, status};
  }
  void set_state(const std::string& state) {
    std::lock_guard lock(mutex_);
    state_ = state;
  }
  std::vector<Recorded> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  /// Wait until `pred(requests)` holds; false after kWait.
  bool wait_until(const std::function<bool(const std::vector<Recorded>&)>& pred) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kWait, [&] { return pred(requests_); });
  }
  /// Count of requests to `target` (any method), optionally with a body containing `needle`.
  static std::size_t count(const std::vector<Recorded>& rs, const std::string& target, const std::string& needle = {}) {
    return static_cast<std::size_t>(std::count_if(rs.begin(), rs.end(), [&](const Recorded& r) {
      return r.target == target && r.body.find(needle) != std::string::npos;
    }));
  }
  /// Index of the first request to `target` whose body contains `needle`, or -1.
  static long first(const std::vector<Recorded>& rs, const std::string& target, const std::string& needle = {}) {
    for (std::size_t i = 0; i < rs.size(); ++i)
      if (rs[i].target == target && rs[i].body.find(needle) != std::string::npos) return static_cast<long>(i);
    return -1;
  }

 private:
  void serve() {
    while (!stopping_) {
      tcp::socket socket(ioc_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) continue;
      ++connections_;
      if (mode_ == kSilent) {
        held_.push_back(std::move(socket));
        continue;
      }
      beast::flat_buffer buffer;
      http::request<http::string_body> req;
      http::read(socket, buffer, req, ec);
      if (ec) continue;
      http::response<http::string_body> res{http::status::ok, 11};
      res.set(http::field::content_type, "application/json");
      res.body() = "{}";
      {
        std::lock_guard lock(mutex_);
        const std::string target(req.target());
        requests_.push_back({std::string(req.method_string()), target, req.body(), Clock::now()});
        if (auto it = failures_.find(target); it != failures_.end() && it->second.first > 0) {
          --it->second.first;
          res.result(it->second.second);
          res.body() = R"({"error":"stand-in says no"})";
        } else if (target == "/gameserver") {
          res.body() = R"({"object_meta":{"name":"gs-1"},"status":{"state":")" + state_ + R"(","address":"10.0.0.1"}})";
        }
      }
      changed_.notify_all();
      res.prepare_payload();
      http::write(socket, res, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
  }

  Mode mode_;
  asio::io_context ioc_;
  tcp::acceptor acceptor_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::vector<tcp::socket> held_;  // kSilent's open connections (the serving thread's only)
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Recorded> requests_;
  std::map<std::string, std::pair<int, unsigned>> failures_;
  std::string state_ = "Ready";
  std::thread thread_;
};

/// Counts the test controls from its own thread, as the real gauges are set by the game thread.
struct Room {
  std::atomic<std::uint32_t> players{0};
  std::atomic<std::uint32_t> spectators{0};
  std::function<RoomCounts()> fn() {
    return [this] { return RoomCounts{players.load(), spectators.load()}; };
  }
};

struct Fixture {
  std::ostringstream log_text;
  Logger log{Logger::Options{}, log_text};
  FakeSidecar sidecar;
  Room room;

  AgonesOptions options() const {
    AgonesOptions o;
    o.host = "127.0.0.1";
    o.port = sidecar.port();
    o.health_period = 200ms;
    o.empty_shutdown = 0ms;
    o.player_capacity = 8;
    o.poll_period = 20ms;
    return o;
  }
};

TEST(AgonesPort, UnsetMeansStandaloneAndAnythingButAPortIsAnError) {
  EXPECT_EQ(agones_port_from_env(nullptr), std::nullopt);
  EXPECT_EQ(agones_port_from_env(""), std::nullopt);
  EXPECT_EQ(agones_port_from_env("9358"), std::optional<std::uint16_t>(9358));
  for (const char* bad : {"0", "65536", "93a8", "-1", " 9358", "123456789012345678901234"}) {
    try {
      agones_port_from_env(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("AGONES_SDK_HTTP_PORT"), std::string::npos) << e.what();
    }
  }
}

TEST(AgonesClient, ReadyIsTheFirstCallEvenWhenPlayersAreAlreadyThere) {
  Fixture f;
  f.room.players = 2;
  AgonesClient client(f.options(), f.room.fn(), f.log);
  client.start();
  ASSERT_TRUE(
      f.sidecar.wait_until([](const auto& rs) { return FakeSidecar::count(rs, "/alpha/player/connect") >= 2; }));
  const auto rs = f.sidecar.requests();
  ASSERT_FALSE(rs.empty());
  EXPECT_EQ(rs[0].method, "POST");
  EXPECT_EQ(rs[0].target, "/ready");
  EXPECT_EQ(FakeSidecar::count(rs, "/ready"), 1u);
  EXPECT_TRUE(client.ready());
  // Everything about players comes after Ready.
  EXPECT_GT(FakeSidecar::first(rs, "/metadata/label", R"("key":"players")"), 0);
  EXPECT_GT(FakeSidecar::first(rs, "/alpha/player/capacity"), 0);
}

TEST(AgonesClient, RetriesReadyUntilTheSidecarAcceptsIt) {
  Fixture f;
  f.sidecar.fail_next("/ready", 2, 503);  // the sidecar starting after the game server
  AgonesClient client(f.options(), f.room.fn(), f.log);
  client.start();
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) { return FakeSidecar::count(rs, "/health") >= 1; }));
  const auto rs = f.sidecar.requests();
  EXPECT_EQ(FakeSidecar::count(rs, "/ready"), 3u);
  EXPECT_LT(FakeSidecar::first(rs, "/ready"), FakeSidecar::first(rs, "/health"));
  // Health only after the accepted (third) Ready.
  long last_ready = -1;
  for (std::size_t i = 0; i < rs.size(); ++i)
    if (rs[i].target == "/ready") last_ready = static_cast<long>(i);
  EXPECT_LT(last_ready, FakeSidecar::first(rs, "/health"));
  EXPECT_TRUE(client.ready());
}

TEST(AgonesClient, SendsHealthAtTheConfiguredPeriodIndependentOfThePollPeriod) {
  Fixture f;
  AgonesOptions o = f.options();
  o.health_period = 150ms;
  o.poll_period = 1000ms;  // health must not wait for the (slower) count sampling
  AgonesClient client(o, f.room.fn(), f.log);
  client.start();
  constexpr std::size_t kPings = 6;
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) { return FakeSidecar::count(rs, "/health") >= kPings; }));
  std::vector<Clock::time_point> at;
  for (const auto& r : f.sidecar.requests()) {
    if (r.target == "/health") {
      EXPECT_EQ(r.method, "POST");
      at.push_back(r.at);
    }
  }
  const auto span = at[kPings - 1] - at[0];
  // Never faster than the period (a little slack for the first request's own latency) ...
  EXPECT_GE(span, (kPings - 1) * o.health_period - 50ms);
  // ... and paced by it, not by the 1 s poll period (which would take >= 5 s).
  EXPECT_LT(span, (kPings - 1) * o.poll_period);
}

TEST(AgonesClient, ReportsCountsAsLabelsAndPlayerTrackingAsTheyChange) {
  Fixture f;
  AgonesClient client(f.options(), f.room.fn(), f.log);
  client.start();
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) {
    return FakeSidecar::count(rs, "/metadata/label", R"("key":"spectators","value":"0")") == 1;
  }));
  f.room.players = 2;
  f.room.spectators = 3;
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) {
    return FakeSidecar::count(rs, "/alpha/player/connect", "slot-2") == 1 &&
           FakeSidecar::count(rs, "/metadata/label", R"("key":"spectators","value":"3")") == 1;
  }));
  f.room.players = 1;
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) {
    return FakeSidecar::count(rs, "/alpha/player/disconnect", "slot-2") == 1 &&
           FakeSidecar::count(rs, "/metadata/label", R"("key":"players","value":"1")") == 1;
  }));
  const auto rs = f.sidecar.requests();
  // Capacity once, with the configured value; labels only when a value changes.
  EXPECT_EQ(FakeSidecar::count(rs, "/alpha/player/capacity", R"("count":"8")"), 1u);
  EXPECT_EQ(FakeSidecar::count(rs, "/metadata/label", R"("key":"players","value":"2")"), 1u);
  EXPECT_EQ(FakeSidecar::count(rs, "/metadata/label", R"("key":"spectators")"), 2u);
  EXPECT_EQ(FakeSidecar::count(rs, "/alpha/player/connect"), 2u);
  EXPECT_EQ(FakeSidecar::count(rs, "/alpha/player/disconnect"), 1u);
  for (const auto& r : rs) {
    if (r.target == "/metadata/label") {
      EXPECT_EQ(r.method, "PUT");
    }
  }
  EXPECT_EQ(FakeSidecar::count(rs, "/shutdown"), 0u);  // empty_shutdown = 0: never
}

TEST(AgonesClient, LeavesPlayerTrackingOffWhenTheSidecarRejectsIt) {
  Fixture f;
  f.sidecar.fail_next("/alpha/player/capacity", 1, 404);  // feature gate PlayerTracking off
  f.room.players = 2;
  AgonesClient client(f.options(), f.room.fn(), f.log);
  client.start();
  // Two health pings after the labels: any connect call would have been made in between.
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) {
    const long label = FakeSidecar::first(rs, "/metadata/label", R"("key":"players","value":"2")");
    return label >= 0 &&
           std::count_if(rs.begin() + label, rs.end(), [](const Recorded& r) { return r.target == "/health"; }) >= 2;
  }));
  EXPECT_EQ(FakeSidecar::count(f.sidecar.requests(), "/alpha/player/connect"), 0u);
}

TEST(AgonesClient, ShutsDownOnlyAfterTheRoomHasBeenEmptyForItsTimeout) {
  Fixture f;
  AgonesOptions o = f.options();
  o.empty_shutdown = 400ms;
  AgonesClient client(o, f.room.fn(), f.log);
  f.room.players = 1;
  client.start();
  ASSERT_TRUE(f.sidecar.wait_until(
      [](const auto& rs) { return FakeSidecar::count(rs, "/metadata/label", R"("key":"players","value":"1")") == 1; }));
  const auto emptied = Clock::now();
  f.room.players = 0;
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) { return FakeSidecar::count(rs, "/shutdown") == 1; }));
  const auto rs = f.sidecar.requests();
  const auto shutdown = rs[static_cast<std::size_t>(FakeSidecar::first(rs, "/shutdown"))];
  EXPECT_EQ(shutdown.method, "POST");
  EXPECT_GE(shutdown.at - emptied, o.empty_shutdown);
  // The label saying the room is empty went out before the shutdown.
  EXPECT_LT(FakeSidecar::first(rs, "/metadata/label", R"("key":"players","value":"0")"),
            FakeSidecar::first(rs, "/shutdown"));
  // The acknowledgement is noted after the answer arrives, which the stand-in does not see: poll.
  const auto deadline = Clock::now() + kWait;
  while (!client.shutdown_sent() && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(client.shutdown_sent());
}

TEST(AgonesClient, AWarmServerWaitsForItsFirstAllocationButAnAllocatedEmptyOneShutsDown) {
  Fixture f;
  AgonesOptions o = f.options();
  o.health_period = 100ms;
  o.empty_shutdown = 200ms;
  AgonesClient client(o, f.room.fn(), f.log);
  client.start();
  // Ready and never used: many empty-timeouts pass without a Shutdown.
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) { return FakeSidecar::count(rs, "/health") >= 8; }));
  EXPECT_EQ(FakeSidecar::count(f.sidecar.requests(), "/shutdown"), 0u);
  EXPECT_GE(FakeSidecar::count(f.sidecar.requests(), "/gameserver"), 1u);
  // A matchmaker allocates it, nobody comes: shut down after the timeout.
  f.sidecar.set_state("Allocated");
  const std::size_t before = f.sidecar.requests().size();
  ASSERT_TRUE(f.sidecar.wait_until([](const auto& rs) { return FakeSidecar::count(rs, "/shutdown") == 1; }));
  EXPECT_GT(static_cast<std::size_t>(FakeSidecar::first(f.sidecar.requests(), "/shutdown")), before);
}

TEST(AgonesClient, CountsComeFromTheServersClientGauges) {
  // The real server: a player joining moves flockstep_clients{role="player"}, which the client reads.
  config::Config c;
  c.host = "127.0.0.1";
  c.port = 0;
  c.shutdown_timeout_ms = 500;  // the test's player stays connected: do not wait long for it
  std::ostringstream server_log;
  net::Server server(c, game::load_scenario_file(std::string(FLOCKSTEP_SOURCE_DIR) + "/scenarios/arena.json"),
                     server_log);
  server.start();
  Fixture f;
  AgonesClient client(
      f.options(), [&server] { return room_counts(server.metrics()); }, f.log);
  client.start();
  bot::WsClient player;
  ASSERT_TRUE(player.connect("127.0.0.1", server.port())) << player.error();
  std::string join;
  codec::encode_join(codec::JoinRequest{codec::Role::kPlayer, "agones", {}}, join);
  ASSERT_TRUE(player.send(join));
  EXPECT_TRUE(f.sidecar.wait_until([](const auto& rs) {
    return FakeSidecar::count(rs, "/metadata/label", R"("key":"players","value":"1")") == 1 &&
           FakeSidecar::count(rs, "/alpha/player/connect", "slot-1") == 1;
  }));
  client.stop();
  server.shutdown();
  server.wait();
}

/// An Agones client of an empty room, started against a sidecar that never answers.
struct SilentRoom {
  FakeSidecar sidecar{FakeSidecar::kSilent};
  std::ostringstream log_text;
  Logger log{Logger::Options{}, log_text};
  AgonesClient client{AgonesOptions{"127.0.0.1", sidecar.port()}, [] { return RoomCounts{}; }, log};
  SilentRoom() { client.start(); }
};

TEST(AgonesClient, ACallTheSidecarNeverAnswersEndsAtItsDeadlineAndIsRetried) {
  // /ready to a sidecar that accepts and stays silent: the call must end at kAgonesRequestTimeout
  // (the connection is dropped) and Ready be retried on a new connection. Without the deadline
  // the first call waits forever and the sidecar sees one connection.
  SilentRoom r;
  const auto deadline = Clock::now() + kAgonesRequestTimeout + kAgonesRetryPeriod + kWait;
  while (r.sidecar.connections() < 2 && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
  EXPECT_GE(r.sidecar.connections(), 2);
  EXPECT_NE(r.log_text.str().find("agones_call_failed"), std::string::npos) << r.log_text.str();
  EXPECT_FALSE(r.client.ready());
  r.client.stop();
}

TEST(AgonesClient, StopAbandonsACallInFlightInsteadOfWaitingForItsDeadline) {
  // stop() while /ready hangs: the thread ends without the call's 2 s deadline passing, and the
  // abandoned call's handlers, which refer to the call's frame, never run (the sanitizer build
  // would report a use after return). The control is the call itself: it is still in flight
  // when stop() is called (one connection, no failure logged yet).
  SilentRoom r;
  const auto deadline = Clock::now() + kWait;
  while (r.sidecar.connections() < 1 && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(r.sidecar.connections(), 1);
  const auto t0 = Clock::now();
  r.client.stop();
  const auto took = Clock::now() - t0;
  EXPECT_EQ(r.log_text.str().find("agones_call_failed"), std::string::npos) << "the call had already ended";
  EXPECT_LT(took, kAgonesRequestTimeout / 2) << "stop() waited for the call's deadline";
  EXPECT_EQ(r.sidecar.connections(), 1);
  r.client.stop();  // idempotent
}

TEST(AgonesHttpStatus, AnswersTheStatusOrZeroWhenNobodyListens) {
  FakeSidecar sidecar;
  sidecar.fail_next("/healthz", 1, 503);
  EXPECT_EQ(http_status("127.0.0.1", sidecar.port(), "GET", "/healthz", 2s), 503u);
  EXPECT_EQ(http_status("127.0.0.1", sidecar.port(), "GET", "/healthz", 2s), 200u);
  // A port nobody listens on: take one from the OS and close it again.
  std::uint16_t closed = 0;
  {
    asio::io_context ioc;
    tcp::acceptor a(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    closed = a.local_endpoint().port();
  }
  EXPECT_EQ(http_status("127.0.0.1", closed, "GET", "/healthz", 2s), 0u);
}

int run_healthcheck(std::uint16_t port) {
  const std::string cmd = std::string(FLOCKSTEP_SERVER_BINARY) + " --healthcheck --port=" + std::to_string(port) +
                          " --host=127.0.0.1 >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(ServerHealthcheck, ExitsZeroWhileTheServerAnswersAndOneAfterItStopped) {
  config::Config c;
  c.host = "127.0.0.1";
  c.port = 0;
  std::ostringstream server_log;
  std::uint16_t port = 0;
  {
    net::Server server(c, game::load_scenario_file(std::string(FLOCKSTEP_SOURCE_DIR) + "/scenarios/arena.json"),
                       server_log);
    server.start();
    port = server.port();
    EXPECT_EQ(run_healthcheck(port), 0);
    server.shutdown();
    server.wait();
  }
  EXPECT_EQ(run_healthcheck(port), 1);
}

}  // namespace
}  // namespace flockstep::server::ops
