#include "codec/scenario_json.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/group_fields.hpp"

namespace flockstep::codec {

namespace {

using math::Vec2;
using nlohmann::json;

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

std::int32_t int32(const json& v, const std::string& path, std::int64_t lo = INT32_MIN, std::int64_t hi = INT32_MAX) {
  return static_cast<std::int32_t>(integer(v, path, lo, hi));
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

/// "tiles": {"cols", "rows", "cell", "rows_text": ["#....", ...]} (top row first; '#' blocked, '.' free).
void tile_map(const json& j, sim::TileMapSpec& m) {
  object(j, "tiles");
  const json* rows_text = nullptr;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string p = "tiles." + it.key();
    if (it.key() == "cols") m.cols = int32(it.value(), p, 0, 256);
    else if (it.key() == "rows") m.rows = int32(it.value(), p, 0, 256);
    else if (it.key() == "cell") m.cell = number(it.value(), p);
    else if (it.key() == "rows_text") rows_text = &array(it.value(), p);
    else error(p, "unknown key");
  }
  const auto cols = static_cast<std::size_t>(m.cols), rows = static_cast<std::size_t>(m.rows);
  m.blocked.assign(cols * rows, 0);
  if (!rows_text) return;  // no text: every tile free
  if (rows_text->size() != rows)
    error("tiles.rows_text", "expected " + std::to_string(rows) + " strings (tiles.rows), top row first");
  for (std::size_t k = 0; k < rows; ++k) {
    const std::string p = "tiles.rows_text[" + std::to_string(k) + "]";
    const std::string line = string((*rows_text)[k], p);
    if (line.size() != cols) error(p, "expected " + std::to_string(cols) + " characters (tiles.cols)");
    const std::size_t row = rows - 1 - k;  // text top row first; row 0 is the bottom row
    for (std::size_t c = 0; c < cols; ++c) {
      if (line[c] != '#' && line[c] != '.')
        error(p, "character " + std::to_string(c) + " must be '#' (blocked) or '.' (free)");
      m.blocked[row * cols + c] = line[c] == '#' ? 1 : 0;
    }
  }
}

std::vector<sim::TilePatternSpec> tile_patterns(const json& j) {
  std::vector<sim::TilePatternSpec> out;
  const json& list = array(j, "tile_patterns");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "tile_patterns[" + std::to_string(i) + "]";
    sim::TilePatternSpec tp;
    for (auto it = object(list[i], p).begin(); it != list[i].end(); ++it) {
      const std::string k = p + "." + it.key();
      if (it.key() == "name") tp.name = string(it.value(), k);
      else if (it.key() == "vertices") {
        const json& vs = array(it.value(), k);
        for (std::size_t n = 0; n < vs.size(); ++n) {
          const std::string kv = k + "[" + std::to_string(n) + "]";
          if (!vs[n].is_array() || vs[n].size() != 2) error(kv, "expected [row, col]");
          tp.vertices.push_back({int32(vs[n][0], kv + "[0]"), int32(vs[n][1], kv + "[1]")});
        }
      } else if (it.key() == "offset") {
        if (!it.value().is_array() || it.value().size() != 2) error(k, "expected [row, col]");
        tp.row_offset = int32(it.value()[0], k + "[0]");
        tp.col_offset = int32(it.value()[1], k + "[1]");
      } else error(k, "unknown key");
    }
    out.push_back(std::move(tp));
  }
  return out;
}

std::vector<sim::TrackSpec> tracks(const json& j) {
  std::vector<sim::TrackSpec> out;
  const json& list = array(j, "tracks");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "tracks[" + std::to_string(i) + "]";
    sim::TrackSpec t;
    for (auto it = object(list[i], p).begin(); it != list[i].end(); ++it) {
      const std::string k = p + "." + it.key();
      if (it.key() == "name") t.name = string(it.value(), k);
      else if (it.key() == "segments") {
        const json& ss = array(it.value(), k);
        for (std::size_t n = 0; n < ss.size(); ++n) {
          const std::string ks = k + "[" + std::to_string(n) + "]";
          if (!ss[n].is_array() || ss[n].size() != 4) error(ks, "expected [row0, col0, row1, col1]");
          t.segments.push_back({int32(ss[n][0], ks + "[0]"), int32(ss[n][1], ks + "[1]"), int32(ss[n][2], ks + "[2]"),
                                int32(ss[n][3], ks + "[3]")});
        }
      } else error(k, "unknown key");
    }
    out.push_back(std::move(t));
  }
  return out;
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
  if (v.is_number_integer())
    return static_cast<std::int32_t>(integer(v, path, -1, static_cast<std::int64_t>(count) - 1));
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

/// One behaviour of a composition: {"type": "dynamic_arrive", "goal": [50, 60], "slow_radius": 5, ...}.
template <class GroupName>
sim::BehaviorSpec behavior(const json& j, const std::string& path, const sim::Scenario& s, std::size_t groups,
                           GroupName group_name) {
  sim::BehaviorSpec b;
  object(j, path);
  if (!j.contains("type")) error(path, "needs a type (see docs/techniques.md)");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string p = path + "." + key;
    const json& v = it.value();
    if (key == "type") {
      if (!sim::parse_behavior(string(v, p), b.type))
        error(p, "unknown behaviour '" + v.get<std::string>() + "' (docs/techniques.md)");
    } else if (key == "goal") b.goal = vec2(v, p);
    else if (key == "offset") b.offset = vec2(v, p);
    else if (key == "target_group") b.target_group = index_ref(v, p, groups, group_name);
    else if (key == "leader_group") b.leader_group = index_ref(v, p, groups, group_name);
    else if (key == "path") b.path = index_ref(v, p, s.paths.size(), [&](std::size_t i) { return s.paths[i].name; });
    else {
      const sim::BehaviorField* f = sim::find_behavior_field(key);
      if (!f) error(p, "unknown key");
      if (f->is_bool) f->set(b, boolean(v, p) ? 1.0 : 0.0);
      else if (f->is_int) f->set(b, static_cast<double>(integer(v, p, -1, 1000)));
      else f->set(b, number(v, p));
    }
  }
  return b;
}

