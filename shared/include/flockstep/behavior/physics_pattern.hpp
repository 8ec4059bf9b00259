#pragma once
/// \file physics_pattern.hpp
/// T29 pattern movement in a physically simulated environment (Bourg & Seemann §3.3, DoPattern)
/// and T30 the AIDemo3-2 pattern library (square, zig-zag, arbitrary).
///
/// The AI never sets position or heading: each instruction only chooses the bow thrusters of a
/// T10 craft (forward thrust stays on) and is held for many physics steps until its relative
/// completion condition holds (heading turned by N degrees, or N units travelled). Instructions
/// are relative, so a pattern runs from any pose. Call do_pattern every tick BEFORE craft_step.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/craft.hpp"

namespace flockstep::behavior {

/// T29 one control instruction (the seed's ControlData record).
struct PhysicsInstruction {
  bool port_thruster = false;       ///< fire the port bow thruster: the craft turns RIGHT
  bool starboard_thruster = false;  ///< fire the starboard bow thruster: the craft turns LEFT
  real heading_limit_deg =
      0;                    ///< relative heading change that ends the instruction, deg. [Limit: > 0 if limit_heading]
  real position_limit = 0;  ///< distance travelled that ends the instruction, m. [Limit: > 0 if limit_position]
  bool limit_heading = false;   ///< end on heading_limit_deg (also enables the steering taper)
  bool limit_position = false;  ///< end on position_limit
};

/// T30 "go straight for distance m" instruction (no thrusters, position-limited).
constexpr PhysicsInstruction pattern_straight(real distance_m) { return {false, false, 0, distance_m, false, true}; }
/// T30 "turn right by deg" instruction (port thruster, heading-limited).
constexpr PhysicsInstruction pattern_turn_right(real deg) { return {true, false, deg, 0, true, false}; }
/// T30 "turn left by deg" instruction (starboard thruster, heading-limited).
constexpr PhysicsInstruction pattern_turn_left(real deg) { return {false, true, deg, 0, true, false}; }

/// T29 the seed's StateChangeData tracking record, plus fields a viewer can annotate.
/// current_index == pattern size means the pass has finished.
struct PatternTracking {
  Vec2 initial_heading{1, 0};      ///< unit velocity direction when the instruction started
  Vec2 initial_position;           ///< position when the instruction started, m
  real d_heading_deg = 0;          ///< heading change so far, deg (unsigned, or |signed sum|)
  real d_position = 0;             ///< distance from initial_position, m
  std::int32_t current_index = 0;  ///< instruction being executed (viewer: highlight it)
  real steering_factor = 1;        ///< factor set on the last call, [min_steering_factor, 1]
  real signed_heading_deg = 0;     ///< accumulated signed heading change, deg, + = CCW (signed option)
  Vec2 last_heading{1, 0};         ///< heading on the previous call (signed option)
};

/// T29 options for DoPattern.
struct DoPatternParams {
  /// Floor of the tapered steering factor. Without it f -> 0 and the heading only approaches
  /// the limit asymptotically. 0.05 is the seed's value (tuned for its model). [Limit: (0, 1]]
  real min_steering_factor = 0.05;
  /// Taper f = 1 - dHeading/headingLimit on heading-limited instructions (seed). false: f = 1
  /// (full steering throughout; overshoots more, kept to compare).
  bool taper = true;
  /// Measure heading change as the accumulated SIGNED turn instead of the seed's unsigned
  /// acos of the dot product, which never exceeds 180 deg (so a single >= 180 deg turn would
  /// never complete).
  bool signed_heading = false;
  /// Seed order: test the limits against the values measured on the PREVIOUS call, then measure.
  /// Default (false) measures first, so the index advances on the first call whose state meets a
  /// limit, one tick earlier than the seed.
  bool seed_order = false;
};

/// T29 InitializePatternTracking: index 0, deltas 0, snapshot position and heading (the
/// velocity direction; the body heading if the craft is not moving, where velocity has none).
void initialize_pattern_tracking(PatternTracking& tracking, const CraftState& craft);

/// T29 DoPattern: run one tick of the pattern for this craft and write the thruster command to
/// out (forward throttle 1). Advances to the next instruction when the current one's limit is
/// met, re-snapshotting the tracking state. Returns false when the pattern has just finished
/// (current_index == size; out is then all thrusters off); the caller re-initialises to repeat.
/// Steering factor: 1 - dHeading/limit on heading-limited instructions, clamped to
/// [min_steering_factor, 1] and never increasing within one instruction.
bool do_pattern(PatternTracking& tracking, std::span<const PhysicsInstruction> pattern, const CraftState& craft,
                const DoPatternParams& params, Thrusters& out);

/// T29 the caller side (UpdateSimulation): do_pattern, and when it reports the end of a pass,
/// re-initialise tracking and start the next pass on the same tick so the pattern repeats.
/// Returns true on the tick a pass completed.
bool run_repeating_pattern(PatternTracking& tracking, std::span<const PhysicsInstruction> pattern,
                           const CraftState& craft, const DoPatternParams& params, Thrusters& out);

/// T30 square ("PatrolPattern", 8 instructions): 4 x (straight 200 m, right 90 deg).
inline constexpr std::array<PhysicsInstruction, 8> kSquarePattern{
    pattern_straight(200), pattern_turn_right(90), pattern_straight(200), pattern_turn_right(90),
    pattern_straight(200), pattern_turn_right(90), pattern_straight(200), pattern_turn_right(90)};

/// T30 zig-zag ("ZigZagPattern", 4 instructions): straight 100, right 60, straight 100, left 60.
inline constexpr std::array<PhysicsInstruction, 4> kZigZagPattern{pattern_straight(100), pattern_turn_right(60),
                                                                  pattern_straight(100), pattern_turn_left(60)};

/// T30 arbitrary pattern (10 instructions) alternating straight runs with 135 deg right and left
/// turns. The seed gives no lengths; ours are 150, 60, 120, 60, 90 m: long enough that each
/// 135 deg turn (about 13 m radius with kPatternCraftParams) finishes and settles before the next.
/// Net heading change per pass: 3 right - 2 left = 135 deg to the right.
inline constexpr std::array<PhysicsInstruction, 10> kArbitraryPattern{
    pattern_straight(150), pattern_turn_right(135), pattern_straight(60), pattern_turn_left(135),
    pattern_straight(120), pattern_turn_right(135), pattern_straight(60), pattern_turn_left(135),
    pattern_straight(90),  pattern_turn_right(135)};

/// T30 craft used by the pattern demos. Same top speed (10 m/s) and full-thrust turn rate
/// (0.75 rad/s, about 13 m radius) as the T10 defaults, but a stiffer keel and yaw damping:
/// the heading measured from velocity lags the body less and the craft stops spinning sooner
/// when the thrusters cut. Measured (dt = 1/60 s, tapered): each 90 deg turn overshoots by
/// about 0.03 deg (about 0.6 deg with the defaults; about 1 deg with this craft and no taper),
/// and the square closes to about 0.3-0.5 m / 0.1 deg (the defaults leave 9 m / 2.4 deg).
/// Explicit-Euler stability at dt = 1/60 s: angular_drag*dt/inertia = 0.67 and
/// (linear_drag + lateral_drag)*dt/mass = 0.67, both below 1 (no sign-flipping decay).
inline constexpr CraftParams kPatternCraftParams{.mass = 1,
                                                 .inertia = 0.1,
                                                 .length = 1,
                                                 .thrust = 4,
                                                 .max_steering_force = 6,
                                                 .linear_drag = 0.4,
                                                 .lateral_drag = 40,
                                                 .angular_drag = 4};

}  // namespace flockstep::behavior
