#include "replay/recording.hpp"

#include <algorithm>

#include "codec/client_codec.hpp"

namespace flockstep::client {

RecordingIndex index_recording(std::span<const std::uint8_t> d) {
  RecordingIndex out;
  auto fail = [&out](std::string why) {
    out.records.clear();
    out.error = std::move(why);
    return out;
  };
  static constexpr char kMagic[8] = {'F', 'S', 'R', 'E', 'C', '0', '0', '1'};
  if (d.size() < 8 || !std::equal(kMagic, kMagic + 8, d.begin()))
    return fail("not a Flockstep recording (no FSREC001 header)");
  v1::ServerMessage m;
  std::size_t at = 8;
  while (at < d.size()) {
    if (d.size() - at < 4) break;  // torn tail
    const std::uint32_t n = static_cast<std::uint32_t>(d[at]) | static_cast<std::uint32_t>(d[at + 1]) << 8 |
                            static_cast<std::uint32_t>(d[at + 2]) << 16 | static_cast<std::uint32_t>(d[at + 3]) << 24;
    if (d.size() - at - 4 < n) break;
    ReplayRecord r;
    r.offset = at + 4;
    r.size = n;
    at += 4 + static_cast<std::size_t>(n);
    const codec::Result res = codec::decode_server_message(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(d.data() + r.offset), n), m);
    if (!res.usable()) return fail("record " + std::to_string(out.records.size() + 1) + ": " + res.detail);
    r.type = m.payload_case();
    // Everything after needs the world of the Welcome (a file cut at the front has none).
    if (out.records.empty() && r.type != v1::ServerMessage::kWelcome) return fail("the first record is not a Welcome");
    if (r.type == v1::ServerMessage::kDeltaSnapshot) {
      r.tick = m.delta_snapshot().server_tick();
      r.keyframe = m.delta_snapshot().baseline_tick() == 0;
    } else if (r.type == v1::ServerMessage::kGroupUpdate) {
      r.tick = m.group_update().server_tick();
    } else if (r.type == v1::ServerMessage::kWelcome) {
      if (!out.records.empty()) return fail("a second Welcome at record " + std::to_string(out.records.size() + 1));
      // The snapshots' bit layout belongs to the protocol they were recorded with: another one
      // would decode into wrong agents (or fail mid-way), so say so before reading any.
      if (m.welcome().protocol_version() != codec::kProtocolVersion)
        return fail("recorded with protocol " + std::to_string(m.welcome().protocol_version()) +
                    "; this viewer reads protocol " + std::to_string(codec::kProtocolVersion) +
                    " (docs/protocol.md, \"Protocol versions\")");
      out.welcome = m.welcome();
    }
    out.records.push_back(r);
  }
  if (out.records.empty()) return fail("the recording is empty");
  bool any = false;
  for (const ReplayRecord& r : out.records) {
    if (r.type != v1::ServerMessage::kDeltaSnapshot) continue;
    if (!any && !r.keyframe) continue;  // decoding must start at a keyframe
    if (!any) out.first_tick = r.tick;
    any = true;
    out.last_tick = std::max(out.last_tick, r.tick);
  }
  if (!any) return fail("the recording has no keyframe snapshot");
  return out;
}

}  // namespace flockstep::client
