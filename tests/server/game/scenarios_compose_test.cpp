// Property tests of the composition rooms (millington, aidemo4, shoal): each figure does what its
// label says in the shipped file. Figures measured on the shipped files are printed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flockstep/math/angle.hpp"
#include "scenario_test_util.hpp"

namespace flockstep::server::game {
namespace {

using namespace scenario_test;
using sim::AgentId;
using sim::Event;

AgentView first(const World& w, std::int32_t group) {
  const std::vector<AgentView> m = members(w, group);
  EXPECT_FALSE(m.empty());
  return m.empty() ? AgentView{} : m.front();
}

/// Distance from p to the closed polyline `pts`.
real distance_to_loop(Vec2 p, const std::vector<Vec2>& pts) {
  real best = math::kInfinity;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const Vec2 a = pts[k], b = pts[(k + 1) % pts.size()];
    const Vec2 ab = b - a;
    const real t = std::clamp(math::dot(p - a, ab) / math::length_sq(ab), real(0), real(1));
    best = std::min(best, math::length(p - (a + ab * t)));
  }
  return best;
}

TEST(Scenarios, T42_T58_MillingtonFiguresDoWhatTheirLabelsSay) {
  const Scenario s = load("millington");
  World w(s);
  const std::int32_t rabbit = group_named(s, "rabbit (follow_path)");
  const std::int32_t pursue = group_named(s, "dynamic_pursue");
  const std::int32_t crowd = group_named(s, "separation crowd");
  const std::int32_t cone[2] = {group_named(s, "cone_avoid east"), group_named(s, "cone_avoid west")};
  const std::int32_t tca[2] = {group_named(s, "collision_avoid north"), group_named(s, "collision_avoid south")};
  const std::int32_t pattern = group_named(s, "kinematic_pattern");
  const Vec2 pattern_start = first(w, pattern).position;
  real rabbit_off = 0, pursue_closest = math::kInfinity, cone_closest = math::kInfinity, tca_closest = math::kInfinity;
  real pattern_return = math::kInfinity;
  run(w, 30, [&] {
    const AgentView r = first(w, rabbit);
    if (w.tick() > 120) rabbit_off = std::max(rabbit_off, distance_to_loop(r.position, s.paths[0].points));
    pursue_closest = std::min(pursue_closest, dist(s, first(w, pursue).position, r.position));
    cone_closest = std::min(cone_closest, dist(s, first(w, cone[0]).position, first(w, cone[1]).position));
    tca_closest = std::min(tca_closest, dist(s, first(w, tca[0]).position, first(w, tca[1]).position));
    if (w.tick() % 164 == 0) pattern_return = std::min(pattern_return, dist(s, first(w, pattern).position, pattern_start));
  });
  const AgentView r = first(w, rabbit);
  const AgentView arrive = first(w, group_named(s, "dynamic_arrive"));
  const AgentView post = first(w, group_named(s, "post"));
  const AgentView align = first(w, group_named(s, "align"));
  const AgentView face = first(w, group_named(s, "face"));
  const AgentView match = first(w, group_named(s, "velocity_match"));
  const AgentView car = first(w, group_named(s, "car (exact, car actuator)"));
  real crowd_min = math::kInfinity;
  const std::vector<AgentView> c = members(w, crowd);
  for (std::size_t a = 0; a < c.size(); ++a)
    for (std::size_t b = a + 1; b < c.size(); ++b) crowd_min = std::min(crowd_min, dist(s, c[a].position, c[b].position));
  const real align_err = std::fabs(math::wrap_angle(align.orientation - r.orientation));
  const real face_err = std::fabs(math::wrap_angle(face.orientation - math::orientation_of(r.position - face.position)));
  const real car_slip = std::fabs(math::cross(math::as_vector(car.orientation), car.velocity)) /
                        std::max(math::length(car.velocity), real(1e-9));
  std::printf("[figures] millington: rabbit off its path %.2f m, pursuer closest %.2f m, arrive %.2f m from its post at "
              "%.3f m/s, align %.3f rad, face %.3f rad, velocity match %.3f m/s, crowd spacing %.2f m, cone pair %.2f m, "
              "collision pair %.2f m, car slip %.3f, pattern back to start %.3f m\n",
              rabbit_off, pursue_closest, dist(s, arrive.position, post.position), math::length(arrive.velocity), align_err,
              face_err, math::length(match.velocity - r.velocity), crowd_min, cone_closest, tca_closest, car_slip,
              pattern_return);
  EXPECT_LT(rabbit_off, 3.0) << "T52: the rabbit keeps to its path";
  EXPECT_LT(pursue_closest, 3.0) << "T47: the pursuer catches up with the rabbit";
  EXPECT_LT(dist(s, arrive.position, post.position), 2.0) << "T44: arrive stops at its post";
  EXPECT_LT(math::length(arrive.velocity), 0.2);
  EXPECT_LT(align_err, 0.15) << "T45: align matches the rabbit's facing";
  EXPECT_LT(face_err, 0.15) << "T49: face looks at the rabbit";
  EXPECT_LT(math::length(match.velocity - r.velocity), 1.0) << "T46: velocity match follows the rabbit's velocity";
  EXPECT_GT(crowd_min, 0.8) << "T55: the crowd keeps its spacing";
  EXPECT_GT(cone_closest, 1.0) << "T57: the cone-check pair never touches";
  EXPECT_GT(tca_closest, 1.0) << "T58: the collision-avoidance pair never touches";
  EXPECT_LT(car_slip, 0.35) << "T07: a car moves along its heading";
  EXPECT_LT(pattern_return, 1e-6) << "T25: the square walk closes on its start";
}

TEST(Scenarios, T33_T36_AIDemo4UnitsChaseThePlayerAndViewModelsAreLive) {
  const Scenario s = load("aidemo4");
  World w(s);
  const AgentId p = w.add_player();
  w.set_input(p, {0.25, 1});  // the player flies wide circles
  std::int64_t captures = 0;
  real closest = math::kInfinity;
  run(w, 30, [&] {
    for (const Event& e : w.events()) captures += e.type == Event::Type::kCapture ? 1 : 0;
    const Vec2 pp = w.view(w.index_of(p)).position;
    for (const AgentView& u : members(w, 0)) closest = std::min(closest, dist(s, u.position, pp));
  });
  // The same 10 s from here with each view model: what the units see changes their paths.
  std::uint64_t hashes[3];
  for (std::int32_t m = 0; m < 3; ++m) {
    World v(s);
    sim::GroupSpec g = s.groups[0];
    g.view_model = m;
    ASSERT_EQ(v.set_group(0, g), "");
    run(v, 10);
    hashes[m] = v.state_hash();
  }
  std::printf("[figures] aidemo4: %lld captures of a circling player in 30 s, closest unit %.2f m, pushed out of rocks %lld times\n",
              static_cast<long long>(captures), closest, static_cast<long long>(w.pushout_stats().corrections));
  EXPECT_GT(captures, 0) << "T34-T36: the units hunt the player down";
  EXPECT_NE(hashes[0], hashes[1]);
  EXPECT_NE(hashes[1], hashes[2]);
}

/// What the shoal did about a player flying through the middle for 10 s (after a 2 s start):
/// the mean speed at which fish within 12 m move away from the player (their velocity along the
/// line from the player to them, m/s) and the fish-ticks closer than 6 m.
struct Parting {
  real away_speed = 0;
  std::int64_t near = 0;
};

Parting parting(const Scenario& s) {
  World w(s);
  const AgentId p = w.add_player();
  w.set_input(p, {0.1, 1});
  real away = 0;
  std::int64_t samples = 0;
  Parting r;
  run(w, 10, [&] {
    if (w.tick() < 120) return;
    const Vec2 pp = w.view(w.index_of(p)).position;
    for (std::int32_t i = 0; i < w.size(); ++i) {
      const AgentView v = w.view(i);
      if (v.group != 0) continue;
      const Vec2 d = delta(s, pp, v.position);
      const real r2 = math::length(d);
      if (r2 < 6) ++r.near;
      if (r2 < 12 && r2 > 0) {
        away += math::dot(v.velocity, d / r2);
        ++samples;
      }
    }
  });
  r.away_speed = samples > 0 ? away / static_cast<real>(samples) : 0;
  return r;
}

/// The property: fish near the player swim away from it at more than 1 m/s on average (a sixth
/// of their top speed; fish that ignore the player average about 0).
bool parts_round(const Parting& p) { return p.away_speed > 1.0; }

TEST(Scenarios, T80_T65_ShoalPartsRoundThePlayerBecauseItFlees) {
  const Scenario s = load("shoal");
  ASSERT_EQ(s.groups[0].compose.combiner, sim::Combiner::kGrouped);
  // Control: the same shoal with its flee_players behaviour switched off.
  Scenario no_flee = s;
  std::int32_t switched = 0;
  for (sim::BehaviorSpec& b : no_flee.groups[0].compose.behaviors)
    if (b.type == sim::BehaviorType::kFleePlayers) {
      b.weight = 0;
      ++switched;
    }
  ASSERT_EQ(switched, 1);
  const Parting flee = parting(s), still = parting(no_flee);
  std::printf("[figures] shoal: fish within 12 m of a player move away at %.2f m/s (%.2f m/s without the flee "
              "behaviour); fish-ticks within 6 m %lld (%lld without)\n",
              flee.away_speed, still.away_speed, static_cast<long long>(flee.near), static_cast<long long>(still.near));
  EXPECT_TRUE(parts_round(flee));
  EXPECT_FALSE(parts_round(still)) << "control: fish that do not flee must not pass the measure";
  EXPECT_LT(flee.near * 2, still.near);
}

TEST(Scenarios, T80_T78_ShoalGroupsBlendWherePlainPriorityLetsOneBehaviourWin) {
  const Scenario s = load("shoal");
  const sim::Composition& c = s.groups[0].compose;
  // The slides' four groups, in order: avoidance, separation, flocking, goal; the avoidance,
  // separation and goal groups blend two behaviours each.
  std::int32_t per_group[4] = {};
  for (const sim::BehaviorSpec& b : c.behaviors) ++per_group[b.priority];
  EXPECT_EQ(per_group[0], 2);
  EXPECT_EQ(per_group[1], 2);
  EXPECT_EQ(per_group[2], 1);
  EXPECT_EQ(per_group[3], 2);
  // The same shoal under plain first-non-zero priority (T78). Only the shoal runs wander besides
  // the jellyfish (the dithered school is emptied), so the wander count beyond the jellyfish's
  // 12 a tick is the shoal's.
  Scenario grouped = s;
  grouped.groups[static_cast<std::size_t>(group_named(s, "dithered school"))].count = 0;
  Scenario plain = grouped;
  plain.groups[0].compose.combiner = sim::Combiner::kPriority;
  auto run_counts = [](const Scenario& sc, std::uint64_t* hash) {
    World w(sc);
    run(w, 10);
    *hash = w.state_hash();
    return w.technique_counts();
  };
  std::uint64_t hg = 0, hp = 0;
  const sim::TechniqueCounts g = run_counts(grouped, &hg), p = run_counts(plain, &hp);
  const std::int64_t jelly = 12 * 10 * static_cast<std::int64_t>(s.tick_rate_hz);
  const std::int64_t shoal_wander_g = g[70] - jelly, shoal_wander_p = p[70] - jelly;
  std::printf("[figures] shoal over 10 s: fish-ticks the goal group blended wander into arrive %lld under grouped "
              "priorities, %lld under plain priority; T80 agent-ticks %lld\n",
              static_cast<long long>(shoal_wander_g), static_cast<long long>(shoal_wander_p),
              static_cast<long long>(g[79]));
  EXPECT_GT(g[79], 0);
  EXPECT_EQ(p[79], 0);
  // Grouped: strays (no schoolmate in view) blend wander with arriving home (measured 125
  // fish-ticks: at this density a fish is rarely alone).
  EXPECT_GT(shoal_wander_g, 50);
  // Plain priority: arrive comes first in the list and is never zero, so wander never runs.
  EXPECT_EQ(shoal_wander_p, 0);
  EXPECT_NE(hg, hp);
}

}  // namespace
}  // namespace flockstep::server::game
