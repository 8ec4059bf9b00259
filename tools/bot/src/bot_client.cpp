// The one translation unit of the bot library that instantiates Beast's WebSocket and HTTP
// client code (WsClient, http_request, run_bots).
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <sstream>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "bot.hpp"
#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "core/protocol_core.hpp"
#include "flockstep/math/rng.hpp"
#include "ws_client.hpp"

namespace flockstep::bot {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

/// Run `ioc` until `done()` or the deadline; false on timeout.
bool run_until(asio::io_context& ioc, const std::function<bool()>& done, Clock::time_point deadline) {
  while (!done()) {
    if (ioc.stopped()) ioc.restart();
    const std::size_t n = ioc.run_one_until(deadline);
    if (n == 0) {
      if (Clock::now() >= deadline) return done();
      if (ioc.stopped()) return done();  // no work left: nothing will change
    }
  }
  return true;
}

}  // namespace

// ------------------------------------------------------------------------------------------
// WsClient
// ------------------------------------------------------------------------------------------

struct WsClient::Impl {
  asio::io_context ioc;
  websocket::stream<beast::tcp_stream> ws{ioc};
  beast::flat_buffer buffer;
  std::deque<std::string> inbox;
  bool closed = false;
  std::uint16_t close_code = 0;
  std::string close_reason;
  std::string error;

  // do_read: keep one read outstanding for the life of the connection.
  void do_read() {
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      if (ec) {
        closed = true;
        close_code = static_cast<std::uint16_t>(ws.reason().code);
        close_reason = std::string(ws.reason().reason.data(), ws.reason().reason.size());
        if (ec != websocket::error::closed) error = ec.message();
        return;
      }
      inbox.push_back(beast::buffers_to_string(buffer.data()));
      buffer.consume(buffer.size());
      do_read();
    });
  }
};

WsClient::WsClient() : impl_(std::make_unique<Impl>()) {}
WsClient::~WsClient() {
  beast::error_code ec;
  beast::get_lowest_layer(impl_->ws).socket().close(ec);
  impl_->ioc.stop();
}

bool WsClient::connect(const std::string& host, std::uint16_t port, const std::string& target,
                       std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  const auto deadline = Clock::now() + timeout;
  bool done = false, ok = false;
  tcp::resolver resolver(m.ioc);
  beast::error_code ec;
  const auto endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec) {
    m.error = ec.message();
    return false;
  }
  beast::get_lowest_layer(m.ws).expires_after(timeout);
  beast::get_lowest_layer(m.ws).async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) {
    if (e) {
      m.error = "connect: " + e.message();
      done = true;
      return;
    }
    beast::get_lowest_layer(m.ws).socket().set_option(tcp::no_delay(true));
    m.ws.async_handshake(host + ":" + std::to_string(port), target, [&](beast::error_code h) {
      done = true;
      if (h) {
        m.error = "handshake: " + h.message();
        return;
      }
      ok = true;
    });
  });
  run_until(
      m.ioc, [&] { return done; }, deadline);
  if (!ok) return false;
  beast::get_lowest_layer(m.ws).expires_never();
  m.ws.binary(true);
  m.do_read();
  return true;
}

bool WsClient::send(std::string_view bytes, bool text) {
  Impl& m = *impl_;
  if (m.closed) return false;
  bool done = false, ok = false;
  m.ws.text(text);
  m.ws.async_write(asio::buffer(bytes.data(), bytes.size()), [&](beast::error_code ec, std::size_t) {
    done = true;
    ok = !ec;
    if (ec) m.error = ec.message();
  });
  run_until(
      m.ioc, [&] { return done; }, Clock::now() + std::chrono::seconds(5));
  return ok;
}

bool WsClient::send_raw(std::string_view bytes) {
  Impl& m = *impl_;
  bool done = false, ok = false;
  asio::async_write(beast::get_lowest_layer(m.ws).socket(), asio::buffer(bytes.data(), bytes.size()),
                    [&](beast::error_code ec, std::size_t) {
                      done = true;
                      ok = !ec;
                    });
  run_until(
      m.ioc, [&] { return done; }, Clock::now() + std::chrono::seconds(5));
  return ok;
}

