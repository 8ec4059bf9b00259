// Rooms on loopback: several rooms per server, the lobby API (/api/rooms), live tuning
// (POST /api/admin/rooms/<name>/groups/<index>), recording (--record) and input-log recordings
// through the admin API (start, stop, list, download). An in-process server
// on an OS-chosen port with real WebSocket and HTTP clients; time is only an upper bound.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "../test_util.hpp"
#include "codec/client_codec.hpp"
#include "codec/input_log.hpp"
#include "codec/server_codec.hpp"
#include "game/game.hpp"
#include "game/recorder.hpp"
#include "game/room_state.hpp"
#include "game/rooms.hpp"
#include "game/scenario_file.hpp"
#include "net/server.hpp"
#include "ops/metrics.hpp"
#include "net_harness.hpp"
#include "room_server.hpp"
#include "raw_ws.hpp"
#include "ws_client.hpp"

namespace flockstep::server::net {
namespace {

using namespace std::chrono_literals;
using bot::Receive;
using bot::WsClient;
using harness::bytes_of;
using harness::next_of;
using nlohmann::json;

using namespace rooms_harness;

TEST(Rooms, TwoRoomsRunAtOnceWithSeparateWorldsAndJoinByName) {
  RoomServer rs;
  WsClient a, b;
  const v1::ServerMessage wa = join_room(a, rs.port(), "", codec::Role::kPlayer);
  const v1::ServerMessage wb = join_room(b, rs.port(), "beta");
  ASSERT_TRUE(wa.has_welcome());
  ASSERT_TRUE(wb.has_welcome());
  EXPECT_EQ(wa.welcome().room(), "lobby");
  EXPECT_EQ(wb.welcome().room(), "beta");
  EXPECT_EQ(wa.welcome().world().name(), "lobby");
  EXPECT_EQ(wb.welcome().world().name(), "beta");
  EXPECT_EQ(wb.welcome().world().groups(0).count(), 10);
  // Each room has its own world: beta's snapshots carry 10 agents, the default room 40 + a craft.
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(b, v1::ServerMessage::kDeltaSnapshot, m));
  EXPECT_EQ(m.delta_snapshot().agent_count(), 10u);
  ASSERT_TRUE(next_of(a, v1::ServerMessage::kDeltaSnapshot, m));
  EXPECT_EQ(m.delta_snapshot().agent_count(), 41u);
  EXPECT_EQ(rs.server().rooms().running_count(), 2u);
  EXPECT_TRUE(wait_rooms(rs.port(), [](const json& j) {
    const json* l = room_entry(j, "lobby");
    const json* e = room_entry(j, "beta");
    return l && e && (*l)["players"] == 1 && (*e)["spectators"] == 1 && (*e)["agents"] == 10 && (*l)["agents"] == 41;
  }));
  // Agones and /metrics see the sum of every room.
  EXPECT_TRUE(wait_rooms(rs.port(), [&](const json&) {
    return rs.server().metrics().clients_player.value() == 1 && rs.server().metrics().clients_spectator.value() == 1;
  }));
}

TEST(Rooms, UnknownRoomIsRefusedWithCodeUnknownRoom) {
  RoomServer rs;
  WsClient c;
  const v1::ServerMessage m = join_room(c, rs.port(), "no-such-room");
  ASSERT_TRUE(m.has_close()) << m.DebugString();
  EXPECT_EQ(m.close().code(), v1::Close::CODE_UNKNOWN_ROOM);
  EXPECT_NE(m.close().reason().find("no-such-room"), std::string::npos) << m.close().reason();
  EXPECT_TRUE(c.wait_closed(3s));
  EXPECT_EQ(c.close_code(), 1008);
}

TEST(Rooms, MaxRoomsIsRespected) {
  RoomServer rs([](config::Config& c) { c.max_rooms = 2; });
  WsClient b, g;
  ASSERT_TRUE(join_room(b, rs.port(), "beta").has_welcome());
  const v1::ServerMessage m = join_room(g, rs.port(), "gamma");
  ASSERT_TRUE(m.has_close());
  EXPECT_EQ(m.close().code(), v1::Close::CODE_UNKNOWN_ROOM);
  EXPECT_NE(m.close().reason().find("max_rooms"), std::string::npos) << m.close().reason();
  // A second client in a running room is fine.
  WsClient b2;
  EXPECT_TRUE(join_room(b2, rs.port(), "beta").has_welcome());
  EXPECT_EQ(rs.server().rooms().running_count(), 2u);
}

TEST(Rooms, EmptyRoomClosesAfterTheIdleTimeButTheDefaultRoomNever) {
  RoomServer rs([](config::Config& c) { c.room_idle_close_ms = 200; });
  {
    WsClient b;
    ASSERT_TRUE(join_room(b, rs.port(), "beta").has_welcome());
    std::this_thread::sleep_for(400ms);  // occupied: stays open past the idle time
    EXPECT_NE(rs.server().rooms().running("beta"), nullptr);
    b.close();
  }
  EXPECT_TRUE(wait_rooms(rs.port(), [](const json& j) {
    const json* e = room_entry(j, "beta");
    return e && (*e)["running"] == false;
  }));
  EXPECT_EQ(rs.server().rooms().running("beta"), nullptr);
  EXPECT_NE(rs.server().rooms().running("lobby"), nullptr);
  // The registry forgets the room before its thread is joined and the closing is logged.
  EXPECT_TRUE(rs.logged("room_closed"));
  // It starts again on the next Join, with a fresh world.
  WsClient again;
  const v1::ServerMessage m = join_room(again, rs.port(), "beta");
  ASSERT_TRUE(m.has_welcome());
  EXPECT_LT(m.welcome().server_tick(), 30u);
}

TEST(Rooms, ApiRoomsListsEveryScenarioDefaultFirstThenByName) {
  RoomServer rs;
  const json j = rooms_json(rs.port());
  ASSERT_TRUE(j.is_object()) << j.dump();
  EXPECT_EQ(j["default"], "lobby");
  EXPECT_EQ(j["max_rooms"], 8);
  ASSERT_EQ(j["rooms"].size(), 3u);
  EXPECT_EQ(j["rooms"][0]["name"], "lobby");
  EXPECT_EQ(j["rooms"][1]["name"], "beta");
  EXPECT_EQ(j["rooms"][2]["name"], "gamma");
  for (const json& r : j["rooms"])
    for (const char* key :
         {"name", "title", "description", "running", "players", "spectators", "agents", "tick", "on_join"})
      EXPECT_TRUE(r.contains(key)) << key << " in " << r.dump();
  EXPECT_EQ(j["rooms"][0]["running"], true);
  EXPECT_EQ(j["rooms"][0]["description"], "test room lobby");
  EXPECT_EQ(j["rooms"][1]["running"], false);
  EXPECT_EQ(j["rooms"][1]["agents"], 0);
  EXPECT_TRUE(wait_rooms(rs.port(), [](const json& r) { return r["rooms"][0]["tick"].get<std::uint64_t>() > 0; }));
}

/// Rooms "r1".."r<n>" (3 boids each) beside beta and gamma.
std::vector<sim::Scenario> tour_rooms(int n) {
  std::vector<sim::Scenario> out;
  for (int i = 1; i <= n; ++i) out.push_back(world_named("r" + std::to_string(i), 3, 100 + i));
  return out;
}

/// A spectator's visit: join `room`, see one snapshot, leave and wait until the lobby shows the
/// room empty. The Welcome or the Close.
v1::ServerMessage visit(std::uint16_t port, const std::string& room) {
  WsClient c;
  const v1::ServerMessage m = join_room(c, port, room);
  if (!m.has_welcome()) return m;
  v1::ServerMessage snap;
  EXPECT_TRUE(next_of(c, v1::ServerMessage::kDeltaSnapshot, snap)) << room;
  c.close();
  EXPECT_TRUE(wait_rooms(port, [&](const json& j) {
    const json* e = room_entry(j, room);
    return e && (*e)["spectators"] == 0;
  })) << room;
  return m;
}

TEST(RoomsMakeWay, ASpectatorTouringMoreRoomsThanMaxRoomsIsWelcomedEverywhere) {
  // max_rooms 3: the default room and two others; the tour visits 7 rooms, twice.
  RoomServer rs([](config::Config& c) { c.max_rooms = 3; }, nullptr, tour_rooms(5));
  const std::vector<std::string> tour = {"beta", "gamma", "r1", "r2", "r3", "r4", "r5"};
  for (int round = 0; round < 2; ++round)
    for (const std::string& room : tour) {
      const v1::ServerMessage m = visit(rs.port(), room);
      ASSERT_TRUE(m.has_welcome()) << room << ": " << m.DebugString();
      EXPECT_EQ(m.welcome().room(), room);
      EXPECT_LE(rs.server().rooms().running_count(), 3u);
      EXPECT_NE(rs.server().rooms().running("lobby"), nullptr);  // the default room never makes way
    }
  EXPECT_TRUE(rs.logged("made way for"));
}

TEST(RoomsMakeWay, TheRoomEmptyLongestMakesWay) {
  RoomServer rs([](config::Config& c) { c.max_rooms = 3; }, nullptr, tour_rooms(1));
  ASSERT_TRUE(visit(rs.port(), "beta").has_welcome());
  ASSERT_TRUE(visit(rs.port(), "gamma").has_welcome());
  const json before = rooms_json(rs.port());
  EXPECT_EQ((*room_entry(before, "beta"))["on_join"], "joins");
  EXPECT_EQ((*room_entry(before, "r1"))["on_join"], "starts");  // an empty room will make way
  ASSERT_TRUE(visit(rs.port(), "r1").has_welcome());
  EXPECT_EQ(rs.server().rooms().running("beta"), nullptr);  // empty since before gamma started
  EXPECT_NE(rs.server().rooms().running("gamma"), nullptr);
  EXPECT_NE(rs.server().rooms().running("r1"), nullptr);
  EXPECT_TRUE(rs.logged("room_closed"));
}

TEST(RoomsMakeWay, ARoomWithASpectatorNeverMakesWayAndTheRefusalNamesTheOpenRooms) {
  RoomServer rs([](config::Config& c) { c.max_rooms = 2; });
  WsClient stay;
  ASSERT_TRUE(join_room(stay, rs.port(), "beta").has_welcome());
  EXPECT_TRUE(wait_rooms(rs.port(), [](const json& j) {
    const json* g = room_entry(j, "gamma");
    return (*room_entry(j, "beta"))["spectators"] == 1 && g && (*g)["on_join"] == "full";
  }));
  for (int i = 0; i < 3; ++i) {
    WsClient g;
    const v1::ServerMessage m = join_room(g, rs.port(), "gamma");
    ASSERT_TRUE(m.has_close()) << m.DebugString();
    EXPECT_EQ(m.close().code(), v1::Close::CODE_UNKNOWN_ROOM);
    const std::string& why = m.close().reason();
    EXPECT_NE(why.find("max_rooms"), std::string::npos) << why;
    EXPECT_NE(why.find("open now: beta, lobby"), std::string::npos) << why;
  }
  // The spectator's room runs on and still streams to it.
  EXPECT_NE(rs.server().rooms().running("beta"), nullptr);
  v1::ServerMessage snap;
  EXPECT_TRUE(next_of(stay, v1::ServerMessage::kDeltaSnapshot, snap));
  EXPECT_EQ(rs.server().rooms().running("gamma"), nullptr);
}

TEST(RoomsMakeWay, ARoomRecordingAnInputLogNeverMakesWay) {
  testing::TempDir dir;
  RoomServer rs([&](config::Config& c) {
    c.max_rooms = 2;
    c.recordings_dir = dir.path().string();
    c.record_rooms = "beta";
  });
  ASSERT_TRUE(visit(rs.port(), "beta").has_welcome());
  // The recording starts on beta's game thread: wait until the admin API sees it.
  EXPECT_TRUE(wait_rooms(rs.port(), [&](const json&) {
    const json j = json::parse(http(rs.port(), "GET", "/api/admin/recordings", "tune-token").second, nullptr, false);
    return j.is_object() && j["recordings"].size() == 1 && j["recordings"][0]["recording"] == true;
  }));
  WsClient g;
  const v1::ServerMessage m = join_room(g, rs.port(), "gamma");
  ASSERT_TRUE(m.has_close()) << m.DebugString();
  EXPECT_NE(m.close().reason().find("open now: beta, lobby"), std::string::npos) << m.close().reason();
  // Once the recording is stopped, beta makes way.
  ASSERT_EQ(http(rs.port(), "POST", "/api/admin/rooms/beta/recording/stop", "tune-token").first, 200);
  WsClient g2;
  EXPECT_TRUE(join_room(g2, rs.port(), "gamma").has_welcome());
  EXPECT_EQ(rs.server().rooms().running("beta"), nullptr);
}

TEST(RoomsMakeWay, ControlWithRoomEvictionOffTheTourIsRefusedAtMaxRooms) {
  RoomServer rs(
      [](config::Config& c) {
        c.max_rooms = 3;
        c.room_eviction = "off";
      },
      nullptr, tour_rooms(1));
  ASSERT_TRUE(visit(rs.port(), "beta").has_welcome());
  ASSERT_TRUE(visit(rs.port(), "gamma").has_welcome());
  EXPECT_EQ((*room_entry(rooms_json(rs.port()), "r1"))["on_join"], "full");
  const v1::ServerMessage m = visit(rs.port(), "r1");
  ASSERT_TRUE(m.has_close()) << m.DebugString();
  EXPECT_NE(m.close().reason().find("max_rooms"), std::string::npos) << m.close().reason();
  EXPECT_NE(rs.server().rooms().running("beta"), nullptr);
}

TEST(RoomsMakeWay, ARoomThatMadeWayDeletesItsSavedStateLikeAnIdleRoom) {
  testing::TempDir dir;
  const std::string beta_file = game::room_state_path(dir.path().string(), "beta");
  {
    RoomServer rs([&](config::Config& c) {
      c.max_rooms = 2;
      c.state_dir = dir.path().string();
      c.state_save_interval_s = 1;
    });
    WsClient b;
    ASSERT_TRUE(join_room(b, rs.port(), "beta").has_welcome());
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!std::filesystem::exists(beta_file) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(20ms);
    ASSERT_TRUE(std::filesystem::exists(beta_file)) << "beta was never saved";
    b.close();
    EXPECT_TRUE(wait_rooms(rs.port(), [](const json& j) { return (*room_entry(j, "beta"))["spectators"] == 0; }));
    ASSERT_TRUE(visit(rs.port(), "gamma").has_welcome());
    EXPECT_TRUE(rs.logged("made way for 'gamma'"));  // logged once closed, file deleted
    EXPECT_FALSE(std::filesystem::exists(beta_file));
  }
  // A restart brings back the rooms that ran at the stop, not the one that made way.
  RoomServer again([&](config::Config& c) {
    c.max_rooms = 2;
    c.state_dir = dir.path().string();
  });
  EXPECT_EQ(again.server().rooms().running("beta"), nullptr);
  EXPECT_NE(again.server().rooms().running("gamma"), nullptr);
}

TEST(Tuning, AdminApiRefusesWithoutTheToken) {
  {
    RoomServer off([](config::Config& c) { c.admin_token.clear(); });
    EXPECT_EQ(http(off.port(), "POST", "/api/admin/rooms/lobby/groups/0", "", R"({"max_speed":3})").first, 404);
  }
  RoomServer rs;
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", "", R"({"max_speed":3})").first, 401);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", "wrong", R"({"max_speed":3})").first, 401);
}

