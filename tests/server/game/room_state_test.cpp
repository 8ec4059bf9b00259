// Saved rooms on disk: the RoomState file format (round trip, truncation, versions), the atomic
// write, the state store's writer thread, and the registry restoring rooms from a state_dir
// (a corrupt file is logged, set aside, and its room starts fresh; no state_dir restores nothing).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "../test_util.hpp"
#include "codec/checksum.hpp"
#include "codec/world_state_codec.hpp"
#include "flockstep/v1/messages.pb.h"
#include "flockstep/v1/room_state.pb.h"
#include "flockstep/v1/world_state.pb.h"
#include "game/game.hpp"
#include "game/scenario_file.hpp"
#include "game/room_state.hpp"
#include "game/room.hpp"
#include "game/rooms.hpp"
#include "ops/log.hpp"
#include "ops/token_hash.hpp"

namespace flockstep::server::game {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;
namespace fs = std::filesystem;

v1::RoomState sample_state() {
  v1::RoomState s;
  s.set_version(kRoomStateVersion);
  s.set_room("arena");
  s.set_tick_rate_hz(60);
  s.set_tick(1234);
  s.set_state_hash(0xfeedfacecafebeefULL);
  s.set_next_player_id(3);
  v1::SavedPlayer* p = s.add_players();
  p->set_player_id(1);
  p->set_entity_id(77);
  p->set_display_name("ada");
  p->set_resume_token(std::string(16, '\x01'));
  p->set_captures(2);
  p->set_best_ticks(900);
  s.set_world_state(std::string(5000, '\x42'));  // opaque here: the world codec checks its own bytes
  return s;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream o;
  o << in.rdbuf();
  return o.str();
}

TEST(RoomStateFile, RoundTripKeepsEveryField) {
  const v1::RoomState s = sample_state();
  v1::RoomState back;
  ASSERT_EQ(decode_room_state(encode_room_state(s), back), "");
  EXPECT_EQ(back.SerializeAsString(), s.SerializeAsString());
  EXPECT_EQ(back.players(0).resume_token(), std::string(16, '\x01'));
  EXPECT_EQ(back.players(0).captures(), 2u);
}

TEST(RoomStateFile, EveryTruncationGarbageAndOtherVersionsAreRefused) {
  const std::string bytes = encode_room_state(sample_state());
  v1::RoomState out;
  // The world is the last field written: any file cut short loses it or breaks it.
  for (std::size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 97))
    EXPECT_NE(decode_room_state(std::string_view(bytes).substr(0, n), out), "") << "prefix of " << n << " bytes";
  EXPECT_EQ(decode_room_state("", out), "empty file");
  EXPECT_NE(decode_room_state("\xff\xff\xff\xff garbage", out), "");
  v1::RoomState other = sample_state();
  other.set_version(kRoomStateVersion + 1);
  EXPECT_NE(decode_room_state(encode_room_state(other), out).find("version"), std::string::npos);
  v1::RoomState nameless = sample_state();
  nameless.clear_room();
  EXPECT_NE(decode_room_state(encode_room_state(nameless), out).find("room"), std::string::npos);
}

TEST(RoomStateFile, FileNamesEscapeEverythingButPlainCharacters) {
  EXPECT_EQ(room_state_path("/d", "arena"), "/d/arena.room");
  EXPECT_EQ(room_state_path("/d", "slides_walls-2"), "/d/slides_walls-2.room");
  EXPECT_EQ(room_state_path("/d", "../x y"), "/d/%2E%2E%2Fx%20y.room");
}

TEST(RoomStateFile, AtomicWriteReplacesTheFileLeavesNoTempAndNamesTheFailingStep) {
  TempDir dir;
  const std::string path = (dir.path() / "a.room").string();
  ASSERT_EQ(write_file_atomic(path, "first"), "");
  ASSERT_EQ(write_file_atomic(path, "second, longer"), "");
  EXPECT_EQ(read(path), "second, longer");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  const std::string why = write_file_atomic((dir.path() / "missing" / "a.room").string(), "x");
  EXPECT_NE(why.find("create"), std::string::npos) << why;
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
}

