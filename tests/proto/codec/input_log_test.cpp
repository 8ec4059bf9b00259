// Input-log recordings (codec/input_log.hpp): a world driven by joins, steering, leaves and a
// tuning is recorded with InputLogEncoder the way the server's recorder does it; the player
// re-simulates it to the same state hash at every tick (every logged second, every seek, the
// end), and a log with one command dropped or altered is reported as diverged. Broken files are
// refused whole. Runs natively and under wasm (node).
#include "codec/input_log.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "codec/world_state_codec.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/v1/input_log.pb.h"

#ifndef FLOCKSTEP_SOURCE_DIR
#error "FLOCKSTEP_SOURCE_DIR must name the repository root (tests/proto/CMakeLists.txt defines it)"
#endif

namespace flockstep::codec {
namespace {

/// A recorded run and the uninterrupted world's hash at every tick, taken where the player
/// stands at that tick (after the step that reached it and that tick's commands).
struct Recorded {
  std::string bytes;
  std::map<std::uint64_t, std::uint64_t> hash_at;
  std::uint64_t first = 0, last = 0;
};

sim::Scenario scenario(sim::Scenario s = sim::canonical::mixed()) {
  s.tick_rate_hz = 30;
  s.max_players = 4;
  s.max_agents += 4;
  return s;
}

/// `ticks` ticks from a world stepped 7 times before the recording starts; a seek point every
/// `seek_every` ticks, a hash every 30 (one second). Players join at 3 and 40, steer with inputs
/// that change every 9 ticks (held in between, as a real client's are), one leaves at 70, a
/// group is tuned at 50.
Recorded record(std::uint64_t ticks, std::uint64_t seek_every = 45, sim::Scenario base = sim::canonical::mixed()) {
  Recorded r;
  sim::World w(scenario(std::move(base)));
  for (int k = 0; k < 7; ++k) w.step();
  InputLogEncoder enc;
  InputLogInfo info;
  info.room = "test-room";
  info.tick_rate_hz = 30;
  info.start_tick = w.tick();
  info.seek_interval_ticks = static_cast<std::uint32_t>(seek_every);
  info.hash_interval_ticks = 30;
  r.bytes.append(kInputLogMagic);
  enc.header(info, w.scenario(), r.bytes);
  InputLogEncoder::seek_point(w.tick(), encode_world_state(w), r.bytes);
  r.first = w.tick();
  std::vector<sim::AgentId> players;
  for (std::uint64_t k = 0; k < ticks; ++k) {
    // Commands of this tick (the room's joins, inputs, leaves, tunings between two steps).
    if (k == 3 || k == 40) {
      players.push_back(w.add_player());
      enc.add_player(players.back());
    }
    for (std::size_t p = 0; p < players.size(); ++p) {
      const double phase = static_cast<double>((k / 9) % 5);
      const sim::PlayerInput in{phase * 0.4 - 0.8 + 0.1 * static_cast<double>(p), 0.5 + phase * 0.1};
      w.set_input(players[p], in);
      enc.set_input(players[p], in);
    }
    if (k == 70 && !players.empty()) {
      w.remove(players.front());
      enc.remove(players.front());
    }
    if (k == 50) {
      sim::GroupSpec g = w.scenario().groups[0];
      g.max_speed *= 1.25;
      g.count += 3;
      EXPECT_EQ(w.set_group(0, g), "");
      enc.set_group(0, g);
    }
    r.hash_at[w.tick()] = w.state_hash();
    enc.commands(w.tick(), r.bytes);
    w.step();
    if (w.tick() % 30 == 0) enc.hash(w.tick(), w.state_hash(), r.bytes);
    if ((w.tick() - r.first) % seek_every == 0) InputLogEncoder::seek_point(w.tick(), encode_world_state(w), r.bytes);
  }
  // The end: this tick's commands (none here) and the hash after them.
  r.last = w.tick();
  r.hash_at[w.tick()] = w.state_hash();
  enc.end(w.tick(), w.state_hash(), "test", r.bytes);
  return r;
}

/// The framed records of a log, parsed.
std::vector<v1::InputLogRecord> records_of(const std::string& bytes) {
  std::vector<v1::InputLogRecord> out;
  std::size_t at = kInputLogMagic.size();
  while (at + 4 <= bytes.size()) {
    std::uint32_t n = 0;
    for (int k = 0; k < 4; ++k) n |= std::uint32_t{static_cast<unsigned char>(bytes[at + k])} << (8 * k);
    v1::InputLogRecord r;
    EXPECT_TRUE(r.ParseFromArray(bytes.data() + at + 4, static_cast<int>(n)));
    out.push_back(r);
    at += 4 + n + 8;
  }
  return out;
}

std::string framed(const std::vector<v1::InputLogRecord>& records) {
  std::string out(kInputLogMagic);
  for (const auto& r : records) append_input_log_record(r, out);
  return out;
}

std::unique_ptr<InputLogPlayer> open_ok(const std::string& bytes) {
  std::string error;
  auto p = InputLogPlayer::open(bytes, error);
  EXPECT_NE(p, nullptr) << error;
  return p;
}

TEST(InputLog, ReplaysToTheRecordedHashAtEverySecondAndTheEnd) {
  const Recorded rec = record(200);
  auto p = open_ok(rec.bytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->first_tick(), rec.first);
  EXPECT_EQ(p->last_tick(), rec.last);
  EXPECT_EQ(p->info().room, "test-room");
  EXPECT_EQ(p->end_reason(), "test");
  EXPECT_GE(p->seek_point_count(), 4u);
  EXPECT_EQ(p->world().state_hash(), rec.hash_at.at(rec.first));
  while (p->step()) ASSERT_EQ(p->world().state_hash(), rec.hash_at.at(p->tick())) << "tick " << p->tick();
  EXPECT_EQ(p->tick(), rec.last);
  EXPECT_TRUE(p->divergences().empty()) << p->divergences().front().what << " at " << p->divergences().front().tick;
  EXPECT_EQ(p->hashes_checked(), p->hash_ticks().size());
  EXPECT_GE(p->hashes_checked(), 6u);
  // Set-input records are written only when an input changed: 2 players, a change every 9 ticks.
  EXPECT_LT(p->command_count(), 2u * 200 / 4);
  EXPECT_GT(p->command_count(), 2u * 200 / 9 - 10);
}

TEST(InputLog, SeekingGivesTheUninterruptedRunsHash) {
  const Recorded rec = record(200);
  auto p = open_ok(rec.bytes);
  ASSERT_NE(p, nullptr);
  // Before and after seek points (every 45 ticks from the start), backwards and forwards, the ends.
  for (const std::uint64_t off : {150ull, 44ull, 45ull, 46ull, 0ull, 199ull, 200ull, 91ull, 90ull, 120ull, 3ull}) {
    const std::uint64_t t = rec.first + off;
    ASSERT_EQ(p->seek(t), t);
    EXPECT_EQ(p->world().state_hash(), rec.hash_at.at(t)) << "seek to tick " << t;
  }
  EXPECT_EQ(p->seek(rec.last + 1000), rec.last);  // clamped
  EXPECT_EQ(p->seek(0), rec.first);
  EXPECT_TRUE(p->divergences().empty());
}

TEST(InputLog, SeekingKeepsTheTracedAgents) {
  const Recorded rec = record(120);
  auto p = open_ok(rec.bytes);
  ASSERT_NE(p, nullptr);
  const sim::AgentId flockling = p->world().id_at(0);
  p->set_traced({flockling});
  p->seek(rec.first + 100);
  ASSERT_EQ(p->world().traces().size(), 1u);
  EXPECT_EQ(p->world().traces()[0].agent, flockling);
  EXPECT_EQ(p->world().traces()[0].tick, rec.first + 100);
}

// The control: the hash check can fail. One set_input dropped, or one value altered, is
// re-framed with a valid checksum (so the file is accepted) and must show as a divergence.
TEST(InputLog, ADroppedOrAlteredInputIsReportedAsDiverged) {
  const Recorded rec = record(200);
  // The player that stays (the second to join): its inputs keep mattering to the end.
  std::uint32_t stays = 0;
  for (const auto& r : records_of(rec.bytes))
    if (r.has_commands())
      for (const auto& c : r.commands().commands())
        if (c.has_add_player()) stays = c.add_player();
  ASSERT_NE(stays, 0u);
  for (const bool drop : {true, false}) {
    std::vector<v1::InputLogRecord> rs = records_of(rec.bytes);
    bool changed = false;
    for (auto& r : rs) {
      if (!r.has_commands() || r.commands().tick() < rec.first + 60) continue;
      for (int k = 0; k < r.commands().commands_size() && !changed; ++k) {
        v1::LogCommand* c = r.mutable_commands()->mutable_commands(k);
        if (!c->has_set_input() || c->set_input().entity() != stays) continue;
        if (drop) r.mutable_commands()->mutable_commands()->DeleteSubrange(k, 1);
        else c->mutable_set_input()->set_turn(c->set_input().turn() + 1e-9);
        changed = true;
      }
      if (changed) break;
    }
    ASSERT_TRUE(changed);
    auto p = open_ok(framed(rs));
    ASSERT_NE(p, nullptr);
    while (p->step()) {
    }  // every tick from the start (a seek would jump to the last seek point)
    ASSERT_FALSE(p->divergences().empty()) << (drop ? "dropped" : "altered") << " input not detected";
    const InputLogPlayer::Divergence& d = p->divergences().front();
    EXPECT_NE(d.expected, d.got);
    EXPECT_GT(d.tick, rec.first + 60);
    // Found where a logged hash is compared: a second's mark, a seek point or the end.
    EXPECT_TRUE(d.what == "state_hash" || d.what == "seek_point" || d.what == "end") << d.what;
  }
}

TEST(InputLog, ATruncatedLogIsRefusedWhole) {
  const Recorded rec = record(100, 30, sim::canonical::pursuit());
  // Every prefix at a stride (and the last 40 bytes one by one): none opens.
  for (std::size_t n = 0; n < rec.bytes.size(); n += (n + 40 >= rec.bytes.size() ? 1 : 97)) {
    std::string error;
    EXPECT_EQ(InputLogPlayer::open(std::string_view(rec.bytes).substr(0, n), error), nullptr) << n;
    EXPECT_FALSE(error.empty());
  }
  std::string error;
  EXPECT_EQ(InputLogPlayer::open(rec.bytes.substr(0, rec.bytes.size() - 30), error), nullptr);
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

TEST(InputLog, ACorruptedLogIsRefusedWithAMessage) {
  const Recorded rec = record(100, 30, sim::canonical::pursuit());
  std::string error;
  for (std::size_t at = 8; at < rec.bytes.size(); at += rec.bytes.size() / 37) {
    std::string bad = rec.bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x20);
    EXPECT_EQ(InputLogPlayer::open(bad, error), nullptr) << "byte " << at;
    EXPECT_NE(error.find("input log: record"), std::string::npos) << error;
  }
  std::string magic = rec.bytes;
  magic[3] = 'X';
  EXPECT_EQ(InputLogPlayer::open(magic, error), nullptr);
  EXPECT_NE(error.find("magic"), std::string::npos);
  // Well framed but wrong: no end record, a record after it, records out of order.
  std::vector<v1::InputLogRecord> rs = records_of(rec.bytes);
  auto no_end = rs;
  no_end.pop_back();
  EXPECT_EQ(InputLogPlayer::open(framed(no_end), error), nullptr);
  EXPECT_NE(error.find("no end record"), std::string::npos) << error;
  auto after_end = rs;
  after_end.push_back(rs[2]);
  after_end.push_back(rs.back());
  EXPECT_EQ(InputLogPlayer::open(framed(after_end), error), nullptr);
  EXPECT_NE(error.find("after the end"), std::string::npos) << error;
  auto swapped = rs;
  std::swap(swapped[3], swapped[swapped.size() - 3]);
  EXPECT_EQ(InputLogPlayer::open(framed(swapped), error), nullptr);
  auto version = rs;
  version[0].mutable_header()->set_format_version(kInputLogFormatVersion - 1);
  EXPECT_EQ(InputLogPlayer::open(framed(version), error), nullptr);
  EXPECT_NE(error.find("format version " + std::to_string(kInputLogFormatVersion - 1)), std::string::npos) << error;
  auto bad_group = rs;
  for (auto& r : bad_group)
    if (r.has_commands()) {
      r.mutable_commands()->add_commands()->mutable_set_group()->set_group(999);
      break;
    }
  EXPECT_EQ(InputLogPlayer::open(framed(bad_group), error), nullptr);
  EXPECT_NE(error.find("no group 999"), std::string::npos) << error;
  // Untouched, it opens (the alterations above are what was refused).
  EXPECT_NE(InputLogPlayer::open(framed(rs), error), nullptr) << error;
}

/// Fuzz seeds (tests/fuzz/corpus/input_log/): FLOCKSTEP_UPDATE_INPUT_LOG_SEEDS=1 rewrites them
/// from a small world (the pursuit scenario with two players).
TEST(InputLog, FuzzSeedsOpen) {
  const std::string dir = std::string(FLOCKSTEP_SOURCE_DIR) + "/tests/fuzz/corpus/input_log";
  if (const char* update = std::getenv("FLOCKSTEP_UPDATE_INPUT_LOG_SEEDS"); update && std::string(update) == "1") {
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/pursuit.bin", std::ios::binary) << record(100, 30, sim::canonical::pursuit()).bytes;
    std::ofstream(dir + "/pursuit_short.bin", std::ios::binary) << record(12, 5, sim::canonical::pursuit()).bytes;
  }
  for (const char* name : {"pursuit.bin", "pursuit_short.bin"}) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    ASSERT_TRUE(in.good()) << name;
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::string error;
    auto p = InputLogPlayer::open(bytes.str(), error);
    ASSERT_NE(p, nullptr) << name << ": " << error;
    while (p->step()) {
    }
    EXPECT_TRUE(p->divergences().empty()) << name;
  }
}

TEST(InputLog, ListingsReadTheHeaderAndTheEndWithoutAWorld) {
  const Recorded rec = record(60);
  const auto rs = records_of(rec.bytes);
  const InputLogRecordSummary h = summarize_input_log_record(rs.front().SerializeAsString());
  EXPECT_EQ(h.kind, InputLogRecordSummary::Kind::kHeader);
  EXPECT_EQ(h.info.room, "test-room");
  EXPECT_EQ(h.tick, rec.first);
  const InputLogRecordSummary e = summarize_input_log_record(rs.back().SerializeAsString());
  EXPECT_EQ(e.kind, InputLogRecordSummary::Kind::kEnd);
  EXPECT_EQ(e.tick, rec.last);
  EXPECT_EQ(e.reason, "test");
  EXPECT_EQ(summarize_input_log_record("\xff\xff").kind, InputLogRecordSummary::Kind::kInvalid);
}

}  // namespace
}  // namespace flockstep::codec
