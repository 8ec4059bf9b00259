#include "flockstep/sim/world.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/group_kind.hpp"

namespace flockstep::sim {
namespace {

real min_obstacle_clearance(const World& w) {
  real worst = math::kInfinity;
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const AgentView v = w.view(i);
    const real r = v.group >= 0 ? w.scenario().groups[static_cast<std::size_t>(v.group)].radius
                                : w.scenario().player_craft.length * 0.5;
    for (const Circle& c : w.scenario().obstacles)
      worst = math::min(worst, math::distance(v.position, c.center) - (c.radius + r));
  }
  return worst;
}

TEST(World, SpawnsEveryGroupInsideTheWorld) {
  const Scenario s = canonical::mixed();
  ASSERT_EQ(validate(s), "");
  World w(s);
  std::int32_t expected = 0;
  for (const GroupSpec& g : s.groups) expected += g.count;
  EXPECT_EQ(w.size(), expected);
  EXPECT_EQ(w.count_kind(AgentKind::kFlock), 750);
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const Vec2 p = w.view(i).position;
    EXPECT_TRUE(p.x >= 0 && p.x <= s.width && p.y >= 0 && p.y <= s.height);
  }
}

TEST(Scenario, GroupKindNamesTheTechniqueOrTheComposedModel) {
  sim::Scenario s;
  sim::GroupSpec plain;
  plain.technique = sim::Technique::kLosChase;
  sim::GroupSpec composed;
  composed.technique = sim::Technique::kComposed;
  composed.model = sim::Model::kKinematic;
  s.groups = {plain, composed};
  EXPECT_EQ(sim::group_kind(s, 0), "los_chase");
  EXPECT_EQ(sim::group_kind(s, 1), "composed/kinematic");
  EXPECT_EQ(sim::group_kind(s, -1), "player");
  EXPECT_EQ(sim::group_kind(s, 2), "player");
}

TEST(World, ValidateNamesTheBadField) {
  Scenario s = canonical::pursuit();
  s.groups[1].max_speed = -1;
  EXPECT_EQ(validate(s), "groups[1].max_speed: must be > 0");
  s = canonical::pursuit();
  s.tick_rate_hz = 0;
  EXPECT_NE(validate(s).find("tick_rate_hz"), std::string::npos);
  s = canonical::patrols();
  s.groups[3].path = 7;
  EXPECT_EQ(validate(s), "groups[3].path: must name an existing path");
  s = canonical::flock(100);
  s.max_agents = 10;
  EXPECT_NE(validate(s).find("max_agents"), std::string::npos);
  // Respawn protection becomes a tick count: out of range it would be an undefined conversion.
  for (const real bad : {-1.0, 3601.0, -3.36e92, math::kInfinity}) {
    s = canonical::pursuit();
    s.respawn_protection_s = bad;
    EXPECT_EQ(validate(s), "respawn_protection_s: must be in 0..3600") << bad;
  }
  s.respawn_protection_s = kMaxRespawnProtectionS;
  EXPECT_EQ(validate(s), "");
}

TEST(World, GenerationalIdsRejectStaleHandles) {
  World w(canonical::pursuit());
  const AgentId a = w.add_player();
  ASSERT_TRUE(a.valid());
  EXPECT_TRUE(w.alive(a));
  w.remove(a);
  w.step();
  EXPECT_FALSE(w.alive(a));
  const AgentId b = w.add_player();
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(a.slot(), b.slot());  // the slot is reused...
  EXPECT_NE(a.value, b.value);    // ...with a new generation
  w.set_input(a, {1, 1});         // stale: ignored, must not steer b
  w.step();
  EXPECT_EQ(w.view(w.index_of(b)).angular_velocity, 0.0);
}

TEST(World, MaxPlayersIsEnforced) {
  Scenario s = canonical::pursuit();
  s.max_players = 2;
  World w(s);
  EXPECT_TRUE(w.add_player().valid());
  EXPECT_TRUE(w.add_player().valid());
  EXPECT_FALSE(w.add_player().valid());
}

TEST(World, T10_PlayerInputThrustsAndTurnsRight) {
  Scenario s = canonical::pursuit();
  s.groups.clear();
  World w(s);
  const AgentId p = w.add_player();
  const real theta0 = w.view(w.index_of(p)).orientation;
  const Vec2 p0 = w.view(w.index_of(p)).position;
  w.set_input(p, {0, 1});
  for (int k = 0; k < 60; ++k) w.step();
  const AgentView v1 = w.view(w.index_of(p));
  EXPECT_GT(math::distance(v1.position, p0), 1.0);
  EXPECT_NEAR(math::wrap_angle(v1.orientation - theta0), 0.0, 1e-12);  // no turn input, no turn
  w.set_input(p, {1, 1});                                              // right
  for (int k = 0; k < 30; ++k) w.step();
  EXPECT_LT(math::wrap_angle(w.view(w.index_of(p)).orientation - v1.orientation), -0.1);  // clockwise
}