sim::GroupSpec group(const json& j, const std::string& path, const sim::Scenario& s, const json& all_groups) {
  sim::GroupSpec g;
  object(j, path);
  auto group_name = [&](std::size_t i) {
    const json& other = all_groups[i];
    return other.is_object() && other.contains("name") && other["name"].is_string() ? other["name"].get<std::string>()
                                                                                    : std::string();
  };
  // A group with "behaviors" is a composition (technique "composed", which may be left out).
  if (j.contains("behaviors")) {
    g.technique = sim::Technique::kComposed;
    if (j.contains("technique") && j["technique"] != "composed")
      error(path + ".technique", "a group with behaviors is 'composed': leave technique out");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string p = path + "." + key;
    const json& v = it.value();
    if (key == "name") g.name = string(v, p);
    else if (key == "kind") g.kind = kind(v, p);
    else if (key == "technique") {
      if (!sim::parse_technique(string(v, p), g.technique))
        error(p, "unknown technique '" + v.get<std::string>() + "'");
    } else if (key == "count") g.count = static_cast<std::int32_t>(integer(v, p, 0, 1000000));
    else if (key == "spawn_min") g.spawn_min = vec2(v, p);
    else if (key == "spawn_max") g.spawn_max = vec2(v, p);
    else if (key == "offset") g.offset = vec2(v, p);
    else if (key == "path") g.path = index_ref(v, p, s.paths.size(), [&](std::size_t i) { return s.paths[i].name; });
    else if (key == "goal") g.goal = vec2(v, p);
    else if (key == "leader_group") g.leader_group = index_ref(v, p, all_groups.size(), group_name);
    else if (key == "target_group") g.target_group = index_ref(v, p, all_groups.size(), group_name);
    else if (key == "tile_pattern")
      g.tile_pattern = index_ref(v, p, s.tile_patterns.size(), [&](std::size_t i) { return s.tile_patterns[i].name; });
    else if (key == "track")
      g.track = index_ref(v, p, s.tracks.size(), [&](std::size_t i) { return s.tracks[i].name; });
    else if (key == "pattern") {
      if (!codec::parse_pattern(string(v, p), g.pattern)) error(p, "unknown pattern (square, zigzag, arbitrary)");
    } else if (key == "model") {
      if (!sim::parse_model(string(v, p), g.model)) error(p, "unknown model (vehicle, steering)");
    } else if (key == "combiner") {
      if (!sim::parse_combiner(string(v, p), g.compose.combiner))
        error(p, "unknown combiner (running_sum, blend, priority, grouped, dither, urgency)");
    } else if (key == "behaviors") {
      const json& list = array(v, p);
      for (std::size_t k = 0; k < list.size(); ++k)
        g.compose.behaviors.push_back(
            behavior(list[k], p + "[" + std::to_string(k) + "]", s, all_groups.size(), group_name));
    } else if (const sim::CompositionField* cf = sim::find_composition_field(key)) {
      cf->set(g.compose, cf->is_int ? static_cast<double>(integer(v, p, -1, 1000)) : number(v, p));
    } else if (key == "filters") {
      for (auto f = object(v, p).begin(); f != v.end(); ++f) {
        const sim::CompositionField* cf2 = sim::find_composition_field("filters." + f.key());
        if (!cf2) error(p + "." + f.key(), "unknown key (heading_samples, facing_fraction)");
        const std::string fp = p + "." + f.key();
        cf2->set(g.compose,
                 cf2->is_int ? static_cast<double>(integer(f.value(), fp, -1, 1000)) : number(f.value(), fp));
      }
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

std::optional<sim::Scenario> try_parse_scenario(const std::string& json_text, std::string& error) {
  try {
    return parse_scenario(json_text);
  } catch (const ScenarioError& e) {
    error = e.what();
  } catch (const std::exception& e) {  // allocation failures and the like: still an answer
    error = std::string("scenario: ") + e.what();
  }
  return std::nullopt;
}

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
          for (std::size_t n = 0; n < pts.size(); ++n)
            ps.points.push_back(vec2(pts[n], k + "[" + std::to_string(n) + "]"));
        } else error(k, "unknown key");
      }
      s.paths.push_back(std::move(ps));
    }
  }
  // Tile patterns and tracks too.
  if (j.contains("tile_patterns")) s.tile_patterns = tile_patterns(j["tile_patterns"]);
  if (j.contains("tracks")) s.tracks = tracks(j["tracks"]);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "paths" || key == "groups" || key == "tile_patterns" || key == "tracks" || key == "$schema" ||
        key == "comment")
      continue;
    if (key == "tiles") tile_map(v, s.tiles);
    else if (key == "name") s.name = string(v, key);
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
    else if (key == "steering_interval_ticks")
      s.steering_interval_ticks = static_cast<std::int32_t>(integer(v, key, 1, 8));
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

