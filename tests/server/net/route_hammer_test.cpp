// No HTTP route waits on the game thread: many keep-alive connections hammer every public route
// while a spectator measures its snapshot inter-arrival times. Routes read the rooms' published
// copies (game::Game::published), so the I/O thread that carries the snapshots stays free; the
// control makes the scenario route wait for the game thread's answer (as it did before published
// copies) and shows the same check catching it. An in-process server on an OS-chosen loopback
// port; raw sockets as HTTP clients.
#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "net_harness.hpp"

namespace flockstep::server::net {
namespace {

using namespace harness;
using namespace std::chrono_literals;

/// One request on a keep-alive connection: the status (0 = no complete response in time).
/// Reads exactly the response (head + Content-Length body) so the next one can follow.
int keep_alive_get(int fd, std::string_view path, std::string& buf) {
  const std::string req = "GET " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  if (!raw::send_all(fd, req)) return 0;
  const auto deadline = Clock::now() + 5s;
  std::size_t end = std::string::npos;
  while ((end = buf.find("\r\n\r\n")) == std::string::npos)
    if (Clock::now() > deadline || !raw::read_some(fd, buf, 50ms)) return 0;
  std::size_t length = 0;
  if (const auto at = buf.find("Content-Length: "); at != std::string::npos && at < end)
    length = static_cast<std::size_t>(std::strtoull(buf.c_str() + at + 16, nullptr, 10));
  while (buf.size() < end + 4 + length)
    if (Clock::now() > deadline || !raw::read_some(fd, buf, 50ms)) return 0;
  const int status = buf.size() >= 12 ? std::atoi(buf.substr(9, 3).c_str()) : 0;
  buf.erase(0, end + 4 + length);
  return status;
}

/// The 99th percentile by nearest rank (the ceil(0.99 n)-th smallest): with 100 gaps, the second
/// largest, so one scheduling hiccup of a loaded machine is not the whole verdict.
double gap_p99(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

struct HammerResult {
  double baseline_p99_ms = 0;    ///< the spectator's gap p99 before the hammer started
  std::vector<double> gaps_ms;   ///< the spectator's snapshot inter-arrival times while hammered
  std::uint64_t requests = 0;    ///< answered requests
  std::uint64_t unexpected = 0;  ///< answers with another status than the route's
};

/// kConnections keep-alive connections, each cycling through every public route for `how_long`
/// with a pause between requests (so the hammer itself does not starve a loaded 2-core machine:
/// a route that waits for a tick still piles them up on the I/O thread).
HammerResult hammer(Fixture& fx, std::chrono::milliseconds how_long) {
  constexpr int kConnections = 48;
  // Between two requests of one connection: 48 connections then ask for up to ~1,200 requests a
  // second, far more than a route that waits a tick could answer (60 a second at 60 Hz), yet
  // little CPU for routes that do not wait.
  constexpr auto kPause = 40ms;
  struct Route {
    const char* path;
    int status;
  };
  // Every public route; the room's scenario every other request (the route that used to wait).
  static constexpr std::array<Route, 12> kRoutes{{{"/api/rooms/abuse/scenario", 200},
                                                  {"/healthz", 200},
                                                  {"/api/rooms/abuse/scenario", 200},
                                                  {"/api/rooms", 200},
                                                  {"/api/rooms/abuse/scenario", 200},
                                                  {"/readyz", 200},
                                                  {"/api/rooms/abuse/scenario", 200},
                                                  {"/metrics", 200},
                                                  {"/api/rooms/abuse/scenario", 200},
                                                  {"/index.html", 200},
                                                  {"/api/rooms/abuse/scenario", 200},
                                                  {"/api/rooms/nowhere/scenario", 404}}};
  HealthyPlayer spectator(fx.port(), codec::Role::kSpectator);
  std::this_thread::sleep_for(300ms);  // the stream settles (first full snapshot)
  spectator.take_gaps();
  // The machine's own jitter first: the same spectator, nobody hammering.
  std::this_thread::sleep_for(how_long / 2);
  HammerResult out;
  out.baseline_p99_ms = gap_p99(spectator.take_gaps());
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> requests{0}, unexpected{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kConnections; ++c)
    threads.emplace_back([&, c] {
      raw::Fd fd(raw::connect_tcp(fx.port()));
      std::string buf;
      for (std::size_t i = static_cast<std::size_t>(c); !stop; ++i) {
        const Route& r = kRoutes[i % kRoutes.size()];
        const int status = keep_alive_get(fd.get(), r.path, buf);
        if (status == 0) {  // closed or timed out: a fresh connection
          fd = raw::Fd(raw::connect_tcp(fx.port()));
          buf.clear();
        }
        ++requests;
        if (status != r.status) ++unexpected;
        std::this_thread::sleep_for(kPause);
      }
    });
  std::this_thread::sleep_for(how_long);
  out.gaps_ms = spectator.take_gaps();
  stop = true;
  for (auto& t : threads) t.join();
  out.requests = requests;
  out.unexpected = unexpected;
  EXPECT_FALSE(spectator.disconnected());
  return out;
}

class RouteHammer : public ::testing::Test {
 protected:
  void SetUp() override {
    web_root_ =
        std::filesystem::temp_directory_path() / ("flockstep_hammer_" + std::to_string(::getpid()) + "_" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(web_root_);
    std::ofstream(web_root_ / "index.html") << "<!doctype html><title>hammer</title>\n";
  }
  void TearDown() override { std::filesystem::remove_all(web_root_); }

  std::function<void(config::Config&)> configure() const {
    return [root = web_root_.string()](config::Config& c) {
      c.web_root = root;
      c.threads = 1;  // the single I/O thread a waiting route would block
      c.tick_rate_hz = 60;
      c.snapshot_rate_hz = kSnapshotHz;
    };
  }
  static constexpr std::uint32_t kSnapshotHz = 20;
  static constexpr double kNominalMs = 1000.0 / kSnapshotHz;
  /// The bound on the hammered gap p99: 1.5 x nominal on a quiet machine (kBoundFactor). A loaded machine (2
  /// cores shared by several builds) delays the spectator's and the game's threads by itself;
  /// whatever p99 excess it shows before the hammer starts widens the bound by as much, so the
  /// test measures what the routes add, not the machine.
  static double bound_ms(const HammerResult& r) {
    return kBoundFactor * kNominalMs + std::max(0.0, r.baseline_p99_ms - kNominalMs);
  }
#if defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer every request costs the one I/O thread several times the CPU of an
  // optimised build, published copy or not (measured in the dev preset: hammered p99 89-96 ms,
  // the waiting route of the control 218 ms): 2.5 x nominal still tells the two apart.
  static constexpr double kBoundFactor = 2.5;
#else
  static constexpr double kBoundFactor = 1.5;
#endif
  std::filesystem::path web_root_;
};

TEST_F(RouteHammer, SpectatorKeepsItsCadenceWhileEveryPublicRouteIsHammered) {
  Fixture fx(configure());
  const HammerResult r = hammer(fx, 5s);  // 100 gaps at 20 Hz
  const double p99_ms = gap_p99(r.gaps_ms);
  RecordProperty("gap_p99_ms", std::to_string(p99_ms));
  RecordProperty("requests", std::to_string(r.requests));
  std::printf(
      "route hammer (published copies): %llu requests, %zu snapshot gaps, p99 %.1f ms (nominal %.1f, unhammered p99 "
      "%.1f, bound %.1f)\n",
      static_cast<unsigned long long>(r.requests), r.gaps_ms.size(), p99_ms, kNominalMs, r.baseline_p99_ms,
      bound_ms(r));
  EXPECT_GT(r.requests, 1500u) << "the hammer did not hammer";  // at most ~6,000 in 5 s
  EXPECT_EQ(r.unexpected, 0u);
  ASSERT_GT(r.gaps_ms.size(), 60u);
  EXPECT_LE(p99_ms, bound_ms(r));
}

// Control: the same check fails when the scenario route waits for the game thread, as it did
// before the rooms published copies (so the test above can fail).
TEST_F(RouteHammer, ControlARouteThatWaitsForTheGameThreadBreaksTheSpectatorsCadence) {
  Fixture fx(configure());
  fx.server().set_scenario_route_waits(true);
  const HammerResult r = hammer(fx, 2s);  // the effect is large: a short run shows it
  const double p99_ms = gap_p99(r.gaps_ms);
  RecordProperty("gap_p99_ms", std::to_string(p99_ms));
  std::printf(
      "route hammer (route waits for the game thread): %llu requests, %zu snapshot gaps, p99 %.1f ms (unhammered "
      "p99 %.1f, bound %.1f)\n",
      static_cast<unsigned long long>(r.requests), r.gaps_ms.size(), p99_ms, r.baseline_p99_ms, bound_ms(r));
  EXPECT_EQ(r.unexpected, 0u);
  EXPECT_GT(p99_ms, bound_ms(r));
}

}  // namespace
}  // namespace flockstep::server::net
