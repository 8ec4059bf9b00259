// Save and restore a World bit for bit (codec/world_state_codec.hpp, sim/world_state.hpp): for
// every shipped scenario, a world restored at tick N steps to the same state_hash, views, events
// and counters as the uninterrupted one; broken bytes are refused. Runs natively and under wasm
// (node, NODERAWFS: the scenario files are read from the source tree).
#include "codec/world_state_codec.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "codec/scenario_json.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "flockstep/sim/world_state.hpp"

#ifndef FLOCKSTEP_SOURCE_DIR
#error "FLOCKSTEP_SOURCE_DIR must name the repository root (tests/proto/CMakeLists.txt defines it)"
#endif

namespace flockstep::codec {
namespace {

struct Named {
  std::string name;
  sim::Scenario scenario;
};

/// Every scenario in scenarios/ (sorted by file name), plus arena with vehicles steered every
/// third tick (their steering output is then state between ticks).
std::vector<Named> shipped_scenarios() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(FLOCKSTEP_SOURCE_DIR) + "/scenarios"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Named> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    std::optional<sim::Scenario> s = try_parse_scenario(text.str(), error);
    EXPECT_TRUE(s.has_value()) << f << ": " << error;
    if (s) out.push_back({f.stem().string(), *s});
  }
  for (const Named& n : std::vector<Named>(out))
    if (n.name == "arena") {
      Named lod = n;
      lod.name = "arena_steering_interval_3";
      lod.scenario.steering_interval_ticks = 3;
      out.push_back(lod);
    }
  return out;
}

/// Drives a world the same way whichever copy it is: players turning with varying inputs.
void drive(sim::World& w, std::uint64_t k) {
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const sim::AgentView v = w.view(i);
    if (v.kind != sim::AgentKind::kPlayer) continue;
    const double turn = static_cast<double>((k * 7 + v.id.value) % 21) / 10.0 - 1.0;
    w.set_input(v.id, {turn, (k / 10) % 3 == 0 ? 0.4 : 1.0});
  }
}

/// Live tuning of group `g`: `dcount` more agents (fewer when negative; none when max_agents has
/// no room or the group would empty) and max_speed scaled.
void retune(sim::World& w, std::int32_t g, std::int32_t dcount, double speed_factor) {
  sim::GroupSpec spec = w.scenario().groups[static_cast<std::size_t>(g)];
  spec.max_speed *= speed_factor;
  const sim::GroupSpec same_count = spec;
  spec.count = std::max(1, spec.count + dcount);
  if (w.set_group(g, spec).empty()) return;
  EXPECT_EQ(w.set_group(g, same_count), "");
}

/// A world that has lived: players moving, removals (free slots, new generations), a live
/// tuning applied and one still pending, commands and a player spawn queued for the next step.
std::unique_ptr<sim::World> lived_world(const sim::Scenario& scenario, std::int32_t ticks) {
  auto w = std::make_unique<sim::World>(scenario);
  const sim::AgentId p0 = w->add_player();
  const sim::AgentId p1 = w->add_player();
  EXPECT_TRUE(p0.valid() && p1.valid());
  for (std::int32_t k = 0; k < ticks; ++k) {
    drive(*w, static_cast<std::uint64_t>(k));
    if (k == ticks / 4 && w->size() > 3) {
      w->remove(w->id_at(1));  // a non-player (players were added last)
      w->remove(p1);
      w->add_player();  // reuses a slot with the next generation at the next step
    }
    if (k == ticks / 2 && !w->scenario().groups.empty()) retune(*w, 0, +2, 0.9);
    w->step();
  }
  // Queued at save time: a tuning, commands and a spawn event.
  if (!w->scenario().groups.empty()) retune(*w, static_cast<std::int32_t>(w->scenario().groups.size()) / 2, -1, 1.05);
  w->set_input(p0, {0.5, 1.0});
  w->place(p0, {w->scenario().width / 3, w->scenario().height / 3});
  w->add_player();
  return w;
}

