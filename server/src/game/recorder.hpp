#pragma once
/// \file recorder.hpp
/// Writes one room's stream to a file (`--record FILE`) for the viewer's replay:
/// 8 bytes magic "FSREC001", then records `[u32 little-endian length][ServerMessage bytes]`.
/// Record 1 is a Welcome (spectator, player 0, entity 0, the full WorldSpec, the room's name);
/// then at every snapshot tick a DeltaSnapshot of the whole world (no area, no budget) coded
/// against the previous recorded one, with a keyframe (baseline_tick = 0, every agent in full)
/// first and every `keyframe_s` seconds; plus every message the room broadcasts (Events,
/// GroupUpdate) as it happens. Format details: docs/protocol.md ("Recordings").
///
/// Runs on the game thread: buffered writes, flushed after each keyframe. The first I/O error is
/// logged once and ends the recording; the game never stops for it.
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "codec/snapshot_codec.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::server::ops {
class Logger;
}

namespace flockstep::server::game {

struct RoomConfig;

/// The recording's 8-byte file magic.
inline constexpr std::string_view kRecordingMagic = "FSREC001";

/// See file comment. Single-threaded (the game thread).
class Recorder {
 public:
  /// Opens (truncates) `path` and writes the magic; check ok() afterwards. `log` may be null.
  Recorder(const std::string& path, std::uint32_t keyframe_s, ops::Logger* log);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Still recording (no I/O error so far).
  bool ok() const { return file_ != nullptr; }
  /// The Welcome record (Room::set_recorder calls it). Resets the delta chain.
  void start(const sim::World& world, const sim::Scenario& scenario, const RoomConfig& config);
  /// A snapshot tick: `agents` is every agent quantised, sorted by id (SnapshotStreams'
  /// sample of the same tick); `state_hash` as in the live stream (0 = not this snapshot).
  void snapshot(std::uint64_t tick, std::span<const codec::QAgent> agents, std::uint64_t state_hash);
  /// A message the room broadcast (one serialized ServerMessage).
  void message(std::string_view bytes);
  /// Flush buffered records to the file (also done after every keyframe and on destruction).
  void flush();

  std::uint64_t records() const { return records_; }
  std::uint64_t keyframes() const { return keyframes_; }

 private:
  void write_record(std::string_view bytes);
  void fail(const char* op);

  std::string path_;
  std::FILE* file_ = nullptr;
  ops::Logger* log_;
  std::uint64_t keyframe_ticks_ = 300;  // keyframe_s * tick rate, set by start()
  std::uint64_t last_keyframe_tick_ = 0;
  bool have_base_ = false;
  codec::WireGeometry geometry_;
  codec::ViewFrame base_, next_;
  std::string agents_, bytes_;
  std::uint32_t keyframe_s_;
  std::uint64_t records_ = 0;
  std::uint64_t keyframes_ = 0;
};

}  // namespace flockstep::server::game