TEST(Tuning, BadRequestsNameTheKey) {
  RoomServer rs;
  const std::string t = "tune-token";
  auto [c1, b1] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, R"({"max_sped":3})");
  EXPECT_EQ(c1, 400);
  EXPECT_EQ(json::parse(b1)["key"], "max_sped") << b1;
  auto [c2, b2] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, R"({"max_speed":"fast"})");
  EXPECT_EQ(c2, 400);
  EXPECT_NE(b2.find("max_speed"), std::string::npos) << b2;
  auto [c3, b3] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, R"({"max_speed":-1})");
  EXPECT_EQ(c3, 400);
  EXPECT_NE(b3.find("max_speed"), std::string::npos) << b3;
  auto [c4, b4] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, R"({"count":1.5})");
  EXPECT_EQ(c4, 400);
  EXPECT_NE(b4.find("count"), std::string::npos) << b4;
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, "not json").first, 400);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/7", t, R"({"max_speed":3})").first, 404);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/nowhere/groups/0", t, R"({"max_speed":3})").first, 404);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/beta/groups/0", t, R"({"max_speed":3})").first, 409);
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/rooms/lobby/groups/0", t).first, 405);
  // Bodies up to 16 KiB are read for admin POSTs (padding with spaces is valid JSON).
  const std::string padded = R"({"max_speed":5)" + std::string(12000, ' ') + "}";
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, padded).first, 200);
  // Beyond 16 KiB, and beyond 1 KiB anywhere else: 413.
  const std::string huge = R"({"max_speed":5)" + std::string(17000, ' ') + "}";
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, huge).first, 413);
  EXPECT_EQ(http(rs.port(), "GET", "/api/rooms", "", std::string(2000, ' ')).first, 413);
}

