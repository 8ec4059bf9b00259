#include "flockstep/behavior/physics_pattern.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fb = flockstep::behavior;
using flockstep::math::Vec2;

namespace {

constexpr double kDt = 1.0 / 60.0;
constexpr double kPiD = 3.14159265358979323846;

double vel_heading_deg(const fb::CraftState& c) { return std::atan2(c.velocity.y, c.velocity.x) * 180 / kPiD; }
double wrap_deg(double d) {
  while (d > 180) d -= 360;
  while (d <= -180) d += 360;
  return d;
}

// A craft cruising along heading_rad from p, by default at the pattern craft's top speed.
fb::CraftState cruising(Vec2 p = {}, double heading_rad = 0,
                        double v = fb::kPatternCraftParams.thrust / fb::kPatternCraftParams.linear_drag) {
  fb::CraftState c;
  c.position = p;
  c.orientation = heading_rad;
  c.velocity = {v * std::cos(heading_rad), v * std::sin(heading_rad)};
  return c;
}

// One "instruction started" event: the call at which current_index took a new value.
struct Event {
  int tick = 0;
  int index = 0;  // new index (== size when the pass finished)
  fb::CraftState state;
};

struct SimRun {
  std::vector<Event> events;           // index changes, in order (pass ends show index == size)
  std::vector<fb::CraftState> states;  // state at every call, before the physics step
  std::vector<double> factors;
  std::vector<int> indices;
  int false_returns = 0;
};

// Simulate the caller loop of T29: DoPattern, re-initialise when it returns false, step physics.
SimRun simulate(std::span<const fb::PhysicsInstruction> pattern, fb::CraftState c, int passes,
                const fb::DoPatternParams& params = {}, const fb::CraftParams& cp = fb::kPatternCraftParams,
                int max_ticks = 60 * 400) {
  SimRun r;
  fb::PatternTracking t;
  fb::initialize_pattern_tracking(t, c);
  int last = 0;
  fb::Thrusters th;
  for (int tick = 0; tick < max_ticks; ++tick) {
    r.states.push_back(c);
    bool ok = fb::do_pattern(t, pattern, c, params, th);
    if (t.current_index != last) r.events.push_back({tick, t.current_index, c});
    if (!ok) {
      ++r.false_returns;
      if (r.false_returns == passes) break;
      fb::initialize_pattern_tracking(t, c);
      ok = fb::do_pattern(t, pattern, c, params, th);
      EXPECT_TRUE(ok);
    }
    last = t.current_index;
    r.indices.push_back(t.current_index);
    r.factors.push_back(t.steering_factor);
    fb::craft_step(c, cp, th, kDt);
  }
  return r;
}

// Settled heading change of each turn: heading when the turn starts vs heading when the next
// straight ends (by then the residual spin and sideslip have died out). Signed, + = CCW.
std::vector<double> settled_turns(const SimRun& r, std::span<const fb::PhysicsInstruction> pattern) {
  std::vector<double> turns;
  const auto n = static_cast<int>(pattern.size());
  for (std::size_t e = 0; e + 2 < r.events.size(); ++e) {
    const int k = r.events[e].index % n;
    if (!pattern[static_cast<std::size_t>(k)].limit_heading) continue;
    turns.push_back(wrap_deg(vel_heading_deg(r.events[e + 2].state) - vel_heading_deg(r.events[e].state)));
  }
  return turns;
}

}  // namespace

// ---------------------------------------------------------------- T29

