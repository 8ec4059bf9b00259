// What the Viewer tells the page: window.__flockstep every frame (tests read state, not pixels;
// the HUD, legend, labels and inspector are drawn from it) and the world on every change (room
// info, legend, Tune panel). The view's parts are functions of the view state
// (ui/view_json.hpp); the active frame source adds its own fields over the defaults written here.
#include <algorithm>
#include <cmath>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "ui/inspector.hpp"
#include "ui/page.hpp"
#include "ui/view_json.hpp"
#include "view/palette.hpp"
#include "view/scene_rules.hpp"
#include "viewer.hpp"

namespace flockstep::client {
namespace {

using nlohmann::json;

std::string hex(Rgba c) {
  char b[8];
  palette::to_hex(c, b);
  return b;
}

}  // namespace

void Viewer::publish_world(const FrameSource& src) {
  const sim::Scenario& s = src.scenario();
  const json w = {{"room", src.room()},
                  {"name", s.name},
                  {"description", s.description},
                  {"tick", src.last_tick()},
                  {"replay", std::string_view(src.mode()) == "replay"},
                  {"groups", groups_json(s)}};
  page::call("world", w.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Viewer::publish(double now) {
  FrameSource* src = source();
  const bool world = have_world();
  json j;
  j["screen"] = screen_ == Screen::kPlay ? "play" : (screen_ == Screen::kSpectate ? "spectate" : "start");
  j["source"] = src ? src->mode() : "";
  j["role"] = screen_ == Screen::kPlay ? "player" : (screen_ == Screen::kSpectate ? "spectator" : "");
  j["url"] = url_;
  j["fps"] = frames_window_.sum(now);
  const double frames = static_cast<double>(frame_cost_window_.samples.size());
  j["frame_ms"] = json_num(frames > 0 ? frame_cost_window_.sum(now) / std::max(1.0, frames) : 0);
  j["bench"] = 0;
  j["bench_sim_ms"] = 0;
  j["lab"] = nullptr;
  // The link's fields come from the live source, idle when another mode runs (as the one session
  // of the page was before).
  live_.publish(j, now);
  j["tick"] = src ? src->last_tick() : 0;
  j["server_tick_est"] = json_num(src && src->clock_valid() ? src->tick_now(now) : 0);
  j["tick_rate"] = src ? src->tick_rate() : 60;
  j["snapshot_rate"] = src ? src->snapshots_per_s(now) : 0;
  j["snapshot_rate_nominal"] = src ? src->snapshot_rate() : 20;
  j["entities"] = src ? src->buffer().newest().size() : 0;
  j["drawn"] = agents_.size();
  j["visible"] = scene_.visible();
  j["draw_calls"] = gl_.draw_calls();
  j["gl_renderer"] = gl_.renderer_name();
  j["instanced"] = !gl_.expanded();
  j["antialias"] = antialias_;
  const sim::PlayerInput in = input_.current();
  j["input"] = {{"turn", json_num(in.turn)}, {"throttle", json_num(in.throttle)}};
  const DrawAgent* f = view_.follow_id ? drawn(view_.follow_id) : nullptr;
  j["follow_pos"] = f ? json{{"x", json_num(f->position.x)}, {"y", json_num(f->position.y)}} : json(nullptr);
  j["sample"] = sample_json(agents_, view_.cam, scenario());
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size(kCanvas, &css_w, &css_h);
  j["canvas"] = {{"width", view_.cam.width},
                 {"height", view_.cam.height},
                 {"css_w", css_w},
                 {"css_h", css_h},
                 {"scale", css_w > 0 ? view_.cam.width / css_w : 1}};  // device px per CSS px
  // The minimap's square in CSS px (null when off): the page keeps its panels clear of it.
  if (view_.minimap && css_w > 0) {
    const double k = css_w / std::max(1, view_.cam.width);
    const ScreenBox m = minimap_box(view_.cam.width, view_.cam.height);
    j["minimap_box"] = {{"x", m.x * k}, {"y", m.y * k}, {"w", m.w * k}, {"h", m.h * k}};
  } else {
    j["minimap_box"] = nullptr;
  }
  view_json(j, view_, label_groups(scenario(), view_.labels_mode), FrameSource::kInterpolationDelayMs);
  j["buffer_starved_ticks"] = json_num(src ? src->starved_ticks() : 0);
  const ExtrapolationError ee = src ? src->buffer().extrapolation_error() : ExtrapolationError{};
  j["extrap_error"] = json_num(ee.behaviour_mean_m);
  j["extrap_error_max"] = json_num(ee.behaviour_max_m);
  j["dead_reckoning_error"] = json_num(ee.dead_reckoning_mean_m);
  j["display_jump"] = json_num(view_.extrapolate && src ? src->buffer().last_rebase_jump_m() : 0);
  j["paused"] = src ? src->paused() : false;
  j["room"] = src ? src->room() : room_;
  j["room_requested"] = room_;
  j["replay"] = {
      {"active", false}, {"tick", 0},     {"tick_exact", 0},    {"playing", false}, {"speed", 1},
      {"firstTick", 0},  {"lastTick", 0}, {"snapshot_tick", 0}, {"records", 0},     {"error", replay_error_}};
  if (src && src != &live_) src->publish(j, now);  // the mode's own fields over the defaults
  j["world"] = world ? json{{"name", scenario().name},
                            {"width", scenario().width},
                            {"height", scenario().height},
                            {"wrap", scenario().wrap},
                            {"obstacles", scenario().obstacles.size()}}
                     : json(nullptr);
  json scores = json::array();
  for (std::size_t i = 0; i < scores_.size() && i < 10; ++i) {
    const ScoreRow& s = scores_[i];
    scores.push_back({{"name", s.name},
                      {"alive", json_num(s.alive_s)},
                      {"best", json_num(s.best_s)},
                      {"captures", s.captures},
                      {"bot", s.bot},
                      {"me", s.player_id == live_.player_id() && screen_ == Screen::kPlay},
                      {"id", s.player_id}});
  }
  j["scores"] = std::move(scores);

  // Layers: items drawn this frame per layer (0 where the layer is off or the world has none).
  json layers = json::object();
  for (int i = 0; i < kLayerCount; ++i) {
    const Layer l = static_cast<Layer>(i);
    if (l == Layer::kTiles) {
      layers["tiles_blocked"] = world ? scene_.drawn_layers()[i] : 0;
      layers["tiles_free"] = world ? scene_.drawn_layers()[kLayerCount] : 0;
    } else {
      layers[layer_name(l)] = world ? scene_.drawn_layers()[i] : 0;
    }
  }
  j["layers"] = std::move(layers);
  j["labels"] = labels_json(labels_);
  j["legend"] = world ? legend_json(scenario(), layers_, view_)
                      : json{{"kinds", json::array()}, {"groups", json::array()}, {"layers", json::array()}};

  // Inspector: the clicked (or Q) agent as the client knows it from the snapshots.
  if (const DrawAgent* a = view_.inspect_id && src ? drawn(view_.inspect_id) : nullptr) {
    const auto name = names_.find(a->id);
    const InspectorData d =
        make_inspector(*a, scenario(), name != names_.end() ? name->second : std::string(),
                       a->target ? drawn(a->target) : nullptr, &src->trace(), src->trace_available());
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
          {{"type", r.type}, {"weight", json_num(r.weight)}, {"priority", r.priority}, {"color", hex(r.color)}});
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
                {"source", src->trace_source()},
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
                      {"speed", json_num(d.speed)},
                      {"max_speed", json_num(d.max_speed)},
                      {"position", {{"x", json_num(d.position.x)}, {"y", json_num(d.position.y)}}},
                      {"heading_deg", json_num(d.heading_deg)},
                      {"target", std::move(target)},
                      {"aim", {{"x", json_num(d.aim.x)}, {"y", json_num(d.aim.y)}}},
                      {"behaviour_forces", std::move(forces)}};
  } else {
    j["inspector"] = nullptr;
  }
  json_ = j.dump(-1, ' ', false, json::error_handler_t::replace);
  page::publish_state(json_);
}

}  // namespace flockstep::client