TEST(Tuning, AppliedAtATickAndBroadcastAsGroupUpdate) {
  RoomServer rs;
  WsClient s;
  ASSERT_TRUE(join_room(s, rs.port(), "").has_welcome());
  auto [code, body] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", "tune-token",
                           R"({"max_speed":3.5,"flock.w_separation":2.25})");
  ASSERT_EQ(code, 200) << body;
  const json r = json::parse(body);
  EXPECT_EQ(r["group"], 0);
  EXPECT_GT(r["tick"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(r["spec"]["max_speed"], 3.5);
  EXPECT_EQ(r["spec"]["flock.w_separation"], 2.25);
  EXPECT_EQ(r["spec"]["count"], 40);
  EXPECT_EQ(r["spec"]["name"], "boids");
  // Every client of the room gets the update with the applied tick.
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(s, v1::ServerMessage::kGroupUpdate, m));
  EXPECT_EQ(m.group_update().server_tick(), r["tick"].get<std::uint64_t>());
  EXPECT_EQ(m.group_update().group(), 0);
  sim::GroupSpec g;
  ASSERT_TRUE(codec::decode_group(m.group_update().spec(), "spec", g).ok());
  EXPECT_EQ(g.max_speed, 3.5);
  EXPECT_EQ(g.flock.w_separation, 2.25);
  // A later Welcome carries the tuned group.
  WsClient late;
  const v1::ServerMessage w = join_room(late, rs.port(), "");
  sim::Scenario sc;
  ASSERT_TRUE(codec::decode_world_spec(w.welcome().world(), sc).ok());
  EXPECT_EQ(sc.groups[0].max_speed, 3.5);
}