TEST(PhysicsPattern, T29_IndexAdvancesOnFirstTickLimitIsReachedNeverEarlier) {
  fb::CraftState c = cruising();
  fb::PatternTracking t;
  fb::initialize_pattern_tracking(t, c);
  fb::Thrusters th;
  int advances = 0;
  for (int tick = 0; tick < 60 * 200 && advances < 8; ++tick) {
    // Reference measurement of the current instruction's progress from the tracking snapshot
    // (libm used as the reference here).
    const int i = t.current_index;
    const auto& in = fb::kSquarePattern[static_cast<std::size_t>(i)];
    const double dpos = std::hypot(c.position.x - t.initial_position.x, c.position.y - t.initial_position.y);
    const double sp = std::hypot(c.velocity.x, c.velocity.y);
    const double dot = (t.initial_heading.x * c.velocity.x + t.initial_heading.y * c.velocity.y) / sp;
    const double dhead = std::acos(std::fmin(1.0, std::fmax(-1.0, dot))) * 180 / kPiD;
    const bool reached =
        (in.limit_position && dpos >= in.position_limit) || (in.limit_heading && dhead >= in.heading_limit_deg);
    fb::do_pattern(t, fb::kSquarePattern, c, {}, th);
    EXPECT_EQ(t.current_index != i, reached) << "tick " << tick << " index " << i;
    if (t.current_index != i) {
      ++advances;
      EXPECT_EQ(t.current_index, i + 1);
      EXPECT_EQ(t.initial_position, c.position);  // re-snapshotted
      EXPECT_EQ(t.d_position, 0);
      EXPECT_EQ(t.d_heading_deg, 0);
    }
    fb::craft_step(c, fb::kPatternCraftParams, th, kDt);
  }
  EXPECT_EQ(advances, 8);
}

TEST(PhysicsPattern, T29_SeedOrderAdvancesOneTickLater) {
  // The seed tests the limits against the values measured on the previous call.
  const SimRun fresh = simulate(fb::kSquarePattern, cruising(), 1);
  fb::DoPatternParams seed;
  seed.seed_order = true;
  const SimRun literal = simulate(fb::kSquarePattern, cruising(), 1, seed);
  ASSERT_FALSE(fresh.events.empty());
  ASSERT_FALSE(literal.events.empty());
  EXPECT_EQ(literal.events[0].tick, fresh.events[0].tick + 1);  // first (straight) instruction
  EXPECT_EQ(literal.events.size(), fresh.events.size());
}

TEST(PhysicsPattern, T29_ReturnsFalseExactlyOncePerPassAndRepeatsPeriodically) {
  const SimRun r = simulate(fb::kZigZagPattern, cruising(), 4);
  EXPECT_EQ(r.false_returns, 4);
  std::vector<int> pass_end_ticks;
  for (const Event& e : r.events) {
    if (e.index == 4) pass_end_ticks.push_back(e.tick);
  }
  ASSERT_EQ(pass_end_ticks.size(), 4u);
  // After the re-init the pattern restarts at 0 on the same tick.
  for (std::size_t k = 0; k + 1 < r.events.size(); ++k) {
    if (r.events[k].index == 4) {
      EXPECT_EQ(r.events[k + 1].index, 1);  // next change: 0 -> 1
    }
  }
  // Periodic: every pass after the first takes the same number of ticks (+-1).
  const int p1 = pass_end_ticks[2] - pass_end_ticks[1];
  const int p2 = pass_end_ticks[3] - pass_end_ticks[2];
  EXPECT_LE(std::abs(p1 - p2), 1);
  EXPECT_GT(p1, 60 * 20);  // two 100 m legs at 10 m/s plus two turns
}

TEST(PhysicsPattern, T29_RunRepeatingPatternRestartsOnSameTick) {
  fb::CraftState c = cruising();
  fb::PatternTracking t;
  fb::initialize_pattern_tracking(t, c);
  fb::Thrusters th;
  int completed = 0;
  for (int tick = 0; tick < 60 * 120; ++tick) {
    if (fb::run_repeating_pattern(t, fb::kZigZagPattern, c, {}, th)) ++completed;
    EXPECT_GE(t.current_index, 0);
    EXPECT_LT(t.current_index, 4);  // never left in the "finished" state
    fb::craft_step(c, fb::kPatternCraftParams, th, kDt);
  }
  EXPECT_GE(completed, 3);
}

TEST(PhysicsPattern, T29_SteeringFactorInRangeAndNonIncreasingDuringTurns) {
  const SimRun r = simulate(fb::kSquarePattern, cruising(), 1);
  int prev_index = -1;
  double prev_f = 1;
  bool saw_floor = false;
  for (std::size_t k = 0; k < r.factors.size(); ++k) {
    const double f = r.factors[k];
    EXPECT_GE(f, 0.05);
    EXPECT_LE(f, 1.0);
    const int i = r.indices[k];
    if (i == prev_index && fb::kSquarePattern[static_cast<std::size_t>(i)].limit_heading) {
      EXPECT_LE(f, prev_f) << "call " << k;
    }
    if (f == 0.05) saw_floor = true;
    if (!fb::kSquarePattern[static_cast<std::size_t>(i)].limit_heading) {
      EXPECT_EQ(f, 1.0);
    }
    prev_index = i;
    prev_f = f;
  }
  EXPECT_TRUE(saw_floor);  // the floor is reached, so the 0.05 clamp is exercised
}

