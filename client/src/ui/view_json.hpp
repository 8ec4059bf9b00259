#pragma once
/// \file view_json.hpp
/// Parts of what the viewer tells the page (window.__flockstep every frame, the world on every
/// change) as functions of the view state and the world, so they are unit tested
/// (tests/client/ui/view_json_test.cpp); ui/publish.cpp puts them together with the viewer's
/// and the frame source's fields.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flockstep/sim/scenario.hpp"
#include "predict/remote_agents.hpp"
#include "view/label_layout.hpp"
#include "view/view_state.hpp"
#include "view/world_layers.hpp"

namespace flockstep::client {

/// JSON has no NaN or infinity: report 0 rather than break the page's JSON.parse.
inline double json_num(double v) { return std::isfinite(v) ? v : 0; }

/// The view's options and camera: annotations, annotation_mask, trails, minimap, follow,
/// camera, mode (interpolate / extrapolate), interp_delay_ms, layer_on, labels_on, labels_mode.
void view_json(nlohmann::json& j, const ViewState& v, bool labels_on, double interpolation_delay_ms);
/// A few agents in the middle of the view (at most 8, within 80 % of the half extents): tests
/// click on them; people read them in the console.
nlohmann::json sample_json(const std::vector<DrawAgent>& agents, const Camera& cam, const sim::Scenario& s);
/// The legend: kinds present, groups, layers (with whether each is on).
nlohmann::json legend_json(const sim::Scenario& s, const WorldLayers& layers, const ViewState& v);
/// Every group with its tunable parameters (the Tune panel), for flockstepUi.world.
nlohmann::json groups_json(const sim::Scenario& s);
/// This frame's placed labels, centred, CSS px.
nlohmann::json labels_json(const std::vector<PlacedLabel>& labels);

}  // namespace flockstep::client
