#include "ops/agones.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
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
/// so keep-alive would save nothing worth its reconnect logic). Never throws.
asio::awaitable<Response> request(std::string host, std::uint16_t port, http::verb verb, std::string target,
                                  std::string body, std::chrono::milliseconds timeout) {
  Response r;
  const auto ex = co_await asio::this_coro::executor;
  beast::tcp_stream stream(ex);
  tcp::resolver resolver(ex);
  try {
    stream.expires_after(timeout);
    const auto endpoints = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
    co_await stream.async_connect(endpoints, asio::use_awaitable);
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, host + ":" + std::to_string(port));
    req.set(http::field::connection, "close");
    if (verb != http::verb::get) {
      req.set(http::field::content_type, "application/json");
      req.body() = std::move(body);
      req.prepare_payload();
    }
    co_await http::async_write(stream, req, asio::use_awaitable);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxResponseBytes);
    co_await http::async_read(stream, buffer, parser, asio::use_awaitable);
    r.status = parser.get().result_int();
    r.body = std::move(parser.get().body());
  } catch (const boost::system::system_error& e) {
    r.status = 0;
    r.error = e.code().message();
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  co_return r;
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

  asio::awaitable<Response> call(http::verb verb, const char* target, std::string body = "{}") {
    Response r = co_await request(options.host, options.port, verb, target, std::move(body), kAgonesRequestTimeout);
    if (!ok(r)) log.warn("agones_call_failed", {{"target", target}, {"status", r.status}, {"error", r.error}});
    co_return r;
  }

  asio::awaitable<void> sleep_until(Clock::time_point t) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    timer.expires_at(t);
    co_await timer.async_wait(asio::use_awaitable);
  }

  // Every co_await result below goes into a named local first: GCC 12 miscompiles a co_await
  // whose temporary result is used inside an if/while condition (the coroutine hits ud2).

  /// Push label and player-tracking changes; what failed is retried at the next poll.
  asio::awaitable<void> report(RoomCounts now) {
    if (!reported || reported->players != now.players) {
      const Response r = co_await call(http::verb::put, "/metadata/label", key_value("players", now.players));
      if (ok(r)) {
        if (!reported) reported = RoomCounts{now.players, kUnknownCount};
        reported->players = now.players;
      }
    }
    if (!reported || reported->spectators != now.spectators) {
      const Response r = co_await call(http::verb::put, "/metadata/label", key_value("spectators", now.spectators));
      if (ok(r)) {
        if (!reported) reported = RoomCounts{kUnknownCount, now.spectators};
        reported->spectators = now.spectators;
      }
    }
    while (player_tracking && tracked < std::min(now.players, options.player_capacity)) {
      const Response r = co_await call(http::verb::post, "/alpha/player/connect", player_id(tracked + 1));
      if (!ok(r)) break;
      ++tracked;
    }
    while (player_tracking && tracked > now.players) {
      const Response r = co_await call(http::verb::post, "/alpha/player/disconnect", player_id(tracked));
      if (!ok(r)) break;
      --tracked;
    }
  }

  /// GET /gameserver: is this GameServer Allocated (handed to a match) yet?
  asio::awaitable<bool> allocated() {
    const Response r = co_await call(http::verb::get, "/gameserver");
    if (!ok(r)) co_return false;
    const auto j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("status") || !j["status"].is_object()) co_return false;
    const auto& state = j["status"].value("state", std::string());
    co_return state == "Allocated";
  }

  asio::awaitable<void> run() {
    // Ready: the room is loaded and listening. The sidecar may come up after us: retry.
    for (;;) {
      const Response r = co_await call(http::verb::post, "/ready");
      if (ok(r)) break;
      co_await sleep_until(Clock::now() + kAgonesRetryPeriod);
    }
    ready_ack = true;
    log.info("agones_ready", {{"port", options.port}});
    if (options.player_capacity > 0) {
      const std::string body = nlohmann::json{{"count", std::to_string(options.player_capacity)}}.dump();
      const Response r = co_await call(http::verb::put, "/alpha/player/capacity", body);
      player_tracking = ok(r);
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
      if (!reported || *reported != c || tracked != std::min(c.players, options.player_capacity)) co_await report(c);

      if (now >= next_health) {
        const Response health =
            co_await call(http::verb::post, "/health");  // a failure is logged; Agones counts misses
        static_cast<void>(health);
        next_health += options.health_period;
        if (next_health <= now) next_health = now + options.health_period;  // a stall: do not burst
        // An allocated server must not wait forever for players who never come.
        if (shutdown_on_empty && !had_clients && !was_allocated) {
          const bool now_allocated = co_await allocated();
          was_allocated = now_allocated;
        }
      }

      if (c.players + c.spectators > 0) {
        had_clients = true;
        empty_since.reset();
      } else if (shutdown_on_empty && (had_clients || was_allocated)) {
        if (!empty_since) empty_since = now;
        if (now - *empty_since >= options.empty_shutdown) {
          const Response r = co_await call(http::verb::post, "/shutdown");
          if (ok(r)) {
            log.info("agones_shutdown",
                     {{"empty_ms", std::chrono::duration_cast<std::chrono::milliseconds>(now - *empty_since).count()}});
            shutdown_ack = true;
            co_return;
          }
        }
      }
      co_await sleep_until(std::min(Clock::now() + options.poll_period, next_health));
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
  std::thread thread;
  asio::io_context ioc{1};  // last: destroyed first, so the coroutine's frame goes before the state it uses
};

AgonesClient::AgonesClient(AgonesOptions options, std::function<RoomCounts()> counts, Logger& log)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(counts), log)) {}

AgonesClient::~AgonesClient() { stop(); }

void AgonesClient::start() {
  Impl& m = *impl_;
  if (m.thread.joinable()) return;
  asio::co_spawn(m.ioc, m.run(), [&m](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      m.log.error("agones_client_stopped", {{"error", ex.what()}});
    }
  });
  m.thread = std::thread([&m] { m.ioc.run(); });
}

void AgonesClient::stop() {
  Impl& m = *impl_;
  m.ioc.stop();
  if (m.thread.joinable()) m.thread.join();
}

bool AgonesClient::ready() const { return impl_->ready_ack.load(); }
bool AgonesClient::shutdown_sent() const { return impl_->shutdown_ack.load(); }

unsigned http_status(const std::string& host, std::uint16_t port, const std::string& method, const std::string& target,
                     std::chrono::milliseconds timeout) {
  asio::io_context ioc;
  unsigned status = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        const Response r = co_await request(host, port, http::string_to_verb(method), target, {}, timeout);
        status = r.status;
      },
      asio::detached);
  ioc.run();
  return status;
}

}  // namespace flockstep::server::ops