TEST(PhysicsPattern, T29_TaperedTurnOvershootsLessThanFullSteering) {
  fb::DoPatternParams full;
  full.taper = false;
  const SimRun tapered = simulate(fb::kSquarePattern, cruising(), 2);
  const SimRun hard = simulate(fb::kSquarePattern, cruising(), 2, full);
  const auto a = settled_turns(tapered, fb::kSquarePattern);
  const auto b = settled_turns(hard, fb::kSquarePattern);
  ASSERT_GE(a.size(), 4u);
  ASSERT_GE(b.size(), 4u);
  double max_over_tapered = 0, min_over_hard = 1e9;
  for (const double d : a) {
    const double turned = -d;  // right turns are clockwise
    EXPECT_GE(turned, 90.0);
    max_over_tapered = std::max(max_over_tapered, turned - 90);
  }
  for (const double d : b) min_over_hard = std::min(min_over_hard, -d - 90);
  std::printf("[ measured ] overshoot per 90 deg turn: tapered <= %.4f deg, full steering >= %.4f deg\n",
              max_over_tapered, min_over_hard);
  EXPECT_LT(max_over_tapered, 0.5);
  EXPECT_LT(max_over_tapered, min_over_hard);
  EXPECT_GT(min_over_hard, 10 * max_over_tapered);
}

TEST(PhysicsPattern, T29_PoseInvarianceUnderRigidTransform) {
  // Start at 9.9 m/s rather than exactly 10: at 10 m/s the 150 m leg ends exactly on tick 900
  // (150 = 900 * 10/60), and a 1-ulp rounding difference can then move that switch by one tick
  // (0.17 m). That is time quantisation, not a failure of invariance, so avoid the coincidence.
  const double rot = 2.1;  // rad
  const Vec2 shift{-340, 125};
  const SimRun a = simulate(fb::kArbitraryPattern, cruising({}, 0, 9.9), 1);
  const SimRun b = simulate(fb::kArbitraryPattern, cruising(shift, rot, 9.9), 1);
  ASSERT_EQ(a.events.size(), b.events.size());
  double worst = 0;
  const std::size_t n = std::min(a.states.size(), b.states.size());
  for (std::size_t k = 0; k < n; ++k) {
    const Vec2 p = a.states[k].position;
    const double ex = shift.x + std::cos(rot) * p.x - std::sin(rot) * p.y;
    const double ey = shift.y + std::sin(rot) * p.x + std::cos(rot) * p.y;
    worst = std::max(worst, std::hypot(b.states[k].position.x - ex, b.states[k].position.y - ey));
  }
  std::printf("[ measured ] pose invariance worst deviation %.3g m over %zu ticks\n", worst, n);
  EXPECT_LT(worst, 1e-3);
  for (std::size_t e = 0; e < a.events.size(); ++e) EXPECT_EQ(a.events[e].tick, b.events[e].tick);
}

