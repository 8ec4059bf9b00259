#include "net/lobby_api.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <future>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/group_fields.hpp"
#include "net/api_json.hpp"
#include "game/game.hpp"
#include "game/rooms.hpp"
#include "game/scenario_file.hpp"

namespace flockstep::server::net {

namespace {

using nlohmann::json;

ApiResponse error(unsigned status, const std::string& message, std::string_view key = {}) {
  json j = {{"error", message}};
  if (!key.empty()) j["key"] = std::string(key);
  return reply(status, j);
}

/// A group as flat JSON: the keys a tuning request accepts (plus name, kind, technique).
json group_json(const sim::GroupSpec& g) {
  json j = {{"name", g.name},
            {"kind", sim::kind_name(g.kind)},
            {"technique", sim::technique_name(g.technique)},
            {"count", g.count}};
  for (const codec::GroupField& f : codec::group_fields()) {
    const double v = f.get(g);
    if (f.is_bool) j[std::string(f.name)] = v != 0;
    else j[std::string(f.name)] = v;
  }
  if (g.technique == sim::Technique::kComposed) {
    // The composition's tunable paths, flat like the rest: "sharpness", "behaviors[0].weight", ...
    j["model"] = sim::model_name(g.model);
    j["combiner"] = sim::combiner_name(g.compose.combiner);
    for (const sim::CompositionField& f : sim::composition_fields()) j[std::string(f.name)] = f.get(g.compose);
    for (std::size_t k = 0; k < g.compose.behaviors.size(); ++k) {
      const sim::BehaviorSpec& b = g.compose.behaviors[k];
      const std::string p = "behaviors[" + std::to_string(k) + "].";
      j[p + "type"] = sim::behavior_name(b.type);
      for (const sim::BehaviorField& f : sim::behavior_fields()) {
        if (f.is_bool) j[p + std::string(f.name)] = f.get(b) != 0;
        else j[p + std::string(f.name)] = f.get(b);
      }
    }
  }
  return j;
}

}  // namespace

bool split_room_path(std::string_view tail, std::string_view& name, std::string_view& rest) {
  const auto slash = tail.find('/');
  if (slash == 0 || slash == std::string_view::npos) return false;
  name = tail.substr(0, slash);
  rest = tail.substr(slash + 1);
  return true;
}

ApiResponse rooms_json(const game::Rooms& rooms) {
  json list = json::array();
  for (const game::RoomSummary& r : rooms.list())
    list.push_back({{"name", r.name},
                    {"title", r.title},
                    {"description", r.description},
                    {"running", r.running},
                    {"players", r.players},
                    {"spectators", r.spectators},
                    {"agents", r.agents},
                    {"tick", r.tick},
                    {"on_join", r.on_join},
                    {"published", r.published}});
  return reply(200, {{"default", rooms.default_name()}, {"max_rooms", rooms.max_rooms()}, {"rooms", std::move(list)}});
}

ApiResponse room_scenario_json(const game::Rooms& rooms, std::string_view name, ScenarioSource source) {
  sim::Scenario s;
  if (!rooms.scenario(name, s)) return error(404, "no room '" + std::string(name) + "'");
  if (auto g = rooms.running(name)) {
    // The running room's groups (tuned) over the file's scenario (the room overrides rates).
    sim::Scenario live;
    if (source == ScenarioSource::kPublished) {
      live = g->published()->scenario;  // the latest copy: never waits for a tick
    } else {
      auto f = g->post_scenario();
      if (f.wait_for(kTuneTimeout) != std::future_status::ready) return error(503, "the room did not answer in time");
      try {
        live = f.get();
      } catch (const std::future_error&) {
        return error(503, "the room stopped");
      }
    }
    s.groups = std::move(live.groups);
    // A tuned count may need the room's larger capacity (it sizes max_agents for its players).
    s.max_agents = std::max(s.max_agents, live.max_agents);
  }
  return {200, game::scenario_to_json(s) + "\n"};
}

ApiResponse tune_group(game::Rooms& rooms, std::string_view name, std::string_view index, std::string_view body,
                       std::chrono::milliseconds timeout) {
  if (!rooms.known(name)) return error(404, "no room '" + std::string(name) + "'");
  std::int32_t group = -1;
  const auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), group);
  if (index.empty() || ec != std::errc{} || end != index.data() + index.size() || group < 0)
    return error(404, "no group '" + std::string(index) + "' (groups are numbered from 0)");
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return error(400, "body must be a JSON object of group fields");
  if (j.empty()) return error(400, "body names no group field");
  std::vector<game::TunePatch> patches;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "count") {
      if (!v.is_number_integer()) return error(400, "count: expected an integer", key);
      const auto n = v.get<std::int64_t>();
      if (n < 0 || n > 1'000'000) return error(400, "count: out of range (0..1000000)", key);
      patches.push_back({key, static_cast<double>(n)});
      continue;
    }
    const codec::GroupField* f = codec::find_group_field(key);
    // Composition and behaviour fields ("sharpness", "behaviors[1].weight") depend on the group's
    // composition, which only the room knows: it checks those names when it applies the patch.
    const bool composed_path = key.rfind("behaviors[", 0) == 0 || sim::find_composition_field(key) != nullptr;
    if (!f && !composed_path)
      return error(400, key + ": unknown group field (see the group's params in WorldSpec)", key);
    if (!f && v.is_boolean()) {
      patches.push_back({key, v.get<bool>() ? 1.0 : 0.0});
      continue;
    }
    if (f && f->is_bool) {
      if (!v.is_boolean()) return error(400, key + ": expected true or false", key);
      patches.push_back({key, v.get<bool>() ? 1.0 : 0.0});
      continue;
    }
    if (!v.is_number()) return error(400, key + ": expected a number", key);
    const double d = v.get<double>();
    if (!std::isfinite(d)) return error(400, key + ": must be finite", key);
    patches.push_back({key, d});
  }
  auto game = rooms.running(name);
  if (!game) return error(409, "room '" + std::string(name) + "' is not running (join it to start it)");
  auto f = game->post_tune(group, std::move(patches));
  if (f.wait_for(timeout) != std::future_status::ready) return error(503, "the room did not apply the update in time");
  game::TuneResult r;
  try {
    r = f.get();
  } catch (const std::future_error&) {
    return error(503, "the room stopped before applying the update");
  }
  if (r.status != 200) {
    // sim::validate / World::set_group messages start with the field path ("groups[1].max_speed: ...").
    std::string key;
    const auto colon = r.error.find(':');
    if (r.status == 400 && colon != std::string::npos) {
      key = r.error.substr(0, colon);
      // "groups[0].max_speed" -> "max_speed": the key as the request named it.
      if (key.rfind("groups[", 0) == 0)
        if (const auto dot = key.find("]."); dot != std::string::npos) key = key.substr(dot + 2);
    }
    return error(r.status, r.error, key);
  }
  return reply(200, {{"group", group}, {"tick", r.tick}, {"spec", group_json(r.spec)}});
}

