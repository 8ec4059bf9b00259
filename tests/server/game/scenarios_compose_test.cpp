// Property tests of the composition rooms (millington, aidemo4, shoal): each figure does what its
// label says in the shipped file. Figures measured on the shipped files are printed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

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

/// What the millington room's figures did in 40 s (see each group's name for what to look for).
struct MillingtonRun {
  real rabbit_off = 0;                       // Fig 3.15: farthest off its loop after 2 s
  std::int64_t first_near[2] = {-1, -1};     // Figs 3.11/3.12 seek, pursue: first tick within 3 m
  real corner_gap[2] = {0, 0};               // Fig 3.16/3.17 plain, predictive: mean closest pass at the corners
  real crowd_min = math::kInfinity;          // closest pair in the mob after 5 s
  real crowd_travel = 0;                     // how far the mob's centroid moved
  real evade_far = 0, evade_home_share = 0;  // evade: farthest from home, share of time within 1 m of it
  std::int64_t avoiding[2] = {0, 0};         // Fig 3.21 cone, collision avoidance: ticks reacting to the walker
  real crossing[2] = {math::kInfinity, math::kInfinity};  // Fig 3.22/3.23 cone pair, collision pair: closest approach
  real align_drift = 0, face_drift = 0;                   // farthest from their posts
  // At the end: arrive's distance to its post and speed, align's and face's angle errors,
  // velocity match's error, the car's sideways slip; the pattern walker's closest return to its start.
  real arrive_gap = 0, arrive_speed = 0, align_err = 0, face_err = 0, match_err = 0, car_slip = 0;
  real pattern_return = math::kInfinity;
};

MillingtonRun millington_run(const Scenario& s) {
  World w(s);
  const auto g = [&](const char* prefix) {
    for (std::size_t k = 0; k < s.groups.size(); ++k)
      if (s.groups[k].name.rfind(prefix, 0) == 0) return static_cast<std::int32_t>(k);
    ADD_FAILURE() << "no group named " << prefix << "...";
    return std::int32_t{-1};
  };
  const std::int32_t rabbit = g("Fig 3.15"), chase[2] = {g("Fig 3.11"), g("Fig 3.12")};
  const std::int32_t follow[2] = {g("Fig 3.16"), g("Fig 3.17")};
  const std::int32_t crowd = g("3.3.13 separation"), evade = g("3.3.8 evade");
  const std::int32_t walker_cone = g("Fig 3.21 cone"), walker_tca = g("Fig 3.23 collision avoidance: ignores");
  const std::int32_t cone[2] = {g("Fig 3.22 cone check east"), g("Fig 3.22 cone check north")};
  const std::int32_t tca[2] = {g("Fig 3.23 collision avoidance east"), g("Fig 3.23 collision avoidance north")};
  const std::int32_t align = g("Fig 3.10"), face = g("3.3.9");
  const Vec2 align_post = first(w, align).position, face_post = first(w, face).position;
  const std::int32_t pattern = g("Bourg 3.1 pattern");
  const Vec2 pattern_start = first(w, pattern).position;
  const Vec2 home = s.groups[static_cast<std::size_t>(evade)].spawn_min;
  const std::vector<Vec2>& track = s.paths[1].points;
  std::vector<real> corner_best[2];
  for (auto& c : corner_best) c.assign(track.size(), math::kInfinity);
  const auto centroid = [&] {
    Vec2 c;
    const std::vector<AgentView> m = members(w, crowd);
    for (const AgentView& v : m) c += v.position;
    return c / static_cast<real>(m.size());
  };
  const Vec2 crowd_start = centroid();
  MillingtonRun out;
  std::int64_t ticks = 0, home_ticks = 0;
  run(w, 40, [&] {
    ++ticks;
    const Vec2 r = first(w, rabbit).position;
    if (w.tick() > 120) out.rabbit_off = std::max(out.rabbit_off, distance_to_loop(r, s.paths[0].points));
    for (int k = 0; k < 2; ++k) {
      if (out.first_near[k] < 0 && dist(s, first(w, chase[k]).position, r) < 3)
        out.first_near[k] = static_cast<std::int64_t>(w.tick());
      const Vec2 f = first(w, follow[k]).position;
      for (std::size_t c = 0; c < track.size(); ++c)
        corner_best[k][c] = std::min(corner_best[k][c], math::distance(f, track[c]));
      if (first(w, k == 0 ? walker_cone : walker_tca).state == sim::BehaviorState::kAvoiding) ++out.avoiding[k];
    }
    out.crossing[0] = std::min(out.crossing[0], dist(s, first(w, cone[0]).position, first(w, cone[1]).position));
    out.crossing[1] = std::min(out.crossing[1], dist(s, first(w, tca[0]).position, first(w, tca[1]).position));
    if (w.tick() > 300) {
      const std::vector<AgentView> c = members(w, crowd);
      for (std::size_t a = 0; a < c.size(); ++a)
        for (std::size_t b = a + 1; b < c.size(); ++b)
          out.crowd_min = std::min(out.crowd_min, dist(s, c[a].position, c[b].position));
    }
    const real e = math::distance(first(w, evade).position, home);
    out.evade_far = std::max(out.evade_far, e);
    home_ticks += e < 1 ? 1 : 0;
    out.align_drift = std::max(out.align_drift, math::distance(first(w, align).position, align_post));
    out.face_drift = std::max(out.face_drift, math::distance(first(w, face).position, face_post));
    if (w.tick() % 164 == 0)
      out.pattern_return = std::min(out.pattern_return, dist(s, first(w, pattern).position, pattern_start));
  });
  const AgentView r = first(w, rabbit);
  const AgentView arrive = first(w, g("Fig 3.9")), post = first(w, g("the post"));
  const AgentView al = first(w, align), fa = first(w, face), match = first(w, g("3.3.6")), car = first(w, g("3.1.3"));
  out.arrive_gap = dist(s, arrive.position, post.position);
  out.arrive_speed = math::length(arrive.velocity);
  out.align_err = std::fabs(math::wrap_angle(al.orientation - r.orientation));
  out.face_err = std::fabs(math::wrap_angle(fa.orientation - math::orientation_of(r.position - fa.position)));
  out.match_err = math::length(match.velocity - r.velocity);
  out.car_slip = std::fabs(math::cross(math::as_vector(car.orientation), car.velocity)) /
                 std::max(math::length(car.velocity), real(1e-9));
  for (int k = 0; k < 2; ++k) {
    for (const real c : corner_best[k]) out.corner_gap[k] += c / static_cast<real>(track.size());
  }
  out.crowd_travel = math::distance(centroid(), crowd_start);
  out.evade_home_share = static_cast<real>(home_ticks) / static_cast<real>(ticks);
  return out;
}