TEST(PhysicsPattern, T29_AcosClampedAndZeroVelocitySafe) {
  // Unit vectors whose dot product rounds past 1 would make an unclamped acos NaN.
  int over_one = 0;
  for (int k = 0; k < 2000; ++k) {
    const double a = 0.001 * k;
    fb::CraftState c;
    c.velocity = {3.7 * std::cos(a), 3.7 * std::sin(a)};
    fb::PatternTracking t;
    fb::initialize_pattern_tracking(t, c);
    const Vec2 h = flockstep::math::normalized(c.velocity);
    if (h.x * h.x + h.y * h.y > 1.0) ++over_one;
    fb::Thrusters th;
    ASSERT_TRUE(fb::do_pattern(t, fb::kSquarePattern, c, {}, th));
    ASSERT_TRUE(std::isfinite(t.d_heading_deg));
    EXPECT_LT(t.d_heading_deg, 1e-5);  // acos near 1 resolves only ~1e-8 rad
  }
  EXPECT_GT(over_one, 0);  // the clamp was needed for some of these directions
  // A craft at rest: heading falls back to the body axis, no NaN, full thrust ahead.
  fb::CraftState rest;
  rest.orientation = 1.0;
  fb::PatternTracking t;
  fb::initialize_pattern_tracking(t, rest);
  EXPECT_NEAR(t.initial_heading.x, std::cos(1.0), 1e-15);
  fb::Thrusters th;
  EXPECT_TRUE(fb::do_pattern(t, fb::kSquarePattern, rest, {}, th));
  EXPECT_EQ(t.d_heading_deg, 0);
  EXPECT_FALSE(th.port || th.starboard);
  EXPECT_EQ(th.throttle, 1);
  // Empty pattern: finished at once, thrusters off.
  fb::PatternTracking e;
  fb::initialize_pattern_tracking(e, rest);
  EXPECT_FALSE(fb::do_pattern(e, std::span<const fb::PhysicsInstruction>{}, rest, {}, th));
  EXPECT_FALSE(fb::run_repeating_pattern(e, std::span<const fb::PhysicsInstruction>{}, rest, {}, th));
}

TEST(PhysicsPattern, T29_SignedHeadingOptionCompletesTurnsOf180DegreesOrMore) {
  // One 270 deg left turn, then a short straight. The seed's unsigned measure peaks at 180 and
  // never reaches 270, so the craft circles forever; the signed option completes the turn.
  const fb::PhysicsInstruction big[] = {fb::pattern_turn_left(270), fb::pattern_straight(30)};
  const SimRun unsigned_run = simulate(big, cruising(), 1, fb::DoPatternParams{}, fb::kPatternCraftParams, 60 * 60);
  EXPECT_EQ(unsigned_run.false_returns, 0);
  EXPECT_TRUE(unsigned_run.events.empty());
  fb::DoPatternParams signed_params;
  signed_params.signed_heading = true;
  const SimRun signed_run = simulate(big, cruising(), 1, signed_params, fb::kPatternCraftParams, 60 * 60);
  EXPECT_EQ(signed_run.false_returns, 1);
  ASSERT_EQ(signed_run.events.size(), 2u);
  // Settled heading after the straight: 270 left == -90 (within the small overshoot).
  const double final_heading = vel_heading_deg(signed_run.events[1].state);
  EXPECT_NEAR(final_heading, -90, 0.5);
}

// ---------------------------------------------------------------- T30

TEST(PhysicsPattern, T30_SquareClosesHeadingAndPosition) {
  const fb::CraftState start = cruising({50, -20}, 0.3);
  const SimRun r = simulate(fb::kSquarePattern, start, 1);
  ASSERT_EQ(r.false_returns, 1);
  const Event& end = r.events.back();
  ASSERT_EQ(end.index, 8);
  const double dh = wrap_deg(vel_heading_deg(end.state) - vel_heading_deg(start));
  const double dp = std::hypot(end.state.position.x - start.position.x, end.state.position.y - start.position.y);
  std::printf("[ measured ] square closure: %.3f m, %.4f deg after %d ticks\n", dp, dh, end.tick);
  EXPECT_LT(std::abs(dh), 0.25);
  EXPECT_LT(dp, 1.0);  // 0.5 % of the 200 m side
  // Total turning is four right angles, each at least 90 degrees.
  const auto turns = settled_turns(simulate(fb::kSquarePattern, start, 2), fb::kSquarePattern);
  double total = 0;
  for (std::size_t k = 0; k < 4; ++k) total += turns[k];
  EXPECT_NEAR(total, -360, 0.3);
  // Rounded corners: the velocity direction never turns faster than the physics allows
  // (0.75 rad/s = 0.72 deg per tick at full thrust), so there are no kinks.
  for (std::size_t k = 1; k < r.states.size(); ++k) {
    EXPECT_LT(std::abs(wrap_deg(vel_heading_deg(r.states[k]) - vel_heading_deg(r.states[k - 1]))), 0.8);
  }
}

