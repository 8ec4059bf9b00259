// Publishing from the lab over loopback: PUT/GET/DELETE /api/admin/published with the admin
// token, a published room joined like any room, a bad scenario refused with the field named and
// nothing changed, every limit (name, agents, rooms, body size), and a restart that keeps the
// published rooms. An in-process server on an OS-chosen port (room_server.hpp).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../test_util.hpp"
#include "game/published_rooms.hpp"
#include "room_server.hpp"

namespace flockstep::server::net {
namespace {

using namespace rooms_harness;
using harness::next_of;
using testing::TempDir;

constexpr const char* kToken = "tune-token";

/// A scenario file as the lab exports one: `boids` flockers and `wanderers` wanderers.
std::string scenario_body(int boids, int wanderers = 4, const std::string& name = "from-the-lab") {
  return json{{"name", name},
              {"description", "composed in the lab"},
              {"width", 90},
              {"height", 70},
              {"seed", 7},
              {"max_agents", 256},
              {"groups",
               {{{"name", "boids"}, {"technique", "flock"}, {"count", boids}},
                {{"name", "wanderers"}, {"technique", "wander"}, {"count", wanderers}}}}}
      .dump();
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream o;
  o << in.rdbuf();
  return o.str();
}

std::function<void(config::Config&)> publishing(const TempDir& dir, std::function<void(config::Config&)> more = {}) {
  return [&dir, more](config::Config& c) {
    c.published_dir = (dir.path() / "published").string();
    if (more) more(c);
  };
}

json put(std::uint16_t port, const std::string& name, const std::string& body, int want) {
  auto [code, text] = http(port, "PUT", "/api/admin/published/" + name, kToken, body);
  EXPECT_EQ(code, want) << name << ": " << text;
  return json::parse(text, nullptr, false);
}

TEST(PublishApi, PublishedRoomIsListedJoinedLikeAnyRoomAndUnpublishClosesIt) {
  TempDir dir;
  RoomServer rs(publishing(dir));
  const json ok = put(rs.port(), "shoal-2", scenario_body(12, 5), 200);
  EXPECT_EQ(ok["name"], "shoal-2");
  EXPECT_EQ(ok["agents"], 17);
  EXPECT_EQ(ok["replaced"], false);
  // Kept in published_dir, readable by the server's user only.
  const std::filesystem::path file = dir.path() / "published" / "shoal-2.json";
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // Listed by the admin API and in the lobby, marked as published, starting on join.
  const auto [lc, list] = http(rs.port(), "GET", "/api/admin/published", kToken);
  ASSERT_EQ(lc, 200) << list;
  const json l = json::parse(list);
  ASSERT_EQ(l["published"].size(), 1u) << list;
  EXPECT_EQ(l["published"][0]["name"], "shoal-2");
  EXPECT_EQ(l["published"][0]["agents"], 17);
  const json lobby = rooms_json(rs.port());
  const json* e = room_entry(lobby, "shoal-2");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ((*e)["published"], true);
  EXPECT_EQ((*e)["on_join"], "starts");
  EXPECT_EQ((*room_entry(rooms_json(rs.port()), "beta"))["published"], false);
  // A spectator joins it like any room and sees its agents.
  WsClient s;
  const v1::ServerMessage w = join_room(s, rs.port(), "shoal-2");
  ASSERT_TRUE(w.has_welcome()) << w.DebugString();
  EXPECT_EQ(w.welcome().room(), "shoal-2");
  ASSERT_EQ(w.welcome().world().groups_size(), 2);
  EXPECT_EQ(w.welcome().world().groups(0).count(), 12);
  EXPECT_EQ(w.welcome().world().groups(1).count(), 5);
  v1::ServerMessage snap;
  ASSERT_TRUE(next_of(s, v1::ServerMessage::kDeltaSnapshot, snap));
  EXPECT_EQ(snap.delta_snapshot().agent_count(), 17u);
  // Unpublish: the spectator is told why, the file and the lobby entry are gone.
  const auto [dc, del] = http(rs.port(), "DELETE", "/api/admin/published/shoal-2", kToken);
  ASSERT_EQ(dc, 200) << del;
  EXPECT_EQ(json::parse(del)["closed"], true);
  v1::ServerMessage closed;
  ASSERT_TRUE(next_of(s, v1::ServerMessage::kClose, closed));
  EXPECT_NE(closed.close().reason().find("unpublished"), std::string::npos) << closed.close().reason();
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_EQ(room_entry(rooms_json(rs.port()), "shoal-2"), nullptr);
  EXPECT_EQ(http(rs.port(), "DELETE", "/api/admin/published/shoal-2", kToken).first, 404);
  WsClient late;
  EXPECT_TRUE(join_room(late, rs.port(), "shoal-2").has_close());
  EXPECT_TRUE(rs.logged("room_unpublished"));
}

TEST(PublishApi, ABadScenarioNamesTheFieldAndChangesNothing) {
  TempDir dir;
  RoomServer rs(publishing(dir));
  put(rs.port(), "tuned", scenario_body(10), 200);
  const std::filesystem::path file = dir.path() / "published" / "tuned.json";
  const std::string saved = read_file(file);
  const json before = json::parse(http(rs.port(), "GET", "/api/rooms/tuned/scenario").second);
  struct Case {
    std::string body, key;
  };
  json bad_count = json::parse(scenario_body(10));
  bad_count["groups"][1]["count"] = "many";
  json bad_key = json::parse(scenario_body(10));
  bad_key["groups"][0]["max_sped"] = 3;
  json bad_width = json::parse(scenario_body(10));
  bad_width["width"] = -5;
  for (const Case& c : {Case{bad_count.dump(), "groups[1].count"}, Case{bad_key.dump(), "groups[0].max_sped"},
                        Case{bad_width.dump(), "width"}, Case{"{\"groups\": [", ""}}) {
    const json j = put(rs.port(), "tuned", c.body, 400);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j.value("key", ""), c.key) << j.dump();
    if (!c.key.empty()) {
      EXPECT_EQ(j["error"].get<std::string>().rfind(c.key + ":", 0), 0u) << j.dump();
    }
    // A new name is not published either.
    put(rs.port(), "fresh", c.body, 400);
  }
  EXPECT_EQ(read_file(file), saved);
  EXPECT_EQ(json::parse(http(rs.port(), "GET", "/api/rooms/tuned/scenario").second), before);
  EXPECT_EQ(room_entry(rooms_json(rs.port()), "fresh"), nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "published" / "fresh.json"));
  // Control: a good body does replace it.
  const json again = put(rs.port(), "tuned", scenario_body(20), 200);
  EXPECT_EQ(again["replaced"], true);
  EXPECT_NE(read_file(file), saved);
}

