// Replay of a recording: the file is indexed once (replay/recording.hpp), then decoded in file
// order with the live codec and a SnapshotReceiver of its own, and drawn by the same buffers and
// renderer, by interpolation at the replay's own clock. Seeking decodes from the last keyframe at
// or before the target tick (the world rebuilt from the Welcome plus the group updates before
// it), then forward, so a tick looks the same however it was reached.
#include <algorithm>

#include <emscripten/emscripten.h>

#include "ui/page.hpp"
#include "viewer.hpp"

namespace flockstep::client {

bool Viewer::replay_open() {
  RecordingIndex idx = index_recording(replay_data_);
  if (!idx.error.empty()) {
    replay_error_ = idx.error;
    replay_records_.clear();
    replay_data_.clear();
    page::call("replayError", idx.error);
    return false;
  }
  replay_spec0_ = idx.welcome.world();
  replay_room_ = idx.welcome.room();
  tick_rate_ = idx.welcome.tick_rate_hz() > 0 ? idx.welcome.tick_rate_hz() : 60;
  snapshot_rate_ = idx.welcome.snapshot_rate_hz() > 0 ? idx.welcome.snapshot_rate_hz() : 20;
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
  world_spec_ = replay_spec0_;
  if (!rebuild_scenario(world_spec_)) {
    replay_ = false;
    replay_error_ = world_error_;
    page::call("replayError", world_error_);
    return false;
  }
  dt_ms_ = 1000.0 / tick_rate_;
  predictor_.configure(&scenario_, 1.0 / scenario_.tick_rate_hz);
  predictor_.reset();
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
  // The world as it was there: the recording's Welcome plus every GroupUpdate before it.
  v1::WorldSpec spec = replay_spec0_;
  for (std::size_t i = 0; i < key; ++i) {
    const ReplayRecord& r = replay_records_[i];
    if (r.type != v1::ServerMessage::kGroupUpdate) continue;
    if (!replay_msg_.ParseFromArray(replay_data_.data() + r.offset, static_cast<int>(r.size))) continue;
    const v1::GroupUpdate& u = replay_msg_.group_update();
    if (u.group() >= 0 && u.group() < spec.groups_size()) *spec.mutable_groups(u.group()) = u.spec();
  }
  if (rebuild_scenario(spec)) world_spec_ = std::move(spec);
  replay_rx_.configure(scenario_);
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
    if (!replay_msg_.ParseFromArray(replay_data_.data() + r.offset, static_cast<int>(r.size))) continue;
    switch (r.type) {
      case v1::ServerMessage::kDeltaSnapshot: {
        const v1::DeltaSnapshot& d = replay_msg_.delta_snapshot();
        const codec::Result res = replay_rx_.receive(d);
        if (!res.ok() || replay_rx_.tick() != d.server_tick()) break;
        last_snapshot_tick_ = d.server_tick();
        if (!quiet) snapshot_window_.add(now);
        remote_.push(d.server_tick(), std::vector<sim::AgentView>(replay_rx_.agents()));
        break;
      }
      case v1::ServerMessage::kGroupUpdate: apply_group_update(replay_msg_.group_update()); break;
      case v1::ServerMessage::kEvents:
        if (!quiet) on_events(replay_msg_.events());
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
