#pragma once
/// \file remote_agents.hpp
/// Everyone the client does not control: a short buffer of snapshots, sampled either
///  - by interpolation (default): drawn `delay` in the past between the two snapshots around
///    that time, like Source's 100 ms interpolation buffer; or
///  - by behaviour-aware extrapolation: drawn at the estimated current server time by running
///    the shared steering code forward from the newest snapshot (seek/pursue/evade toward the
///    target the snapshot names, LOS thrusters for crafts chasing an aim point, T08 body update
///    and T10 craft step), falling back to dead reckoning for behaviours that need neighbours.
/// Each new snapshot also measures how far both extrapolators (behaviour-aware and plain dead
/// reckoning) were off after one snapshot interval, so the viewer can show the error it has.
///
/// Pure C++ (no Emscripten): unit tested under node.
#include <cstdint>
#include <vector>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/sim/agent.hpp"
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
  real behaviour_mean_m = 0;  ///< behaviour-aware extrapolation, mean position error, m
  real behaviour_max_m = 0;
  real dead_reckoning_mean_m = 0;  ///< constant velocity (and turn rate for crafts), mean, m
  std::int32_t samples = 0;        ///< agents compared
  std::int32_t ticks = 0;          ///< interval extrapolated over, ticks
};

/// How others are drawn.
enum class RemoteMode : std::uint8_t { kInterpolate = 0, kExtrapolate = 1 };

/// See file comment.
class RemoteAgents {
 public:
  /// Snapshots kept for interpolation.
  static constexpr std::int32_t kFrames = 6;

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

  /// Poses at fractional server tick `now_tick` by behaviour-aware extrapolation from the newest
  /// snapshot (state advanced tick by tick and kept between calls, so each call costs at most a
  /// few steps per agent). Extrapolates at most `max_ahead_ticks` past the newest snapshot.
  void sample_extrapolated(double now_tick, std::vector<DrawAgent>& out, std::int32_t max_ahead_ticks = 30);

  /// Error of both extrapolators on the newest snapshot (see file comment).
  const ExtrapolationError& extrapolation_error() const { return error_; }
  /// Mean distance the extrapolated poses jumped when the newest snapshot replaced the older
  /// basis (the visible correction of extrapolation mode), m.
  real last_rebase_jump_m() const { return rebase_jump_m_; }

  /// One tick of behaviour-aware extrapolation of agent `a` (public for tests). `others` are the
  /// states of the same snapshot (targets are looked up in it by id through `index_of`).
  struct ExAgent {
    sim::AgentView view;      ///< identity and the snapshot's annotations
    behavior::CraftState cs;  ///< position, velocity, orientation, angular velocity
    Vec2 heading{1, 0};       ///< vehicles: unit heading (T08)
    Vec2 prev_position;       ///< pose one tick earlier, for sub-tick rendering
    real prev_orientation = 0;
  };
  void step_behaviour(std::vector<ExAgent>& agents, std::int32_t i,
                      const std::vector<std::int32_t>& target_index) const;
  static void step_dead_reckoning(ExAgent& a, real dt);

 private:
  struct Frame {
    std::uint64_t tick = 0;
    std::vector<sim::AgentView> agents;
    std::vector<std::int32_t> prev_index;  // index of the same id in the previous frame, or -1
  };
  const Frame& frame(std::int32_t k) const;  // 0 = oldest
  Frame& frame(std::int32_t k);
  void init_ex(const Frame& f, std::vector<ExAgent>& ex, std::vector<std::int32_t>& target_index) const;
  void advance_ex(std::vector<ExAgent>& ex, const std::vector<std::int32_t>& target_index) const;
  void measure_error(const Frame& older, const Frame& newer);
  Vec2 wrap_position(Vec2 p, real radius) const;
  Vec2 delta(Vec2 from, Vec2 to) const;

  const sim::Scenario* scenario_ = nullptr;
  real dt_ = real(1) / 60;
  Frame frames_[kFrames];
  std::int32_t head_ = 0;  // oldest frame
  std::int32_t count_ = 0;
  // Extrapolation state: based on snapshot ex_base_tick_, advanced to ex_tick_.
  std::vector<ExAgent> ex_;
  std::vector<std::int32_t> ex_target_;
  std::uint64_t ex_base_tick_ = 0;
  std::uint64_t ex_tick_ = 0;
  bool ex_valid_ = false;
  // Scratch for measure_error.
  std::vector<ExAgent> scratch_b_, scratch_d_;
  std::vector<std::int32_t> scratch_target_;
  ExtrapolationError error_;
  real rebase_jump_m_ = 0;
};

}  // namespace flockstep::client
