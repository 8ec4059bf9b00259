// T15-T20 LaMothe's deterministic motion, tracking, evasion and mines.
#include "flockstep/behavior/lamothe.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace fb = flockstep::behavior;
namespace fm = flockstep::math;
using fb::IntVec2;
using fm::real;
using fm::Vec2;

// ---------------------------------------------------------------------------------------------
// T15

TEST(Lamothe, T15_AfterNTicksPositionIsP0PlusNV) {
  fm::Rng rng = fm::Rng::seeded(15);
  for (int trial = 0; trial < 20; ++trial) {
    const IntVec2 p0{rng.range(0, 639), rng.range(0, 479)};
    fb::Asteroid a = fb::asteroid_spawn(p0, {}, rng);
    EXPECT_FALSE(a.velocity == IntVec2{});
    EXPECT_GE(a.velocity.x, -4);
    EXPECT_LE(a.velocity.x, 4);
    const IntVec2 v = a.velocity;
    for (int n = 1; n <= 200; ++n) {
      fb::asteroid_update(a);
      ASSERT_EQ(a.position, p0 + v * n) << n;
      ASSERT_EQ(a.velocity, v);
    }
  }
}

TEST(Lamothe, T15_TrajectoryIgnoresThePlayerUnlikeATracker) {
  // Two runs with the player in different places: the asteroid's path is identical while a
  // brute-force tracker's (T17) path differs; asteroid_update has no player input at all.
  const IntVec2 players[] = {{0, 0}, {600, 400}};
  IntVec2 asteroid_end[2];
  IntVec2 tracker_end[2];
  for (int k = 0; k < 2; ++k) {
    fm::Rng rng = fm::Rng::seeded(151);
    fb::Asteroid a = fb::asteroid_spawn({320, 240}, {}, rng);
    IntVec2 chaser{320, 240};
    for (int t = 0; t < 50; ++t) {
      fb::asteroid_update(a);
      chaser = fb::track_step(chaser, players[k]);
    }
    asteroid_end[k] = a.position;
    tracker_end[k] = chaser;
  }
  EXPECT_EQ(asteroid_end[0], asteroid_end[1]);
  EXPECT_FALSE(tracker_end[0] == tracker_end[1]);
}

TEST(Lamothe, T15_ScreenWrapIsModuloPlayfield) {
  const fb::Playfield f{640, 480};
  fb::Asteroid a{{630, 5}, {7, -3}};
  for (int n = 1; n <= 500; ++n) {
    fb::asteroid_update(a);
    a.position = fb::wrap_playfield(a.position, f);
    const std::int32_t ex = (630 + 7 * n) % 640;
    const std::int32_t ey = ((5 - 3 * n) % 480 + 480) % 480;
    ASSERT_EQ(a.position, (IntVec2{ex, ey})) << n;
  }
  EXPECT_EQ(fb::wrap_playfield({-1, 480}, f), (IntVec2{639, 0}));
  EXPECT_EQ(fb::clamp_playfield({-1, 480}, f), (IntVec2{0, 479}));
}

// ---------------------------------------------------------------------------------------------
// T16

TEST(Lamothe, T16_VelocityComponentsAlwaysInMinus8To7AndAllValuesOccur) {
  fm::Rng rng = fm::Rng::seeded(16);
  fb::Fly fly{};
  const fb::FlyParams p{};
  int seen_x[16] = {};
  int seen_y[16] = {};
  for (int t = 0; t < 20000; ++t) {
    fb::fly_update(fly, p, rng);
    ASSERT_GE(fly.velocity.x, -8);
    ASSERT_LE(fly.velocity.x, 7);
    ASSERT_GE(fly.velocity.y, -8);
    ASSERT_LE(fly.velocity.y, 7);
    ++seen_x[fly.velocity.x + 8];
    ++seen_y[fly.velocity.y + 8];
  }
  // -8 is reachable and +7 is the top (the seed's -8 + rand() % 16).
  for (int i = 0; i < 16; ++i) {
    EXPECT_GT(seen_x[i], 0) << i - 8;
    EXPECT_GT(seen_y[i], 0) << i - 8;
  }
}