Receive WsClient::receive(std::string& out, std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  run_until(
      m.ioc, [&] { return !m.inbox.empty() || m.closed; }, Clock::now() + timeout);
  if (!m.inbox.empty()) {
    out = std::move(m.inbox.front());
    m.inbox.pop_front();
    return Receive::kMessage;
  }
  return m.closed ? Receive::kClosed : Receive::kTimeout;
}

bool WsClient::wait_closed(std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  run_until(
      m.ioc,
      [&] {
        m.inbox.clear();
        return m.closed;
      },
      Clock::now() + timeout);
  return m.closed;
}

void WsClient::close() {
  Impl& m = *impl_;
  if (m.closed) return;
  bool done = false;
  m.ws.async_close(websocket::close_code::normal, [&](beast::error_code) { done = true; });
  run_until(
      m.ioc, [&] { return done && m.closed; }, Clock::now() + std::chrono::seconds(2));
}

bool WsClient::closed() const { return impl_->closed; }
std::uint16_t WsClient::close_code() const { return impl_->close_code; }
std::string WsClient::close_reason() const { return impl_->close_reason; }
std::string WsClient::error() const { return impl_->error; }

// ------------------------------------------------------------------------------------------
// http_request
// ------------------------------------------------------------------------------------------

HttpResponse http_request(const std::string& host, std::uint16_t port, const std::string& method,
                          const std::string& target, std::chrono::milliseconds timeout) {
  HttpResponse r;
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  const auto endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec) {
    r.error = ec.message();
    return r;
  }
  http::request<http::empty_body> req{http::string_to_verb(method), target, 11};
  if (req.method() == http::verb::unknown) req.method_string(method);
  req.set(http::field::host, host);
  req.set(http::field::connection, "close");
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  if (req.method() == http::verb::head) parser.skip(true);  // a HEAD response has no body
  bool done = false;
  stream.expires_after(timeout);
  stream.async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) {
    if (e) {
      r.error = "connect: " + e.message();
      done = true;
      return;
    }
    http::async_write(stream, req, [&](beast::error_code w, std::size_t) {
      if (w) {
        r.error = "write: " + w.message();
        done = true;
        return;
      }
      http::async_read(stream, buffer, parser, [&](beast::error_code rd, std::size_t) {
        done = true;
        if (rd) {
          r.error = "read: " + rd.message();
          return;
        }
        r.status = static_cast<int>(parser.get().result_int());
        r.body = parser.get().body();
        r.content_type = std::string(parser.get()[http::field::content_type]);
      });
    });
  });
  run_until(
      ioc, [&] { return done; }, Clock::now() + timeout + std::chrono::milliseconds(100));
  return r;
}

// ------------------------------------------------------------------------------------------
// run_bots
// ------------------------------------------------------------------------------------------

namespace {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

/// One bot connection (async, shares the run's io_context and thread): Beast moves the bytes,
/// the client's protocol core (core/protocol_core.hpp) speaks the protocol (Join, Welcome, acks,
/// pongs, the input window); this class keeps the run's statistics.
class BotConn : public std::enable_shared_from_this<BotConn> {
 public:
  BotConn(asio::io_context& ioc, const BotConfig& cfg, BotReport& report, bool player, std::uint32_t index)
      : ws_(ioc),
        timer_(ioc),
        ack_timer_(ioc),
        cfg_(cfg),
        report_(report),
        role_(player ? report.player : report.spectator),
        player_(player),
        index_(index),
        rng_(math::Rng::seeded(cfg.seed, index + 1)) {}

  /// Per-connection figures into the role report (call once, after the run).
  void finish() {
    if (!gaps_.empty()) role_.client_p99_ms.push_back(percentile(gaps_, 0.99));
    if (closed_ && !stopped_) ++role_.unexpected_closes;
    role_.acks_sent += core_.acks_sent();
  }

  void start(const tcp::resolver::results_type& endpoints) {
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(10));
    beast::get_lowest_layer(ws_).async_connect(
        endpoints, [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) { self->on_connect(ec); });
  }

