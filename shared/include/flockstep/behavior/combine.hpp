#pragma once
/// \file combine.hpp
/// Combining steering forces (catalog T77-T82, the slides' "Combining Steering Forces" part):
/// weighted blending truncated to max_force (T77), prioritised first-non-zero arbitration (T78),
/// the weighted truncated running sum with prioritisation (T79, slides' and Buckland's forms),
/// grouped priorities (T80), prioritised dithering (T81) and display-heading smoothing against
/// judder (T82).
///
/// Each rule is an accumulator the world's batches feed one behaviour at a time
/// (TruncatedRunningSum, PriorityArbiter, GroupedPriorities, dither_considers); the lazy forms
/// (templates over callables `Vec2()`, for code that has its behaviours as functions) are built
/// on the same accumulators, so lower-priority behaviours are not evaluated once a decision is
/// made (the CPU saving the slides claim; tests count calls). Nothing here allocates; callables
/// are invoked in argument order.
#include <array>
#include <cstdint>
#include <span>
#include <utility>

#include "flockstep/behavior/blend.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

// --------------------------------------------------------------------------------------- T77

/// T77 one behaviour's already computed force and its blending weight.
struct WeightedForce {
  Vec2 force;       ///< N
  real weight = 1;  ///< unitless; need not sum to 1 across behaviours. [Limit: any finite]
};

/// T77 sum of weight_i * force_i over the span, not truncated.
Vec2 weighted_force_sum(std::span<const WeightedForce> forces);

/// T77 blended steering: truncate(sum of weight_i * force_i, max_force). Every behaviour has
/// been evaluated by the caller (zero is a valid force). max_force in N. [Limit: >= 0]
Vec2 blend_truncated(std::span<const WeightedForce> forces, real max_force);

/// A lazily evaluated behaviour with a weight (T79, T80): `behaviour` is a callable returning Vec2.
template <class F>
struct Weighted {
  real weight;  ///< unitless multiplier
  F behaviour;  ///< callable: Vec2()
};
template <class F>
Weighted(real, F) -> Weighted<F>;

/// T77/T80 lazy weighted sum (not truncated): evaluates every entry. Use inside a group of T80.
template <class... Fs>
Vec2 weighted_sum_of(Weighted<Fs>... entries) {
  Vec2 sum;
  ((sum += entries.behaviour() * entries.weight), ...);
  return sum;
}

// --------------------------------------------------------------------------------------- T78

/// T78 a force counts as "non-zero" when its length exceeds this, N.
inline constexpr real kPriorityEpsilon = 1e-6;

/// T78 how far an output is from "nothing": |linear| + |angular| (an output that only turns
/// still asks for something).
inline real steering_magnitude(const SteeringOutput& s) {
  return math::length(s.linear) + (s.angular < 0 ? -s.angular : s.angular);
}

/// T78 prioritised arbitration for one agent, fed in priority order: the first output whose
/// steering_magnitude exceeds epsilon wins and later offers are ignored. Check decided() before
/// computing a lower-priority output: that is what skips its evaluation. Clip the winner to the
/// budget yourself (it is returned as offered).
class PriorityArbiter {
 public:
  /// epsilon: in the outputs' units. [Limit: >= 0]
  explicit constexpr PriorityArbiter(real epsilon = kPriorityEpsilon) : epsilon_(epsilon) {}
  constexpr bool decided() const { return decided_; }
  /// Offer the next output (already weighted). Returns decided().
  bool offer(const SteeringOutput& s) {
    if (!decided_ && steering_magnitude(s) > epsilon_) {
      decided_ = true;
      winner_ = s;
    }
    return decided_;
  }
  /// The winning output, or zero while none has won.
  constexpr const SteeringOutput& winner() const { return winner_; }

 private:
  SteeringOutput winner_{};
  real epsilon_;
  bool decided_ = false;
};

// --------------------------------------------------------------------------------------- T79

/// T79 how the running sum spends the max_force budget.
enum class RunningSumMode : std::uint8_t {
  /// Slides: add w*F to the total; once |total| >= max_force, truncate the total and stop. The
  /// truncation also shortens the higher-priority part of the total.
  kTruncateTotal,
  /// Buckland's AccumulateForce: add only as much of w*F as the remaining budget
  /// (max_force - |total|) allows, so a higher-priority force is never scaled down by a lower one.
  /// Once a force had to be clipped the budget counts as spent.
  kRemainingBudget,
};

