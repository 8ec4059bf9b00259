// Parts of the page's state as JSON (view_json.hpp).
#include "ui/view_json.hpp"

#include <cmath>

#include "codec/group_fields.hpp"
#include "ui/inspector.hpp"
#include "view/palette.hpp"
#include "view/scene_rules.hpp"

namespace flockstep::client {

using nlohmann::json;

namespace {
std::string hex(Rgba c) {
  char b[8];
  palette::to_hex(c, b);
  return b;
}
}  // namespace

void view_json(json& j, const ViewState& v, bool labels_on, double interpolation_delay_ms) {
  j["annotations"] = v.annotations;
  j["annotation_mask"] = v.annotation_mask;
  j["trails"] = v.trails;
  j["minimap"] = v.minimap;
  j["follow"] = v.follow_id;
  j["camera"] = {{"x", json_num(v.cam.cx)}, {"y", json_num(v.cam.cy)}, {"zoom", json_num(v.cam.zoom)}};
  j["mode"] = v.extrapolate ? "extrapolate" : "interpolate";
  j["interp_delay_ms"] = v.extrapolate ? 0 : interpolation_delay_ms;
  json on = json::object();
  for (int i = 0; i < kLayerCount; ++i) on[layer_name(static_cast<Layer>(i))] = v.layer_on(static_cast<Layer>(i));
  j["layer_on"] = std::move(on);
  j["labels_on"] = labels_on;
  j["labels_mode"] = v.labels_mode;
}

json sample_json(const std::vector<DrawAgent>& agents, const Camera& cam, const sim::Scenario& s) {
  json sample = json::array();
  for (const DrawAgent& a : agents) {
    if (std::fabs(a.position.x - cam.cx) > cam.half_w() * 0.8 || std::fabs(a.position.y - cam.cy) > cam.half_h() * 0.8)
      continue;
    const sim::GroupSpec* g = group_of(a, s);
    sample.push_back({{"id", a.id},
                      {"kind", sim::kind_name(a.kind)},
                      {"group", g ? g->name : ""},
                      {"x", json_num(a.position.x)},
                      {"y", json_num(a.position.y)}});
    if (sample.size() == 8) break;
  }
  return sample;
}

json legend_json(const sim::Scenario& s, const WorldLayers& layers, const ViewState& v) {
  json legend = {{"kinds", json::array()}, {"groups", json::array()}, {"layers", json::array()}};
  const Legend lg = make_legend(s, layers);
  for (const LegendEntry& e : lg.kinds)
    legend["kinds"].push_back({{"kind", e.name}, {"shape", e.detail}, {"color", hex(e.color)}});
  for (const LegendEntry& e : lg.groups)
    legend["groups"].push_back({{"index", e.index},
                                {"name", e.name},
                                {"kind", sim::kind_name(s.groups[static_cast<std::size_t>(e.index)].kind)},
                                {"technique", e.detail},
                                {"count", e.count},
                                {"color", hex(e.color)}});
  for (const LegendEntry& e : lg.layers) {
    json row = {{"name", e.name},
                {"key", e.detail},
                {"count", e.count},
                {"on", v.layer_on(static_cast<Layer>(e.index))},
                {"color", hex(e.color)}};
    if (static_cast<Layer>(e.index) == Layer::kTiles)
      row["swatches"] = {{{"name", "blocked"}, {"color", hex(palette::kTileBlocked)}},
                         {{"name", "free"}, {"color", hex(palette::kTileFree)}}};
    legend["layers"].push_back(std::move(row));
  }
  return legend;
}

json groups_json(const sim::Scenario& s) {
  json groups = json::array();
  for (std::size_t i = 0; i < s.groups.size(); ++i) {
    const sim::GroupSpec& g = s.groups[i];
    json params = json::array();
    for (const codec::GroupField& f : codec::group_fields())
      params.push_back(json::array({std::string(f.name), json_num(f.get(g)), f.is_bool ? 1 : 0}));
    // A composition's own tunable paths ("sharpness", "behaviors[1].weight", ...), with labels
    // that name each behaviour, so the Tune panel can change any weight, priority or parameter.
    json labels = json::object();
    json behaviors = json::array();
    if (g.technique == sim::Technique::kComposed) {
      for (const sim::CompositionField& f : sim::composition_fields())
        params.push_back(json::array({std::string(f.name), json_num(f.get(g.compose)), 0}));
      for (std::size_t k = 0; k < g.compose.behaviors.size(); ++k) {
        const sim::BehaviorSpec& b = g.compose.behaviors[k];
        const sim::BehaviorInfo& info = sim::behavior_info(b.type);
        behaviors.push_back(
            {{"type", std::string(info.name)}, {"ids", std::string(info.ids)}, {"weight", json_num(b.weight)}});
        const std::string fields = " weight priority probability " + std::string(info.fields) + " ";
        for (const sim::BehaviorField& f : sim::behavior_fields()) {
          const std::string base(f.name.substr(0, f.name.find('.')));
          if (fields.find(" " + base + " ") == std::string::npos) continue;  // fields this behaviour reads
          const std::string path = "behaviors[" + std::to_string(k) + "]." + std::string(f.name);
          params.push_back(json::array({path, json_num(f.get(b)), f.is_bool ? 1 : 0}));
          labels[path] = std::to_string(k) + " " + std::string(info.name) + " · " + std::string(f.name);
        }
      }
    }
    groups.push_back(
        {{"index", i},
         {"name", g.name},
         {"kind", sim::kind_name(g.kind)},
         {"technique", sim::technique_name(g.technique)},
         {"count", g.count},
         {"model", sim::model_name(sim::model_of(g))},
         {"combiner", g.technique == sim::Technique::kComposed ? sim::combiner_name(g.compose.combiner) : ""},
         {"behaviors", std::move(behaviors)},
         {"labels", std::move(labels)},
         {"color", hex(palette::kind_color(g.kind))},
         {"params", std::move(params)}});
  }
  return groups;
}

json labels_json(const std::vector<PlacedLabel>& labels) {
  json out = json::array();
  for (const PlacedLabel& l : labels)
    out.push_back({{"text", l.text},
                   {"x", json_num(l.x + l.w * 0.5)},
                   {"y", json_num(l.y + l.h * 0.5)},
                   {"w", json_num(l.w)},
                   {"h", json_num(l.h)},
                   {"color", hex(l.color)}});
  return out;
}

}  // namespace flockstep::client