TEST(World, PlaceMovesAPlayerCraftAtRestAndIgnoresOtherKinds) {
  Scenario s = canonical::pursuit();
  World w(s);
  const AgentId p = w.add_player();
  w.set_input(p, {0, 1});
  for (int k = 0; k < 30; ++k) w.step();
  ASSERT_GT(math::length(w.view(w.index_of(p)).velocity), 0.5);
  const Vec2 spot{s.width * 0.25, s.height * 0.75};
  w.place(p, spot);
  w.set_input(p, {0, 0});
  w.step();
  const AgentView v = w.view(w.index_of(p));
  // Placed at rest, then one tick of drag-only motion: still on the spot.
  EXPECT_LT(math::distance(v.position, spot), 1e-9);
  EXPECT_LT(math::length(v.velocity), 1e-9);
  // Outside the world: clamped to its edge (then the border rule keeps the hull inside: within
  // the craft's radius of the corner, not 50 m away).
  w.place(p, {-50, s.height + 50});
  w.step();
  const Vec2 corner = w.view(w.index_of(p)).position;
  EXPECT_LT(math::distance(corner, Vec2{0, s.height}), 1.0);
  EXPECT_TRUE(corner.x >= 0 && corner.y <= s.height);
  // An NPC is not moved (control: the command really is kind-checked).
  const std::int32_t npc = w.index_of(p) == 0 ? 1 : 0;
  const AgentId npc_id = w.id_at(npc);
  const Vec2 before = w.view(npc).position;
  ASSERT_GT(math::distance(before, spot), 2.0);
  w.place(npc_id, spot);
  w.step();
  EXPECT_GT(math::distance(w.view(w.index_of(npc_id)).position, spot), 1.0);
  EXPECT_LT(math::distance(w.view(w.index_of(npc_id)).position, before), 1.0);  // one tick of its own motion
}

TEST(World, NonFiniteInputIsNeverApplied) {
  Scenario s = canonical::pursuit();
  s.groups.clear();
  World w(s);
  const AgentId p = w.add_player();
  const real nan = std::numeric_limits<real>::quiet_NaN();
  w.set_input(p, {nan, std::numeric_limits<real>::infinity()});
  for (int k = 0; k < 600; ++k) w.step();
  const AgentView v = w.view(w.index_of(p));
  EXPECT_TRUE(math::is_finite(v.position) && math::is_finite(v.velocity));
  EXPECT_EQ(v.angular_velocity, 0.0);  // NaN turn became 0
  // Full throttle at most: terminal speed thrust / linear drag.
  EXPECT_LE(math::length(v.velocity), s.player_craft.thrust / s.player_craft.linear_drag + 1e-9);
}

TEST(World, PursuersCaptureAStillPlayerAndItRespawnsProtected) {
  World w(canonical::pursuit());
  const AgentId p = w.add_player();
  std::uint64_t capture_tick = 0;
  for (int k = 0; k < 60 * 60 && capture_tick == 0; ++k) {
    w.step();
    for (const Event& e : w.events())
      if (e.type == Event::Type::kCapture) {
        EXPECT_EQ(e.subject, p);
        EXPECT_GT(e.survived_ticks, 0u);
        capture_tick = e.tick;
      }
  }
  ASSERT_GT(capture_tick, 0u) << "no capture within 60 s";
  EXPECT_TRUE(w.alive(p));  // same entity after respawn
  // Protected for respawn_protection_s: no capture in the next 2 s even if pursuers are close.
  for (int k = 0; k < 110; ++k) {
    w.step();
    for (const Event& e : w.events()) EXPECT_NE(e.type, Event::Type::kCapture);
  }
}

TEST(World, T36_FlocksNeverEnterObstacles) {
  World w(canonical::flock(400));
  for (int k = 0; k < 600; ++k) {
    w.step();
    ASSERT_GE(min_obstacle_clearance(w), -1e-9) << "tick " << k;
  }
}

TEST(World, T14_WrappedWorldKeepsEveryoneInBounds) {
  World w(canonical::flock(200));
  const Scenario& s = w.scenario();
  for (int k = 0; k < 300; ++k) {
    w.step();
    for (std::int32_t i = 0; i < w.size(); ++i) {
      const Vec2 p = w.view(i).position;
      ASSERT_TRUE(p.x >= 0 && p.x < s.width && p.y >= 0 && p.y < s.height);
    }
  }
}

TEST(World, SolidBordersKeepEveryoneInside) {
  World w(canonical::mixed());
  for (int k = 0; k < 300; ++k) w.step();
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const Vec2 p = w.view(i).position;
    EXPECT_TRUE(p.x >= 0 && p.x <= 240 && p.y >= 0 && p.y <= 180);
  }
}

