#pragma once
// Small builders shared by the World tests (world_techniques_test, world_compose_test,
// world_controllers_test, world_trace_test): an empty solid-bordered world, a group placed at
// one point, a composed group, and the n-th live agent of a group.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "flockstep/sim/world.hpp"

namespace flockstep::sim::test {

/// An empty world of w x h m with solid borders.
inline Scenario open_world(const char* name, real w, real h, std::int32_t max_agents, std::int32_t max_players) {
  Scenario s;
  s.name = name;
  s.width = w;
  s.height = h;
  s.max_agents = max_agents;
  s.max_players = max_players;
  return s;
}

/// `count` agents of technique t spawned exactly at p.
inline GroupSpec placed(const char* name, AgentKind kind, Technique t, Vec2 p, std::int32_t count = 1) {
  GroupSpec g;
  g.name = name;
  g.kind = kind;
  g.technique = t;
  g.count = count;
  g.spawn_min = p;
  g.spawn_max = p;
  return g;
}

/// A composed group of `count` agents spawned at p (5 m/s, 10 N), heading wherever the RNG
/// points them.
inline GroupSpec composed(const char* name, Model model, std::vector<BehaviorSpec> behaviors, Vec2 p,
                          Combiner combiner = Combiner::kBlend, std::int32_t count = 1) {
  GroupSpec g = placed(name, AgentKind::kWanderer, Technique::kComposed, p, count);
  g.model = model;
  g.compose.behaviors = std::move(behaviors);
  g.compose.combiner = combiner;
  g.max_speed = 5;
  g.max_force = 10;
  return g;
}

/// The nth live agent (dense order) of a group; a test failure if there is none.
inline AgentView nth_agent(const World& w, std::int32_t group, std::int32_t nth = 0) {
  for (std::int32_t i = 0; i < w.size(); ++i)
    if (w.view(i).group == group && nth-- == 0) return w.view(i);
  ADD_FAILURE() << "group " << group << " has no such agent";
  return {};
}

}  // namespace flockstep::sim::test
