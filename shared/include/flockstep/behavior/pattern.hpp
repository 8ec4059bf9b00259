#pragma once
/// \file pattern.hpp
/// T25 standard pattern algorithm (Bourg & Seemann §3.1): an array of control instructions, one
/// instruction applied per game-loop tick. Used for scripted dives, loops and patrols where the
/// entity is moved directly (no physics); T29 is the physics-driven counterpart.
///
/// Heading convention: degrees, counter-clockwise from the world +x axis (the project frame, y up).
/// A RIGHT turn is clockwise and therefore DECREASES the heading. The seed's screen coordinates
/// have y down, where the same visual right turn adds to the angle; magnitudes are identical.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// T25 one control instruction. All fields are applied in the tick the instruction is read:
/// first the turns, then the steps along the new heading.
struct PatternInstruction {
  real turn_right_deg = 0;  ///< clockwise turn, degrees. [Limit: >= 0]
  real turn_left_deg = 0;   ///< counter-clockwise turn, degrees. [Limit: >= 0]
  real step_forward = 0;    ///< distance along the heading, world units (m). [Limit: >= 0]
  real step_backward = 0;   ///< distance against the heading, world units (m). [Limit: >= 0]
};

/// T25 what happens after the last instruction (the seed leaves it open).
enum class PatternEnd : std::uint8_t {
  wrap,  ///< start again at instruction 0 (a repeating pattern)
  stop,  ///< stay finished: later ticks apply nothing
};

/// T25 options.
struct PatternParams {
  PatternEnd end = PatternEnd::wrap;  ///< end-of-array policy
  /// Reproduce the seed's simplification (Part J 2): steps move along world +x regardless of
  /// heading. Off by default; the corrected form moves along the heading.
  bool seed_literal = false;
};

/// T25 per-entity pattern state (caller-owned). Plain fields so a viewer can annotate them.
struct PatternState {
  Vec2 position;                   ///< world position, m
  real heading_deg = 0;            ///< degrees CCW from +x, kept in (-180, 180]
  std::int32_t index = 0;          ///< instruction applied on the NEXT tick (current instruction for a viewer)
  std::int32_t last_applied = -1;  ///< index of the instruction applied on the last tick, -1 if none
  bool finished = false;           ///< true once a PatternEnd::stop pattern has run out
};

/// T25 one tick: read pattern[index], apply its turns then its steps, advance index once.
/// Returns true if an instruction was applied, false if the pattern is empty or finished (stop
/// policy). Pure and allocation-free.
bool pattern_step(PatternState& state, std::span<const PatternInstruction> pattern, const PatternParams& params = {});

/// T25 the seed's zig-zag example: forward 2, forward 2, right 10, right 10, forward 2,
/// forward 2, left 10, left 10 (one instruction per tick; wraps to a repeating zig-zag).
inline constexpr std::array<PatternInstruction, 8> kSeedZigZagPattern{{
    {0, 0, 2, 0},
    {0, 0, 2, 0},
    {10, 0, 0, 0},
    {10, 0, 0, 0},
    {0, 0, 2, 0},
    {0, 0, 2, 0},
    {0, 10, 0, 0},
    {0, 10, 0, 0},
}};

}  // namespace flockstep::behavior
