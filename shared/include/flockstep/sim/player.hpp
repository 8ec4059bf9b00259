#pragma once
/// \file player.hpp
/// The player's craft step, once: the server's World and every client's predictor call these
/// same functions, so with the same inputs they produce the same bits (house style section 3).
///   input sanitising -> bow thrusters (T10) -> craft_step -> orientation wrap -> the per-body
///   rules of rules.hpp (obstacles, torus-aware, then the border).
/// Captures and respawns are the server's business; capture_protected() is the rule both sides
/// use to tell whether a freshly respawned craft can be caught yet.
#include <cstdint>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// Clamp an untrusted input into range: turn to [-1, 1], throttle to [0, 1]; NaN becomes 0.
PlayerInput sanitize_input(PlayerInput input);

/// Thrusters for an input: turn > 0 is "right", the port bow thruster (T10); factor = |turn|
/// keeps analogue sticks proportional (keyboards send +-1). Sanitises first.
behavior::Thrusters player_thrusters(PlayerInput input);

/// One tick of a player's craft of `scenario.player_craft`, dt s: thrusters from the input,
/// craft_step, orientation wrapped into (-pi, pi], then push-out from every obstacle (torus-aware
/// on wrapped worlds) and the border rule.
void step_player(behavior::CraftState& s, PlayerInput input, const Scenario& scenario, real dt);

/// Respawn protection: a player respawned at `spawn_tick` cannot be captured before
/// respawn_protection_s has passed (true while protected).
bool capture_protected(std::uint64_t tick, std::uint64_t spawn_tick, const Scenario& scenario);

}  // namespace flockstep::sim