/// Steps both worlds `ticks` times, driving them identically; the number of ticks after which
/// they still agreed in everything observable (== ticks when they never diverged).
std::int32_t agreeing_ticks(sim::World& a, sim::World& b, std::int32_t ticks) {
  for (std::int32_t k = 0; k < ticks; ++k) {
    const auto kk = static_cast<std::uint64_t>(1000 + k);
    drive(a, kk);
    drive(b, kk);
    if (k == ticks / 2) {
      const sim::AgentId gone = a.id_at(a.size() / 2);
      a.remove(gone);
      b.remove(gone);
    }
    if (k == ticks / 2 + 5) {  // new ids: the free-slot order and the generations decide them
      if (!(a.add_player() == b.add_player())) return k;
      if (!a.scenario().groups.empty()) {
        retune(a, 0, +1, 1.0);
        retune(b, 0, +1, 1.0);
      }
    }
    a.step();
    b.step();
    if (a.state_hash() != b.state_hash() || a.size() != b.size()) return k;
    // Agent by agent, by id: a saved world's rows are in id order, a live world's wherever its
    // last reorder put them (World::set_reorder_interval); neither is state.
    for (std::int32_t i = 0; i < a.size(); ++i) {
      const sim::AgentView va = a.view(i);
      const std::int32_t j = b.index_of(va.id);
      if (j < 0) return k;
      const sim::AgentView vb = b.view(j);
      if (!(va.id == vb.id) || !(va.target == vb.target) || !(va.aim == vb.aim) || va.state != vb.state ||
          va.orientation != vb.orientation)
        return k;
    }
    const auto ea = a.events(), eb = b.events();
    if (ea.size() != eb.size()) return k;
    for (std::size_t e = 0; e < ea.size(); ++e)
      if (ea[e].type != eb[e].type || !(ea[e].subject == eb[e].subject) || !(ea[e].other == eb[e].other) ||
          ea[e].tick != eb[e].tick || ea[e].survived_ticks != eb[e].survived_ticks)
        return k;
    if (a.technique_counts() != b.technique_counts()) return k;
    if (a.pushout_stats().corrections != b.pushout_stats().corrections ||
        a.pushout_stats().max_depth != b.pushout_stats().max_depth)
      return k;
  }
  return ticks;
}

constexpr std::int32_t kBefore = 60;  // ticks lived before the save
constexpr std::int32_t kAfter = 60;   // ticks compared after it

TEST(WorldState, EveryShippedScenarioRestoresBitForBit) {
  const std::vector<Named> all = shipped_scenarios();
  ASSERT_GE(all.size(), 16u);
  for (const Named& n : all) {
    SCOPED_TRACE(n.name);
    auto original = lived_world(n.scenario, kBefore);
    const std::string bytes = encode_world_state(*original);
    DecodedWorld d = decode_world_state(bytes);
    ASSERT_TRUE(d.world) << d.error;
    EXPECT_TRUE(d.error.empty());
    EXPECT_EQ(d.world->tick(), original->tick());
    EXPECT_EQ(d.world->state_hash(), original->state_hash());
    // The scenario as running (live tuning included) came through WorldSpec unchanged, and the
    // restored world saves to the same bytes (nothing lost, nothing added).
    EXPECT_EQ(scenario_to_json(d.world->scenario()), scenario_to_json(original->scenario()));
    EXPECT_EQ(encode_world_state(*d.world), bytes);
    EXPECT_EQ(agreeing_ticks(*original, *d.world, kAfter), kAfter);
  }
}

TEST(WorldState, CanonicalWorldsRestoreBitForBit) {
  const std::pair<const char*, sim::Scenario> worlds[] = {{"flock", sim::canonical::flock(300)},
                                                          {"pursuit", sim::canonical::pursuit()},
                                                          {"patrols", sim::canonical::patrols()},
                                                          {"mixed", sim::canonical::mixed()}};
  for (const auto& [name, scenario] : worlds) {
    SCOPED_TRACE(name);
    auto original = lived_world(scenario, kBefore);
    DecodedWorld d = decode_world_state(encode_world_state(*original));
    ASSERT_TRUE(d.world) << d.error;
    EXPECT_EQ(agreeing_ticks(*original, *d.world, kAfter), kAfter);
  }
}

