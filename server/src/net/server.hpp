#pragma once
/// \file server.hpp
/// The whole server in one object: metrics, logger, game thread, I/O threads, listener and
/// graceful shutdown. main.cpp and the in-process tests both use it.
///
/// Threads: `config.threads` I/O threads run the io_context (every connection on its own
/// strand); one game thread runs the Room (game::Game). They meet only through the game's inbox
/// (sessions -> game) and asio::post (game -> sessions).
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "config/config.hpp"
#include "flockstep/sim/scenario.hpp"

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

/// See file comment.
class Server {
 public:
  /// Builds everything but opens nothing. Log lines go to `log_out` (must outlive the server).
  Server(const config::Config& config, sim::Scenario scenario, std::ostream& log_out);
  /// Several rooms: `scenario` is the default room, `others` (game::load_scenario_dir)
  /// are started on demand. With config.record set, the default room is recorded.
  Server(const config::Config& config, sim::Scenario scenario, std::vector<sim::Scenario> others,
         std::ostream& log_out);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Bind and listen (throws on failure), start the game and the I/O threads.
  void start();
  /// Also stop on SIGINT/SIGTERM (main only; tests call shutdown()).
  void handle_signals();
  /// Graceful shutdown, callable from any thread, idempotent: readiness flips to 503 at once,
  /// no new connections, every WebSocket gets ServerMessage.close + close 1001, the game stops;
  /// the I/O threads stop when all sessions are gone, at the latest after shutdown_timeout_ms.
  void shutdown();
  /// Block until the I/O threads have stopped.
  void wait();

  /// Bound TCP port (after start()).
  unsigned short port() const;
  /// Bound metrics_port (after start()); 0 when /metrics is served on the game port.
  unsigned short metrics_port() const;
  ops::Registry& registry();
  ops::ServerMetrics& metrics();
  ops::Logger& log();
  /// The default room's game.
  game::Game& game();
  game::Rooms& rooms();
  /// Tests only: make GET /api/rooms/<name>/scenario wait for the game thread (the control of
  /// the route-hammer test; ServerContext::scenario_route_waits).
  void set_scenario_route_waits(bool waits);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flockstep::server::net
