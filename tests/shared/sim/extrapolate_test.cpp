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
#include "flockstep/sim/world_state.hpp"
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
  static double mean(const std::vector<double>& v) {
    double sum = 0;
    for (const double x : v) sum += x;
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
  }
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
  // rates measured between two snapshots describe a turn that is about to reverse. It is dead
  // reckoned first order (p95 0.42 m measured; second order 0.60 m), still no better than
  // drawing the snapshot where it was (0.39 m): only the bound is asserted, without the
  // held-still control, which would not miss it.
  Scenario s = test::open_world("kinematic patrol", 400, 400, 8, 1);
  GroupSpec g = test::placed("zigzag", AgentKind::kPatrol, Technique::kKinematicPattern, {200, 200});
  g.max_speed = 3;
  g.pattern = PatternKind::kZigZag;
  s.groups.push_back(g);
  expect_within(s, "zigzag", 1.0, false);
}

/// The kinds whose rule changed from plain second-order dead reckoning (the old rule, which
/// `dead_reckoned` still measures): after 250 ms the new rule must be closer to the World on
/// average by at least `factor`, and no farther at the median or at p95. With the old rule both
/// series are the same and the mean check fails.
void expect_beats_second_order(const Scenario& s, const char* group, double factor, Player player = Player::kEvasive,
                               Vec2 still_at = {}, double seconds = 20) {
  const Errors e = measure(s, group_named(s, group), player, still_at, seconds);
  ASSERT_GT(e.extrapolated.size(), 100u) << group;
  const double ex = Errors::p(e.extrapolated, 0.5), dr = Errors::p(e.dead_reckoned, 0.5);
  const double ex95 = Errors::p(e.extrapolated, 0.95), dr95 = Errors::p(e.dead_reckoned, 0.95);
  const double exm = Errors::mean(e.extrapolated), drm = Errors::mean(e.dead_reckoned);
  std::printf("%s (m, new / second order): p50 %.4f / %.4f, p95 %.4f / %.4f, mean %.4f / %.4f\n", group, ex, dr, ex95,
              dr95, exm, drm);
  EXPECT_LE(ex, dr) << group;
  EXPECT_LE(ex95, dr95) << group;
  EXPECT_LT(exm, drm * factor) << group << ": mean " << exm << " m against second order's " << drm << " m";
}

/// One agent each of the kinematic techniques whose velocity jumps within a snapshot interval,
/// and LaMothe's trackers, around a player.
Scenario jumpy_kinematics() {
  Scenario s = test::open_world("jumpy kinematics", 200, 200, 16, 1);
  GroupSpec fly = test::placed("flies", AgentKind::kWanderer, Technique::kFly, {100, 100}, 3);
  fly.max_speed = 6;
  fly.panic_range = 0;
  GroupSpec mine = test::placed("mines", AgentKind::kPursuer, Technique::kMine, {110, 100}, 3);
  mine.max_speed = 4;
  mine.max_force = 3;
  mine.mine.tracking_distance = 30;
  GroupSpec wander =
      test::placed("kinematic wanderers", AgentKind::kWanderer, Technique::kKinematicWander, {90, 100}, 2);
  wander.max_speed = 3;
  wander.panic_range = 0;
  GroupSpec square = test::placed("square walker", AgentKind::kPatrol, Technique::kKinematicPattern, {100, 90});
  square.max_speed = 2;
  square.pattern = PatternKind::kSquare;
  // The weaving player (canonical::evasive_input from its spawn point) ends up weaving along the
  // bottom border around x = 44: the trackers follow it there and their axis-wise steps flip
  // as it crosses their column; the anti-trackers start where it passes.
  GroupSpec anti = test::placed("anti-trackers", AgentKind::kWanderer, Technique::kAntiTrack, {46, 30}, 3);
  anti.max_speed = 3;
  GroupSpec track = test::placed("trackers", AgentKind::kWanderer, Technique::kTrack, {60, 20}, 2);
  track.max_speed = 3;
  s.groups = {fly, mine, wander, square, anti, track};
  return s;
}