/// Control: the round trip above can fail. Restoring with one store reset to its default (as if
/// the state left it out) makes some shipped scenario diverge, for each of these stores.
TEST(WorldState, ControlLeavingOutAStoreDiverges) {
  using Drop = void (*)(sim::WorldState&);
  const std::pair<const char*, Drop> stores[] = {
      {"rng", [](sim::WorldState& s) { std::fill(s.rng.begin(), s.rng.end(), math::Rng{}); }},
      {"world_rng", [](sim::WorldState& s) { s.world_rng = {}; }},
      {"free_slots order", [](sim::WorldState& s) { std::reverse(s.free_slots.begin(), s.free_slots.end()); }},
      {"force", [](sim::WorldState& s) { std::fill(s.force.begin(), s.force.end(), math::Vec2{}); }},
      {"tile", [](sim::WorldState& s) { std::fill(s.tile.begin(), s.tile.end(), sim::WorldState::Tile{}); }},
      {"pattern",
       [](sim::WorldState& s) { std::fill(s.pattern.begin(), s.pattern.end(), behavior::PatternTracking{}); }},
      {"kpattern",
       [](sim::WorldState& s) { std::fill(s.kpattern.begin(), s.kpattern.end(), behavior::PatternState{}); }},
      {"commands", [](sim::WorldState& s) { s.commands.clear(); }},
      {"pending_groups", [](sim::WorldState& s) { s.pending_groups.clear(); }},
      {"events_pending", [](sim::WorldState& s) { s.events_pending.clear(); }},
      {"technique_counts", [](sim::WorldState& s) { s.technique_counts = {}; }},
  };
  const std::vector<Named> all = shipped_scenarios();
  for (const auto& [store, drop] : stores) {
    std::int32_t diverged = 0;
    for (const Named& n : all) {
      auto original = lived_world(n.scenario, kBefore);
      sim::WorldState s = original->export_state();
      drop(s);
      std::string error;
      auto restored = sim::World::from_state(std::move(s), error);
      ASSERT_TRUE(restored) << store << " " << n.name << ": " << error;
      if (agreeing_ticks(*original, *restored, kAfter) < kAfter && ++diverged > 0) break;  // one is enough
    }
    EXPECT_GT(diverged, 0) << "leaving out " << store << " changed nothing in any shipped scenario";
  }
}

/// The cross-platform check: tests/proto/codec/data/world_state_pursuit.bin was written by the
/// native build (FLOCKSTEP_UPDATE_WORLD_STATE_GOLDEN=1 rewrites it, and the fuzz seeds in
/// tests/fuzz/corpus/world_state/). Every build, wasm included, must encode the same world to
/// exactly these bytes, and restore them to a world that steps as its own.
TEST(WorldState, GoldenStateFileIsTheSameOnEveryPlatform) {
  const std::string dir = std::string(FLOCKSTEP_SOURCE_DIR) + "/tests/proto/codec/data";
  const std::string path = dir + "/world_state_pursuit.bin";
  auto world = lived_world(sim::canonical::pursuit(), 90);
  const std::string bytes = encode_world_state(*world);
  if (const char* update = std::getenv("FLOCKSTEP_UPDATE_WORLD_STATE_GOLDEN"); update && std::string(update) == "1") {
    std::filesystem::create_directories(dir);
    std::ofstream(path, std::ios::binary) << bytes;
    // Fuzz seeds: real saved worlds of a few small shipped scenarios.
    const std::string seeds = std::string(FLOCKSTEP_SOURCE_DIR) + "/tests/fuzz/corpus/world_state";
    std::filesystem::create_directories(seeds);
    std::ofstream(seeds + "/pursuit.bin", std::ios::binary) << bytes;
    for (const Named& n : shipped_scenarios())
      if (n.scenario.max_agents <= 64)
        std::ofstream(seeds + "/" + n.name + ".bin", std::ios::binary)
            << encode_world_state(*lived_world(n.scenario, 20));
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(golden.str().size(), bytes.size());
  EXPECT_TRUE(golden.str() == bytes) << "this build encodes the canonical world differently from the golden file";
  DecodedWorld d = decode_world_state(golden.str());
  ASSERT_TRUE(d.world) << d.error;
  EXPECT_EQ(d.world->state_hash(), world->state_hash());
  EXPECT_EQ(agreeing_ticks(*world, *d.world, kAfter), kAfter);
}

TEST(WorldState, EveryPrefixIsRefused) {
  auto w = lived_world(sim::canonical::pursuit(), 30);
  const std::string bytes = encode_world_state(*w);
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    const DecodedWorld d = decode_world_state(std::string_view(bytes).substr(0, len));
    ASSERT_FALSE(d.world) << "prefix of " << len << " of " << bytes.size() << " bytes accepted";
    ASSERT_FALSE(d.error.empty());
  }
}

