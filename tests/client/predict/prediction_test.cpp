// Client-side prediction and reconciliation of the player's craft, and the remote-agent
// interpolation/extrapolation buffer. A local sim::World stands in for the server; a small
// loopback "room" reproduces what the server does with inputs (one queued frame per tick,
// in sequence order, hold the last one when none is queued, resent frames skipped) and a delay
// line stands in for the network. Runs natively and as wasm under node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <deque>
#include <vector>

#include "flockstep/math/angle.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "predict/player_prediction.hpp"
#include "predict/remote_agents.hpp"

namespace flockstep::client {
namespace {

using sim::AgentId;
using sim::PlayerInput;
using sim::Scenario;
using sim::World;

// A walled arena with obstacles and a flock that flees the player (no pursuers: no captures).
Scenario arena(bool wrap) {
  Scenario s;
  s.name = "prediction-test";
  s.width = 60;
  s.height = 40;
  s.wrap = wrap;
  s.seed = 7;
  s.max_agents = 64;
  s.max_players = 4;
  s.grid_cell = 8;
  s.obstacles = {{{20, 20}, 5}, {{42, 12}, 4}, {{44, 30}, 4}};
  sim::GroupSpec flock;
  flock.name = "flock";
  flock.kind = sim::AgentKind::kFlock;
  flock.technique = sim::Technique::kFlock;
  flock.count = 12;
  s.groups = {flock};
  return s;
}

// A player that does a bit of everything: full-throttle turns both ways, coasting, analogue turns.
PlayerInput scripted_input(std::uint32_t seq) {
  const std::uint32_t phase = (seq / 45) % 6;
  switch (phase) {
    case 0: return {0, 1};
    case 1: return {1, 1};
    case 2: return {-0.6, 0.8};
    case 3: return {0, 0};
    case 4: return {-1, 1};
    default: return {0.35, 1};
  }
}

behavior::CraftState craft_of(const World& w, AgentId id) {
  const sim::AgentView v = w.view(w.index_of(id));
  return {v.position, v.velocity, v.orientation, v.angular_velocity};
}

struct Frame {
  std::uint32_t sequence;
  PlayerInput input;
};

// What the server's Room does with one player's inputs.
struct LoopbackRoom {
  World world;
  AgentId me;
  std::deque<Frame> pending;
  std::uint32_t last_received = 0;
  std::uint32_t last_applied = 0;
  std::uint64_t applied_tick = 0;  // world tick right after the step that applied last_applied
  std::int32_t starved_ticks = 0;
  std::uint32_t slips = 0;  // PlayerSnapshot.input_slips: held ticks + dropped frames

