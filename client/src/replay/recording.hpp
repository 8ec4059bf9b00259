#pragma once
/// \file recording.hpp
/// Index of a recording written by `flockstep-server --record`: "FSREC001", then
/// [u32 little-endian length][ServerMessage] records (a Welcome, delta snapshots with a full
/// keyframe every few seconds, events and group updates). Each record is decoded once with the
/// live codec to learn its type and tick; the viewer decodes them again while playing.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/server_codec.hpp"

namespace flockstep::client {

/// One record of a recording file.
struct ReplayRecord {
  std::size_t offset = 0;  ///< of the ServerMessage bytes in the file
  std::uint32_t size = 0;
  v1::ServerMessage::PayloadCase type = v1::ServerMessage::PAYLOAD_NOT_SET;
  std::uint64_t tick = 0;  ///< snapshots and group updates: their server tick
  bool keyframe = false;   ///< a full DeltaSnapshot (baseline_tick 0)
};

/// What index_recording found.
struct RecordingIndex {
  std::vector<ReplayRecord> records;
  v1::Welcome welcome;           ///< the first record
  std::uint64_t first_tick = 0;  ///< first keyframe's tick (decoding starts there)
  std::uint64_t last_tick = 0;   ///< newest snapshot tick
  std::string error;             ///< empty when usable
};

/// Index `data`. A torn tail (a recording still being written) is ignored; anything else that is
/// not a recording gives `error`.
RecordingIndex index_recording(std::span<const std::uint8_t> data);

}  // namespace flockstep::client
