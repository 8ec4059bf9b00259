#include "ui/inspector.hpp"

#include <algorithm>
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

double force_arrow_px(math::Vec2 v, double budget) {
  const double len = std::sqrt(v.x * v.x + v.y * v.y);
  if (!(budget > 0) || !(len > 0)) return 0;
  return std::min(len / budget, 2.0) * kForceArrowPx;
}

InspectorData make_inspector(const DrawAgent& a, const sim::Scenario& s, const std::string& name,
                             const DrawAgent* target, const sim::SteeringTrace* trace, bool trace_available) {
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
    const sim::Model model = sim::model_of(*g);  // presets name their model through the technique
    d.model = sim::model_name(model);
    const bool composed = model == sim::Model::kVehicle || model == sim::Model::kSteering;
    if (composed) {
      // The composition the world runs (presets expanded), in its order: the trace's order.
      const sim::Composition c = sim::composition_of(*g);
      d.combiner = sim::combiner_name(c.combiner);
      for (std::size_t q = 0; q < c.behaviors.size(); ++q) {
        BehaviourRow row;
        row.type = sim::behavior_name(c.behaviors[q].type);
        row.weight = c.behaviors[q].weight;
        row.priority = c.behaviors[q].priority;
        row.color = palette::kBehaviour[q % 8];
        d.composition.push_back(std::move(row));
      }
      if (trace != nullptr && trace->agent.value == a.id) {
        ForceBreakdown f;
        f.available = trace_available;
        f.tick = trace->tick;
        const bool vehicle = model == sim::Model::kVehicle;
        f.unit = vehicle ? "N" : "m/s\xC2\xB2";
        f.budget = vehicle ? g->max_force : g->max_force / g->mass;
        if (trace_available) {
          for (std::int32_t q = 0; q < trace->count; ++q) {
            const sim::BehaviorTrace& b = trace->behaviors[q];
            BehaviourRow row;
            row.type = sim::behavior_name(b.type);
            row.weight = b.weight;
            row.priority = static_cast<std::size_t>(q) < d.composition.size()
                               ? d.composition[static_cast<std::size_t>(q)].priority
                               : 0;
            row.evaluated = b.evaluated;
            row.raw = b.raw.linear;
            row.weighted = b.raw.linear * b.weight;
            row.angular = b.raw.angular;
            row.color = palette::kBehaviour[q % 8];
            f.behaviours.push_back(std::move(row));
          }
          f.result = trace->result.linear;
          f.result_angular = trace->result.angular;
        }
        d.behaviour_forces = std::move(f);
      }
    }
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
    l.groups.push_back(
        {g.name, sim::technique_name(g.technique), palette::kind_color(g.kind), g.count, static_cast<std::int32_t>(i)});
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