  explicit LoopbackRoom(const Scenario& s) : world(s) { me = world.add_player(); }
  void receive(const std::vector<Frame>& frames) {
    for (const Frame& f : frames) {
      if (f.sequence <= last_received) continue;
      last_received = f.sequence;
      pending.push_back(f);
    }
    while (pending.size() > 8) {
      pending.pop_front();
      ++slips;
    }
  }
  void tick() {
    if (!pending.empty()) {
      world.set_input(me, pending.front().input);
      last_applied = pending.front().sequence;
      applied_tick = world.tick() + 1;
      pending.pop_front();
    } else if (last_applied > 0) {
      ++starved_ticks;
      ++slips;
    }
    world.step();
  }
  // PlayerSnapshot.input_held_ticks, as Room::input_progress computes it.
  std::uint32_t held_ticks() const {
    return last_applied > 0 ? static_cast<std::uint32_t>(world.tick() - applied_tick) : 0;
  }
};

struct Snap {
  behavior::CraftState state;
  ServerProgress progress;
};

struct LinkParams {
  std::int32_t up_ticks = 4;    // client -> server latency
  std::int32_t down_ticks = 4;  // server -> client latency
  double loss = 0;              // per message, both directions
  std::int32_t lead_ticks = 2;  // inputs the client produces ahead at the start
  std::int32_t stall_at = -1;   // client tick at which the client stops producing inputs...
  std::int32_t stall_len = 0;   // ...for this many ticks, then catches up at once
  std::int32_t snapshot_every = 3;
  bool report_slips = true;  // send input_held_ticks / input_slips, as the server does
};

struct RunStats {
  std::int32_t compared = 0;
  std::int32_t corrections = 0;
  std::int32_t corrections_late = 0;  // in the second half of the run
  std::int32_t held = 0;              // states after ticks in which the server held a late input
  real max_error_m = 0;
  real max_jump_m = 0;  // largest move of the present prediction by a replay
  behavior::CraftState final_predicted;
  behavior::CraftState start;
};

RunStats run_link(const Scenario& sc, const LinkParams& link, std::int32_t ticks) {
  LoopbackRoom room(sc);
  PlayerPredictor pred;
  pred.configure(&room.world.scenario(), room.world.dt());
  math::Rng rng = math::Rng::seeded(99, 5);
  std::deque<std::pair<std::int32_t, std::vector<Frame>>> up;
  std::deque<std::pair<std::int32_t, Snap>> down;
  RunStats st;
  std::uint32_t seq_input = 1;
  std::int32_t owed = link.lead_ticks;
  bool have_start = false;
  for (std::int32_t t = 0; t < ticks; ++t) {
    // Client tick: produce this tick's input (plus any owed after a stall or for the lead).
    const bool stalled = t >= link.stall_at && t < link.stall_at + link.stall_len;
    std::int32_t produce = stalled ? 0 : 1 + owed;
    if (stalled) ++owed;
    else owed = 0;
    bool produced = false;
    for (std::int32_t k = 0; k < produce; ++k) {
      pred.advance(scripted_input(seq_input++));
      produced = true;
    }
    if (produced) {
      InputRecord buf[64];
      const std::int32_t n = pred.unacked(buf);
      std::vector<Frame> frames;
      for (std::int32_t k = 0; k < n; ++k) frames.push_back({buf[k].sequence, buf[k].input});
      if (!(link.loss > 0 && rng.chance(link.loss))) up.push_back({t + link.up_ticks, frames});
    }
    // Server tick.
    while (!up.empty() && up.front().first <= t) {
      room.receive(up.front().second);
      up.pop_front();
    }
    room.tick();
    if (room.world.tick() % static_cast<std::uint64_t>(link.snapshot_every) == 0) {
      const ServerProgress progress = link.report_slips
                                          ? ServerProgress{room.last_applied, room.held_ticks(), room.slips, true}
                                          : ServerProgress{room.last_applied, 0, 0, true};
      const Snap s{craft_of(room.world, room.me), progress};
      if (!(link.loss > 0 && rng.chance(link.loss))) down.push_back({t + link.down_ticks, s});
    }
    // Client receives.
    while (!down.empty() && down.front().first <= t) {
      const Snap s = down.front().second;
      down.pop_front();
      if (!have_start) {
        st.start = s.state;
        have_start = true;
      }
      const ReconcileResult r = pred.reconcile(s.state, s.progress);
      if (r.compared) ++st.compared;
      if (r.held) ++st.held;
      if (!r.first && r.jump_m > st.max_jump_m) st.max_jump_m = r.jump_m;
      if (r.corrected) {
        ++st.corrections;
        if (t > ticks / 2) ++st.corrections_late;
      }
      if (r.error_m > st.max_error_m) st.max_error_m = r.error_m;
    }
  }
  st.final_predicted = pred.state();
  EXPECT_EQ(static_cast<std::int64_t>(pred.corrections()), st.corrections);
  return st;
}

TEST(PlayerPrediction, ConstantLatencyNoLossNeverCorrects) {
  LinkParams link;
  const RunStats st = run_link(arena(false), link, 900);
  EXPECT_GT(st.compared, 250);
  EXPECT_EQ(st.corrections, 0);
  EXPECT_EQ(st.max_error_m, 0.0);
  // The craft really flew: it moved and turned.
  EXPECT_GT(math::length(st.final_predicted.position - st.start.position), 5.0);
}

TEST(PlayerPrediction, ConstantLatencyInWrappedWorldNeverCorrects) {
  LinkParams link;
  link.up_ticks = 9;
  link.down_ticks = 2;
  const RunStats st = run_link(arena(true), link, 900);
  EXPECT_GT(st.compared, 250);
  EXPECT_EQ(st.corrections, 0);
}

TEST(PlayerPrediction, ResendingUnackedInputsMakesLossCostNothing) {
  LinkParams link;
  link.loss = 0.15;
  link.lead_ticks = 4;  // enough queued at the server to bridge a few lost messages
  const RunStats st = run_link(arena(false), link, 1200);
  EXPECT_GT(st.compared, 200);
  EXPECT_EQ(st.corrections, 0);
}

// A client that stalls for 12 ticks with one input of lead: the server runs out of inputs and
// holds the last one.
LinkParams starving_link() {
  LinkParams link;
  link.lead_ticks = 1;
  link.stall_at = 200;
  link.stall_len = 12;
  return link;
}

TEST(PlayerPrediction, StarvedServerIsComparedThroughTheHeldTicksAndNeverMispredicts) {
  const RunStats st = run_link(arena(false), starving_link(), 900);
  // The server reported held ticks; the prediction stepped through them and matched exactly.
  EXPECT_GE(st.held, 1);
  EXPECT_GT(st.compared, 200);
  EXPECT_EQ(st.corrections, 0);
  EXPECT_EQ(st.max_error_m, 0.0);
  // The present prediction was rebased (the held ticks shifted the server's timeline): visible
  // as a jump, which is what a starved server costs.
  EXPECT_GT(st.max_jump_m, 0.0);
}

TEST(PlayerPrediction, IgnoringHeldTicksWouldReadAStarvedServerAsAMisprediction) {
  // The same starved link with the server's input_held_ticks / input_slips dropped on the floor:
  // what the viewer measured before they existed (e2e prediction errors of 3-15 mm on a busy
  // host). It shows the reports are what makes the comparison exact, not a lucky schedule.
  LinkParams link = starving_link();
  link.report_slips = false;
  const RunStats st = run_link(arena(false), link, 900);
  EXPECT_GE(st.corrections, 1);
  EXPECT_GT(st.max_error_m, 0.0);
  EXPECT_EQ(st.corrections_late, 0) << "exact again once the inputs flow";
}

TEST(PlayerPrediction, RingKeepsNewestInputsWhenNothingIsAcknowledged) {
  const Scenario sc = arena(false);
  PlayerPredictor p;
  p.configure(&sc, real(1) / 60);
  for (int k = 0; k < 300; ++k) p.advance({0, 1});
  EXPECT_EQ(p.unacked_count(), PlayerPredictor::kCapacity);
  InputRecord out[64];
  ASSERT_EQ(p.unacked(out), 64);
  EXPECT_EQ(out[63].sequence, 300u);
  EXPECT_EQ(out[0].sequence, 237u);
  // The first state replays all 256 held inputs.
  const ReconcileResult r = p.reconcile({{30, 20}, {}, 0, 0}, 44);
  EXPECT_TRUE(r.first);
  EXPECT_EQ(r.replayed, 256);
  EXPECT_EQ(p.unacked_count(), 256);
  const ReconcileResult r2 = p.reconcile({{30, 20}, {}, 0, 0}, 100);
  EXPECT_FALSE(r2.first);
  EXPECT_EQ(p.unacked_count(), 200);
  EXPECT_EQ(p.last_acked(), 100u);
}

// ---- remote agents ----

sim::AgentView agent(std::uint32_t id, Vec2 p, Vec2 v = {}, real ori = 0) {
  sim::AgentView a;
  a.id = AgentId{id};
  a.kind = sim::AgentKind::kFlock;
  a.group = 0;
  a.position = p;
  a.velocity = v;
  a.orientation = ori;
  return a;
}

TEST(RemoteAgents, InterpolatesBetweenSnapshotsAndClampsBeyondTheNewest) {
  const Scenario sc = arena(false);
  RemoteAgents ra;
  ra.configure(&sc, real(1) / 60);
  ra.push(30, {agent(1, {10, 10}, {}, 3.0), agent(2, {5, 5})});
  ra.push(33, {agent(2, {8, 5}), agent(1, {13, 16}, {}, -3.0), agent(3, {1, 1})});
  std::vector<DrawAgent> out;
  EXPECT_EQ(ra.sample_interpolated(31.5, out), 0.0);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_DOUBLE_EQ(out[0].position.x, 6.5);
  EXPECT_DOUBLE_EQ(out[1].position.x, 11.5);
  EXPECT_DOUBLE_EQ(out[1].position.y, 13.0);
  // 3.0 -> -3.0 goes the short way through pi, not through 0.
  EXPECT_GT(std::abs(out[1].orientation), 3.0);
  EXPECT_EQ(out[2].id, 3u);  // new agent: drawn where it is
  EXPECT_DOUBLE_EQ(ra.sample_interpolated(35, out), 2.0);
  EXPECT_DOUBLE_EQ(out[1].position.x, 13.0);
}

TEST(RemoteAgents, InterpolatesAcrossTheTorusSeam) {
  const Scenario sc = arena(true);
  RemoteAgents ra;
  ra.configure(&sc, real(1) / 60);
  ra.push(3, {agent(1, {59, 10})});
  ra.push(6, {agent(1, {1, 10})});
  std::vector<DrawAgent> out;
  ra.sample_interpolated(4.5, out);
  ASSERT_EQ(out.size(), 1u);
  // Midway across the seam is x = 0 (or 60), never the middle of the world.
  EXPECT_TRUE(out[0].position.x < 0.5 || out[0].position.x > 59.5) << out[0].position.x;
}

TEST(RemoteAgents, BehaviourAwareExtrapolationBeatsDeadReckoningForPursuers) {
  const Scenario sc = sim::canonical::pursuit();
  World w(sc);
  const AgentId me = w.add_player();
  RemoteAgents ra;
  ra.configure(&w.scenario(), w.dt());
  real sum_b = 0, sum_d = 0;
  for (std::uint64_t t = 0; t < 600; ++t) {
    w.set_input(me, sim::canonical::evasive_input(t));
    w.step();
    if (w.tick() % 6 != 0) continue;  // 10 Hz snapshots: errors grow with the interval
    std::vector<sim::AgentView> views;
    for (std::int32_t i = 0; i < w.size(); ++i) views.push_back(w.view(i));
    ra.push(w.tick(), std::move(views));
    const ExtrapolationError& e = ra.extrapolation_error();
    if (e.samples > 0) {
      sum_b += e.behaviour_mean_m;
      sum_d += e.dead_reckoning_mean_m;
    }
  }
  EXPECT_GT(sum_d, 0.0);
  std::printf("behaviour %f dead-reckoning %f\n", sum_b, sum_d);
  EXPECT_LT(sum_b, sum_d) << "behaviour-aware " << sum_b << " vs dead reckoning " << sum_d;
}

TEST(RemoteAgents, ExtrapolationRunsAheadOfTheNewestSnapshot) {
  const Scenario sc = arena(false);
  RemoteAgents ra;
  ra.configure(&sc, real(1) / 60);
  ra.push(60, {agent(1, {10, 10}, {6, 0})});
  std::vector<DrawAgent> out;
  ra.sample_extrapolated(66, out);  // 0.1 s ahead at 6 m/s
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].position.x, 10.6, 1e-9);
  ra.sample_extrapolated(1000, out, 30);  // capped at 30 ticks = 0.5 s
  EXPECT_NEAR(out[0].position.x, 13.0, 1e-9);
}