TEST(Tuning, CompositionWeightsPrioritiesAndBehaviourParametersAreTunable) {
  sim::Scenario lobby = world_named("lobby", 0);
  sim::GroupSpec g;
  g.name = "walkers";
  g.count = 3;
  g.technique = sim::Technique::kComposed;
  g.model = sim::Model::kSteering;
  g.compose.combiner = sim::Combiner::kGrouped;
  sim::BehaviorSpec seek;
  seek.type = sim::BehaviorType::kDynamicSeek;
  seek.goal = {60, 60};
  sim::BehaviorSpec wander;
  wander.type = sim::BehaviorType::kDynamicWander;
  wander.priority = 1;
  g.compose.behaviors = {seek, wander};
  lobby.groups = {g};
  RoomServer rs({}, &lobby);
  WsClient s;
  ASSERT_TRUE(join_room(s, rs.port(), "").has_welcome());
  const std::string t = "tune-token";
  auto [code, body] =
      http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t,
           R"({"behaviors[0].weight":0.25,"behaviors[1].priority":2,"behaviors[0].goal.x":30,"sharpness":3})");
  ASSERT_EQ(code, 200) << body;
  const json r = json::parse(body);
  EXPECT_EQ(r["spec"]["behaviors[0].weight"], 0.25);
  EXPECT_EQ(r["spec"]["behaviors[1].priority"], 2);
  EXPECT_EQ(r["spec"]["behaviors[0].goal.x"], 30);
  EXPECT_EQ(r["spec"]["behaviors[0].type"], "dynamic_seek");
  // Clients get the new composition in the GroupUpdate.
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(s, v1::ServerMessage::kGroupUpdate, m));
  sim::GroupSpec got;
  ASSERT_TRUE(codec::decode_group(m.group_update().spec(), "spec", got).ok());
  ASSERT_EQ(got.compose.behaviors.size(), 2u);
  EXPECT_EQ(got.compose.behaviors[0].weight, 0.25);
  EXPECT_EQ(got.compose.behaviors[1].priority, 2);
  EXPECT_EQ(got.compose.sharpness, 3);
  // A behaviour the group does not have, a field no behaviour has, an invalid value: 400 naming the key.
  auto [c1, b1] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, R"({"behaviors[5].weight":1})");
  EXPECT_EQ(c1, 400) << b1;
  EXPECT_EQ(json::parse(b1)["key"], "behaviors[5].weight") << b1;
  auto [c2, b2] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, R"({"behaviors[0].colour":1})");
  EXPECT_EQ(c2, 400) << b2;
  auto [c3, b3] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", t, R"({"behaviors[0].priority":3})");
  EXPECT_EQ(c3, 400) << b3;  // priorities must not decrease along the list
  EXPECT_NE(b3.find("priority"), std::string::npos) << b3;
}

