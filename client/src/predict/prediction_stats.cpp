#include "predict/prediction_stats.hpp"

#include <algorithm>

namespace flockstep::client {

bool PredictionStats::add(const ReconcileResult& r, bool respawn) {
  if (r.compared) {
    ++compared;
    last_error_m = static_cast<double>(r.error_m);
    max_error_m = std::max(max_error_m, last_error_m);
  }
  if (r.held) ++held_states;
  if (respawn) ++respawns;
  if (r.corrected) ++corrections;
  return r.corrected;
}

}  // namespace flockstep::client