ApiResponse recording_action(game::Rooms& rooms, std::string_view name, std::string_view action,
                             std::chrono::milliseconds timeout) {
  game::RecordingResult r;
  if (action == "start") r = rooms.start_recording(name, timeout);
  else if (action == "stop") r = rooms.stop_recording(name, timeout);
  else return error(404, "no recording action '" + std::string(action.substr(0, 32)) + "' (start or stop)");
  if (r.status != 200) {
    json j = {{"error", r.error}};
    if (!r.file.empty()) j["file"] = r.file;
    return reply(static_cast<unsigned>(r.status), j);
  }
  return reply(200, {{"room", std::string(name)}, {"file", r.file}, {"recording", action == "start"}});
}

ApiResponse recordings_json(const game::Rooms& rooms) {
  json list = json::array();
  for (const game::RecordingInfo& r : rooms.recordings()) {
    json j = {{"file", r.file},
              {"room", r.room},
              {"scenario", r.scenario},
              {"bytes", r.bytes},
              {"tick_rate_hz", r.tick_rate_hz},
              {"first_tick", r.first_tick},
              {"last_tick", r.last_tick},
              {"ticks", r.last_tick - r.first_tick},
              {"started_unix_ms", r.started_unix_ms},
              {"recording", r.recording},
              {"complete", r.complete},
              {"end_reason", r.end_reason}};
    if (!r.error.empty()) j["error"] = r.error;
    list.push_back(std::move(j));
  }
  const game::InputLogSettings& s = rooms.input_log_settings();
  return reply(200, {{"enabled", !s.dir.empty()},
                     {"max_recordings", s.max_files},
                     {"max_bytes", s.max_bytes},
                     {"recordings", std::move(list)}});
}

ApiResponse recording_file(const game::Rooms& rooms, std::string_view file, std::string& bytes) {
  std::string why;
  const int status = rooms.read_recording(file, bytes, why);
  if (status != 200) return error(static_cast<unsigned>(status), why);
  return {200, {}};
}

}  // namespace flockstep::server::net