/// T79 weighted truncated running sum with prioritisation, as an allocation-free accumulator:
///   TruncatedRunningSum sum{max_force};
///   if (!sum.full()) sum.add(w_avoid, avoid_force(...));
///   if (!sum.full()) sum.add(w_seek, seek_force(...));
///   Vec2 f = sum.result();   // |f| <= max_force
/// Check full() before computing a lower-priority force: that is what skips its evaluation.
class TruncatedRunningSum {
 public:
  /// max_force: N, [Limit: >= 0].
  explicit constexpr TruncatedRunningSum(real max_force, RunningSumMode mode = RunningSumMode::kTruncateTotal)
      : max_force_(max_force), mode_(mode) {}

  /// True once the budget is used up; further add() calls are ignored.
  constexpr bool full() const { return full_; }

  /// Add weight * force (N) in priority order. Returns true while there is budget left.
  /// The default mode is inline: the world's running sums call it per agent and behaviour, and
  /// the out-of-line call was 5 % of the 10,000-boid flock tick (perf).
  bool add(real weight, Vec2 force) {
    if (full_) return false;
    if (mode_ != RunningSumMode::kTruncateTotal) return add_remaining(weight, force);
    total_ += force * weight;
    if (math::length_sq(total_) >= max_force_ * max_force_) {
      total_ = math::truncate(total_, max_force_);
      full_ = true;
    }
    return !full_;
  }

  /// The combined force so far, N. |result()| <= max_force.
  constexpr Vec2 result() const { return total_; }

  /// The budget, N.
  constexpr real max_force() const { return max_force_; }

 private:
  bool add_remaining(real weight, Vec2 force);  // RunningSumMode::kRemainingBudget
  Vec2 total_;
  real max_force_;
  RunningSumMode mode_;
  bool full_ = false;
};

/// T79 lazy form: evaluates the weighted behaviours in priority order into a running sum and
/// stops calling them once the budget is used up.
template <class... Fs>
Vec2 prioritized_running_sum(real max_force, RunningSumMode mode, Weighted<Fs>... entries) {
  TruncatedRunningSum sum{max_force, mode};
  (void)((sum.add(entries.weight, entries.behaviour()), sum.full()) || ...);
  return sum.result();
}

// --------------------------------------------------------------------------------------- T80

/// T80 grouped priorities for one agent (the slides' groups: avoidance, separation, flocking,
/// goal): the members of the open group add their weighted outputs, which blend by summing;
/// close_group() offers the group's blend to a T78 arbiter, so the first group whose blend is
/// non-zero wins and lower groups need not be evaluated once decided(). Clip the winner yourself.
class GroupedPriorities {
 public:
  explicit constexpr GroupedPriorities(real epsilon = kPriorityEpsilon) : arbiter_(epsilon) {}
  constexpr bool decided() const { return arbiter_.decided(); }
  /// A member of the open group: its weighted output joins the group's blend.
  void add(const SteeringOutput& weighted) { blend_ += weighted; }
  /// End the open group: its blend is offered to the arbitration, and the next group starts
  /// empty. Returns decided().
  bool close_group() {
    arbiter_.offer(blend_);
    blend_ = {};
    return arbiter_.decided();
  }
  /// The winning group's blend, or zero while none has won.
  constexpr const SteeringOutput& winner() const { return arbiter_.winner(); }

 private:
  PriorityArbiter arbiter_;
  SteeringOutput blend_{};
};

// --------------------------------------------------------------------------------------- T81

/// T81 Reynolds' dithering draw for one behaviour: one uniform number from the agent's stream;
/// true means the behaviour is considered this tick (evaluated and added to the running sum).
inline bool dither_considers(Rng& rng, real probability) { return rng.uniform01() < probability; }

/// T81 a behaviour for prioritised dithering: considered on a tick with `probability`, then
/// added with `weight`. Slides' example: avoidance 0.9, wander 0.2.
template <class F>
struct Dithered {
  real probability;  ///< chance per tick of being considered. [Limit: 0..1]
  real weight;       ///< unitless multiplier
  F behaviour;       ///< callable: Vec2()
};
template <class F>
Dithered(real, real, F) -> Dithered<F>;

