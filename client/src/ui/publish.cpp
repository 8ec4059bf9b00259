// What the Viewer tells the page: window.__flockstep every frame (tests read state, not pixels;
// the HUD, legend, labels and inspector are drawn from it) and the world on every change (room
// info, legend, Tune panel). Built as nlohmann::json values, then one string per frame.
#include <algorithm>
#include <cmath>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "codec/group_fields.hpp"
#include "ui/inspector.hpp"
#include "ui/page.hpp"
#include "view/palette.hpp"
#include "viewer.hpp"

namespace flockstep::client {
namespace {

using nlohmann::json;

/// JSON has no NaN or infinity: report 0 rather than break the page's JSON.parse.
double num(double v) { return std::isfinite(v) ? v : 0; }

std::string hex(Rgba c) {
  char b[8];
  palette::to_hex(c, b);
  return b;
}

json craft_json(const behavior::CraftState& c) {
  return {{"x", num(c.position.x)},
          {"y", num(c.position.y)},
          {"heading", num(c.orientation)},
          {"speed", num(math::length(c.velocity))}};
}

}  // namespace

void Viewer::publish_world() {
  json groups = json::array();
  for (std::size_t i = 0; i < scenario_.groups.size(); ++i) {
    const sim::GroupSpec& g = scenario_.groups[i];
    json params = json::array();
    for (const codec::GroupField& f : codec::group_fields())
      params.push_back(json::array({std::string(f.name), num(f.get(g)), f.is_bool ? 1 : 0}));
    // A composition's own tunable paths ("sharpness", "behaviors[1].weight", ...), with labels
    // that name each behaviour, so the Tune panel can change any weight, priority or parameter.
    json labels = json::object();
    json behaviors = json::array();
    if (g.technique == sim::Technique::kComposed) {
      for (const sim::CompositionField& f : sim::composition_fields())
        params.push_back(json::array({std::string(f.name), num(f.get(g.compose)), 0}));
      for (std::size_t k = 0; k < g.compose.behaviors.size(); ++k) {
        const sim::BehaviorSpec& b = g.compose.behaviors[k];
        const sim::BehaviorInfo& info = sim::behavior_info(b.type);
        behaviors.push_back(
            {{"type", std::string(info.name)}, {"ids", std::string(info.ids)}, {"weight", num(b.weight)}});
        const std::string fields = " weight priority probability " + std::string(info.fields) + " ";
        for (const sim::BehaviorField& f : sim::behavior_fields()) {
          const std::string base(f.name.substr(0, f.name.find('.')));
          if (fields.find(" " + base + " ") == std::string::npos) continue;  // fields this behaviour reads
          const std::string path = "behaviors[" + std::to_string(k) + "]." + std::string(f.name);
          params.push_back(json::array({path, num(f.get(b)), f.is_bool ? 1 : 0}));
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
  const json w = {{"room", replay_ ? replay_room_ : (welcome_room_.empty() ? room_ : welcome_room_)},
                  {"name", scenario_.name},
                  {"description", scenario_.description},
                  {"tick", last_snapshot_tick_},
                  {"replay", replay_},
                  {"groups", std::move(groups)}};
  page::call("world", w.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Viewer::publish(double now) {
  json j;
  j["screen"] = replay_                    ? "replay"
                : screen_ == Screen::kPlay ? "play"
                                           : (screen_ == Screen::kSpectate ? "spectate" : "start");
  j["link"] = to_string(session_.state());
  j["connected"] = session_.live();
  j["role"] = screen_ == Screen::kPlay ? "player" : (screen_ == Screen::kSpectate ? "spectator" : "");
  j["url"] = url_;
  j["fps"] = frames_window_.sum(now);
  const double frames = static_cast<double>(frame_cost_window_.samples.size());
  j["frame_ms"] = num(frames > 0 ? frame_cost_window_.sum(now) / std::max(1.0, frames) : 0);
  j["snapshot_ms"] = num(snapshot_cost_ms_ + session_.snapshot_parse_ms());  // parse + decode + buffer
  j["bench"] = bench_n_;
  j["bench_sim_ms"] = num(bench_world_ ? bench_sim_ms_ : 0);
  if (lab_) {
    const sim::World& w = *lab_->world;
    j["lab"] = {{"tick", w.tick()},
                {"paused", lab_->paused},
                {"speed", num(lab_->speed)},
                {"seed", lab_->scenario.seed},
                {"agents", w.size()},
                {"sim_ms", num(lab_->sim_ms)},
                {"hash", std::to_string(w.state_hash())},
                {"target", w.alive(lab_->player)}};
    if (w.alive(lab_->player)) {
      const sim::AgentView v = w.view(w.index_of(lab_->player));
      j["lab"]["target_position"] = {num(v.position.x), num(v.position.y)};
    }
  } else {
    j["lab"] = nullptr;
  }
  j["rtt"] = num(session_.rtt_ms());
  j["tick"] = last_snapshot_tick_;
  j["server_tick_est"] = num(clock_.valid() ? server_tick_now(now) : 0);
  j["tick_rate"] = tick_rate_;
  j["snapshot_rate"] = snapshot_window_.sum(now);
  j["snapshot_rate_nominal"] = snapshot_rate_;
  bytes_hist_.push_back({now, session_.bytes_received()});
  while (bytes_hist_.size() > 2 && bytes_hist_.front().first < now - 2000) bytes_hist_.pop_front();
  const double span_ms = now - bytes_hist_.front().first;
  j["kbps"] =
      span_ms > 100 ? static_cast<double>(bytes_hist_.back().second - bytes_hist_.front().second) * 8.0 / span_ms : 0;
  j["bytes_received"] = session_.bytes_received();
  j["entities"] = remote_.newest().size();
  j["drawn"] = agents_.size();
  j["visible"] = visible_;
  j["draw_calls"] = gl_.draw_calls();
  j["gl_renderer"] = gl_.renderer_name();
  j["instanced"] = !gl_.expanded();
  j["antialias"] = antialias_;
  j["corrections"] = stats_.corrections;
  j["corrections_per_min"] = corrections_window_.sum(now);
  j["respawn_corrections"] = stats_.respawns;
  j["held_states"] = stats_.held_states;
  j["compared"] = stats_.compared;
  j["pred_error"] = num(stats_.last_error_m);
  j["pred_error_max"] = num(stats_.max_error_m);
  j["input_seq"] = predictor_.last_sequence();
  j["acked"] = predictor_.last_acked();
  j["unacked"] = predictor_.unacked_count();
  j["input_msgs"] = inputs_sent_msgs_;
  j["lead_adjustments"] = lead_.adjustments();
  j["entity_id"] = entity_;
  j["player_id"] = player_id_;
  const sim::PlayerInput in = input_.current();
  j["input"] = {{"turn", num(in.turn)}, {"throttle", num(in.throttle)}};
  if (screen_ == Screen::kPlay && predictor_.has_state()) {
    json p = craft_json(predictor_.state());
    p["seq"] = predictor_.last_sequence();
    j["predicted"] = std::move(p);
  } else {
    j["predicted"] = nullptr;
  }
  if (screen_ == Screen::kPlay && have_server_state_) {
    json p = craft_json(server_state_);
    p["tick"] = server_state_tick_;
    p["seq"] = server_state_seq_;
    j["server"] = std::move(p);
  } else {
    j["server"] = nullptr;
  }
  j["follow"] = follow_id_;
  const DrawAgent* f = follow_id_ ? drawn(follow_id_) : nullptr;
  j["follow_pos"] = f ? json{{"x", num(f->position.x)}, {"y", num(f->position.y)}} : json(nullptr);
  // A few visible agents (tests click on them; people can read them in the console).
  json sample = json::array();
  for (const DrawAgent& a : agents_) {
    if (std::fabs(a.position.x - cam_.cx) > cam_.half_w() * 0.8 ||
        std::fabs(a.position.y - cam_.cy) > cam_.half_h() * 0.8)
      continue;
    const sim::GroupSpec* g = group_of(a);
    sample.push_back({{"id", a.id},
                      {"kind", sim::kind_name(a.kind)},
                      {"group", g ? g->name : ""},
                      {"x", num(a.position.x)},
                      {"y", num(a.position.y)}});
    if (sample.size() == 8) break;
  }
  j["sample"] = std::move(sample);
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  j["canvas"] = {{"width", cam_.width},
                 {"height", cam_.height},
                 {"css_w", css_w},
                 {"css_h", css_h},
                 {"scale", css_w > 0 ? cam_.width / css_w : 1}};  // device px per CSS px
  j["camera"] = {{"x", num(cam_.cx)}, {"y", num(cam_.cy)}, {"zoom", num(cam_.zoom)}};
  j["mode"] = extrapolate_ ? "extrapolate" : "interpolate";
  j["interp_delay_ms"] = extrapolate_ ? 0 : kInterpolationDelayMs;
  j["buffer_starved_ticks"] = num(buffer_beyond_ticks_);
  const ExtrapolationError& ee = remote_.extrapolation_error();
  j["extrap_error"] = num(ee.behaviour_mean_m);
  j["extrap_error_max"] = num(ee.behaviour_max_m);
  j["dead_reckoning_error"] = num(ee.dead_reckoning_mean_m);
  j["display_jump"] = num(extrapolate_ ? remote_.last_rebase_jump_m() : 0);
  j["annotations"] = annotations_;
  j["annotation_mask"] = annotation_mask_;
  j["trails"] = trails_;
  j["minimap"] = minimap_;
  j["paused"] = replay_ ? !replay_playing_ : (lab_ ? lab_->paused : paused_);
  j["reconnects"] = session_.reconnects();
  j["resumes"] = session_.resumes();
  j["attempt"] = session_.attempt();
  j["retry_in_ms"] =
      num(session_.state() == LinkState::kWaitingRetry ? std::max(0.0, session_.retry_at_ms() - now) : 0);
  j["last_close"] = session_.last_close();
  j["captures"] = captures_;
  j["alive_s"] = screen_ == Screen::kPlay && last_snapshot_tick_ > spawn_tick_
                     ? static_cast<double>(last_snapshot_tick_ - spawn_tick_) / tick_rate_
                     : 0;
  j["world_error"] = world_error_;
  j["room"] = replay_ ? replay_room_ : (welcome_room_.empty() ? room_ : welcome_room_);
  j["room_requested"] = room_;
  j["replay"] = {{"active", replay_},
                 {"tick", replay_ ? std::floor(replay_tick_) : 0},
                 {"tick_exact", replay_ ? replay_tick_ : 0},
                 {"playing", replay_ && replay_playing_},
                 {"speed", replay_speed_},
                 {"firstTick", replay_first_},
                 {"lastTick", replay_last_},
                 {"snapshot_tick", replay_ ? last_snapshot_tick_ : 0},
                 {"records", replay_records_.size()},
                 {"error", replay_error_}};
  j["world"] = have_world_ ? json{{"name", scenario_.name},
                                  {"width", scenario_.width},
                                  {"height", scenario_.height},
                                  {"wrap", scenario_.wrap},
                                  {"obstacles", scenario_.obstacles.size()}}
                           : json(nullptr);
  json scores = json::array();
  for (std::size_t i = 0; i < scores_.size() && i < 10; ++i) {
    const ScoreRow& s = scores_[i];
    scores.push_back({{"name", s.name},
                      {"alive", num(s.alive_s)},
                      {"best", num(s.best_s)},
                      {"captures", s.captures},
                      {"bot", s.bot},
                      {"me", s.player_id == player_id_ && screen_ == Screen::kPlay},
                      {"id", s.player_id}});
  }
  j["scores"] = std::move(scores);

  // Layers: items drawn this frame per layer (0 where the layer is off or the world has none).
  json layers = json::object();
  json layer_on_json = json::object();
  for (int i = 0; i < kLayerCount; ++i) {
    const Layer l = static_cast<Layer>(i);
    layer_on_json[layer_name(l)] = layer_on(l);
    if (l == Layer::kTiles) {
      layers["tiles_blocked"] = have_world_ ? drawn_layers_[i] : 0;
      layers["tiles_free"] = have_world_ ? drawn_layers_[kLayerCount] : 0;
    } else {
      layers[layer_name(l)] = have_world_ ? drawn_layers_[i] : 0;
    }
  }
  j["layers"] = std::move(layers);
  j["layer_on"] = std::move(layer_on_json);
  j["labels_on"] = label_groups();
  j["labels_mode"] = labels_mode_;
  json labels = json::array();
  for (const PlacedLabel& l : labels_)
    labels.push_back({{"text", l.text},
                      {"x", num(l.x + l.w * 0.5)},
                      {"y", num(l.y + l.h * 0.5)},
                      {"w", num(l.w)},
                      {"h", num(l.h)},
                      {"color", hex(l.color)}});
  j["labels"] = std::move(labels);

  // Legend: kinds present (colour, shape), groups (name, technique, colour), layers (key, count).
  json legend = {{"kinds", json::array()}, {"groups", json::array()}, {"layers", json::array()}};
  if (have_world_) {
    const Legend lg = make_legend(scenario_, layers_);
    for (const LegendEntry& e : lg.kinds)
      legend["kinds"].push_back({{"kind", e.name}, {"shape", e.detail}, {"color", hex(e.color)}});
    for (const LegendEntry& e : lg.groups)
      legend["groups"].push_back({{"index", e.index},
                                  {"name", e.name},
                                  {"kind", sim::kind_name(scenario_.groups[static_cast<std::size_t>(e.index)].kind)},
                                  {"technique", e.detail},
                                  {"count", e.count},
                                  {"color", hex(e.color)}});
    for (const LegendEntry& e : lg.layers) {
      json row = {{"name", e.name},
                  {"key", e.detail},
                  {"count", e.count},
                  {"on", layer_on(static_cast<Layer>(e.index))},
                  {"color", hex(e.color)}};
      if (static_cast<Layer>(e.index) == Layer::kTiles)
        row["swatches"] = {{{"name", "blocked"}, {"color", hex(palette::kTileBlocked)}},
                           {{"name", "free"}, {"color", hex(palette::kTileFree)}}};
      legend["layers"].push_back(std::move(row));
    }
  }
  j["legend"] = std::move(legend);

  // Inspector: the clicked (or Q) agent as the client knows it from the snapshots.
  if (const DrawAgent* a = inspect_id_ ? drawn(inspect_id_) : nullptr) {
    const auto name = names_.find(a->id);
    const InspectorData d = make_inspector(*a, scenario_, name != names_.end() ? name->second : std::string(),
                                           a->target ? drawn(a->target) : nullptr, &trace_, trace_available_);
    json target = nullptr;
    if (d.target != 0) {
      target = {{"id", d.target}};
      if (!d.target_group.empty()) target["group"] = d.target_group;
    }
    // The composition (from the scenario) and this step's breakdown (from the server's or the
    // lab's trace, numbers unchanged: the e2e test compares them with the server's).
    json composition = json::array();
    for (const BehaviourRow& r : d.composition)
      composition.push_back(
          {{"type", r.type}, {"weight", num(r.weight)}, {"priority", r.priority}, {"color", hex(r.color)}});
    json forces = nullptr;  // null until a trace of this agent arrived
    if (d.behaviour_forces) {
      const ForceBreakdown& fb = *d.behaviour_forces;
      json rows = json::array();
      for (const BehaviourRow& r : fb.behaviours)
        rows.push_back({{"type", r.type},
                        {"weight", r.weight},
                        {"evaluated", r.evaluated},
                        {"x", r.raw.x},
                        {"y", r.raw.y},
                        {"angular", r.angular},
                        {"wx", r.weighted.x},
                        {"wy", r.weighted.y},
                        {"color", hex(r.color)}});
      forces = {{"tick", fb.tick},
                {"available", fb.available},
                {"source", trace_source_},
                {"unit", fb.unit},
                {"budget", fb.budget},
                {"behaviours", std::move(rows)},
                {"result", {{"x", fb.result.x}, {"y", fb.result.y}, {"angular", fb.result_angular}}}};
    }
    j["inspector"] = {{"id", d.id},
                      {"name", d.name},
                      {"group", d.group},
                      {"group_index", d.group_index},
                      {"kind", d.kind},
                      {"technique", d.technique},
                      {"model", d.model},
                      {"combiner", d.combiner},
                      {"composition", std::move(composition)},
                      {"state", d.state},
                      {"speed", num(d.speed)},
                      {"max_speed", num(d.max_speed)},
                      {"position", {{"x", num(d.position.x)}, {"y", num(d.position.y)}}},
                      {"heading_deg", num(d.heading_deg)},
                      {"target", std::move(target)},
                      {"aim", {{"x", num(d.aim.x)}, {"y", num(d.aim.y)}}},
                      {"behaviour_forces", std::move(forces)}};
  } else {
    j["inspector"] = nullptr;
  }
  json_ = j.dump(-1, ' ', false, json::error_handler_t::replace);
  page::publish_state(json_);
}

}  // namespace flockstep::client
