#pragma once
/// \file inspector.hpp
/// What the inspector panel and the legend show, as plain data built from the client's state
/// (the snapshot's agent, the decoded scenario): unit tested without a browser; ui/publish.cpp
/// turns it into window.__flockstep.inspector / .legend.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flockstep/math/vec2.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/trace.hpp"
#include "predict/remote_agents.hpp"
#include "view/world_layers.hpp"

namespace flockstep::client {

/// One behaviour of the inspected agent's composition, and its output in the traced step.
struct BehaviourRow {
  std::string type;  ///< scenario-file name ("separation", ...)
  double weight = 0;
  std::int32_t priority = 0;  ///< T80 group
  bool evaluated = false;     ///< it produced an output in the traced step
  math::Vec2 raw;             ///< its output, in ForceBreakdown::unit
  math::Vec2 weighted;        ///< raw * weight: its share of a blend, the vector drawn
  double angular = 0;         ///< raw angular output, rad/s^2
  Rgba color;
};

/// The server's (or the lab's World's) steering trace of the inspected agent for one step:
/// numbers taken as computed, never recomputed by the client.
struct ForceBreakdown {
  std::uint64_t tick = 0;  ///< snapshot tick that step produced
  bool available = true;   ///< false: the room traces its sim::kMaxTraced agents already
  std::string unit;        ///< "N" (vehicle model) or "m/s²" (steering model)
  double budget = 0;       ///< the combiner's clip in that unit (max_force, or max_force / mass)
  std::vector<BehaviourRow> behaviours;
  math::Vec2 result;  ///< what the combiner produced
  double result_angular = 0;
};

/// Drawn length of a force-breakdown vector: a vector as long as the budget is kForceArrowPx
/// CSS px, longer ones up to twice that, so every arrow stays readable at any zoom.
inline constexpr double kForceArrowPx = 56;
/// Screen length (CSS px) of a breakdown vector `v` with clip `budget`.
double force_arrow_px(math::Vec2 v, double budget);

/// The inspected agent. Only what the client really knows: its snapshot state, its group's
/// scenario entry and the steering trace the server (or the lab) computed for it.
struct InspectorData {
  std::uint32_t id = 0;
  std::string name;   ///< display name (players whose presence the client saw), else empty
  std::string group;  ///< the group's name in the scenario
  std::int32_t group_index = -1;
  std::string kind;                       ///< "pursuer", ...
  std::string technique;                  ///< as named in the scenario ("seek", "tile_patrol", ...)
  std::string model;                      ///< movement model ("vehicle", "steering", "craft", ...)
  std::string combiner;                   ///< how the behaviours combine ("running_sum", ...; empty: one controller)
  std::vector<BehaviourRow> composition;  ///< the group's behaviours with weights (outputs unset)
  std::string state;                      ///< "intercepting", "patrolling", ... or "none"
  double speed = 0;                       ///< m/s
  double max_speed = 0;                   ///< the group's, m/s (0 = unknown)
  double heading_deg = 0;                 ///< CCW from +x
  math::Vec2 position, aim;
  std::uint32_t target = 0;  ///< 0 = none
  std::string target_group;  ///< the target's group when it is drawn
  /// The per-behaviour breakdown of the newest trace of this agent; empty until one arrived (or
  /// for one-controller models), so the panel never shows invented numbers.
  std::optional<ForceBreakdown> behaviour_forces;
};

/// Name of a behaviour state for people ("line-of-sight fallback", ...).
const char* state_label(sim::BehaviorState s);

/// Build the inspector of `a`; `target` is the drawn target agent (nullptr if not drawn);
/// `trace` the newest steering trace received for it (nullptr: none; used only when its agent
/// is `a`), `trace_available` false when the server refused to trace it.
InspectorData make_inspector(const DrawAgent& a, const sim::Scenario& s, const std::string& name,
                             const DrawAgent* target, const sim::SteeringTrace* trace = nullptr,
                             bool trace_available = true);

/// One row of the legend.
struct LegendEntry {
  std::string name;    ///< kind, group or layer name
  std::string detail;  ///< shape (kinds), technique (groups), key (layers)
  Rgba color;
  std::int32_t count = 0;   ///< agents (groups) or items (layers)
  std::int32_t index = -1;  ///< group index or Layer
};

/// The legend of a scenario: agent kinds present (players always), every group, and the layers
/// that have items.
struct Legend {
  std::vector<LegendEntry> kinds, groups, layers;
};
Legend make_legend(const sim::Scenario& s, const WorldLayers& layers);

}  // namespace flockstep::client
