#include "ops/agones.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "ops/log.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::ops {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// Why plain code on a thread of its own, and callbacks rather than coroutines: the client makes
// a few requests a second, one at a time, so it needs no concurrency, only a deadline per request
// (beast::tcp_stream's expiry, which applies to asynchronous operations). Each request runs its
// operations on a private io_context until they finish or the deadline closes the socket; the
// loop around them is ordinary sequential code. The earlier Asio-coroutine form of the same loop
// cost 28 CPU s to compile (the second largest unit of the server) against about half that now
// (docs/building.md), and the server's first start waits for it.

namespace {

/// A count the sidecar has not been told yet (forces the next report to send it).
constexpr std::uint32_t kUnknownCount = UINT32_MAX;

/// Largest sidecar answer read (GET /gameserver is a few KB); more is an error, not a buffer.
constexpr std::uint64_t kMaxResponseBytes = 256 * 1024;

struct Response {
  unsigned status = 0;  // 0 = no answer
  std::string body;
  std::string error;
};

/// One request on a fresh connection (the sidecar is on loopback; a few calls per second at most,
/// so keep-alive would save nothing worth its reconnect logic), run on `ioc` until it is done,
/// the deadline passes or `ioc` is stopped from another thread. Never throws.
Response request(asio::io_context& ioc, const std::string& host, std::uint16_t port, http::verb verb,
                 const std::string& target, std::string body, std::chrono::milliseconds timeout) {
  Response r;
  beast::tcp_stream stream(ioc);
  tcp::resolver resolver(ioc);
  http::request<http::string_body> req{verb, target, 11};
  req.set(http::field::host, host + ":" + std::to_string(port));
  req.set(http::field::connection, "close");
  if (verb != http::verb::get) {
    req.set(http::field::content_type, "application/json");
    req.body() = std::move(body);
    req.prepare_payload();
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxResponseBytes);
  auto fail = [&r](const beast::error_code& ec) { r.error = ec.message(); };
  ioc.restart();  // the previous request's run() left it stopped (out of work)
  stream.expires_after(timeout);
  // Each step starts the next from its completion handler; the handlers refer to this frame's
  // locals, which outlive them because run() returns only when none is pending.
  resolver.async_resolve(host, std::to_string(port), [&](const beast::error_code& ec, tcp::resolver::results_type eps) {
    if (ec) return fail(ec);
    stream.async_connect(eps, [&](const beast::error_code& ec2, const tcp::endpoint&) {
      if (ec2) return fail(ec2);
      http::async_write(stream, req, [&](const beast::error_code& ec3, std::size_t) {
        if (ec3) return fail(ec3);
        http::async_read(stream, buffer, parser, [&](const beast::error_code& ec4, std::size_t) {
          if (ec4) return fail(ec4);
          r.status = parser.get().result_int();
          r.body = std::move(parser.get().body());
        });
      });
    });
  });
  // Returns when every handler has run (the deadline closes the socket, which completes the
  // pending operation with an error), or at once when AgonesClient::stop() stopped the context:
  // then the pending handlers, which refer to this frame, are never run (nothing runs `ioc`
  // again; destroying it destroys them).
  ioc.run();
  if (r.status == 0 && r.error.empty()) r.error = "abandoned (client stopping)";
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return r;
}

bool ok(const Response& r) { return r.status >= 200 && r.status < 300; }

/// JSON bodies as the sidecar's gRPC gateway reads them (int64 fields may be numbers).
std::string key_value(const char* key, std::uint32_t value) {
  return nlohmann::json{{"key", key}, {"value", std::to_string(value)}}.dump();
}
std::string player_id(std::uint32_t slot) {
  return nlohmann::json{{"playerID", "slot-" + std::to_string(slot)}}.dump();
}

}  // namespace

std::optional<std::uint16_t> agones_port_from_env(const char* value) {
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string s(value);
  const bool digits = std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= '0' && c <= '9'; });
  errno = 0;
  const unsigned long long v = digits && s.size() <= 5 ? std::strtoull(s.c_str(), nullptr, 10) : 0;
  if (!digits || v < 1 || v > 65535)
    throw std::invalid_argument(std::string(kAgonesPortVariable) + ": '" + s + "' is not a port (1..65535)");
  return static_cast<std::uint16_t>(v);
}

RoomCounts room_counts(const ServerMetrics& metrics) {
  const auto clamp = [](std::int64_t v) {
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, UINT32_MAX));
  };
  return {clamp(metrics.clients_player.value()), clamp(metrics.clients_spectator.value())};
}

struct AgonesClient::Impl {
  Impl(AgonesOptions o, std::function<RoomCounts()> c, Logger& l)
      : options(std::move(o)), counts(std::move(c)), log(l) {}

  /// Thrown out of the loop when stop() was called (caught in the thread's body).
  struct Stopping {};

  /// One call; throws Stopping if stop() came first or arrived while it ran.
  Response call(http::verb verb, const char* target, std::string body = "{}") {
    if (stopping.load()) throw Stopping{};
    Response r = request(ioc, options.host, options.port, verb, target, std::move(body), kAgonesRequestTimeout);
    // stop() sets the flag before it stops the io_context, so a stop that raced with the
    // restart() inside request() is seen here at the latest.
    if (stopping.load()) throw Stopping{};
    if (!ok(r)) log.warn("agones_call_failed", {{"target", target}, {"status", r.status}, {"error", r.error}});
    return r;
  }

  /// Sleeps until `t`; throws Stopping as soon as stop() is called.
  void sleep_until(Clock::time_point t) {
    std::unique_lock lock(mutex);
    if (wake.wait_until(lock, t, [this] { return stopping.load(); })) throw Stopping{};
  }