namespace {

using ojson = nlohmann::ordered_json;

ojson vec_json(math::Vec2 v) { return ojson::array({v.x, v.y}); }

/// A parameter value: true/false for booleans, an integer when it is one, else the double.
ojson number_json(double v, bool is_bool) {
  if (is_bool) return ojson(v != 0);
  if (v == std::floor(v) && std::fabs(v) < 9.0e15) return ojson(static_cast<std::int64_t>(v));
  return ojson(v);
}

/// Insert value at a dotted path ("craft.thrust" -> {"craft": {"thrust": v}}).
void put_dotted(ojson& o, std::string_view name, ojson value) {
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) {
    o[std::string(name)] = std::move(value);
    return;
  }
  ojson& section = o[std::string(name.substr(0, dot))];
  if (section.is_null()) section = ojson::object();
  put_dotted(section, name.substr(dot + 1), std::move(value));
}

ojson group_json(const sim::GroupSpec& g) {
  const sim::GroupSpec d;  // defaults: only what differs is written
  ojson o = ojson::object();
  o["name"] = g.name;
  o["kind"] = sim::kind_name(g.kind);
  o["technique"] = sim::technique_name(g.technique);
  o["count"] = g.count;
  if (g.spawn_min != d.spawn_min) o["spawn_min"] = vec_json(g.spawn_min);
  if (g.spawn_max != d.spawn_max) o["spawn_max"] = vec_json(g.spawn_max);
  if (g.offset != d.offset) o["offset"] = vec_json(g.offset);
  if (g.goal != d.goal) o["goal"] = vec_json(g.goal);
  if (g.path != d.path) o["path"] = g.path;
  if (g.leader_group != d.leader_group) o["leader_group"] = g.leader_group;
  if (g.target_group != d.target_group) o["target_group"] = g.target_group;
  if (g.tile_pattern != d.tile_pattern) o["tile_pattern"] = g.tile_pattern;
  if (g.track != d.track) o["track"] = g.track;
  if (g.pattern != d.pattern) o["pattern"] = codec::pattern_name(g.pattern);
  for (const codec::GroupField& f : codec::group_fields()) {
    const double v = f.get(g);
    if (v == f.get(d)) continue;
    put_dotted(o, f.name, number_json(v, f.is_bool));
  }
  if (g.technique == sim::Technique::kComposed) {
    o.erase("technique");  // implied by "behaviors"
    o["model"] = sim::model_name(g.model);
    o["combiner"] = sim::combiner_name(g.compose.combiner);
    const sim::Composition dc;
    for (const sim::CompositionField& f : sim::composition_fields())
      if (f.get(g.compose) != f.get(dc)) put_dotted(o, f.name, number_json(f.get(g.compose), false));
    ojson& list = o["behaviors"] = ojson::array();
    const sim::BehaviorSpec db;
    for (const sim::BehaviorSpec& b : g.compose.behaviors) {
      ojson ob = ojson::object();
      ob["type"] = sim::behavior_name(b.type);
      if (b.goal != db.goal) ob["goal"] = vec_json(b.goal);
      if (b.offset != db.offset) ob["offset"] = vec_json(b.offset);
      for (const sim::BehaviorField& f : sim::behavior_fields()) {
        if (f.name.rfind("goal.", 0) == 0 || f.name.rfind("offset.", 0) == 0) continue;
        if (f.get(b) != f.get(db)) ob[std::string(f.name)] = number_json(f.get(b), f.is_bool);
      }
      list.push_back(std::move(ob));
    }
  }
  return o;
}

}  // namespace