TEST(StateStore, WritesQueuedSavesOffThreadSavesNowAndRemoves) {
  TempDir dir;
  std::ostringstream log_text;
  ops::Logger log({}, log_text);
  StateStore store((dir.path() / "state").string(), &log);  // created when missing
  store.save_async(sample_state());
  for (int i = 0; i < 500 && store.writes() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(store.writes(), 1u);
  auto files = store.load_all();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].error, "");
  EXPECT_EQ(files[0].state.tick(), 1234u);
  v1::RoomState later = sample_state();
  later.set_tick(2000);
  ASSERT_EQ(store.save_now(later), "");
  EXPECT_EQ(store.load_all()[0].state.tick(), 2000u);
  store.remove("arena");
  EXPECT_TRUE(store.load_all().empty());
}

/// Permission bits of a file or folder.
unsigned mode_of(const fs::path& p) { return static_cast<unsigned>(fs::status(p).permissions()) & 0777u; }

TEST(StateStore, NothingAtRestIsReadableByOtherUsers) {
  TempDir dir;
  const std::string state = (dir.path() / "state").string();
  // A folder and a file as an older build (or a plain mkdir) left them: open to everyone.
  fs::create_directories(state);
  fs::permissions(state, fs::perms::all);
  const std::string junk = room_state_path(state, "junk");
  std::ofstream(junk, std::ios::binary) << "not a room";
  fs::permissions(junk,
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  StateStore store(state, nullptr);
  ASSERT_EQ(store.save_now(sample_state()), "");
  for (const SavedRoomFile& f : store.load_all())
    if (!f.error.empty()) store.set_aside(f.path, f.error);
  EXPECT_EQ(mode_of(state), 0700u);
  EXPECT_EQ(mode_of(room_state_path(state, "arena")), 0600u);
  EXPECT_EQ(mode_of(junk + ".bad"), 0600u) << "the set-aside copy";
  EXPECT_EQ(mode_of(fs::path(state) / kTokenKeyFile), 0600u);
  EXPECT_EQ(mode_of(fs::path(state) / ".lock"), 0600u);
}

TEST(StateStore, TheTokenKeyOutlivesTheProcessAndAWrongSizedKeyIsSetAside) {
  TempDir dir;
  const std::string state = (dir.path() / "state").string();
  std::string key;
  {
    StateStore first(state, nullptr);
    key = first.token_key();
  }
  ASSERT_EQ(key.size(), ops::kTokenKeyBytes);
  {
    StateStore again(state, nullptr);
    EXPECT_EQ(again.token_key(), key) << "a restart must still recognise saved players' tokens";
  }
  std::ofstream(fs::path(state) / kTokenKeyFile, std::ios::binary | std::ios::trunc) << "short";
  std::ostringstream log_text;
  ops::Logger log({}, log_text);
  StateStore after(state, &log);
  EXPECT_EQ(after.token_key().size(), ops::kTokenKeyBytes);
  EXPECT_NE(after.token_key(), key);
  EXPECT_TRUE(fs::exists(fs::path(state) / (std::string(kTokenKeyFile) + ".bad")));
  EXPECT_NE(log_text.str().find("room_state_rejected"), std::string::npos) << log_text.str();
}

TEST(StateStore, AnUnusableOrBusyFolderIsAStartUpError) {
  TempDir dir;
  const std::string file = dir.write("plain-file", "x");
  EXPECT_THROW(StateStore(file, nullptr), std::runtime_error);
  const std::string shared = (dir.path() / "shared").string();
  {
    StateStore first(shared, nullptr);
    try {
      StateStore second(shared, nullptr);
      ADD_FAILURE() << "two stores on one folder";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("in use by another running server"), std::string::npos) << e.what();
    }
  }
  StateStore after(shared, nullptr);  // the first one's lock went with it
  EXPECT_EQ(after.dir(), shared);
}

/// A shipped scenario ("slides_walls", "slides_obstacles": small rooms).
sim::Scenario shipped(const std::string& name) {
  return load_scenario_file(std::string(FLOCKSTEP_SOURCE_DIR) + "/scenarios/" + name + ".json");
}

RoomsConfig rooms_config(const std::string& state_dir) {
  RoomsConfig c;
  c.room.max_players = 4;
  c.room.bots = 1;
  c.state_dir = state_dir;
  c.save_interval = 0ms;  // only at stop(): the test decides when
  return c;
}