TEST(Lamothe, T16_VelocityConstantWithinBurstOfTenMoves) {
  fm::Rng rng = fm::Rng::seeded(161);
  fb::Fly fly{};
  const fb::FlyParams p{};
  for (int burst = 0; burst < 50; ++burst) {
    fb::fly_update(fly, p, rng);  // first move of a new burst
    const IntVec2 v = fly.velocity;
    EXPECT_EQ(fly.ticks_left, 9);
    for (int t = 1; t < 10; ++t) {
      const IntVec2 before = fly.position;
      fb::fly_update(fly, p, rng);
      ASSERT_EQ(fly.velocity, v);
      ASSERT_EQ(fly.position, before + v);  // both axes move (no fly+y_velocity typo)
    }
    EXPECT_EQ(fly.ticks_left, 0);
  }
}

TEST(Lamothe, T16_ErratumSeedLoopMakesNineMovesPerBurst) {
  // Count how many ticks each velocity lasts. Bursts may repeat a velocity by chance, so count
  // new-burst events through ticks_left instead.
  for (const bool literal : {false, true}) {
    fm::Rng rng = fm::Rng::seeded(162);
    fb::Fly fly{};
    fb::FlyParams p{};
    p.seed_literal_burst = literal;
    int bursts = 0;
    for (int t = 0; t < 900; ++t) {
      if (fly.ticks_left == 0) ++bursts;
      fb::fly_update(fly, p, rng);
    }
    EXPECT_EQ(bursts, literal ? 100 : 90) << literal;
  }
}

TEST(Lamothe, T16_ReproducibleWithFixedSeedAndRandomBurstLengthsInRange) {
  fb::FlyParams p{};
  p.min_burst_ticks = 3;
  p.max_burst_ticks = 12;
  fm::Rng r1 = fm::Rng::seeded(163);
  fm::Rng r2 = fm::Rng::seeded(163);
  fm::Rng r3 = fm::Rng::seeded(164);
  fb::Fly a{}, b{}, c{};
  bool differs = false;
  int lengths_seen[13] = {};
  int run = 0;
  for (int t = 0; t < 5000; ++t) {
    const bool new_burst = a.ticks_left == 0;
    fb::fly_update(a, p, r1);
    fb::fly_update(b, p, r2);
    fb::fly_update(c, p, r3);
    ASSERT_EQ(a.position, b.position);
    ASSERT_EQ(a.velocity, b.velocity);
    differs = differs || !(a.position == c.position);
    if (new_burst) run = a.ticks_left + 1;
    if (a.ticks_left == 0) {
      ASSERT_GE(run, 3);
      ASSERT_LE(run, 12);
      ++lengths_seen[run];
    }
  }
  EXPECT_TRUE(differs);  // another seed gives another flight
  for (int len = 3; len <= 12; ++len) EXPECT_GT(lengths_seen[len], 0) << len;
}

TEST(Lamothe, T16_WestwardBreezeGivesNegativeMeanXDisplacement) {
  fm::Rng rng = fm::Rng::seeded(165);
  fb::FlyParams calm{};
  fb::FlyParams breezy{};
  breezy.breeze_x = -3;
  fb::Fly f0{}, f1{};
  fm::Rng rng1 = fm::Rng::seeded(165);
  for (int t = 0; t < 10000; ++t) {
    fb::fly_update(f0, calm, rng);
    fb::fly_update(f1, breezy, rng1);
    ASSERT_GE(f1.velocity.x, -8);
    ASSERT_LE(f1.velocity.x, 7);
  }
  // Calm mean vx = -0.5 (range -8..7); with the breeze it is about -3.
  const real calm_mean = f0.position.x / 10000.0;
  const real breezy_mean = f1.position.x / 10000.0;
  EXPECT_NEAR(calm_mean, -0.5, 0.5);
  EXPECT_LT(breezy_mean, -2.0);
  EXPECT_NEAR(f1.position.y / 10000.0, -0.5, 0.5);  // no breeze on y
}

// ---------------------------------------------------------------------------------------------
// T17

