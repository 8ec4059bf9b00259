// sim::Extrapolator against the World's truth: snapshot views of tick b (and b - 3 for the dead
// reckoning rates) are advanced k ticks and compared with the World's agents at b + k, per group
// kind. Where the behaviour code's inputs are in the snapshot (craft chasers and vehicle chasers
// of a player, offset pursuit of a leader), the extrapolation must track the truth within a tight
// tolerance that plain dead reckoning of the same snapshots misses (the control); the kinds that
// are dead reckoned must stay within the tolerance stated for them, which holding the snapshot
// still misses (their control).
#include "flockstep/sim/extrapolate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "flockstep/math/transform.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "world_test_util.hpp"

namespace flockstep::sim {
namespace {

/// 250 ms at 60 Hz: the longer hold-back docs/viewer.md measures.
constexpr std::int32_t kAhead = 15;
/// Ticks between the two snapshots the dead reckoning rates come from (20 Hz at 60 Hz).
constexpr std::int32_t kSnapshotTicks = 3;

enum class Player : std::uint8_t { kStill, kEvasive };

/// Position errors, m, of one group kind after kAhead ticks.
struct Errors {
  std::vector<double> extrapolated;   // sim::Extrapolator
  std::vector<double> dead_reckoned;  // every agent dead reckoned (the control of the chase kinds)
  std::vector<double> held;           // the snapshot drawn where it was (the control of the rest)
  static double p(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5))];
  }
};

std::vector<AgentView> views_of(const World& w) {
  std::vector<AgentView> v;
  v.reserve(static_cast<std::size_t>(w.size()));
  for (std::int32_t i = 0; i < w.size(); ++i) v.push_back(w.view(i));
  return v;
}

/// Run `s` for `seconds` with one player (still at `still_at`, or weaving) and measure every
/// snapshot interval the errors of the agents of group `group`.
Errors measure(const Scenario& s, std::int32_t group, Player player, Vec2 still_at = {}, double seconds = 10) {
  World w(s);
  const AgentId me = w.add_player();
  if (player == Player::kStill) w.place(me, still_at);
  Extrapolator ex(w.scenario(), w.dt());
  std::deque<std::vector<AgentView>> history;  // views after each tick, newest last
  std::vector<ExtrapolatedAgent> a, d;
  Errors e;
  const auto ticks = static_cast<std::uint64_t>(seconds * s.tick_rate_hz);
  for (std::uint64_t t = 0; t < ticks; ++t) {
    if (player == Player::kEvasive) w.set_input(me, canonical::evasive_input(t));
    w.step();
    history.push_back(views_of(w));
    if (history.size() > static_cast<std::size_t>(kAhead + kSnapshotTicks + 1)) history.pop_front();
    if (w.tick() < 60 || w.tick() % kSnapshotTicks != 0) continue;  // a second to settle
    const std::vector<AgentView>& truth = history.back();
    const std::vector<AgentView>& base = history[history.size() - 1 - kAhead];
    const std::vector<AgentView>& before = history[history.size() - 1 - kAhead - kSnapshotTicks];
    ex.init(base, a, before, kSnapshotTicks);
    d = a;
    for (ExtrapolatedAgent& x : d) x.method = ExtrapolationMethod::kDeadReckoning;
    ex.advance(a, kAhead);
    ex.advance(d, kAhead);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const AgentView& b = base[i];
      if (b.group != group) continue;
      const auto it = std::find_if(truth.begin(), truth.end(), [&](const AgentView& v) { return v.id == b.id; });
      if (it == truth.end()) continue;
      auto err = [&](Vec2 p) {
        return math::length(s.wrap ? math::torus_delta(p, it->position, s.width, s.height) : it->position - p);
      };
      if (err(b.position) > 12) continue;  // respawned: no snapshot shows that coming
      e.extrapolated.push_back(err(a[i].view.position));
      e.dead_reckoned.push_back(err(d[i].view.position));
      e.held.push_back(err(b.position));
    }
  }
  return e;
}

std::int32_t group_named(const Scenario& s, const std::string& name) {
  for (std::size_t g = 0; g < s.groups.size(); ++g)
    if (s.groups[g].name == name) return static_cast<std::int32_t>(g);
  ADD_FAILURE() << "no group " << name;
  return -1;
}

/// The chase kinds: the player stands still (its position is then exactly what the snapshot
/// says), so the behaviour code has every input and must reproduce the World to 1 mm at p95;
/// dead reckoning the same snapshots must miss that (the control). The p95 rather than the
/// maximum: a capture respawns the player, which no snapshot shows in advance.
void expect_tracks_the_world(const char* group, Vec2 still_at) {
  const Scenario s = canonical::pursuit();
  const Errors e = measure(s, group_named(s, group), Player::kStill, still_at);
  ASSERT_GT(e.extrapolated.size(), 100u);
  constexpr double kTolM = 0.001;
  const double ex95 = Errors::p(e.extrapolated, 0.95), dr95 = Errors::p(e.dead_reckoned, 0.95);
  EXPECT_LT(ex95, kTolM) << group << ": extrapolated p95 " << ex95 << " m";
  EXPECT_GT(dr95, kTolM) << group << ": the control (dead reckoning) p95 " << dr95 << " m must miss the tolerance";
}

TEST(Extrapolate, T21_LosChaseCraftTracksTheWorldWhereDeadReckoningDoesNot) {
  expect_tracks_the_world("los chasers", {80, 80});
}

TEST(Extrapolate, T23_T24_InterceptCraftTracksTheWorldWhereDeadReckoningDoesNot) {
  expect_tracks_the_world("interceptors", {80, 80});
}

