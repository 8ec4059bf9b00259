// Extrapolation error of the viewer's remote-agent extrapolation against the server's truth.
//
// For each shipped scenario: a World runs with one player steering evasively; every
// 1/snapshot_rate s a snapshot is quantised through the codec exactly as the server sends it
// (codec::quantize / dequantize), held back `hold` ms (the latency the viewer's extrapolation
// covers), pushed into client::RemoteAgents, extrapolated to the current tick and compared with
// the World's agents at that tick. Errors are grouped by group kind (the group's technique name,
// or "composed/<model>") over every scenario, and printed as median and p95 in metres, each beside
// the two baselines from the same two newest snapshots: every agent dead reckoned second order
// (sim::ExtrapolationMethod::kDeadReckoning, the rates measured between the snapshots) and first
// order (kFirstOrder, a straight line at the last velocity). A kind where the extrapolation is
// worse than either baseline on any figure is flagged in the last column.
//
//   build/release/bench/flockstep_extrap_error [scenarios_dir] [seconds]
//
// Deterministic: the same build prints the same table.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codec/scenario_json.hpp"
#include "codec/snapshot_codec.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/extrapolate.hpp"
#include "flockstep/sim/group_kind.hpp"
#include "flockstep/sim/world.hpp"
#include "predict/remote_agents.hpp"

