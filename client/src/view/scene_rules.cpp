// The scene's rules apart from WebGL (scene_rules.hpp).
#include "view/scene_rules.hpp"

#include <algorithm>

#include "view/palette.hpp"

namespace flockstep::client {

using math::Vec2;

namespace {
// A group's name on the map: the part before ": " (rooms name groups "Fig 3.12 pursue: heads where
// the rabbit will be", a caption for the legend and inspector that would cover the world as a label).
std::string map_name(const std::string& name) {
  const std::size_t colon = name.find(": ");
  return colon == std::string::npos ? name : name.substr(0, colon);
}
}  // namespace

ScreenBox minimap_box(int width_px, int height_px) {
  const int size = std::max(kMinimapMinPx, std::min(kMinimapMaxPx, std::min(width_px, height_px) / 4));
  return {static_cast<double>(width_px - size - kMinimapPadPx), static_cast<double>(height_px - size - kMinimapPadPx),
          static_cast<double>(size), static_cast<double>(size)};
}

const sim::GroupSpec* group_of(const DrawAgent& a, const sim::Scenario& s) {
  if (a.group < 0 || a.group >= static_cast<std::int32_t>(s.groups.size())) return nullptr;
  return &s.groups[static_cast<std::size_t>(a.group)];
}

bool label_groups(const sim::Scenario& s, int labels_mode) {
  if (labels_mode >= 0) return labels_mode == 1;
  double agents = 0, groups = 0;
  for (const sim::GroupSpec& g : s.groups)
    if (g.count > 0) {
      agents += g.count;
      groups += 1;
    }
  return groups > 0 && agents / groups <= kLabelAgentsPerGroup;
}

const char* flock_role_of(const DrawAgent& a, const sim::Scenario& s) {
  // A bourg_flock unit's role travels in its state (sim::World::step_bourg_groups): the leader
  // seeks the player, the interceptor intercepts (or falls back to line of sight), followers neither.
  const sim::GroupSpec* g = group_of(a, s);
  if (!g || g->technique != sim::Technique::kBourgFlock) return nullptr;
  if (a.state == sim::BehaviorState::kSeeking) return "leader";
  if (a.state == sim::BehaviorState::kIntercepting || a.state == sim::BehaviorState::kLosFallback) return "interceptor";
  return "follower";
}

Rgba color_of(const DrawAgent& a, const sim::Scenario& s, std::uint32_t own_entity) {
  if (const char* role = flock_role_of(a, s)) {
    if (role[0] == 'l') return palette::kFlockLeader;
    return role[0] == 'i' ? palette::kFlockInterceptor : palette::kFlockFollower;
  }
  switch (a.kind) {
    case sim::AgentKind::kPlayer:
      if (a.state == sim::BehaviorState::kCaptured) return palette::kCaptured;
      return a.id == own_entity && own_entity != 0 ? palette::kOwnCraft : palette::kOtherPlayer;
    case sim::AgentKind::kPursuer:
      return a.state == sim::BehaviorState::kIntercepting ? palette::kPursuerIntercept : palette::kPursuer;
    case sim::AgentKind::kFlock: return palette::kFlock;
    case sim::AgentKind::kPatrol: return palette::kPatrol;
    case sim::AgentKind::kWanderer: return palette::kWanderer;
    default: return palette::kFlock;
  }
}

Shape shape_of(const DrawAgent& a) {
  switch (a.kind) {
    case sim::AgentKind::kPlayer: return Shape::kDart;
    case sim::AgentKind::kPursuer: return Shape::kArrow;
    case sim::AgentKind::kFlock: return Shape::kBoid;
    case sim::AgentKind::kPatrol: return Shape::kSquare;
    case sim::AgentKind::kWanderer: return Shape::kHex;
    default: return Shape::kBoid;
  }
}

float scale_of(const DrawAgent& a, const sim::Scenario& s) {
  if (const sim::GroupSpec* g = group_of(a, s)) {
    // The movement model decides the shape (the world's own rule, so composed craft groups and
    // Bourg units are drawn as crafts too).
    if (sim::model_of(*g) == sim::Model::kCraft) return static_cast<float>(g->craft.length * 0.75);
    return static_cast<float>(g->radius * 1.6);
  }
  return static_cast<float>(s.player_craft.length * 0.75);
}

std::string group_caption(const sim::GroupSpec& g) {
  const char* tech = sim::technique_name(g.technique);
  return g.name == tech ? g.name : map_name(g.name) + " \xC2\xB7 " + tech;
}

std::vector<LabelCandidate> agent_labels(const LabelScene& scene) {
  const std::vector<DrawAgent>& agents = *scene.agents;
  const sim::Scenario& scenario = *scene.scenario;
  const ViewState& view = *scene.view;
  const Camera& cam = view.cam;
  const double k = scene.css_per_px, w = scene.width_css, h = scene.height_css;
  std::vector<LabelCandidate> c;
  auto at = [&](Vec2 p) {
    const Vec2 s = cam.to_screen(p);
    return Vec2{s.x * k, s.y * k};
  };
  const bool groups = label_groups(scenario, view.labels_mode);
  const double lift = std::max(static_cast<double>(kMinAgentPx) * 0.5, 1.2 * cam.zoom) * k;  // above the shape
  for (const DrawAgent& a : agents) {
    if (scene.own_predicted && a.id == scene.own_entity) continue;
    const Vec2 s = at(a.position);
    if (s.x < 0 || s.y < 0 || s.x > w || s.y > h) continue;
    const sim::GroupSpec* g = group_of(a, scenario);
    const bool focus = a.id == view.follow_id || a.id == view.inspect_id;
    std::string text;
    std::int32_t prio = 0;
    if (a.kind == sim::AgentKind::kPlayer) {
      text = "player";
      if (scene.names) {
        const auto it = scene.names->find(a.id);
        if (it != scene.names->end()) text = it->second;
      }
      prio = 3;
    } else if (focus || groups) {
      if (!g) continue;
      text = group_caption(*g);
      prio = 1;
      if (const char* role = flock_role_of(a, scenario)) {
        text = map_name(g->name) + " \xC2\xB7 " + role;  // AIDemo4's leader and interceptor are told apart
        prio = role[0] == 'f' ? 1 : 2;
      }
    } else {
      continue;
    }
    if (focus) prio = 6;
    c.push_back({std::move(text), s.x, s.y - lift, prio, color_of(a, scenario, scene.own_entity)});
  }
  // Automatic mode in rooms with many agents per group: one caption per group, on the member
  // nearest the group's mean position, so every flock and patrol is named without a smear.
  if (!groups && view.labels_mode < 0 && !scenario.groups.empty()) {
    const std::size_t n = scenario.groups.size();
    std::vector<Vec2> sum(n, Vec2{0, 0});
    std::vector<double> count(n, 0);
    for (const DrawAgent& a : agents) {
      if (a.group < 0 || static_cast<std::size_t>(a.group) >= n || a.kind == sim::AgentKind::kPlayer) continue;
      sum[static_cast<std::size_t>(a.group)] += a.position;
      count[static_cast<std::size_t>(a.group)] += 1;
    }
    std::vector<const DrawAgent*> best(n, nullptr);
    std::vector<double> best_d2(n, 1e300);
    for (const DrawAgent& a : agents) {
      if (a.group < 0 || static_cast<std::size_t>(a.group) >= n || a.kind == sim::AgentKind::kPlayer) continue;
      const auto g = static_cast<std::size_t>(a.group);
      const double d2 = math::length_sq(a.position - sum[g] * (1.0 / count[g]));
      if (d2 < best_d2[g]) {
        best_d2[g] = d2;
        best[g] = &a;
      }
    }
    for (std::size_t g = 0; g < n; ++g) {
      if (!best[g] || best[g]->id == view.follow_id || best[g]->id == view.inspect_id) continue;
      const Vec2 s = at(best[g]->position);
      c.push_back(
          {group_caption(scenario.groups[g]), s.x, s.y - lift, 1, color_of(*best[g], scenario, scene.own_entity)});
    }
    // AIDemo4's leader and interceptor are named on their own, whatever the group's size.
    for (const DrawAgent& a : agents) {
      const char* role = flock_role_of(a, scenario);
      if (!role || role[0] == 'f' || a.id == view.follow_id || a.id == view.inspect_id) continue;
      const Vec2 s = at(a.position);
      if (s.x < 0 || s.y < 0 || s.x > w || s.y > h) continue;
      c.push_back({role, s.x, s.y - lift, 2, color_of(a, scenario, scene.own_entity)});
    }
  }
  return c;
}

}  // namespace flockstep::client