TEST(Tuning, CountChangeSpawnsAndDespawnsAgents) {
  RoomServer rs;
  auto [code, body] = http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", "tune-token", R"({"count":55})");
  ASSERT_EQ(code, 200) << body;
  EXPECT_EQ(json::parse(body)["spec"]["count"], 55);
  EXPECT_TRUE(wait_rooms(rs.port(), [](const json& j) { return j["rooms"][0]["agents"] == 55; }));
  WsClient s;
  ASSERT_TRUE(join_room(s, rs.port(), "").has_welcome());
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(s, v1::ServerMessage::kDeltaSnapshot, m));
  EXPECT_EQ(m.delta_snapshot().agent_count(), 55u);
  ASSERT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", "tune-token", R"({"count":12})").first, 200);
  EXPECT_TRUE(wait_rooms(rs.port(), [](const json& j) { return j["rooms"][0]["agents"] == 12; }));
}

TEST(Export, ScenarioOfARoomIncludesTheTuningAndParsesBack) {
  RoomServer rs;
  ASSERT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", "tune-token", R"({"max_speed":4.25,"count":33})")
                .first,
            200);
  auto [code, body] = http(rs.port(), "GET", "/api/rooms/lobby/scenario");
  ASSERT_EQ(code, 200) << body;
  sim::Scenario s = game::parse_scenario(body);
  EXPECT_EQ(s.name, "lobby");
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].max_speed, 4.25);
  EXPECT_EQ(s.groups[0].count, 33);
  // A room that is not running exports its file; unknown names are 404.
  auto [c2, b2] = http(rs.port(), "GET", "/api/rooms/beta/scenario");
  ASSERT_EQ(c2, 200) << b2;
  EXPECT_EQ(game::parse_scenario(b2).groups[0].count, 10);
  EXPECT_EQ(http(rs.port(), "GET", "/api/rooms/nowhere/scenario").first, 404);
}

