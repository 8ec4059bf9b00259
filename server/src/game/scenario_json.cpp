#include "game/scenario_json.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codec/group_fields.hpp"

namespace flockstep::server::game {

namespace {

using nlohmann::json;
using math::Vec2;

[[noreturn]] void error(const std::string& path, const std::string& why) { throw ScenarioError(path + ": " + why); }

double number(const json& v, const std::string& path) {
  if (!v.is_number()) error(path, "expected a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) error(path, "must be finite");
  return d;
}

std::int64_t integer(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number_integer()) error(path, "expected an integer");
  const auto i = v.get<std::int64_t>();
  if (i < lo || i > hi) error(path, "must be in " + std::to_string(lo) + ".." + std::to_string(hi));
  return i;
}

bool boolean(const json& v, const std::string& path) {
  if (!v.is_boolean()) error(path, "expected true or false");
  return v.get<bool>();
}

std::string string(const json& v, const std::string& path) {
  if (!v.is_string()) error(path, "expected a string");
  return v.get<std::string>();
}

Vec2 vec2(const json& v, const std::string& path) {
  if (!v.is_array() || v.size() != 2) error(path, "expected [x, y]");
  return {number(v[0], path + "[0]"), number(v[1], path + "[1]")};
}

const json& object(const json& v, const std::string& path) {
  if (!v.is_object()) error(path, "expected an object");
  return v;
}

const json& array(const json& v, const std::string& path) {
  if (!v.is_array()) error(path, "expected an array");
  return v;
}

void craft_params(const json& j, const std::string& path, behavior::CraftParams& c) {
  for (auto it = object(j, path).begin(); it != j.end(); ++it) {
    const std::string p = path + "." + it.key();
    const double v = number(it.value(), p);
    if (it.key() == "mass") c.mass = v;
    else if (it.key() == "inertia") c.inertia = v;
    else if (it.key() == "length") c.length = v;
    else if (it.key() == "thrust") c.thrust = v;
    else if (it.key() == "max_steering_force") c.max_steering_force = v;
    else if (it.key() == "linear_drag") c.linear_drag = v;
    else if (it.key() == "lateral_drag") c.lateral_drag = v;
    else if (it.key() == "angular_drag") c.angular_drag = v;
    else error(p, "unknown key");
  }
}

sim::AgentKind kind(const json& v, const std::string& path) {
  const std::string s = string(v, path);
  for (int k = 0; k < static_cast<int>(sim::AgentKind::kCount); ++k)
    if (s == sim::kind_name(static_cast<sim::AgentKind>(k))) return static_cast<sim::AgentKind>(k);
  error(path, "unknown kind '" + s + "' (player, flock, pursuer, patrol, wanderer)");
}

/// An index given as a number or as the name of an earlier-declared entry.
template <class NameOf>
std::int32_t index_ref(const json& v, const std::string& path, std::size_t count, NameOf name_of) {
  if (v.is_number_integer()) return static_cast<std::int32_t>(integer(v, path, -1, static_cast<std::int64_t>(count) - 1));
  const std::string s = string(v, path);
  for (std::size_t i = 0; i < count; ++i)
    if (name_of(i) == s) return static_cast<std::int32_t>(i);
  error(path, "no entry named '" + s + "'");
}

void group_field(sim::GroupSpec& g, const std::string& name, const json& v, const std::string& path) {
  const codec::GroupField* f = codec::find_group_field(name);
  if (!f) error(path, "unknown key");
  if (f->is_bool) f->set(g, boolean(v, path) ? 1.0 : 0.0);
  else f->set(g, number(v, path));
}

sim::GroupSpec group(const json& j, const std::string& path, const sim::Scenario& s, const json& all_groups) {
  sim::GroupSpec g;
  object(j, path);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string p = path + "." + key;
    const json& v = it.value();
    if (key == "name") g.name = string(v, p);
    else if (key == "kind") g.kind = kind(v, p);
    else if (key == "technique") {
      if (!sim::parse_technique(string(v, p), g.technique)) error(p, "unknown technique '" + v.get<std::string>() + "'");
    } else if (key == "count") g.count = static_cast<std::int32_t>(integer(v, p, 0, 1000000));
    else if (key == "spawn_min") g.spawn_min = vec2(v, p);
    else if (key == "spawn_max") g.spawn_max = vec2(v, p);
    else if (key == "offset") g.offset = vec2(v, p);
    else if (key == "path") g.path = index_ref(v, p, s.paths.size(), [&](std::size_t i) { return s.paths[i].name; });
    else if (key == "leader_group")
      g.leader_group = index_ref(v, p, all_groups.size(), [&](std::size_t i) {
        const json& other = all_groups[i];
        return other.is_object() && other.contains("name") && other["name"].is_string() ? other["name"].get<std::string>()
                                                                                       : std::string();
      });
    else if (key == "pattern") {
      if (!codec::parse_pattern(string(v, p), g.pattern)) error(p, "unknown pattern (square, zigzag, arbitrary)");
    } else if (v.is_object()) {
      // A parameter section: craft, layers, flock, wander, detection, feelers, hide.
      for (auto f = v.begin(); f != v.end(); ++f) group_field(g, key + "." + f.key(), f.value(), p + "." + f.key());
    } else {
      group_field(g, key, v, p);
    }
  }
  return g;
}

}  // namespace