std::string scenario_to_json(const sim::Scenario& s) {
  ojson o = ojson::object();
  o["name"] = s.name;
  o["description"] = s.description;
  o["width"] = s.width;
  o["height"] = s.height;
  o["wrap"] = s.wrap;
  o["tick_rate_hz"] = s.tick_rate_hz;
  o["seed"] = s.seed;
  o["max_agents"] = s.max_agents;
  o["max_players"] = s.max_players;
  o["grid_cell"] = s.grid_cell;
  o["respawn_protection_s"] = s.respawn_protection_s;
  if (s.steering_interval_ticks != 1) o["steering_interval_ticks"] = s.steering_interval_ticks;
  const behavior::CraftParams& c = s.player_craft;
  o["player_craft"] = {{"mass", c.mass},
                       {"inertia", c.inertia},
                       {"length", c.length},
                       {"thrust", c.thrust},
                       {"max_steering_force", c.max_steering_force},
                       {"linear_drag", c.linear_drag},
                       {"lateral_drag", c.lateral_drag},
                       {"angular_drag", c.angular_drag}};
  if (!s.obstacles.empty()) {
    ojson& a = o["obstacles"] = ojson::array();
    for (const sim::Circle& ob : s.obstacles) a.push_back({{"center", vec_json(ob.center)}, {"radius", ob.radius}});
  }
  if (!s.walls.empty()) {
    ojson& a = o["walls"] = ojson::array();
    for (const sim::Wall& w : s.walls) a.push_back({{"a", vec_json(w.a)}, {"b", vec_json(w.b)}});
  }
  if (!s.paths.empty()) {
    ojson& a = o["paths"] = ojson::array();
    for (const sim::PathSpec& p : s.paths) {
      ojson pts = ojson::array();
      for (const math::Vec2 v : p.points) pts.push_back(vec_json(v));
      a.push_back({{"name", p.name}, {"points", std::move(pts)}, {"loop", p.loop}});
    }
  }
  const sim::TileMapSpec& m = s.tiles;
  if (m.cols > 0 || m.rows > 0 || m.cell != sim::TileMapSpec{}.cell) {
    ojson rows_text = ojson::array();
    const auto cols = static_cast<std::size_t>(m.cols);
    for (std::int32_t k = m.rows - 1; k >= 0; --k) {  // top row first
      std::string line(cols, '.');
      for (std::size_t col = 0; col < cols; ++col) {
        const std::size_t at = static_cast<std::size_t>(k) * cols + col;
        if (at < m.blocked.size() && m.blocked[at] != 0) line[col] = '#';
      }
      rows_text.push_back(std::move(line));
    }
    o["tiles"] = {{"cols", m.cols}, {"rows", m.rows}, {"cell", m.cell}, {"rows_text", std::move(rows_text)}};
  }
  if (!s.tile_patterns.empty()) {
    ojson& a = o["tile_patterns"] = ojson::array();
    for (const sim::TilePatternSpec& p : s.tile_patterns) {
      ojson vs = ojson::array();
      for (const auto& v : p.vertices) vs.push_back({v[0], v[1]});
      a.push_back({{"name", p.name}, {"vertices", std::move(vs)}, {"offset", {p.row_offset, p.col_offset}}});
    }
  }
  if (!s.tracks.empty()) {
    ojson& a = o["tracks"] = ojson::array();
    for (const sim::TrackSpec& t : s.tracks) {
      ojson ss = ojson::array();
      for (const auto& sg : t.segments) ss.push_back({sg[0], sg[1], sg[2], sg[3]});
      a.push_back({{"name", t.name}, {"segments", std::move(ss)}});
    }
  }
  ojson& groups = o["groups"] = ojson::array();
  for (const sim::GroupSpec& g : s.groups) groups.push_back(group_json(g));
  return o.dump(2) + "\n";
}

}  // namespace flockstep::codec
