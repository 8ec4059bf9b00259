#include "flockstep/behavior/collision_avoidance.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "flockstep/behavior/steering.hpp"

namespace fb = flockstep::behavior;
using fb::real;
using flockstep::math::Vec2;

namespace {

constexpr real kDt = 1.0 / 60;

fb::Kinematic mk(Vec2 p, Vec2 v) {
  fb::Kinematic k;
  k.position = p;
  k.velocity = v;
  k.orientation = flockstep::math::orientation_of(v);
  return k;
}

real len(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

// Two characters, each running T58 against the other (or not), on top of a cruise at their
// initial velocity. Returns the minimum centre distance seen.
real run_pair(fb::Kinematic a, fb::Kinematic b, bool avoid, real seconds, fb::Kinematic* a_out = nullptr,
              fb::Kinematic* b_out = nullptr) {
  fb::CollisionAvoidanceParams p;
  p.collision_radius = 1.0;
  p.max_acceleration = 10;
  real min_d = len(a.position - b.position);
  for (int i = 0; i < static_cast<int>(seconds / kDt); ++i) {
    fb::SteeringOutput sa, sb;
    if (avoid) {
      // Compute-then-commit: both decide on the same snapshot.
      const std::array<fb::Kinematic, 1> ta{b};
      const std::array<fb::Kinematic, 1> tb{a};
      sa = fb::collision_avoidance(a, ta, p);
      sb = fb::collision_avoidance(b, tb, p);
    }
    fb::integrate_steering(a, sa, 5.0, kDt);
    fb::integrate_steering(b, sb, 5.0, kDt);
    min_d = std::min(min_d, len(a.position - b.position));
  }
  if (a_out != nullptr) *a_out = a;
  if (b_out != nullptr) *b_out = b;
  return min_d;
}

}  // namespace

TEST(CollisionAvoidance, T57_ConeMembershipIsStrictAtHalfAngle) {
  // (3, 4) / 5 = (0.6, 0.8) exactly, so the cosine to +x is exactly 0.6.
  EXPECT_FALSE(fb::in_cone({0, 0}, 0, {3, 4}, 0.6));
  EXPECT_TRUE(fb::in_cone({0, 0}, 0, {3, 4}, 0.5999999));
  EXPECT_FALSE(fb::in_cone({0, 0}, 0, {-3, 4}, 0.5999999));  // behind the edge
  EXPECT_FALSE(fb::in_cone({1, 1}, 0, {1, 1}, -1));          // coincident: no direction, outside
  // Uses cos(half-angle) of the facing: 30 deg half-angle, points at 29 and 31 deg.
  const real h = 30 * flockstep::math::kDegToRad;
  const real c = std::cos(h);
  EXPECT_TRUE(fb::in_cone({0, 0}, 0, {std::cos(0.99 * h), std::sin(0.99 * h)}, c));
  EXPECT_FALSE(fb::in_cone({0, 0}, 0, {std::cos(1.01 * h), -std::sin(1.01 * h)}, c));
  // Facing wraps: orientation pi looks along -x.
  EXPECT_TRUE(fb::in_cone({0, 0}, flockstep::math::kPi, {-5, 0.1}, c));
}

TEST(CollisionAvoidance, T57_ConeCheckFleesClosestOrAverage) {
  const fb::Kinematic c = mk({0, 0}, {5, 0});
  const std::array<fb::Kinematic, 3> others{mk({4, 1}, {}), mk({2, -0.5}, {}), mk({-3, 0}, {})};
  fb::ConeCheckParams p;
  const fb::SteeringOutput s = fb::cone_check_avoidance(c, others, p);
  const Vec2 expect = (Vec2{0, 0} - Vec2{2, -0.5}) / len(Vec2{2, -0.5}) * 10.0;
  EXPECT_NEAR(s.linear.x, expect.x, 1e-12);
  EXPECT_NEAR(s.linear.y, expect.y, 1e-12);
  p.response = fb::ConeResponse::kAverage;
  const Vec2 avg{3, 0.25};
  const Vec2 ea = (Vec2{0, 0} - avg) / len(avg) * 10.0;
  const fb::SteeringOutput sa = fb::cone_check_avoidance(c, others, p);
  EXPECT_NEAR(sa.linear.x, ea.x, 1e-12);
  EXPECT_NEAR(sa.linear.y, ea.y, 1e-12);
  p.range = 1.5;  // everything in the cone is now out of range
  EXPECT_TRUE(fb::cone_check_avoidance(c, others, p).none());
}

// Fig. 3.21: a neighbour ahead moving in parallel at the same speed never collides, yet the cone
// check panics. Predictive avoidance (T58) correctly stays quiet.
TEST(CollisionAvoidance, T57_ParallelNeighbourAheadTriggersFalseAlarm) {
  const fb::Kinematic c = mk({0, 0}, {5, 0});
  const std::array<fb::Kinematic, 1> other{mk({3, 0.5}, {5, 0})};
  EXPECT_FALSE(fb::cone_check_avoidance(c, other, fb::ConeCheckParams{}).none());
  EXPECT_TRUE(fb::collision_avoidance(c, other, fb::CollisionAvoidanceParams{}).none());
  EXPECT_GT(run_pair(c, other[0], false, 3.0), 3.0);  // and indeed they never get close
}

// Fig. 3.22: a character crossing at 90 deg on a collision course stays at 45 deg off the facing
// all the way in, outside a 30 deg cone: no reaction until impact, while T58 sees it at once.
TEST(CollisionAvoidance, T57_CrossingNeighbourFrom90DegreesIsIgnored) {
  fb::Kinematic c = mk({0, 0}, {5, 0});
  fb::Kinematic o = mk({10, -10}, {0, 5});
  const fb::ConeCheckParams cone;
  const fb::CollisionAvoidanceParams pred;
  {
    const std::array<fb::Kinematic, 1> t{o};
    EXPECT_FALSE(fb::collision_avoidance(c, t, pred).none());
  }
  bool collided = false;
  for (int i = 0; i < 150; ++i) {
    const std::array<fb::Kinematic, 1> t{o};
    if (len(c.position - o.position) < pred.collision_radius) {
      collided = true;
      break;
    }
    EXPECT_TRUE(fb::cone_check_avoidance(c, t, cone).none()) << "tick " << i;
    fb::integrate_steering(c, fb::cone_check_avoidance(c, t, cone), 5, kDt);
    fb::integrate_steering(o, {}, 5, kDt);
  }
  EXPECT_TRUE(collided);
}

TEST(CollisionAvoidance, T58_TimeOfClosestApproachHasMinusSign) {
  const Vec2 dp{10, 1};
  const Vec2 dv{-5, 0};
  const real t = fb::time_of_closest_approach(dp, dv);
  EXPECT_DOUBLE_EQ(t, 2.0);  // the seed's printed formula (no minus) would give -2
  // Brute force: the distance |dp + dv t| is minimal there.
  real best_t = 0, best = 1e300;
  for (real s = -5; s <= 5; s += 0.001) {
    const real d = len(dp + dv * s);
    if (d < best) {
      best = d;
      best_t = s;
    }
  }
  EXPECT_NEAR(best_t, t, 1e-3);
  EXPECT_DOUBLE_EQ(fb::time_of_closest_approach({3, 4}, {0, 0}), 0.0);  // |dv| = 0 guard
}

TEST(CollisionAvoidance, T58_DivergingAgentsGiveZero) {
  const fb::Kinematic c = mk({0, 0}, {-5, 0});
  const std::array<fb::Kinematic, 1> t{mk({3, 0.2}, {5, 0})};
  fb::CollisionAvoidanceDebug dbg;
  EXPECT_TRUE(fb::collision_avoidance(c, t, fb::CollisionAvoidanceParams{}, &dbg).none());
  EXPECT_EQ(dbg.target_index, -1);
  // Passing wide of each other (min separation > radius) is also ignored.
  const std::array<fb::Kinematic, 1> wide{mk({10, 3}, {-5, 0})};
  EXPECT_TRUE(fb::collision_avoidance(mk({0, 0}, {5, 0}), wide, fb::CollisionAvoidanceParams{}).none());
}

TEST(CollisionAvoidance, T58_SameVelocityOnlySteersWhenOverlapping) {
  const fb::Kinematic c = mk({0, 0}, {2, 1});
  const std::array<fb::Kinematic, 1> apart{mk({1.5, 0}, {2, 1})};
  EXPECT_TRUE(fb::collision_avoidance(c, apart, fb::CollisionAvoidanceParams{}).none());
  const std::array<fb::Kinematic, 1> overlap{mk({0.5, 0}, {2, 1})};
  fb::CollisionAvoidanceDebug dbg;
  const fb::SteeringOutput s = fb::collision_avoidance(c, overlap, fb::CollisionAvoidanceParams{}, &dbg);
  EXPECT_TRUE(dbg.overlapping);
  EXPECT_DOUBLE_EQ(s.linear.x, -10.0);  // straight away on current positions
  EXPECT_DOUBLE_EQ(s.linear.y, 0.0);
}

TEST(CollisionAvoidance, T58_EvadesPredictedPositions) {
  const fb::Kinematic c = mk({0, 0}, {5, 0});
  const std::array<fb::Kinematic, 1> t{mk({10, 0.5}, {-5, 0})};  // closest at t = 1, offset 0.5
  fb::CollisionAvoidanceDebug dbg;
  const fb::SteeringOutput s = fb::collision_avoidance(c, t, fb::CollisionAvoidanceParams{}, &dbg);
  EXPECT_DOUBLE_EQ(dbg.t_closest, 1.0);
  EXPECT_DOUBLE_EQ(dbg.min_separation, 0.5);
  EXPECT_EQ(dbg.predicted_self, (Vec2{5, 0}));
  EXPECT_EQ(dbg.predicted_target, (Vec2{5, 0.5}));
  EXPECT_DOUBLE_EQ(s.linear.x, 0.0);  // norm((5,0) - (5,0.5)) = (0,-1): sidestep, not brake
  EXPECT_DOUBLE_EQ(s.linear.y, -10.0);
}

TEST(CollisionAvoidance, T58_EarliestCollisionWinsAndLaterTargetIsIrrelevant) {
  const fb::Kinematic c = mk({0, 0}, {5, 0});
  const fb::Kinematic a = mk({10, 0.3}, {-5, 0});  // closest approach at t = 1
  const fb::Kinematic b = mk({15, -12}, {0, 4});   // reaches (15, 0) at t = 3 with c
  const fb::CollisionAvoidanceParams p;
  {
    const std::array<fb::Kinematic, 1> only_b{b};
    fb::CollisionAvoidanceDebug dbg;
    ASSERT_FALSE(fb::collision_avoidance(c, only_b, p, &dbg).none());
    EXPECT_NEAR(dbg.t_closest, 3.0, 1e-12);
  }
  const std::array<fb::Kinematic, 1> only_a{a};
  const fb::SteeringOutput sa = fb::collision_avoidance(c, only_a, p);
  const std::array<fb::Kinematic, 2> both{b, a};
  fb::CollisionAvoidanceDebug dbg;
  EXPECT_EQ(fb::collision_avoidance(c, both, p, &dbg), sa);
  EXPECT_EQ(dbg.target_index, 1);
  // Perturbing B (still a later collision) changes nothing.
  fb::Kinematic b2 = b;
  b2.position.x += 0.3;
  const std::array<fb::Kinematic, 2> both2{b2, a};
  EXPECT_EQ(fb::collision_avoidance(c, both2, p), sa);
}

TEST(CollisionAvoidance, T58_NearHeadOnPairKeepsCollisionRadius) {
  const fb::Kinematic a = mk({-10, 0}, {5, 0});
  const fb::Kinematic b = mk({10, 0.2}, {-5, 0});
  const real without = run_pair(a, b, false, 4.0);
  const real with = run_pair(a, b, true, 4.0);
  EXPECT_LT(without, 0.25);
  EXPECT_GE(with, 1.0);  // collision_radius
  EXPECT_GT(with, without);
}

TEST(CollisionAvoidance, T58_ExactHeadOnPairSidestepsToOppositeSides) {
  const fb::Kinematic a = mk({-10, 0}, {5, 0});
  const fb::Kinematic b = mk({10, 0}, {-5, 0});
  fb::CollisionAvoidanceDebug da, db;
  const std::array<fb::Kinematic, 1> ta{b};
  const std::array<fb::Kinematic, 1> tb{a};
  const fb::SteeringOutput sa = fb::collision_avoidance(a, ta, fb::CollisionAvoidanceParams{}, &da);
  const fb::SteeringOutput sb = fb::collision_avoidance(b, tb, fb::CollisionAvoidanceParams{}, &db);
  EXPECT_TRUE(da.sidestep);
  EXPECT_TRUE(db.sidestep);
  ASSERT_TRUE(std::isfinite(sa.linear.x) && std::isfinite(sa.linear.y));
  EXPECT_LT(sa.linear.y, 0);         // a (moving +x) steps to its right, -y
  EXPECT_GT(sb.linear.y, 0);         // b (moving -x) steps to its right, +y
  EXPECT_EQ(sa.linear, -sb.linear);  // exactly antisymmetric
  fb::Kinematic a_end, b_end;
  const real min_d = run_pair(a, b, true, 4.0, &a_end, &b_end);
  EXPECT_GE(min_d, 1.0);
  EXPECT_LT(a_end.position.y, 0);
  EXPECT_GT(b_end.position.y, 0);
}

TEST(CollisionAvoidance, T58_CoincidentCharactersGiveFiniteOutput) {
  const fb::Kinematic c = mk({1, 1}, {1, 0});
  const std::array<fb::Kinematic, 1> same{mk({1, 1}, {1, 0})};
  const fb::SteeringOutput s = fb::collision_avoidance(c, same, fb::CollisionAvoidanceParams{});
  EXPECT_TRUE(std::isfinite(s.linear.x) && std::isfinite(s.linear.y));
  EXPECT_NEAR(len(s.linear), 10.0, 1e-12);
  const std::array<fb::Kinematic, 1> crossing{mk({1, 1}, {-1, 0})};
  const fb::SteeringOutput s2 = fb::collision_avoidance(c, crossing, fb::CollisionAvoidanceParams{});
  EXPECT_NEAR(len(s2.linear), 10.0, 1e-12);
  EXPECT_TRUE(fb::collision_avoidance(c, std::span<const fb::Kinematic>{}, fb::CollisionAvoidanceParams{}).none());
}
