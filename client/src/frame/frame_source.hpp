#pragma once
/// \file frame_source.hpp
/// Where the agents of a frame come from. The viewer (viewer.hpp) keeps the camera, the drawing
/// and the page's UI; every animation frame it asks the active FrameSource, one per mode:
///
///   live    a server session: snapshots interpolated (or extrapolated), the own craft predicted
///           and reconciled, inputs sent (frame/live_source.hpp; opened by Play / Spectate)
///   replay  a recording file fed to a protocol core of its own, at the replay's clock
///           (frame/replay_source.cpp)
///   lab     a sim::World of any scenario running in the page, no server (frame/lab_source.hpp)
///   bench   synthetic agents or a local world, to measure the viewer alone
///           (frame/bench_source.cpp)
///
/// A frame runs `advance` (the source's own clock: step a world, feed records, run input ticks,
/// talk to the server), then `sample` (the agents to draw now), `own_pose` (the player's predicted
/// craft, live players only) and `trace` (the inspected agent's steering trace); the source's
/// world is `scenario()`. The source tells the viewer what changed through FrameHost (a new or
/// patched world, a toast, events).
///
/// Adding a mode: a new file with a class deriving FrameSource (override what differs from
/// "interpolate the snapshots pushed with push()") and one line in the table of
/// frame/sources.cpp; the page opens it with fs_source_open(mode, bytes) and drives it with
/// fs_source_control(what, value) (client/src/main.cpp), with no change to the viewer.
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/trace.hpp"
#include "net/clock_sync.hpp"
#include "predict/remote_agents.hpp"
#include "view/geometry.hpp"

namespace flockstep::v1 {
class Events;
}

namespace flockstep::client {

/// Events counted over a sliding window (snapshots per second, corrections per minute, ...).
struct RateWindow {
  std::deque<std::pair<double, double>> samples;  // time ms, amount
  double window_ms = 1000;
  void add(double t, double amount = 1) { samples.push_back({t, amount}); }
  double sum(double now) {
    while (!samples.empty() && samples.front().first < now - window_ms) samples.pop_front();
    double s = 0;
    for (const auto& p : samples) s += p.second;
    return s;
  }
};

/// What a source tells the viewer (implemented by Viewer).
class FrameHost {
 public:
  virtual ~FrameHost() = default;
  /// The scenario of `source` was replaced (`fresh`: a new world, so fit the camera to it) or one
  /// of its groups patched: rebuild the static layers and tell the page. `source` may not be the
  /// active one yet (a mode reports its world while it opens, before the viewer switches to it).
  virtual void world_changed(const class FrameSource& source, bool fresh) = 0;
  /// A short message for the page.
  virtual void toast(const std::string& message) = 0;
  /// Events of the stream (captures, presence, scores), live or recorded.
  virtual void events(const v1::Events& e) = 0;
};

/// What the viewer hands a source for one frame.
struct FrameInput {
  double now = 0;                  ///< page clock, ms
  double frame_ms = 0;             ///< since the last frame, ms (capped)
  const Camera* camera = nullptr;  ///< the camera as the last frame left it (spectators' view)
  std::uint32_t inspect = 0;       ///< the inspected agent (0 = none)
  bool extrapolate = false;        ///< draw others extrapolated to the present (live only)
};

/// See file comment. The base keeps what every mode shares: the world, the snapshot buffer, the
/// clock that maps page time to ticks and the newest steering trace.
class FrameSource {
 public:
  /// Others are drawn this far in the past, between two snapshots (two intervals at 20 Hz).
  static constexpr double kInterpolationDelayMs = 100;

  explicit FrameSource(FrameHost& host) : host_(host) {}
  virtual ~FrameSource() = default;
  FrameSource(const FrameSource&) = delete;
  FrameSource& operator=(const FrameSource&) = delete;

