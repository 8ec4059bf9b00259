// Tests for T31-T36: Bourg & Seemann flocking and the headless AIDemo4 world.
#include "flockstep/behavior/bourg_flocking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::ViewModel;
using fm::real;
using fm::Vec2;

namespace {

constexpr real kDt = 1.0 / 60.0;
constexpr real kS = 3;  // a steering force S, N

// Catalog's truth table is written in Bourg's frame (x starboard, y forward); ours is
// (forward, left), so (bx, by) -> (by, -bx).
Vec2 from_bourg(real bx, real by) { return {by, -bx}; }

// Open-space flock of n followers (no player chase: the player sits far away) for the
// statistical T31/T32 properties.
struct OpenFlock {
  std::vector<fb::CraftState> units;
  fb::FlockUnitParams params;
  fb::CraftParams craft = fb::kDemo4Craft;
  ViewModel view = ViewModel::wide;

  OpenFlock(int n, std::uint64_t seed, real box) : units(static_cast<std::size_t>(n + 1)) {
    fm::Rng rng = fm::Rng::seeded(seed);
    units[0].position = {1e6, 1e6};
    for (int i = 1; i <= n; ++i) {
      fb::CraftState& u = units[static_cast<std::size_t>(i)];
      u.position = {rng.uniform(0, box), rng.uniform(0, box)};
      u.orientation = rng.uniform(-fm::kPi, fm::kPi);
      u.velocity = fm::as_vector(u.orientation) * 8;
    }
  }
  int n() const { return static_cast<int>(units.size()) - 1; }
  void run(int ticks) {
    std::vector<fb::Mover> m(units.size());
    std::vector<real> lateral(units.size());
    fb::ChaseMode mode{};
    for (int t = 0; t < ticks; ++t) {
      for (std::size_t i = 0; i < units.size(); ++i) m[i] = {units[i].position, units[i].velocity};
      fb::FlockContext ctx;
      ctx.units = m;
      ctx.view = view;
      for (int i = 1; i <= n(); ++i) {
        lateral[static_cast<std::size_t>(i)] =
            fb::flock_unit_ai(i, units[static_cast<std::size_t>(i)], craft, fb::FlockRole::follower, ctx, params, mode)
                .lateral_force;
      }
      for (int i = 1; i <= n(); ++i) {
        fb::craft_step_lateral(units[static_cast<std::size_t>(i)], craft, lateral[static_cast<std::size_t>(i)], 1, kDt);
      }
    }
  }
  Vec2 centroid() const {
    Vec2 c;
    for (int i = 1; i <= n(); ++i) c += units[static_cast<std::size_t>(i)].position;
    return c / n();
  }
  real spread() const {  // RMS distance to the centroid
    const Vec2 c = centroid();
    real s = 0;
    for (int i = 1; i <= n(); ++i) s += fm::distance_sq(units[static_cast<std::size_t>(i)].position, c);
    return std::sqrt(s / n());
  }
  real order() const {  // polarisation |sum of headings| / N
    Vec2 h;
    for (int i = 1; i <= n(); ++i) h += fb::craft_heading(units[static_cast<std::size_t>(i)]);
    return fm::length(h) / n();
  }
  real min_pair() const {
    real best = fm::kInfinity;
    for (int i = 1; i <= n(); ++i)
      for (int j = i + 1; j <= n(); ++j)
        best = std::min(best, fm::distance(units[static_cast<std::size_t>(i)].position,
                                           units[static_cast<std::size_t>(j)].position));
    return best;
  }
  int components(real r) const {  // connected components of the "within r" graph
    std::vector<int> label(units.size(), -1);
    int count = 0;
    for (int s = 1; s <= n(); ++s) {
      if (label[static_cast<std::size_t>(s)] >= 0) continue;
      std::vector<int> stack{s};
      label[static_cast<std::size_t>(s)] = count;
      while (!stack.empty()) {
        const int a = stack.back();
        stack.pop_back();
        for (int b = 1; b <= n(); ++b) {
          if (label[static_cast<std::size_t>(b)] < 0 &&
              fm::distance(units[static_cast<std::size_t>(a)].position, units[static_cast<std::size_t>(b)].position) <=
                  r) {
            label[static_cast<std::size_t>(b)] = count;
            stack.push_back(b);
          }
        }
      }
      ++count;
    }
    return count;
  }
  // How line-like the local structure is: mean |cos| between each unit's heading and the
  // offset to its nearest neighbour (1 = neighbours straight ahead/behind, single file).
  real file_index() const {
    real sum = 0;
    for (int i = 1; i <= n(); ++i) {
      real best = fm::kInfinity;
      Vec2 off;
      for (int j = 1; j <= n(); ++j) {
        if (j == i) continue;
        const Vec2 d = units[static_cast<std::size_t>(j)].position - units[static_cast<std::size_t>(i)].position;
        if (fm::length(d) < best) {
          best = fm::length(d);
          off = d;
        }
      }
      sum += std::abs(fm::dot(fm::normalized(off), fb::craft_heading(units[static_cast<std::size_t>(i)])));
    }
    return sum / n();
  }
};

}  // namespace

