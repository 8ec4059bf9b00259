#include "net/server.hpp"

#include <atomic>
#include <chrono>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "config/trusted_proxies.hpp"
#include "game/game.hpp"
#include "game/recorder.hpp"
#include "game/rooms.hpp"
#include "net/listener.hpp"
#include "net/server_context.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::net {

namespace asio = boost::asio;

namespace {

ops::Logger::Options log_options(const config::Config& c) {
  ops::Logger::Options o;
  ops::parse_format(c.log_format, o.format);
  ops::parse_level(c.log_level, o.min_level);
  o.rate_per_second = c.log_rate_per_s;
  o.burst = 2.0 * c.log_rate_per_s;
  return o;
}

game::RoomConfig room_config(const config::Config& c) {
  game::RoomConfig r;
  r.tick_rate_hz = c.tick_rate_hz;
  r.snapshot_rate_hz = c.snapshot_rate_hz;
  r.max_players = c.max_players;
  r.bots = c.bots;
  r.resume_window_ms = c.resume_window_ms;
  r.input_buffer_ticks = c.input_buffer_ticks;
  r.max_input_frames = c.max_input_frames;
  r.snapshot_budget_kbps = c.snapshot_budget_kbps;
  r.aoi_radius_m = c.aoi_radius_m;
  r.aoi_hysteresis_m = c.aoi_hysteresis_m;
  r.ack_every_snapshots = c.ack_every_snapshots;
  r.sim_threads = c.sim_threads;
  return r;
}

game::RoomsConfig rooms_config(const config::Config& c) {
  game::RoomsConfig r;
  r.room = room_config(c);
  r.max_catchup_ticks = c.max_catchup_ticks;
  r.max_rooms = c.max_rooms;
  r.idle_close = std::chrono::milliseconds(c.room_idle_close_ms);
  r.make_way = c.room_eviction == "on";
  r.state_dir = c.state_dir;
  r.save_interval = std::chrono::seconds(c.state_save_interval_s);
  r.input_logs.dir = c.recordings_dir;
  r.published = {c.published_dir, c.published_max, c.published_max_agents};
  r.input_logs.seek_interval_s = c.record_seek_s;
  r.input_logs.max_bytes = std::uint64_t{c.recording_max_mb} << 20;
  r.input_logs.max_files = c.recordings_max;
  for (std::size_t at = 0; at <= c.record_rooms.size();) {
    const std::size_t comma = std::min(c.record_rooms.find(',', at), c.record_rooms.size());
    std::string name = c.record_rooms.substr(at, comma - at);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty()) r.record_rooms.push_back(std::move(name));
    at = comma + 1;
  }
  return r;
}

}  // namespace

struct Server::Impl {
  Impl(const config::Config& c, sim::Scenario scenario, std::vector<sim::Scenario> others, std::ostream& out)
      : config(c),
        metrics(registry),
        log(log_options(c), out),
        rooms(rooms_config(c), std::move(scenario), std::move(others), &metrics, &log),
        trusted_proxies(config::ProxyList::parse(c.trusted_proxies)),
        ioc(static_cast<int>(c.threads)),
        ctx{config, log, registry, metrics, rooms.default_game(), rooms, trusted_proxies, {false}, {false}, {1}, {0},
            {},     {},  {},       {false}},
        signals(ioc),
        drain_timer(ioc) {
    log.set_suppressed_counter(&metrics.log_lines_suppressed);
    if (!c.record.empty()) {
      auto rec = std::make_unique<game::Recorder>(c.record, c.record_keyframe_s, &log);
      if (rec->ok()) {
        log.info("recording",
                 {{"file", c.record}, {"room", rooms.default_name()}, {"keyframe_s", c.record_keyframe_s}});
        rooms.default_game().set_recorder(std::move(rec));
      }
    }
  }

  using Clock = std::chrono::steady_clock;
  void drain_step(Clock::time_point deadline);

  config::Config config;
  ops::Registry registry;
  ops::ServerMetrics metrics;
  ops::Logger log;
  game::Rooms rooms;
  config::ProxyList trusted_proxies;
  asio::io_context ioc;
  ServerContext ctx;
  std::shared_ptr<Listener> listener;
  std::shared_ptr<Listener> metrics_listener;  // metrics_port; null = /metrics on the game port
  asio::signal_set signals;
  asio::steady_timer drain_timer;
  std::vector<std::thread> threads;
  std::atomic<bool> shutdown_started{false};
};

