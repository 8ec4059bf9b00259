#pragma once
/// \file server_context.hpp
/// State every connection shares: configuration, logging, metrics, the game, readiness, the
/// registry of live WebSocket sessions (to close them on shutdown) and connection counting.
/// No Boost here, so it is cheap to include.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "game/client_sink.hpp"

namespace flockstep::server::ops {
class Logger;
class Registry;
struct ServerMetrics;
}  // namespace flockstep::server::ops
namespace flockstep::server::game {
class Game;
class Rooms;
}  // namespace flockstep::server::game

namespace flockstep::server::net {

/// What the admin API shows about one live WebSocket session.
struct SessionInfo {
  std::string remote;         ///< peer address:port
  std::string role = "none";  ///< none (not joined yet) | player | spectator
  std::string name;           ///< display name from Join (validated UTF-8)
};

/// Live WebSocket sessions by connection id (weak: the registry never keeps one alive).
class SessionRegistry {
 public:
  void add(game::ConnectionId id, std::weak_ptr<game::ClientSink> s, std::string remote = {}) {
    std::lock_guard lock(mutex_);
    sessions_[id] = std::move(s);
    info_[id].remote = std::move(remote);
  }
  void remove(game::ConnectionId id) {
    std::lock_guard lock(mutex_);
    sessions_.erase(id);
    info_.erase(id);
  }
  /// Record what a session joined as (admin API).
  void set_joined(game::ConnectionId id, std::string role, std::string name) {
    std::lock_guard lock(mutex_);
    if (auto it = info_.find(id); it != info_.end()) {
      it->second.role = std::move(role);
      it->second.name = std::move(name);
    }
  }
  /// Every live session with its info, ordered by connection id.
  std::vector<std::pair<game::ConnectionId, SessionInfo>> list() const {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<game::ConnectionId, SessionInfo>> out(info_.begin(), info_.end());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }
  /// Ask one session to close; false when there is no such live session.
  bool close_one(game::ConnectionId id, game::CloseReason reason, const std::string& detail) {
    std::shared_ptr<game::ClientSink> s;
    {
      std::lock_guard lock(mutex_);
      if (auto it = sessions_.find(id); it != sessions_.end()) s = it->second.lock();
    }
    if (!s) return false;
    s->close(reason, detail);
    return true;
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
  }
  /// Ask every live session to close.
  void close_all(game::CloseReason reason, const std::string& detail) {
    std::unordered_map<game::ConnectionId, std::weak_ptr<game::ClientSink>> copy;
    {
      std::lock_guard lock(mutex_);
      copy = sessions_;
    }
    for (auto& [id, w] : copy)
      if (auto s = w.lock()) s->close(reason, detail);
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<game::ConnectionId, std::weak_ptr<game::ClientSink>> sessions_;
  std::unordered_map<game::ConnectionId, SessionInfo> info_;
};

/// Shared by the listener and every session. Outlives all of them (owned by net::Server).
struct ServerContext {
  const config::Config& config;
  ops::Logger& log;
  ops::Registry& registry;
  ops::ServerMetrics& metrics;
  game::Game& game;                ///< the default room's game
  game::Rooms& rooms;              ///< every room
  std::atomic<bool> ready{false};  ///< /readyz; false before start and from shutdown on
  std::atomic<bool> shutting_down{false};
  std::atomic<std::uint64_t> next_connection{1};
  std::atomic<std::uint32_t> open_connections{0};
  SessionRegistry sessions;
};

/// Counts one open TCP connection for as long as it lives (moved from HTTP to WS session).
class ConnectionGuard {
 public:
  ConnectionGuard() = default;
  explicit ConnectionGuard(ServerContext* ctx);
  ConnectionGuard(ConnectionGuard&& o) noexcept : ctx_(o.ctx_) { o.ctx_ = nullptr; }
  ConnectionGuard& operator=(ConnectionGuard&& o) noexcept;
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

 private:
  ServerContext* ctx_ = nullptr;
};

}  // namespace flockstep::server::net