  /// Push label and player-tracking changes; what failed is retried at the next poll.
  void report(RoomCounts now) {
    if (!reported || reported->players != now.players) {
      if (ok(call(http::verb::put, "/metadata/label", key_value("players", now.players)))) {
        if (!reported) reported = RoomCounts{now.players, kUnknownCount};
        reported->players = now.players;
      }
    }
    if (!reported || reported->spectators != now.spectators) {
      if (ok(call(http::verb::put, "/metadata/label", key_value("spectators", now.spectators)))) {
        if (!reported) reported = RoomCounts{kUnknownCount, now.spectators};
        reported->spectators = now.spectators;
      }
    }
    while (player_tracking && tracked < std::min(now.players, options.player_capacity)) {
      if (!ok(call(http::verb::post, "/alpha/player/connect", player_id(tracked + 1)))) break;
      ++tracked;
    }
    while (player_tracking && tracked > now.players) {
      if (!ok(call(http::verb::post, "/alpha/player/disconnect", player_id(tracked)))) break;
      --tracked;
    }
  }

  /// GET /gameserver: is this GameServer Allocated (handed to a match) yet?
  bool allocated() {
    const Response r = call(http::verb::get, "/gameserver");
    if (!ok(r)) return false;
    const auto j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("status") || !j["status"].is_object()) return false;
    const auto& state = j["status"].value("state", std::string());
    return state == "Allocated";
  }

  void run() {
    // Ready: the room is loaded and listening. The sidecar may come up after us: retry.
    while (!ok(call(http::verb::post, "/ready"))) sleep_until(Clock::now() + kAgonesRetryPeriod);
    ready_ack = true;
    log.info("agones_ready", {{"port", options.port}});
    if (options.player_capacity > 0) {
      const std::string body = nlohmann::json{{"count", std::to_string(options.player_capacity)}}.dump();
      player_tracking = ok(call(http::verb::put, "/alpha/player/capacity", body));
      log.info("agones_player_tracking", {{"enabled", player_tracking}, {"capacity", options.player_capacity}});
    }

    Clock::time_point next_health = Clock::now();
    std::optional<Clock::time_point> empty_since;
    bool had_clients = false;
    bool was_allocated = false;
    const bool shutdown_on_empty = options.empty_shutdown.count() > 0;
    for (;;) {
      const Clock::time_point now = Clock::now();
      const RoomCounts c = counts();
      if (!reported || *reported != c || tracked != std::min(c.players, options.player_capacity)) report(c);

      if (now >= next_health) {
        call(http::verb::post, "/health");  // a failure is logged; Agones counts misses
        next_health += options.health_period;
        if (next_health <= now) next_health = now + options.health_period;  // a stall: do not burst
        // An allocated server must not wait forever for players who never come.
        if (shutdown_on_empty && !had_clients && !was_allocated) was_allocated = allocated();
      }

      if (c.players + c.spectators > 0) {
        had_clients = true;
        empty_since.reset();
      } else if (shutdown_on_empty && (had_clients || was_allocated)) {
        if (!empty_since) empty_since = now;
        if (now - *empty_since >= options.empty_shutdown && ok(call(http::verb::post, "/shutdown"))) {
          log.info("agones_shutdown",
                   {{"empty_ms", std::chrono::duration_cast<std::chrono::milliseconds>(now - *empty_since).count()}});
          shutdown_ack = true;
          return;
        }
      }
      sleep_until(std::min(Clock::now() + options.poll_period, next_health));
    }
  }

  AgonesOptions options;
  std::function<RoomCounts()> counts;
  Logger& log;
  std::optional<RoomCounts> reported;  // what the sidecar has (labels)
  std::uint32_t tracked = 0;           // slots connected through player tracking
  bool player_tracking = false;
  std::atomic<bool> ready_ack{false};
  std::atomic<bool> shutdown_ack{false};
  std::atomic<bool> stopping{false};
  std::mutex mutex;  // for `wake` only
  std::condition_variable wake;
  asio::io_context ioc{1};  // the requests' (one at a time, on the client's thread)
  std::thread thread;
};

AgonesClient::AgonesClient(AgonesOptions options, std::function<RoomCounts()> counts, Logger& log)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(counts), log)) {}

AgonesClient::~AgonesClient() { stop(); }

void AgonesClient::start() {
  Impl& m = *impl_;
  if (m.thread.joinable() || m.stopping.load()) return;
  m.thread = std::thread([&m] {
    try {
      m.run();
    } catch (const Impl::Stopping&) {
      // stop() was called: end quietly.
    } catch (const std::exception& ex) {
      m.log.error("agones_client_stopped", {{"error", ex.what()}});
    }
  });
}

void AgonesClient::stop() {
  Impl& m = *impl_;
  {
    const std::lock_guard lock(m.mutex);  // so a sleeper cannot miss the notification
    m.stopping = true;
  }
  m.wake.notify_all();
  m.ioc.stop();  // an unfinished request is abandoned
  if (m.thread.joinable()) m.thread.join();
}

bool AgonesClient::ready() const { return impl_->ready_ack.load(); }
bool AgonesClient::shutdown_sent() const { return impl_->shutdown_ack.load(); }

unsigned http_status(const std::string& host, std::uint16_t port, const std::string& method, const std::string& target,
                     std::chrono::milliseconds timeout) {
  asio::io_context ioc{1};
  return request(ioc, host, port, http::string_to_verb(method), target, {}, timeout).status;
}

}  // namespace flockstep::server::ops
