// Captures as a stage (stage_captures.hpp).
#include "stage_captures.hpp"

#include "flockstep/sim/player.hpp"
#include "flockstep/sim/rules.hpp"

namespace flockstep::sim {

namespace {
/// Whether `pursuer` of group `g` touches `caught` this tick.
bool within_capture_reach(const CaptureColumns& c, const GroupSpec& g, std::int32_t pursuer, std::int32_t caught) {
  const real reach = g.capture_radius + body_radius(c.scenario, c.group[static_cast<std::size_t>(caught)]);
  const Vec2 d =
      c.plane.delta(c.position[static_cast<std::size_t>(pursuer)], c.position[static_cast<std::size_t>(caught)]);
  return math::length_sq(d) <= reach * reach;
}

/// Records the capture and protects the caught agent until the next tick.
void record_capture(const CaptureColumns& c, std::int32_t caught, std::int32_t pursuer, std::vector<Capture>& out) {
  std::uint64_t& spawn = c.spawn_tick[static_cast<std::size_t>(caught)];
  out.push_back({caught, pursuer, c.tick - spawn});
  spawn = c.tick + 1;
}
}  // namespace

void find_player_captures(const CaptureColumns& c, std::span<const std::int32_t> players,
                          std::span<const std::int32_t> pursuers, std::vector<Capture>& out) {
  for (const std::int32_t pj : players) {
    if (capture_protected(c.tick, c.spawn_tick[static_cast<std::size_t>(pj)], c.scenario)) continue;
    for (const std::int32_t i : pursuers) {
      const GroupSpec& g = c.scenario.groups[static_cast<std::size_t>(c.group[static_cast<std::size_t>(i)])];
      if (!within_capture_reach(c, g, i, pj)) continue;
      record_capture(c, pj, i, out);
      break;
    }
  }
}

void find_prey_captures(const CaptureColumns& c, std::span<const std::int32_t> pursuers,
                        std::span<const std::vector<std::int32_t>> members, std::vector<Capture>& out) {
  for (const std::int32_t i : pursuers) {
    const std::int32_t gi = c.group[static_cast<std::size_t>(i)];
    if (gi < 0) continue;
    const GroupSpec& g = c.scenario.groups[static_cast<std::size_t>(gi)];
    if (g.target_group < 0) continue;
    for (const std::int32_t j : members[static_cast<std::size_t>(g.target_group)]) {
      // Spawned (or caught) this tick: not yet.
      if (c.spawn_tick[static_cast<std::size_t>(j)] > c.tick) continue;
      if (!within_capture_reach(c, g, i, j)) continue;
      record_capture(c, j, i, out);
      break;
    }
  }
}

}  // namespace flockstep::sim
