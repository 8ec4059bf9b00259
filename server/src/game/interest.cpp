#include "game/interest.hpp"

#include <algorithm>
#include <cmath>

#include "flockstep/sim/agent.hpp"

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

void WorldSample::build_index() {
  const std::size_t n = agents.size();
  players.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (agents[i].kind == static_cast<std::uint8_t>(sim::AgentKind::kPlayer))
      players.push_back(static_cast<std::int32_t>(i));
  if (!(width > 0) || !(height > 0)) {
    cols = rows = 0;
    return;
  }
  cell_m = std::max({kMinCellM, width / kMaxCellsPerAxis, height / kMaxCellsPerAxis});
  cols = std::max<std::int32_t>(1, static_cast<std::int32_t>(std::ceil(width / cell_m)));
  rows = std::max<std::int32_t>(1, static_cast<std::int32_t>(std::ceil(height / cell_m)));
  const std::size_t cells = static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows);
  cell_start.assign(cells + 1, 0);
  cell_items.resize(n);
  auto cell_of = [&](std::size_t i) {
    const auto cx = std::clamp<std::int32_t>(static_cast<std::int32_t>(std::floor(x[i] / cell_m)), 0, cols - 1);
    const auto cy = std::clamp<std::int32_t>(static_cast<std::int32_t>(std::floor(y[i] / cell_m)), 0, rows - 1);
    return static_cast<std::size_t>(cy) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(cx);
  };
  // Counting sort; walking the sample in order keeps every cell's indices ascending.
  for (std::size_t i = 0; i < n; ++i) ++cell_start[cell_of(i) + 1];
  for (std::size_t c = 0; c < cells; ++c) cell_start[c + 1] += cell_start[c];
  std::vector<std::int32_t> fill(cell_start.begin(), cell_start.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    cell_items[static_cast<std::size_t>(fill[cell_of(i)]++)] = static_cast<std::int32_t>(i);
}

namespace {

/// Bucket columns (or rows) covering [lo, hi] m on an axis of `count` buckets of `cell` m over
/// `size` m: wrapping worlds take the copies across the seam, solid ones clamp. Appends
/// inclusive ranges [first, last] (at most two, or one range of every bucket).
void bucket_ranges(double lo, double hi, double cell, std::int32_t count, double size, bool wrap,
                   std::vector<std::pair<std::int32_t, std::int32_t>>& out) {
  out.clear();
  auto index = [&](double v) {
    return std::clamp<std::int32_t>(static_cast<std::int32_t>(std::floor(v / cell)), 0, count - 1);
  };
  if (wrap) {
    if (hi - lo >= size) {
      out.emplace_back(0, count - 1);
      return;
    }
    const double l = lo - size * std::floor(lo / size);  // [0, size)
    const double h = l + (hi - lo);
    if (h < size) {
      out.emplace_back(index(l), index(h));
    } else {
      out.emplace_back(index(l), count - 1);
      out.emplace_back(0, index(h - size));
    }
    return;
  }
  if (hi < 0 || lo > size) return;
  out.emplace_back(index(lo), index(hi));
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

  // Which agents to examine: every one, or (with an index) those in the buckets the area grown
  // by the hysteresis touches, plus the always-visible crafts, in ascending order (= id order).
  thread_local std::vector<std::int32_t> candidates;
  thread_local std::vector<std::pair<std::int32_t, std::int32_t>> xr, yr;
  const bool indexed =
      world.cols > 0 && area.kind != Area::Kind::kAll &&
      world.cell_start.size() == static_cast<std::size_t>(world.cols) * static_cast<std::size_t>(world.rows) + 1;
  if (indexed) {
    const double grow = config.hysteresis_m;
    double x0, x1, y0, y1;
    if (area.kind == Area::Kind::kCircle) {
      x0 = area.cx - area.radius - grow;
      x1 = area.cx + area.radius + grow;
      y0 = area.cy - area.radius - grow;
      y1 = area.cy + area.radius + grow;
    } else {
      x0 = area.rect.min_x - grow;
      x1 = area.rect.max_x + grow;
      y0 = area.rect.min_y - grow;
      y1 = area.rect.max_y + grow;
    }
    candidates.clear();
    bucket_ranges(x0, x1, world.cell_m, world.cols, world.width, world.wrap, xr);
    bucket_ranges(y0, y1, world.cell_m, world.rows, world.height, world.wrap, yr);
    for (const auto& [ry0, ry1] : yr)
      for (std::int32_t r = ry0; r <= ry1; ++r)
        for (const auto& [rx0, rx1] : xr) {
          // A row's buckets [rx0, rx1] are contiguous in cell_items.
          const std::size_t first = static_cast<std::size_t>(r) * static_cast<std::size_t>(world.cols);
          const auto b = static_cast<std::size_t>(world.cell_start[first + static_cast<std::size_t>(rx0)]);
          const auto e = static_cast<std::size_t>(world.cell_start[first + static_cast<std::size_t>(rx1) + 1]);
          candidates.insert(candidates.end(), world.cell_items.begin() + static_cast<std::ptrdiff_t>(b),
                            world.cell_items.begin() + static_cast<std::ptrdiff_t>(e));
        }
    if (area.players_always) candidates.insert(candidates.end(), world.players.begin(), world.players.end());
    if (area.always_id != 0) {  // the sample is sorted by id
      const auto it = std::lower_bound(world.agents.begin(), world.agents.end(), area.always_id,
                                       [](const codec::QAgent& a, std::uint32_t id) { return a.id < id; });
      if (it != world.agents.end() && it->id == area.always_id)
        candidates.push_back(static_cast<std::int32_t>(it - world.agents.begin()));
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  const std::size_t count = indexed ? candidates.size() : n;

  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = indexed ? static_cast<std::size_t>(candidates[k]) : k;
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
    const bool always =
        q.id == area.always_id || (area.players_always && q.kind == static_cast<std::uint8_t>(sim::AgentKind::kPlayer));
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