TEST(Extrapolate, T67_PursuingVehicleTracksTheWorldWhereDeadReckoningDoesNot) {
  expect_tracks_the_world("pursuers", {80, 80});
}

TEST(Extrapolate, T64_SeekingVehicleTracksTheWorldWhereDeadReckoningDoesNot) {
  expect_tracks_the_world("chasers", {80, 80});
}

TEST(Extrapolate, T21_T23_T67_ChasersOfAWeavingPlayerAreCloserThanDeadReckoning) {
  // The player's input is not in a snapshot, so it is dead reckoned; the chasers still steer
  // toward where it goes, which is closer to the truth than carrying on straight.
  const Scenario s = canonical::pursuit();
  for (const char* g : {"los chasers", "interceptors", "pursuers", "chasers"}) {
    const Errors e = measure(s, group_named(s, g), Player::kEvasive);
    ASSERT_GT(e.extrapolated.size(), 100u);
    const double ex = Errors::p(e.extrapolated, 0.5), dr = Errors::p(e.dead_reckoned, 0.5);
    const double ex95 = Errors::p(e.extrapolated, 0.95), dr95 = Errors::p(e.dead_reckoned, 0.95);
    EXPECT_LE(ex, dr) << g;
    EXPECT_LT(ex95, dr95) << g;
  }
}

/// The dead-reckoned kinds: within `tol_m` at p95 after 250 ms, which holding the snapshot still
/// (the control) must miss.
void expect_within(const Scenario& s, const char* group, double tol_m, bool control = true) {
  const Player player = Player::kEvasive;
  const Errors e = measure(s, group_named(s, group), player, {s.width / 2, s.height / 2});
  ASSERT_GT(e.extrapolated.size(), 50u) << group;
  const double ex95 = Errors::p(e.extrapolated, 0.95), held95 = Errors::p(e.held, 0.95);
  EXPECT_LT(ex95, tol_m) << group << ": extrapolated p95 " << ex95 << " m";
  std::printf("%s: extrapolated p95 %.4f m, held p95 %.4f m\n", group, ex95, held95);
  if (control) {
    EXPECT_GT(held95, tol_m) << group << ": the control (no extrapolation) p95 " << held95 << " m";
  }
}

TEST(Extrapolate, T76_VehicleFlockIsDeadReckonedWithin20cm) { expect_within(canonical::flock(300), "boids", 0.20); }

TEST(Extrapolate, T29_T72_PatrolsAreDeadReckonedWithin10cm) {
  const Scenario s = canonical::patrols();
  expect_within(s, "square patrol", 0.10);
  expect_within(s, "path followers", 0.10);
}

TEST(Extrapolate, T69_T74_T68_EscortHidersAndEvadersTrackTheWorld) {
  // Offset pursuit of a dead-reckoned leader, hiding and evading from a weaving player: behaviour
  // code whose target is itself extrapolated.
  const Scenario s = canonical::mixed();
  expect_within(s, "escort", 0.05);
  expect_within(s, "hiders", 0.05);
  expect_within(s, "evaders", 0.05);
}

TEST(Extrapolate, T25_KinematicPatrolIsDeadReckonedWithin1m) {
  // The zig-zag turns 90 degrees every few ticks and its step counter is not in a snapshot: the
  // rates measured between two snapshots describe a turn that is about to reverse, so dead
  // reckoning (p95 0.60 m measured) is worse than drawing the snapshot where it was (0.39 m).
  // Only the bound is asserted, without the held-still control, which would not miss it.
  Scenario s = test::open_world("kinematic patrol", 400, 400, 8, 1);
  GroupSpec g = test::placed("zigzag", AgentKind::kPatrol, Technique::kKinematicPattern, {200, 200});
  g.max_speed = 3;
  g.pattern = PatternKind::kZigZag;
  s.groups.push_back(g);
  expect_within(s, "zigzag", 1.0, false);
}

TEST(Extrapolate, MethodsFollowTheScenarioNotTheClient) {
  const Scenario s = canonical::mixed();
  const Extrapolator ex(s, real(1) / 60);
  EXPECT_EQ(ex.method_of(group_named(s, "los chasers")), ExtrapolationMethod::kBehaviour);
  EXPECT_EQ(ex.method_of(group_named(s, "interceptors")), ExtrapolationMethod::kBehaviour);
  EXPECT_EQ(ex.method_of(group_named(s, "pursuers")), ExtrapolationMethod::kBehaviour);
  EXPECT_EQ(ex.method_of(group_named(s, "escort")), ExtrapolationMethod::kBehaviour);
  // Flocking and wandering need neighbours' private random streams: dead reckoned.
  EXPECT_EQ(ex.method_of(group_named(s, "starlings")), ExtrapolationMethod::kDeadReckoning);
  EXPECT_EQ(ex.method_of(group_named(s, "wanderers")), ExtrapolationMethod::kDeadReckoning);
  EXPECT_EQ(ex.method_of(-1), ExtrapolationMethod::kDeadReckoning);  // players: input unknown
}

TEST(Extrapolate, AdvanceClampsToItsLimit) {
  const Scenario s = test::open_world("limit", 1e6, 100, 4, 1);
  Extrapolator ex(s, 1);
  AgentView v;
  v.kind = AgentKind::kPlayer;
  v.group = -1;
  v.position = {10, 50};
  v.velocity = {1, 0};
  std::vector<ExtrapolatedAgent> a;
  ex.init(std::vector<AgentView>{v}, a);
  ex.advance(a, kMaxExtrapolationTicks + 1000);
  EXPECT_DOUBLE_EQ(a[0].view.position.x, 10 + kMaxExtrapolationTicks);
}

}  // namespace
}  // namespace flockstep::sim