TEST(Scenarios, T42_T58_MillingtonFiguresDoWhatTheirLabelsSay) {
  const Scenario s = load("millington");
  // Compared pairs fly the same craft: speeds and forces equal, path followers on one path.
  const auto spec = [&](const char* prefix) -> const sim::GroupSpec& {
    for (const sim::GroupSpec& g : s.groups)
      if (g.name.rfind(prefix, 0) == 0) return g;
    ADD_FAILURE() << prefix;
    return s.groups.front();
  };
  for (const auto& [a, b] : {std::pair{"Fig 3.11", "Fig 3.12"}, std::pair{"Fig 3.16", "Fig 3.17"},
                             std::pair{"Fig 3.22 cone check east", "Fig 3.23 collision avoidance east"}}) {
    EXPECT_EQ(spec(a).max_speed, spec(b).max_speed) << a << " vs " << b;
    EXPECT_EQ(spec(a).max_force, spec(b).max_force) << a << " vs " << b;
  }
  EXPECT_EQ(spec("Fig 3.16").compose.behaviors[0].path, spec("Fig 3.17").compose.behaviors[0].path);
  EXPECT_GT(spec("Fig 3.17").compose.behaviors[0].predict_time, 0);
  EXPECT_EQ(spec("Fig 3.16").compose.behaviors[0].predict_time, 0);
  const MillingtonRun m = millington_run(s);
  // Control for the mob: without separation it bunches up.
  Scenario packed = s;
  for (sim::GroupSpec& g : packed.groups)
    if (g.name.rfind("3.3.13 separation", 0) == 0) g.compose.behaviors[0].weight = 0;
  const MillingtonRun p = millington_run(packed);
  std::printf(
      "[figures] millington, 40 s: rabbit off its loop %.2f m; first within 3 m of the rabbit: seek tick %lld, "
      "pursue tick %lld; closest pass at the track's corners: plain %.2f m, predictive %.2f m; mob spacing %.2f m "
      "(no separation %.2f m), mob moved %.1f m; evade farthest %.2f m from home, home %.0f %% of the time; "
      "ticks reacting to a walker ahead: cone %lld, collision avoidance %lld; crossing pairs' closest: cone %.2f m, "
      "collision avoidance %.2f m; align drift %.3f m, face drift %.3f m; arrive %.2f m from its post at %.3f m/s, "
      "align %.3f rad, face %.3f rad, velocity match %.3f m/s, car slip %.3f, pattern back to start %.3f m\n",
      m.rabbit_off, static_cast<long long>(m.first_near[0]), static_cast<long long>(m.first_near[1]), m.corner_gap[0],
      m.corner_gap[1], m.crowd_min, p.crowd_min, m.crowd_travel, m.evade_far, 100 * m.evade_home_share,
      static_cast<long long>(m.avoiding[0]), static_cast<long long>(m.avoiding[1]), m.crossing[0], m.crossing[1],
      m.align_drift, m.face_drift, m.arrive_gap, m.arrive_speed, m.align_err, m.face_err, m.match_err, m.car_slip,
      m.pattern_return);
  EXPECT_LT(m.rabbit_off, 3.0) << "T52: the rabbit keeps to its path";
  ASSERT_GE(m.first_near[1], 0) << "T47: pursue catches up with the rabbit";
  // Measured: pursue 158 ticks ahead of seek; with its prediction switched off (max_prediction
  // 0.001 s, no arrive) only 12, the 6 m between their start points.
  EXPECT_TRUE(m.first_near[0] < 0 || m.first_near[1] + 90 < m.first_near[0])
      << "T47 vs T42: pursue gets there over 1.5 s before seek";
  EXPECT_GT(m.corner_gap[1], m.corner_gap[0] + 0.5)
      << "T53: the predictive follower cuts the corners the plain one rounds";
  EXPECT_GT(m.crowd_min, 0.8) << "T55: the mob keeps its spacing";
  EXPECT_LT(p.crowd_min, m.crowd_min) << "control: without separation the mob packs closer";
  EXPECT_GT(m.crowd_travel, 20.0) << "the mob chases the rabbit, it does not gather at a point";
  EXPECT_GT(m.evade_far, 2.0) << "T48: evade dodges the passing rabbit";
  EXPECT_GT(m.evade_home_share, 0.3) << "T80 priority: arrive takes over and brings it home";
  EXPECT_GT(m.avoiding[0], 30) << "T57 Fig 3.21: the cone check reacts to a walker it will never hit";
  EXPECT_EQ(m.avoiding[1], 0) << "T58: collision avoidance sees no collision coming";
  EXPECT_LT(m.crossing[0], 1.0) << "T57 Fig 3.22: the cone pair walks into each other";
  EXPECT_GT(m.crossing[1], 0.95) << "T58: the collision-avoidance pair keeps clear (its collision radius: 1 m)";
  EXPECT_GT(m.crossing[1], 3 * m.crossing[0]);
  EXPECT_LT(m.align_drift, 0.5) << "T45: align turns in place";
  EXPECT_LT(m.face_drift, 0.5) << "T49: face turns in place";
  EXPECT_LT(m.arrive_gap, 2.0) << "T44: arrive stops at its post";
  EXPECT_LT(m.arrive_speed, 0.2);
  EXPECT_LT(m.align_err, 0.15) << "T45: align matches the rabbit's facing";
  EXPECT_LT(m.face_err, 0.15) << "T49: face looks at the rabbit";
  EXPECT_LT(m.match_err, 1.0) << "T46: velocity match follows the rabbit's velocity";
  EXPECT_LT(m.car_slip, 0.35) << "T07: a car moves along its heading";
  EXPECT_LT(m.pattern_return, 1e-6) << "T25: the square walk closes on its start";
}