  void stop() {
    stopped_ = true;
    timer_.cancel();
    ack_timer_.cancel();
    if (!closed_ && !closing_) {
      closing_ = true;
      ws_.async_close(websocket::close_code::normal, [self = shared_from_this()](beast::error_code) {});
    }
  }

 private:
  void on_connect(beast::error_code ec) {
    if (ec) return error();
    beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true));
    ws_.async_handshake(cfg_.host + ":" + std::to_string(cfg_.port), cfg_.target,
                        [self = shared_from_this()](beast::error_code e) { self->on_handshake(e); });
  }

  void on_handshake(beast::error_code ec) {
    if (ec) return error();
    beast::get_lowest_layer(ws_).expires_never();
    ws_.binary(true);
    ++role_.connected;
    client::CoreConfig c;
    c.role = player_ ? codec::Role::kPlayer : codec::Role::kSpectator;
    c.display_name = cfg_.name + "-" + std::to_string(index_);
    c.room = cfg_.room;
    c.decode_snapshots = cfg_.decode;  // off: acknowledge without decoding (load runs at scale)
    c.predict = false;                 // a bot has no craft to draw: the window is enough
    c.max_input_frames = kInputWindow;
    core_.start(std::move(c), 0);
    // Spectators send `view` with their first Ack (the core does).
    if (!player_ && cfg_.have_view) core_.set_view({cfg_.view[0], cfg_.view[1], cfg_.view[2], cfg_.view[3]});
    write(core_.opened(0));
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec) {
      closed_ = true;
      timer_.cancel();
      if (ec == websocket::error::closed) ++report_.close_codes[static_cast<std::uint16_t>(ws_.reason().code)];
      else if (!stopped_) ++report_.errors;
      return;
    }
    // Decoded in place from the read buffer (a flat_buffer: one contiguous message), so a
    // message costs no allocation or copy here; Beast reads as much as the socket holds per
    // recv (read_size_hint), so a burst of frames is one system call.
    const auto data = buffer_.cdata();
    const std::span<const std::byte> bytes(static_cast<const std::byte*>(data.data()), data.size());
    // The bot's clock is not needed by the core (it keeps no link timers for the bot).
    const client::ReceiveResult r = core_.receive(bytes, 0);
    if (r.reply) {
      const bool ack = r.type == client::Received::kSnapshot || r.type == client::Received::kSnapshotSkipped;
      if (ack && cfg_.ack_delay_ms > 0) delay_ack(*r.reply);
      else write(*r.reply);
    }
    handle(r, core_.message(), bytes.size());
    buffer_.consume(buffer_.size());
    do_read();
  }

  void handle(const client::ReceiveResult& r, const v1::ServerMessage& msg, std::size_t size) {
    switch (r.type) {
      case client::Received::kWelcome:
        ++role_.welcomed;
        if (player_ && cfg_.script != "idle") schedule_input();
        break;
      case client::Received::kSnapshot:
      case client::Received::kSnapshotSkipped: {
        const v1::DeltaSnapshot& d = msg.delta_snapshot();
        const auto now = Clock::now();
        if (have_last_) {
          const double gap = std::chrono::duration<double, std::milli>(now - last_snapshot_).count();
          role_.inter_arrival_ms.push_back(gap);
          gaps_.push_back(gap);
        }
        last_snapshot_ = now;
        have_last_ = true;
        ++role_.snapshots;
        role_.snapshot_bytes += size;
        role_.full_snapshots += d.baseline_tick() == 0 ? 1 : 0;
        if (cfg_.decode) {
          // As the viewer does: the core decoded it against the baseline and acknowledged what
          // was decoded (a stale one decodes fine, it is only not newer).
          if (r.type == client::Received::kSnapshot || r.stale) {
            const auto n = static_cast<std::uint32_t>(core_.agents().size());
            role_.agents_received += n;
            report_.max_agents_seen = std::max(report_.max_agents_seen, n);
          } else {
            ++report_.decode_errors;
          }
        } else {
          role_.agents_received += d.agent_count();  // bytes per agent without decoding
          report_.max_agents_seen = std::max(report_.max_agents_seen, d.agent_count());
        }
        break;
      }
      case client::Received::kPlainSnapshot: {
        const auto now = Clock::now();
        if (have_last_)
          role_.inter_arrival_ms.push_back(std::chrono::duration<double, std::milli>(now - last_snapshot_).count());
        last_snapshot_ = now;
        have_last_ = true;
        ++role_.snapshots;
        role_.snapshot_bytes += size;
        report_.max_agents_seen =
            std::max<std::uint32_t>(report_.max_agents_seen, static_cast<std::uint32_t>(msg.snapshot().agents_size()));
        break;
      }
      case client::Received::kEvents:
        ++role_.events;
        role_.captures_seen += static_cast<std::uint64_t>(msg.events().captures_size());
        break;
      default: break;  // pings are answered by the core's reply above
    }
  }

  void schedule_input() {
    timer_.expires_after(std::chrono::microseconds(1000000 / std::max<std::uint32_t>(cfg_.input_hz, 1)));
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->send_input();
    });
  }

  void send_input() {
    if (stopped_ || closed_) return;
    sim::PlayerInput in;
    if (cfg_.script == "constant") {
      in = {cfg_.turn, cfg_.throttle};
    } else {
      if (rng_.chance(0.02)) {
        turn_ = rng_.uniform(-1, 1);
        throttle_ = rng_.uniform(0.5, 1);
      }
      in = {turn_, throttle_};
    }
    core_.advance(in);
    // Resend everything not yet acknowledged (the core's window, at most kInputWindow), so a
    // lost message costs nothing.
    if (const std::string* bytes = core_.input_message()) {
      ++role_.inputs_sent;
      write(*bytes);
    }
    schedule_input();
  }

  // write: queue a copy of `bytes` in a recycled string (acks and pongs go out ~20 times a
  // second per connection: their buffers are reused, not allocated each time).
  void write(std::string_view bytes) {
    if (closed_ || closing_) return;
    if (outbox_.size() > 64) return;  // the server is not reading; do not grow without bound
    std::string buf;
    if (!spare_.empty()) {
      buf = std::move(spare_.back());
      spare_.pop_back();
    }
    buf.assign(bytes);
    outbox_.push_back(std::move(buf));
    if (outbox_.size() == 1) do_write();
  }
  void do_write() {
    ws_.async_write(asio::buffer(outbox_.front()), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return;
      if (self->spare_.size() < 4) self->spare_.push_back(std::move(self->outbox_.front()));
      self->outbox_.pop_front();
      if (!self->outbox_.empty() && !self->closing_) self->do_write();
    });
  }

  void error() {
    ++report_.errors;
    closed_ = true;
  }

  /// --ack-delay-ms: the acknowledgement leaves that much later (a longer round trip for acks
  /// only; in order, as on one TCP stream).
  void delay_ack(const std::string& bytes) {
    delayed_acks_.emplace_back(
        Clock::now() + std::chrono::microseconds(static_cast<std::int64_t>(cfg_.ack_delay_ms * 1000)), bytes);
    if (delayed_acks_.size() == 1) arm_ack_timer();
  }
  void arm_ack_timer() {
    ack_timer_.expires_at(delayed_acks_.front().first);
    ack_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->closed_) return;
      while (!self->delayed_acks_.empty() && self->delayed_acks_.front().first <= Clock::now()) {
        self->write(self->delayed_acks_.front().second);
        self->delayed_acks_.pop_front();
      }
      if (!self->delayed_acks_.empty()) self->arm_ack_timer();
    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  asio::steady_timer timer_;
  asio::steady_timer ack_timer_;  // --ack-delay-ms
  beast::flat_buffer buffer_;
  const BotConfig& cfg_;
  BotReport& report_;
  RoleReport& role_;
  bool player_;
  std::uint32_t index_;
  math::Rng rng_;
  std::deque<std::string> outbox_;
  std::deque<std::pair<Clock::time_point, std::string>> delayed_acks_;  // --ack-delay-ms
  std::vector<std::string> spare_;                                      // sent buffers kept for reuse
  static constexpr std::uint32_t kInputWindow = 32;                     // inputs per message at most
  client::ProtocolCore core_;
  double turn_ = 0, throttle_ = 1;
  Clock::time_point last_snapshot_;
  bool have_last_ = false;
  std::vector<double> gaps_;
  bool closed_ = false, closing_ = false, stopped_ = false;
};

}  // namespace