TEST(PublishApi, LimitsOnNamesAgentsRoomsAndBodySize) {
  TempDir dir;
  RoomServer rs(publishing(dir, [](config::Config& c) {
    c.published_max = 2;
    c.published_max_agents = 300;
  }));
  for (const std::string& name :
       std::vector<std::string>{"Upper", "dot.dot", "-dash", "sp%20ace", std::string(33, 'a')})
    EXPECT_EQ(put(rs.port(), name, scenario_body(5), 400)["key"], "name") << name;
  EXPECT_EQ(put(rs.port(), std::string(32, 'a'), scenario_body(5), 200)["name"], std::string(32, 'a'));
  // The agents are bounded through max_agents (a scenario's groups and players must fit in it).
  json many = json::parse(scenario_body(299, 2));
  many["max_agents"] = 400;
  const json over = put(rs.port(), "many", many.dump(), 400);
  EXPECT_EQ(over["key"], "max_agents");
  EXPECT_NE(over["error"].get<std::string>().find("published_max_agents"), std::string::npos) << over.dump();
  json big_capacity = json::parse(scenario_body(5));
  big_capacity["max_agents"] = 5000;
  EXPECT_EQ(put(rs.port(), "roomy", big_capacity.dump(), 400)["key"], "max_agents");
  // A scenario_dir room keeps its name.
  EXPECT_EQ(put(rs.port(), "beta", scenario_body(5), 409)["key"], "name");
  put(rs.port(), "second", scenario_body(5), 200);
  const json full = put(rs.port(), "third", scenario_body(5), 409);
  EXPECT_NE(full["error"].get<std::string>().find("published_max"), std::string::npos) << full.dump();
  put(rs.port(), "second", scenario_body(6), 200);  // replacing one is not one more
  // The body: up to kPublishBodyLimit; more is 413 before it is read.
  json padded = json::parse(scenario_body(5));
  padded["description"] = std::string(game::kPublishBodyLimit, 'x');
  EXPECT_EQ(http(rs.port(), "PUT", "/api/admin/published/second", kToken, padded.dump()).first, 413);
  padded["description"] = std::string(40000, 'x');  // over the other admin routes' 16 KiB
  put(rs.port(), "second", padded.dump(), 200);
  // The admin token guards every publishing route; without published_dir publishing is off.
  EXPECT_EQ(http(rs.port(), "PUT", "/api/admin/published/x", "", scenario_body(5)).first, 401);
  EXPECT_EQ(http(rs.port(), "GET", "/api/admin/published", "wrong").first, 401);
  EXPECT_EQ(http(rs.port(), "POST", "/api/admin/published/x", kToken, scenario_body(5)).first, 405);
  RoomServer off;
  EXPECT_NE(put(off.port(), "x", scenario_body(5), 503)["error"].get<std::string>().find("published_dir"),
            std::string::npos);
  EXPECT_EQ(json::parse(http(off.port(), "GET", "/api/admin/published", kToken).second)["enabled"], false);
}

TEST(PublishApi, ARestartKeepsThePublishedRoomsAndSetsABadFileAside) {
  TempDir dir;
  {
    RoomServer rs(publishing(dir));
    put(rs.port(), "kept", scenario_body(9, 3), 200);
    put(rs.port(), "dropped", scenario_body(4), 200);
    ASSERT_EQ(http(rs.port(), "DELETE", "/api/admin/published/dropped", kToken).first, 200);
  }
  // A file spoilt while the server was down is set aside; the others load.
  std::ofstream(dir.path() / "published" / "spoilt.json") << "{\"groups\": 3}";
  RoomServer rs(publishing(dir));
  const json lobby = rooms_json(rs.port());
  const json* kept = room_entry(lobby, "kept");
  ASSERT_NE(kept, nullptr) << lobby.dump();
  EXPECT_EQ((*kept)["published"], true);
  EXPECT_EQ(room_entry(lobby, "dropped"), nullptr);
  EXPECT_EQ(room_entry(lobby, "spoilt"), nullptr);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "published" / "spoilt.json.bad"));
  EXPECT_TRUE(rs.logged("published_rejected"));
  WsClient s;
  const v1::ServerMessage w = join_room(s, rs.port(), "kept");
  ASSERT_TRUE(w.has_welcome()) << w.DebugString();
  EXPECT_EQ(w.welcome().world().groups(0).count(), 9);
}

}  // namespace
}  // namespace flockstep::server::net
