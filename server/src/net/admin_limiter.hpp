#pragma once
/// \file admin_limiter.hpp
/// Failed admin bearer attempts per client address: after kAdminFailuresPerWindow failures
/// inside kAdminFailureWindow, every admin request from that address gets 429 until the window
/// that began with its first failure ends (a correct token too: a guesser must not learn that
/// it has guessed right). The admin token is long and compared in constant time (access.hpp);
/// this bounds how fast anybody can guess at all and makes the guessing visible (the
/// flockstep_admin_auth_failures_total metric, `admin_denied` / `admin_rate_limited` log lines).
/// A fixed window per address is hand-written because it is a map and a counter; no library on
/// the dependency list has one. Pure (time is passed in), header-only, unit-tested on its own.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace flockstep::server::net {

/// Failed admin attempts tolerated per client address (IPv6 per /64) in one window.
inline constexpr std::uint32_t kAdminFailuresPerWindow = 10;
/// The window, starting at an address's first failure.
inline constexpr std::chrono::seconds kAdminFailureWindow{60};
/// Addresses tracked at once (bounds the memory many addresses can make it use); when full, the
/// expired windows are dropped, then the oldest window.
inline constexpr std::size_t kAdminFailureAddresses = 4096;

/// See file comment. Thread-safe.
class AdminLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  /// Is `key` (net::address_key) refused at `now`?
  bool limited(const std::string& key, Clock::time_point now) const {
    std::lock_guard lock(mutex_);
    const auto it = windows_.find(key);
    return it != windows_.end() && now - it->second.start < kAdminFailureWindow &&
           it->second.failures >= kAdminFailuresPerWindow;
  }

  /// One failed attempt of `key` at `now`.
  void failed(const std::string& key, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    auto it = windows_.find(key);
    if (it != windows_.end() && now - it->second.start >= kAdminFailureWindow) {
      it->second = Window{now, 0};
    } else if (it == windows_.end()) {
      if (windows_.size() >= kAdminFailureAddresses) make_room(now);
      it = windows_.emplace(key, Window{now, 0}).first;
    }
    ++it->second.failures;
  }

  std::size_t tracked() const {
    std::lock_guard lock(mutex_);
    return windows_.size();
  }

 private:
  struct Window {
    Clock::time_point start;
    std::uint32_t failures = 0;
  };

  void make_room(Clock::time_point now) {
    for (auto it = windows_.begin(); it != windows_.end();)
      it = now - it->second.start >= kAdminFailureWindow ? windows_.erase(it) : std::next(it);
    if (windows_.size() < kAdminFailureAddresses) return;
    auto oldest = windows_.begin();
    for (auto it = windows_.begin(); it != windows_.end(); ++it)
      if (it->second.start < oldest->second.start) oldest = it;
    windows_.erase(oldest);
  }

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Window> windows_;
};

}  // namespace flockstep::server::net