// ------------------------------------------------------------------- T78-T81 for one agent

/// Which prioritised rule a PrioritizedCombiner runs.
enum class PriorityRule : std::uint8_t {
  kRunningSum,  ///< T79 weighted truncated running sum (kTruncateTotal): stops once the budget is used
  kDither,      ///< T81 the same sum, each behaviour considered only when its draw says so
  kPriority,    ///< T78 the first weighted output above epsilon wins
  kGrouped,     ///< T80 the first group whose weighted blend is above epsilon wins
};

/// T78-T81 one agent's prioritised combiner, fed its behaviours in priority order: ask wants()
/// before evaluating a behaviour (false: skip it; the rule has decided, the budget is used, or
/// T81's draw said no), give its raw output to take(), and read result() at the end. The lazy
/// forms below (prioritized, grouped_priorities, prioritized_dithering) are this class over
/// callables, and the World runs one per agent of a composition batch (sim/stage_compose.cpp):
/// the rules the tests cover are the rules the World runs. Inline: the World calls it per agent
/// and behaviour.
class PrioritizedCombiner {
 public:
  /// budget: the largest |linear| of the result, in the outputs' units. [Limit: >= 0]
  /// epsilon: T78/T80 "non-zero" threshold, same units. [Limit: >= 0]
  constexpr PrioritizedCombiner(PriorityRule rule, real budget, real epsilon = kPriorityEpsilon)
      : sum_(budget), arbiter_(epsilon), grouped_(epsilon), rule_(rule) {}

  /// T80: the next behaviour belongs to priority group `group` (groups in priority order; other
  /// rules ignore it). Entering a new group ends the open one: its blend is offered.
  void enter_group(std::int32_t group) {
    if (open_group_ >= 0 && open_group_ != group && !grouped_.decided()) grouped_.close_group();
    open_group_ = group;
  }

  /// Whether the next behaviour is evaluated. T81 draws one uniform number from `rng` (the
  /// agent's own stream) against `probability`, and draws nothing once the budget is used; the
  /// other rules never touch `rng`.
  [[gnu::always_inline]] bool wants(Rng& rng, real probability) {
    switch (rule_) {
      case PriorityRule::kPriority: return !arbiter_.decided();
      case PriorityRule::kGrouped: return !grouped_.decided();
      case PriorityRule::kRunningSum: return !sum_.full();
      case PriorityRule::kDither: return !sum_.full() && dither_considers(rng, probability);
    }
    return false;
  }
  /// wants() for the rules that draw nothing (not T81).
  bool wants() const {
    return rule_ == PriorityRule::kPriority  ? !arbiter_.decided()
           : rule_ == PriorityRule::kGrouped ? !grouped_.decided()
                                             : !sum_.full();
  }

  /// The raw output of the behaviour wants() asked for, with its weight.
  [[gnu::always_inline]] void take(real weight, const SteeringOutput& raw) {
    switch (rule_) {
      case PriorityRule::kRunningSum:
      case PriorityRule::kDither:
        sum_.add(weight, raw.linear);
        angular_ += raw.angular * weight;
        break;
      case PriorityRule::kPriority: arbiter_.offer(raw * weight); break;
      case PriorityRule::kGrouped: grouped_.add(raw * weight); break;
    }
  }

  /// The combined output: |linear| <= budget, |angular| <= max_angular. The sums give their
  /// total; T78/T80 their winner clipped (T80 ends the open group first), or zero when none won.
  SteeringOutput result(real max_angular) {
    const BlendParams clip{sum_.max_force(), max_angular};
    switch (rule_) {
      case PriorityRule::kRunningSum:
      case PriorityRule::kDither: return {sum_.result(), math::clamp(angular_, -max_angular, max_angular)};
      case PriorityRule::kPriority:
        return arbiter_.decided() ? clip_steering(arbiter_.winner(), clip) : SteeringOutput{};
      case PriorityRule::kGrouped:
        if (!grouped_.decided() && open_group_ >= 0) grouped_.close_group();  // the last group decides, or none does
        return grouped_.decided() ? clip_steering(grouped_.winner(), clip) : SteeringOutput{};
    }
    return {};
  }

