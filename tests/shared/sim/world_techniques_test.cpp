// Techniques driven through the World as data: target groups and non-player captures,
// T15 straight flyers, T64-T66/T70 force steering, T16-T20 LaMothe, T37/T40 kinematic, T59/T60
// ray avoidance and the corner trap, and live tuning (set_group / group_size).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "flockstep/sim/world.hpp"
#include "world_test_util.hpp"

namespace flockstep::sim {
namespace {

Scenario arena(real w = 200, real h = 200) { return test::open_world("techniques", w, h, 64, 4); }
GroupSpec at(const char* n, AgentKind k, Technique t, Vec2 p, std::int32_t c = 1) {
  return test::placed(n, k, t, p, c);
}

const AgentView* first_of(const World& w, std::int32_t group, AgentView& out) {
  for (std::int32_t i = 0; i < w.size(); ++i)
    if (w.view(i).group == group) {
      out = w.view(i);
      return &out;
    }
  return nullptr;
}

AgentView agent(const World& w, std::int32_t group) {
  AgentView v;
  EXPECT_NE(first_of(w, group, v), nullptr) << "group " << group << " has no agent";
  return v;
}

real len(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

// Predator lower-left, constant-velocity prey lower-right flying up-left at 5 m/s.
// Returns the tick of the first capture of the prey (or -1 within the limit).
std::int64_t capture_tick(Technique predator, std::int32_t max_ticks) {
  Scenario s = arena();
  GroupSpec prey = at("prey", AgentKind::kWanderer, Technique::kStraight, {180, 20});
  prey.max_speed = 5;
  prey.heading_deg = 135;
  GroupSpec hunter = at("predator", AgentKind::kPursuer, predator, {20, 20});
  hunter.target_group = 0;
  hunter.capture_radius = 1.5;
  s.groups = {prey, hunter};
  EXPECT_EQ(validate(s), "");
  World w(s);
  for (std::int32_t t = 0; t < max_ticks; ++t) {
    w.step();
    for (const Event& e : w.events())
      if (e.type == Event::Type::kCapture) {
        EXPECT_EQ(w.view(w.index_of(e.subject)).group, 0);
        EXPECT_EQ(w.view(w.index_of(e.other)).group, 1);
        return static_cast<std::int64_t>(e.tick);
      }
  }
  return -1;
}

TEST(WorldTechniques, T23_InterceptCapturesConstantVelocityPreySoonerThanLosChase) {
  const std::int64_t intercept = capture_tick(Technique::kIntercept, 60 * 120);
  const std::int64_t los = capture_tick(Technique::kLosChase, 60 * 120);
  ASSERT_GE(intercept, 0) << "the interceptor never caught the prey";
  ASSERT_GE(los, 0) << "the line-of-sight chaser never caught the prey";
  EXPECT_LT(intercept, los) << "intercept " << intercept << " ticks, LOS " << los << " ticks";
  RecordProperty("intercept_ticks", static_cast<int>(intercept));
  RecordProperty("los_ticks", static_cast<int>(los));
}

TEST(WorldTechniques, T23_CapturedPreyRespawnsInItsSpawnArea) {
  Scenario s = arena();
  GroupSpec prey = at("prey", AgentKind::kWanderer, Technique::kStraight, {100, 100});
  prey.spawn_min = {150, 150};
  prey.spawn_max = {190, 190};
  prey.max_speed = 2;
  prey.heading_deg = 180;
  GroupSpec hunter = at("chaser", AgentKind::kPursuer, Technique::kChase, {20, 20});
  hunter.target_group = 0;
  hunter.max_speed = 10;
  s.groups = {prey, hunter};
  ASSERT_EQ(validate(s), "");
  World w(s);
  bool captured = false, respawned = false;
  for (int t = 0; t < 60 * 60 && !respawned; ++t) {
    w.step();
    for (const Event& e : w.events()) {
      if (e.type == Event::Type::kCapture) captured = true;
      if (e.type == Event::Type::kRespawn) {
        respawned = true;
        const AgentView v = w.view(w.index_of(e.subject));
        EXPECT_EQ(v.group, 0);
        EXPECT_TRUE(v.position.x >= 150 && v.position.x <= 190 && v.position.y >= 150 && v.position.y <= 190);
        // kStraight starts again along its heading at full speed.
        EXPECT_NEAR(v.velocity.x, -2, 1e-9);
      }
    }
  }
  EXPECT_TRUE(captured);
  EXPECT_TRUE(respawned);
  EXPECT_EQ(w.group_size(0), 1);
}

// Two pursuers touch the one prey in the same ticks (all three spawn on one point, and the prey
// respawns there): each tick catches it at most once, by the pursuer first in id order, and
// the capture is reported before the respawn it causes. Fails if a caught agent is not
// protected for the rest of its tick (the second pursuer would catch it again).
TEST(WorldTechniques, T23_TwoPursuersTouchingOnePreyCatchItOnceATickFirstInIdOrder) {
  Scenario s = arena();
  GroupSpec prey = at("prey", AgentKind::kWanderer, Technique::kStraight, {100, 100});
  prey.max_speed = 0.5;
  GroupSpec hunters = at("hunters", AgentKind::kPursuer, Technique::kChase, {100, 100}, 2);
  hunters.target_group = 0;
  hunters.capture_radius = 1.5;
  hunters.max_speed = 0.5;
  s.groups = {prey, hunters};
  ASSERT_EQ(validate(s), "");
  World w(s);
  std::vector<AgentId> hunter_ids;
  for (std::int32_t i = 0; i < w.size(); ++i)
    if (w.view(i).group == 1) hunter_ids.push_back(w.view(i).id);
  ASSERT_EQ(hunter_ids.size(), 2u);
  const AgentId first = hunter_ids[0].slot() < hunter_ids[1].slot() ? hunter_ids[0] : hunter_ids[1];
  std::int32_t ticks_with_capture = 0;
  for (int t = 0; t < 20; ++t) {
    w.step();
    std::int32_t captures = 0, respawns = 0;
    for (const Event& e : w.events()) {
      if (e.type == Event::Type::kCapture) {
        ++captures;
        EXPECT_EQ(respawns, captures - 1) << "tick " << t << ": a capture after its respawn";
        EXPECT_EQ(e.other, first) << "tick " << t << ": caught by the later pursuer in id order";
      }
      if (e.type == Event::Type::kRespawn) ++respawns;
    }
    EXPECT_LE(captures, 1) << "tick " << t << ": the one prey was caught " << captures << " times";
    EXPECT_EQ(respawns, captures);
    ticks_with_capture += captures;
  }
  // Caught every other tick at least: a respawned prey is safe only in the tick it respawned.
  EXPECT_GE(ticks_with_capture, 10);
}

TEST(WorldTechniques, T15_StraightLineStaysStraightAndSwervesOnce) {
  Scenario s = arena(400, 400);
  GroupSpec g = at("asteroid", AgentKind::kWanderer, Technique::kStraight, {100, 100});
  g.max_speed = 4;
  g.heading_deg = 30;
  g.swerve_after_s = 2;
  g.swerve_deg = 90;
  s.groups = {g};
  ASSERT_EQ(validate(s), "");
  World w(s);
  const Vec2 start = agent(w, 0).position;
  const Vec2 d0 = math::as_vector(30 * math::kDegToRad);
  const Vec2 d1 = math::as_vector(120 * math::kDegToRad);
  int changes = 0;
  Vec2 last_v = agent(w, 0).velocity;
  Vec2 swerve_point{};
  for (int t = 0; t < 60 * 6; ++t) {
    w.step();
    const AgentView v = agent(w, 0);
    EXPECT_NEAR(len(v.velocity), 4, 1e-9);
    if (math::distance(v.velocity, last_v) > 1e-9) {
      ++changes;
      swerve_point = v.position - v.velocity * w.dt();
    }
    last_v = v.velocity;
    if (w.tick() <= 120) {
      // Before the swerve: on the line through the start along 30 degrees.
      EXPECT_NEAR(math::cross(v.position - start, d0), 0, 1e-9);
    } else {
      EXPECT_NEAR(math::cross(v.position - swerve_point, d1), 0, 1e-9);
    }
  }
  EXPECT_EQ(changes, 1);
}

TEST(WorldTechniques, T64_SeekAndT66_ArriveReachTheGoal) {
  Scenario s = arena();
  GroupSpec seek = at("seek", AgentKind::kWanderer, Technique::kSeek, {20, 20});
  seek.goal = {150, 120};
  GroupSpec arrive = at("arrive", AgentKind::kWanderer, Technique::kArrive, {20, 180});
  arrive.goal = {120, 100};
  s.groups = {seek, arrive};
  ASSERT_EQ(validate(s), "");
  World w(s);
  real seek_closest = math::kInfinity;
  for (int t = 0; t < 60 * 40; ++t) {
    w.step();
    seek_closest = math::min(seek_closest, math::distance(agent(w, 0).position, seek.goal));
  }
  EXPECT_LT(seek_closest, 1.0);
  const AgentView a = agent(w, 1);
  EXPECT_LT(math::distance(a.position, arrive.goal), 0.2);
  EXPECT_LT(len(a.velocity), 0.1);
}

TEST(WorldTechniques, T66_ArriveWithoutGoalArrivesAtTheTarget) {
  Scenario s = arena();
  GroupSpec post = at("post", AgentKind::kPatrol, Technique::kArrive, {140, 60});
  post.goal = {140, 60};
  GroupSpec a = at("follower", AgentKind::kWanderer, Technique::kArrive, {40, 160});
  a.target_group = 0;
  s.groups = {post, a};
  ASSERT_EQ(validate(s), "");
  World w(s);
  for (int t = 0; t < 60 * 40; ++t) w.step();
  EXPECT_LT(math::distance(agent(w, 1).position, agent(w, 0).position), 0.5);
  EXPECT_EQ(agent(w, 1).target, agent(w, 0).id);
}

TEST(WorldTechniques, T65_FleeMovesAwayFromThePlayer) {
  Scenario s = arena(400, 400);
  GroupSpec g = at("flee", AgentKind::kWanderer, Technique::kFlee, {200, 200});
  g.panic_range = 0;  // always
  g.layers.walls = 0;
  s.groups = {g};
  ASSERT_EQ(validate(s), "");
  World w(s);
  const AgentId p = w.add_player();
  ASSERT_TRUE(p.valid());
  w.step();
  const Vec2 player = w.view(w.index_of(p)).position;
  real d = math::distance(agent(w, 0).position, player);
  const real d_start = d;
  for (int t = 0; t < 60 * 3; ++t) {
    w.step();
    const real now = math::distance(agent(w, 0).position, w.view(w.index_of(p)).position);
    // After the first second (it spawns moving a random way) it only ever gains distance.
    if (t > 60) {
      EXPECT_GE(now, d - 1e-9);
    }
    d = now;
  }
  EXPECT_GT(d, d_start + 10);
  EXPECT_EQ(agent(w, 0).state, BehaviorState::kFleeing);
}

TEST(WorldTechniques, T70_InterposeSettlesBetweenTargetAndLeader) {
  Scenario s = arena();
  GroupSpec leader = at("leader", AgentKind::kPatrol, Technique::kArrive, {40, 40});
  leader.goal = {40, 40};
  GroupSpec target = at("target", AgentKind::kWanderer, Technique::kArrive, {160, 120});
  target.goal = {160, 120};
  GroupSpec guard = at("guard", AgentKind::kPatrol, Technique::kInterpose, {100, 180});
  guard.leader_group = 0;
  guard.target_group = 1;
  s.groups = {leader, target, guard};
  ASSERT_EQ(validate(s), "");
  World w(s);
  for (int t = 0; t < 60 * 30; ++t) w.step();
  EXPECT_LT(math::distance(agent(w, 2).position, Vec2{100, 80}), 0.5);
  EXPECT_EQ(agent(w, 2).target, agent(w, 1).id);
  s.groups[2].leader_group = -1;
  EXPECT_EQ(validate(s), "groups[2].leader_group: must name another group");
}

TEST(WorldTechniques, T16_FlyMovesInConstantBurstsOfLaMotheVelocities) {
  Scenario s = arena();
  GroupSpec g = at("fly", AgentKind::kWanderer, Technique::kFly, {100, 100});
  g.max_speed = 8;  // one LaMothe pixel/tick component = 1 m/s
  s.groups = {g};
  ASSERT_EQ(validate(s), "");
  World w(s);
  std::vector<Vec2> v;
  for (int t = 0; t < 200; ++t) {
    w.step();
    v.push_back(agent(w, 0).velocity);
  }
  int bursts = 1;
  for (std::size_t t = 0; t < v.size(); ++t) {
    EXPECT_EQ(v[t].x, std::floor(v[t].x));
    EXPECT_TRUE(v[t].x >= -8 && v[t].x <= 7 && v[t].y >= -8 && v[t].y <= 7);
    if (t > 0 && t % 10 == 0) {
      bursts += v[t] == v[t - 1] ? 0 : 1;
    } else if (t > 0) {
      EXPECT_EQ(v[t], v[t - 1]) << "velocity changed inside a burst at tick " << t;
    }
  }
  EXPECT_GT(bursts, 15);  // new random velocities almost every burst
}

TEST(WorldTechniques, T17_TrackerReachesAndSitsOnTarget_T18_AntiTrackerSeparates) {
  Scenario s = arena();
  GroupSpec post = at("post", AgentKind::kPatrol, Technique::kArrive, {150, 50});
  post.goal = {150, 50};
  GroupSpec tracker = at("tracker", AgentKind::kPursuer, Technique::kTrack, {40, 170});
  tracker.target_group = 0;
  tracker.capture_radius = 0;
  tracker.max_speed = 5;
  GroupSpec anti = at("anti", AgentKind::kWanderer, Technique::kAntiTrack, {120, 70});
  anti.target_group = 0;
  anti.max_speed = 5;
  s.groups = {post, tracker, anti};
  ASSERT_EQ(validate(s), "");
  World w(s);
  Vec2 last_anti = agent(w, 2).position;
  for (int t = 0; t < 60 * 40; ++t) {
    w.step();
    const AgentView tr = agent(w, 1);
    EXPECT_LE(std::abs(tr.velocity.x), 5 + 1e-9);
    EXPECT_LE(std::abs(tr.velocity.y), 5 + 1e-9);
    // The anti-tracker never moves toward the post on either axis (T18).
    const Vec2 a = agent(w, 2).position;
    EXPECT_LE(a.x - last_anti.x, 1e-9);   // post is to its right: it only goes left (or stays)
    EXPECT_GE(a.y - last_anti.y, -1e-9);  // post is below: it only goes up
    last_anti = a;
  }
  EXPECT_LT(math::distance(agent(w, 1).position, Vec2{150, 50}), 1e-6);
  EXPECT_EQ(len(agent(w, 1).velocity), 0);
  // The anti-tracker ends pinned in the far corner (clamped by the borders, like clamp_playfield).
  EXPECT_LT(agent(w, 2).position.x, 1);
  EXPECT_GT(agent(w, 2).position.y, 199);
}

TEST(WorldTechniques, T19_VectorTrackerClosesOnTargetWithinSpeedCap) {
  Scenario s = arena();
  GroupSpec post = at("post", AgentKind::kPatrol, Technique::kArrive, {150, 150});
  post.goal = {150, 150};
  GroupSpec vt = at("vector tracker", AgentKind::kPursuer, Technique::kVectorTrack, {30, 40});
  vt.target_group = 0;
  vt.max_speed = 6;
  vt.max_force = 4;
  s.groups = {post, vt};
  ASSERT_EQ(validate(s), "");
  World w(s);
  bool captured = false;
  for (int t = 0; t < 60 * 60 && !captured; ++t) {
    w.step();
    EXPECT_LE(len(agent(w, 1).velocity), 6 + 1e-9);
    for (const Event& e : w.events()) captured |= e.type == Event::Type::kCapture;
  }
  EXPECT_TRUE(captured);
}

TEST(WorldTechniques, T20_MineHomesOnlyInsideItsRange) {
  Scenario s = arena(300, 300);
  GroupSpec near_prey = at("near prey", AgentKind::kWanderer, Technique::kArrive, {60, 60});
  near_prey.goal = {60, 60};
  GroupSpec far_prey = at("far prey", AgentKind::kWanderer, Technique::kArrive, {240, 240});
  far_prey.goal = {240, 240};
  GroupSpec near_mine = at("near mine", AgentKind::kPursuer, Technique::kMine, {80, 60});
  near_mine.target_group = 0;
  near_mine.mine.tracking_distance = 30;
  GroupSpec far_mine = at("far mine", AgentKind::kPursuer, Technique::kMine, {240, 140});
  far_mine.target_group = 1;
  far_mine.mine.tracking_distance = 30;
  s.groups = {near_prey, far_prey, near_mine, far_mine};
  ASSERT_EQ(validate(s), "");
  World w(s);
  std::int64_t near_capture = -1, far_capture = -1;
  for (int t = 0; t < 60 * 20; ++t) {
    w.step();
    EXPECT_LE(len(agent(w, 2).velocity), 6 + 1e-9);  // scale_once keeps it near the cap
    for (const Event& e : w.events()) {
      if (e.type != Event::Type::kCapture) continue;
      const std::int32_t g = w.view(w.index_of(e.other)).group;
      if (g == 2 && near_capture < 0) near_capture = static_cast<std::int64_t>(e.tick);
      if (g == 3 && far_capture < 0) far_capture = static_cast<std::int64_t>(e.tick);
    }
  }
  EXPECT_GE(near_capture, 0) << "the mine 20 m from its prey never reached it";
  EXPECT_EQ(far_capture, -1) << "the mine 100 m away homed from outside its range";
}

TEST(WorldTechniques, T37_KinematicSeekMovesAtFullSpeedUntilTheGoal) {
  Scenario s = arena();
  GroupSpec g = at("kseek", AgentKind::kWanderer, Technique::kKinematicSeek, {20, 30});
  g.goal = {120, 90};
  g.max_speed = 5;
  s.groups = {g};
  ASSERT_EQ(validate(s), "");
  World w(s);
  real closest = math::kInfinity;
  for (int t = 0; t < 60 * 30; ++t) {
    w.step();
    const AgentView v = agent(w, 0);
    EXPECT_NEAR(len(v.velocity), 5, 1e-9);  // never settles (T37's wiggle)
    closest = math::min(closest, math::distance(v.position, g.goal));
  }
  EXPECT_LT(closest, 5.0 / 60 + 1e-9);
  EXPECT_LT(math::distance(agent(w, 0).position, g.goal), 5.0 / 60 + 1e-9);
}

TEST(WorldTechniques, T40_KinematicWanderKeepsSpeedAndTurns) {
  Scenario s = arena(1000, 1000);
  GroupSpec g = at("kwander", AgentKind::kWanderer, Technique::kKinematicWander, {500, 500});
  g.max_speed = 2;
  g.kinematic_max_rotation = 3;
  s.groups = {g};
  ASSERT_EQ(validate(s), "");
  World w(s);
  real min_o = 10, max_o = -10;
  for (int t = 0; t < 60 * 20; ++t) {
    w.step();
    const AgentView v = agent(w, 0);
    EXPECT_NEAR(len(v.velocity), 2, 1e-9);
    EXPECT_LT(std::abs(v.angular_velocity), 3);
    min_o = math::min(min_o, v.orientation);
    max_o = math::max(max_o, v.orientation);
  }
  EXPECT_GT(max_o - min_o, 0.1);
}

// The acute V corner of Millington Fig. 3.27 (vertex `v`, opening toward -x, walls 30 degrees
// off the axis, 25 m long) and one ray-avoid agent cruising into it from 15 m out.
struct CornerResult {
  bool escaped = false;
  real closest_to_vertex = 1e300;
};

CornerResult run_corner(std::int32_t config, bool remedy, real y0) {
  Scenario s = arena(100, 100);
  const Vec2 v{70, 50};
  const real c = 25 * math::sin_cos(30 * math::kDegToRad).cos, sn = 25 * math::sin_cos(30 * math::kDegToRad).sin;
  s.walls = {Wall{v, v + Vec2{-c, sn}}, Wall{v + Vec2{-c, -sn}, v}};
  GroupSpec g = at("ray", AgentKind::kWanderer, Technique::kRayAvoid, v + Vec2{-15, y0});
  g.max_speed = 3;
  g.max_force = 10;
  g.radius = 0.25;
  g.heading_deg = std::atan2(0.06, 3.0) / math::kDegToRad;
  g.rays.config = config;
  g.rays.corner_remedy = remedy;
  s.groups = {g};
  EXPECT_EQ(validate(s), "");
  World w(s);
  CornerResult r;
  for (int t = 0; t < 60 * 12; ++t) {
    w.step();
    const AgentView a = agent(w, 0);
    r.closest_to_vertex = math::min(r.closest_to_vertex, math::distance(a.position, v));
    if (t > 60 && math::distance(a.position, v) > 16 && a.velocity.x < 0) {
      r.escaped = true;
      break;
    }
  }
  return r;
}

TEST(WorldTechniques, T60_CornerTrapHoldsParallelRaysWithoutTheRemedyAndTheRemedyEscapes) {
  for (real y0 : {-0.7, 0.1, 1.0}) {
    const CornerResult trapped = run_corner(2, false, y0);
    EXPECT_FALSE(trapped.escaped) << "y0 " << y0;
    EXPECT_LT(trapped.closest_to_vertex, 1.0) << "y0 " << y0;
    const CornerResult freed = run_corner(2, true, y0);
    EXPECT_TRUE(freed.escaped) << "y0 " << y0;
    const CornerResult whiskers = run_corner(1, true, y0);
    EXPECT_TRUE(whiskers.escaped) << "y0 " << y0;
  }
}

TEST(WorldTechniques, T59_RayAvoidSeeksItsGoalAroundAWall) {
  Scenario s = arena(100, 100);
  s.walls = {Wall{{50, 30}, {50, 70}}, Wall{{50, 70}, {50, 30}}};  // two-sided wall across the way
  GroupSpec g = at("ray", AgentKind::kWanderer, Technique::kRayAvoid, {30, 52});
  g.goal = {80, 50};
  g.max_speed = 3;
  g.max_force = 10;
  g.rays.config = 1;
  g.rays.corner_remedy = true;
  s.groups = {g};
  ASSERT_EQ(validate(s), "");
  World w(s);
  bool crossed_wall = false;
  real closest = math::kInfinity;
  Vec2 last = agent(w, 0).position;
  for (int t = 0; t < 60 * 60; ++t) {
    w.step();
    const Vec2 p = agent(w, 0).position;
    if ((last.x < 50) != (p.x < 50) && p.y > 30 && p.y < 70) crossed_wall = true;
    last = p;
    closest = math::min(closest, math::distance(p, g.goal));
  }
  EXPECT_FALSE(crossed_wall);
  EXPECT_LT(closest, 2.0);
}

TEST(WorldTechniques, ValidateNamesTheNewFields) {
  Scenario s = arena();
  s.groups = {at("a", AgentKind::kWanderer, Technique::kStraight, {10, 10}),
              at("b", AgentKind::kPursuer, Technique::kChase, {20, 20})};
  ASSERT_EQ(validate(s), "");
  Scenario bad = s;
  bad.groups[1].target_group = 1;
  EXPECT_EQ(validate(bad), "groups[1].target_group: must be -1 (nearest player) or name another group");
  bad = s;
  bad.groups[1].target_group = 5;
  EXPECT_NE(validate(bad).find("groups[1].target_group"), std::string::npos);
  bad = s;
  bad.groups[0].swerve_after_s = -1;
  EXPECT_EQ(validate(bad), "groups[0].swerve_after_s: must be >= 0");
  bad = s;
  bad.groups[0].rays.config = 4;
  EXPECT_NE(validate(bad).find("groups[0].rays.config"), std::string::npos);
  bad = s;
  bad.groups[0].fly.max_burst_ticks = 3;
  EXPECT_EQ(validate(bad), "groups[0].fly.max_burst_ticks: must be >= fly.min_burst_ticks");
  bad = s;
  bad.groups[0].mine.near_noise_chance = 2;
  EXPECT_NE(validate(bad).find("groups[0].mine.near_noise_chance"), std::string::npos);
}

TEST(WorldTechniques, TechniqueNamesRoundTrip) {
  for (std::uint8_t t = 0; t < static_cast<std::uint8_t>(Technique::kCount); ++t) {
    Technique out{};
    ASSERT_TRUE(parse_technique(technique_name(static_cast<Technique>(t)), out)) << int(t);
    EXPECT_EQ(static_cast<std::uint8_t>(out), t);
  }
  Technique out{};
  EXPECT_TRUE(parse_technique("ray_avoid", out));
  EXPECT_EQ(out, Technique::kRayAvoid);
  EXPECT_TRUE(parse_technique("anti_track", out));
  EXPECT_EQ(out, Technique::kAntiTrack);
}

// ---- live tuning ----

Scenario tuning_scenario() {
  Scenario s = arena();
  GroupSpec flock = at("wanderers", AgentKind::kWanderer, Technique::kWander, {0, 0}, 5);
  flock.spawn_min = {20, 20};
  flock.spawn_max = {180, 180};
  GroupSpec chase = at("chasers", AgentKind::kPursuer, Technique::kChase, {100, 100}, 2);
  chase.target_group = 0;
  s.groups = {flock, chase};
  return s;
}

TEST(WorldTuning, SetGroupChangesCountsAtTheNextTick) {
  World w(tuning_scenario());
  EXPECT_EQ(w.group_size(0), 5);
  EXPECT_EQ(w.group_size(1), 2);
  EXPECT_EQ(w.group_size(7), 0);
  GroupSpec g = w.scenario().groups[0];
  g.count = 9;
  ASSERT_EQ(w.set_group(0, g), "");
  EXPECT_EQ(w.group_size(0), 5);  // queued, not applied
  w.step();
  EXPECT_EQ(w.group_size(0), 9);
  EXPECT_EQ(w.scenario().groups[0].count, 9);
  int spawns = 0;
  for (const Event& e : w.events()) spawns += e.type == Event::Type::kSpawn ? 1 : 0;
  EXPECT_EQ(spawns, 4);
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const AgentView v = w.view(i);
    if (v.group == 0) {
      EXPECT_TRUE(v.position.x >= 15 && v.position.x <= 185);
    }
  }
  // Down to 3: the six highest ids leave.
  std::vector<std::uint32_t> ids;
  for (std::int32_t i = 0; i < w.size(); ++i)
    if (w.view(i).group == 0) ids.push_back(w.view(i).id.value);
  std::sort(ids.begin(), ids.end());
  g.count = 3;
  ASSERT_EQ(w.set_group(0, g), "");
  w.step();
  EXPECT_EQ(w.group_size(0), 3);
  int despawns = 0;
  for (const Event& e : w.events()) despawns += e.type == Event::Type::kDespawn ? 1 : 0;
  EXPECT_EQ(despawns, 6);
  for (std::size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(w.alive(AgentId{ids[k]}), k < 3) << k;
}

TEST(WorldTuning, SetGroupReplacesParametersAtTheNextTick) {
  World w(tuning_scenario());
  for (int t = 0; t < 10; ++t) w.step();
  GroupSpec g = w.scenario().groups[1];
  g.max_speed = 0.5;
  ASSERT_EQ(w.set_group(1, g), "");
  EXPECT_EQ(w.scenario().groups[1].max_speed, 6);
  w.step();
  EXPECT_EQ(w.scenario().groups[1].max_speed, 0.5);
  for (int t = 0; t < 120; ++t) {
    w.step();
    for (std::int32_t i = 0; i < w.size(); ++i)
      if (w.view(i).group == 1) {
        EXPECT_LE(len(w.view(i).velocity), 0.5 + 1e-9);
      }
  }
}

TEST(WorldTuning, SetGroupRejectsInvalidChangesNamingTheField) {
  World w(tuning_scenario());
  GroupSpec g = w.scenario().groups[1];
  g.technique = Technique::kPursue;
  EXPECT_EQ(w.set_group(1, g), "groups[1].technique: cannot change while running");
  g = w.scenario().groups[1];
  g.target_group = -1;
  EXPECT_EQ(w.set_group(1, g), "groups[1].target_group: cannot change while running");
  g = w.scenario().groups[1];
  g.kind = AgentKind::kFlock;
  EXPECT_EQ(w.set_group(1, g), "groups[1].kind: cannot change while running");
  g = w.scenario().groups[1];
  g.max_speed = -2;
  EXPECT_EQ(w.set_group(1, g), "groups[1].max_speed: must be > 0");
  g = w.scenario().groups[1];
  g.count = 1000;
  EXPECT_NE(w.set_group(1, g).find("max_agents"), std::string::npos);
  EXPECT_EQ(w.set_group(2, g), "group: no such group");
  EXPECT_EQ(w.set_group(-1, g), "group: no such group");
  // Nothing was queued.
  const std::uint64_t before = w.state_hash();
  World ref(tuning_scenario());
  EXPECT_EQ(before, ref.state_hash());
  w.step();
  ref.step();
  EXPECT_EQ(w.state_hash(), ref.state_hash());
}

TEST(WorldTuning, SameTuningCallsGiveTheSameHash) {
  auto run = [](bool tune) {
    World w(tuning_scenario());
    for (int t = 0; t < 300; ++t) {
      if (tune && t == 50) {
        GroupSpec g = w.scenario().groups[0];
        g.count = 12;
        g.wander.jitter_per_second = 10;
        EXPECT_EQ(w.set_group(0, g), "");
      }
      if (tune && t == 150) {
        GroupSpec g = w.scenario().groups[1];
        g.count = 1;
        g.max_speed = 9;
        EXPECT_EQ(w.set_group(1, g), "");
      }
      w.step();
    }
    return w.state_hash();
  };
  const std::uint64_t a = run(true);
  EXPECT_EQ(a, run(true));
  EXPECT_NE(a, run(false));
}

}  // namespace
}  // namespace flockstep::sim