namespace {

using namespace flockstep;

/// Snapshot rate the server sends by default (server/src/config/config.hpp), Hz.
constexpr int kSnapshotRateHz = 20;
/// Hold-backs measured, ms.
constexpr int kHoldMs[] = {100, 250};
/// The shipped scenarios measured (every group kind the project ships).
const char* const kScenarios[] = {"arena.json",
                                  "aidemo4.json",
                                  "flocking.json",
                                  "gallery.json",
                                  "intercept.json",
                                  "lamothe.json",
                                  "millington.json",
                                  "patterns.json",
                                  "shoal.json",
                                  "slides_hide.json",
                                  "slides_offset_pursuit.json",
                                  "tile_patrols.json"};
/// A position error beyond this is a respawn or a wrap the snapshot could not show: not counted.
constexpr double kTeleportM = 12;

/// What is measured per sample: the viewer's extrapolation and the two dead-reckoning baselines.
enum Series : std::size_t { kExtrapolated = 0, kSecondOrder = 1, kFirstOrder = 2, kSeries = 3 };
const char* const kSeriesName[kSeries] = {"extrapolated", "2nd order", "1st order"};

double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(k, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "scenarios";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 30.0;
  // errors[kind][hold index][series]
  std::map<std::string, std::array<std::array<std::vector<double>, kSeries>, 2>> errors;
  for (const char* name : kScenarios) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    sim::Scenario sc;
    try {
      sc = codec::load_scenario_file(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "extrap_error: %s: %s\n", path.c_str(), e.what());
      return 1;
    }
    const codec::WireGeometry geo = codec::WireGeometry::of(sc);
    const int every = std::max(1, static_cast<int>(sc.tick_rate_hz) / kSnapshotRateHz);
    for (int h = 0; h < 2; ++h) {
      const auto hold = static_cast<std::uint64_t>(kHoldMs[h] * static_cast<int>(sc.tick_rate_hz) / 1000);
      sim::World w(sc);
      const sim::AgentId me = w.add_player();
      client::RemoteAgents ra;
      ra.configure(&w.scenario(), w.dt());
      // The baselines advance the same two newest snapshots the viewer has with one method for all.
      sim::Extrapolator base(w.scenario(), w.dt());
      std::vector<sim::AgentView> newest, previous;
      std::uint64_t newest_tick = 0, previous_tick = 0;
      std::vector<sim::ExtrapolatedAgent> second, first;
      std::deque<std::pair<std::uint64_t, std::vector<sim::AgentView>>> in_flight;
      std::vector<client::DrawAgent> drawn;
      const auto ticks = static_cast<std::uint64_t>(seconds * sc.tick_rate_hz);
      for (std::uint64_t t = 0; t < ticks; ++t) {
        w.set_input(me, sim::canonical::evasive_input(t));
        w.step();
        if (w.tick() % static_cast<std::uint64_t>(every) == 0) {
          std::vector<sim::AgentView> snap;
          snap.reserve(static_cast<std::size_t>(w.size()));
          for (std::int32_t i = 0; i < w.size(); ++i)
            snap.push_back(codec::dequantize(codec::quantize(w.view(i), geo)));
          in_flight.emplace_back(w.tick(), std::move(snap));
        }
        bool arrived = false;
        while (!in_flight.empty() && in_flight.front().first + hold <= w.tick()) {
          previous = std::move(newest);
          previous_tick = newest_tick;
          newest = in_flight.front().second;
          newest_tick = in_flight.front().first;
          ra.push(in_flight.front().first, std::move(in_flight.front().second));
          in_flight.pop_front();
          arrived = true;
        }
        if (!arrived) continue;  // measure right when a held-back snapshot lands: `hold` ticks ahead
        ra.sample_extrapolated(static_cast<double>(w.tick()), drawn, 1 << 20);
        base.init(newest, second, previous,
                  previous.empty() ? 0 : static_cast<std::int32_t>(newest_tick - previous_tick));
        first = second;
        for (sim::ExtrapolatedAgent& x : second) x.method = sim::ExtrapolationMethod::kDeadReckoning;
        for (sim::ExtrapolatedAgent& x : first) {
          x.method = sim::ExtrapolationMethod::kFirstOrder;
          x.lasts = -1;  // plain: the last velocity for good (no burst end)
        }
        base.advance(second, static_cast<std::int32_t>(w.tick() - newest_tick));
        base.advance(first, static_cast<std::int32_t>(w.tick() - newest_tick));
        // Snapshots list agents in one order and the viewer draws them in that order.
        if (drawn.size() != second.size()) {
          std::fprintf(stderr, "extrap_error: the viewer drew %zu agents of a snapshot of %zu\n", drawn.size(),
                       second.size());
          return 1;
        }
        for (std::size_t k = 0; k < drawn.size(); ++k) {
          const client::DrawAgent& d = drawn[k];
          if (d.group < 0) continue;  // players: the local one is predicted, remote ones are not NPCs
          const std::int32_t i = w.index_of(sim::AgentId{d.id});
          if (i < 0) continue;
          const sim::AgentView truth = w.view(i);
          if (truth.spawn_tick + hold > w.tick()) continue;
          auto error = [&](math::Vec2 p) {
            return math::length(sc.wrap ? math::torus_delta(p, truth.position, sc.width, sc.height)
                                        : truth.position - p);
          };
          const double e[kSeries] = {error(d.position), error(second[k].view.position), error(first[k].view.position)};
          if (error(newest[k].position) > kTeleportM) continue;  // respawned: the same samples for every series
          for (std::size_t m = 0; m < kSeries; ++m) errors[sim::group_kind(sc, truth.group)][h][m].push_back(e[m]);
        }
      }
    }
  }
  std::printf("Each cell: %s / %s / %s dead reckoning, m.\n\n", kSeriesName[0], kSeriesName[1], kSeriesName[2]);
  std::printf(
      "| group kind | samples (per hold) | 100 ms median | 100 ms p95 | 250 ms median | 250 ms p95 | worse than a "
      "baseline |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---|\n");
  int worse_kinds = 0;
  for (auto& [kind, e] : errors) {
    std::printf("| %s | %zu |", kind.c_str(), e[0][0].size());
    std::string worse;
    for (std::size_t h = 0; h < 2; ++h) {
      for (const double q : {0.5, 0.95}) {
        double v[kSeries];
        for (std::size_t m = 0; m < kSeries; ++m) v[m] = percentile(e[h][m], q);
        std::printf(" %.3f / %.3f / %.3f |", v[0], v[1], v[2]);
        // Compared as printed (to the mm): the table is what the claim rests on.
        const auto mm = [](double x) { return static_cast<long long>(x * 1000 + 0.5); };
        if (mm(v[0]) > std::min(mm(v[1]), mm(v[2])))
          worse += (worse.empty() ? "" : ", ") + std::to_string(kHoldMs[h]) + " ms p" + (q < 0.9 ? "50" : "95");
      }
    }
    if (!worse.empty()) ++worse_kinds;
    std::printf(" %s |\n", worse.empty() ? "no" : worse.c_str());
  }
  std::printf("\nkinds worse than a baseline: %d\n", worse_kinds);
  return 0;
}