TEST(WorldState, ByteFlipsAreRefusedOrRestoreTheStoredHash) {
  auto w = lived_world(sim::canonical::pursuit(), 30);
  const std::string bytes = encode_world_state(*w);
  std::int32_t refused = 0, accepted = 0;
  // Every byte flipped in a few bit patterns (a stride keeps the wasm run short on big states).
  const std::size_t stride = std::max<std::size_t>(1, bytes.size() / 1500);
  for (std::size_t at = 0; at < bytes.size(); at += stride) {
    for (const unsigned mask : {0x01u, 0x80u, 0xFFu}) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(static_cast<unsigned char>(bad[at]) ^ mask);
      const DecodedWorld d = decode_world_state(bad);
      if (d.world) {
        ++accepted;
        EXPECT_TRUE(d.error.empty());
        EXPECT_EQ(d.world->state_hash(), w->state_hash()) << "flip at " << at;
      } else {
        ++refused;
        EXPECT_FALSE(d.error.empty());
      }
    }
  }
  EXPECT_GT(refused, 0);
  std::printf("byte flips: %d refused, %d accepted with the stored hash\n", refused, accepted);
}

TEST(WorldState, OtherVersionAndInconsistentStateAreRefusedWithAMessage) {
  auto w = lived_world(sim::canonical::patrols(), 20);
  // Another format version: refused before anything else is read.
  {
    std::string bytes = encode_world_state(*w);
    ASSERT_EQ(bytes[0], '\x08');  // field 1 (format_version), varint
    bytes[1] = 1;                 // the layout before agents were saved in id order
    const DecodedWorld d = decode_world_state(bytes);
    EXPECT_FALSE(d.world);
    EXPECT_NE(d.error.find("format version 1"), std::string::npos) << d.error;
  }
  // Consistency checks of from_state, each naming the problem.
  const auto refused = [&](void (*edit)(sim::WorldState&), const char* expect) {
    sim::WorldState s = w->export_state();
    edit(s);
    std::string error;
    EXPECT_FALSE(sim::World::from_state(std::move(s), error)) << expect;
    EXPECT_NE(error.find(expect), std::string::npos) << error;
  };
  refused(
      [](sim::WorldState& s) {
        const std::uint32_t gen = s.id[0].generation() % 0xFFFu + 1u;  // another valid generation
        s.id[0].value = gen << sim::AgentId::kSlotBits | s.id[0].slot();
      },
      "generation");
  refused([](sim::WorldState& s) { s.group[0] = 99; }, "group");
  refused([](sim::WorldState& s) { s.free_slots.pop_back(); }, "free_slots");
  refused([](sim::WorldState& s) { s.position.pop_back(); }, "agent columns");
  refused([](sim::WorldState& s) { s.kind[0] = sim::AgentKind::kCount; }, "kind");
  refused([](sim::WorldState& s) { s.slot_dense[0] = 1 << 20; }, "slot_dense");
  refused([](sim::WorldState& s) { s.scenario.width = -1; }, "scenario");
  // A denormal width (> 0, but positions divided by it overflow to infinite cell coordinates:
  // the world-state fuzzer's find), agents far outside the world, non-finite kinematic state.
  refused([](sim::WorldState& s) { s.scenario.width = 2e-312; }, "width");
  refused([](sim::WorldState& s) { s.position[0].x = 5 * s.scenario.width; }, "outside the world");
  refused([](sim::WorldState& s) { s.position[1].y = -2 * s.scenario.height; }, "outside the world");
  refused([](sim::WorldState& s) { s.velocity[0].y = std::numeric_limits<double>::infinity(); }, "finite");
  refused([](sim::WorldState& s) { s.heading[0].x = std::numeric_limits<double>::quiet_NaN(); }, "finite");
  refused([](sim::WorldState& s) { s.angular_velocity[0] = std::numeric_limits<double>::quiet_NaN(); }, "finite");
  // Control: the same state, an agent just outside the border (a tick can carry one there, the
  // next brings it back) restores.
  {
    sim::WorldState s = w->export_state();
    s.position[0].x = s.scenario.width + 0.5;
    std::string error;
    EXPECT_TRUE(sim::World::from_state(std::move(s), error)) << error;
  }
  refused([](sim::WorldState& s) { s.players.push_back(1 << 20); }, "players");
  refused(
      [](sim::WorldState& s) {
        s.commands.push_back({sim::WorldState::Command::Type::kInput, s.id[0], {5.0, 1.0}, {}});
      },
      "commands");
  // Garbage is not a world.
  const DecodedWorld d = decode_world_state("not a world state");
  EXPECT_FALSE(d.world);
  EXPECT_FALSE(d.error.empty());
}

}  // namespace
}  // namespace flockstep::codec