double RoleReport::median_ms() const { return percentile(inter_arrival_ms, 0.5); }
double RoleReport::p99_ms() const { return percentile(inter_arrival_ms, 0.99); }
double RoleReport::max_ms() const {
  return inter_arrival_ms.empty() ? 0 : *std::max_element(inter_arrival_ms.begin(), inter_arrival_ms.end());
}

std::string BotReport::summary() const {
  std::ostringstream o;
  auto role = [&](const char* name, const RoleReport& r) {
    o << name << ": connected " << r.connected << ", welcomed " << r.welcomed << ", snapshots " << r.snapshots << " ("
      << r.snapshot_bytes << " B), events " << r.events << ", captures seen " << r.captures_seen << ", inputs sent "
      << r.inputs_sent << ", inter-arrival ms median " << r.median_ms() << " p99 " << r.p99_ms() << " max "
      << r.max_ms() << "\n";
  };
  role("players", player);
  role("spectators", spectator);
  o << "errors " << errors << ", max agents in a snapshot " << max_agents_seen << ", decode errors " << decode_errors
    << ", server close codes:";
  for (const auto& [code, n] : close_codes) o << " " << code << "x" << n;
  o << "\n";
  auto per_client = [&](const char* name, const RoleReport& r) {
    if (r.snapshots == 0) return;
    const double secs = duration_s > 0 ? duration_s : 1;
    const auto clients = std::max<std::size_t>(1, r.client_p99_ms.size());
    o << name << ": per client "
      << static_cast<double>(r.snapshot_bytes) * 8 / 1000 / secs / static_cast<double>(clients) << " kbit/s, "
      << static_cast<double>(r.snapshot_bytes) / static_cast<double>(r.snapshots) << " B/snapshot, "
      << static_cast<double>(r.agents_received) / static_cast<double>(r.snapshots) << " agents/snapshot, "
      << (r.agents_received ? static_cast<double>(r.snapshot_bytes) / static_cast<double>(r.agents_received) : 0)
      << " B/agent, full snapshots " << r.full_snapshots << ", acks per snapshot "
      << static_cast<double>(r.acks_sent) / static_cast<double>(r.snapshots)
      << ", inter-arrival p99 per client: median " << percentile(r.client_p99_ms, 0.5) << " ms, worst "
      << (r.client_p99_ms.empty() ? 0 : *std::max_element(r.client_p99_ms.begin(), r.client_p99_ms.end()))
      << " ms, unexpected disconnects " << r.unexpected_closes << "\n";
  };
  per_client("players", player);
  per_client("spectators", spectator);
  if (have_metrics)
    o << "server (/metrics over the run): tick p50 <= " << tick_p50_ms << " ms, p99 <= " << tick_p99_ms << " ms, ticks "
      << ticks << ", overruns " << tick_overruns << ", skipped " << ticks_skipped
      << ", snapshots replaced (slow clients) " << snapshots_dropped << ", paced (lagging clients) " << snapshots_paced
      << ", clients dropped " << clients_dropped << "\n";
  return o.str();
}

