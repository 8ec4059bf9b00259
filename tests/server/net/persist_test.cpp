// Rooms that survive a restart, end to end with the real flockstep-server binary: players in two
// rooms, SIGTERM, a NEW process on the same state_dir. The rooms continue from the saved tick
// with the same world (the restored state hash is the saved one), and the players resume with
// their tokens: same player id, same craft, and a score that kept counting from before the
// restart. The control runs the same steps without a state_dir: the rooms start over and the
// tokens are refused.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "../test_util.hpp"
#include "child_process.hpp"
#include "codec/client_codec.hpp"
#include "codec/server_codec.hpp"
#include "ws_client.hpp"

namespace flockstep::server {
namespace {

using namespace std::chrono_literals;
using testing::Child;
using testing::TempDir;

const std::string kSource = FLOCKSTEP_SOURCE_DIR;
// Two shipped scenarios with nothing that captures a player, so a craft's life (its score's
// alive_ticks) only ever grows: a restored craft shows it kept counting.
const std::string kDefaultRoom = "slides_walls";
const std::string kOtherRoom = "slides_obstacles";

std::vector<std::string> server_args(const std::string& state_dir) {
  std::vector<std::string> a = {"--port=0",
                                "--host=127.0.0.1",
                                "--scenario=" + kSource + "/scenarios/" + kDefaultRoom + ".json",
                                "--scenario-dir=" + kSource + "/scenarios",
                                "--resume-window-ms=60000",
                                "--state-save-interval-s=1"};
  if (!state_dir.empty()) a.push_back("--state-dir=" + state_dir);
  return a;
}

std::uint16_t port_of(Child& c) {
  const auto p = c.wait_for(std::regex("listening .*port=([0-9]+)"), 20s);
  EXPECT_TRUE(p) << c.output();
  return p ? static_cast<std::uint16_t>(std::stoi(*p)) : 0;
}

/// The next server message matching `want`, within `timeout`.
std::optional<v1::ServerMessage> next(bot::WsClient& ws, bool (*want)(const v1::ServerMessage&),
                                      std::chrono::milliseconds timeout = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string bytes;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ws.receive(bytes, 50ms) != bot::Receive::kMessage) {
      if (ws.closed()) return std::nullopt;
      continue;
    }
    v1::ServerMessage m;
    if (m.ParseFromString(bytes) && want(m)) return m;
  }
  return std::nullopt;
}

struct Player {
  bot::WsClient ws;
  v1::Welcome welcome;
};

/// Join `room` as a player (with `token` to resume); the Welcome, or nullopt if refused.
std::optional<v1::Welcome> join(bot::WsClient& ws, std::uint16_t port, const std::string& room, const std::string& name,
                                const std::string& token = {}) {
  EXPECT_TRUE(ws.connect("127.0.0.1", port)) << ws.error();
  codec::JoinRequest j{codec::Role::kPlayer, name, token};
  j.room = room;
  std::string bytes;
  codec::encode_join(j, bytes);
  EXPECT_TRUE(ws.send(bytes));
  auto m = next(ws, [](const v1::ServerMessage& x) { return x.has_welcome(); });
  if (!m) return std::nullopt;
  return m->welcome();
}

/// Steer a little (the crafts move, and the room has input sequences to keep).
void steer(bot::WsClient& ws, std::uint32_t from, std::uint32_t count) {
  std::vector<codec::InputFrame> frames;
  for (std::uint32_t i = 0; i < count; ++i) frames.push_back({from + i, 0.5, 1.0});
  std::string bytes;
  codec::encode_input(frames, bytes);
  EXPECT_TRUE(ws.send(bytes));
}

/// The player's newest Score (sent once a second), waiting up to 3 s for one.
std::optional<v1::Score> score_of(bot::WsClient& ws, std::uint32_t player_id) {
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto m = next(
        ws, [](const v1::ServerMessage& x) { return x.has_events() && x.events().scores_size() > 0; }, 1s);
    if (!m) continue;
    for (const v1::Score& s : m->events().scores())
      if (s.player_id() == player_id) return s;
  }
  return std::nullopt;
}

struct Saved {
  std::uint64_t tick = 0;
  std::string hash;
};

/// `event room=NAME tick=T state_hash=H` from a server's log.
std::optional<Saved> logged(const std::string& log, const std::string& event, const std::string& room) {
  std::smatch m;
  if (!std::regex_search(log, m, std::regex(event + " room=" + room + " tick=([0-9]+) state_hash=([0-9a-f]{16})")))
    return std::nullopt;
  return Saved{std::stoull(m[1].str()), m[2].str()};
}

/// GET /api/rooms: the room's row.
nlohmann::json room_row(std::uint16_t port, const std::string& room) {
  const auto r = bot::http_get("127.0.0.1", port, "/api/rooms");
  EXPECT_EQ(r.status, 200);
  const auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_object() && j.contains("rooms"))
    for (const auto& row : j["rooms"])
      if (row.value("name", "") == room) return row;
  ADD_FAILURE() << "no room " << room << " in " << r.body;
  return {};
}

