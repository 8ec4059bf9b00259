#pragma once
/// \file remote_agents.hpp
/// Everyone the client does not control: a short buffer of snapshots, sampled either
///  - by interpolation (default): drawn `delay` in the past between the two snapshots around
///    that time, like Source's 100 ms interpolation buffer; or
///  - by extrapolation: drawn at the estimated current server time by sim::Extrapolator, which
///    runs the World's own behaviour code forward from the newest snapshot where the snapshot
///    holds its inputs and dead reckons (the codec's second-order model) otherwise. Which agent
///    gets which is decided there, from the scenario, never here.
/// Each new snapshot also measures how far the extrapolation and plain dead reckoning were off
/// after one snapshot interval, so the viewer can show the error it has. On request
/// (enable_hold_errors) it also measures, per group kind, the error of extrapolating a snapshot
/// held back 100 ms and 250 ms to the newest one, which is the server's state at that tick as the
/// client receives it (tests/e2e/viewer.test.mjs reports these).
///
/// Pure C++ (no Emscripten): unit tested under node.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/extrapolate.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::client {

using math::real;
using math::Vec2;

/// Pose of one agent ready to draw.
struct DrawAgent {
  std::uint32_t id = 0;
  sim::AgentKind kind = sim::AgentKind::kFlock;
  std::int32_t group = -1;
  Vec2 position;         ///< m
  Vec2 velocity;         ///< m/s
  real orientation = 0;  ///< rad, CCW from +x
  Vec2 aim;              ///< aim point from the newest snapshot, m
  std::uint32_t target = 0;
  sim::BehaviorState state = sim::BehaviorState::kNone;
};

/// Errors of the two extrapolators after one snapshot interval, measured on the newest snapshot.
struct ExtrapolationError {
  real behaviour_mean_m = 0;  ///< sim::Extrapolator, mean position error, m
  real behaviour_max_m = 0;
  real dead_reckoning_mean_m = 0;  ///< every agent dead reckoned (second order), mean, m
  std::int32_t samples = 0;        ///< agents compared
  std::int32_t ticks = 0;          ///< interval extrapolated over, ticks
};

/// Errors of extrapolating held-back snapshots to the newest one, summed for one group kind.
struct HoldError {
  std::int64_t samples = 0;
  double behaviour_sum_m = 0;  ///< sim::Extrapolator
  double behaviour_max_m = 0;
  double dead_reckoning_sum_m = 0;  ///< every agent dead reckoned (the control)
  double held_sum_m = 0;            ///< the held snapshot drawn as it is (no extrapolation at all)
};

/// How others are drawn.
enum class RemoteMode : std::uint8_t { kInterpolate = 0, kExtrapolate = 1 };

/// See file comment.
class RemoteAgents {
 public:
  /// Snapshots kept: enough to extrapolate the one 250 ms before the newest at 20 Hz with the
  /// rates measured since the snapshot before it (hold errors).
  static constexpr std::int32_t kFrames = 7;
  /// How far back the held snapshots of the hold errors lie, ms.
  static constexpr double kHoldsMs[2] = {100, 250};

  /// `scenario` must outlive this object. dt = 1 / tick rate, s.
  void configure(const sim::Scenario* scenario, real dt);
  /// Forget every snapshot (new connection).
  void reset();

  /// Add the newest snapshot (server tick after which it was taken). `agents` is moved from.
  /// Older or duplicate ticks are ignored.
  void push(std::uint64_t tick, std::vector<sim::AgentView>&& agents);

  /// True once a snapshot has arrived.
  bool ready() const { return count_ > 0; }
  /// Tick of the newest snapshot.
  std::uint64_t newest_tick() const;
  /// Agents in the newest snapshot.
  const std::vector<sim::AgentView>& newest() const;
  /// Agent of the newest snapshot by id, or nullptr.
  const sim::AgentView* find(std::uint32_t id) const;

  /// Poses at fractional server tick `render_tick` by interpolation between buffered snapshots
  /// (clamped to the oldest / newest one). Returns how far render_tick was beyond the newest
  /// snapshot in ticks (0 when the buffer covered it: > 0 means the buffer ran dry).
  double sample_interpolated(double render_tick, std::vector<DrawAgent>& out) const;

  /// Poses at fractional server tick `now_tick` by sim::Extrapolator from the newest
  /// snapshot (state advanced tick by tick and kept between calls, so each call costs at most a
  /// few steps per agent). Extrapolates at most `max_ahead_ticks` past the newest snapshot.
  void sample_extrapolated(double now_tick, std::vector<DrawAgent>& out, std::int32_t max_ahead_ticks = 30);

  /// Error of both extrapolators on the newest snapshot (see file comment).
  const ExtrapolationError& extrapolation_error() const { return error_; }
  /// Mean distance the extrapolated poses jumped when the newest snapshot replaced the older
  /// basis (the visible correction of extrapolation mode), m.
  real last_rebase_jump_m() const { return rebase_jump_m_; }
  /// Measure hold errors on every snapshot from now on (costs two extrapolations of every agent
  /// per snapshot, so only when asked: fs_set_option("measure_holds", 1)).
  void enable_hold_errors(bool on) { hold_errors_on_ = on; }
  /// Hold errors so far, per group kind (technique name, or "composed/<model>"), for
  /// kHoldsMs[which].
  const std::map<std::string, HoldError>& hold_errors(std::size_t which) const { return hold_errors_[which]; }

 private:
  struct Frame {
    std::uint64_t tick = 0;
    std::vector<sim::AgentView> agents;
    std::vector<std::int32_t> prev_index;  // index of the same id in the previous frame, or -1
  };
  const Frame& frame(std::int32_t k) const;  // 0 = oldest
  Frame& frame(std::int32_t k);
  /// Extrapolation state of a snapshot: frame(k), with the rates measured since frame(k - 1).
  void init_ex(std::int32_t k, std::vector<sim::ExtrapolatedAgent>& ex) const;
  /// One tick forward, remembering the poses before it for sub-tick drawing.
  void advance_ex();
  void measure_error(std::int32_t k_older, const Frame& newer);
  void measure_holds(const Frame& newer);
  /// A position drawn between two states, put back into the world (torus or clamp).
  Vec2 confined(Vec2 p) const;
  Vec2 delta(Vec2 from, Vec2 to) const;

  const sim::Scenario* scenario_ = nullptr;
  real dt_ = real(1) / 60;
  std::optional<sim::Extrapolator> extrapolator_;
  Frame frames_[kFrames];
  std::int32_t head_ = 0;  // oldest frame
  std::int32_t count_ = 0;
  // Extrapolation state: based on snapshot ex_base_tick_, advanced to ex_tick_.
  std::vector<sim::ExtrapolatedAgent> ex_;
  std::vector<Vec2> ex_prev_position_;  // pose one tick before ex_, for sub-tick drawing
  std::vector<real> ex_prev_orientation_;
  std::uint64_t ex_base_tick_ = 0;
  std::uint64_t ex_tick_ = 0;
  bool ex_valid_ = false;
  bool hold_errors_on_ = false;
  std::map<std::string, HoldError> hold_errors_[2];
  // Scratch for measure_error.
  std::vector<sim::ExtrapolatedAgent> scratch_b_, scratch_d_;
  ExtrapolationError error_;
  real rebase_jump_m_ = 0;
};

}  // namespace flockstep::client