TEST(Lamothe, T17_ChebyshevDistanceDropsByOnePerTickUntilArrival) {
  fm::Rng rng = fm::Rng::seeded(17);
  for (int trial = 0; trial < 50; ++trial) {
    IntVec2 chaser{rng.range(-300, 300), rng.range(-300, 300)};
    const IntVec2 target{rng.range(-300, 300), rng.range(-300, 300)};
    const std::int32_t d0 = fb::chebyshev_distance(chaser, target);
    for (std::int32_t t = 1; t <= d0; ++t) {
      chaser = fb::track_step(chaser, target);
      ASSERT_EQ(fb::chebyshev_distance(chaser, target), d0 - t);
    }
    // Arrival takes exactly max(|dx|, |dy|) ticks, then the chaser sits on the target.
    EXPECT_EQ(chaser, target);
    for (int t = 0; t < 5; ++t) {
      chaser = fb::track_step(chaser, target);
      EXPECT_EQ(chaser, target);
    }
  }
}

TEST(Lamothe, T17_PathIsDiagonalThenStraight) {
  // From (0,0) to (10,4): 4 diagonal moves, then 6 straight ones (the artificial look).
  IntVec2 c{0, 0};
  const IntVec2 target{10, 4};
  for (int t = 1; t <= 10; ++t) {
    const IntVec2 before = c;
    c = fb::track_step(c, target);
    const IntVec2 step = c - before;
    EXPECT_EQ(step, t <= 4 ? (IntVec2{1, 1}) : (IntVec2{1, 0})) << t;
  }
  // A faster chaser never steps past the target.
  EXPECT_EQ(fb::track_step({0, 0}, {2, -1}, 5), (IntVec2{2, -1}));
}

TEST(Lamothe, T17_ChasesAMovingTarget) {
  // A target drifting at 0.5 px/tick is caught by the 1 px/tick chaser, which then shadows it.
  IntVec2 chaser{0, 0};
  IntVec2 target{50, 20};
  for (int t = 0; t < 200; ++t) {
    if (t % 2 == 0) target.x += 1;  // 0.5 px/tick
    chaser = fb::track_step(chaser, target);
  }
  EXPECT_LE(fb::chebyshev_distance(chaser, target), 1);
}

// ---------------------------------------------------------------------------------------------
// T18

TEST(Lamothe, T18_OffAxisEvaderGainsOnePixelPerTickOnBothAxes) {
  const IntVec2 player{100, 100};
  IntVec2 e{97, 104};
  for (int t = 1; t <= 50; ++t) {
    e = fb::evade_step(e, player);
    EXPECT_EQ(std::abs(e.x - player.x), 3 + t);
    EXPECT_EQ(std::abs(e.y - player.y), 4 + t);
  }
}

TEST(Lamothe, T18_EqualAxisNeverSeparatesAndClampKeepsOnScreen) {
  const IntVec2 player{100, 50};
  IntVec2 e{100, 60};  // same x as the player
  for (int t = 0; t < 20; ++t) e = fb::evade_step(e, player);
  EXPECT_EQ(e.x, 100);
  EXPECT_EQ(e.y, 80);
  // Coincident: no direction on either axis, no move.
  EXPECT_EQ(fb::evade_step(player, player), player);
  // Clamped to the playfield, the evader ends in the far corner and stays there.
  const fb::Playfield f{200, 100};
  IntVec2 c{150, 70};
  for (int t = 0; t < 300; ++t) c = fb::clamp_playfield(fb::evade_step(c, player, 2), f);
  EXPECT_EQ(c, (IntVec2{199, 99}));
}

TEST(Lamothe, T18_EvadeIsTheReverseOfTrack) {
  fm::Rng rng = fm::Rng::seeded(18);
  for (int i = 0; i < 200; ++i) {
    const IntVec2 a{rng.range(-20, 20), rng.range(-20, 20)};
    const IntVec2 b{rng.range(-20, 20), rng.range(-20, 20)};
    const IntVec2 toward = fb::track_step(a, b) - a;
    const IntVec2 away = fb::evade_step(a, b) - a;
    EXPECT_EQ(away, toward * -1);
  }
}

