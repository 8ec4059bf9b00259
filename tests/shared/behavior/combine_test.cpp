// Tests for force combination (catalog T77-T82).
#include "flockstep/behavior/combine.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/force_steering.hpp"

namespace flockstep::behavior {
namespace {

using math::distance;
using math::length;

constexpr real kDt = 1.0 / 60.0;

// A mock behaviour returning a constant force and counting its calls.
struct Mock {
  Vec2 force;
  int* calls;
  Vec2 operator()() const {
    ++*calls;
    return force;
  }
};

// ------------------------------------------------------------------------------------------ T77

TEST(Combine, T77_EqualsWeightedSumWhenUnderLimit) {
  const std::array<WeightedForce, 3> f{{{{1, 2}, 0.5}, {{-3, 1}, 2.0}, {{100, 100}, 0.0}}};
  const Vec2 expected{0.5 - 6.0, 1.0 + 2.0};
  EXPECT_EQ(weighted_force_sum(f), expected);
  EXPECT_EQ(blend_truncated(f, 10), expected);  // |expected| ~ 6.3 < 10; weight 0 has no effect
  EXPECT_EQ(blend_truncated({}, 10), (Vec2{}));
  // Linear in the weights.
  const std::array<WeightedForce, 2> a{{{{1, 2}, 1.0}, {{-3, 1}, 1.0}}};
  const std::array<WeightedForce, 2> b{{{{1, 2}, 2.0}, {{-3, 1}, 2.0}}};
  EXPECT_EQ(weighted_force_sum(b), weighted_force_sum(a) * 2.0);
}

TEST(Combine, T77_OutputNeverExceedsMaxForce) {
  Rng rng = Rng::seeded(77);
  for (int i = 0; i < 2000; ++i) {
    std::array<WeightedForce, 4> f{};
    for (WeightedForce& w : f) w = {{rng.uniform(-20, 20), rng.uniform(-20, 20)}, rng.uniform(0, 3)};
    const real max_force = rng.uniform(0, 15);
    const Vec2 out = blend_truncated(f, max_force);
    ASSERT_LE(length(out), max_force * (1 + 1e-15));
    // Direction is kept: the blend is only shortened.
    ASSERT_NEAR(math::cross(out, weighted_force_sum(f)), 0.0, 1e-9 * (1 + length(weighted_force_sum(f)) * length(out)));
  }
}

// Seek to (8, 0) past a circle of radius 2 at the origin, with a simple look-ahead avoidance:
// if p + 0.5 s * v is within 2.5 m of the centre, push outward with 4 N per metre of intrusion.
real closest_approach(bool prioritised) {
  const Vec2 centre{0, 0};
  const real radius = 2.0;
  auto avoid = [&](const Body& b) {
    const Vec2 q = b.position + b.velocity * 0.5;
    const real d = distance(q, centre);
    if (d >= radius + 0.5) return Vec2{};
    const Vec2 out = d > 0 ? (q - centre) / d : math::perp_left(b.heading);
    return out * (4.0 * (radius + 0.5 - d));
  };
  Body b;
  b.position = {-8, 0.2};
  b.max_speed = 4;
  b.max_force = 8;
  real closest = 1e9;
  for (int t = 0; t < 60 * 20; ++t) {
    Vec2 f;
    if (prioritised) {
      f = prioritized(
          b.max_force, kPriorityEpsilon, [&] { return avoid(b); },
          [&] {
            return seek_force(b, {8, 0});
          });
    } else {
      const std::array<WeightedForce, 2> w{{{avoid(b), 1}, {seek_force(b, {8, 0}), 1}}};
      f = blend_truncated(w, b.max_force);
    }
    body_update(b, f, kDt);
    closest = math::min(closest, distance(b.position, centre));
  }
  EXPECT_LT(distance(b.position, {8, 0}), 0.1);  // both reach the target in the end
  return closest;
}

TEST(Combine, T77_SeekPlusAvoidPartlyPenetratesWithBlendingButNotWithPriorities) {
  const real blended = closest_approach(false);
  const real prioritised = closest_approach(true);
  EXPECT_LT(blended, 1.8);      // measured 1.44: 0.56 m inside the obstacle
  EXPECT_GE(prioritised, 2.0);  // measured 2.015: grazes the rim, never inside
}

// ------------------------------------------------------------------------------------------ T78

TEST(Combine, T78_SecondBehaviourWinsAndThirdIsNeverCalled) {
  int a = 0, b = 0, c = 0;
  const Vec2 out = prioritized(10, kPriorityEpsilon, Mock{{0, 0}, &a}, Mock{{1, -2}, &b}, Mock{{5, 5}, &c});
  EXPECT_EQ(out, (Vec2{1, -2}));
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(c, 0);
}

TEST(Combine, T78_AllZeroGivesZeroAfterAskingEveryone) {
  int a = 0, b = 0, c = 0;
  EXPECT_EQ(prioritized(10, kPriorityEpsilon, Mock{{}, &a}, Mock{{}, &b}, Mock{{}, &c}), (Vec2{}));
  EXPECT_EQ(a + b + c, 3);
  EXPECT_EQ(prioritized(10, kPriorityEpsilon), (Vec2{}));  // no behaviours at all
}

TEST(Combine, T78_ArbiterKeepsTheFirstOutputAboveEpsilonCountingTurns) {
  // The accumulator the world runs: the magnitude is |linear| + |angular|.
  PriorityArbiter a{0.1};
  EXPECT_FALSE(a.offer({{0.05, 0}, 0.04}));  // 0.09: below epsilon
  EXPECT_TRUE(a.offer({{}, -0.2}));          // only turns, but enough
  EXPECT_TRUE(a.offer({{5, 5}, 0}));         // ignored: already decided
  EXPECT_EQ(a.winner(), (SteeringOutput{{}, -0.2}));
  EXPECT_EQ(PriorityArbiter{}.winner(), SteeringOutput{});
}

TEST(Combine, T78_NonZeroMeansAboveEpsilonAndWinnerIsTruncated) {
  int a = 0, b = 0;
  // 1e-7 N is "zero" for epsilon 1e-6, so the second behaviour decides.
  EXPECT_EQ(prioritized(10, 1e-6, Mock{{1e-7, 0}, &a}, Mock{{0, 3}, &b}), (Vec2{0, 3}));
  EXPECT_EQ(prioritized(10, 1e-8, Mock{{1e-7, 0}, &a}, Mock{{0, 3}, &b}), (Vec2{1e-7, 0}));
  EXPECT_EQ(prioritized(5, kPriorityEpsilon, Mock{{30, 40}, &a}), (Vec2{3, 4}));
}

// ------------------------------------------------------------------------------------------ T79

TEST(Combine, T79_StopsEvaluatingOnceBudgetIsUsed) {
  for (RunningSumMode mode : {RunningSumMode::kTruncateTotal, RunningSumMode::kRemainingBudget}) {
    int a = 0, b = 0, c = 0;
    const Vec2 out = prioritized_running_sum(10, mode, Weighted{2.0, Mock{{3, 0}, &a}},  // 6 N
                                             Weighted{1.0, Mock{{6, 0}, &b}},            // total 12 >= 10
                                             Weighted{1.0, Mock{{0, 1}, &c}});
    EXPECT_EQ(out, (Vec2{10, 0}));
    EXPECT_EQ(a, 1);
    EXPECT_EQ(b, 1);
    EXPECT_EQ(c, 0);
  }
  // The accumulator pattern the simulation uses.
  int calls = 0;
  TruncatedRunningSum sum{4};
  if (!sum.full()) sum.add(1, {5, 0});
  if (!sum.full()) sum.add(1, Mock{{0, 1}, &calls}());
  EXPECT_TRUE(sum.full());
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(sum.result(), (Vec2{4, 0}));
  EXPECT_FALSE(sum.add(1, {0, 1}));  // ignored once full
  EXPECT_EQ(sum.result(), (Vec2{4, 0}));
}

TEST(Combine, T79_ResultNeverExceedsMaxForce) {
  Rng rng = Rng::seeded(79);
  for (RunningSumMode mode : {RunningSumMode::kTruncateTotal, RunningSumMode::kRemainingBudget}) {
    for (int i = 0; i < 2000; ++i) {
      const real max_force = rng.uniform(0, 12);
      TruncatedRunningSum sum{max_force, mode};
      for (int k = 0; k < 5 && !sum.full(); ++k) {
        const real w = rng.uniform(0, 2);
        const real x = rng.uniform(-10, 10);
        const real y = rng.uniform(-10, 10);
        sum.add(w, {x, y});
      }
      ASSERT_LE(length(sum.result()), max_force * (1 + 1e-12));
    }
  }
}

TEST(Combine, T79_EqualsFullWeightedSumWhenNothingSaturates) {
  const std::array<WeightedForce, 3> f{{{{1, 2}, 0.5}, {{-3, 1}, 0.25}, {{0.5, -1}, 1.5}}};
  for (RunningSumMode mode : {RunningSumMode::kTruncateTotal, RunningSumMode::kRemainingBudget}) {
    TruncatedRunningSum sum{100, mode};
    for (const WeightedForce& w : f) EXPECT_TRUE(sum.add(w.weight, w.force));
    EXPECT_FALSE(sum.full());
    EXPECT_EQ(sum.result(), weighted_force_sum(f));
  }
}

TEST(Combine, T79_HigherPriorityForceIsNeverScaledDownInBudgetMode) {
  // A = (8, 0) first, then B = (0, 8), max 10. Buckland's remaining budget keeps A whole and
  // adds only 2 N of B; the slides' truncation of the total shortens A as well.
  TruncatedRunningSum budget{10, RunningSumMode::kRemainingBudget};
  budget.add(1, {8, 0});
  budget.add(1, {0, 8});
  EXPECT_TRUE(budget.full());
  EXPECT_EQ(budget.result(), (Vec2{8, 2}));
  TruncatedRunningSum slides{10, RunningSumMode::kTruncateTotal};
  slides.add(1, {8, 0});
  slides.add(1, {0, 8});
  EXPECT_TRUE(slides.full());
  EXPECT_NEAR(slides.result().x, 10 / std::sqrt(2.0), 1e-12);  // A's share shrank from 8 to 7.07
  EXPECT_LT(slides.result().x, 8.0);
  // A higher-priority force alone above the budget is truncated in both modes (nothing to protect).
  TruncatedRunningSum big{10, RunningSumMode::kRemainingBudget};
  big.add(1, {0, 12});
  EXPECT_EQ(big.result(), (Vec2{0, 10}));
}

// ------------------------------------------------------------------------------------------ T80

TEST(Combine, T80_NonZeroTopGroupMasksLowerGroups) {
  int wall = 0, obstacle = 0, separation = 0, seek = 0;
  auto avoidance_group = [&] {
    return weighted_sum_of(Weighted{2.0, Mock{{1, 0}, &wall}}, Weighted{1.0, Mock{{0, 1}, &obstacle}});
  };
  auto separation_group = [&] { return weighted_sum_of(Weighted{1.0, Mock{{5, 5}, &separation}}); };
  auto goal_group = [&] { return weighted_sum_of(Weighted{1.0, Mock{{-5, 0}, &seek}}); };
  const Vec2 out = grouped_priorities(10, avoidance_group, separation_group, goal_group);
  EXPECT_EQ(out, (Vec2{2, 1}));  // exactly the top group's blend
  EXPECT_EQ(wall + obstacle, 2);
  EXPECT_EQ(separation + seek, 0);  // lower groups never evaluated
}

TEST(Combine, T80_WithinGroupOutputIsThatGroupsWeightedBlend) {
  int n = 0;
  auto silent_group = [&] { return weighted_sum_of(Weighted{3.0, Mock{{}, &n}}, Weighted{1.0, Mock{{}, &n}}); };
  auto flocking_group = [&] {
    return weighted_sum_of(Weighted{0.5, Mock{{2, 0}, &n}}, Weighted{2.0, Mock{{0, 1}, &n}},
                           Weighted{1.0, Mock{{-1, 1}, &n}});
  };
  EXPECT_EQ(grouped_priorities(10, silent_group, flocking_group), (Vec2{0, 3}));
  EXPECT_EQ(n, 5);
  // The group blend is truncated to max_force as a whole.
  EXPECT_EQ(grouped_priorities(1.5, silent_group, flocking_group), (Vec2{0, 1.5}));
}

TEST(Combine, T80_AccumulatorBlendsEachGroupAndTheFirstNonZeroGroupWins) {
  // What the world's batches do: members add their weighted outputs, close_group() ends a group.
  GroupedPriorities gp;
  gp.add({{1, 0}, 0});
  gp.add({{-1, 0}, 0});  // the avoidance group cancels out: nothing to avoid
  EXPECT_FALSE(gp.close_group());
  gp.add({{0, 2}, 0});
  gp.add({{1, 0}, 0.5});  // separation: two members blended, the angular part counts too
  EXPECT_TRUE(gp.close_group());
  EXPECT_EQ(gp.winner(), (SteeringOutput{{1, 2}, 0.5}));
  // Once decided, later groups do not change the winner.
  gp.add({{9, 9}, 0});
  gp.close_group();
  EXPECT_EQ(gp.winner(), (SteeringOutput{{1, 2}, 0.5}));
  // A group that only turns is not "nothing".
  GroupedPriorities turning;
  turning.add({{}, 0.25});
  EXPECT_TRUE(turning.close_group());
}

TEST(Combine, T80_GroupingDiffersFromPlainPriority) {
  // Two members of one group that T78 would arbitrate one by one: priority takes the first
  // non-zero member alone, grouping blends both.
  PriorityArbiter plain;
  plain.offer({{3, 0}, 0});
  plain.offer({{0, 4}, 0});
  GroupedPriorities grouped;
  grouped.add({{3, 0}, 0});
  grouped.add({{0, 4}, 0});
  grouped.close_group();
  EXPECT_EQ(plain.winner().linear, (Vec2{3, 0}));
  EXPECT_EQ(grouped.winner().linear, (Vec2{3, 4}));
}

// ------------------------------------------------- T78-T81 for one agent (the World's combiner)

TEST(Combine, T78_T80_PrioritizedCombinerClipsTheWinnerLinearAndAngular) {
  // The World's lanes read result(max_angular): the winner clipped to the budget and the turn rate.
  Rng rng = Rng::seeded(1);
  PrioritizedCombiner prio{PriorityRule::kPriority, 5};
  ASSERT_TRUE(prio.wants(rng, 1));
  prio.take(2, {{0, 0}, 0});  // nothing: not decided
  ASSERT_TRUE(prio.wants(rng, 1));
  prio.take(2, {{30, 40}, 3});
  EXPECT_FALSE(prio.wants(rng, 1));  // decided: lower behaviours are skipped
  EXPECT_EQ(prio.result(1), (SteeringOutput{{3, 4}, 1}));
  // Grouped: entering the next group ends the open one; the last group is ended by result().
  PrioritizedCombiner grouped{PriorityRule::kGrouped, 100};
  grouped.enter_group(0);
  grouped.take(1, {{1, 0}, 0});
  grouped.take(1, {{-1, 0}, 0});  // the group cancels out
  grouped.enter_group(1);
  ASSERT_TRUE(grouped.wants());
  grouped.take(1, {{0, 2}, 0});
  grouped.enter_group(1);  // same group: still open
  grouped.take(2, {{1, 0}, 0});
  EXPECT_EQ(grouped.result(1), (SteeringOutput{{2, 2}, 0}));
}

TEST(Combine, T79_T81_PrioritizedCombinerSumsTurnsAndDrawsNothingOnceFull) {
  Rng rng = Rng::seeded(7), copy = Rng::seeded(7);
  PrioritizedCombiner sum{PriorityRule::kRunningSum, 10};
  sum.take(1, {{3, 0}, 0.5});
  sum.take(2, {{0, 2}, 1});
  EXPECT_TRUE(sum.wants());
  EXPECT_EQ(sum.result(2), (SteeringOutput{{3, 4}, 2}));  // the turn (2.5) clamped to 2
  PrioritizedCombiner dither{PriorityRule::kDither, 1};
  ASSERT_TRUE(dither.wants(rng, 1));  // one draw
  copy.uniform01();
  dither.take(1, {{5, 0}, 0});  // fills the budget
  EXPECT_FALSE(dither.wants(rng, 1));
  EXPECT_EQ(rng.uniform01(), copy.uniform01()) << "no draw once the budget is used";
  EXPECT_EQ(dither.result(0).linear, (Vec2{1, 0}));
}

// ------------------------------------------------------------------------------------------ T81

TEST(Combine, T81_DitherDrawIsOneUniformNumberBelowTheProbability) {
  Rng a = Rng::seeded(810), b = Rng::seeded(810);
  for (int t = 0; t < 1000; ++t) {
    const real u = b.uniform01();
    EXPECT_EQ(dither_considers(a, 0.3), u < 0.3);
  }
  Rng c = Rng::seeded(1);
  for (int t = 0; t < 100; ++t) {
    EXPECT_FALSE(dither_considers(c, 0));
    EXPECT_TRUE(dither_considers(c, 1));
  }
}

TEST(Combine, T81_EvaluationFrequenciesMatchProbabilities) {
  Rng rng = Rng::seeded(81);
  int avoid = 0, wander = 0;
  constexpr int kTicks = 100000;
  for (int t = 0; t < kTicks; ++t) {
    // Constant forces well below max_force: never an early exit, so each is an independent draw.
    prioritized_dithering(rng, 10.0, Dithered{0.9, 1.0, Mock{{1, 0}, &avoid}},
                          Dithered{0.2, 1.0, Mock{{0, 1}, &wander}});
  }
  EXPECT_NEAR(static_cast<real>(avoid) / kTicks, 0.9, 0.005);  // sd ~0.001
  EXPECT_NEAR(static_cast<real>(wander) / kTicks, 0.2, 0.005);
}

TEST(Combine, T81_SaturatingAvoidanceMasksWanderOnThatTick) {
  Rng rng = Rng::seeded(8181);
  int avoid = 0, wander = 0, wander_on_avoid_ticks = 0;
  for (int t = 0; t < 20000; ++t) {
    const int before_avoid = avoid, before_wander = wander;
    const Vec2 out = prioritized_dithering(rng, 10.0, Dithered{0.9, 1.0, Mock{{20, 0}, &avoid}},
                                           Dithered{0.2, 1.0, Mock{{0, 1}, &wander}});
    if (avoid != before_avoid) {
      wander_on_avoid_ticks += wander - before_wander;
      ASSERT_EQ(out, (Vec2{10, 0}));
    } else if (wander != before_wander) {
      ASSERT_EQ(out, (Vec2{0, 1}));  // skipped avoidance lets the lower behaviour act alone
    } else {
      ASSERT_EQ(out, (Vec2{}));
    }
  }
  EXPECT_EQ(wander_on_avoid_ticks, 0);
  EXPECT_GT(wander, 300);  // ~0.1 * 0.2 * 20000 = 400 ticks where wander still acts
}

TEST(Combine, T81_DeterministicForSeed) {
  auto run = [](std::uint64_t seed) {
    Rng rng = Rng::seeded(seed);
    Vec2 acc;
    for (int t = 0; t < 1000; ++t) {
      acc += prioritized_dithering(rng, 3.0,
                                   Dithered{0.9, 2.0,
                                            [] {
                                              return Vec2{1, 0};
                                            }},
                                   Dithered{0.2, 1.0, [] {
                                              return Vec2{0, 1};
                                            }});
    }
    return acc;
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5), run(6));
}

// ------------------------------------------------------------------------------------------ T82

TEST(Combine, T82_AlternatingInputSwingShrinksByN) {
  const real alpha = 30 * math::kDegToRad;
  const Vec2 plus = math::as_vector(alpha);
  const Vec2 minus = math::as_vector(-alpha);
  for (std::int32_t n = 1; n <= kMaxSmoothingSamples; ++n) {
    HeadingSmoother s;
    real max_abs = 0;
    for (int t = 0; t < 40; ++t) {
      const Vec2 h = smooth_heading(s, n, (t % 2 == 0) ? plus : minus, {1, 0});
      if (t >= n) max_abs = math::max(max_abs, std::fabs(math::orientation_of(h)));
    }
    if (n % 2 == 0) {
      EXPECT_EQ(max_abs, 0.0) << "n=" << n;  // pairs cancel exactly
    } else {
      EXPECT_NEAR(max_abs, std::atan(std::tan(alpha) / n), 1e-12) << "n=" << n;
    }
  }
  // n = 5: swing 2 * atan(tan 30deg / 5) = 13.2 deg instead of 60 deg.
  EXPECT_LT(2 * std::atan(std::tan(alpha) / 5), 2 * alpha / 4);
}

TEST(Combine, T82_SteadyInputPassesThroughAfterNTicks) {
  HeadingSmoother s;
  const std::int32_t n = 6;
  for (int t = 0; t < 20; ++t) smooth_heading(s, n, math::as_vector(0.1 * t), {1, 0});  // turning
  const Vec2 steady = math::as_vector(2.5);
  Vec2 h;
  for (int t = 0; t < n; ++t) {
    h = smooth_heading(s, n, steady * 3.0, {1, 0});
    if (t < n - 1) {
      EXPECT_GT(distance(h, steady), 1e-3);  // older samples still count
    }
  }
  EXPECT_NEAR(distance(h, steady), 0.0, 1e-15);
  EXPECT_NEAR(length(h), 1.0, 1e-15);
}

TEST(Combine, T82_BufferIsBoundedAtNamedCapacity) {
  HeadingSmoother s;
  for (int t = 0; t < 100; ++t) {
    smooth_heading(s, 4, math::as_vector(0.01 * t), {1, 0});
    ASSERT_LE(s.count, kMaxSmoothingSamples);
    ASSERT_GE(s.next, 0);
    ASSERT_LT(s.next, kMaxSmoothingSamples);
  }
  EXPECT_EQ(s.count, kMaxSmoothingSamples);
  // A window larger than the capacity is clamped to it.
  EXPECT_EQ(smoothed_heading(s, 1000, {1, 0}), smoothed_heading(s, kMaxSmoothingSamples, {1, 0}));
  EXPECT_NE(smoothed_heading(s, 1000, {1, 0}), smoothed_heading(s, kMaxSmoothingSamples - 1, {1, 0}));
  EXPECT_EQ(smoothed_heading(s, 0, {1, 0}), smoothed_heading(s, 1, {1, 0}));
  EXPECT_NEAR(distance(smoothed_heading(s, 1, {1, 0}), math::as_vector(0.99)), 0.0, 1e-15);
}

TEST(Combine, T82_StandstillAndOppositeDirectionsUseFallback) {
  HeadingSmoother s;
  EXPECT_EQ(smooth_heading(s, 4, {}, {0, 2}), (Vec2{0, 1}));  // empty buffer: fallback, normalised
  EXPECT_EQ(s.count, 0);                                      // zero velocity is not recorded
  smooth_heading(s, 2, {1, 0}, {0, 1});
  EXPECT_EQ(smooth_heading(s, 2, {-3, 0}, {0, 1}), (Vec2{0, 1}));    // (1,0) + (-1,0) = 0: no direction
  EXPECT_EQ(smooth_heading(s, 2, {1e-9, 0}, {0, 1}), (Vec2{0, 1}));  // below 1e-6 m/s: frozen
  EXPECT_EQ(s.count, 2);
}

TEST(Combine, T82_SmoothingReducesJudderOfPrioritisedAvoidance) {
  // Seek a target just behind an obstacle with prioritised avoidance: the two take turns (seek
  // wins one tick, avoidance the next ~40), and each seek tick snaps the velocity direction by
  // ~18 deg: a sawtooth judder. The smoothed heading spreads each snap over N ticks.
  const Vec2 centre{0, 0};
  auto avoid = [&](const Body& b) {
    const Vec2 q = b.position + b.velocity * 1.0;
    const real d = distance(q, centre);
    if (d >= 3.0) return Vec2{};
    const Vec2 out = d > 0 ? (q - centre) / d : math::perp_left(b.heading);
    return out * (4.0 * (3.0 - d));
  };
  Body b;
  b.position = {-8, 0.2};
  b.max_speed = 4;
  b.max_force = 8;
  HeadingSmoother s;
  constexpr std::int32_t kN = 8;
  Vec2 last_raw = b.heading, last_smooth = b.heading;
  real raw_jump = 0, smooth_jump = 0;
  for (int t = 0; t < 60 * 20; ++t) {
    const Vec2 f = prioritized(
        b.max_force, kPriorityEpsilon, [&] { return avoid(b); },
        [&] {
          return seek_force(b, {2.5, 0});
        });
    body_update(b, f, kDt);
    const Vec2 smooth = smooth_heading(s, kN, b.velocity, b.heading);
    if (t >= 60 * 10) {  // after the approach, while hovering at the obstacle
      raw_jump = math::max(
          raw_jump, std::fabs(math::wrap_angle(math::orientation_of(b.heading) - math::orientation_of(last_raw))));
      smooth_jump = math::max(
          smooth_jump, std::fabs(math::wrap_angle(math::orientation_of(smooth) - math::orientation_of(last_smooth))));
    }
    last_raw = b.heading;
    last_smooth = smooth;
  }
  EXPECT_GT(raw_jump, 10 * math::kDegToRad);    // there is judder to remove
  EXPECT_LT(smooth_jump, 2.0 * raw_jump / kN);  // each snap spread over ~N ticks
}

}  // namespace
}  // namespace flockstep::behavior