/// The numbers of a Prometheus text page we need: sums of a counter over its labels, and the
/// cumulative buckets of a histogram.
struct Scrape {
  std::map<std::string, double> counters;               // name -> sum over label sets
  std::vector<std::pair<double, double>> tick_buckets;  // (le seconds, cumulative count)
};

Scrape scrape(const BotConfig& cfg) {
  Scrape s;
  const HttpResponse r = http_request(cfg.host, cfg.port, "GET", "/metrics", std::chrono::seconds(5));
  std::istringstream in(r.body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    const double value = std::strtod(line.c_str() + sp + 1, nullptr);
    const std::string key = line.substr(0, sp);
    const std::string name = key.substr(0, key.find('{'));
    if (name == "flockstep_tick_duration_seconds_bucket") {
      const auto le = key.find("le=\"");
      if (le == std::string::npos) continue;
      const std::string bound = key.substr(le + 4, key.find('"', le + 4) - le - 4);
      s.tick_buckets.emplace_back(bound == "+Inf" ? 1e9 : std::strtod(bound.c_str(), nullptr), value);
    } else {
      s.counters[name] += value;
    }
  }
  return s;
}

/// Upper bound (ms) of the bucket holding quantile q of the run (difference of two scrapes).
double bucket_quantile_ms(const Scrape& a, const Scrape& b, double q) {
  if (a.tick_buckets.size() != b.tick_buckets.size() || b.tick_buckets.empty()) return 0;
  const double total = b.tick_buckets.back().second - a.tick_buckets.back().second;
  for (std::size_t i = 0; i < b.tick_buckets.size(); ++i)
    if (b.tick_buckets[i].second - a.tick_buckets[i].second >= q * total) return b.tick_buckets[i].first * 1000;
  return 0;
}