/// A connection that keeps the Welcome and whether it was closed.
class WelcomeSink : public ClientSink {
 public:
  void send_snapshot(std::uint64_t, std::shared_ptr<const std::string>, std::string) override {}
  void send_message(std::shared_ptr<const std::string> message) override {
    v1::ServerMessage m;
    if (m.ParseFromString(*message) && m.has_welcome()) welcome = m.welcome();
  }
  void close(CloseReason r, std::string) override { closed = r; }
  std::optional<v1::Welcome> welcome;
  std::optional<CloseReason> closed;
};

RoomConfig room_config(const std::string& key) {
  RoomConfig c;
  c.room_name = "slides_walls";
  c.max_players = 4;
  c.token_key = key;
  return c;
}

/// Join `room` as a player (resuming with `token`); the sink.
std::shared_ptr<WelcomeSink> join_room(Room& room, ConnectionId conn, const std::string& token = {}) {
  auto sink = std::make_shared<WelcomeSink>();
  room.join(conn, sink, codec::JoinRequest{codec::Role::kPlayer, "ada", token});
  return sink;
}

TEST(RoomTokens, ASavedRoomHoldsAKeyedHashOfEachTokenAndNeverTheToken) {
  const std::string key(ops::kTokenKeyBytes, 'k');
  Room room(room_config(key), shipped("slides_walls"), nullptr, nullptr);
  auto ada = join_room(room, 1);
  ASSERT_TRUE(ada->welcome);
  const std::string token = ada->welcome->resume_token();
  ASSERT_EQ(token.size(), codec::kResumeTokenBytes);
  for (int k = 0; k < 5; ++k) room.tick();
  const v1::RoomState saved = room.save_state();
  EXPECT_EQ(saved.version(), kRoomStateVersion);
  ASSERT_EQ(saved.players_size(), 1);
  EXPECT_TRUE(saved.players(0).resume_token().empty());
  EXPECT_EQ(saved.players(0).resume_token_hash(), ops::token_hash(key, token));
  EXPECT_EQ(encode_room_state(saved).find(token), std::string::npos) << "the token itself is in the file";

  // With the folder's key the token resumes the craft; under another key the file restores but
  // the token is unknown (the hash is keyed: it cannot be checked, nor guessed, without the key).
  Room same(room_config(key), shipped("slides_walls"), nullptr, nullptr);
  ASSERT_EQ(same.restore(saved), "");
  auto back = join_room(same, 2, token);
  ASSERT_TRUE(back->welcome) << "resume refused after the restore";
  EXPECT_EQ(back->welcome->entity_id(), ada->welcome->entity_id());
  Room other(room_config(std::string(ops::kTokenKeyBytes, 'x')), shipped("slides_walls"), nullptr, nullptr);
  ASSERT_EQ(other.restore(saved), "");
  auto stranger = join_room(other, 2, token);
  EXPECT_FALSE(stranger->welcome);
  EXPECT_EQ(stranger->closed, CloseReason::kBadResume);
}

TEST(RoomTokens, AVersion1FileWithRawTokensStillRestoresAndIsSavedBackAsHashes) {
  const std::string key(ops::kTokenKeyBytes, 'k');
  Room room(room_config(key), shipped("slides_walls"), nullptr, nullptr);
  auto ada = join_room(room, 1);
  ASSERT_TRUE(ada->welcome);
  const std::string token = ada->welcome->resume_token();
  room.tick();
  v1::RoomState v1_file = room.save_state();
  v1_file.set_version(1);
  v1_file.mutable_players(0)->clear_resume_token_hash();
  v1_file.mutable_players(0)->set_resume_token(token);
  v1::RoomState parsed;
  ASSERT_EQ(decode_room_state(encode_room_state(v1_file), parsed), "");
  Room restored(room_config(key), shipped("slides_walls"), nullptr, nullptr);
  ASSERT_EQ(restored.restore(parsed), "");
  const v1::RoomState resaved = restored.save_state();
  EXPECT_EQ(resaved.version(), kRoomStateVersion);
  EXPECT_TRUE(resaved.players(0).resume_token().empty());
  EXPECT_EQ(resaved.players(0).resume_token_hash(), ops::token_hash(key, token));
  EXPECT_TRUE(join_room(restored, 2, token)->welcome);
  // A raw token in a version-2 file is refused (nothing writes one).
  v1::RoomState mixed = room.save_state();
  mixed.mutable_players(0)->set_resume_token(token);
  Room refuses(room_config(key), shipped("slides_walls"), nullptr, nullptr);
  EXPECT_NE(refuses.restore(mixed).find("raw token"), std::string::npos);
}