 private:
  TruncatedRunningSum sum_;
  PriorityArbiter arbiter_;
  GroupedPriorities grouped_;
  real angular_ = 0;
  std::int32_t open_group_ = -1;
  PriorityRule rule_;
};

/// T78 prioritised steering over callables: evaluates them in order and returns the first force
/// whose length exceeds `epsilon` (N), truncated to max_force; the remaining callables are NOT
/// called. All below epsilon: returns zero.
template <class... Behaviours>
Vec2 prioritized(real max_force, real epsilon, Behaviours&&... behaviours) {
  PrioritizedCombiner c{PriorityRule::kPriority, max_force, epsilon};
  // A fold over || evaluates left to right and stops at the first behaviour not wanted.
  (void)((c.wants() ? (c.take(1, {std::forward<Behaviours>(behaviours)(), 0}), false) : true) || ...);
  return c.result(0).linear;
}

/// T80 grouped priorities over callables: each group is a callable returning the weighted blend
/// of its members (use weighted_sum_of inside it), listed by priority; the first group with a
/// non-zero blend wins, lower groups are not evaluated. Result truncated to max_force (N).
template <class... Groups>
Vec2 grouped_priorities(real max_force, Groups&&... groups) {
  PrioritizedCombiner c{PriorityRule::kGrouped, max_force};
  std::int32_t group = 0;
  auto next = [&](auto&& g) {
    c.enter_group(group++);
    if (!c.wants()) return true;
    c.take(1, {g(), 0});
    return false;
  };
  (void)(next(std::forward<Groups>(groups)) || ...);
  (void)next;  // an empty pack never uses it
  return c.result(0).linear;
}

/// T81 prioritised dithering (Reynolds): walk the behaviours in priority order; each draws one
/// uniform number and is evaluated only if it is below its probability, then its weighted force
/// joins a running sum with the T79 early exit (|total| >= max_force: truncate and stop, no
/// further draws). Deterministic for a given Rng state.
template <class... Fs>
Vec2 prioritized_dithering(Rng& rng, real max_force, Dithered<Fs>... entries) {
  PrioritizedCombiner c{PriorityRule::kDither, max_force};
  auto consider = [&](auto& entry) {
    if (c.wants(rng, entry.probability)) c.take(entry.weight, {entry.behaviour(), 0});
  };
  (consider(entries), ...);
  (void)consider;  // an empty pack never uses it
  return c.result(0).linear;
}

// --------------------------------------------------------------------------------------- T82

/// T82 capacity of the heading-smoothing ring buffer (samples).
inline constexpr std::int32_t kMaxSmoothingSamples = 16;

/// T82 speed below which a velocity is not recorded (its direction is noise), m/s. Same as the
/// T08 heading rule.
inline constexpr real kSmoothingMinSpeed = 1e-6;

/// T82 per-agent ring buffer of the last velocity directions (unit vectors). Fixed size,
/// caller-owned; the displayed heading is derived from it, the velocity is untouched.
struct HeadingSmoother {
  std::array<Vec2, kMaxSmoothingSamples> samples{};  ///< ring buffer storage
  std::int32_t count = 0;                            ///< valid samples, 0..kMaxSmoothingSamples
  std::int32_t next = 0;                             ///< slot the next sample goes into, 0..kMaxSmoothingSamples-1
};

/// T82 the smoothed heading without recording anything: the normalised average of the newest
/// min(count, n) samples (n clamped to 1..kMaxSmoothingSamples). No samples, or an average of
/// zero length (exactly opposite directions), gives normalized(fallback_heading).
Vec2 smoothed_heading(const HeadingSmoother& s, std::int32_t n, Vec2 fallback_heading);

/// T82 record norm(velocity) (skipped while |velocity| <= kSmoothingMinSpeed) and return the
/// smoothed heading over the last n samples. Alternating +-alpha input gives 0 for even n and
/// arctan(tan alpha / n) ~ alpha/n for odd n; a steady direction passes through unchanged.
Vec2 smooth_heading(HeadingSmoother& s, std::int32_t n, Vec2 velocity, Vec2 fallback_heading);

}  // namespace flockstep::behavior
