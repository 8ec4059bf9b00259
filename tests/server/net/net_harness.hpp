// The harness of the loopback network tests (abuse, access, resume, rooms): an in-process server
// on an OS-chosen port with its log captured, raw and library WebSocket clients, and a healthy
// player that keeps playing while others misbehave so a test can show nobody else was hurt.
#pragma once

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

#include <nlohmann/json.hpp>

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

namespace flockstep::server::net::harness {

using namespace std::chrono_literals;
using bot::Receive;
using bot::WsClient;
using Clock = std::chrono::steady_clock;

/// Small wrapped world without pursuers (no captures, so a craft's life is never reset).
inline sim::Scenario small_world(std::int32_t boids = 40) {
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
  explicit Fixture(const std::function<void(config::Config&)>& adjust = {}, std::int32_t boids = 40) : log_(&sink_) {
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

inline std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

inline std::string join_bytes(codec::Role role, const std::string& name, const std::string& token = {}) {
  std::string b;
  codec::encode_join(codec::JoinRequest{role, name, token}, b);
  return b;
}

inline std::string input_bytes(std::vector<codec::InputFrame> frames) {
  std::string b;
  codec::encode_input(frames, b);
  return b;
}

/// Next message of the wanted kind (answers pings on the way).
inline bool next_of(WsClient& c, v1::ServerMessage::PayloadCase want, v1::ServerMessage& out,
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

inline v1::Welcome join(WsClient& c, std::uint16_t port, codec::Role role, const std::string& name,
                        const std::string& token = {}) {
  EXPECT_TRUE(c.connect("127.0.0.1", port)) << c.error();
  EXPECT_TRUE(c.send(join_bytes(role, name, token)));
  v1::ServerMessage m;
  EXPECT_TRUE(next_of(c, v1::ServerMessage::kWelcome, m));
  return m.welcome();
}

/// GET /api/admin/clients with `authorization` ("Bearer <token>"); the parsed "clients" array
/// (empty on any failure, with a test failure).
inline nlohmann::json admin_clients(std::uint16_t port, const std::string& authorization) {
  raw::Fd fd(raw::connect_tcp(port));
  std::string rest;
  const int code = raw::http_exchange(
      fd.get(),
      "GET /api/admin/clients HTTP/1.1\r\nHost: t\r\nConnection: close\r\nAuthorization: " + authorization + "\r\n\r\n",
      &rest);
  raw::wait_eof(fd.get(), 2s, &rest);
  EXPECT_EQ(code, 200) << rest;
  const auto j = nlohmann::json::parse(rest, nullptr, false);
  if (j.is_discarded() || !j.contains("clients")) {
    ADD_FAILURE() << "not the admin clients JSON: " << rest;
    return nlohmann::json::array();
  }
  return j["clients"];
}

/// Bytes of heap in use (live allocations, not what the allocator keeps cached).
inline std::size_t heap_in_use() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

/// Resident set size of this process, bytes (reported, not asserted: the allocator may keep pages).
inline std::size_t rss_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

inline double p99(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(0.99 * static_cast<double>(v.size())))];
}

/// A player that plays (30 Hz inputs) on its own thread and records snapshot inter-arrival times;
/// with `role` spectator, a spectator that only watches (and records the same).
class HealthyPlayer {
 public:
  explicit HealthyPlayer(std::uint16_t port, codec::Role role = codec::Role::kPlayer) : role_(role) {
    welcome_ = join(client_, port, role, "healthy");
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
      if (role_ == codec::Role::kPlayer && Clock::now() >= next_input) {
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

  codec::Role role_;
  WsClient client_;
  v1::Welcome welcome_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> disconnected_{false};
  std::atomic<std::uint64_t> snapshots_{0};
  std::mutex mutex_;
  std::vector<double> gaps_;
};

}  // namespace flockstep::server::net::harness