// ---------------------------------------------------------------- T33 gathering

TEST(BourgFlocking, T33_VisibilityTruthTable) {
  fb::ViewParams vp;  // the catalog's table takes k_back = k_front = 1 (a 90 deg narrow cone)
  vp.k_front = 1;
  // The default narrow view is the seed's, about 45 deg: k_front = tan(22.5 deg).
  EXPECT_NEAR(2 * std::atan(fb::ViewParams{}.k_front), fm::kPi / 4, 1e-12);
  const real d = 2;
  struct Row {
    real bx, by;
    bool wide, limited, narrow;
  };
  const Row rows[] = {
      {0, -d, false, false, false},        // straight behind
      {d, -0.5 * d, true, false, false},   // behind but outside the blind wedge
      {0.5 * d, -d, false, false, false},  // inside the wedge
      {0.5 * d, d, true, true, true},      // ahead in the cone
      {2 * d, d, true, true, false},       // ahead, outside the narrow cone
  };
  for (const Row& r : rows) {
    for (const real mirror : {1.0, -1.0}) {
      const Vec2 local = from_bourg(mirror * r.bx, r.by);
      EXPECT_EQ(fb::in_view(local, ViewModel::wide, vp), r.wide) << r.bx << "," << r.by;
      EXPECT_EQ(fb::in_view(local, ViewModel::limited, vp), r.limited) << r.bx << "," << r.by;
      EXPECT_EQ(fb::in_view(local, ViewModel::narrow, vp), r.narrow) << r.bx << "," << r.by;
    }
  }
}

TEST(BourgFlocking, T33_AbeamDecisionAndFieldOfView) {
  fb::ViewParams vp;
  const Vec2 abeam = from_bourg(3, 0);
  EXPECT_FALSE(fb::in_view(abeam, ViewModel::limited, vp));  // seed: never visible
  EXPECT_FALSE(fb::in_view(abeam, ViewModel::wide, vp));
  vp.abeam_visible = true;
  EXPECT_TRUE(fb::in_view(abeam, ViewModel::limited, vp));
  EXPECT_TRUE(fb::in_view(abeam, ViewModel::wide, vp));
  // Field of view: wide = 360 - 2 atan(k_back), narrow = 2 atan(k_front). Probe the edges.
  vp = {};
  vp.k_back = 2;
  const real wedge_half = std::atan(vp.k_back);  // half-angle of the blind wedge, from straight behind
  EXPECT_TRUE(fb::in_view({-std::cos(wedge_half + 0.01), std::sin(wedge_half + 0.01)}, ViewModel::wide, vp));
  EXPECT_FALSE(fb::in_view({-std::cos(wedge_half - 0.01), std::sin(wedge_half - 0.01)}, ViewModel::wide, vp));
  vp.k_front = std::tan(fm::kPi / 8);  // 45 deg total
  EXPECT_TRUE(fb::in_view({std::cos(0.38), std::sin(0.38)}, ViewModel::narrow, vp));
  EXPECT_FALSE(fb::in_view({std::cos(0.41), std::sin(0.41)}, ViewModel::narrow, vp));
}

TEST(BourgFlocking, T33_RadiusPlayerAndSelfExcluded) {
  const fb::ViewParams vp;
  const real length = 1;
  const real r = fb::view_radius(length, ViewModel::wide, vp);
  EXPECT_EQ(r, 30);
  // id 0 player right ahead, id 1 self, id 2 inside the radius, id 3 just beyond.
  const fb::Mover units[] = {{{5, 0}, {1, 0}}, {{0, 0}, {1, 0}}, {{r - 0.01, 0}, {0, 2}}, {{r + 0.01, 0}, {0, 2}}};
  std::int32_t ids[4] = {-1, -1, -1, -1};
  const fb::NeighborSummary s = fb::gather_neighbors_all(1, {1, 0}, units, length, ViewModel::wide, vp, ids);
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.stored, 1);
  EXPECT_EQ(ids[0], 2);
  EXPECT_EQ(s.average_position, (Vec2{r - 0.01, 0}));
  EXPECT_EQ(s.average_velocity, (Vec2{0, 2}));
  // Candidate list that names the player and self explicitly: still excluded.
  const std::int32_t cand[] = {0, 1, 3};
  const fb::NeighborSummary none = fb::gather_neighbors(1, {1, 0}, units, cand, length, ViewModel::wide, vp);
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.average_position, (Vec2{0, 0}));  // N = 0: no division, no NaN
  EXPECT_EQ(none.average_velocity, (Vec2{0, 0}));
}

