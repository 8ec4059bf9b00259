#pragma once
/// \file lab_source.hpp
/// The lab's frame source: a sim::World of any scenario running in the page, with no game server.
/// The page gives it scenario JSON (a shipped file fetched from the static folder, or text edited
/// in the lab panel), tunes any parameter through the same paths the admin API takes, pauses,
/// steps, restarts with a new seed, moves the chasers' target (a player craft) with a click and
/// exports the scenario file the server runs as a room. The world is the server's own code
/// (shared/), the scenario parser the server's own parser (codec/scenario_json), and the lab
/// drives the World directly (no wire format in between), so what the lab shows is what a room of
/// that file would do, tick for tick, given the same seed and inputs.
#include "flockstep/sim/world.hpp"
#include "frame/frame_source.hpp"

namespace flockstep::client {

class LabSource final : public FrameSource {
 public:
  /// Ticks the lab runs at most per frame (a slow page slows the lab instead of spiralling).
  static constexpr std::int32_t kMaxStepsPerFrame = 4;

  explicit LabSource(FrameHost& host) : FrameSource(host) {}
  const char* mode() const override { return "lab"; }
  /// Scenario JSON: "" or the error (key path first).
  std::string open(std::span<const std::uint8_t> data) override;
  void advance(const FrameInput& in) override;
  /// "paused" (0/1), "step" (value ticks, default 1; pauses), "speed" (0.1-4), "restart" (value =
  /// the new seed; 0 = the current seed + 1).
  void control(const std::string& what, double value) override;
  bool key(const std::string& code) override;
  bool paused() const override { return paused_; }
  /// Move the chasers' target, the lab's player craft (added on first use), to `p`.
  bool place(math::Vec2 p) override;
  void publish(nlohmann::json& j, double now) const override;

  /// Set a parameter of a group by its Tune path ("max_speed", "behaviors[1].weight", "count");
  /// "" or why not (the rules of the server's admin API: World::set_group).
  std::string tune(std::int32_t group, const std::string& key, double value);
  /// The scenario as tuned, as a scenario file the server loads.
  std::string export_json() const;

 private:
  void start();
  void push_world(double now);

  sim::Scenario spec_;  // the scenario as loaded and tuned (scenario_ is the drawn copy)
  std::unique_ptr<sim::World> world_;
  sim::AgentId player_;  // the target a click places (invalid until the first click)
  bool paused_ = false;
  std::int32_t pending_steps_ = 0;
  double speed_ = 1;
  double accum_ms_ = 0;
  double sim_ms_ = 0;  // smoothed cost of one tick, ms
};

}  // namespace flockstep::client