/// `world_state` with its scenario edited by `edit`, re-wrapped with a valid body hash (what an
/// attacker who knows the format can write).
std::string with_scenario(const std::string& world_state, const std::function<void(v1::WorldSpec&)>& edit) {
  v1::WorldStateFile file;
  EXPECT_TRUE(file.ParseFromString(world_state));
  v1::WorldStateBody body;
  EXPECT_TRUE(body.ParseFromString(file.body()));
  edit(*body.mutable_scenario());
  const std::string bytes = body.SerializeAsString();
  file.set_body_hash(codec::fnv1a(bytes));
  file.set_body(bytes);
  return file.SerializeAsString();
}

/// Seeds for fuzz_world_state (tests/fuzz/corpus/world_state/), written when
/// FLOCKSTEP_UPDATE_FUZZ_SEEDS=1: saved worlds whose size fields are at or past the limits.
void maybe_write_seed(const std::string& name, const std::string& bytes) {
  const char* update = std::getenv("FLOCKSTEP_UPDATE_FUZZ_SEEDS");
  if (!update || std::string(update) != "1") return;
  std::ofstream(std::string(FLOCKSTEP_SOURCE_DIR) + "/tests/fuzz/corpus/world_state/" + name, std::ios::binary)
      << bytes;
}

TEST(RoomRestore, SizesPastTheLimitsOrOtherThanTheRoomsOwnAreRefusedBeforeTheWorldIsBuilt) {
  Room room(room_config({}), shipped("slides_walls"), nullptr, nullptr);
  for (int k = 0; k < 5; ++k) room.tick();
  const v1::RoomState good = room.save_state();
  const double cell = room.scenario().grid_cell;
  struct Case {
    const char* seed;
    std::function<void(v1::WorldSpec&)> edit;
    const char* error;  // in Room::restore's message
  };
  const std::vector<Case> cases = {
      // The probe's tiny cell (~10^16 grid cells): here the groups' neighbour radius, which must
      // fit a cell, refuses it first; a world without neighbourhoods meets the grid limit.
      {"size-tiny-grid-cell", [](v1::WorldSpec& w) { w.set_grid_cell(1e-6); }, "grid_cell"},
      {"size-huge-world",
       [](v1::WorldSpec& w) {
         w.set_width(1e12);
         w.set_height(1e12);
       },
       "grid cells"},
      // Just past the limit: 2100 x 2100 cells (a few MB, harmless to try without the limit).
      {"size-grid-past-limit",
       [cell](v1::WorldSpec& w) {
         w.set_width(cell * 2100);
         w.set_height(cell * 2100);
       },
       "grid cells"},
      {"size-many-obstacles",
       [](v1::WorldSpec& w) {
         w.set_width(8 * 1000);
         w.set_height(8 * 1000);
         for (int k = 0; k < 10000; ++k) {
           v1::Circle* o = w.add_obstacles();
           o->mutable_center()->set_x(k);
           o->mutable_center()->set_y(k);
           o->set_radius(1);
         }
       },
       "obstacle-cell pairs"},
      // Within the limits but not the room's own: a restoring server allocates no more than
      // the fresh room did.
      {"size-other-grid-cell", [cell](v1::WorldSpec& w) { w.set_grid_cell(cell * 2); }, "changed since the save"},
      {"size-other-capacity", [](v1::WorldSpec& w) { w.set_max_agents(w.max_agents() * 4); }, "changed since the save"},
      {"size-moved-obstacle",
       [](v1::WorldSpec& w) {
         v1::Circle* o = w.add_obstacles();
         o->mutable_center()->set_x(5);
         o->mutable_center()->set_y(5);
         o->set_radius(1e9);
       },
       "changed since the save"},
  };
  for (const Case& c : cases) {
    v1::RoomState bad = good;
    bad.set_world_state(with_scenario(good.world_state(), c.edit));
    maybe_write_seed(c.seed, bad.world_state());
    Room fresh(room_config({}), shipped("slides_walls"), nullptr, nullptr);
    const std::string why = fresh.restore(bad);
    EXPECT_NE(why.find(c.error), std::string::npos) << c.seed << ": " << why;
    EXPECT_EQ(fresh.current_tick(), 0u) << c.seed << ": the room is not fresh";
  }
  // Control: the untouched file restores.
  Room fresh(room_config({}), shipped("slides_walls"), nullptr, nullptr);
  EXPECT_EQ(fresh.restore(good), "");
}