/// What the aidemo4 units did to a player flying wide circles for 30 s: the followers' own
/// approach (the mean speed at which followers, neither leader nor interceptor, close on the player
/// while it is within their 30 m view) and the captures, with those the followers made themselves.
struct Demo4Chase {
  real closing = 0;  // m/s
  std::int64_t captures = 0, follower_captures = 0;
  std::int64_t pushouts = 0;  // times the push-out rule had to move a unit out of a rock
};

Demo4Chase aidemo4_chase(const Scenario& s) {
  World w(s);
  const AgentId p = w.add_player();
  w.set_input(p, {0.25, 1});
  // The leader and the interceptor: the two lowest id values (no unit despawns here).
  std::vector<std::uint32_t> ids;
  for (const AgentView& u : members(w, 0)) ids.push_back(u.id.value);
  std::sort(ids.begin(), ids.end());
  const auto follower = [&](std::uint32_t v) { return v != ids.at(0) && v != ids.at(1); };
  Demo4Chase out;
  std::int64_t samples = 0;
  std::map<std::uint32_t, real> before;  // last tick's distance to the player, by id value
  run(w, 30, [&] {
    bool respawned = false;
    for (const Event& e : w.events()) {
      if (e.type != Event::Type::kCapture) continue;
      respawned = true;
      ++out.captures;
      out.follower_captures += follower(e.other.value) ? 1 : 0;
    }
    const Vec2 pp = w.view(w.index_of(p)).position;
    for (const AgentView& u : members(w, 0)) {
      if (!follower(u.id.value)) continue;
      real& last = before.try_emplace(u.id.value, real(-1)).first->second;
      const real d = dist(s, u.position, pp);
      if (!respawned && w.tick() > 120 && last >= 0 && last < 30) {
        out.closing += (last - d) / w.dt();
        ++samples;
      }
      last = respawned ? -1 : d;
    }
  });
  out.closing /= static_cast<real>(std::max<std::int64_t>(samples, 1));
  out.pushouts = w.pushout_stats().corrections;
  return out;
}