TEST(Lamothe, T17_T18_ContinuousStepsFollowThePixelRules) {
  // The world moves trackers in metres through the Vec2 forms: on integer inputs they give the
  // pixel forms' results exactly, and a fractional step never passes the target.
  fm::Rng rng = fm::Rng::seeded(1718);
  auto as_vec = [](IntVec2 p) { return fm::Vec2{static_cast<fm::real>(p.x), static_cast<fm::real>(p.y)}; };
  for (int i = 0; i < 200; ++i) {
    const IntVec2 a{rng.range(-20, 20), rng.range(-20, 20)};
    const IntVec2 b{rng.range(-20, 20), rng.range(-20, 20)};
    const std::int32_t speed = rng.range(0, 4);
    EXPECT_EQ(fb::track_step(as_vec(a), as_vec(b), speed), as_vec(fb::track_step(a, b, speed)));
    EXPECT_EQ(fb::evade_step(as_vec(a), as_vec(b), speed), as_vec(fb::evade_step(a, b, speed)));
  }
  EXPECT_EQ(fb::track_step(fm::Vec2{0, 0}, fm::Vec2{0.25, -3}, 0.5), (fm::Vec2{0.25, -0.5}));
  EXPECT_EQ(fb::evade_step(fm::Vec2{0, 0}, fm::Vec2{0.25, 0}, 0.5), (fm::Vec2{-0.5, 0}));
}

// ---------------------------------------------------------------------------------------------
// T19

TEST(Lamothe, T19_ExactClampKeepsSpeedAtMostMax) {
  fb::VectorTrackParams p{};
  p.rate = 3;
  p.max_speed = 8;
  fb::Tracker t{{0, 0}, {8, 0}};
  Vec2 target{100, 300};
  real top = 0;
  for (int i = 0; i < 2000; ++i) {
    target += Vec2{fm::as_vector(0.01 * i) * 5.0};
    fb::vector_track_update(t, target, p);
    ASSERT_LE(fm::length(t.velocity), p.max_speed * (1 + 1e-15)) << i;
    top = fm::max(top, fm::length(t.velocity));
  }
  EXPECT_GT(top, 7.9);
}

TEST(Lamothe, T19_SeedShrinkStaysWithinMaxPlusRateButCanExceedMax) {
  fb::VectorTrackParams p{};
  p.cap = fb::SpeedCap::scale_once;
  p.max_speed = 8;
  fm::Rng rng = fm::Rng::seeded(19);
  for (const real rate : {0.5, 2.0, 4.0}) {  // rate <= max/2: the derived invariant holds
    p.rate = rate;
    fb::Tracker t{{0, 0}, {0, 0}};
    real top = 0;
    for (int i = 0; i < 5000; ++i) {
      const Vec2 target{rng.uniform(-200, 200), rng.uniform(-200, 200)};  // jumpy target
      fb::vector_track_update(t, target, p);
      ASSERT_LE(fm::length(t.velocity), p.max_speed + rate + 1e-12) << rate << " " << i;
      top = fm::max(top, fm::length(t.velocity));
    }
    if (rate <= p.max_speed / 3) {
      // |v| <= MAX and rate <= MAX/3 give |v + rate| <= 4/3 MAX, so one 0.75 shrink suffices.
      EXPECT_LE(top, p.max_speed + 1e-12) << rate;
    } else {
      // The erratum: for a larger rate the single shrink leaves |v| above MAX at times.
      EXPECT_GT(top, p.max_speed + 0.5) << rate;
    }
  }
}

TEST(Lamothe, T19_ReachesStaticTargetFromRestAndFromCrossingStart) {
  fb::VectorTrackParams p{};
  p.rate = 1;
  p.max_speed = 8;
  const Vec2 target{300, 200};
  for (const Vec2 v0 : {Vec2{0, 0}, Vec2{0, 8}, Vec2{-8, 0}}) {
    fb::Tracker t{{0, 0}, v0};
    real closest = 1e9;
    int ticks = 0;
    for (; ticks < 600 && closest >= p.max_speed; ++ticks) {
      fb::vector_track_update(t, target, p);
      closest = fm::min(closest, fm::distance(t.position, target));
    }
    EXPECT_LT(closest, p.max_speed) << v0.x << "," << v0.y;
  }
  // Coincident tracker and target: no NaN, velocity only capped.
  fb::Tracker c{target, {3, 4}};
  fb::vector_track_update(c, target, p);
  EXPECT_TRUE(fm::is_finite(c.velocity));
  EXPECT_EQ(c.velocity, (Vec2{3, 4}));
}

