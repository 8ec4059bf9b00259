#pragma once
/// \file view_state.hpp
/// The viewer's view as plain data: the camera, what is followed and inspected, and the options
/// of the page (annotations, layers, labels, trails, minimap, extrapolation). The scene
/// (view/scene_rules.hpp), the controls (ui/view_controls.hpp) and the page's state
/// (ui/view_json.hpp) are functions over it, so they are unit tested without a browser or a
/// viewer (tests/client/view, tests/client/ui).
#include <cstdint>

#include "view/geometry.hpp"
#include "view/world_layers.hpp"

namespace flockstep::client {

struct ViewState {
  /// Zoom limits of the camera, px per m.
  static constexpr double kMinZoom = 0.05, kMaxZoom = 200;

  Camera cam;
  std::uint32_t follow_id = 0;   ///< agent the camera follows (0 = free camera)
  std::uint32_t inspect_id = 0;  ///< agent shown in the inspector (0 = none)
  bool annotations = false;
  std::uint32_t annotation_mask = 0x1F;                ///< per AgentKind bit
  std::uint32_t layer_mask = (1u << kLayerCount) - 1;  ///< per Layer bit
  int labels_mode = -1;                                ///< -1 auto (kLabelAgentsPerGroup), 0 off, 1 on
  bool trails = true;
  bool minimap = true;
  bool extrapolate = false;
  bool at_fit = false;  ///< the camera is where fitting put it (refit when panels move)

  bool layer_on(Layer l) const { return (layer_mask >> static_cast<unsigned>(l)) & 1u; }
};

}  // namespace flockstep::client