TEST(RemoteAgents, T21_T23_T67_ExtrapolatedChasersMatchTheWorldWhereDeadReckoningDoesNot) {
  // The player stands still, so every input of the chasers' behaviour code is in the snapshot:
  // drawn 250 ms past a held-back snapshot, each chaser is where the World puts it, to 1 mm.
  // The control: the dead reckoning RemoteAgents measures on the same snapshots misses that
  // (snapshots every 250 ms here, so its measurement spans the same 250 ms).
  const Scenario sc = sim::canonical::pursuit();
  World w(sc);
  const AgentId me = w.add_player();
  w.place(me, {80, 80});
  RemoteAgents ra;
  ra.configure(&w.scenario(), w.dt());
  constexpr std::uint64_t kHold = 15;  // 250 ms at 60 Hz
  constexpr double kTolM = 0.001;
  std::deque<std::pair<std::uint64_t, std::vector<sim::AgentView>>> in_flight;
  std::vector<DrawAgent> out;
  std::vector<double> errors;
  double dead_reckoning_sum = 0;
  std::int32_t dead_reckoning_n = 0;
  for (std::uint64_t t = 0; t < 1800; ++t) {
    w.step();
    if (w.tick() % kHold == 0) {
      std::vector<sim::AgentView> views;
      for (std::int32_t i = 0; i < w.size(); ++i) views.push_back(w.view(i));
      in_flight.emplace_back(w.tick(), std::move(views));
    }
    if (in_flight.empty() || in_flight.front().first + kHold > w.tick()) continue;
    ra.push(in_flight.front().first, std::move(in_flight.front().second));
    in_flight.pop_front();
    if (ra.extrapolation_error().samples > 0) {
      dead_reckoning_sum += ra.extrapolation_error().dead_reckoning_mean_m;
      ++dead_reckoning_n;
    }
    if (w.tick() < 60) continue;
    ra.sample_extrapolated(static_cast<double>(w.tick()), out);
    for (const DrawAgent& d : out) {
      const std::int32_t i = w.index_of(AgentId{d.id});
      if (i < 0 || d.group < 0) continue;
      const double e = math::length(w.view(i).position - d.position);
      if (e < 12) errors.push_back(e);  // a capture respawns the player: no snapshot shows it coming
    }
  }
  ASSERT_GT(errors.size(), 200u);
  std::sort(errors.begin(), errors.end());
  const double p95 = errors[errors.size() * 95 / 100];
  EXPECT_LT(p95, kTolM) << "extrapolated p95 " << p95 << " m";
  ASSERT_GT(dead_reckoning_n, 0);
  EXPECT_GT(dead_reckoning_sum / dead_reckoning_n, kTolM) << "the control: dead reckoning must miss the tolerance";
}

}  // namespace
}  // namespace flockstep::client
