#include "ui/inspector.hpp"

#include <cmath>

#include "view/palette.hpp"

namespace flockstep::client {
namespace {

const sim::GroupSpec* group_of(const sim::Scenario& s, std::int32_t g) {
  return g >= 0 && g < static_cast<std::int32_t>(s.groups.size()) ? &s.groups[static_cast<std::size_t>(g)] : nullptr;
}

const char* shape_label(sim::AgentKind k) {
  switch (k) {
    case sim::AgentKind::kPlayer: return "dart";
    case sim::AgentKind::kPursuer: return "arrowhead";
    case sim::AgentKind::kFlock: return "slim triangle";
    case sim::AgentKind::kPatrol: return "box with a nose";
    case sim::AgentKind::kWanderer: return "hexagon";
    default: return "triangle";
  }
}

}  // namespace

const char* state_label(sim::BehaviorState s) {
  switch (s) {
    case sim::BehaviorState::kSeeking: return "seeking";
    case sim::BehaviorState::kIntercepting: return "intercepting";
    case sim::BehaviorState::kLosFallback: return "line-of-sight fallback";
    case sim::BehaviorState::kFleeing: return "fleeing";
    case sim::BehaviorState::kAvoiding: return "avoiding";
    case sim::BehaviorState::kPatrolling: return "patrolling";
    case sim::BehaviorState::kHiding: return "hiding";
    case sim::BehaviorState::kCaptured: return "captured";
    default: return "none";
  }
}

InspectorData make_inspector(const DrawAgent& a, const sim::Scenario& s, const std::string& name,
                             const DrawAgent* target) {
  InspectorData d;
  d.id = a.id;
  d.name = name;
  d.group_index = a.group;
  d.kind = sim::kind_name(a.kind);
  d.state = state_label(a.state);
  d.speed = std::sqrt(a.velocity.x * a.velocity.x + a.velocity.y * a.velocity.y);
  d.heading_deg = a.orientation * 180 / math::kPi;
  d.position = a.position;
  d.aim = a.aim;
  d.target = a.target;
  if (const sim::GroupSpec* g = group_of(s, a.group)) {
    d.group = g->name;
    d.technique = sim::technique_name(g->technique);
    d.max_speed = g->max_speed;
  }
  if (target != nullptr && target->id == a.target)
    if (const sim::GroupSpec* tg = group_of(s, target->group)) d.target_group = tg->name;
  return d;
}

Legend make_legend(const sim::Scenario& s, const WorldLayers& layers) {
  Legend l;
  bool seen[static_cast<int>(sim::AgentKind::kCount)] = {};
  seen[static_cast<int>(sim::AgentKind::kPlayer)] = true;  // anyone may join and play
  for (std::size_t i = 0; i < s.groups.size(); ++i) {
    const sim::GroupSpec& g = s.groups[i];
    seen[static_cast<int>(g.kind)] = true;
    l.groups.push_back({g.name, sim::technique_name(g.technique), palette::kind_color(g.kind), g.count, static_cast<std::int32_t>(i)});
  }
  for (int k = 0; k < static_cast<int>(sim::AgentKind::kCount); ++k) {
    if (!seen[k]) continue;
    const auto kind = static_cast<sim::AgentKind>(k);
    l.kinds.push_back({sim::kind_name(kind), shape_label(kind), palette::kind_color(kind), 0, k});
  }
  for (int i = 0; i < kLayerCount; ++i) {
    const Layer layer = static_cast<Layer>(i);
    if (layers.counts.of(layer) == 0) continue;
    Rgba c = palette::kWall;
    if (!layers.triangles[i].empty()) c = layers.triangles[i].front().color;
    else if (!layers.lines[i].empty()) c = layers.lines[i].front().color;
    else if (layer == Layer::kObstacles) c = palette::kObstacleEdge;
    l.layers.push_back({layer_name(layer), std::string(layer_key(layer)).substr(3), c, layers.counts.of(layer), i});
  }
  return l;
}

}  // namespace flockstep::client
