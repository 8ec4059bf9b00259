#include "flockstep/sim/player.hpp"

#include "flockstep/math/angle.hpp"
#include "flockstep/sim/rules.hpp"

namespace flockstep::sim {

PlayerInput sanitize_input(PlayerInput input) {
  // NaN fails both comparisons and becomes 0.
  auto sanitize = [](real v, real lo, real hi) {
    return v >= lo && v <= hi ? v : (v > hi ? hi : (v < lo ? lo : real(0)));
  };
  input.turn = sanitize(input.turn, -1, 1);
  input.throttle = sanitize(input.throttle, 0, 1);
  return input;
}

behavior::Thrusters player_thrusters(PlayerInput input) {
  input = sanitize_input(input);
  behavior::Thrusters t{};
  t.port = input.turn > 0;
  t.starboard = input.turn < 0;
  t.factor = input.turn < 0 ? -input.turn : input.turn;
  t.throttle = input.throttle;
  return t;
}

void step_player(behavior::CraftState& s, PlayerInput input, const Scenario& scenario, real dt) {
  behavior::craft_step(s, scenario.player_craft, player_thrusters(input), dt);
  // Keep the stored angle in (-pi, pi] so it never grows without bound (T05 caveat).
  s.orientation = math::wrap_angle(s.orientation);
  // Every obstacle, torus-aware: players are few, so the world's per-cell obstacle index buys
  // nothing here, and one list for server and client cannot disagree.
  const real r = scenario.player_craft.length * 0.5;
  push_out_of_obstacles(s.position, s.velocity, r, scenario.obstacles, scenario.wrap ? scenario.width : 0,
                        scenario.wrap ? scenario.height : 0);
  apply_border(s.position, s.velocity, r, scenario);
}

bool capture_protected(std::uint64_t tick, std::uint64_t spawn_tick, const Scenario& scenario) {
  const auto protect_ticks = static_cast<std::uint64_t>(scenario.respawn_protection_s * scenario.tick_rate_hz);
  return tick - spawn_tick < protect_ticks;
}

}  // namespace flockstep::sim
