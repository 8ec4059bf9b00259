// Replay of a recording as a frame source: the file is indexed once (replay/recording.hpp), then
// fed in file order to a protocol core of its own (core/protocol_core.hpp: the recording is the
// transport; the core's replies go nowhere), and drawn by interpolation at the replay's own
// clock. Seeking starts the core over at the recording's Welcome, feeds it the group updates
// before the last keyframe at or before the target tick, then decodes forward from that keyframe,
// so a tick looks the same however it was reached.
#include <algorithm>
#include <cmath>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "core/protocol_core.hpp"
#include "frame/frame_source.hpp"
#include "replay/recording.hpp"

namespace flockstep::client {
namespace {

class ReplaySource final : public FrameSource {
 public:
  explicit ReplaySource(FrameHost& host) : FrameSource(host) {}
  const char* mode() const override { return "replay"; }

  std::string open(std::span<const std::uint8_t> data) override {
    data_.assign(data.begin(), data.end());
    RecordingIndex idx = index_recording(data_);
    if (!idx.error.empty()) return idx.error;
    room_ = idx.welcome.room();
    first_ = idx.first_tick;
    last_ = idx.last_tick;
    records_ = std::move(idx.records);
    std::string error;
    if (!adopt_recorded_world(error)) return error;
    host_.world_changed(*this, true);
    seek(static_cast<double>(first_));
    return "";
  }

  void advance(const FrameInput& in) override {
    if (playing_) {
      tick_ += in.frame_ms / dt_ms_ * speed_;
      if (tick_ >= static_cast<double>(last_)) {
        tick_ = static_cast<double>(last_);
        playing_ = false;
      }
    }
    feed(tick_ + static_cast<double>(tick_rate_) / snapshot_rate_, false, in.now);
  }

  /// A recording is drawn at its own clock, by interpolation between recorded snapshots.
  void sample(const FrameInput& in, std::vector<DrawAgent>& out) override {
    (void)in;
    if (!remote_.ready()) {
      out.clear();
      return;
    }
    buffer_beyond_ticks_ = remote_.sample_interpolated(tick_, out);
  }

  /// play (0/1), paused (0/1), speed (0.25-4), seek (tick), step (+1 / -1 snapshot).
  void control(const std::string& what, double value) override {
    if (what == "play" || what == "paused") {
      playing_ = what == "play" ? value != 0 : value == 0;
      if (playing_ && tick_ >= static_cast<double>(last_)) seek(static_cast<double>(first_));
    } else if (what == "speed") {
      speed_ = std::clamp(value, 0.25, 4.0);
    } else if (what == "seek") {
      seek(value);
    } else if (what == "step") {
      // One snapshot interval (value = -1: back).
      const double step = static_cast<double>(tick_rate_) / snapshot_rate_;
      playing_ = false;
      if (value < 0) seek(tick_ - step);
      else tick_ = std::min(tick_ + step, static_cast<double>(last_));
    }
  }

  bool key(const std::string& code) override {
    if (code == "KeyP" || code == "Space") control("play", playing_ ? 0 : 1);
    else if (code == "Period" || code == "KeyN") control("step", 1);
    else if (code == "Comma" || code == "KeyB") control("step", -1);
    else return false;
    return true;
  }

  bool paused() const override { return !playing_; }
  std::string room() const override { return room_; }

  void publish(nlohmann::json& j, double now) const override {
    (void)now;
    j["screen"] = "replay";
    j["replay"] = {{"active", true},
                   {"tick", std::floor(tick_)},
                   {"tick_exact", tick_},
                   {"playing", playing_},
                   {"speed", speed_},
                   {"firstTick", first_},
                   {"lastTick", last_},
                   {"snapshot_tick", last_tick_},
                   {"records", records_.size()},
                   {"error", ""}};
    j["paused"] = !playing_;
  }

 private:
  /// Feed one record of the file to the replay's core (its clock is the replay's, not the page's).
  ReceiveResult feed_record(const ReplayRecord& r) {
    return core_.receive(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(data_.data() + r.offset), r.size), 0);
  }

  /// Start the replay's core over at the recording's Welcome (records[0]) and take its world.
  bool adopt_recorded_world(std::string& error) {
    CoreConfig c;
    c.role = codec::Role::kSpectator;
    core_.start(std::move(c), 0);
    const ReceiveResult r = feed_record(records_.front());
    if (r.type != Received::kWelcome || !r.world_ok) {
      error = r.detail.empty() ? std::string("the recording's first record is not a Welcome") : r.detail;
      return false;
    }
    adopt_world(core_.scenario(), core_.tick_rate_hz(), core_.snapshot_rate_hz());
    return true;
  }

  void seek(double tick) {
    tick = std::clamp(tick, static_cast<double>(first_), static_cast<double>(last_));
    // The last keyframe at or before the target.
    std::size_t key = records_.size();
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const ReplayRecord& r = records_[i];
      if (r.type != v1::ServerMessage::kDeltaSnapshot) continue;
      if (r.tick > static_cast<std::uint64_t>(tick)) break;
      if (r.keyframe) key = i;
    }
    if (key == records_.size()) return;
    // The world as it was there: the recording's Welcome (which also starts the core's snapshot
    // receiver afresh) plus every GroupUpdate before it, each patching its group.
    std::string error;
    if (!adopt_recorded_world(error)) {
      host_.toast(error);
      return;
    }
    for (std::size_t i = 0; i < key; ++i)
      if (records_[i].type == v1::ServerMessage::kGroupUpdate) feed_record(records_[i]);
    scenario_ = core_.scenario();  // in place: the buffer points at it
    next_ = key;
    tick_ = tick;
    feed(tick + static_cast<double>(tick_rate_) / snapshot_rate_, true, emscripten_get_now());
    host_.world_changed(*this, false);
  }

  /// Decode records in file order up to the first snapshot newer than `limit_tick`.
  void feed(double limit_tick, bool quiet, double now) {
    while (next_ < records_.size()) {
      const ReplayRecord& r = records_[next_];
      if (r.type == v1::ServerMessage::kDeltaSnapshot && static_cast<double>(r.tick) > limit_tick) break;
      ++next_;
      const ReceiveResult res = feed_record(r);
      switch (res.type) {
        case Received::kSnapshot:
          push(core_.receiver().tick(), std::vector<sim::AgentView>(core_.agents()), now, !quiet);
          break;
        case Received::kGroupUpdate:
          if (res.applied && res.group >= 0 && static_cast<std::size_t>(res.group) < scenario_.groups.size()) {
            scenario_.groups[static_cast<std::size_t>(res.group)] =
                core_.scenario().groups[static_cast<std::size_t>(res.group)];
            host_.world_changed(*this, false);
          }
          break;
        case Received::kEvents:
          if (!quiet) host_.events(core_.message().events());
          break;
        default: break;
      }
    }
  }

  std::vector<std::uint8_t> data_;  // the whole file
  std::vector<ReplayRecord> records_;
  std::size_t next_ = 0;  // next record to feed
  std::string room_;
  std::uint64_t first_ = 0, last_ = 0;
  bool playing_ = true;
  double speed_ = 1;
  double tick_ = 0;
  ProtocolCore core_;
};

}  // namespace

std::unique_ptr<FrameSource> make_replay_source(FrameHost& host) { return std::make_unique<ReplaySource>(host); }

}  // namespace flockstep::client