/// The records of a recording file after the magic; false if the framing is broken.
bool read_records(const std::string& path, std::string& magic, std::vector<std::string>& records) {
  std::ifstream in(path, std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (all.size() < 8) return false;
  magic = all.substr(0, 8);
  std::size_t at = 8;
  while (at < all.size()) {
    if (all.size() - at < 4) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(all.data() + at);
    const std::uint32_t n = p[0] | (p[1] << 8) | (p[2] << 16) | (std::uint32_t{p[3]} << 24);
    at += 4;
    if (all.size() - at < n) return false;
    records.push_back(all.substr(at, n));
    at += n;
  }
  return true;
}

TEST(Recording, WelcomeThenDeltaSnapshotsWithKeyframesThatDecodeToTheWorld) {
  testing::TempDir dir;
  const std::string file = (dir.path() / "rec.fsrec").string();
  {
    RoomServer rs([&](config::Config& c) {
      c.record = file;
      c.record_keyframe_s = 1;
      c.tick_rate_hz = 60;
      c.snapshot_rate_hz = 20;
    });
    std::this_thread::sleep_for(1200ms);
    ASSERT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/groups/0", "tune-token", R"({"count":30})").first, 200);
    std::this_thread::sleep_for(1500ms);
  }
  std::string magic;
  std::vector<std::string> records;
  ASSERT_TRUE(read_records(file, magic, records));
  EXPECT_EQ(magic, "FSREC001");
  ASSERT_GT(records.size(), 20u);
  v1::ServerMessage first;
  ASSERT_TRUE(codec::decode_server_message(bytes_of(records[0]), first).ok());
  ASSERT_TRUE(first.has_welcome());
  EXPECT_EQ(first.welcome().role(), v1::ROLE_SPECTATOR);
  EXPECT_EQ(first.welcome().player_id(), 0u);
  EXPECT_EQ(first.welcome().entity_id(), 0u);
  EXPECT_EQ(first.welcome().room(), "lobby");
  sim::Scenario sc;
  ASSERT_TRUE(codec::decode_world_spec(first.welcome().world(), sc).ok());
  codec::SnapshotReceiver rx;
  rx.configure(sc);
  std::vector<std::uint64_t> keyframes;
  std::uint64_t previous = 0;
  int snapshots = 0, updates = 0;
  std::uint32_t expected_agents = 40;
  for (std::size_t i = 1; i < records.size(); ++i) {
    v1::ServerMessage m;
    ASSERT_TRUE(codec::decode_server_message(bytes_of(records[i]), m).ok()) << i;
    if (m.has_group_update()) {
      ++updates;
      expected_agents = static_cast<std::uint32_t>(m.group_update().spec().count());
      continue;
    }
    if (!m.has_delta_snapshot()) continue;
    const v1::DeltaSnapshot& d = m.delta_snapshot();
    if (snapshots == 0) {
      EXPECT_EQ(d.baseline_tick(), 0u) << "the first snapshot is a keyframe";
    }
    if (d.baseline_tick() == 0) {
      keyframes.push_back(d.server_tick());
    } else {
      EXPECT_EQ(d.baseline_tick(), previous) << "coded against the previous recorded snapshot";
    }
    ASSERT_TRUE(rx.receive(d).ok()) << "snapshot " << d.server_tick();
    EXPECT_EQ(rx.tick(), d.server_tick());
    // The whole world: the agent count matches the room (spawned/despawned at the update's tick).
    EXPECT_EQ(rx.agents().size(), expected_agents) << d.server_tick();
    previous = d.server_tick();
    ++snapshots;
  }
  EXPECT_EQ(updates, 1);
  EXPECT_GE(snapshots, 40);
  ASSERT_GE(keyframes.size(), 2u);
  for (std::size_t i = 1; i < keyframes.size(); ++i)
    EXPECT_EQ(keyframes[i] - keyframes[i - 1], 60u) << "one per record_keyframe_s";
}

TEST(Recording, AnUnwritableFileLogsOnceAndTheGameRunsOn) {
  RoomServer rs([](config::Config& c) { c.record = "/nonexistent-dir-flockstep/rec.fsrec"; });
  WsClient s;
  ASSERT_TRUE(join_room(s, rs.port(), "").has_welcome());
  v1::ServerMessage m;
  EXPECT_TRUE(next_of(s, v1::ServerMessage::kDeltaSnapshot, m));
  EXPECT_TRUE(rs.logged("recording_stopped"));
}

TEST(InputLogApi, StartStopListDownloadAndRefusals) {
  testing::TempDir dir;
  RoomServer rs([&](config::Config& c) {
    c.recordings_dir = (dir.path() / "recordings").string();
    c.bots = 1;
  });
  const std::string t = "tune-token";
  // Without the token nothing is said; unknown rooms and actions are 404, idle rooms 409.
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/recording/start").first, 401);
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/recordings").first, 401);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/nowhere/recording/start", t).first, 404);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/recording/rewind", t).first, 404);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/beta/recording/start", t).first, 409);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/recording/stop", t).first, 409);
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/rooms/lobby/recording/start", t).first, 405);
  {
    auto [code, body] = http(rs.port(), "GET", "/api/admin/recordings", t);
    ASSERT_EQ(code, 200) << body;
    const json j = json::parse(body);
    EXPECT_EQ(j["enabled"], true);
    EXPECT_TRUE(j["recordings"].empty());
  }
  auto [c1, b1] = http(rs.port(), "POST", "/api/admin/rooms/lobby/recording/start", t);
  ASSERT_EQ(c1, 200) << b1;
  const std::string file = json::parse(b1)["file"];
  EXPECT_EQ(file.rfind("lobby-", 0), 0u) << file;
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/rooms/lobby/recording/start", t).first, 409);  // already
  // A player steers while it records.
  WsClient p;
  const v1::ServerMessage w = join_room(p, rs.port(), "", codec::Role::kPlayer);
  ASSERT_TRUE(w.has_welcome());
  for (std::uint32_t seq = 1; seq <= 40; ++seq) {
    std::string b;
    const codec::InputFrame f{seq, seq < 20 ? 0.8 : -0.4, 1.0};
    ASSERT_TRUE(codec::encode_input({&f, 1}, b));
    ASSERT_TRUE(p.send(b));
    std::this_thread::sleep_for(25ms);
  }
  {
    auto [code, body] = http(rs.port(), "GET", "/api/admin/recordings", t);
    ASSERT_EQ(code, 200) << body;
    const json j = json::parse(body);
    ASSERT_EQ(j["recordings"].size(), 1u) << body;
    EXPECT_EQ(j["recordings"][0]["recording"], true);
    EXPECT_EQ(j["recordings"][0]["complete"], false);
  }
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/recordings/" + file, t).first, 409);  // still recording
  auto [c2, b2] = http(rs.port(), "POST", "/api/admin/rooms/lobby/recording/stop", t);
  ASSERT_EQ(c2, 200) << b2;
  EXPECT_EQ(json::parse(b2)["file"], file);
  auto [c3, b3] = http(rs.port(), "GET", "/api/admin/recordings", t);
  ASSERT_EQ(c3, 200) << b3;
  const json row = json::parse(b3)["recordings"][0];
  EXPECT_EQ(row["file"], file);
  EXPECT_EQ(row["room"], "lobby");
  EXPECT_EQ(row["scenario"], "lobby");
  EXPECT_EQ(row["recording"], false);
  EXPECT_EQ(row["complete"], true);
  EXPECT_EQ(row["end_reason"], "admin stop");
  EXPECT_GT(row["ticks"].get<std::uint64_t>(), 30u);  // about a second went by
  // The download is the file, and it replays without a divergence to its end.
  raw::Fd fd(raw::connect_tcp(rs.port()));
  ASSERT_TRUE(raw::send_all(fd.get(), "GET /api/admin/recordings/" + file +
                                          " HTTP/1.1\r\nHost: t\r\nConnection: close\r\nAuthorization: Bearer " + t +
                                          "\r\n\r\n"));
  std::string resp;
  raw::wait_eof(fd.get(), 3s, &resp);
  const auto head_end = resp.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos);
  EXPECT_EQ(resp.rfind("HTTP/1.1 200", 0), 0u) << resp.substr(0, 100);
  EXPECT_NE(resp.substr(0, head_end).find("application/octet-stream"), std::string::npos);
  const std::string body = resp.substr(head_end + 4);
  EXPECT_EQ(body.size(), row["bytes"].get<std::uint64_t>());
  std::string error;
  auto player = codec::InputLogPlayer::open(body, error);
  ASSERT_NE(player, nullptr) << error;
  EXPECT_EQ(player->first_tick(), row["first_tick"].get<std::uint64_t>());
  EXPECT_EQ(player->last_tick(), row["last_tick"].get<std::uint64_t>());
  while (player->step()) {
  }
  EXPECT_EQ(player->tick(), player->last_tick());
  EXPECT_GE(player->hashes_checked(), 1u);
  EXPECT_TRUE(player->divergences().empty());
  EXPECT_GT(player->command_count(), 2u);  // the join and the player's inputs at least
  // Names that are not recordings, and files that do not exist: 404.
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/recordings/..%2fsecret.fslog", t).first, 404);
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/recordings/nothere.fslog", t).first, 404);
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/recordings/" + file + ".txt", t).first, 404);
}

