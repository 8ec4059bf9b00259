// flockstep-server: parse the configuration, load the scenario, serve until SIGTERM/SIGINT.
// Exit codes: 0 normal (also after a signal), 1 runtime error, 2 configuration or scenario error.
// `--healthcheck` instead probes a running server's /healthz and exits 0 (200) or 1.
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "game/rooms.hpp"
#include "game/scenario_json.hpp"
#include "game/technique_list.hpp"
#include "net/server.hpp"
#include "ops/agones.hpp"

namespace {

/// --healthcheck: the whole probe (connect, request, answer) must finish within this; Docker's
/// own HEALTHCHECK timeout (Dockerfile, docker-compose.yml) is longer.
constexpr std::chrono::milliseconds kHealthcheckTimeout{2000};

/// --healthcheck: GET /healthz on the configured port; a wildcard listen address is probed on
/// loopback. Exit code for the container runtime: 0 healthy, 1 not.
int healthcheck(const flockstep::server::config::Config& c) {
  const std::string host = (c.host.empty() || c.host == "0.0.0.0") ? "127.0.0.1" : c.host == "::" ? "::1" : c.host;
  if (c.port == 0) {
    std::cout << "unhealthy: port 0 (OS-chosen) cannot be probed\n";
    return 1;
  }
  const unsigned status = flockstep::server::ops::http_status(host, static_cast<std::uint16_t>(c.port), "GET",
                                                              "/healthz", kHealthcheckTimeout);
  std::cout << (status == 200 ? "healthy" : "unhealthy") << ": GET http://" << host << ":" << c.port
            << "/healthz -> " << (status == 0 ? std::string("no answer") : std::to_string(status)) << "\n";
  return status == 200 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = flockstep::server;
  fs::config::LoadResult loaded;
  flockstep::sim::Scenario scenario;
  std::vector<flockstep::sim::Scenario> others;  // scenario_dir: rooms started on demand
  std::optional<std::uint16_t> agones_port;  // set: run as an Agones GameServer
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    // --list-techniques[=markdown]: the catalog IDs and the scenario_dir files that use them
    // (markdown: docs/techniques.md), then exit. The other flags still choose the scenario_dir.
    std::string list_format;
    for (auto it = args.begin(); it != args.end();) {
      if (*it == "--list-techniques" || *it == "--list-techniques=text") list_format = "text";
      else if (*it == "--list-techniques=markdown") list_format = "markdown";
      else if (it->rfind("--list-techniques", 0) == 0)
        throw std::invalid_argument("--list-techniques: expected no value, =text or =markdown");
      else { ++it; continue; }
      it = args.erase(it);
    }
    loaded = fs::config::load(args, [](const char* name) { return std::getenv(name); });
    if (!list_format.empty()) {
      // No scenario_dir: the folder of the default scenario file (scenarios/ in a checkout).
      std::string dir = loaded.config.scenario_dir;
      if (dir.empty()) dir = std::filesystem::path(loaded.config.scenario).parent_path().string();
      const auto files = fs::game::load_scenario_files(dir.empty() ? "." : dir);
      std::cout << (list_format == "markdown" ? fs::game::technique_reference_markdown(files)
                                              : fs::game::technique_list(files));
      return 0;
    }
    if (loaded.help) {
      std::cout << fs::config::help_text();
      return 0;
    }
    if (loaded.healthcheck) return healthcheck(loaded.config);
    agones_port = fs::ops::agones_port_from_env(std::getenv(fs::ops::kAgonesPortVariable));
    scenario = fs::game::load_scenario_file(loaded.config.scenario);
    try {
      others = fs::game::load_scenario_dir(loaded.config.scenario_dir);
    } catch (const fs::game::ScenarioError& e) {
      std::cerr << "flockstep-server: scenario error (key scenario_dir): " << e.what() << "\n";
      return 2;
    }
  } catch (const fs::config::ConfigError& e) {
    std::cerr << "flockstep-server: configuration error: " << e.what() << "\n";
    return 2;
  } catch (const fs::game::ScenarioError& e) {
    std::cerr << "flockstep-server: scenario error (key scenario): " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "flockstep-server: configuration error: " << e.what() << "\n";
    return 2;
  }

  std::cerr << fs::config::describe(loaded) << std::flush;
  try {
    fs::net::Server server(loaded.config, std::move(scenario), std::move(others), std::cerr);
    server.handle_signals();
    server.start();
    // Declared after `server`, so it stops before the server (whose gauges it reads) goes away.
    std::unique_ptr<fs::ops::AgonesClient> agones;
    if (agones_port) {
      fs::ops::AgonesOptions o;
      o.port = *agones_port;
      o.health_period = std::chrono::milliseconds(loaded.config.agones_health_period_ms);
      o.empty_shutdown = std::chrono::milliseconds(loaded.config.agones_empty_shutdown_ms);
      o.player_capacity = loaded.config.max_players;
      agones = std::make_unique<fs::ops::AgonesClient>(
          o, [&server] { return fs::ops::room_counts(server.metrics()); }, server.log());
      agones->start();  // Ready: the room is loaded and the server listens
    }
    server.wait();
  } catch (const std::exception& e) {
    std::cerr << "flockstep-server: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
