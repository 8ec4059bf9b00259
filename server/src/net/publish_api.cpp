#include "net/publish_api.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "game/published_rooms.hpp"
#include "game/rooms.hpp"
#include "net/api_json.hpp"

namespace flockstep::server::net {

namespace {

using nlohmann::json;

ApiResponse published_json(const game::Rooms& rooms) {
  json list = json::array();
  for (const game::PublishedInfo& p : rooms.published())
    list.push_back({{"name", p.name}, {"description", p.description}, {"agents", p.agents}, {"running", p.running}});
  const game::PublishSettings& s = rooms.publish_settings();
  return reply(200, {{"enabled", !s.dir.empty()},
                     {"max_published", s.max_rooms},
                     {"max_agents", s.max_agents},
                     {"max_bytes", game::kPublishBodyLimit},
                     {"max_name_bytes", game::kPublishedNameMaxBytes},
                     {"published", std::move(list)}});
}

ApiResponse result_json(std::string_view name, const game::PublishResult& r, bool put) {
  if (r.status != 200) {
    json j = {{"error", r.error}};
    if (!r.key.empty()) j["key"] = r.key;
    return reply(static_cast<unsigned>(r.status), j);
  }
  json j = {{"name", std::string(name)}, {"closed", r.closed}};
  if (put) {
    j["replaced"] = r.replaced;
    j["agents"] = r.agents;
  }
  return reply(200, j);
}

}  // namespace

ApiResponse published_route(game::Rooms& rooms, std::string_view method, std::string_view path, std::string_view body,
                            std::chrono::milliseconds timeout) {
  const std::string_view tail = path.substr(std::min(path.size(), kPublishedPrefix.size()));
  if (tail.empty()) {
    if (method != "GET" && method != "HEAD") return reply(405, {{"error", "use GET"}});
    return published_json(rooms);
  }
  if (tail.front() != '/') return reply(404, {{"error", "no such admin route"}});
  const std::string_view name = tail.substr(1);
  if (method == "PUT") return result_json(name, rooms.publish(name, body, timeout), true);
  if (method == "DELETE") return result_json(name, rooms.unpublish(name, timeout), false);
  return reply(405, {{"error", "use PUT to publish or DELETE to unpublish"}});
}

}  // namespace flockstep::server::net
