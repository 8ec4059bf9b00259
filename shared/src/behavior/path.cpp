/// \file path.cpp
/// T52-T54 line-segment paths and path following.
#include "flockstep/behavior/path.hpp"

#include <algorithm>
#include <cmath>

namespace flockstep::behavior {

namespace {

/// Start and end point of segment i (the last segment of a looped path closes back to points[0]).
struct Segment {
  Vec2 a;
  Vec2 b;
  real s0 = 0;   ///< parameter at a
  real len = 0;  ///< arc length of the segment
};

Segment segment(const LinePath& path, std::int32_t i) {
  const auto n = static_cast<std::int32_t>(path.points.size());
  const std::int32_t j = i + 1 < n ? i + 1 : 0;
  return {path.points[i], path.points[j], path.cumulative[i], path.cumulative[i + 1] - path.cumulative[i]};
}

/// Best candidate so far of a closest-point search.
struct Best {
  real dist_sq = math::kInfinity;
  real param = 0;
  real from_last = math::kInfinity;  ///< |param - last_param| for the tie-break
};

/// Closest point of segment `seg` to `q`, restricted to parameters [lo, hi] of the segment
/// shifted by `shift` (lap offset on loops); updates best. Ties: closest to `last`.
void consider(const Segment& seg, real shift, real lo, real hi, Vec2 q, real last, Best& best) {
  const real seg_lo = seg.s0 + shift;
  const real lo_c = math::max(lo, seg_lo);
  const real hi_c = math::min(hi, seg_lo + seg.len);
  if (lo_c > hi_c) return;
  real t = 0;
  if (seg.len > 0) {
    // Unclamped projection, then clamped to the part of the segment inside the window.
    const Vec2 ab = seg.b - seg.a;
    t = math::clamp(dot(q - seg.a, ab) / math::length_sq(ab), (lo_c - seg_lo) / seg.len, (hi_c - seg_lo) / seg.len);
  }
  const Vec2 point = seg.a + (seg.b - seg.a) * t;
  const real d2 = math::distance_sq(point, q);
  const real param = seg_lo + t * seg.len;
  const real from_last = std::abs(param - last);
  if (d2 < best.dist_sq || (d2 == best.dist_sq && from_last < best.from_last)) best = {d2, param, from_last};
}

/// Brute force over one lap: parameter in [0, L]. Ties go to the lowest parameter (the
/// tie-break reference `last` is 0, so "closest to last" means "lowest").
real brute_force(const LinePath& path, Vec2 q) {
  const std::int32_t nseg = path.segment_count();
  if (nseg == 0) return 0;
  Best best;
  for (std::int32_t i = 0; i < nseg; ++i) consider(segment(path, i), 0, -math::kInfinity, math::kInfinity, q, 0, best);
  return best.param;
}

}  // namespace

std::int32_t LinePath::segment_count() const {
  const auto n = static_cast<std::int32_t>(points.size());
  if (n < 2) return 0;
  return looped ? n : n - 1;
}

real LinePath::length() const {
  const std::int32_t nseg = segment_count();
  return nseg == 0 ? real(0) : cumulative[nseg];
}

LinePath build_line_path(std::span<const Vec2> points, std::span<real> cumulative, bool looped) {
  if (points.empty() || cumulative.size() < points.size() + 1) return {};
  const auto n = static_cast<std::int32_t>(points.size());
  cumulative[0] = 0;
  for (std::int32_t i = 1; i < n; ++i) cumulative[i] = cumulative[i - 1] + math::distance(points[i - 1], points[i]);
  // Entry n is the closing segment's end on loops; on open paths it repeats L (never read as a
  // segment end, but keeps the table monotonic for the lookup in get_position).
  cumulative[n] = cumulative[n - 1] + (looped && n >= 2 ? math::distance(points[n - 1], points[0]) : real(0));
  return {points, cumulative.first(points.size() + 1), looped};
}

LinePath FixedLinePath::view() const {
  if (count <= 0) return {};
  return {std::span<const Vec2>(points.data(), static_cast<std::uint32_t>(count)),
          std::span<const real>(cumulative.data(), static_cast<std::uint32_t>(count) + 1u), looped};
}

bool make_fixed_line_path(std::span<const Vec2> points, bool looped, FixedLinePath& out) {
  out = FixedLinePath{};
  if (points.empty() || points.size() > static_cast<std::uint32_t>(kMaxPathPoints)) return false;
  std::copy(points.begin(), points.end(), out.points.begin());
  out.count = static_cast<std::int32_t>(points.size());
  out.looped = looped;
  build_line_path(std::span<const Vec2>(out.points).first(points.size()), out.cumulative, looped);
  return true;
}

real wrap_param(const LinePath& path, real param) {
  const real len = path.length();
  if (len <= 0) return 0;
  if (!path.looped) return math::clamp(param, 0, len);
  real u = param - len * std::floor(param / len);
  if (u >= len) u -= len;  // floor rounding can land exactly on len
  if (u < 0) u = 0;
  return u;
}

Vec2 get_position(const LinePath& path, real param) {
  if (!path.valid()) return {};
  const std::int32_t nseg = path.segment_count();
  if (nseg == 0 || path.length() <= 0) return path.points[0];
  const real u = wrap_param(path, param);
  // Segment i covers [cumulative[i], cumulative[i+1]]: the last table entry <= u.
  const auto table = path.cumulative.first(static_cast<std::uint32_t>(nseg) + 1u);
  const auto it = std::upper_bound(table.begin(), table.end(), u);
  std::int32_t i = static_cast<std::int32_t>(it - table.begin()) - 1;
  i = std::clamp(i, std::int32_t{0}, nseg - 1);
  const Segment seg = segment(path, i);
  if (seg.len <= 0) return seg.a;
  const real t = math::clamp((u - seg.s0) / seg.len, 0, 1);
  return seg.a + (seg.b - seg.a) * t;
}

real get_param(const LinePath& path, Vec2 position) { return brute_force(path, position); }

real get_param(const LinePath& path, Vec2 position, real last_param, real window) {
  const std::int32_t nseg = path.segment_count();
  const real len = path.length();
  if (nseg == 0 || len <= 0) return 0;
  if (!path.looped) {
    const real last = math::clamp(last_param, 0, len);
    if (!(window < len)) return brute_force(path, position);  // the window covers the whole path
    Best best;
    for (std::int32_t i = 0; i < nseg; ++i)
      consider(segment(path, i), 0, last - window, last + window, position, last, best);
    return best.param;
  }
  if (!(2 * window < len)) {
    // Window covers a whole lap: brute force, then the lap representative nearest last_param.
    const real u = brute_force(path, position);
    return u + len * std::floor((last_param - u) / len + 0.5);
  }
  // Window narrower than a lap: it spans at most two laps; test each segment on each.
  const real lo = last_param - window;
  const real hi = last_param + window;
  const real first_lap = std::floor(lo / len);
  const real last_lap = std::floor(hi / len);
  Best best;
  for (real lap = first_lap; lap <= last_lap; lap += 1) {
    for (std::int32_t i = 0; i < nseg; ++i) consider(segment(path, i), lap * len, lo, hi, position, last_param, best);
  }
  return best.param;
}

namespace {

/// Shared body of T52 and T53: `query` is where the parameter is searched (the position, or the
/// predicted position for T53).
PathFollowOutput follow_core(const Kinematic& c, const LinePath& path, PathFollowState& state,
                             const PathFollowParams& p, Vec2 query, bool monotonic) {
  PathFollowOutput out;
  if (!path.valid()) return out;  // nothing to follow: no steering
  const real window = p.coherence_window;
  // First call: brute force, canonical parameter; afterwards coherent around the last one.
  const real current =
      state.started != 0 ? get_param(path, query, state.current_param, window) : get_param(path, query);
  real target = current + p.path_offset;
  if (monotonic && state.started != 0) {
    // Never let the rabbit move backwards relative to the direction of travel.
    target = p.path_offset >= 0 ? math::max(target, state.target_param) : math::min(target, state.target_param);
  }
  const real len = path.length();
  bool at_end = false;
  if (!path.looped) {
    at_end = target >= len || target <= 0;
    target = math::clamp(target, 0, len);
  }
  out.current_param = current;
  out.target_param = target;
  out.target = get_position(path, target);
  if (at_end && p.arrive_at_end) {
    out.arriving = true;
    out.steering = dynamic_arrive(c, out.target, p.arrive);
  } else {
    out.steering = dynamic_seek(c, out.target, p.seek);
  }
  state.current_param = current;
  state.target_param = target;
  state.started = 1;
  return out;
}

}  // namespace

PathFollowOutput follow_path(const Kinematic& c, const LinePath& path, PathFollowState& state,
                             const PathFollowParams& p) {
  return follow_core(c, path, state, p, c.position, false);
}

PathFollowOutput follow_path_predictive(const Kinematic& c, const LinePath& path, PathFollowState& state,
                                        const PredictivePathFollowParams& p) {
  return follow_core(c, path, state, p.follow, c.position + c.velocity * p.predict_time, p.monotonic_target);
}

}  // namespace flockstep::behavior
