#pragma once
/// \file stage_targets.hpp
/// Who an agent aims at: who is who this tick (the players, each group's members and leader), and
/// the nearest of a candidate list (the players, or a target group's members), on the plane or
/// the torus. One rule for the World (world.cpp, world_impl.hpp) and the Extrapolator
/// (extrapolate.cpp). Inline: the World's steering kernels call it per agent
/// from several translation units. Private: not installed.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "flockstep/math/transform.hpp"
#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/agent.hpp"

namespace flockstep::sim {

using math::real;
using math::Vec2;

/// The world's plane: width x height m, a torus when `wrap`.
struct Plane {
  real width = 0, height = 0;
  bool wrap = false;
  /// The shortest offset from `from` to `to` (across the seam on a torus).
  Vec2 delta(Vec2 from, Vec2 to) const { return wrap ? math::torus_delta(from, to, width, height) : to - from; }
};

/// The nearest of `candidates` (indices into `position`) to p, never `self`; ties keep the
/// earlier candidate (the World lists them in id order, the Extrapolator in snapshot
/// order). -1 when there is none. `distance`
/// (optional) gets the distance, kInfinity when there is none.
inline std::int32_t nearest_of(std::span<const std::int32_t> candidates, const Vec2* position, std::int32_t self,
                               Vec2 p, const Plane& plane, real* distance) {
  std::int32_t best = -1;
  real best_d2 = math::kInfinity;
  for (const std::int32_t j : candidates) {
    if (j == self) continue;
    const real d2 = math::length_sq(plane.delta(p, position[j]));
    if (d2 < best_d2) {  // strict <: ties keep the earlier candidate
      best_d2 = d2;
      best = j;
    }
  }
  if (distance) *distance = best >= 0 ? math::sqrt(best_d2) : math::kInfinity;
  return best;
}

/// Who an agent may aim at this tick: the players and each group's members (dense indices into
/// `position`, both lists in id order), on `plane`. The World and the Extrapolator each fill
/// the lists with build_roster and hand this view to every rule that picks a target.
struct Targets {
  std::span<const std::int32_t> players;
  std::span<const std::vector<std::int32_t>> members;  ///< by group: empty for a group nobody targets
  const Vec2* position = nullptr;
  Plane plane;

  /// The player nearest to p, or -1.
  std::int32_t nearest_player(Vec2 p, real* distance) const {
    return nearest_of(players, position, -1, p, plane, distance);
  }
  /// The member of `group` nearest to p other than `self`, or -1 (also for a group not listed).
  std::int32_t nearest_in_group(std::int32_t group, std::int32_t self, Vec2 p, real* distance) const {
    if (group < 0 || static_cast<std::size_t>(group) >= members.size()) {
      if (distance) *distance = math::kInfinity;
      return -1;
    }
    return nearest_of(members[static_cast<std::size_t>(group)], position, self, p, plane, distance);
  }
  /// What a group's techniques act on: the nearest player, or with `target_group` >= 0 the
  /// nearest other agent of that group.
  std::int32_t nearest(std::int32_t target_group, std::int32_t self, Vec2 p, real* distance) const {
    return target_group < 0 ? nearest_player(p, distance) : nearest_in_group(target_group, self, p, distance);
  }
};

/// One agent as the roster sees it.
struct RosterEntry {
  AgentKind kind;
  std::int32_t group;  ///< -1: none (players)
  AgentId id;
};

/// Who is who this tick, from `n` agents in dense order (`entry(i)` gives agent i): `players`
/// (their indices, dense order), `members` of each group g with `listed(g)` (dense order), and
/// each group's `leader`: the member with the lowest id value, which stays the same when other
/// agents come, go or are reordered (-1: an empty group). `members` and `leader` are sized to the
/// group count beforehand; a group outside it is ignored.
template <class Entry, class Listed>
inline void build_roster(std::int32_t n, Entry&& entry, Listed&& listed, std::vector<std::int32_t>& players,
                         std::vector<std::vector<std::int32_t>>& members, std::vector<std::int32_t>& leader) {
  players.clear();
  for (std::vector<std::int32_t>& m : members) m.clear();
  std::fill(leader.begin(), leader.end(), -1);
  const auto groups = static_cast<std::int32_t>(leader.size());
  for (std::int32_t i = 0; i < n; ++i) {
    const RosterEntry e = entry(i);
    if (e.kind == AgentKind::kPlayer) players.push_back(i);
    if (e.group < 0 || e.group >= groups) continue;
    const auto g = static_cast<std::size_t>(e.group);
    if (listed(e.group)) members[g].push_back(i);
    if (leader[g] < 0 || e.id.value < entry(leader[g]).id.value) leader[g] = i;
  }
}

}  // namespace flockstep::sim
