// Bytes per minute of the two recording kinds for the same room (docs/replays.md): a real Room
// of a shipped scenario with server bots, run tick by tick (no clock) for `seconds` simulated
// seconds while both the snapshot recorder (--record, FSREC001) and the input-log recorder
// (FSLOG001) record it, then the two files' sizes. The input log is also re-simulated with
// codec::InputLogPlayer to show the recording is a faithful one (divergences must be 0).
//
//   flockstep_recording_size [--seconds=60] [--bots=4] [--seek-s=10] SCENARIO.json...
//
// Prints one row per scenario: agents, ticks, both sizes and bytes per minute, seek points,
// logged commands. Sizes do not depend on the machine; the run time does (not reported).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "codec/input_log.hpp"
#include "game/input_log_recorder.hpp"
#include "game/recorder.hpp"
#include "game/room.hpp"
#include "game/scenario_file.hpp"

namespace fs = std::filesystem;
using namespace flockstep;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream o;
  o << in.rdbuf();
  return o.str();
}

bool flag(const std::string& arg, const char* name, std::uint32_t& out) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  out = static_cast<std::uint32_t>(std::strtoul(arg.c_str() + prefix.size(), nullptr, 10));
  return true;
}

/// Bytes of an input log by record kind (framing included): header, seek points, the rest
/// (commands, hashes, the end).
struct Breakdown {
  std::uint64_t header = 0, seeks = 0, rest = 0;
};
Breakdown breakdown(const std::string& bytes) {
  Breakdown b;
  std::size_t at = codec::kInputLogMagic.size();
  while (at + 4 <= bytes.size()) {
    std::uint32_t n = 0;
    for (int k = 0; k < 4; ++k) n |= std::uint32_t{static_cast<unsigned char>(bytes[at + k])} << (8 * k);
    const auto kind = codec::summarize_input_log_record(std::string_view(bytes).substr(at + 4, n)).kind;
    const std::uint64_t framed = n + codec::kInputLogFrameBytes;
    if (kind == codec::InputLogRecordSummary::Kind::kHeader) b.header += framed;
    else if (kind == codec::InputLogRecordSummary::Kind::kSeek) b.seeks += framed;
    else b.rest += framed;
    at += framed;
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t seconds = 60, bots = 4, seek_s = 30;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (flag(a, "seconds", seconds) || flag(a, "bots", bots) || flag(a, "seek-s", seek_s)) continue;
    if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "unknown flag %s\nusage: %s [--seconds=60] [--bots=4] [--seek-s=10] SCENARIO.json...\n",
                   a.c_str(), argv[0]);
      return 2;
    }
    files.push_back(a);
  }
  if (files.empty() || seconds == 0 || seek_s == 0) {
    std::fprintf(stderr, "usage: %s [--seconds=60] [--bots=4] [--seek-s=10] SCENARIO.json...\n", argv[0]);
    return 2;
  }
  const fs::path dir = fs::temp_directory_path() / ("flockstep-recording-size-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::printf("%-12s %7s %6s %12s %12s %14s %15s %9s %6s %11s %9s %9s %11s\n", "scenario", "agents", "ticks",
              "snapshot_B", "input_log_B", "snapshot_B/min", "input_log_B/min", "header_B", "seeks", "seek_B", "rest_B",
              "commands", "divergences");
  int status = 0;
  for (const std::string& file : files) {
    sim::Scenario scenario;
    try {
      scenario = server::game::load_scenario_file(file);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", file.c_str(), e.what());
      return 2;
    }
    server::game::RoomConfig cfg;
    cfg.tick_rate_hz = 60;
    cfg.snapshot_rate_hz = 20;
    cfg.bots = bots;
    cfg.max_players = std::max<std::uint32_t>(bots, 1);
    cfg.room_name = scenario.name;
    server::game::Room room(cfg, scenario, nullptr, nullptr);
    const std::string snap_path = (dir / (scenario.name + ".fsrec")).string();
    const std::string log_path = (dir / (scenario.name + ".fslog")).string();
    server::game::Recorder snap(snap_path, 5, nullptr);  // record_keyframe_s default
    room.set_recorder(&snap);
    server::game::InputLogSettings settings;
    settings.dir = dir.string();
    settings.seek_interval_s = seek_s;
    settings.max_bytes = std::uint64_t{4096} << 20;
    if (std::string why =
            room.start_input_log(std::make_unique<server::game::InputLogRecorder>(log_path, settings, nullptr));
        !why.empty()) {
      std::fprintf(stderr, "%s: %s\n", file.c_str(), why.c_str());
      return 1;
    }
    const std::uint64_t ticks = std::uint64_t{seconds} * cfg.tick_rate_hz;
    for (std::uint64_t k = 0; k < ticks; ++k) room.tick();
    room.stop_input_log("benchmark");
    room.set_recorder(nullptr);
    snap.flush();
    const std::uint64_t snap_bytes = fs::file_size(snap_path), log_bytes = fs::file_size(log_path);
    std::string error;
    const std::string log_bytes_read = read_file(log_path);
    const Breakdown parts = breakdown(log_bytes_read);
    auto player = codec::InputLogPlayer::open(log_bytes_read, error);
    if (!player) {
      std::fprintf(stderr, "%s: %s\n", log_path.c_str(), error.c_str());
      return 1;
    }
    while (player->step()) {
    }  // every tick from the start: every logged hash compared
    const double per_min = 60.0 / seconds;
    std::printf("%-12s %7d %6llu %12llu %12llu %14.0f %15.0f %9llu %6zu %11llu %9llu %9zu %11zu\n",
                scenario.name.c_str(), room.world().size(), static_cast<unsigned long long>(ticks),
                static_cast<unsigned long long>(snap_bytes), static_cast<unsigned long long>(log_bytes),
                static_cast<double>(snap_bytes) * per_min, static_cast<double>(log_bytes) * per_min,
                static_cast<unsigned long long>(parts.header), player->seek_point_count(),
                static_cast<unsigned long long>(parts.seeks), static_cast<unsigned long long>(parts.rest),
                player->command_count(), player->divergences().size());
    if (!player->divergences().empty()) status = 1;
  }
  fs::remove_all(dir);
  return status;
}
