#pragma once
// A child process (the real flockstep-server binary) with its output captured through a pipe,
// optionally with a low file-descriptor limit. Shared by the subprocess tests.
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace flockstep::server::testing {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// A child process with its stderr (and stdout) captured through a pipe.
class Child {
 public:
  /// `max_fds` > 0 sets RLIMIT_NOFILE for the child only; `env` entries ("NAME=value") are added
  /// to its environment.
  explicit Child(std::vector<std::string> args, rlim_t max_fds = 0, std::vector<std::string> env = {}) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      for (std::string& e : env) putenv(e.data());
      if (max_fds > 0) {  // RLIMIT_NOFILE for the server only (fd exhaustion tests)
        rlimit rl{max_fds, max_fds};
        setrlimit(RLIMIT_NOFILE, &rl);
      }
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

}  // namespace flockstep::server::testing
