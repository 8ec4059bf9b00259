// Replay of a recording: the file is indexed once (replay/recording.hpp), then fed in file order
// to a protocol core of its own (core/protocol_core.hpp: the recording is the transport; the
// core's replies go nowhere), and drawn by the same buffers and renderer, by interpolation at the
// replay's own clock. Seeking starts the core over at the recording's Welcome, feeds it the group
// updates before the last keyframe at or before the target tick, then decodes forward from that
// keyframe, so a tick looks the same however it was reached.
#include <algorithm>

#include <emscripten/emscripten.h>

#include "ui/page.hpp"
#include "viewer.hpp"

namespace flockstep::client {

namespace {

/// Feed one record of the file to the replay's core (its clock is the replay's, not the page's).
ReceiveResult feed_record(ProtocolCore& core, const std::vector<std::uint8_t>& data, const ReplayRecord& r) {
  return core.receive(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data.data() + r.offset), r.size),
                      0);
}

}  // namespace

bool Viewer::replay_open() {
  RecordingIndex idx = index_recording(replay_data_);
  if (!idx.error.empty()) {
    replay_error_ = idx.error;
    replay_records_.clear();
    replay_data_.clear();
    page::call("replayError", idx.error);
    return false;
  }
  replay_room_ = idx.welcome.room();
  const std::uint64_t first = idx.first_tick, last = idx.last_tick;
  std::vector<ReplayRecord> recs = std::move(idx.records);
  session_.stop();
  bench_n_ = 0;
  bench_world_.reset();
  replay_ = true;
  replay_error_.clear();
  replay_records_ = std::move(recs);
  replay_first_ = first;
  replay_last_ = last;
  screen_ = Screen::kSpectate;
  entity_ = player_id_ = 0;
  if (!adopt_replay_world()) {
    replay_ = false;
    replay_error_ = world_error_;
    page::call("replayError", world_error_);
    return false;
  }
  remote_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  have_world_ = true;
  clock_.reset();
  have_server_state_ = false;
  paused_ = false;
  paused_queue_.clear();
  paused_agents_ = 0;
  follow_id_ = 0;
  scores_.clear();
  replay_speed_ = 1;
  replay_playing_ = true;
  fit_world();
  replay_seek(static_cast<double>(first));
  return true;
}

/// Start the replay's core over at the recording's Welcome (records[0]) and take its world.
bool Viewer::adopt_replay_world() {
  CoreConfig c;
  c.role = codec::Role::kSpectator;
  replay_core_.start(std::move(c), 0);
  const ReceiveResult r = feed_record(replay_core_, replay_data_, replay_records_.front());
  if (r.type != Received::kWelcome || !r.world_ok) {
    world_error_ = r.detail.empty() ? std::string("the recording's first record is not a Welcome") : r.detail;
    return false;
  }
  scenario_ = replay_core_.scenario();
  tick_rate_ = replay_core_.tick_rate_hz();
  snapshot_rate_ = replay_core_.snapshot_rate_hz();
  dt_ms_ = 1000.0 / tick_rate_;
  return true;
}

void Viewer::replay_close() {
  if (!replay_) return;
  replay_ = false;
  replay_playing_ = false;
  replay_records_.clear();
  replay_data_.clear();
  replay_data_.shrink_to_fit();
  have_world_ = false;
  remote_.reset();
}

void Viewer::replay_seek(double tick) {
  if (!replay_) return;
  tick = std::clamp(tick, static_cast<double>(replay_first_), static_cast<double>(replay_last_));
  // The last keyframe at or before the target.
  std::size_t key = replay_records_.size();
  for (std::size_t i = 0; i < replay_records_.size(); ++i) {
    const ReplayRecord& r = replay_records_[i];
    if (r.type != v1::ServerMessage::kDeltaSnapshot) continue;
    if (r.tick > static_cast<std::uint64_t>(tick)) break;
    if (r.keyframe) key = i;
  }
  if (key == replay_records_.size()) return;
  // The world as it was there: the recording's Welcome (which also starts the core's snapshot
  // receiver afresh) plus every GroupUpdate before it, each patching its group.
  if (!adopt_replay_world()) {
    toast(world_error_);
    return;
  }
  for (std::size_t i = 0; i < key; ++i)
    if (replay_records_[i].type == v1::ServerMessage::kGroupUpdate)
      feed_record(replay_core_, replay_data_, replay_records_[i]);
  scenario_ = replay_core_.scenario();
  remote_.reset();
  last_snapshot_tick_ = 0;
  replay_next_ = key;
  replay_tick_ = tick;
  replay_feed(tick + static_cast<double>(tick_rate_) / snapshot_rate_, true);
  world_changed();
}

/// Decode records in file order up to the first snapshot newer than `limit_tick`.
void Viewer::replay_feed(double limit_tick, bool quiet) {
  const double now = emscripten_get_now();
  while (replay_next_ < replay_records_.size()) {
    const ReplayRecord& r = replay_records_[replay_next_];
    if (r.type == v1::ServerMessage::kDeltaSnapshot && static_cast<double>(r.tick) > limit_tick) break;
    ++replay_next_;
    const ReceiveResult res = feed_record(replay_core_, replay_data_, r);
    switch (res.type) {
      case Received::kSnapshot: {
        const std::uint64_t tick = replay_core_.receiver().tick();
        last_snapshot_tick_ = tick;
        if (!quiet) snapshot_window_.add(now);
        remote_.push(tick, std::vector<sim::AgentView>(replay_core_.agents()));
        break;
      }
      case Received::kGroupUpdate:
        if (res.applied) on_group_changed(replay_core_.scenario(), res.group);
        break;
      case Received::kEvents:
        if (!quiet) on_events(replay_core_.message().events());
        break;
      default: break;
    }
  }
}

void Viewer::replay_frame(double frame_ms) {
  if (replay_playing_) {
    replay_tick_ += frame_ms / dt_ms_ * replay_speed_;
    if (replay_tick_ >= static_cast<double>(replay_last_)) {
      replay_tick_ = static_cast<double>(replay_last_);
      replay_playing_ = false;
    }
  }
  replay_feed(replay_tick_ + static_cast<double>(tick_rate_) / snapshot_rate_, false);
}

void Viewer::replay_control(const std::string& what, double value) {
  if (!replay_) return;
  if (what == "play") {
    replay_playing_ = value != 0;
    if (replay_playing_ && replay_tick_ >= static_cast<double>(replay_last_))
      replay_seek(static_cast<double>(replay_first_));
  } else if (what == "speed") {
    replay_speed_ = std::clamp(value, 0.25, 4.0);
  } else if (what == "seek") {
    replay_seek(value);
  } else if (what == "step") {
    // One snapshot interval (value = -1: back).
    const double step = static_cast<double>(tick_rate_) / snapshot_rate_;
    replay_playing_ = false;
    if (value < 0) replay_seek(replay_tick_ - step);
    else replay_tick_ = std::min(replay_tick_ + step, static_cast<double>(replay_last_));
  }
}

}  // namespace flockstep::client
