// The rooms harness of the loopback tests (rooms_test.cpp, publish_test.cpp): an in-process server
// with a default room and two more on an OS-chosen port, its log captured, a spectator's or
// player's Join, one HTTP request, and the lobby (/api/rooms) polled until a condition holds.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "net/server.hpp"
#include "net_harness.hpp"
#include "raw_ws.hpp"
#include "ws_client.hpp"

namespace flockstep::server::net::rooms_harness {

using namespace std::chrono_literals;
using bot::Receive;
using bot::WsClient;
using harness::bytes_of;
using nlohmann::json;

inline sim::Scenario world_named(const std::string& name, std::int32_t boids, std::uint64_t seed = 21) {
  sim::Scenario s;
  s.name = name;
  s.description = "test room " + name;
  s.width = 120;
  s.height = 120;
  s.wrap = true;
  s.seed = seed;
  s.max_agents = 256;
  sim::GroupSpec g;
  g.name = "boids";
  g.count = boids;
  s.groups = {g};
  return s;
}

/// An in-process server: default room "lobby" (40 boids) plus rooms "beta" (10) and "gamma" (5).
class RoomServer {
 public:
  explicit RoomServer(std::function<void(config::Config&)> adjust = {}, const sim::Scenario* lobby = nullptr,
                      std::vector<sim::Scenario> more = {}) {
    cfg_.host = "127.0.0.1";
    cfg_.port = 0;
    cfg_.log_level = "debug";
    cfg_.admin_token = "tune-token";
    if (adjust) adjust(cfg_);
    std::vector<sim::Scenario> others = {world_named("gamma", 5, 3), world_named("beta", 10, 2)};
    for (sim::Scenario& m : more) others.push_back(std::move(m));
    server_ = std::make_unique<Server>(cfg_, lobby ? *lobby : world_named("lobby", 40), std::move(others), log_);
    server_->start();
    port_ = server_->port();
  }
  ~RoomServer() { stop(); }
  void stop() {
    if (!server_) return;
    server_->shutdown();
    server_->wait();
    server_.reset();
  }
  std::uint16_t port() const { return port_; }
  Server& server() { return *server_; }
  /// Waits up to `timeout` for `needle` in the log.
  bool logged(std::string_view needle, std::chrono::milliseconds timeout = 3s) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (sink_.count(needle) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(10ms);
    }
    return true;
  }

 private:
  config::Config cfg_;
  harness::LogSink sink_;
  std::ostream log_{&sink_};
  std::unique_ptr<Server> server_;
  std::uint16_t port_ = 0;
};

/// Connect and send a Join for `room`; the first server message (Welcome or Close).
inline v1::ServerMessage join_room(WsClient& c, std::uint16_t port, const std::string& room,
                                   codec::Role role = codec::Role::kSpectator) {
  EXPECT_TRUE(c.connect("127.0.0.1", port)) << c.error();
  codec::JoinRequest j{role, "tester", {}};
  j.room = room;
  std::string b;
  codec::encode_join(j, b);
  EXPECT_TRUE(c.send(b));
  std::string bytes;
  v1::ServerMessage m;
  EXPECT_EQ(c.receive(bytes, 3s), Receive::kMessage);
  EXPECT_TRUE(codec::decode_server_message(bytes_of(bytes), m).ok());
  return m;
}

/// One HTTP request with an optional bearer token and body: status and body.
inline std::pair<int, std::string> http(std::uint16_t port, const std::string& method, const std::string& target,
                                        const std::string& token = {}, const std::string& body = {}) {
  raw::Fd fd(raw::connect_tcp(port));
  std::string rest;
  const int code = raw::http_exchange(fd.get(),
                                      method + " " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" +
                                          (token.empty() ? "" : "Authorization: Bearer " + token + "\r\n") +
                                          (body.empty() ? "" : "Content-Type: application/json\r\n") +
                                          "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body,
                                      &rest);
  raw::wait_eof(fd.get(), 3s, &rest);
  return {code, rest};
}

inline json rooms_json(std::uint16_t port) {
  auto [code, body] = http(port, "GET", "/api/rooms");
  EXPECT_EQ(code, 200) << body;
  return json::parse(body, nullptr, false);
}

inline const json* room_entry(const json& j, const std::string& name) {
  for (const json& r : j["rooms"])
    if (r["name"] == name) return &r;
  return nullptr;
}

/// Wait (polling /api/rooms) until `pred` holds; false on timeout.
inline bool wait_rooms(std::uint16_t port, const std::function<bool(const json&)>& pred,
                       std::chrono::milliseconds timeout = 3s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred(rooms_json(port))) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

}  // namespace flockstep::server::net::rooms_harness