TEST(InputLogApi, RecordRoomsRecordsARoomFromItsStartAndRecordingsOffIs503) {
  testing::TempDir dir;
  {
    RoomServer rs([&](config::Config& c) {
      c.recordings_dir = dir.path().string();
      c.record_rooms = "lobby, beta";
    });
    WsClient s;
    ASSERT_TRUE(join_room(s, rs.port(), "beta").has_welcome());  // starts beta, recorded from its start
    std::this_thread::sleep_for(300ms);
    auto [code, body] = http(rs.port(), "GET", "/api/admin/recordings", "tune-token");
    ASSERT_EQ(code, 200) << body;
    const json j = json::parse(body);
    ASSERT_EQ(j["recordings"].size(), 2u) << body;
    for (const json& r : j["recordings"]) EXPECT_EQ(r["recording"], true) << r.dump();
  }
  // The server stopped: each recording ended with its room, complete.
  std::size_t complete = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream o;
    o << in.rdbuf();
    std::string error;
    auto p = codec::InputLogPlayer::open(o.str(), error);
    ASSERT_NE(p, nullptr) << e.path() << ": " << error;
    EXPECT_EQ(p->end_reason(), "room closed");
    ++complete;
  }
  EXPECT_EQ(complete, 2u);
  RoomServer off;
  EXPECT_EQ(http(off.port(), "POST", "/api/admin/rooms/lobby/recording/start", "tune-token").first, 503);
}

}  // namespace
}  // namespace flockstep::server::net
