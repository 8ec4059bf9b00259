// flockstep-server: parse the configuration, load the scenario, serve until SIGTERM/SIGINT.
// Exit codes: 0 normal (also after a signal), 1 runtime error, 2 configuration or scenario error.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "game/scenario_json.hpp"
#include "net/server.hpp"

int main(int argc, char** argv) {
  namespace fs = flockstep::server;
  fs::config::LoadResult loaded;
  flockstep::sim::Scenario scenario;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    loaded = fs::config::load(args, [](const char* name) { return std::getenv(name); });
    if (loaded.help) {
      std::cout << fs::config::help_text();
      return 0;
    }
    scenario = fs::game::load_scenario_file(loaded.config.scenario);
  } catch (const fs::config::ConfigError& e) {
    std::cerr << "flockstep-server: configuration error: " << e.what() << "\n";
    return 2;
  } catch (const fs::game::ScenarioError& e) {
    std::cerr << "flockstep-server: scenario error (key scenario): " << e.what() << "\n";
    return 2;
  }

  std::cerr << fs::config::describe(loaded) << std::flush;
  try {
    fs::net::Server server(loaded.config, std::move(scenario), std::cerr);
    server.handle_signals();
    server.start();
    server.wait();
  } catch (const std::exception& e) {
    std::cerr << "flockstep-server: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