TEST(BourgFlocking, T33_MatchesBruteForceReference) {
  fm::Rng rng = fm::Rng::seeded(33);
  std::vector<fb::Mover> units(40);
  for (auto& u : units) u = {{rng.uniform(0, 60), rng.uniform(0, 60)}, {rng.uniform(-5, 5), rng.uniform(-5, 5)}};
  const fb::ViewParams vp;
  std::vector<std::int32_t> all_ids;
  for (std::int32_t i = 0; i < 40; ++i) all_ids.push_back(i);
  for (const ViewModel model : {ViewModel::wide, ViewModel::limited, ViewModel::narrow}) {
    for (std::int32_t self = 1; self < 40; ++self) {
      const Vec2 h = fm::as_vector(rng.uniform(-fm::kPi, fm::kPi));
      // Reference written directly from the catalog in Bourg's frame.
      int n = 0;
      Vec2 sp, sv;
      for (std::int32_t j = 1; j < 40; ++j) {
        if (j == self) continue;
        const Vec2 d = units[static_cast<std::size_t>(j)].position - units[static_cast<std::size_t>(self)].position;
        const Vec2 w = fm::to_bourg_local(d, h);
        bool vis = false;
        if (model == ViewModel::wide) vis = w.y > 0 || (w.y < 0 && std::abs(w.x) > vp.k_back * std::abs(w.y));
        if (model == ViewModel::limited) vis = w.y > 0;
        if (model == ViewModel::narrow) vis = w.y > 0 && std::abs(w.x) < vp.k_front * std::abs(w.y);
        if (vis && fm::length(d) <= fb::view_radius(1, model, vp)) {
          ++n;
          sp += units[static_cast<std::size_t>(j)].position;
          sv += units[static_cast<std::size_t>(j)].velocity;
        }
      }
      const fb::NeighborSummary a = fb::gather_neighbors_all(self, h, units, 1, model, vp);
      const fb::NeighborSummary b = fb::gather_neighbors(self, h, units, all_ids, 1, model, vp);
      ASSERT_EQ(a.count, n);
      ASSERT_EQ(b.count, n);
      if (n > 0) {
        EXPECT_NEAR(a.average_position.x, sp.x / n, 1e-9);
        EXPECT_NEAR(a.average_position.y, sp.y / n, 1e-9);
        EXPECT_NEAR(a.average_velocity.x, sv.x / n, 1e-9);
        EXPECT_NEAR(a.average_velocity.y, sv.y / n, 1e-9);
        EXPECT_EQ(a.average_position, b.average_position);
      }
    }
  }
}

// ---------------------------------------------------------------- T34 rules

TEST(BourgFlocking, T34_SeparationInverseDistanceAndSide) {
  const fb::FlockRuleParams rp;
  const fb::CraftParams cp;
  const real length = cp.length;
  const real threshold = length * rp.separation_factor;
  // Neighbour on the right (heading +x: right is -y) -> positive = left turn, away from it.
  const real f1 = fb::separation_force({0, 0}, {1, 0}, {1, -1}, cp, rp);
  EXPECT_GT(f1, 0);
  EXPECT_LT(fb::separation_force({0, 0}, {1, 0}, {1, 1}, cp, rp), 0);
  // Magnitude * distance is constant (1/d response), equal to S k_s threshold.
  for (const real d : {0.5, 1.0, 2.0, 3.9}) {
    const real f = fb::separation_force({0, 0}, {1, 0}, {0, -d}, cp, rp);
    EXPECT_NEAR(f * d, cp.max_steering_force * rp.separation_weight * threshold, 1e-12) << d;
  }
  EXPECT_EQ(fb::separation_force({0, 0}, {1, 0}, {0, -threshold - 0.01}, cp, rp), 0);
  // Coincident: finite (distance floored), deterministic side.
  const real c = fb::separation_force({2, 2}, {1, 0}, {2, 2}, cp, rp);
  EXPECT_TRUE(std::isfinite(c));
  EXPECT_NEAR(std::abs(c), cp.max_steering_force * rp.separation_weight * threshold / (length * rp.min_distance_factor),
              1e-9);
}