// drain_step: poll until every WebSocket session is gone or the deadline passes, then stop I/O.
void Server::Impl::drain_step(Clock::time_point deadline) {
  if (ctx.sessions.size() == 0 || Clock::now() >= deadline) {
    log.info("shutdown_complete", {{"sessions_left", static_cast<std::uint64_t>(ctx.sessions.size())}});
    ioc.stop();
    return;
  }
  drain_timer.expires_after(std::chrono::milliseconds(20));
  drain_timer.async_wait([this, deadline](boost::system::error_code ec) {
    if (!ec) drain_step(deadline);
  });
}

Server::Server(const config::Config& config, sim::Scenario scenario, std::ostream& log_out)
    : impl_(std::make_unique<Impl>(config, std::move(scenario), std::vector<sim::Scenario>{}, log_out)) {}

Server::Server(const config::Config& config, sim::Scenario scenario, std::vector<sim::Scenario> others,
               std::ostream& log_out)
    : impl_(std::make_unique<Impl>(config, std::move(scenario), std::move(others), log_out)) {}

Server::~Server() {
  shutdown();
  wait();
  impl_->rooms.stop();
}

void Server::start() {
  Impl& m = *impl_;
  const asio::ip::tcp::endpoint ep(asio::ip::make_address(m.config.host), static_cast<unsigned short>(m.config.port));
  m.listener = std::make_shared<Listener>(m.ioc, ep, m.ctx);
  m.listener->run();
  if (!m.config.metrics_port.empty()) {  // /metrics on its own listener (same host), not on the game port
    const asio::ip::tcp::endpoint mep(asio::ip::make_address(m.config.host),
                                      static_cast<unsigned short>(std::stoul(m.config.metrics_port)));
    m.metrics_listener = std::make_shared<Listener>(m.ioc, mep, m.ctx, PortRole::kMetrics);
    m.metrics_listener->run();
  }
  m.rooms.start();
  for (std::uint32_t i = 0; i < m.config.threads; ++i) m.threads.emplace_back([&m] { m.ioc.run(); });
  m.ctx.ready = true;
  m.log.info("listening",
             {{"host", m.config.host},
              {"port", m.listener->port()},
              {"metrics", m.metrics_listener ? m.config.host + ":" + std::to_string(m.metrics_listener->port())
                                             : std::string("game port")},
              {"threads", m.config.threads},
              {"tick_rate_hz", m.config.tick_rate_hz},
              {"snapshot_rate_hz", m.config.snapshot_rate_hz},
              {"web_root", m.config.web_root},
              {"default_room", m.rooms.default_name()},
              {"max_rooms", m.config.max_rooms},
              {"rooms_restored", static_cast<std::uint64_t>(m.rooms.restored_count())}});
}

void Server::handle_signals() {
  Impl& m = *impl_;
  m.signals.add(SIGINT);
  m.signals.add(SIGTERM);
  m.signals.async_wait([this](boost::system::error_code ec, int sig) {
    if (ec) return;
    impl_->log.info("signal", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    shutdown();
  });
}

void Server::shutdown() {
  Impl& m = *impl_;
  if (m.shutdown_started.exchange(true)) return;
  m.ctx.ready = false;  // /readyz answers 503 from now on
  m.ctx.shutting_down = true;
  m.log.info("shutdown_started", {{"sessions", static_cast<std::uint64_t>(m.ctx.sessions.size())},
                                  {"timeout_ms", m.config.shutdown_timeout_ms}});
  if (m.listener) m.listener->stop();
  if (m.metrics_listener) m.metrics_listener->stop();
  m.ctx.sessions.close_all(game::CloseReason::kShutdown, "server shutting down");
  // Leave a margin inside the documented limit for thread joins and process exit.
  const auto budget = std::chrono::milliseconds(m.config.shutdown_timeout_ms) * 8 / 10;
  const auto deadline = Impl::Clock::now() + budget;
  asio::post(m.ioc, [&m, deadline] { m.drain_step(deadline); });
  if (m.threads.empty()) m.ioc.stop();
}

void Server::wait() {
  Impl& m = *impl_;
  for (std::thread& t : m.threads)
    if (t.joinable()) t.join();
  m.threads.clear();
  m.rooms.stop();
}

unsigned short Server::port() const { return impl_->listener ? impl_->listener->port() : 0; }
unsigned short Server::metrics_port() const { return impl_->metrics_listener ? impl_->metrics_listener->port() : 0; }
ops::Registry& Server::registry() { return impl_->registry; }
ops::ServerMetrics& Server::metrics() { return impl_->metrics; }
ops::Logger& Server::log() { return impl_->log; }
game::Game& Server::game() { return impl_->rooms.default_game(); }
game::Rooms& Server::rooms() { return impl_->rooms; }
void Server::set_scenario_route_waits(bool waits) { impl_->ctx.scenario_route_waits.store(waits); }

}  // namespace flockstep::server::net