TEST(Lamothe, T19_HigherRateGivesSmallerMeanTrackingError) {
  // Target flies a straight line at 3 px/tick; tracker starts at rest 200 px away.
  real prev = 1e9;
  for (const real rate : {0.1, 0.3, 1.0, 3.0}) {
    fb::VectorTrackParams p{};
    p.rate = rate;
    p.max_speed = 8;
    fb::Tracker t{{0, 0}, {0, 0}};
    Vec2 target{200, 0};
    real sum = 0;
    for (int i = 0; i < 600; ++i) {
      target += Vec2{0, 3};
      fb::vector_track_update(t, target, p);
      sum += fm::distance(t.position, target);
    }
    const real mean = sum / 600;
    EXPECT_LT(mean, prev) << rate;
    prev = mean;
  }
}

TEST(Lamothe, T19_ErratumSeedStep2MovesPositionNotVelocity) {
  fb::VectorTrackParams fixed{};
  fb::VectorTrackParams literal{};
  literal.seed_literal_step2 = true;
  fb::Tracker a{{0, 0}, {0, 2}};
  fb::Tracker b = a;
  const Vec2 target{100, 0};
  fb::vector_track_update(a, target, fixed);
  fb::vector_track_update(b, target, literal);
  EXPECT_EQ(a.velocity, (Vec2{1, 2}));  // velocity turned toward the target
  EXPECT_EQ(b.velocity, (Vec2{0, 2}));  // printed version: velocity never changes
  EXPECT_EQ(a.position, (Vec2{1, 2}));
  EXPECT_EQ(b.position, (Vec2{1, 2}));  // same first step, but...
  for (int i = 0; i < 5; ++i) {
    fb::vector_track_update(a, target, fixed);
    fb::vector_track_update(b, target, literal);
  }
  EXPECT_EQ(b.velocity, (Vec2{0, 2}));  // ...the literal tracker keeps drifting along +y
  EXPECT_GT(a.velocity.x, 5.0);         // the corrected one has built up speed toward it
}

// ---------------------------------------------------------------------------------------------
// T20

TEST(Lamothe, T20_FastDistanceIsWithinSevenPercent) {
  EXPECT_EQ(fb::fast_distance_2d(100, 0), 100);
  EXPECT_EQ(fb::fast_distance_2d(0, -100), 100);
  EXPECT_EQ(fb::fast_distance_2d(-100, 100), 131);  // 200 - 50 - 25 + 6 (true 141.4)
  for (int x = -60; x <= 60; x += 3) {
    for (int y = -60; y <= 60; y += 7) {
      const real exact = std::hypot(x, y);
      const real approx = fb::fast_length({static_cast<real>(x), static_cast<real>(y)});
      if (exact == 0) {
        EXPECT_EQ(approx, 0.0);
        continue;
      }
      EXPECT_GE(approx / exact, 0.927) << x << "," << y;
      EXPECT_LE(approx / exact, 1.048) << x << "," << y;
      EXPECT_NEAR(fb::fast_distance_2d(x, y), approx, 2.0);
    }
  }
}

TEST(Lamothe, T20_NoHomingOutsideRadius) {
  fb::MineParams p{};
  p.cap = fb::SpeedCap::exact_clamp;
  fm::Rng rng = fm::Rng::seeded(20);
  Vec2 sum{};
  const int n = 60000;
  int tracking = 0;
  for (int i = 0; i < n; ++i) {
    fb::Tracker m{{0, 0}, {0, 0}};
    const fb::MineTick r = fb::mine_update(m, {1000, 500}, p, rng);  // far beyond 400 px
    tracking += r.tracking ? 1 : 0;
    sum += m.velocity;
  }
  EXPECT_EQ(tracking, 0);
  // Noise only: per-axis mean 0, sd of the mean about 2/sqrt(3) * sqrt(1/30 / n) = 8.6e-4.
  EXPECT_NEAR(sum.x / n, 0.0, 0.005);
  EXPECT_NEAR(sum.y / n, 0.0, 0.005);
}

