#pragma once
/// \file inspector.hpp
/// What the inspector panel and the legend show, as plain data built from the client's state
/// (the snapshot's agent, the decoded scenario): unit tested without a browser; ui/publish.cpp
/// turns it into window.__flockstep.inspector / .legend.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flockstep/sim/world.hpp"
#include "predict/remote_agents.hpp"
#include "view/world_layers.hpp"

namespace flockstep::client {

/// The inspected agent. Only what the client really knows: its snapshot state and its group's
/// scenario entry.
struct InspectorData {
  std::uint32_t id = 0;
  std::string name;         ///< display name (players whose presence the client saw), else empty
  std::string group;        ///< the group's name in the scenario
  std::int32_t group_index = -1;
  std::string kind;         ///< "pursuer", ...
  std::string technique;    ///< as named in the scenario ("seek", "tile_patrol", ...)
  std::string state;        ///< "intercepting", "patrolling", ... or "none"
  double speed = 0;         ///< m/s
  double max_speed = 0;     ///< the group's, m/s (0 = unknown)
  double heading_deg = 0;   ///< CCW from +x
  math::Vec2 position, aim;
  std::uint32_t target = 0;      ///< 0 = none
  std::string target_group;      ///< the target's group when it is drawn
  /// Per-behaviour force breakdown: not sent by the server yet (behaviour composition). Stays
  /// empty until it is, so the panel never shows invented numbers.
  std::optional<std::vector<std::pair<std::string, math::Vec2>>> behaviour_forces;
};

/// Name of a behaviour state for people ("line-of-sight fallback", ...).
const char* state_label(sim::BehaviorState s);

/// Build the inspector of `a`; `target` is the drawn target agent (nullptr if not drawn).
InspectorData make_inspector(const DrawAgent& a, const sim::Scenario& s, const std::string& name,
                             const DrawAgent* target);

/// One row of the legend.
struct LegendEntry {
  std::string name;        ///< kind, group or layer name
  std::string detail;      ///< shape (kinds), technique (groups), key (layers)
  Rgba color;
  std::int32_t count = 0;  ///< agents (groups) or items (layers)
  std::int32_t index = -1; ///< group index or Layer
};

/// The legend of a scenario: agent kinds present (players always), every group, and the layers
/// that have items.
struct Legend {
  std::vector<LegendEntry> kinds, groups, layers;
};
Legend make_legend(const sim::Scenario& s, const WorldLayers& layers);

}  // namespace flockstep::client