TEST(BourgFlocking, T34_AlignmentLinearInAngle) {
  const fb::FlockRuleParams rp;
  EXPECT_EQ(fb::alignment_force({1, 0}, {5, 0}, kS, rp), 0);  // headings match
  EXPECT_EQ(fb::alignment_force({1, 0}, {0, 0}, kS, rp), 0);  // no mean velocity
  const real unit = kS * rp.alignment_weight / fm::kPi;
  for (const real phi : {0.1, 0.5, 1.0, 2.0, 3.0}) {
    EXPECT_NEAR(fb::alignment_force({1, 0}, fm::as_vector(phi) * 3, kS, rp), unit * phi, 1e-9) << phi;    // left
    EXPECT_NEAR(fb::alignment_force({1, 0}, fm::as_vector(-phi) * 3, kS, rp), -unit * phi, 1e-9) << phi;  // right
  }
  // Exactly opposite: full response, tie broken to the left.
  EXPECT_NEAR(fb::alignment_force({1, 0}, {-2, 0}, kS, rp), unit * fm::kPi, 1e-9);
}

TEST(BourgFlocking, T34_CohesionTowardCentroidBearing) {
  const fb::FlockRuleParams rp;
  const Vec2 h = fm::as_vector(0.7);
  const Vec2 p{3, 4};
  // Centroid on the right -> negative force -> right turn.
  EXPECT_LT(fb::cohesion_force(p, h, p + fm::rotate(h, -0.5) * 10, kS, rp), 0);
  EXPECT_GT(fb::cohesion_force(p, h, p + fm::rotate(h, 0.5) * 10, kS, rp), 0);
  // Proportional to the bearing, independent of the distance.
  const real a = fb::cohesion_force(p, h, p + fm::rotate(h, 0.4) * 10, kS, rp);
  const real b = fb::cohesion_force(p, h, p + fm::rotate(h, 0.8) * 25, kS, rp);
  EXPECT_NEAR(b, 2 * a, 1e-9);
  EXPECT_NEAR(a, kS * rp.cohesion_weight * 0.4 / fm::kPi, 1e-9);
  EXPECT_EQ(fb::cohesion_force(p, h, p, kS, rp), 0);
}

TEST(BourgFlocking, T34_ContributionIsPurelyLateralInBodyFrame) {
  // A lateral bow force changes only the sideways body velocity (and the spin), never the
  // forward speed, on its first step.
  fb::CraftParams cp;
  cp.thrust = 0;
  cp.linear_drag = 0;
  cp.lateral_drag = 0;
  fb::CraftState s;
  s.orientation = 1.1;
  s.velocity = fm::as_vector(1.1) * 5;
  fb::craft_step_lateral(s, cp, -2.5, 1, kDt);
  const Vec2 body = fm::to_local(s.velocity, fm::as_vector(1.1));
  EXPECT_NEAR(body.x, 5, 1e-12);
  EXPECT_NEAR(body.y, -2.5 / cp.mass * kDt, 1e-12);
  EXPECT_LT(s.angular_velocity, 0);  // force to the right turns it right
}

TEST(BourgFlocking, T34_NeighbourOnRightTooCloseTurnsLeft) {
  // Full unit AI: one neighbour close on the right. Cohesion pulls right, separation pushes left;
  // too close, separation must win.
  const fb::Mover units[] = {{{1e6, 0}, {}}, {{0, 0}, {8, 0}}, {{0.6, -0.6}, {8, 0}}};
  fb::FlockContext ctx;
  ctx.units = units;
  fb::FlockUnitParams up;
  fb::CraftState me;
  me.velocity = {8, 0};
  fb::ChaseMode mode{};
  const fb::FlockSteering s = fb::flock_unit_ai(1, me, fb::CraftParams{}, fb::FlockRole::follower, ctx, up, mode);
  EXPECT_EQ(s.neighbors.count, 1);
  EXPECT_GT(s.lateral_force, 0);
  // Farther away (outside separation) the same neighbour attracts: right turn.
  const fb::Mover far_units[] = {{{1e6, 0}, {}}, {{0, 0}, {8, 0}}, {{6, -6}, {8, 0}}};
  ctx.units = far_units;
  EXPECT_LT(fb::flock_unit_ai(1, me, fb::CraftParams{}, fb::FlockRole::follower, ctx, up, mode).lateral_force, 0);
}

// ---------------------------------------------------------------- T31/T32 statistics

