// flockstep-bot: WebSocket bot players / spectators for tests and load.
//   flockstep-bot --port=8080 --connections=100 --players=10 --duration=30
// Exit codes: 0 every connection was welcomed and no errors, 1 otherwise, 2 bad flags.
#include <cstdlib>
#include <iostream>
#include <string>

#include "bot.hpp"
#include "flockstep/build_info.hpp"

namespace {

const char* kHelp =
    "flockstep-bot: WebSocket bots for the Flockstep server (players and spectators)\n"
    "  --host=H          server host (default 127.0.0.1)\n"
    "  --port=P          server port (default 8080)\n"
    "  --target=T        WebSocket path (default /ws)\n"
    "  --connections=N   connections, 1..100000 (default 1)\n"
    "  --players=K       of which K join as players, the rest spectate (default 1)\n"
    "  --duration=S      seconds to run after the last connection started (default 5)\n"
    "  --connect-rate=R  start R connections per second instead of all at once (default 0: all at once)\n"
    "  --ack-delay-ms=D  send each snapshot acknowledgement D ms late (a longer round trip; default 0)\n"
    "  --input-hz=R      player input messages per second, 1..1000 (default 60)\n"
    "  --script=S        random | constant | idle (default random)\n"
    "  --turn=X --throttle=Y   control state of the constant script\n"
    "  --name=PREFIX     display name prefix (default bot)\n"
    "  --room=NAME       room (scenario name, see GET /api/rooms) to join (default: the server's default room)\n"
    "  --seed=N          random seed (default 1)\n"
    "  --decode=0|1      decode each delta snapshot before acknowledging it, like a viewer (default 1)\n"
    "  --view=X0,Y0,X1,Y1  spectators' view rectangle in m (area of interest; default whole world)\n"
    "  --version         name, version, git commit, build type and compiler\n"
    "  --report          scrape the server's /metrics before and after: tick p50/p99, overruns,\n"
    "                    snapshots replaced and clients dropped during the run\n";

bool number(const std::string& v, double lo, double hi, double& out) {
  char* end = nullptr;
  out = std::strtod(v.c_str(), &end);
  return end && *end == '\0' && !v.empty() && out >= lo && out <= hi;
}

}  // namespace

int main(int argc, char** argv) {
  flockstep::bot::BotConfig cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    }
    if (a == "--version") {
      std::cout << flockstep::build_info::version_text("flockstep-bot");
      return 0;
    }
    if (a == "--report") {
      cfg.report = true;
      continue;
    }
    const auto eq = a.find('=');
    const std::string key = a.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : a.substr(eq + 1);
    double d = 0;
    bool ok = eq != std::string::npos;
    if (!ok) {
    } else if (key == "--host") cfg.host = val;
    else if (key == "--target") cfg.target = val;
    else if (key == "--script") ok = (cfg.script = val) == "random" || val == "constant" || val == "idle";
    else if (key == "--name") cfg.name = val;
    else if (key == "--room") ok = (cfg.room = val).size() <= 64;  // Join.room limit
    else if (key == "--port" && (ok = number(val, 1, 65535, d))) cfg.port = static_cast<std::uint16_t>(d);
    else if (key == "--connections" && (ok = number(val, 1, 100000, d)))
      cfg.connections = static_cast<std::uint32_t>(d);
    else if (key == "--players" && (ok = number(val, 0, 100000, d))) cfg.players = static_cast<std::uint32_t>(d);
    else if (key == "--duration" && (ok = number(val, 0, 86400, d))) cfg.duration_s = d;
    else if (key == "--connect-rate" && (ok = number(val, 0, 1e6, d))) cfg.connect_rate = d;
    else if (key == "--ack-delay-ms" && (ok = number(val, 0, 60000, d))) cfg.ack_delay_ms = d;
    else if (key == "--input-hz" && (ok = number(val, 1, 1000, d))) cfg.input_hz = static_cast<std::uint32_t>(d);
    else if (key == "--turn" && (ok = number(val, -1, 1, d))) cfg.turn = d;
    else if (key == "--throttle" && (ok = number(val, 0, 1, d))) cfg.throttle = d;
    else if (key == "--seed" && (ok = number(val, 0, 1e18, d))) cfg.seed = static_cast<std::uint64_t>(d);
    else if (key == "--decode" && (ok = number(val, 0, 1, d))) cfg.decode = d != 0;
    else if (key == "--view") {
      double v[4];
      std::size_t start = 0;
      for (int k = 0; k < 4 && ok; ++k) {
        const auto comma = val.find(',', start);
        ok = number(val.substr(start, comma == std::string::npos ? std::string::npos : comma - start), -1e6, 1e6,
                    v[k]) &&
             (k == 3) == (comma == std::string::npos);
        start = comma + 1;
      }
      ok = ok && v[0] <= v[2] && v[1] <= v[3];
      if (ok) {
        cfg.have_view = true;
        for (int k = 0; k < 4; ++k) cfg.view[k] = v[k];
      }
    } else ok = false;
    if (!ok) {
      std::cerr << "flockstep-bot: bad or unknown flag '" << a << "' (see --help)\n";
      return 2;
    }
  }
  const flockstep::bot::BotReport r = flockstep::bot::run_bots(cfg);
  std::cout << r.summary();
  const bool all = r.player.welcomed + r.spectator.welcomed == cfg.connections;
  return (all && r.errors == 0) ? 0 : 1;
}