TEST(PhysicsPattern, T30_DefaultCraftClosesWorseThanPatternCraft) {
  // Documents why the demos use kPatternCraftParams: the T10 defaults lag more and overshoot
  // every corner, leaving a visibly open square.
  const fb::CraftState start = cruising();
  const SimRun r = simulate(fb::kSquarePattern, start, 1, fb::DoPatternParams{}, fb::CraftParams{});
  const Event& end = r.events.back();
  const double dp = std::hypot(end.state.position.x, end.state.position.y);
  std::printf("[ measured ] square closure with T10 defaults: %.3f m\n", dp);
  EXPECT_GT(dp, 3.0);
}

TEST(PhysicsPattern, T30_ZigZagCyclesReturnHeadingAndAdvanceAlongOneLine) {
  const fb::CraftState start = cruising({0, 0}, -0.7);
  const SimRun r = simulate(fb::kZigZagPattern, start, 5);
  std::vector<fb::CraftState> cycle_starts{start};
  for (const Event& e : r.events) {
    if (e.index == 4) cycle_starts.push_back(e.state);
  }
  ASSERT_EQ(cycle_starts.size(), 6u);
  const double h0 = vel_heading_deg(start);
  for (const auto& s : cycle_starts) EXPECT_NEAR(wrap_deg(vel_heading_deg(s) - h0), 0, 0.1);
  // Successive cycle starts are equally spaced along one line.
  const Vec2 d1 = cycle_starts[2].position - cycle_starts[1].position;
  const double len = std::hypot(d1.x, d1.y);
  EXPECT_GT(len, 150);
  for (std::size_t k = 2; k + 1 < cycle_starts.size(); ++k) {
    const Vec2 dk = cycle_starts[k + 1].position - cycle_starts[k].position;
    EXPECT_NEAR(dk.x, d1.x, 0.02 * len / 100);
    EXPECT_NEAR(dk.y, d1.y, 0.02 * len / 100);
    // Collinear with the first spacing (cross product relative to length^2).
    const Vec2 from0 = cycle_starts[k + 1].position - cycle_starts[1].position;
    EXPECT_LT(std::abs(d1.x * from0.y - d1.y * from0.x) / (len * std::hypot(from0.x, from0.y)), 1e-3);
  }
}

TEST(PhysicsPattern, T30_ZigZagTurnsReachSixtyDegreesInCommandedDirection) {
  const SimRun r = simulate(fb::kZigZagPattern, cruising(), 3);
  const auto turns = settled_turns(r, fb::kZigZagPattern);
  ASSERT_GE(turns.size(), 4u);
  for (std::size_t k = 0; k < turns.size(); ++k) {
    // Even turns are instruction 1 (right, port thruster, clockwise: negative), odd are left.
    const double commanded = (k % 2 == 0) ? -turns[k] : turns[k];
    EXPECT_GE(commanded, 60.0) << "turn " << k;
    EXPECT_LT(commanded, 60.5) << "turn " << k;
  }
}

TEST(PhysicsPattern, T30_ArbitraryPatternTurns135BothWaysAndPoseInvariant) {
  const SimRun r = simulate(fb::kArbitraryPattern, cruising(), 2);
  const auto turns = settled_turns(r, fb::kArbitraryPattern);
  ASSERT_GE(turns.size(), 5u);
  for (std::size_t k = 0; k < 5; ++k) {
    const double commanded = (k % 2 == 0) ? -turns[k] : turns[k];  // R, L, R, L, R
    EXPECT_GE(commanded, 135.0) << "turn " << k;
    EXPECT_LT(commanded, 135.5) << "turn " << k;
  }
  // Pose invariance for the square as well (T30 (d)); T29 covers the arbitrary pattern.
  const double rot = -1.3;
  const Vec2 shift{12, 900};
  const SimRun a = simulate(fb::kSquarePattern, cruising({}, 0, 9.9), 1);
  const SimRun b = simulate(fb::kSquarePattern, cruising(shift, rot, 9.9), 1);
  ASSERT_EQ(a.events.size(), b.events.size());
  const Vec2 pa = a.events.back().state.position;
  const Vec2 pb = b.events.back().state.position;
  EXPECT_NEAR(pb.x, shift.x + std::cos(rot) * pa.x - std::sin(rot) * pa.y, 1e-3);
  EXPECT_NEAR(pb.y, shift.y + std::sin(rot) * pa.x + std::cos(rot) * pa.y, 1e-3);
}
