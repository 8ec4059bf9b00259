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
#include "net/admin_limiter.hpp"

namespace flockstep::server::ops {
class Logger;
class Registry;
struct ServerMetrics;
}  // namespace flockstep::server::ops
namespace flockstep::server::game {
class Game;
class Rooms;
}  // namespace flockstep::server::game
namespace flockstep::server::config {
class ProxyList;
}

namespace flockstep::server::net {

/// What the admin API shows about one live WebSocket session.
struct SessionInfo {
  std::string remote;          ///< TCP peer address:port (a reverse proxy, when there is one)
  std::string address;         ///< client address: the peer, or what a trusted proxy named (client_address.hpp)
  std::string role = "none";   ///< none (not joined yet) | player | spectator
  std::string name;            ///< display name from Join (validated UTF-8)
  game::SendQueue send_queue;  ///< what the session has queued for its client (filled by list())
};

/// Live WebSocket sessions by connection id (weak: the registry never keeps one alive).
class SessionRegistry {
 public:
  void add(game::ConnectionId id, std::weak_ptr<game::ClientSink> s, std::string remote = {},
           std::string address = {}) {
    std::lock_guard lock(mutex_);
    sessions_[id] = std::move(s);
    info_[id].remote = std::move(remote);
    info_[id].address = std::move(address);
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
  /// Every live session with its info and its send queue now, ordered by connection id.
  std::vector<std::pair<game::ConnectionId, SessionInfo>> list() const {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<game::ConnectionId, SessionInfo>> out(info_.begin(), info_.end());
    for (auto& [id, info] : out)
      if (auto it = sessions_.find(id); it != sessions_.end())
        if (auto s = it->second.lock()) info.send_queue = s->send_queue();
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

/// Open connections (HTTP and WebSocket) per client address key (net::address_key: IPv4 address,
/// IPv6 /64) for max_sessions_per_address.
class AddressCounts {
 public:
  /// Count one more session of `address`; false (nothing counted) when it has `limit` already.
  /// `limit` 0 = unlimited.
  bool acquire(const std::string& address, std::uint32_t limit) {
    std::lock_guard lock(mutex_);
    std::uint32_t& n = counts_[address];
    if (limit != 0 && n >= limit) {
      if (n == 0) counts_.erase(address);
      return false;
    }
    ++n;
    return true;
  }
  void release(const std::string& address) {
    std::lock_guard lock(mutex_);
    if (auto it = counts_.find(address); it != counts_.end() && --it->second == 0) counts_.erase(it);
  }
  std::uint32_t count(const std::string& address) const {
    std::lock_guard lock(mutex_);
    const auto it = counts_.find(address);
    return it == counts_.end() ? 0 : it->second;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::uint32_t> counts_;
};

/// Holds one counted connection of an address key for as long as it lives (from the listener or
/// the first request through the HTTP session into the WS session).
class AddressSlot {
 public:
  AddressSlot() = default;
  AddressSlot(AddressCounts* counts, std::string address) : counts_(counts), address_(std::move(address)) {}
  AddressSlot(AddressSlot&& o) noexcept : counts_(o.counts_), address_(std::move(o.address_)) { o.counts_ = nullptr; }
  AddressSlot& operator=(AddressSlot&& o) noexcept {
    if (this != &o) {
      reset();
      counts_ = o.counts_;
      address_ = std::move(o.address_);
      o.counts_ = nullptr;
    }
    return *this;
  }
  ~AddressSlot() { reset(); }
  AddressSlot(const AddressSlot&) = delete;
  AddressSlot& operator=(const AddressSlot&) = delete;
  const std::string& address() const { return address_; }

 private:
  void reset() {
    if (counts_) counts_->release(address_);
    counts_ = nullptr;
  }
  AddressCounts* counts_ = nullptr;
  std::string address_;
};

/// Shared by the listener and every session. Outlives all of them (owned by net::Server).
struct ServerContext {
  const config::Config& config;
  ops::Logger& log;
  ops::Registry& registry;
  ops::ServerMetrics& metrics;
  game::Game& game;                          ///< the default room's game
  game::Rooms& rooms;                        ///< every room
  const config::ProxyList& trusted_proxies;  ///< parsed trusted_proxies (client_address.hpp)
  std::atomic<bool> ready{false};            ///< /readyz; false before start and from shutdown on
  std::atomic<bool> shutting_down{false};
  std::atomic<std::uint64_t> next_connection{1};
  std::atomic<std::uint32_t> open_connections{0};
  SessionRegistry sessions;
  AddressCounts sessions_per_address;  ///< max_sessions_per_address: open connections per address key
  AdminLimiter admin_failures;         ///< failed admin bearer attempts per address key (admin_limiter.hpp)
  /// Test-only control (Server::set_scenario_route_waits): GET /api/rooms/<name>/scenario waits
  /// for the game thread's answer as routes did before published copies, so the route-hammer
  /// test can show that its spectator-cadence check catches a route that waits. Never set by
  /// the product.
  std::atomic<bool> scenario_route_waits{false};
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