TEST(Scenarios, T33_T36_AIDemo4UnitsChaseThePlayerAndViewModelsAreLive) {
  const Scenario s = load("aidemo4");
  ASSERT_EQ(s.groups[0].technique, sim::Technique::kBourgFlock);
  // AIDemo4 flies one craft class: the player's craft is the units' craft.
  const behavior::CraftParams& u = s.groups[0].craft;
  const behavior::CraftParams& pc = s.player_craft;
  EXPECT_TRUE(u.mass == pc.mass && u.inertia == pc.inertia && u.length == pc.length && u.thrust == pc.thrust &&
              u.max_steering_force == pc.max_steering_force && u.linear_drag == pc.linear_drag &&
              u.lateral_drag == pc.lateral_drag && u.angular_drag == pc.angular_drag);
  // Control: the same room with the followers' flocking (rules, leader and player pulls) off.
  Scenario still = s;
  still.groups[0].flocking = false;
  const Demo4Chase on = aidemo4_chase(s), off = aidemo4_chase(still);
  // The same 10 s with each view model, and with flocking switched off live: what the units see
  // and whether they flock change their paths.
  std::uint64_t hashes[4];
  for (std::int32_t m = 0; m < 4; ++m) {
    World v(s);
    sim::GroupSpec g = s.groups[0];
    g.view_model = m < 3 ? m : 0;
    g.flocking = m < 3;
    ASSERT_EQ(v.set_group(0, g), "");
    run(v, 10);
    hashes[m] = v.state_hash();
  }
  std::printf(
      "[figures] aidemo4, a circling player for 30 s: followers close on it at %.2f m/s while it is in view "
      "(flocking off %.2f m/s); captures %lld, by followers %lld (flocking off %lld, %lld)\n",
      static_cast<double>(on.closing), static_cast<double>(off.closing), static_cast<long long>(on.captures),
      static_cast<long long>(on.follower_captures), static_cast<long long>(off.captures),
      static_cast<long long>(off.follower_captures));
  EXPECT_GT(on.closing, 1.0) << "T34/T35: the followers themselves close on the player they see";
  EXPECT_GT(on.closing, off.closing + 1.0) << "control: not flocking, they only pass it by";
  EXPECT_NE(hashes[0], hashes[1]);
  EXPECT_NE(hashes[1], hashes[2]);
  EXPECT_NE(hashes[0], hashes[3]) << "flocking on/off is live";
}

TEST(Scenarios, T36_AIDemo4UnitsSteerRoundTheRocksThemselves) {
  // The push-out rule moves any unit that ends a tick inside a rock and counts it: with the T36
  // obstacle rule it never has to; the control without the rule shows the rocks are in the way.
  const Scenario s = load("aidemo4");
  Scenario blind = s;
  blind.groups[0].avoid_obstacles = false;
  const Demo4Chase with = aidemo4_chase(s), without = aidemo4_chase(blind);
  std::printf("[figures] aidemo4: units pushed out of rocks in 30 s: %lld with the obstacle rule, %lld without\n",
              static_cast<long long>(with.pushouts), static_cast<long long>(without.pushouts));
  EXPECT_EQ(with.pushouts, 0) << "T36: no unit enters a rock";
  EXPECT_GT(without.pushouts, 0) << "control: without the rule units do fly into rocks";
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
  std::printf(
      "[figures] shoal: fish within 12 m of a player move away at %.2f m/s (%.2f m/s without the flee "
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
  std::printf(
      "[figures] shoal over 10 s: fish-ticks the goal group blended wander into arrive %lld under grouped "
      "priorities, %lld under plain priority; T80 agent-ticks %lld\n",
      static_cast<long long>(shoal_wander_g), static_cast<long long>(shoal_wander_p), static_cast<long long>(g[79]));
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