struct FirstRun {
  Player home, side;
  Saved home_saved, side_saved;
};

/// Start a server, put a player in each room, let them play ~2 s, SIGTERM it.
void first_run(const std::string& state_dir, FirstRun& out) {
  Child server(server_args(state_dir));
  const std::uint16_t port = port_of(server);
  ASSERT_NE(port, 0);
  auto w1 = join(out.home.ws, port, "", "ada");
  auto w2 = join(out.side.ws, port, kOtherRoom, "bob");
  ASSERT_TRUE(w1 && w2);
  out.home.welcome = *w1;
  out.side.welcome = *w2;
  for (std::uint32_t seq = 1; seq <= 120; seq += 6) {
    steer(out.home.ws, seq, 6);
    steer(out.side.ws, seq, 6);
    std::this_thread::sleep_for(100ms);
  }
  server.signal(SIGTERM);
  const auto code = server.wait_exit(10s);
  ASSERT_TRUE(code) << server.output();
  ASSERT_EQ(*code, 0) << server.output();
  if (!state_dir.empty()) {
    auto h = logged(server.output(), "room_saved", kDefaultRoom);
    auto s = logged(server.output(), "room_saved", kOtherRoom);
    ASSERT_TRUE(h && s) << server.output();
    out.home_saved = *h;
    out.side_saved = *s;
  }
}

TEST(RoomPersistence, SigtermSavesEveryRoomAndANewProcessContinuesThemAndPlayersResumeCraftAndScore) {
  TempDir dir;
  const std::string state = (dir.path() / "state").string();
  FirstRun first;
  first_run(state, first);
  if (HasFatalFailure()) return;
  // Two seconds of play: well past the first welcome's tick.
  ASSERT_GT(first.home_saved.tick, first.home.welcome.server_tick() + 60);
  ASSERT_GT(first.side_saved.tick, first.side.welcome.server_tick() + 60);

  Child server(server_args(state));
  const std::uint16_t port = port_of(server);
  ASSERT_NE(port, 0);
  // Restored before listening, bit for bit: the restored world hashes as the saved one did.
  for (auto [room, saved] : {std::pair{kDefaultRoom, first.home_saved}, std::pair{kOtherRoom, first.side_saved}}) {
    auto restored = logged(server.output(), "room_restored", room);
    ASSERT_TRUE(restored) << server.output();
    EXPECT_EQ(restored->tick, saved.tick) << room;
    EXPECT_EQ(restored->hash, saved.hash) << room;
    const nlohmann::json row = room_row(port, room);
    EXPECT_TRUE(row.value("running", false)) << room << " runs before anyone joins it";
    EXPECT_GE(row.value("tick", 0ull), saved.tick) << room;
  }
  EXPECT_NE(server.output().find("rooms_restored=2"), std::string::npos) << server.output();

  // Both players come back with their tokens: the same player ids and crafts, and the scores
  // kept counting the lives they had before the restart.
  for (auto [p, room, saved] : {std::tuple{&first.home, std::string(), first.home_saved},
                                std::tuple{&first.side, kOtherRoom, first.side_saved}}) {
    bot::WsClient ws;
    auto w = join(ws, port, room, "back", p->welcome.resume_token());
    ASSERT_TRUE(w) << "resume refused: " << ws.close_reason();
    EXPECT_EQ(w->player_id(), p->welcome.player_id());
    EXPECT_EQ(w->entity_id(), p->welcome.entity_id());
    EXPECT_GE(w->server_tick(), saved.tick);
    const auto score = score_of(ws, w->player_id());
    ASSERT_TRUE(score) << "no Score for the resumed player";
    EXPECT_GE(score->alive_ticks(), saved.tick - p->welcome.server_tick())
        << "the craft's life started over: the score was not kept";
  }
}

TEST(RoomPersistence, ControlWithoutAStateDirARestartStartsTheRoomsOverAndRefusesTheTokens) {
  FirstRun first;
  first_run("", first);
  if (HasFatalFailure()) return;
  Child server(server_args(""));
  const std::uint16_t port = port_of(server);
  ASSERT_NE(port, 0);
  EXPECT_EQ(server.output().find("room_restored"), std::string::npos);
  const nlohmann::json home = room_row(port, kDefaultRoom);
  EXPECT_LT(home.value("tick", 0ull), 60u) << "a fresh room starts from tick 0";
  EXPECT_FALSE(room_row(port, kOtherRoom).value("running", true));
  for (auto [p, room] : {std::pair{&first.home, std::string()}, std::pair{&first.side, kOtherRoom}}) {
    bot::WsClient ws;
    EXPECT_FALSE(join(ws, port, room, "back", p->welcome.resume_token()));
    EXPECT_TRUE(ws.wait_closed(3s));
    EXPECT_NE(ws.close_reason().find("resume token unknown"), std::string::npos) << ws.close_reason();
  }
}

}  // namespace
}  // namespace flockstep::server