/// Run the default room of `rooms` until its tick passes `ticks`.
void run_until(Rooms& rooms, std::uint64_t ticks) {
  for (int i = 0; i < 1000 && rooms.default_game().tick() < ticks; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_GE(rooms.default_game().tick(), ticks);
}

TEST(RoomsState, StoppedRoomsAreSavedAndANewRegistryRestoresThemButNotWithoutAStateDir) {
  TempDir dir;
  const std::string state = (dir.path() / "state").string();
  std::ostringstream log_text;
  ops::Logger log({}, log_text);
  std::uint64_t saved_tick = 0;
  {
    Rooms rooms(rooms_config(state), shipped("slides_walls"), {shipped("slides_obstacles")}, nullptr, &log);
    rooms.start();
    std::string why;
    ASSERT_NE(rooms.acquire("slides_obstacles", why), nullptr) << why;
    run_until(rooms, 30);
    rooms.stop();
    saved_tick = rooms.default_game().tick();
  }
  EXPECT_NE(log_text.str().find("room_saved room=slides_walls tick=" + std::to_string(saved_tick)), std::string::npos)
      << log_text.str();
  EXPECT_NE(log_text.str().find("room_saved room=slides_obstacles"), std::string::npos);
  EXPECT_TRUE(fs::exists(fs::path(state) / "slides_walls.room"));
  EXPECT_TRUE(fs::exists(fs::path(state) / "slides_obstacles.room"));

  Rooms again(rooms_config(state), shipped("slides_walls"), {shipped("slides_obstacles")}, nullptr, &log);
  EXPECT_EQ(again.restored_count(), 2u);
  EXPECT_EQ(again.default_game().tick(), saved_tick);
  ASSERT_NE(again.running("slides_obstacles"), nullptr) << "a restored room runs without anyone joining";
  EXPECT_NE(log_text.str().find("room_restored room=slides_walls tick=" + std::to_string(saved_tick)),
            std::string::npos);

  // Control: the same files, no state_dir: nothing is restored.
  Rooms off(rooms_config(""), shipped("slides_walls"), {shipped("slides_obstacles")}, nullptr, &log);
  EXPECT_EQ(off.restored_count(), 0u);
  EXPECT_EQ(off.default_game().tick(), 0u);
  EXPECT_EQ(off.running("slides_obstacles"), nullptr);
}

TEST(RoomsState, PeriodicSavesAreWrittenWhileTheRoomRunsAndHoldTheWorldOfTheirTick) {
  TempDir dir;
  const std::string state = (dir.path() / "state").string();
  RoomsConfig c = rooms_config(state);
  c.save_interval = 50ms;
  Rooms rooms(c, shipped("slides_walls"), {}, nullptr, nullptr);
  rooms.start();
  const std::string path = room_state_path(state, "slides_walls");
  for (int i = 0; i < 500 && !fs::exists(path); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(fs::exists(path)) << "no periodic save while running";
  v1::RoomState saved;
  ASSERT_EQ(decode_room_state(read(path), saved), "");
  // The world was copied on the game thread and encoded by the writer: the bytes decode to a
  // world of the saved tick whose hash is the saved one.
  const codec::DecodedWorld w = codec::decode_world_state(saved.world_state());
  ASSERT_TRUE(w.world) << w.error;
  EXPECT_EQ(w.world->tick(), saved.tick());
  EXPECT_EQ(w.world->state_hash(), saved.state_hash());
  EXPECT_EQ(saved.players_size(), 1) << "the bot";
  rooms.stop();
}

/// Run "slides_walls" in a registry on `state` for 10 ticks and stop it; the file it saved.
std::string saved_slides_walls(const std::string& state) {
  Rooms rooms(rooms_config(state), shipped("slides_walls"), {}, nullptr, nullptr);
  rooms.start();
  run_until(rooms, 10);
  rooms.stop();
  return read(room_state_path(state, "slides_walls"));
}

TEST(RoomsState, ACorruptOrForeignFileIsLoggedSetAsideAndItsRoomStartsFresh) {
  TempDir dir;
  const std::string state = (dir.path() / "state").string();
  fs::create_directories(state);
  // A good save of "slides_walls" with its world bytes spoilt, one of unknown version, one of no scenario.
  const std::string good = saved_slides_walls(state);
  ASSERT_FALSE(good.empty());
  std::string spoilt = good;
  for (std::size_t i = spoilt.size() / 2; i < spoilt.size(); i += 5) spoilt[i] = static_cast<char>(spoilt[i] ^ 0x33);
  std::ofstream(room_state_path(state, "slides_walls"), std::ios::binary) << spoilt;
  v1::RoomState foreign = sample_state();
  foreign.set_room("nowhere");
  std::ofstream(room_state_path(state, "nowhere"), std::ios::binary) << encode_room_state(foreign);
  std::ofstream(room_state_path(state, "half"), std::ios::binary) << good.substr(0, good.size() / 2);

  std::ostringstream log_text;
  ops::Logger log({ops::LogFormat::kJson}, log_text);
  {
    Rooms rooms(rooms_config(state), shipped("slides_walls"), {}, nullptr, &log);
    EXPECT_EQ(rooms.restored_count(), 0u);
    EXPECT_EQ(rooms.default_game().tick(), 0u) << "never half-loaded";
    const std::string text = log_text.str();
    for (const char* name : {"slides_walls", "nowhere", "half"}) {
      EXPECT_NE(text.find("\"event\":\"room_state_rejected\",\"file\":\"" + room_state_path(state, name) + "\""),
                std::string::npos)
          << name << "\n"
          << text;
      EXPECT_TRUE(fs::exists(room_state_path(state, name) + ".bad")) << name;
      EXPECT_FALSE(fs::exists(room_state_path(state, name))) << name;
    }
    EXPECT_NE(text.find("is not a scenario of this server"), std::string::npos) << text;
    // The fresh room runs and saves normally over the set-aside file.
    rooms.start();
    run_until(rooms, 5);
    rooms.stop();
  }  // the state_dir's lock goes with it
  Rooms after(rooms_config(state), shipped("slides_walls"), {}, nullptr, nullptr);
  EXPECT_EQ(after.restored_count(), 1u);
}

TEST(RoomsState, AFileAskingForAHugeWorldIsSetAsideWithOneLineAndTheNextStartIsClean) {
  TempDir dir;
  const std::string state = (dir.path() / "state").string();
  const std::string good = saved_slides_walls(state);
  v1::RoomState crafted;
  ASSERT_EQ(decode_room_state(good, crafted), "");
  crafted.set_world_state(with_scenario(crafted.world_state(), [](v1::WorldSpec& w) {
    w.set_width(1e12);
    w.set_height(1e12);
  }));
  ASSERT_EQ(write_file_atomic(room_state_path(state, "slides_walls"), encode_room_state(crafted)), "");
  for (int start = 0; start < 2; ++start) {
    std::ostringstream log_text;
    ops::Logger log({ops::LogFormat::kJson}, log_text);
    Rooms rooms(rooms_config(state), shipped("slides_walls"), {}, nullptr, &log);
    std::size_t lines = 0;
    for (std::size_t at = 0; (at = log_text.str().find("room_state_rejected", at)) != std::string::npos; ++at) ++lines;
    if (start == 0) {
      // One line naming the limit; the file is set aside and the room starts fresh.
      EXPECT_EQ(lines, 1u) << log_text.str();
      EXPECT_NE(log_text.str().find("grid cells"), std::string::npos) << log_text.str();
      EXPECT_EQ(rooms.restored_count(), 0u);
      EXPECT_EQ(rooms.default_game().tick(), 0u);
      EXPECT_TRUE(fs::exists(room_state_path(state, "slides_walls") + ".bad"));
      EXPECT_FALSE(fs::exists(room_state_path(state, "slides_walls")));
      rooms.start();
      run_until(rooms, 5);
    } else {
      // The next start reads the fresh room's own save, and never the bad file again.
      EXPECT_EQ(lines, 0u) << log_text.str();
      EXPECT_EQ(rooms.restored_count(), 1u);
    }
  }
}

}  // namespace
}  // namespace flockstep::server::game