TEST(World, SameInputsSameHashDifferentSeedDifferentHash) {
  World a(canonical::mixed(9)), b(canonical::mixed(9)), c(canonical::mixed(10));
  for (int k = 0; k < 120; ++k) {
    a.step();
    b.step();
    c.step();
  }
  EXPECT_EQ(a.state_hash(), b.state_hash());
  EXPECT_NE(a.state_hash(), c.state_hash());
}

TEST(World, RemovalKeepsOtherAgentsState) {
  World w(canonical::pursuit());
  for (int k = 0; k < 30; ++k) w.step();
  const AgentView victim = w.view(0);
  const AgentView last = w.view(w.size() - 1);
  w.remove(victim.id);
  // Apply the command without advancing anyone: compare immediately after the next step's
  // command phase by stepping a copy and comparing to a world that never had the victim is
  // not possible, so check the moved agent is still addressable by id with its state.
  EXPECT_EQ(w.view(w.index_of(last.id)).position, last.position);
  w.step();
  EXPECT_FALSE(w.alive(victim.id));
  EXPECT_TRUE(w.alive(last.id));
  EXPECT_EQ(w.size(), 10);
}

TEST(World, SteeringIntervalRecomputesEachVehicleOnItsTurnOnly) {
  // Behaviour level of detail: with steering_interval_ticks = 3 a vehicle steers when
  // (tick + id slot) is divisible by 3 and keeps its last force (and aim point) otherwise.
  Scenario s;
  s.name = "lod";
  s.width = 120;
  s.height = 120;
  s.wrap = true;
  s.max_agents = 64;
  s.max_players = 0;
  s.steering_interval_ticks = 3;
  GroupSpec g;
  g.name = "wanderers";
  g.kind = AgentKind::kWanderer;
  g.technique = Technique::kWander;
  g.count = 40;
  s.groups = {g};
  ASSERT_EQ(validate(s), "");
  World w(s);
  std::vector<Vec2> aim(static_cast<std::size_t>(w.size()));
  for (std::int32_t i = 0; i < w.size(); ++i) aim[static_cast<std::size_t>(i)] = w.view(i).aim;
  std::int32_t steered = 0, held = 0;
  for (int t = 0; t < 30; ++t) {
    const std::uint64_t tick = w.tick();  // the tick the step below computes
    w.step();
    for (std::int32_t i = 0; i < w.size(); ++i) {
      const AgentView v = w.view(i);
      const bool turn = (tick + v.id.slot()) % 3 == 0;
      const bool changed = !(v.aim == aim[static_cast<std::size_t>(i)]);
      EXPECT_EQ(changed, turn) << "agent " << v.id.value << " tick " << tick;
      (turn ? steered : held) += 1;
      aim[static_cast<std::size_t>(i)] = v.aim;
    }
  }
  EXPECT_EQ(steered + held, 30 * 40);
  EXPECT_NEAR(static_cast<double>(steered) / (steered + held), 1.0 / 3, 0.02);

  s.steering_interval_ticks = 0;
  EXPECT_EQ(validate(s), "steering_interval_ticks: must be in 1..8");
  s.steering_interval_ticks = 9;
  EXPECT_EQ(validate(s), "steering_interval_ticks: must be in 1..8");
}

TEST(World, T36_FlockWithSteeringIntervalStaysAFlockOutsideObstacles) {
  // The 100,000-agent load (docs/performance.md) runs the flock with steering every 2nd tick:
  // it still forms a flock (neighbours in view like every-tick steering) and never enters an
  // obstacle (the rules run every tick).
  Scenario every = canonical::flock(2000);
  Scenario lod = every;
  lod.steering_interval_ticks = 2;
  World a(every), b(lod);
  for (int t = 0; t < 600; ++t) {
    a.step();
    b.step();
  }
  EXPECT_GE(min_obstacle_clearance(a), -1e-9);
  EXPECT_GE(min_obstacle_clearance(b), -1e-9);
  // Polarisation (|mean heading|): flocking aligns headings; the held force must not undo it.
  auto polarisation = [](const World& w) {
    Vec2 sum;
    for (std::int32_t i = 0; i < w.size(); ++i) sum += math::normalized(w.view(i).velocity);
    return math::length(sum) / w.size();
  };
  EXPECT_GT(polarisation(b), 0.5 * polarisation(a));
  EXPECT_NE(a.state_hash(), b.state_hash());
}

TEST(World, AnnotationsAreReported) {
  World w(canonical::pursuit());
  const AgentId p = w.add_player();
  w.step();
  w.step();
  bool intercepting = false, target_set = false;
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const AgentView v = w.view(i);
    if (v.kind != AgentKind::kPursuer) continue;
    target_set |= v.target == p;
    intercepting |= v.state == BehaviorState::kIntercepting || v.state == BehaviorState::kLosFallback;
  }
  EXPECT_TRUE(target_set);
  EXPECT_TRUE(intercepting);
}

}  // namespace
}  // namespace flockstep::sim