TEST(BourgFlocking, T31_CohesionOnlyShrinksSpread) {
  OpenFlock f(16, 7, 40);
  f.params.rules.alignment_weight = 0;
  f.params.rules.separation_weight = 0;
  const real before = f.spread();
  f.run(600);
  EXPECT_LT(f.spread(), 0.6 * before);
}

TEST(BourgFlocking, T31_AlignmentOnlyRaisesPolarisation) {
  OpenFlock f(16, 7, 40);
  f.params.rules.cohesion_weight = 0;
  f.params.rules.separation_weight = 0;
  const real before = f.order();
  f.run(600);
  EXPECT_LT(before, 0.5);
  EXPECT_GT(f.order(), 0.95);
}

TEST(BourgFlocking, T31_SeparationKeepsMinimumDistance) {
  // Cohesion alone collapses units onto each other; adding separation keeps them apart.
  OpenFlock with(16, 7, 40);
  OpenFlock without(16, 7, 40);
  without.params.rules.separation_weight = 0;
  with.run(120);  // transient
  without.run(120);
  real min_with = fm::kInfinity;
  real min_without = fm::kInfinity;
  for (int k = 0; k < 20; ++k) {
    with.run(24);
    without.run(24);
    min_with = std::min(min_with, with.min_pair());
    min_without = std::min(min_without, without.min_pair());
  }
  // Separation shares the one bow thruster (the net force is bounded by S), so against cohesion
  // at 4 S it holds pairs about 0.37 m apart at the closest, twice the 0.18 m without it.
  EXPECT_GT(min_with, 0.3);
  EXPECT_LT(2 * min_without, min_with);
}

TEST(BourgFlocking, T32_LargerRadiusFewerSplinterGroups) {
  int previous = 1000;
  for (const real factor : {8.0, 20.0, 40.0}) {
    int total = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {  // six seeds: three left a 16-vs-18 coin toss at 20 vs 40
      OpenFlock f(16, seed, 60);
      f.params.view.wide_radius_factor = factor;
      f.run(600);
      total += f.components(15);
    }
    EXPECT_LE(total, previous) << factor;
    previous = total;
  }
}

// ---------------------------------------------------------------- T35/T36 AIDemo4

namespace {

struct DemoStats {
  real nearest = 0;                   // mean nearest-neighbour distance (torus), AI units only
  int close_pairs = 0;                // pairs closer than one unit length
  real player_gap = 0;                // mean distance from the units to the player (torus)
  real obstacle_gap = fm::kInfinity;  // min (centre distance - radius) over units and obstacles
};

DemoStats demo_stats(const fb::Demo4World& w, const fb::Demo4Params& p) {
  DemoStats st;
  const int n = w.num_units;
  for (int i = 1; i < n; ++i) {
    const Vec2 pi = w.units[static_cast<std::size_t>(i)].position;
    real best = fm::kInfinity;
    for (int j = 1; j < n; ++j) {
      if (j == i) continue;
      const real d = fm::length(fm::torus_delta(pi, w.units[static_cast<std::size_t>(j)].position, p.width, p.height));
      best = std::min(best, d);
      if (j > i && d < p.craft.length) ++st.close_pairs;
    }
    st.nearest += best;
    st.player_gap += fm::length(fm::torus_delta(w.units[0].position, pi, p.width, p.height));
    for (int k = 0; k < w.num_obstacles; ++k) {
      const fb::Circle& o = w.obstacles[static_cast<std::size_t>(k)];
      st.obstacle_gap = std::min(st.obstacle_gap, fm::distance(pi, o.center) - o.radius);
    }
  }
  st.nearest /= (n - 1);
  st.player_gap /= (n - 1);
  return st;
}

const fb::Circle kObstacles[] = {{{50, 40}, 8}, {{150, 100}, 10}, {{60, 110}, 6}};

}  // namespace

TEST(BourgFlocking, T35_RightArrowTurnsPlayerRightAtHalfFactor) {
  fb::Demo4Params p;
  fm::Rng rng = fm::Rng::seeded(35);
  fb::Demo4World w = fb::demo4_make(p, {}, rng);
  fb::CraftState ref = w.units[0];
  fb::demo4_step(w, p, {false, true});
  fb::craft_step(ref, p.craft, fb::Thrusters{true, false, 0.5, 1}, p.dt);  // port at 0.5
  EXPECT_EQ(w.units[0].velocity, ref.velocity);
  EXPECT_EQ(w.units[0].angular_velocity, ref.angular_velocity);
  EXPECT_LT(w.units[0].angular_velocity, 0);  // clockwise: right turn
  fb::Demo4World l = fb::demo4_make(p, {}, rng);
  fb::demo4_step(l, p, {true, false});
  EXPECT_GT(l.units[0].angular_velocity, 0);
}

