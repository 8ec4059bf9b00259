#include "flockstep/sim/canonical.hpp"

#include "flockstep/behavior/physics_pattern.hpp"

namespace flockstep::sim::canonical {
namespace {

GroupSpec group(const char* name, AgentKind kind, Technique t, std::int32_t count) {
  GroupSpec g;
  g.name = name;
  g.kind = kind;
  g.technique = t;
  g.count = count;
  return g;
}

}  // namespace

Scenario flock(std::int32_t n, std::uint64_t seed) {
  Scenario s;
  s.name = "flock";
  s.description = "A wrapped flock with obstacles (boids: separation, alignment, cohesion, wander).";
  // Side so that density is ~0.12 boids per m^2: with a 6 m radius and 270 degree view that is
  // pi*36*0.75*0.12 ~ 10 neighbours in view, ~ 13 in the full circle, more inside clusters.
  const real side = math::sqrt(static_cast<real>(n) / 0.12);
  s.width = side;
  s.height = side;
  s.wrap = true;
  s.seed = seed;
  s.max_agents = n + 8;
  s.max_players = 8;
  s.grid_cell = 6;
  math::Rng rng = math::Rng::seeded(seed, 77);
  const std::int32_t obstacles = n / 100 + 1;
  for (std::int32_t k = 0; k < obstacles; ++k)
    s.obstacles.push_back({{rng.uniform(0, side), rng.uniform(0, side)}, rng.uniform(1.5, 4)});
  GroupSpec g = group("boids", AgentKind::kFlock, Technique::kFlock, n);
  g.max_speed = 6;
  g.max_force = 12;
  g.radius = 0.4;
  s.groups.push_back(g);
  return s;
}

Scenario pursuit(std::uint64_t seed) {
  Scenario s;
  s.name = "pursuit";
  s.description = "Intercept, line-of-sight and predictive pursuers hunt one evasive player.";
  s.width = 160;
  s.height = 160;
  s.wrap = false;
  s.seed = seed;
  s.max_agents = 64;
  s.max_players = 4;
  s.grid_cell = 8;
  s.obstacles = {{{50, 50}, 6}, {{110, 60}, 5}, {{80, 115}, 7}};
  GroupSpec icpt = group("interceptors", AgentKind::kPursuer, Technique::kIntercept, 3);
  icpt.craft.thrust = 3.2;
  GroupSpec los = group("los chasers", AgentKind::kPursuer, Technique::kLosChase, 3);
  los.craft.thrust = 3.2;
  GroupSpec pur = group("pursuers", AgentKind::kPursuer, Technique::kPursue, 3);
  pur.max_speed = 7;
  GroupSpec chase = group("chasers", AgentKind::kPursuer, Technique::kChase, 2);
  chase.max_speed = 6;
  s.groups = {icpt, los, pur, chase};
  return s;
}

PlayerInput evasive_input(std::uint64_t tick) {
  // Weave: 2 s right, 2 s left, with a short straight burst between, at full throttle.
  const std::uint64_t phase = (tick / 120) % 3;
  return {phase == 0 ? real(0.8) : (phase == 1 ? real(-0.8) : real(0)), 1};
}

Scenario patrols(std::uint64_t seed) {
  Scenario s;
  s.name = "patrols";
  s.description = "Pattern patrols (square, zig-zag, arbitrary) and path followers.";
  s.width = 300;
  s.height = 300;
  s.wrap = true;
  s.seed = seed;
  s.max_agents = 64;
  s.max_players = 4;
  s.grid_cell = 8;
  s.paths.push_back({"loop", {{40, 40}, {260, 40}, {260, 260}, {40, 260}}, true});
  GroupSpec sq = group("square patrol", AgentKind::kPatrol, Technique::kPattern, 2);
  sq.pattern = PatternKind::kSquare;
  GroupSpec zz = group("zig-zag patrol", AgentKind::kPatrol, Technique::kPattern, 2);
  zz.pattern = PatternKind::kZigZag;
  GroupSpec ar = group("arbitrary patrol", AgentKind::kPatrol, Technique::kPattern, 2);
  ar.pattern = PatternKind::kArbitrary;
  for (GroupSpec* g : {&sq, &zz, &ar}) g->craft = behavior::kPatternCraftParams;
  GroupSpec pf = group("path followers", AgentKind::kPatrol, Technique::kPathFollow, 4);
  pf.path = 0;
  pf.waypoint_seek_distance = 4;
  s.groups = {sq, zz, ar, pf};
  return s;
}

Scenario mixed(std::uint64_t seed) {
  Scenario s;
  s.name = "arena";
  s.description = "Flocks, pursuers, patrols, wanderers, hiders and an escort in a walled arena.";
  s.width = 240;
  s.height = 180;
  s.wrap = false;
  s.seed = seed;
  s.max_agents = 1200;
  s.max_players = 16;
  s.grid_cell = 8;
  s.obstacles = {{{60, 60}, 8}, {{180, 50}, 6}, {{120, 120}, 10}, {{200, 140}, 5}, {{40, 140}, 6}};
  s.walls = {{{90, 20}, {90, 70}}, {{150, 160}, {190, 110}}};
  s.paths.push_back({"perimeter", {{20, 20}, {220, 20}, {220, 160}, {20, 160}}, true});
  GroupSpec boids = group("starlings", AgentKind::kFlock, Technique::kFlock, 600);
  GroupSpec fish = group("narrow-view shoal", AgentKind::kFlock, Technique::kFlock, 150);
  fish.flock.fov_deg = 90;
  fish.max_speed = 5;
  GroupSpec icpt = group("interceptors", AgentKind::kPursuer, Technique::kIntercept, 2);
  GroupSpec los = group("los chasers", AgentKind::kPursuer, Technique::kLosChase, 2);
  GroupSpec pur = group("pursuers", AgentKind::kPursuer, Technique::kPursue, 2);
  GroupSpec chase = group("chasers", AgentKind::kPursuer, Technique::kChase, 2);
  GroupSpec lead = group("escort leader", AgentKind::kPatrol, Technique::kPathFollow, 1);
  lead.path = 0;
  lead.max_speed = 4;
  GroupSpec escort = group("escort", AgentKind::kPatrol, Technique::kOffsetPursuit, 3);
  escort.leader_group = 6;
  escort.offset = {-3, 2};
  GroupSpec sq = group("square patrol", AgentKind::kPatrol, Technique::kPattern, 2);
  sq.craft = behavior::kPatternCraftParams;
  GroupSpec wand = group("wanderers", AgentKind::kWanderer, Technique::kWander, 20);
  GroupSpec hide = group("hiders", AgentKind::kWanderer, Technique::kHide, 6);
  GroupSpec evade = group("evaders", AgentKind::kWanderer, Technique::kEvade, 6);
  s.groups = {boids, fish, icpt, los, pur, chase, lead, escort, sq, wand, hide, evade};
  return s;
}

}  // namespace flockstep::sim::canonical
