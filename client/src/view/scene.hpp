#pragma once
/// \file scene.hpp
/// The drawing of one frame with WebGL2: the world's layers, agents, annotations, trails, the
/// inspected agent's force arrows, the minimap, and the frame's labels. It draws what a
/// SceneFrame says (plain data: the view state, the world, the agents, the own craft) and knows
/// nothing of the viewer or of the modes; the rules it draws by (shapes, colours, which agents are
/// labelled) are view/scene_rules.hpp, unit tested.
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/trace.hpp"
#include "predict/remote_agents.hpp"
#include "view/label_layout.hpp"
#include "view/renderer.hpp"
#include "view/scene_rules.hpp"
#include "view/view_state.hpp"
#include "view/world_layers.hpp"

namespace flockstep::client {

/// What the scene draws in one frame.
struct SceneFrame {
  bool have_world = false;
  const ViewState* view = nullptr;
  const sim::Scenario* scenario = nullptr;
  const WorldLayers* layers = nullptr;
  const std::vector<DrawAgent>* agents = nullptr;
  std::function<const DrawAgent*(std::uint32_t)> find;  ///< a drawn agent by id, or null
  const behavior::CraftState* own = nullptr;            ///< the own craft as drawn (live players)
  std::uint32_t own_entity = 0;
  std::string own_name;
  const behavior::CraftState* server_ghost = nullptr;  ///< the server's state of the own craft
  bool own_protected = false;                          ///< within its respawn protection (blinks)
  const std::deque<math::Vec2>* trail_own = nullptr;
  const std::deque<math::Vec2>* trail_follow = nullptr;
  const sim::SteeringTrace* trace = nullptr;  ///< the inspected agent's newest steering trace
  bool trace_available = true;
  const std::unordered_map<std::uint32_t, std::string>* names = nullptr;  ///< players' display names
  const std::vector<ScreenBox>* occluders = nullptr;                      ///< the page's panels, CSS px
  double css_scale = 1;                                                   ///< device px per CSS px
};

class Scene {
 public:
  explicit Scene(Renderer& gl) : gl_(gl) {}
  /// Draw the frame on the whole canvas (the camera's size).
  void draw(const SceneFrame& frame);
  /// The frame's labels, placed (CSS px).
  std::vector<PlacedLabel> labels(const SceneFrame& frame);
  /// Agents inside the main view in the last draw.
  std::int32_t visible() const { return visible_; }
  /// Items drawn per layer in the last draw (+ free tiles at kLayerCount).
  const std::array<std::int32_t, kLayerCount + 1>& drawn_layers() const { return drawn_layers_; }

 private:
  /// The inspected agent's force breakdown as world-space arrows (each evaluated behaviour's
  /// weighted output, then the combined result), scaled by force_arrow_px so they read at any zoom.
  struct ForceArrow {
    math::Vec2 from, to;
    std::string label;
    Rgba color;
  };
  std::vector<ForceArrow> inspector_arrows() const;
  void render_layers(const Camera& cam, bool minimap);
  void render_world(const Camera& cam, bool minimap);
  void build_instances(const Camera& cam, bool minimap);
  void annotate(const Camera& cam);
  const ViewState& view() const { return *f_->view; }
  const sim::Scenario& scenario() const { return *f_->scenario; }
  const WorldLayers& layers() const { return *f_->layers; }
  const std::vector<DrawAgent>& agents() const { return *f_->agents; }

  Renderer& gl_;
  const SceneFrame* f_ = nullptr;  // the frame being drawn
  std::int32_t visible_ = 0;
  std::array<std::int32_t, kLayerCount + 1> drawn_layers_{};
  // Scratch buffers (reused every frame)
  std::vector<Instance> inst_[static_cast<int>(Shape::kCount)];
  std::vector<ColorVertex> lines_;
};

}  // namespace flockstep::client