TEST(BourgFlocking, T35_RenderCadenceDoesNotAffectPhysics) {
  fb::Demo4Params a;
  a.render_frame_count = 1;
  fb::Demo4Params b = a;
  b.render_frame_count = 7;
  fm::Rng ra = fm::Rng::seeded(5);
  fm::Rng rb = fm::Rng::seeded(5);
  fb::Demo4World wa = fb::demo4_make(a, kObstacles, ra);
  fb::Demo4World wb = fb::demo4_make(b, kObstacles, rb);
  int renders_b = 0;
  for (int t = 0; t < 300; ++t) {
    const fb::Demo4Input in{t % 50 < 10, t % 70 > 50};
    EXPECT_TRUE(fb::demo4_step(wa, a, in));
    renders_b += fb::demo4_step(wb, b, in) ? 1 : 0;
  }
  EXPECT_EQ(wa.frames_rendered, 300u);
  EXPECT_EQ(renders_b, 300 / 7);
  EXPECT_EQ(wb.tick, 300u);
  for (int i = 0; i < wa.num_units; ++i) {
    const auto k = static_cast<std::size_t>(i);
    ASSERT_EQ(wa.units[k].position, wb.units[k].position) << i;
    ASSERT_EQ(wa.units[k].velocity, wb.units[k].velocity) << i;
    ASSERT_EQ(wa.units[k].orientation, wb.units[k].orientation) << i;
  }
}

TEST(BourgFlocking, T35_WrapKeepsEveryUnitInsideTheWorld) {
  for (const bool seed_wrap : {false, true}) {
    fb::Demo4Params p;
    p.seed_wrap = seed_wrap;
    p.width = 60;
    p.height = 40;
    fm::Rng rng = fm::Rng::seeded(14);
    fb::Demo4World w = fb::demo4_make(p, {}, rng);
    for (int t = 0; t < 240; ++t) {
      fb::demo4_step(w, p, {});
      for (int i = 0; i < w.num_units; ++i) {
        const Vec2 q = w.units[static_cast<std::size_t>(i)].position;
        ASSERT_TRUE(q.x >= 0 && q.x <= p.width && q.y >= 0 && q.y <= p.height) << i << " t " << t;
      }
    }
  }
}

TEST(BourgFlocking, T35_FlockingTightensAndSeparationAvoidsContacts) {
  // Three runs from the same start: flocking on, flocking off, flocking without separation.
  real nearest[3] = {0, 0, 0};
  int close[3] = {0, 0, 0};
  int samples = 0;
  for (int run = 0; run < 3; ++run) {
    fb::Demo4Params p;
    if (run == 2) p.ai.rules.separation_weight = 0;
    fm::Rng rng = fm::Rng::seeded(4);
    fb::Demo4World w = fb::demo4_make(p, kObstacles, rng);
    w.flocking = run != 1;
    samples = 0;
    for (int t = 0; t < 1200; ++t) {
      fb::demo4_step(w, p, {});
      if (t >= 600 && t % 5 == 0) {
        const DemoStats st = demo_stats(w, p);
        nearest[run] += st.nearest;
        close[run] += st.close_pairs;
        ++samples;
      }
    }
  }
  RecordProperty("nearest_on", std::to_string(nearest[0] / samples));
  RecordProperty("nearest_off", std::to_string(nearest[1] / samples));
  RecordProperty("close_on", std::to_string(close[0]));
  RecordProperty("close_nosep", std::to_string(close[2]));
  EXPECT_LT(nearest[0], 0.8 * nearest[1]);
  // 171 pairs x 120 samples = 20520 pair samples: contacts stay ~0, and separation is what
  // keeps them there.
  EXPECT_LE(close[0], 20);  // <= 0.1 %
  EXPECT_GT(close[2], 5 * close[0] + 10);
}

TEST(BourgFlocking, T35_PlayerOnCircularCourseIsFollowed) {
  // The chase (Leader, Interceptor, followers' player pull) keeps the flock near a circling
  // player, compared with the same flock that ignores the player.
  real gap[2] = {0, 0};
  for (int run = 0; run < 2; ++run) {
    fb::Demo4Params p;
    if (run == 1) {
      p.leader = p.interceptor = -1;
      p.ai.rules.player_pull_weight = 0;
    }
    fm::Rng rng = fm::Rng::seeded(9);
    fb::Demo4World w = fb::demo4_make(p, {}, rng);
    for (int t = 0; t < 1800; ++t) {
      fb::demo4_step(w, p, {false, true});  // hold the right arrow: circle
      if (t >= 600 && t % 5 == 0) gap[run] += demo_stats(w, p).player_gap / 240;
    }
  }
  RecordProperty("player_gap_chase", std::to_string(gap[0]));
  RecordProperty("player_gap_none", std::to_string(gap[1]));
  EXPECT_LT(gap[0], 0.8 * gap[1]);
}