TEST(Extrapolate, T16_FlyBurstsAreDeadReckonedFirstOrderCloserThanSecondOrder) {
  expect_beats_second_order(jumpy_kinematics(), "flies", 0.8);
}

TEST(Extrapolate, T20_MineNoiseIsDeadReckonedFirstOrderCloserThanSecondOrder) {
  expect_beats_second_order(jumpy_kinematics(), "mines", 0.9);
}

TEST(Extrapolate, T40_KinematicWanderIsDeadReckonedFirstOrderCloserThanSecondOrder) {
  expect_beats_second_order(jumpy_kinematics(), "kinematic wanderers", 0.9);
}

TEST(Extrapolate, T25_KinematicSquareWalkIsDeadReckonedFirstOrderCloserThanSecondOrder) {
  expect_beats_second_order(jumpy_kinematics(), "square walker", 0.9);
}

TEST(Extrapolate, T18_AntiTrackerRunsTheWorldsStepCloserThanSecondOrder) {
  expect_beats_second_order(jumpy_kinematics(), "anti-trackers", 0.5);
}

TEST(Extrapolate, T17_TrackerRunsTheWorldsStepCloserThanSecondOrder) {
  // The tracker's axis-wise step flips as it passes the weaving player's row or column.
  expect_beats_second_order(jumpy_kinematics(), "trackers", 0.9);
}

/// Tile walkers on a 30 x 20 map of 4 m tiles: a rectangle patrol, a back-and-forth patrol and a
/// track with junctions (the shipped tile_patrols.json's shapes), at 4 tiles a second.
Scenario tile_walkers() {
  Scenario s = test::open_world("tile walkers", 120, 80, 16, 1);
  s.tiles.cols = 30;
  s.tiles.rows = 20;
  s.tiles.cell = 4;
  s.tiles.blocked.assign(30 * 20, 0);
  s.tile_patterns = {{"rectangle", {{10, 3}, {18, 3}, {18, 12}, {10, 12}, {10, 3}}, 1, 14},
                     {"back and forth", {{10, 3}, {18, 3}, {10, 3}}, 10, 2}};
  s.tracks = {
      {"track",
       {{{3, 2, 16, 2}}, {{16, 2, 16, 11}}, {{16, 11, 9, 11}}, {{9, 11, 9, 2}}, {{9, 6, 3, 6}}, {{3, 6, 3, 2}}}}};
  GroupSpec rect = test::placed("rectangle patrol", AgentKind::kPatrol, Technique::kTilePatrol, {60, 40}, 2);
  rect.tile_pattern = 0;
  rect.tile_speed = 4;
  rect.chase_range = 12;
  GroupSpec guard = test::placed("gate guard", AgentKind::kPatrol, Technique::kTilePatrol, {60, 40});
  guard.tile_pattern = 1;
  guard.tile_speed = 3;
  guard.chase_range = 12;
  GroupSpec walkers = test::placed("track walkers", AgentKind::kPatrol, Technique::kTileTrack, {20, 20}, 3);
  walkers.track = 0;
  walkers.tile_speed = 4;
  s.groups = {rect, guard, walkers};
  return s;
}

TEST(Extrapolate, T26_T27_TilePatrolStepsAlongItsPatternCloserThanSecondOrder) {
  // The player stands far from the patrols (no break-out): the next pattern entry is certain,
  // so the patrol turns where the World does. What is left is the progress of a patrol waiting
  // on a corner (the pattern repeats corner tiles), which a snapshot cannot show.
  const Scenario s = tile_walkers();
  expect_beats_second_order(s, "rectangle patrol", 0.5, Player::kStill, {110, 75});
  expect_beats_second_order(s, "gate guard", 0.5, Player::kStill, {110, 75});
}

TEST(Extrapolate, T22_T27_TilePatrolNearAWeavingPlayerIsCloserThanSecondOrder) {
  // The weaving player comes within chase range now and then: the break-out chase's path is
  // not in a snapshot (the walker waits), the pattern is.
  expect_beats_second_order(tile_walkers(), "rectangle patrol", 0.9);
}

