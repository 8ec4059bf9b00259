// Replay of an input-log recording (docs/replays.md) as a frame source: the file's whole world is
// re-simulated in the page by codec::InputLogPlayer, the server's own sim::World stepped with the
// commands the room gave it. Every tick is the world itself (no quantisation), so the inspector
// shows the per-behaviour forces of any agent at any tick, paused or playing. Seeking restores
// the nearest seek point and re-steps; each logged state hash is compared when its tick is
// reached and a divergence is published (window.__flockstep.inputlog) and toasted, never hidden.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "codec/input_log.hpp"
#include "frame/frame_source.hpp"
#include "replay/replay_keys.hpp"

namespace flockstep::client {
namespace {

std::string hex64(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

class InputLogSource final : public FrameSource {
 public:
  /// Ticks stepped per frame at most before a jump is taken as a seek (restore a seek point and
  /// re-step): 8x speed at 60 Hz needs 8 a frame at 60 frames per second.
  static constexpr std::uint64_t kMaxStepsPerFrame = 32;
  /// Playback speeds, as the page offers them.
  static constexpr double kMinSpeed = 0.25, kMaxSpeed = 8;

  explicit InputLogSource(FrameHost& host) : FrameSource(host) {}
  const char* mode() const override { return "inputlog"; }

  std::string open(std::span<const std::uint8_t> data) override {
    std::string error;
    player_ =
        codec::InputLogPlayer::open(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), error);
    if (!player_) return error;
    // Every tick is a "snapshot": the buffer interpolates between consecutive ticks.
    adopt_world(player_->world().scenario(), player_->info().tick_rate_hz, player_->info().tick_rate_hz);
    host_.world_changed(*this, true);
    tick_ = static_cast<double>(player_->first_tick());
    push_world(0);
    return "";
  }

  void advance(const FrameInput& in) override {
    if (playing_) {
      tick_ += in.frame_ms / dt_ms_ * speed_;
      if (tick_ >= static_cast<double>(player_->last_tick())) {
        tick_ = static_cast<double>(player_->last_tick());
        playing_ = false;
      }
    }
    if (in.inspect != traced_) {
      traced_ = in.inspect;
      std::vector<sim::AgentId> ids;
      if (traced_ != 0) ids.push_back(sim::AgentId{traced_});
      player_->set_traced(std::move(ids));
      want_trace_ = traced_ != 0;
    }
    // The world one tick ahead of the drawn time, so the buffer can interpolate up to it.
    const std::uint64_t target = std::min(static_cast<std::uint64_t>(std::ceil(tick_)), player_->last_tick());
    const std::uint64_t now_tick = player_->tick();
    if (target > now_tick && target - now_tick <= kMaxStepsPerFrame) {
      while (player_->tick() < target && player_->step()) push_world(in.now);
    } else if (target != now_tick) {
      player_->seek(target);
      push_world(in.now);
    }
    // A newly inspected agent (or one inspected before a seek) has no trace of this tick yet:
    // take it by re-stepping the last tick with the agent traced (from the nearest seek point).
    if (want_trace_ && player_->tick() > player_->first_tick() && !trace_of_now()) {
      player_->seek(player_->tick() - 1);
      player_->step();
      push_world(in.now);
    }
    want_trace_ = false;
    take_trace();
    report_divergences();
  }

  void sample(const FrameInput& in, std::vector<DrawAgent>& out) override {
    (void)in;
    if (!remote_.ready()) {
      out.clear();
      return;
    }
    buffer_beyond_ticks_ = remote_.sample_interpolated(std::min(tick_, static_cast<double>(player_->tick())), out);
  }

  /// play (0/1), paused (0/1), speed (0.25-8), seek (tick), step (+1 / -1 tick).
  void control(const std::string& what, double value) override {
    if (what == "play" || what == "paused") {
      playing_ = what == "play" ? value != 0 : value == 0;
      if (playing_ && tick_ >= static_cast<double>(player_->last_tick()))
        tick_ = static_cast<double>(player_->first_tick());
    } else if (what == "speed") {
      speed_ = std::clamp(value, kMinSpeed, kMaxSpeed);
    } else if (what == "seek") {
      if (std::isfinite(value))
        tick_ = std::clamp(std::floor(value), static_cast<double>(player_->first_tick()),
                           static_cast<double>(player_->last_tick()));
      want_trace_ = traced_ != 0;
    } else if (what == "step") {
      playing_ = false;
      tick_ = std::clamp(std::floor(tick_) + (value < 0 ? -1 : 1), static_cast<double>(player_->first_tick()),
                         static_cast<double>(player_->last_tick()));
      want_trace_ = traced_ != 0;
    }
  }

  bool key(const std::string& code) override { return replay_key(*this, code, playing_); }

  bool paused() const override { return !playing_; }
  std::string room() const override { return player_ ? player_->info().room : scenario_.name; }

  void publish(nlohmann::json& j, double now) const override {
    (void)now;
    const sim::World& w = player_->world();
    j["screen"] = "replay";
    // The fields of a snapshot replay (the page's replay bar reads them) ...
    j["replay"] = {{"active", true},
                   {"kind", "inputlog"},
                   {"tick", std::floor(tick_)},
                   {"tick_exact", tick_},
                   {"playing", playing_},
                   {"speed", speed_},
                   {"firstTick", player_->first_tick()},
                   {"lastTick", player_->last_tick()},
                   {"snapshot_tick", last_tick_},
                   {"records", 0},
                   {"error", ""}};
    // ... and what only a re-simulation has: the world's hash, the logged one, the checks.
    nlohmann::json divergences = nlohmann::json::array();
    for (const auto& d : player_->divergences())
      divergences.push_back(
          {{"tick", d.tick}, {"expected", hex64(d.expected)}, {"got", hex64(d.got)}, {"what", d.what}});
    const std::uint64_t logged = player_->logged_hash(w.tick());
    j["inputlog"] = {{"room", player_->info().room},
                     {"scenario", player_->info().scenario},
                     {"tick", w.tick()},
                     {"agents", w.size()},
                     {"hash", hex64(w.state_hash())},
                     {"logged_hash", logged != 0 ? nlohmann::json(hex64(logged)) : nlohmann::json(nullptr)},
                     {"hashes_logged", player_->hash_ticks().size()},
                     {"hashes_checked", player_->hashes_checked()},
                     {"seek_points", player_->seek_point_count()},
                     {"commands", player_->command_count()},
                     {"end_reason", player_->end_reason()},
                     {"diverged", !player_->divergences().empty()},
                     {"divergences", std::move(divergences)}};
    j["paused"] = !playing_;
  }

 private:
  void push_world(double now) {
    const sim::World& w = player_->world();
    std::vector<sim::AgentView> views;
    views.reserve(static_cast<std::size_t>(w.size()));
    for (std::int32_t i = 0; i < w.size(); ++i) views.push_back(w.view(i));
    // A seek backwards starts the buffer over (it holds increasing ticks only).
    if (w.tick() <= last_tick_ && remote_.ready()) remote_.reset();
    push(w.tick(), std::move(views), now);
  }

  bool trace_of_now() const {
    const auto traces = player_->world().traces();
    return !traces.empty() && traces[0].tick == player_->tick();
  }

  void take_trace() {
    const auto traces = player_->world().traces();
    if (traces.empty() || traces[0].tick == 0) return;
    trace_ = traces[0];
    trace_available_ = true;
    trace_source_ = "replay";
  }

  void report_divergences() {
    const auto& d = player_->divergences();
    for (; reported_ < d.size(); ++reported_)
      host_.toast("replay diverged at tick " + std::to_string(d[reported_].tick) + " (" + d[reported_].what +
                  "): expected " + hex64(d[reported_].expected) + ", got " + hex64(d[reported_].got));
  }

  std::unique_ptr<codec::InputLogPlayer> player_;
  double tick_ = 0;  // the drawn time, ticks
  bool playing_ = true;
  double speed_ = 1;
  std::uint32_t traced_ = 0;
  bool want_trace_ = false;
  std::size_t reported_ = 0;
};

}  // namespace

std::unique_ptr<FrameSource> make_input_log_source(FrameHost& host) { return std::make_unique<InputLogSource>(host); }

}  // namespace flockstep::client
