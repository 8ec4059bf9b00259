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
    if (w.tick() % 164 == 0)
      pattern_return = std::min(pattern_return, dist(s, first(w, pattern).position, pattern_start));
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
    for (std::size_t b = a + 1; b < c.size(); ++b)
      crowd_min = std::min(crowd_min, dist(s, c[a].position, c[b].position));
  const real align_err = std::fabs(math::wrap_angle(align.orientation - r.orientation));
  const real face_err =
      std::fabs(math::wrap_angle(face.orientation - math::orientation_of(r.position - face.position)));
  const real car_slip = std::fabs(math::cross(math::as_vector(car.orientation), car.velocity)) /
                        std::max(math::length(car.velocity), real(1e-9));
  std::printf(
      "[figures] millington: rabbit off its path %.2f m, pursuer closest %.2f m, arrive %.2f m from its post at "
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
  std::printf(
      "[figures] aidemo4: %lld captures of a circling player in 30 s, closest unit %.2f m, pushed out of rocks %lld "
      "times\n",
      static_cast<long long>(captures), closest, static_cast<long long>(w.pushout_stats().corrections));
  EXPECT_GT(captures, 0) << "T34-T36: the units hunt the player down";
  EXPECT_NE(hashes[0], hashes[1]);
  EXPECT_NE(hashes[1], hashes[2]);
}

/// Shoal fish closer than 6 m to a player flying through the middle, summed over 10 s.
std::int64_t fish_near_player(const Scenario& s) {
  World w(s);
  const AgentId p = w.add_player();
  w.set_input(p, {0.1, 1});
  std::int64_t near = 0;
  run(w, 10, [&] {
    if (w.tick() < 120) return;
    const Vec2 pp = w.view(w.index_of(p)).position;
    for (std::int32_t i = 0; i < w.size(); ++i) {
      const AgentView v = w.view(i);
      if (v.group == 0 && dist(s, v.position, pp) < 6) ++near;
    }
  });
  return near;
}

TEST(Scenarios, T78_T80_ShoalPartsRoundThePlayerAndSharksFeed) {
  const Scenario s = load("shoal");
  const sim::GroupSpec& shoal = s.groups[0];
  ASSERT_EQ(shoal.compose.combiner, sim::Combiner::kGrouped);
  ASSERT_GT(shoal.compose.filters.heading_samples, 0);
  // T80: fleeing you is its own priority group; switched off, the shoal does not part.
  Scenario no_flee = s;
  for (sim::BehaviorSpec& b : no_flee.groups[0].compose.behaviors)
    if (b.type == sim::BehaviorType::kFleePlayers) b.weight = 0;
  const std::int64_t near = fish_near_player(s), near_without = fish_near_player(no_flee);
  // T78: sharks (priority: rocks, then pursue) catch fish of the shoal.
  World w(s);
  std::int64_t eaten = 0;
  run(w, 20, [&] {
    for (const Event& e : w.events())
      if (e.type == Event::Type::kCapture && w.index_of(e.other) >= 0 && w.view(w.index_of(e.other)).group == 2)
        ++eaten;
  });
  std::printf(
      "[figures] shoal: fish-ticks within 6 m of a player %lld (without the flee group %lld); %lld fish eaten "
      "in 20 s; rock push-outs %lld\n",
      static_cast<long long>(near), static_cast<long long>(near_without), static_cast<long long>(eaten),
      static_cast<long long>(w.pushout_stats().corrections));
  EXPECT_LT(near * 2, near_without);
  EXPECT_GT(eaten, 0);
}

}  // namespace
}  // namespace flockstep::server::game