TEST(BourgFlocking, T36_NoUnitEntersAnObstacle) {
  // demo4_step runs demo4_step_units, the loop the live world runs for every bourg_flock group.
  // Smallest gap between any unit's centre and any obstacle's surface over 20 s, for two seeds,
  // with the obstacle rule and (control) without it.
  real gap[2] = {fm::kInfinity, fm::kInfinity};
  for (int rule = 0; rule < 2; ++rule) {
    fb::Demo4Params p;
    if (rule == 1) p.ai.rules.obstacle_weight = 0;
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      fm::Rng rng = fm::Rng::seeded(seed);
      fb::Demo4World w = fb::demo4_make(p, kObstacles, rng);
      for (int t = 0; t < 1200; ++t) {
        fb::demo4_step(w, p, {t % 300 < 60, false});
        gap[rule] = std::min(gap[rule], demo_stats(w, p).obstacle_gap);
      }
    }
  }
  RecordProperty("gap_rule", std::to_string(gap[0]));
  RecordProperty("gap_no_rule", std::to_string(gap[1]));
  EXPECT_GT(gap[0], 0) << "with the obstacle rule no unit enters an obstacle";
  EXPECT_LT(gap[1], 0) << "control: without it units fly into them";
}

TEST(BourgFlocking, T36_LeaderChasesPlayerInterceptorInterceptsIt) {
  const fb::Mover units[] = {{{0, 50}, {5, 0}}, {{0, 0}, {0, 8}}, {{10, 0}, {0, 8}}};
  fb::FlockContext ctx;
  ctx.units = units;
  const fb::FlockUnitParams up;
  fb::CraftState leader;
  leader.orientation = 0;  // heading +x; the player is to the left
  fb::ChaseMode mode{};
  const fb::FlockSteering l = fb::flock_unit_ai(1, leader, fb::CraftParams{}, fb::FlockRole::leader, ctx, up, mode);
  EXPECT_EQ(l.aim, units[0].position);
  EXPECT_EQ(l.lateral_force, fb::CraftParams{}.max_steering_force);  // starboard thruster: left
  EXPECT_EQ(l.neighbors.count, 0);                                   // skips flocking
  fb::CraftState ic;
  ic.position = {10, 0};
  ic.orientation = fm::kHalfPi;
  ic.velocity = {0, 8};
  const fb::FlockSteering i = fb::flock_unit_ai(2, ic, fb::CraftParams{}, fb::FlockRole::interceptor, ctx, up, mode);
  const fb::InterceptAim expect = fb::predict_intercept({ic.position, ic.velocity}, units[0], up.intercept);
  EXPECT_EQ(i.aim, expect.point);
  EXPECT_EQ(mode, fb::ChaseMode::intercept);
}

TEST(BourgFlocking, T36_FollowersStayCloseToVisibleLeader) {
  // Leader LOS-chases a player that weaves; followers start in a cluster around the leader.
  // With the pull their mean distance to the leader stays smaller than without it.
  real mean[2] = {0, 0};
  real worst[2] = {0, 0};
  for (int run = 0; run < 2; ++run) {
    fb::Demo4Params p;
    p.num_units = 8;
    p.interceptor = -1;
    p.width = 400;
    p.height = 400;
    if (run == 1) p.ai.rules.leader_pull_weight = 0;
    fm::Rng rng = fm::Rng::seeded(36);
    fb::Demo4World w = fb::demo4_make(p, {}, rng);
    for (int i = 1; i < w.num_units; ++i) {
      fb::CraftState& u = w.units[static_cast<std::size_t>(i)];
      u.position = w.units[0].position + Vec2{-30 + rng.uniform(-8, 8), rng.uniform(-8, 8)};
      u.orientation = 0;
      u.velocity = {8, 0};
    }
    for (int t = 0; t < 1200; ++t) {
      fb::demo4_step(w, p, {t % 300 < 30, t % 300 >= 150 && t % 300 < 180});
      real sum = 0;
      for (int i = 2; i < w.num_units; ++i) {
        sum += fm::length(
            fm::torus_delta(w.units[1].position, w.units[static_cast<std::size_t>(i)].position, p.width, p.height));
      }
      const real m = sum / (w.num_units - 2);
      mean[run] += m / 1200;
      worst[run] = std::max(worst[run], m);
    }
  }
  RecordProperty("leader_gap_pull", std::to_string(mean[0]) + " worst " + std::to_string(worst[0]));
  RecordProperty("leader_gap_nopull", std::to_string(mean[1]) + " worst " + std::to_string(worst[1]));
  EXPECT_LT(mean[0], mean[1]);
  EXPECT_LT(worst[0], 60);
}

