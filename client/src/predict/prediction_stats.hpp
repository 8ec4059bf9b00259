#pragma once
/// \file prediction_stats.hpp
/// Bookkeeping of the player's reconciliation for the HUD and tests: how many predictions were
/// compared with the server bit for bit, how many differed (mispredictions), respawns (never
/// compared: only the server decides a capture), states after held ticks, and the errors.
#include <cstdint>

#include "predict/player_prediction.hpp"

namespace flockstep::client {

/// See file comment.
struct PredictionStats {
  std::uint64_t compared = 0;     ///< predictions checked against the server
  std::uint64_t corrections = 0;  ///< compared and different
  std::uint64_t respawns = 0;     ///< server states after a capture / respawn
  std::uint64_t held_states = 0;  ///< server states after ticks that held a late input
  double last_error_m = 0;        ///< position error at the last compared sequence, m
  double max_error_m = 0;         ///< worst compared error, m

  /// Count one reconciliation; `respawn` = the state follows a respawn of the craft.
  /// Returns true when it was a misprediction.
  bool add(const ReconcileResult& r, bool respawn);
  void reset() { *this = PredictionStats{}; }
};

}  // namespace flockstep::client