  /// The mode's name ("live", "replay", "lab", "bench"), as window.__flockstep.source.
  virtual const char* mode() const = 0;
  /// Start the mode from the page's bytes (a recording, scenario JSON, "n sim"); "" or why not
  /// (the source is then dropped).
  virtual std::string open(std::span<const std::uint8_t> data) = 0;
  /// The source's own clock for one frame.
  virtual void advance(const FrameInput& in) = 0;
  /// The agents to draw this frame (default: interpolated a fixed delay behind the clock).
  virtual void sample(const FrameInput& in, std::vector<DrawAgent>& out);
  /// The own craft as drawn (live players); false when there is none.
  virtual bool own_pose(behavior::CraftState& out) const {
    (void)out;
    return false;
  }
  /// A mode's control from the page or a key ("paused", "step", "speed", "seek", "play", ...).
  virtual void control(const std::string& what, double value) {
    (void)what;
    (void)value;
  }
  /// A key the mode handles itself (play/pause, step, restart); true when handled.
  virtual bool key(const std::string& code) {
    (void)code;
    return false;
  }
  virtual bool paused() const { return false; }
  /// A click on open ground at world point `p` (the lab moves its target there); true if used.
  virtual bool place(math::Vec2 p) {
    (void)p;
    return false;
  }
  /// The mode's own fields of window.__flockstep (the viewer writes the defaults first).
  virtual void publish(nlohmann::json& j, double now) const {
    (void)j;
    (void)now;
  }
  /// The room shown to the page.
  virtual std::string room() const { return scenario_.name; }

  bool has_world() const { return have_world_; }
  const sim::Scenario& scenario() const { return scenario_; }
  const RemoteAgents& buffer() const { return remote_; }
  std::uint64_t last_tick() const { return last_tick_; }
  std::uint32_t tick_rate() const { return tick_rate_; }
  std::uint32_t snapshot_rate() const { return snapshot_rate_; }
  double dt_ms() const { return dt_ms_; }
  double snapshots_per_s(double now) { return snapshot_window_.sum(now); }
  /// The newest steering trace (of the agent inspected when it was taken).
  const sim::SteeringTrace& trace() const { return trace_; }
  bool trace_available() const { return trace_available_; }
  const char* trace_source() const { return trace_source_; }
  /// Ticks the drawn time was beyond the newest snapshot in the last sample (0: none).
  double starved_ticks() const { return buffer_beyond_ticks_; }
  /// The source's tick at page time `now` (the newest snapshot's until the clock is set).
  double tick_now(double now) const {
    return clock_.valid() ? clock_.server_tick(now, dt_ms_) : static_cast<double>(last_tick_);
  }
  bool clock_valid() const { return clock_.valid(); }

 protected:
  /// Take `s` as the world (rates from it unless given), empty the buffer, reset the clock.
  void adopt_world(const sim::Scenario& s, std::uint32_t tick_rate = 0, std::uint32_t snapshot_rate = 20);
  /// One snapshot of the world at `tick` into the buffer.
  void push(std::uint64_t tick, std::vector<sim::AgentView>&& views, double now, bool count = true);

  FrameHost& host_;
  sim::Scenario scenario_;
  bool have_world_ = false;
  RemoteAgents remote_;
  ClockSync clock_;
  std::uint64_t last_tick_ = 0;
  std::uint32_t tick_rate_ = 60, snapshot_rate_ = 20;
  double dt_ms_ = 1000.0 / 60;
  RateWindow snapshot_window_;
  double buffer_beyond_ticks_ = 0;
  sim::SteeringTrace trace_{};
  bool trace_available_ = true;    // false: the room refused (it traces its 16 agents already)
  const char* trace_source_ = "";  // "server" or "lab"
};

/// A registered mode: its name and how to make it.
struct FrameSourceEntry {
  const char* mode;
  std::unique_ptr<FrameSource> (*make)(FrameHost& host);
};
/// Every mode the page opens with fs_source_open (frame/sources.cpp).
std::span<const FrameSourceEntry> frame_sources();
/// A new source of `mode`, or null when no such mode is registered.
std::unique_ptr<FrameSource> make_frame_source(std::string_view mode, FrameHost& host);

}  // namespace flockstep::client
