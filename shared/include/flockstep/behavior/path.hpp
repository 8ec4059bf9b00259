#pragma once
/// \file path.hpp
/// T54 line-segment paths (parameter = arc length, getParam with coherence, getPosition) and the
/// path-following behaviours built on them: T52 "chase the rabbit" and T53 predictive path
/// following (catalog Part F, Millington 3.3.12).
///
/// Storage: a LinePath is a non-owning view over caller-owned points and a caller-owned table of
/// cumulative arc lengths (filled once by build_line_path, so nothing is allocated per tick).
/// FixedLinePath is an owning value type with room for kMaxPathPoints points for callers that
/// want to keep a path inside a state struct.
///
/// Parameter convention. The parameter is the arc length from points[0] (metres).
///  * Open path: valid range [0, L]; get_position CLAMPS out-of-range parameters to the ends.
///  * Looped path (closing segment back to points[0]): get_position WRAPS parameters modulo L.
///    get_param returns an *unwrapped* parameter: of all values congruent modulo L it returns the
///    one closest to last_param, so a follower's parameter keeps increasing across laps instead of
///    jumping from L back to 0 (use wrap_param for the canonical value in [0, L)).
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/steering.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Capacity of FixedLinePath, points. 64 covers every patrol and demo path in the catalog.
inline constexpr std::int32_t kMaxPathPoints = 64;

/// T54 non-owning line-segment path. Build it with build_line_path; the spans must outlive it.
struct LinePath {
  std::span<const Vec2> points;      ///< vertices, caller-owned
  std::span<const real> cumulative;  ///< cumulative[i] = arc length at points[i]; cumulative[n] = L when looped
  bool looped = false;               ///< true: a closing segment joins the last point to the first

  /// Number of segments: n - 1 open, n looped (n >= 2), 0 for fewer than 2 points.
  std::int32_t segment_count() const;
  /// Total arc length L, m (including the closing segment when looped).
  real length() const;
  /// True when the path has at least one point.
  bool valid() const { return !points.empty(); }
};

/// T54: fill `cumulative` (caller-owned, size >= points.size() + 1) with arc lengths and return a
/// view. Returns an empty (invalid) path when points is empty or cumulative is too small.
LinePath build_line_path(std::span<const Vec2> points, std::span<real> cumulative, bool looped);

/// Owning fixed-capacity path (no heap): up to kMaxPathPoints points.
struct FixedLinePath {
  std::array<Vec2, kMaxPathPoints> points{};          ///< vertices; only the first `count` are used
  std::array<real, kMaxPathPoints + 1> cumulative{};  ///< arc-length table filled by make_fixed_line_path
  std::int32_t count = 0;                             ///< number of points in use, [0, kMaxPathPoints]
  bool looped = false;                                ///< closing segment back to points[0]

  /// View for the path functions. Invalidated if this object moves.
  LinePath view() const;
};

/// Copy points into a FixedLinePath and build its table. Returns false (and leaves out empty)
/// when there are more than kMaxPathPoints points or none.
bool make_fixed_line_path(std::span<const Vec2> points, bool looped, FixedLinePath& out);

/// T54 getPosition: the point at arc length `param`. Open paths clamp param to [0, L]; looped
/// paths wrap it modulo L. An empty path returns (0, 0).
Vec2 get_position(const LinePath& path, real param);

/// Canonical parameter: clamped to [0, L] (open) or wrapped into [0, L) (looped).
real wrap_param(const LinePath& path, real param);

/// T54 getParam, brute force over all segments (O(n)): arc length of the closest point on the
/// path, in [0, L] (open) or [0, L) (looped). Ties go to the lowest parameter.
real get_param(const LinePath& path, Vec2 position);

/// T54 getParam with coherence: only path points whose parameter lies within `window` of
/// last_param are candidates (the character has not moved far since last frame), which stops the
/// parameter jumping to another stretch that happens to pass nearby. window = math::kInfinity
/// disables coherence (brute force). Looped: the result is the representative closest to
/// last_param (see file comment); ties go to the candidate closest to last_param.
/// window m, [Limit: >= 0].
real get_param(const LinePath& path, Vec2 position, real last_param, real window);

/// Parameters of T52 path following.
struct PathFollowParams {
  real path_offset =
      1.5;  ///< how far along the path ahead of the character to aim, m; negative = travel toward lower parameters
  real coherence_window =
      3.0;  ///< getParam search half-width around the last parameter, m; math::kInfinity = coherence off. [Limit: >= 0]
  SeekParams seek;  ///< seek's acceleration (the target keeps moving ahead, so seek, not arrive)
  /// Open paths only: once the target is pinned at an end of the path, delegate to arrive there
  /// instead of seek (seek would wiggle around the end point; slides erratum J.8 switches too late).
  bool arrive_at_end = true;
  ArriveParams arrive;  ///< used at the end of an open path when arrive_at_end
};

/// Parameters of T53 predictive path following.
struct PredictivePathFollowParams {
  PathFollowParams follow;  ///< offset, coherence, seek and end-of-path handling
  real predict_time =
      0.1;  ///< look-ahead for the parameter search, s (Millington's code uses 0.1; not in the seed). [Limit: >= 0]
  /// Seed: if the new target is not farther along the path than last frame's, keep last frame's,
  /// so the target parameter never moves backwards (in the direction set by path_offset's sign).
  bool monotonic_target = true;
};

/// Persistent per-agent state of path following (caller-owned).
struct PathFollowState {
  real current_param = 0;    ///< character's parameter from the last call, m (unwrapped on loops)
  real target_param = 0;     ///< target parameter from the last call, m
  std::int32_t started = 0;  ///< 0 before the first call: the first search is brute force, then coherent
};

/// Output of path following with what a viewer or test may want.
struct PathFollowOutput {
  SteeringOutput steering;  ///< seek(target) (or arrive(target) at the end of an open path)
  Vec2 target;              ///< the surrogate target (the "rabbit")
  real current_param = 0;   ///< parameter found this call, m
  real target_param = 0;    ///< parameter of target, m (clamped to [0, L] on open paths)
  bool arriving = false;    ///< true when delegated to arrive at an open path's end
};

/// T52 path following (chase the rabbit): current = getParam(position, last current) with
/// coherence; target = getPosition(current + path_offset); seek it. "No steering" only when the
/// path is empty, or when arriving at an open path's end inside arrive's target radius.
PathFollowOutput follow_path(const Kinematic& c, const LinePath& path, PathFollowState& state,
                             const PathFollowParams& p);

/// T53 predictive path following: as T52 but the parameter is searched at the predicted position
/// position + velocity * predict_time, and (monotonic_target) the target never moves backwards.
/// Smoother on twisty paths, but with coherence off it cuts across where two stretches come close
/// (see the hairpin regression test).
PathFollowOutput follow_path_predictive(const Kinematic& c, const LinePath& path, PathFollowState& state,
                                        const PredictivePathFollowParams& p);

}  // namespace flockstep::behavior
