#include "game/recorder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "codec/server_codec.hpp"
#include "game/room.hpp"
#include "ops/log.hpp"

namespace flockstep::server::game {

namespace {
/// stdio buffer: records are small (a few KiB per snapshot), a keyframe flushes.
constexpr std::size_t kBufferBytes = 1 << 16;
}  // namespace

Recorder::Recorder(const std::string& path, std::uint32_t keyframe_s, ops::Logger* log)
    : path_(path), log_(log), keyframe_s_(std::max<std::uint32_t>(1, keyframe_s)) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    fail("open");
    return;
  }
  std::setvbuf(file_, nullptr, _IOFBF, kBufferBytes);
  if (std::fwrite(kRecordingMagic.data(), 1, kRecordingMagic.size(), file_) != kRecordingMagic.size()) fail("write");
}

Recorder::~Recorder() {
  if (file_) {
    flush();
    if (file_) std::fclose(file_);
  }
}

void Recorder::fail(const char* op) {
  const int err = errno;
  if (log_)
    log_->error("recording_stopped",
                {{"file", path_}, {"op", op}, {"error", std::strerror(err)}, {"records", records_}});
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

void Recorder::write_record(std::string_view bytes) {
  if (!file_) return;
  const auto n = static_cast<std::uint32_t>(bytes.size());
  const unsigned char len[4] = {static_cast<unsigned char>(n & 0xFF), static_cast<unsigned char>((n >> 8) & 0xFF),
                                static_cast<unsigned char>((n >> 16) & 0xFF),
                                static_cast<unsigned char>((n >> 24) & 0xFF)};
  if (std::fwrite(len, 1, 4, file_) != 4 || std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    return fail("write");
  ++records_;
}

void Recorder::flush() {
  if (file_ && std::fflush(file_) != 0) fail("flush");
}

void Recorder::start(const sim::World& world, const sim::Scenario& scenario, const RoomConfig& config) {
  codec::WelcomeInfo info;
  info.player_id = 0;
  info.role = codec::Role::kSpectator;
  info.tick_rate_hz = config.tick_rate_hz;
  info.snapshot_rate_hz = config.snapshot_rate_hz;
  info.server_tick = world.tick();
  info.max_input_frames = config.max_input_frames;
  info.room = config.room_name;
  std::string bytes;
  codec::encode_welcome(info, scenario, bytes);
  write_record(bytes);
  geometry_ = codec::WireGeometry::of(scenario);
  keyframe_ticks_ = std::uint64_t{keyframe_s_} * std::max<std::uint32_t>(1, config.tick_rate_hz);
  have_base_ = false;
  flush();
}

void Recorder::snapshot(std::uint64_t tick, std::span<const codec::QAgent> agents, std::uint64_t state_hash) {
  if (!file_) return;
  const bool keyframe = !have_base_ || tick - last_keyframe_tick_ >= keyframe_ticks_;
  codec::EncodeInput in;
  in.tick = tick;
  in.base = keyframe ? nullptr : &base_;
  in.visible = agents;
  in.budget_bytes = 0;  // recordings have no budget: every change is in every snapshot
  codec::encode_agents(in, geometry_, agents_, next_);
  codec::encode_delta_body(tick, keyframe ? 0 : base_.tick, state_hash, agents_,
                           static_cast<std::uint32_t>(next_.agents.size()), bytes_);
  write_record(bytes_);
  std::swap(base_, next_);
  have_base_ = true;
  if (keyframe) {
    last_keyframe_tick_ = tick;
    ++keyframes_;
    flush();
  }
}

void Recorder::message(std::string_view bytes) { write_record(bytes); }

}  // namespace flockstep::server::game
