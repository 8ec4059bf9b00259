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

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "ws_client.hpp"

namespace flockstep::server {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// A child process with its stderr (and stdout) captured through a pipe.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDERR_FILENO);
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      std::vector<char*> argv;
      std::string bin = FLOCKSTEP_SERVER_BINARY;
      argv.push_back(bin.data());
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
  }
  ~Child() {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) close(fd_);
  }
  /// Read output until `pattern` matches (returns the match's first group) or the timeout.
  std::optional<std::string> wait_for(const std::regex& pattern, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      std::smatch m;
      if (std::regex_search(output_, m, pattern)) return m.size() > 1 ? m[1].str() : m[0].str();
      if (!read_some(deadline)) break;
    }
    std::smatch m;
    if (std::regex_search(output_, m, pattern)) return m.size() > 1 ? m[1].str() : m[0].str();
    return std::nullopt;
  }
  /// Wait for exit; the exit code, or nullopt on timeout / abnormal end.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        status_ = st;
        while (read_some(Clock::now() + 100ms)) {
        }
        return WIFEXITED(st) ? std::optional<int>(WEXITSTATUS(st)) : std::nullopt;
      }
      read_some(Clock::now() + 20ms);
    }
    return std::nullopt;
  }
  void signal(int sig) { kill(pid_, sig); }
  const std::string& output() const { return output_; }

 private:
  bool read_some(Clock::time_point deadline) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::max<long long>(ms, 0))) <= 0) return false;
    char buf[4096];
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) return false;
    output_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  std::string output_;
  std::optional<int> status_;
};

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
