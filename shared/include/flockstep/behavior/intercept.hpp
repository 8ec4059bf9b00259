#pragma once
/// \file intercept.hpp
/// T23 intercept (Bourg's predictive chase) and T24 feasibility check with LOS fallback.
///
/// Every tick: V_r = v_prey - v_pred, S_r = p_prey - p_pred, t_c = |S_r| / |V_r|,
/// S_t = p_prey + v_prey * t_c, then chase S_t instead of the prey. Seed erratum fixed
/// (catalog Part J 6): |V_r| = 0 divides by zero; here t_c falls back to the cap (or 0 without
/// one, i.e. aim at the prey itself). T24: when the prey is behind the predator (local forward
/// coordinate < 0) the predicted point recedes ahead of both, so the predator switches to plain
/// LOS chase until the prey is in front again. The aim point is returned for annotation.
#include <cstdint>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Tuning of intercept (T23/T24).
struct InterceptParams {
  real max_prediction = math::kInfinity;  ///< optional cap on t_c, s; infinity = seed (no cap). [Limit: > 0]
  bool fallback_to_los = true;            ///< T24: aim at the prey itself while it is behind the predator
};

/// Which aim the chase used this tick (T24).
enum class ChaseMode : std::uint8_t {
  intercept,      ///< aiming at the predicted point S_t
  line_of_sight,  ///< prey behind: aiming at the prey's current position
};

/// Result of one intercept evaluation: where to steer and why. Plain data for the viewer.
struct InterceptAim {
  Vec2 point;                    ///< aim point, m (S_t, or the prey position in LOS mode)
  real time_to_close = 0;        ///< t_c used for the prediction, s (0 in LOS mode)
  bool closing_guarded = false;  ///< true when |V_r| was too small and t_c came from the guard
  ChaseMode mode = ChaseMode::intercept;
};

/// T23 the predicted point alone (no feasibility check): S_t = p_prey + v_prey * t_c with
/// t_c = |S_r|/|V_r|, capped at max_prediction. |V_r| = 0 (or so small that t_c would exceed
/// the cap) uses t_c = max_prediction when finite, else 0 (aim at the prey). Never NaN.
InterceptAim predict_intercept(const Mover& predator, const Mover& prey, const InterceptParams& params);

/// T24 infeasibility test: true when the prey lies behind the predator, i.e. its forward
/// coordinate in the predator's local frame is < 0. heading must be a unit vector.
bool prey_behind(Vec2 predator_position, Vec2 predator_heading, Vec2 prey_position);

/// T23 + T24 with explicit heading: intercept while the prey is in front, LOS (aim at the prey)
/// while it is behind. mode is the caller-owned persistent state: exactly abeam (forward = 0)
/// keeps the previous mode, so the switch cannot chatter on the boundary. Updates mode.
InterceptAim intercept_aim(const Mover& predator, Vec2 predator_heading, const Mover& prey,
                           const InterceptParams& params, ChaseMode& mode);

/// T23/T24 point-mass form for a steering vehicle (seek this point): heading taken from the
/// predator's velocity (no fallback possible while it is at rest). Stateless.
Vec2 intercept_point(const Mover& predator, const Mover& prey, const InterceptParams& params);

/// Output of the craft-level intercept chase.
struct InterceptChaseOutput {
  Thrusters thrusters;  ///< what to apply this tick (T21 logic toward aim.point)
  InterceptAim aim;     ///< the aim point and mode, for annotation
};

/// T23/T24 for a bow-thruster craft (AIDemo2-2): compute the aim point and turn toward it with
/// the T21 LOS thruster logic. mode is the caller-owned persistent chase mode.
InterceptChaseOutput intercept_chase(const CraftState& predator, const Mover& prey, const InterceptParams& params,
                                     const LosChaseParams& los, ChaseMode& mode);

}  // namespace flockstep::behavior