TEST(BourgFlocking, T36_NarrowViewFollowsPointManAroundObstacle) {
  // Two units in single file approach an obstacle just off the axis: the one behind passes it
  // on the same side as the point man.
  for (const real offset : {2.0, -2.0}) {
    const fb::Circle obstacle[] = {{{60, offset}, 6}};
    std::vector<fb::CraftState> u(3);
    u[0].position = {1e6, 1e6};
    u[1].position = {10, 0};
    u[2].position = {2, 0};
    for (int i = 1; i <= 2; ++i) u[static_cast<std::size_t>(i)].velocity = {8, 0};
    fb::FlockUnitParams up;
    up.view.k_front = std::tan(fm::kPi / 8);
    const fb::CraftParams cp = fb::kDemo4Craft;
    real side[3] = {0, 0, 0};
    fb::ChaseMode mode{};
    for (int t = 0; t < 900; ++t) {
      const fb::Mover m[] = {{u[0].position, {}}, {u[1].position, u[1].velocity}, {u[2].position, u[2].velocity}};
      fb::FlockContext ctx;
      ctx.units = m;
      ctx.view = ViewModel::narrow;
      ctx.obstacles = obstacle;
      real lat[3] = {0, 0, 0};
      for (int i = 1; i <= 2; ++i)
        lat[i] = fb::flock_unit_ai(i, u[static_cast<std::size_t>(i)], cp, fb::FlockRole::follower, ctx, up, mode)
                     .lateral_force;
      for (int i = 1; i <= 2; ++i) {
        const Vec2 before = u[static_cast<std::size_t>(i)].position;
        fb::craft_step_lateral(u[static_cast<std::size_t>(i)], cp, lat[i], 1, kDt);
        const Vec2 after = u[static_cast<std::size_t>(i)].position;
        if (before.x < 60 && after.x >= 60) side[i] = after.y - offset;  // abeam of the centre
        EXPECT_GT(fm::distance(after, obstacle[0].center), obstacle[0].radius);
      }
    }
    ASSERT_NE(side[1], 0) << "point man never passed";
    ASSERT_NE(side[2], 0) << "follower never passed";
    EXPECT_EQ(side[1] > 0, side[2] > 0) << offset;
    EXPECT_EQ(side[1] > 0, offset < 0) << offset;  // passes on the far side from the offset
  }
}

TEST(BourgFlocking, T32_NarrowViewGivesSingleFileLines) {
  // 45 deg view vs 270 deg view in a small wrapping world (12 units, no obstacles, player
  // ignored). Measure how often a unit's nearest neighbour lies along its heading (ahead or
  // behind: single file) rather than abreast, averaged over 6 seeds and the last 10 s.
  real index[2] = {0, 0};
  for (int model = 0; model < 2; ++model) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      fb::Demo4Params p;
      p.num_units = 12;
      p.width = p.height = 100;
      p.leader = p.interceptor = -1;
      p.ai.rules.player_pull_weight = 0;
      p.ai.view.k_front = std::tan(fm::kPi / 8);
      fm::Rng rng = fm::Rng::seeded(seed);
      fb::Demo4World w = fb::demo4_make(p, {}, rng);
      w.view = model == 0 ? ViewModel::narrow : ViewModel::wide;
      for (int t = 0; t < 1200; ++t) {
        fb::demo4_step(w, p, {});
        if (t < 600 || t % 30 != 0) continue;
        for (int i = 1; i < w.num_units; ++i) {
          const fb::CraftState& u = w.units[static_cast<std::size_t>(i)];
          real best = fm::kInfinity;
          Vec2 off;
          for (int j = 1; j < w.num_units; ++j) {
            if (j == i) continue;
            const Vec2 d =
                fm::torus_delta(u.position, w.units[static_cast<std::size_t>(j)].position, p.width, p.height);
            if (fm::length(d) < best) {
              best = fm::length(d);
              off = d;
            }
          }
          index[model] += std::abs(fm::dot(fm::normalized(off), fb::craft_heading(u)));
        }
      }
    }
  }
  RecordProperty("file_narrow", std::to_string(index[0]));
  RecordProperty("file_wide", std::to_string(index[1]));
  EXPECT_GT(index[0], index[1]);
}