TEST(Extrapolate, T28_TrackWalkersStepAlongTheTrackCloserThanSecondOrder) {
  expect_beats_second_order(tile_walkers(), "track walkers", 0.9);
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
  const Scenario k = jumpy_kinematics();
  const Extrapolator kx(k, real(1) / 60);
  EXPECT_EQ(kx.method_of(group_named(k, "flies")), ExtrapolationMethod::kFirstOrder);
  EXPECT_EQ(kx.method_of(group_named(k, "anti-trackers")), ExtrapolationMethod::kBehaviour);
  const Scenario t = tile_walkers();
  const Extrapolator tx(t, real(1) / 60);
  EXPECT_EQ(tx.method_of(group_named(t, "track walkers")), ExtrapolationMethod::kTile);
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

// ---- one source: from an exported World state, one extrapolated tick is the World's next tick ----

/// The agents of `checked` groups whose position, velocity or orientation after one extrapolated
/// tick differ in any bit from the World's own next tick, summed over `ticks` ticks; the
/// extrapolator is built from `ex_scenario` (the World's own scenario, or a changed one for the
/// controls). A player weaves through them so targets move.
std::int32_t one_tick_mismatches(const Scenario& s, const Scenario& ex_scenario,
                                 const std::vector<std::int32_t>& checked, std::int32_t ticks,
                                 std::string* first = nullptr, TechniqueCounts* counts = nullptr) {
  World w(s);
  const AgentId p = w.add_player();
  w.place(p, {s.width * 0.5, s.height * 0.5});
  w.step();  // the player joins and is placed (commands take effect at the start of a step)
  Extrapolator ex(ex_scenario, 1.0 / s.tick_rate_hz);
  std::vector<ExtrapolatedAgent> agents;
  std::int32_t mismatches = 0;
  for (std::int32_t t = 0; t < ticks; ++t) {
    w.set_input(p, {t % 120 < 60 ? 0.6 : -0.6, 0.8});
    const WorldState state = w.export_state();
    ex.init(views_of(w), state, agents);
    ex.step(agents);
    w.step();
    EXPECT_EQ(static_cast<std::int32_t>(agents.size()), w.size());
    // By id: the world may have moved its rows into cell order in that step (set_reorder_interval).
    for (std::int32_t j = 0; j < static_cast<std::int32_t>(agents.size()); ++j) {
      const AgentView& got = agents[static_cast<std::size_t>(j)].view;
      const std::int32_t i = w.index_of(got.id);
      EXPECT_GE(i, 0);
      if (i < 0) continue;
      const AgentView truth = w.view(i);
      if (std::find(checked.begin(), checked.end(), truth.group) == checked.end()) continue;
      if (got.position == truth.position && got.velocity == truth.velocity && got.orientation == truth.orientation)
        continue;
      if (first && mismatches < 4)
        *first += s.groups[static_cast<std::size_t>(truth.group)].name + " (agent " + std::to_string(i) + ") at tick " +
                  std::to_string(t) + "; ";
      ++mismatches;
    }
  }
  if (counts) *counts = w.technique_counts();
  return mismatches;
}

/// LaMothe's trackers (T17, T18) around the weaving player, in the middle of a 200 m field.
Scenario trackers() {
  Scenario s = test::open_world("trackers", 200, 200, 32, 1);
  GroupSpec track = test::placed("trackers", AgentKind::kPursuer, Technique::kTrack, {60, 60}, 3);
  track.spawn_max = {140, 140};
  track.max_speed = 3;
  GroupSpec anti = test::placed("anti-trackers", AgentKind::kWanderer, Technique::kAntiTrack, {80, 80}, 3);
  anti.spawn_max = {120, 120};
  anti.max_speed = 1;
  s.groups = {track, anti};
  return s;
}

/// Tile walkers whose next tile follows from their state: the two patrols of tile_walkers() out
/// of chase range, and walkers on a loop track (whose corners are junctions: 8-connected, the
/// diagonal is on the track too) taking their branches by their own stream, from the state.
Scenario certain_tile_walkers() {
  Scenario s = tile_walkers();
  s.groups[0].chase_range = 0;
  s.groups[1].chase_range = 0;
  s.tracks = {{"loop", {{{3, 2, 16, 2}}, {{16, 2, 16, 11}}, {{16, 11, 3, 11}}, {{3, 11, 3, 2}}}}};
  return s;
}

TEST(Extrapolate, OneSource_T17_T18_OneTickFromTheWorldStateIsTheWorldsNextTickBitForBit) {
  const Scenario s = trackers();
  std::string first;
  EXPECT_EQ(one_tick_mismatches(s, s, {0, 1}, 240, &first), 0) << "mismatches: " << first;
  // Control: one stage changed (the trackers' speed in the extrapolator's copy of the scenario).
  Scenario changed = s;
  changed.groups[0].max_speed *= 1.001;
  EXPECT_GT(one_tick_mismatches(s, changed, {0}, 60), 0);
}

TEST(Extrapolate, OneSource_T26_T28_TileWalkersOneTickFromTheWorldStateIsTheWorldsNextTickBitForBit) {
  const Scenario s = certain_tile_walkers();
  std::string first;
  EXPECT_EQ(one_tick_mismatches(s, s, {0, 1, 2}, 400, &first), 0) << "mismatches: " << first;
  // Control: one stage changed (the walkers' tile speed in the extrapolator's copy).
  Scenario changed = s;
  changed.groups[2].tile_speed = 5;
  EXPECT_GT(one_tick_mismatches(s, changed, {2}, 60), 0);
}

/// Craft chasers of the weaving player: T21 line of sight and T23/T24 intercept.
Scenario craft_chasers() {
  Scenario s = test::open_world("craft chasers", 200, 200, 32, 1);
  GroupSpec los = test::placed("los chasers", AgentKind::kPursuer, Technique::kLosChase, {40, 40}, 3);
  los.spawn_max = {160, 160};
  GroupSpec icpt = test::placed("interceptors", AgentKind::kPursuer, Technique::kIntercept, {40, 40}, 3);
  icpt.spawn_max = {160, 160};
  s.groups = {los, icpt};
  return s;
}

/// Vehicle compositions without wander (running sums of wall avoidance and a chase or an escape).
Scenario vehicle_chasers() {
  Scenario s = test::open_world("vehicle chasers", 200, 200, 32, 1);
  GroupSpec pursue = test::placed("pursuers", AgentKind::kPursuer, Technique::kPursue, {40, 40}, 3);
  pursue.spawn_max = {160, 160};
  GroupSpec evade = test::placed("evaders", AgentKind::kWanderer, Technique::kEvade, {40, 40}, 3);
  evade.spawn_max = {160, 160};
  s.groups = {pursue, evade};
  return s;
}

TEST(Extrapolate, OneSource_T21_T24_CraftChasersOneTickFromTheWorldStateIsTheWorldsNextTickBitForBit) {
  const Scenario s = craft_chasers();
  std::string first;
  EXPECT_EQ(one_tick_mismatches(s, s, {0, 1}, 240, &first), 0) << "mismatches: " << first;
  // Control: one stage changed (the interceptors' prediction cap in the extrapolator's copy).
  Scenario changed = s;
  changed.groups[1].intercept_max_prediction *= 0.5;
  EXPECT_GT(one_tick_mismatches(s, changed, {1}, 120), 0);
}

TEST(Extrapolate, OneSource_T67_T68_VehicleCompositionsOneTickFromTheWorldStateIsTheWorldsNextTickBitForBit) {
  const Scenario s = vehicle_chasers();
  std::string first;
  EXPECT_EQ(one_tick_mismatches(s, s, {0, 1}, 240, &first), 0) << "mismatches: " << first;
  // Control: one stage changed (the pursuers' top speed, which pursue steers toward, in the
  // extrapolator's copy).
  Scenario changed = s;
  changed.groups[0].max_speed *= 1.01;
  EXPECT_GT(one_tick_mismatches(s, changed, {0}, 120), 0);
}

/// Every behaviour whose rule the World and the Extrapolator share (stage_forces.hpp), in
/// composed vehicle groups among obstacles: a leader arriving at a goal point (T66) with wall
/// and obstacle avoidance (T75, T73), an escort in offset pursuit of it (T69), guards
/// interposing between the player and it (T70), hiders (T74, evade T68 as the fall-back) that
/// also flee the player when close (T65) under the priority combiner (T78), seekers (T64) of
/// the player blended with fleeing the hiders (T65 with a range; T77 blend).
Scenario every_shared_force() {
  Scenario s = test::open_world("shared forces", 200, 200, 32, 1);
  s.obstacles = {{{70, 70}, 4}, {{130, 80}, 5}, {{100, 130}, 3}, {{60, 140}, 4}};
  auto composed = [](const char* name, Vec2 at, Combiner combiner, std::vector<BehaviorSpec> behaviors) {
    GroupSpec g = test::composed(name, Model::kVehicle, std::move(behaviors), at, combiner, 3);
    g.spawn_max = at + Vec2{30, 30};
    return g;
  };
  auto spec = [](BehaviorType t) {
    BehaviorSpec b;
    b.type = t;
    return b;
  };
  BehaviorSpec home = spec(BehaviorType::kArrive);
  home.goal = {150, 150};
  BehaviorSpec escort = spec(BehaviorType::kOffsetPursuit);
  escort.leader_group = 0;
  escort.offset = {-3, 2};
  BehaviorSpec guard = spec(BehaviorType::kInterpose);
  guard.leader_group = 0;
  BehaviorSpec panic = spec(BehaviorType::kFleePlayers);
  panic.range = 10;
  BehaviorSpec away = spec(BehaviorType::kFlee);
  away.target_group = 3;
  away.range = 6;
  away.weight = 0.5;
  s.groups = {
      composed("leader", {40, 40}, Combiner::kRunningSum,
               {spec(BehaviorType::kWallAvoid), spec(BehaviorType::kObstacleAvoid), home}),
      composed("escort", {50, 40}, Combiner::kRunningSum, {spec(BehaviorType::kObstacleAvoid), escort}),
      composed("guards", {120, 40}, Combiner::kRunningSum, {spec(BehaviorType::kWallAvoid), guard}),
      composed("hiders", {90, 90}, Combiner::kPriority, {panic, spec(BehaviorType::kHide)}),
      composed("seekers", {130, 130}, Combiner::kBlend, {spec(BehaviorType::kSeek), away}),
  };
  return s;
}

TEST(Extrapolate, OneSource_T64_T78_EveryForceRuleOneTickFromTheWorldStateIsTheWorldsNextTickBitForBit) {
  const Scenario s = every_shared_force();
  ASSERT_EQ(validate(s), "");
  std::string first;
  TechniqueCounts ran{};
  EXPECT_EQ(one_tick_mismatches(s, s, {0, 1, 2, 3, 4}, 300, &first, &ran), 0) << "mismatches: " << first;
  // The scene exercised what it is for: every group is extrapolated by its behaviours, and the
  // World ran each rule (its counters credit a technique where its rule produced the force).
  const Extrapolator ex(s, 1.0 / s.tick_rate_hz);
  for (std::int32_t g = 0; g < 5; ++g) EXPECT_EQ(ex.method_of(g), ExtrapolationMethod::kBehaviour) << g;
  for (const int id : {64, 65, 66, 69, 70, 73, 74, 75, 77, 78})
    EXPECT_GT(ran[static_cast<std::size_t>(id - 1)], 0) << "T" << id << " never ran";
  // Controls, one rule changed each in the extrapolator's copy: the escort's slot, the hiders'
  // panic range.
  Scenario slot = s;
  slot.groups[1].compose.behaviors[1].offset = {-3, 2.5};
  EXPECT_GT(one_tick_mismatches(s, slot, {1}, 60), 0);
  Scenario panic = s;
  panic.groups[3].compose.behaviors[0].range = 200;
  EXPECT_GT(one_tick_mismatches(s, panic, {3}, 60), 0);
}

}  // namespace
}  // namespace flockstep::sim