TEST(Lamothe, T20_MeanVelocityChangePointsTowardPlayerInside) {
  fb::MineParams p{};
  fm::Rng rng = fm::Rng::seeded(201);
  const Vec2 player{120, -90};  // 150 px away, inside 400
  Vec2 sum{};
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    fb::Tracker m{{0, 0}, {0, 0}};
    const fb::MineTick r = fb::mine_update(m, player, p, rng);
    ASSERT_TRUE(r.tracking);
    sum += m.velocity;
  }
  const Vec2 mean = sum / n;
  const Vec2 dir = fm::normalized(player);
  EXPECT_GT(fm::dot(mean, dir), 0.9 * p.tracking_rate * 150 / fb::fast_length(player));
  EXPECT_NEAR(fm::cross(dir, mean), 0.0, 0.01);
}

TEST(Lamothe, T20_NoiseRateIsOneTenthInsideAndOneThirtiethOutside) {
  fb::MineParams p{};
  fm::Rng rng = fm::Rng::seeded(202);
  const int n = 30000;
  int near_noise = 0;
  int far_noise = 0;
  for (int i = 0; i < n; ++i) {
    fb::Tracker a{{0, 0}, {0, 0}};
    near_noise += fb::mine_update(a, {50, 50}, p, rng).noise ? 1 : 0;
    fb::Tracker b{{0, 0}, {0, 0}};
    far_noise += fb::mine_update(b, {5000, 0}, p, rng).noise ? 1 : 0;
  }
  // Binomial: 3000 +- 52 and 1000 +- 31; allow 5 sd.
  EXPECT_NEAR(near_noise, n / 10, 260);
  EXPECT_NEAR(far_noise, n / 30, 160);
}

TEST(Lamothe, T20_SpeedStaysBoundedOverLongRuns) {
  for (const fb::SpeedCap cap : {fb::SpeedCap::scale_once, fb::SpeedCap::exact_clamp}) {
    fb::MineParams p{};
    p.cap = cap;
    fm::Rng rng = fm::Rng::seeded(203);
    fb::Tracker m{{0, 0}, {0, 0}};
    Vec2 player{0, 0};
    // Largest per-tick velocity change: max(rate + sqrt2 * near, sqrt2 * far); with one shrink
    // by 3/4 the speed stays below max(max_velocity, 3 * that change) (derived invariant).
    const real delta = fm::max(p.tracking_rate + std::sqrt(2.0) * p.near_noise, std::sqrt(2.0) * p.far_noise);
    const real bound = cap == fb::SpeedCap::exact_clamp ? p.max_velocity : fm::max(p.max_velocity, 3 * delta);
    int inside = 0;
    real top = 0;
    for (int i = 0; i < 20000; ++i) {
      // First half: the player cruises in a big circle and the mine homes; second half: the
      // player is far away and the mine random-walks on far noise alone.
      player = i < 10000 ? player + fm::as_vector(0.002 * i) * 4.0 : Vec2{1e6, 1e6};
      inside += fb::mine_update(m, player, p, rng).tracking ? 1 : 0;
      ASSERT_LE(fm::length(m.velocity), bound + 1e-12) << i;
      ASSERT_TRUE(fm::is_finite(m.position));
      top = fm::max(top, fm::length(m.velocity));
    }
    EXPECT_EQ(inside, 10000);              // homed the whole first half, never in the second
    EXPECT_GT(top, 0.9 * p.max_velocity);  // the cap was actually reached
  }
}

TEST(Lamothe, T20_ExactDistanceModeAndCoincidentMine) {
  fb::MineParams p{};
  p.fast_distance = false;
  p.near_noise_chance = 0;
  fm::Rng rng = fm::Rng::seeded(204);
  // On the diagonal at 290 px the fast length (269) and exact length (290) differ; with an
  // activation radius of 280 only the exact mode keeps the mine dormant.
  p.tracking_distance = 280;
  p.far_noise_chance = 0;
  fb::Tracker m{{0, 0}, {0, 0}};
  const Vec2 player{205.06096654409877, 205.06096654409877};
  EXPECT_FALSE(fb::mine_update(m, player, p, rng).tracking);
  p.fast_distance = true;
  fb::Tracker m2{{0, 0}, {0, 0}};
  EXPECT_TRUE(fb::mine_update(m2, player, p, rng).tracking);
  // Mine exactly on the player: no division by zero.
  fb::Tracker on{player, {1, 1}};
  fb::mine_update(on, player, p, rng);
  EXPECT_TRUE(fm::is_finite(on.velocity));
  EXPECT_EQ(on.velocity, (Vec2{1, 1}));
}