BotReport run_bots(const BotConfig& cfg) {
  BotReport report;
  Scrape before;
  if (cfg.report) before = scrape(cfg);
  const auto started = Clock::now();
  asio::io_context ioc;
  tcp::resolver resolver(ioc);
  const auto endpoints = resolver.resolve(cfg.host, std::to_string(cfg.port));
  std::vector<std::shared_ptr<BotConn>> conns;
  conns.reserve(cfg.connections);
  auto start_one = [&] {
    const auto i = static_cast<std::uint32_t>(conns.size());
    conns.push_back(std::make_shared<BotConn>(ioc, cfg, report, i < cfg.players, i));
    conns.back()->start(endpoints);
  };
  // A join ramp (--connect-rate): the connections due by now every 10 ms, so a bench can tell
  // the cost of serving N clients from the cost of N handshakes arriving at once.
  const double ramp_s = cfg.connect_rate > 0 ? cfg.connections / cfg.connect_rate : 0;
  asio::steady_timer ramp(ioc);
  std::function<void()> ramp_step = [&] {
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    const auto due =
        std::min<std::uint64_t>(cfg.connections, static_cast<std::uint64_t>(elapsed * cfg.connect_rate) + 1);
    while (conns.size() < due) start_one();
    if (conns.size() >= cfg.connections) return;
    ramp.expires_after(std::chrono::milliseconds(10));
    ramp.async_wait([&](beast::error_code ec) {
      if (!ec) ramp_step();
    });
  };
  if (ramp_s > 0) ramp_step();
  else
    while (conns.size() < cfg.connections) start_one();
  const auto run_for =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(ramp_s + cfg.duration_s));
  asio::steady_timer end(ioc);
  end.expires_after(run_for);
  end.async_wait([&](beast::error_code) {
    ramp.cancel();
    for (auto& c : conns) c->stop();
  });
  // Give the close handshakes a moment after the run, then stop whatever is left.
  ioc.run_until(started + run_for + std::chrono::seconds(2));
  report.duration_s =
      cfg.duration_s > 0 ? ramp_s + cfg.duration_s : std::chrono::duration<double>(Clock::now() - started).count();
  for (auto& c : conns) c->finish();
  if (cfg.report) {
    const Scrape after = scrape(cfg);
    auto delta = [&](const char* name) {
      return after.counters.count(name) ? after.counters.at(name) - before.counters[name] : 0.0;
    };
    report.have_metrics = !after.tick_buckets.empty();
    report.tick_p50_ms = bucket_quantile_ms(before, after, 0.5);
    report.tick_p99_ms = bucket_quantile_ms(before, after, 0.99);
    report.ticks =
        after.tick_buckets.empty()
            ? 0
            : after.tick_buckets.back().second - (before.tick_buckets.empty() ? 0 : before.tick_buckets.back().second);
    report.tick_overruns = delta("flockstep_tick_overruns_total");
    report.ticks_skipped = delta("flockstep_ticks_skipped_total");
    report.snapshots_dropped = delta("flockstep_snapshots_dropped_total");
    report.clients_dropped = delta("flockstep_clients_dropped_total");
    report.snapshots_paced = delta("flockstep_snapshots_paced_total");
  }
  return report;
}

}  // namespace flockstep::bot
