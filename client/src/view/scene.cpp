// Drawing (view/scene.hpp): the world's layers (view/world_layers.hpp), agents, annotations,
// trails, the minimap, and this frame's screen-space labels (drawn by the page's overlay canvas,
// client/web/overlay.js).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <emscripten/emscripten.h>

#include "flockstep/behavior/avoid.hpp"
#include "flockstep/math/angle.hpp"
#include "ui/inspector.hpp"
#include "view/palette.hpp"
#include "view/scene.hpp"

namespace flockstep::client {

using math::Vec2;

void Scene::render_layers(const Camera& cam, bool minimap) {
  lines_.clear();
  auto line = [&](Vec2 a, Vec2 b, Rgba c) {
    lines_.push_back({static_cast<float>(a.x), static_cast<float>(a.y), c});
    lines_.push_back({static_cast<float>(b.x), static_cast<float>(b.y), c});
  };
  // Grid (every 10 m, bolder every 50 m) under everything, where no tile map covers it.
  if (!minimap && !(view().layer_on(Layer::kTiles) && layers().counts.of(Layer::kTiles) > 0)) {
    const double step = cam.zoom > 2 ? 10 : 50;
    const double gx0 = std::max(0.0, std::floor((cam.cx - cam.half_w()) / step) * step);
    const double gx1 = std::min(scenario().width, cam.cx + cam.half_w());
    const double gy0 = std::max(0.0, std::floor((cam.cy - cam.half_h()) / step) * step);
    const double gy1 = std::min(scenario().height, cam.cy + cam.half_h());
    for (double x = gx0; x <= gx1; x += step)
      line({x, std::max(0.0, gy0)}, {x, gy1}, std::fmod(x, 50) == 0 ? palette::kGridMajor : palette::kGridMinor);
    for (double y = gy0; y <= gy1; y += step)
      line({std::max(0.0, gx0), y}, {gx1, y}, std::fmod(y, 50) == 0 ? palette::kGridMajor : palette::kGridMinor);
    gl_.draw_lines(lines_);
    lines_.clear();
  }
  if (!minimap) drawn_layers_.fill(0);
  for (int i = 0; i < kLayerCount; ++i) {
    const Layer l = static_cast<Layer>(i);
    if (!view().layer_on(l)) continue;
    // The minimap keeps what orients: tiles, walls and obstacles.
    if (minimap && l != Layer::kTiles && l != Layer::kWalls && l != Layer::kObstacles) continue;
    if (!layers().triangles[i].empty()) gl_.draw_triangles(layers().triangles[i]);
    if (!layers().lines[i].empty() && !(minimap && l == Layer::kTiles)) gl_.draw_lines(layers().lines[i]);
    if (l == Layer::kWalls) {
      // Thick walls vanish below a pixel: a 1 px line on top keeps them visible at any zoom.
      lines_.clear();
      for (const behavior::Wall& w : scenario().walls) line(w.a, w.b, palette::kWall);
      gl_.draw_lines(lines_);
    }
    if (l == Layer::kObstacles) {
      std::vector<Instance>& discs = inst_[static_cast<int>(Shape::kDisc)];
      std::vector<Instance>& rings = inst_[static_cast<int>(Shape::kRing)];
      discs.clear();
      rings.clear();
      for (const behavior::Circle& c : scenario().obstacles) {
        discs.push_back(make_instance(c.center, 0, static_cast<float>(c.radius), palette::kObstacleFill));
        rings.push_back(make_instance(c.center, 0, static_cast<float>(c.radius), palette::kObstacleEdge));
      }
      gl_.set_camera(cam, 0);  // obstacles keep their true size
      gl_.draw(Shape::kDisc, discs);
      gl_.draw(Shape::kRing, rings);
      gl_.set_camera(cam, minimap ? 2.5f : kMinAgentPx * static_cast<float>(f_->css_scale));
    }
    if (!minimap) {
      if (l == Layer::kTiles) {
        drawn_layers_[i] = layers().counts.tiles_blocked;
        drawn_layers_[kLayerCount] = layers().counts.tiles_free;
      } else {
        drawn_layers_[i] = layers().counts.of(l);
      }
    }
  }
  // The world's border (dimmed on a torus: it is a seam, not a wall).
  lines_.clear();
  const double W = scenario().width, H = scenario().height;
  const Rgba border = scenario().wrap ? palette::with_alpha(palette::kBorder, 120) : palette::kBorder;
  line({0, 0}, {W, 0}, border);
  line({W, 0}, {W, H}, border);
  line({W, H}, {0, H}, border);
  line({0, H}, {0, 0}, border);
  gl_.draw_lines(lines_);
  lines_.clear();
}

std::vector<PlacedLabel> Scene::labels(const SceneFrame& frame) {
  f_ = &frame;
  if (!f_->have_world || view().cam.zoom <= 0) return {};
  const double k = 1.0 / f_->css_scale;  // device px -> CSS px
  const double w = view().cam.width * k, h = view().cam.height * k;
  auto at = [&](Vec2 p) {
    const Vec2 s = view().cam.to_screen(p);
    return Vec2{s.x * k, s.y * k};
  };
  const double lift = std::max(static_cast<double>(kMinAgentPx) * 0.5, 1.2 * view().cam.zoom) * k;  // above the shape
  LabelScene scene;
  scene.agents = &agents();
  scene.scenario = &scenario();
  scene.view = f_->view;
  scene.names = f_->names;
  scene.own_entity = f_->own_entity;
  scene.own_predicted = (f_->own != nullptr);
  scene.css_per_px = k;
  scene.width_css = w;
  scene.height_css = h;
  std::vector<LabelCandidate> c = agent_labels(scene);
  if ((f_->own != nullptr)) {
    const Vec2 s = at((*f_->own).position);
    c.push_back({f_->own_name + " (you)", s.x, s.y - lift, 5, palette::kOwnCraft});
  }
  // The inspected agent's force vectors, each named at its tip, placed before anything else: an
  // arrow pointing up would otherwise end under the agent's own label and lose its name (the agent
  // is named in the inspector panel, and its label moves below it when blocked).
  for (const ForceArrow& f : inspector_arrows()) {
    const Vec2 s = at(f.to);
    c.push_back({f.label, s.x, s.y, 7, f.color});
  }
  // Captions of the layers (path and pattern names, spawn areas) below every agent label.
  for (const WorldCaption& cap : layers().captions) {
    if (!view().layer_on(cap.layer)) continue;
    const Vec2 s = at(cap.at);
    c.push_back({cap.text, s.x, s.y, cap.layer == Layer::kSpawnAreas ? -1 : 0, cap.color});
  }
  // Nothing under the page's panels or the minimap (drawn in the canvas, bottom right).
  std::vector<ScreenBox> blocked = (*f_->occluders);
  if (view().minimap) {
    // The square and its margin to the canvas's edges, in CSS px.
    const ScreenBox m = minimap_box(view().cam.width, view().cam.height);
    blocked.push_back({m.x * k, m.y * k, w - m.x * k, h - m.y * k});
  }
  return layout_labels(std::move(c), w, h, LabelStyle{}, blocked);
}

void Scene::build_instances(const Camera& cam, bool minimap) {
  for (auto& v : inst_) v.clear();
  const double margin = 3;
  const double x0 = cam.cx - cam.half_w() - margin, x1 = cam.cx + cam.half_w() + margin;
  const double y0 = cam.cy - cam.half_h() - margin, y1 = cam.cy + cam.half_h() + margin;
  std::int32_t visible = 0;
  for (const DrawAgent& a : agents()) {
    if ((f_->own != nullptr) && a.id == f_->own_entity) continue;  // drawn predicted
    if (a.position.x < x0 || a.position.x > x1 || a.position.y < y0 || a.position.y > y1) continue;
    ++visible;
    const Rgba c = color_of(a, scenario(), f_->own_entity);
    inst_[static_cast<int>(shape_of(a))].push_back(
        make_instance(a.position, a.orientation, scale_of(a, scenario()), c));
  }
  if (!minimap) visible_ = visible;
  // Highlight of the followed agent.
  if (!minimap && view().follow_id != 0) {
    if (const DrawAgent* f = f_->find(view().follow_id))
      inst_[static_cast<int>(Shape::kRing)].push_back(
          make_instance(f->position, 0, scale_of(*f, scenario()) * 2.2f, {255, 255, 255, 200}));
  }
  if (!minimap && view().inspect_id != 0 && view().inspect_id != view().follow_id) {
    if (const DrawAgent* f = f_->find(view().inspect_id))
      inst_[static_cast<int>(Shape::kRing)].push_back(
          make_instance(f->position, 0, scale_of(*f, scenario()) * 2.2f, {255, 220, 120, 220}));
  }
  // Own craft, predicted (drawn last so it is on top).
  if ((f_->own != nullptr)) {
    const behavior::CraftState p = (*f_->own);
    const bool protected_now = f_->own_protected;
    Rgba c = palette::kOwnCraft;
    if (protected_now && (static_cast<int>(emscripten_get_now() / 150) & 1)) c = palette::with_alpha(c, 90);
    const float s = static_cast<float>(scenario().player_craft.length * (minimap ? 2.0 : 0.9));
    inst_[static_cast<int>(Shape::kDart)].push_back(make_instance(p.position, p.orientation, s, c));
    ++visible_;
  }
}

void Scene::render_world(const Camera& cam, bool minimap) {
  // Agents at least kMinAgentPx tall (device px) in the main view: a fitted world stays readable.
  gl_.set_camera(cam, minimap ? 2.5f : kMinAgentPx * static_cast<float>(f_->css_scale));
  render_layers(cam, minimap);
  auto line = [&](Vec2 a, Vec2 b, Rgba c) {
    lines_.push_back({static_cast<float>(a.x), static_cast<float>(a.y), c});
    lines_.push_back({static_cast<float>(b.x), static_cast<float>(b.y), c});
  };
  // Trails under the agents.
  if (!minimap && view().trails) {
    lines_.clear();
    auto trail = [&](const std::deque<Vec2>& t, Rgba c) {
      for (std::size_t i = 1; i < t.size(); ++i) {
        if (math::length(t[i] - t[i - 1]) > 5) continue;  // teleport or seam
        const auto a = static_cast<std::uint8_t>(200 * i / t.size());
        line(t[i - 1], t[i], palette::with_alpha(c, a));
      }
    };
    trail((*f_->trail_own), palette::kOwnCraft);
    trail((*f_->trail_follow), {255, 255, 255, 255});
    gl_.draw_lines(lines_);
  }

  if (minimap) {
    // The minimap shows where things are, not their shapes: one point per agent, one draw.
    lines_.clear();
    for (const DrawAgent& a : agents()) {
      if ((f_->own != nullptr) && a.id == f_->own_entity) continue;
      lines_.push_back({static_cast<float>(a.position.x), static_cast<float>(a.position.y),
                        color_of(a, scenario(), f_->own_entity)});
    }
    gl_.draw_points(lines_, 2.0f);
    if ((f_->own != nullptr)) {
      lines_.clear();
      const Vec2 p = (*f_->own).position;
      lines_.push_back({static_cast<float>(p.x), static_cast<float>(p.y), palette::kOwnCraft});
      gl_.draw_points(lines_, 6.0f);
    }
    return;
  }
  // Agents: one instanced draw per shape.
  build_instances(cam, minimap);
  for (int s = 0; s < static_cast<int>(Shape::kCount); ++s) {
    if (s == static_cast<int>(Shape::kDisc)) continue;
    gl_.draw(static_cast<Shape>(s), inst_[s]);
  }
}

void Scene::annotate(const Camera& cam) {
  lines_.clear();
  auto line = [&](Vec2 a, Vec2 b, Rgba c) {
    lines_.push_back({static_cast<float>(a.x), static_cast<float>(a.y), c});
    lines_.push_back({static_cast<float>(b.x), static_cast<float>(b.y), c});
  };
  auto cross = [&](Vec2 p, double r, Rgba c) {
    line(p + Vec2{-r, -r}, p + Vec2{r, r}, c);
    line(p + Vec2{-r, r}, p + Vec2{r, -r}, c);
  };
  auto circle = [&](Vec2 p, double r, Rgba c, double from = 0, double to = 2 * math::kPi) {
    const int n = 32;
    Vec2 prev = p + math::as_vector(from) * r;
    for (int i = 1; i <= n; ++i) {
      const Vec2 q = p + math::as_vector(from + (to - from) * i / n) * r;
      line(prev, q, c);
      prev = q;
    }
  };
  const double x0 = cam.cx - cam.half_w(), x1 = cam.cx + cam.half_w();
  const double y0 = cam.cy - cam.half_h(), y1 = cam.cy + cam.half_h();
  std::int32_t budget = 4000;  // annotated agents per frame
  for (const DrawAgent& a : agents()) {
    if (a.position.x < x0 || a.position.x > x1 || a.position.y < y0 || a.position.y > y1) continue;
    if (!(view().annotation_mask & (1u << static_cast<unsigned>(a.kind)))) continue;
    if (--budget < 0) break;
    // Velocity: where it will be in 0.5 s.
    line(a.position, a.position + a.velocity * 0.5, {120, 255, 120, 170});
    const bool aims = a.kind == sim::AgentKind::kPursuer || a.kind == sim::AgentKind::kPatrol ||
                      a.kind == sim::AgentKind::kWanderer || a.state == sim::BehaviorState::kHiding;
    if (aims && !(a.aim.x == a.position.x && a.aim.y == a.position.y)) {
      const Rgba c = a.state == sim::BehaviorState::kIntercepting ? Rgba{255, 159, 64, 220} : Rgba{255, 255, 255, 120};
      line(a.position, a.aim, palette::with_alpha(c, 90));
      cross(a.aim, 0.5, c);
    }
    if (a.target != 0) {
      if (const DrawAgent* t = f_->find(a.target)) line(a.position, t->position, {255, 80, 80, 60});
      else if (a.target != 0 && a.target == f_->own_entity && (f_->own != nullptr))
        line(a.position, (*f_->own).position, {255, 80, 80, 60});
    }
  }
  // The followed flock member: neighbour radius and field of view.
  if (view().follow_id != 0) {
    if (const DrawAgent* f = f_->find(view().follow_id)) {
      if (f->group >= 0 && f->group < static_cast<std::int32_t>(scenario().groups.size())) {
        const sim::GroupSpec& g = scenario().groups[static_cast<std::size_t>(f->group)];
        if (g.technique == sim::Technique::kFlock) {
          const double half = g.flock.fov_deg * math::kDegToRad * 0.5;
          circle(f->position, g.flock.neighbour_radius, {184, 199, 255, 120}, f->orientation - half,
                 f->orientation + half);
          if (half < math::kPi) {
            line(f->position, f->position + math::as_vector(f->orientation - half) * g.flock.neighbour_radius,
                 {184, 199, 255, 120});
            line(f->position, f->position + math::as_vector(f->orientation + half) * g.flock.neighbour_radius,
                 {184, 199, 255, 120});
          }
        }
        if (g.technique == sim::Technique::kWander)
          circle(f->position + math::as_vector(f->orientation) * g.wander.distance, g.wander.radius,
                 {208, 139, 255, 140});
        const bool craft = sim::model_of(g) == sim::Model::kCraft;
        if (!craft) {
          // The vehicle's avoidance sensors, computed with the same shared functions: wall
          // feelers (T75) and the obstacle detection box (T73), which grows with speed.
          const Vec2 h = math::as_vector(f->orientation);
          const behavior::Body b{f->position, f->velocity, h, g.mass, g.max_force, g.max_speed, g.radius};
          if (g.layers.walls > 0)
            for (const Vec2& tip : behavior::feeler_tips(b, g.feelers)) line(f->position, tip, {170, 185, 215, 150});
          if (g.layers.obstacles > 0) {
            const double len = behavior::detection_box_length(b, g.detection);
            const double half = (g.detection.box_width > 0 ? g.detection.box_width : 2 * g.radius) * 0.5;
            const Vec2 l = math::perp_left(h) * half, fwd = h * len;
            const Vec2 c[4] = {f->position + l, f->position + l + fwd, f->position - l + fwd, f->position - l};
            for (int k = 0; k < 4; ++k) line(c[k], c[(k + 1) % 4], {255, 200, 120, 140});
          }
        }
      }
    }
  }
  // Own craft: the authoritative state (ghost) next to the prediction.
  if (const behavior::CraftState* server = f_->server_ghost) {
    circle(server->position, scenario().player_craft.length * 0.8, {255, 255, 255, 160});
    const behavior::CraftState p = (*f_->own);
    line(p.position, p.position + p.velocity * 0.5, {57, 230, 255, 200});
  }
  gl_.draw_lines(lines_);
}

std::vector<Scene::ForceArrow> Scene::inspector_arrows() const {
  std::vector<ForceArrow> out;
  const DrawAgent* f = view().inspect_id ? f_->find(view().inspect_id) : nullptr;
  const sim::SteeringTrace* trace = f_->trace;
  if (!f || !trace || trace->agent.value != view().inspect_id || !f_->trace_available || view().cam.zoom <= 0)
    return out;
  const InspectorData d = make_inspector(*f, scenario(), "", nullptr, trace, f_->trace_available);
  if (!d.behaviour_forces) return out;
  const ForceBreakdown& b = *d.behaviour_forces;
  const double px_to_m = f_->css_scale / view().cam.zoom;  // CSS px -> device px -> m
  auto arrow = [&](Vec2 v, std::string label, Rgba c) {
    const double px = force_arrow_px(v, b.budget);
    if (px < 1) return;  // nothing to draw (and no label for it)
    out.push_back({f->position, f->position + math::normalized(v) * (px * px_to_m), std::move(label), c});
  };
  for (const BehaviourRow& r : b.behaviours) {
    if (!r.evaluated) continue;
    char w[32];
    std::snprintf(w, sizeof w, " \xC3\x97%g", r.weight);
    arrow(r.weighted, r.type + w, r.color);
  }
  arrow(b.result, "steering", palette::kSteeringResult);
  return out;
}

void Scene::draw(const SceneFrame& frame) {
  f_ = &frame;
  int w = view().cam.width, h = view().cam.height;
  gl_.begin_frame(w, h, palette::kBackground);
  if (!f_->have_world) return;
  render_world(view().cam, false);
  if (view().annotations) annotate(view().cam);
  // The inspected agent: a line to its aim point and one to its target, annotations or not.
  if (const DrawAgent* f = view().inspect_id ? f_->find(view().inspect_id) : nullptr) {
    lines_.clear();
    auto line = [&](Vec2 a, Vec2 b, Rgba c) {
      lines_.push_back({static_cast<float>(a.x), static_cast<float>(a.y), c});
      lines_.push_back({static_cast<float>(b.x), static_cast<float>(b.y), c});
    };
    if (!(f->aim.x == f->position.x && f->aim.y == f->position.y)) {
      line(f->position, f->aim, {255, 255, 255, 220});
      const double r = 6 / view().cam.zoom;
      line(f->aim + Vec2{-r, -r}, f->aim + Vec2{r, r}, {255, 255, 255, 255});
      line(f->aim + Vec2{-r, r}, f->aim + Vec2{r, -r}, {255, 255, 255, 255});
    }
    if (f->target != 0) {
      if (const DrawAgent* t = f_->find(f->target)) line(f->position, t->position, {255, 90, 79, 230});
      else if (f->target == f_->own_entity && (f_->own != nullptr))
        line(f->position, (*f_->own).position, {255, 90, 79, 230});
    }
    // Each behaviour's share of this step's steering and the result, as arrows (heads 7 px).
    const double head = 7 * f_->css_scale / view().cam.zoom;
    for (const ForceArrow& a : inspector_arrows()) {
      line(a.from, a.to, a.color);
      const Vec2 back = math::normalized(a.from - a.to) * head;
      line(a.to, a.to + math::rotate(back, 0.45), a.color);
      line(a.to, a.to + math::rotate(back, -0.45), a.color);
    }
    gl_.draw_lines(lines_);
  }
  if (view().minimap) {
    const ScreenBox m = minimap_box(w, h);
    const int size = static_cast<int>(m.w);
    // GL's viewport counts rows from the bottom.
    gl_.begin_inset(static_cast<int>(m.x), h - static_cast<int>(m.y + m.h), size, size, {5, 8, 18, 235});
    Camera mm;
    mm.width = size;
    mm.height = size;
    mm.cx = scenario().width / 2;
    mm.cy = scenario().height / 2;
    mm.zoom = size / (std::max(scenario().width, scenario().height) * 1.04);
    render_world(mm, true);
    // The main camera's rectangle.
    lines_.clear();
    const Rgba c{255, 255, 255, 150};
    const Vec2 a{view().cam.cx - view().cam.half_w(), view().cam.cy - view().cam.half_h()},
        b{view().cam.cx + view().cam.half_w(), view().cam.cy + view().cam.half_h()};
    const Vec2 corners[4] = {a, {b.x, a.y}, b, {a.x, b.y}};
    for (int i = 0; i < 4; ++i) {
      const Vec2 p = corners[i], q = corners[(i + 1) % 4];
      lines_.push_back({static_cast<float>(p.x), static_cast<float>(p.y), c});
      lines_.push_back({static_cast<float>(q.x), static_cast<float>(q.y), c});
    }
    gl_.draw_lines(lines_);
    gl_.end_inset();
  }
}

}  // namespace flockstep::client
