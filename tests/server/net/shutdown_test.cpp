// The real flockstep-server binary as a subprocess: SIGTERM drains (readiness, close 1001,
// exit 0 within 5 s) and start-up errors exit 2 with a message naming the flag or key.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "bot.hpp"
#include "raw_ws.hpp"
#include "ws_client.hpp"

namespace flockstep::server {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using testing::Child;

std::string scenario_path() { return std::string(FLOCKSTEP_SOURCE_DIR) + "/scenarios/arena.json"; }

TEST(ServerProcess, SigtermFlipsReadinessClosesClientsWith1001AndExitsZeroWithin5s) {
  Child server({"--port=0", "--host=127.0.0.1", "--bots=2", "--scenario=" + scenario_path()});
  const auto port_text = server.wait_for(std::regex("listening .*port=([0-9]+)"), 10s);
  ASSERT_TRUE(port_text) << server.output();
  const auto port = static_cast<std::uint16_t>(std::stoi(*port_text));
  EXPECT_EQ(bot::http_get("127.0.0.1", port, "/readyz").status, 200);

  bot::WsClient player, watcher;
  for (auto [c, role] : {std::pair{&player, codec::Role::kPlayer}, std::pair{&watcher, codec::Role::kSpectator}}) {
    ASSERT_TRUE(c->connect("127.0.0.1", port)) << c->error();
    std::string join;
    codec::encode_join(codec::JoinRequest{role, "drain", {}}, join);
    ASSERT_TRUE(c->send(join));
    std::string msg;
    ASSERT_EQ(c->receive(msg, 3s), bot::Receive::kMessage);  // the welcome
  }

  const auto sent = Clock::now();
  server.signal(SIGTERM);
  for (bot::WsClient* c : {&player, &watcher}) {
    ASSERT_TRUE(c->wait_closed(5s));
    EXPECT_EQ(c->close_code(), 1001) << c->close_reason();
  }
  const auto code = server.wait_exit(5s);
  ASSERT_TRUE(code) << "did not exit within 5 s\n" << server.output();
  EXPECT_EQ(*code, 0) << server.output();
  EXPECT_LT(Clock::now() - sent, 5s);
  EXPECT_NE(server.output().find("signal signal=SIGTERM"), std::string::npos);
  EXPECT_NE(server.output().find("shutdown_complete"), std::string::npos) << server.output();
  EXPECT_NE(server.output().find("effective configuration"), std::string::npos);
}

TEST(ServerProcess, SigtermUnderLoadFlipsReadinessAtOnceClosesEveryClientWith1001AndExitsZeroWithin5s) {
  // 100 clients from one address: over the default max_sessions_per_address, which is not under test.
  Child server(
      {"--port=0", "--host=127.0.0.1", "--bots=4", "--max-sessions-per-address=0", "--scenario=" + scenario_path()});
  const auto port_text = server.wait_for(std::regex("listening .*port=([0-9]+)"), 10s);
  ASSERT_TRUE(port_text) << server.output();
  const auto port = static_cast<std::uint16_t>(std::stoi(*port_text));
  // A connection accepted while ready, to ask /readyz after the signal.
  net::raw::Fd probe(net::raw::connect_tcp(port));
  ASSERT_EQ(net::raw::http_exchange(probe.get(), "GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n"), 200);
  // 100 clients (20 players sending inputs) keep the server busy.
  bot::BotConfig cfg;
  cfg.port = port;
  cfg.connections = 100;
  cfg.players = 20;
  cfg.duration_s = 5;  // longer than the 2 s before SIGTERM: the server ends every connection
  // Acknowledge without decoding, as the load tools do: decoding 2,000 snapshots a second in a
  // sanitizer build on a busy 2-core machine left the bot seconds behind its sockets, so the
  // server's close frames (queued behind unread snapshots) reached it only after its own stop.
  cfg.decode = false;
  bot::BotReport report;
  std::thread bots([&] { report = bot::run_bots(cfg); });
  std::this_thread::sleep_for(2s);  // load running
  const auto sent = Clock::now();
  server.signal(SIGTERM);
  // Readiness flips as soon as the signal is handled (delivery itself is asynchronous): 503, or
  // no answer at all once the drain has already finished (it takes tens of ms).
  // Server.ReadinessFlipsAtOnceWhenShutdownStarts checks the exact 503 in process.
  int ready = 200;
  while (ready == 200 && Clock::now() - sent < 1s)
    ready = net::raw::http_exchange(probe.get(), "GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_NE(ready, 200);
  EXPECT_LT(Clock::now() - sent, 1s);
  const auto code = server.wait_exit(5s);
  const auto took = Clock::now() - sent;
  bots.join();
  ASSERT_TRUE(code) << "did not exit within 5 s\n" << server.output();
  EXPECT_EQ(*code, 0) << server.output();
  EXPECT_LT(took, 5s);
  EXPECT_EQ(report.player.welcomed + report.spectator.welcomed, 100u) << report.summary();
  EXPECT_EQ(report.close_codes[1001], 100u) << report.summary();
  EXPECT_NE(server.output().find("shutdown_complete sessions_left=0"), std::string::npos) << server.output();
  std::printf("[ shutdown ] 100 clients: exit after %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
}

TEST(ServerProcess, RunningOutOfFileDescriptorsIsSurvivedAndLogged) {
  // 64 descriptors for the whole server process; max_connections far above that, so accept()
  // itself fails with EMFILE.
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizer runtimes need descriptors of their own: at EMFILE, UBSan's vptr check cannot
  // probe memory (it uses pipe()) and reports the first virtual call on a Boost.System category
  // object it has not seen yet as "invalid vptr", fatally. The listener's reserve descriptors
  // cover its own log line, not every such call elsewhere while the process is at its limit (a
  // UBSan suppression does not help: the probe fails before suppressions are consulted). A
  // property of the dev preset's runtime, not of the server: the ci preset runs this test.
  GTEST_SKIP() << "needs a build without sanitizer runtimes (ci preset)";
#endif
  Child server({"--port=0", "--host=127.0.0.1", "--max-connections=1000", "--max-sessions-per-address=0",
                "--scenario=" + scenario_path()},
               64);
  const auto port_text = server.wait_for(std::regex("listening .*port=([0-9]+)"), 10s);
  ASSERT_TRUE(port_text) << server.output();
  const auto port = static_cast<std::uint16_t>(std::stoi(*port_text));
  std::vector<net::raw::Fd> flood;
  for (int i = 0; i < 100; ++i) flood.emplace_back(net::raw::connect_tcp(port));  // the kernel queues them
  ASSERT_TRUE(server.wait_for(std::regex("accept_failed.*(Too many open files|EMFILE)"), 5s)) << server.output();
  // The connections left in the backlog are not left hanging: the listener answers them with
  // its two reserve descriptors (503, closed).
  std::string seen;
  EXPECT_TRUE(net::raw::wait_eof(flood.back().get(), 3s, &seen)) << server.output();
  EXPECT_NE(seen.find("503"), std::string::npos) << seen;
  EXPECT_TRUE(server.wait_for(std::regex("accept_failed.*shed=[1-9]"), 5s)) << server.output();
  flood.clear();
  // Descriptors free again: the server serves as before.
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    status = bot::http_get("127.0.0.1", port, "/healthz", 1s).status;
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 200) << server.output();
  bot::WsClient c;
  ASSERT_TRUE(c.connect("127.0.0.1", port)) << c.error();
  std::string join;
  codec::encode_join(codec::JoinRequest{codec::Role::kSpectator, "after", {}}, join);
  ASSERT_TRUE(c.send(join));
  std::string msg;
  EXPECT_EQ(c.receive(msg, 3s), bot::Receive::kMessage);
  // The accept loop backed off instead of spinning: rate-limited lines, not thousands.
  std::size_t lines = 0;
  for (auto p = server.output().find("accept_failed"); p != std::string::npos;
       p = server.output().find("accept_failed", p + 1))
    ++lines;
  EXPECT_LT(lines, 200u);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(5s), 0) << server.output();
}

TEST(ServerProcess, ConfigErrorsExitWith2AndNameTheFlagOrKey) {
  {
    Child c({"--max-conections=5"});
    EXPECT_EQ(c.wait_exit(5s), 2);
    EXPECT_NE(c.output().find("--max-conections"), std::string::npos) << c.output();
  }
  {
    Child c({"--tick-rate-hz=100000"});
    EXPECT_EQ(c.wait_exit(5s), 2);
    EXPECT_NE(c.output().find("--tick-rate-hz"), std::string::npos) << c.output();
  }
  {
    Child c({"--scenario=/nonexistent/arena.json"});
    EXPECT_EQ(c.wait_exit(5s), 2);
    EXPECT_NE(c.output().find("/nonexistent/arena.json"), std::string::npos) << c.output();
  }
  {
    Child c({"--help"});
    EXPECT_EQ(c.wait_exit(5s), 0);
    EXPECT_NE(c.output().find("--max-message-bytes"), std::string::npos);
  }
}

}  // namespace
}  // namespace flockstep::server
