#include "game/interest.hpp"

#include <algorithm>
#include <cmath>

#include "flockstep/sim/world.hpp"

namespace flockstep::server::game {

namespace {

/// Shortest signed difference b - a on an axis of length `size` (wrapping worlds).
double axis_delta(double a, double b, double size, bool wrap) {
  double d = b - a;
  if (wrap && size > 0) d -= size * std::floor(d / size + 0.5);
  return d;
}

/// Distance outside the rectangle along one axis (0 inside); wrapping worlds take the nearest copy.
double outside(double p, double lo, double hi, double size, bool wrap) {
  const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
  return std::max(0.0, std::fabs(axis_delta(mid, p, size, wrap)) - half);
}

}  // namespace

void select_visible(const WorldSample& world, const Area& area, const codec::ViewFrame* previous,
                    const InterestConfig& config, std::vector<codec::QAgent>& out, std::vector<float>& weight) {
  out.clear();
  weight.clear();
  const std::size_t n = world.agents.size();
  const std::vector<codec::KnownAgent>* prev = previous ? &previous->agents : nullptr;
  std::size_t p = 0;  // cursor in the previous frame (both lists are sorted by id)
  double cx = area.cx, cy = area.cy;
  if (area.kind == Area::Kind::kRect) {
    cx = 0.5 * (area.rect.min_x + area.rect.max_x);
    cy = 0.5 * (area.rect.min_y + area.rect.max_y);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const codec::QAgent& q = world.agents[i];
    bool was_in = false;
    if (prev) {
      while (p < prev->size() && (*prev)[p].q.id < q.id) ++p;
      was_in = p < prev->size() && (*prev)[p].q.id == q.id;
    }
    const double dx = axis_delta(cx, world.x[i], world.width, world.wrap);
    const double dy = axis_delta(cy, world.y[i], world.height, world.wrap);
    // How far outside the area the agent is (<= 0: inside).
    double beyond = 0;
    switch (area.kind) {
      case Area::Kind::kAll: beyond = 0; break;
      case Area::Kind::kCircle: beyond = std::sqrt(dx * dx + dy * dy) - area.radius; break;
      case Area::Kind::kRect:
        beyond = std::max(outside(world.x[i], area.rect.min_x, area.rect.max_x, world.width, world.wrap),
                          outside(world.y[i], area.rect.min_y, area.rect.max_y, world.height, world.wrap));
        break;
    }
    const bool always = q.id == area.always_id ||
                        (area.players_always && q.kind == static_cast<std::uint8_t>(sim::AgentKind::kPlayer));
    const bool in = always || beyond <= 0 || (was_in && beyond <= config.hysteresis_m);
    if (!in) continue;
    out.push_back(q);
    const double dist = area.kind == Area::Kind::kAll ? 0.0 : std::sqrt(dx * dx + dy * dy);
    double w = (1.0 + world.speed[i] / config.weight_speed_mps) / (1.0 + dist / config.weight_distance_m);
    if (q.id == area.always_id) w *= 1000;  // the own craft first: its player is looking at it
    weight.push_back(static_cast<float>(w));
  }
}

}  // namespace flockstep::server::game