sim::Scenario parse_scenario(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw ScenarioError(std::string("scenario: not valid JSON: ") + e.what());
  }
  sim::Scenario s;
  object(j, "scenario");
  // Paths first, so groups can refer to them by name whatever the key order.
  if (j.contains("paths")) {
    const json& paths = array(j["paths"], "paths");
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const std::string p = "paths[" + std::to_string(i) + "]";
      sim::PathSpec ps;
      for (auto it = object(paths[i], p).begin(); it != paths[i].end(); ++it) {
        const std::string k = p + "." + it.key();
        if (it.key() == "name") ps.name = string(it.value(), k);
        else if (it.key() == "loop") ps.loop = boolean(it.value(), k);
        else if (it.key() == "points") {
          const json& pts = array(it.value(), k);
          for (std::size_t n = 0; n < pts.size(); ++n) ps.points.push_back(vec2(pts[n], k + "[" + std::to_string(n) + "]"));
        } else error(k, "unknown key");
      }
      s.paths.push_back(std::move(ps));
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "paths" || key == "groups" || key == "$schema" || key == "comment") continue;
    if (key == "name") s.name = string(v, key);
    else if (key == "description") s.description = string(v, key);
    else if (key == "width") s.width = number(v, key);
    else if (key == "height") s.height = number(v, key);
    else if (key == "wrap") s.wrap = boolean(v, key);
    else if (key == "tick_rate_hz") s.tick_rate_hz = static_cast<std::int32_t>(integer(v, key, 1, 240));
    else if (key == "seed") s.seed = static_cast<std::uint64_t>(integer(v, key, 0, INT64_MAX));
    else if (key == "max_agents") s.max_agents = static_cast<std::int32_t>(integer(v, key, 1, 1000000));
    else if (key == "max_players") s.max_players = static_cast<std::int32_t>(integer(v, key, 0, 1000000));
    else if (key == "grid_cell") s.grid_cell = number(v, key);
    else if (key == "respawn_protection_s") s.respawn_protection_s = number(v, key);
    else if (key == "player_craft") craft_params(v, key, s.player_craft);
    else if (key == "obstacles") {
      const json& obs = array(v, key);
      for (std::size_t i = 0; i < obs.size(); ++i) {
        const std::string p = "obstacles[" + std::to_string(i) + "]";
        sim::Circle c;
        bool has_center = false, has_radius = false;
        for (auto o = object(obs[i], p).begin(); o != obs[i].end(); ++o) {
          if (o.key() == "center") c.center = vec2(o.value(), p + ".center"), has_center = true;
          else if (o.key() == "radius") c.radius = number(o.value(), p + ".radius"), has_radius = true;
          else error(p + "." + o.key(), "unknown key");
        }
        if (!has_center || !has_radius) error(p, "needs center and radius");
        s.obstacles.push_back(c);
      }
    } else if (key == "walls") {
      const json& walls = array(v, key);
      for (std::size_t i = 0; i < walls.size(); ++i) {
        const std::string p = "walls[" + std::to_string(i) + "]";
        sim::Wall w;
        bool has_a = false, has_b = false;
        for (auto o = object(walls[i], p).begin(); o != walls[i].end(); ++o) {
          if (o.key() == "a") w.a = vec2(o.value(), p + ".a"), has_a = true;
          else if (o.key() == "b") w.b = vec2(o.value(), p + ".b"), has_b = true;
          else error(p + "." + o.key(), "unknown key");
        }
        if (!has_a || !has_b) error(p, "needs a and b");
        s.walls.push_back(w);
      }
    } else error(key, "unknown key");
  }
  if (j.contains("groups")) {
    const json& groups = array(j["groups"], "groups");
    for (std::size_t i = 0; i < groups.size(); ++i)
      s.groups.push_back(group(groups[i], "groups[" + std::to_string(i) + "]", s, groups));
  }
  if (std::string why = sim::validate(s); !why.empty()) throw ScenarioError(why);
  return s;
}

sim::Scenario load_scenario_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError("scenario file '" + path + "' cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    return parse_scenario(ss.str());
  } catch (const ScenarioError& e) {
    throw ScenarioError("scenario file '" + path + "': " + e.what());
  }
}

}  // namespace flockstep::server::game
