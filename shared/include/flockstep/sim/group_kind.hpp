#pragma once
/// \file group_kind.hpp
/// The name figures are reported under per group kind (the viewer's extrapolation error and
/// bench/extrap_error), so both group the same agents the same way.
#include <cstdint>
#include <string>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::sim {

/// A group's technique name, or "composed/<model>" for a composition; "player" for an index that
/// names no group (players' crafts).
std::string group_kind(const Scenario& s, std::int32_t group);

}  // namespace flockstep::sim
