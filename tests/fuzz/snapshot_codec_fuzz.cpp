// libFuzzer target: the bit-packed agent records of a delta snapshot (codec::decode_agents), the
// part of every snapshot a client decodes by hand rather than through protobuf.
//
// Input layout (tests/fuzz/make_corpus.py writes seeds in it):
//   byte 0       world geometry: bits 0-1 pick one of kWorlds
//   byte 1       tick gap between the two snapshots - 1 (1..256 ticks)
//   bytes 2-3    length n of part A, little endian
//   A (n bytes)  the agent records of a full snapshot at kTick
//   B (the rest) the agent records of a delta snapshot against A's frame, kTick + gap
// Properties checked on every input, beyond "no crash, no sanitizer report":
//   - a decoded frame is well formed: ids unique and ascending, every field in its wire range,
//     every entry's tick at most the frame's;
//   - decoding is deterministic;
//   - the encoder and the decoder agree: encoding the decoded states again (A as a full
//     snapshot; B's states, as the receiver extrapolates them, against A) gives bytes whose
//     decode is exactly the frame the encoder said the receiver would hold.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "codec/snapshot_codec.hpp"

namespace {

using namespace flockstep;
using codec::KnownAgent;
using codec::QAgent;
using codec::ViewFrame;

void check(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input as a crash
}

/// Worlds the input can pick: wrapped and bounded, small and large, square and not.
codec::WireGeometry world(std::uint8_t pick) {
  struct Size {
    double w, h;
    bool wrap;
  };
  static constexpr Size kWorlds[] = {{120, 120, true}, {120, 120, false}, {1000, 600, false}, {50, 30, true}};
  const Size& s = kWorlds[pick & 3];
  sim::Scenario sc;
  sc.width = s.w;
  sc.height = s.h;
  sc.wrap = s.wrap;
  return codec::WireGeometry::of(sc);
}

/// Tick of snapshot A: far enough from 0 that spawn ages have room.
constexpr std::uint64_t kTick = 100000;

bool same(const KnownAgent& a, const KnownAgent& b) {
  return a.q == b.q && a.tick == b.tick && a.turn == b.turn && a.accel == b.accel;
}

bool same(const ViewFrame& a, const ViewFrame& b) {
  return a.tick == b.tick && a.agents.size() == b.agents.size() &&
         std::equal(a.agents.begin(), a.agents.end(), b.agents.begin(),
                    [](const KnownAgent& x, const KnownAgent& y) { return same(x, y); });
}

void check_frame(const ViewFrame& f, const codec::WireGeometry& g) {
  std::uint32_t prev = 0;
  for (const KnownAgent& k : f.agents) {
    const QAgent& q = k.q;
    check(q.id > prev);
    prev = q.id;
    check(k.tick <= f.tick && q.spawn_tick <= k.tick);
    check(q.kind < static_cast<std::uint8_t>(sim::AgentKind::kCount));
    check(q.state <= static_cast<std::uint8_t>(sim::BehaviorState::kCaptured));
    check(q.group >= -1);
    check(q.x >= 0 && q.x <= g.width_units && q.y >= 0 && q.y <= g.height_units);
    check(q.speed >= 0 && q.speed <= codec::kMaxSpeedUnits);
    check(q.vel_angle < codec::kAngleUnits && q.heading < codec::kAngleUnits);
    check(q.angvel >= -codec::kMaxAngularVelocityUnits && q.angvel <= codec::kMaxAngularVelocityUnits);
    check(std::max(std::abs(q.aim_dx), std::abs(q.aim_dy)) <= codec::kMaxAimUnits);
  }
}

/// Encode `visible` against `base` at `tick`; the decode of the bytes must be the encoder's frame.
void check_round_trip(const ViewFrame* base, std::uint64_t tick, const std::vector<QAgent>& visible,
                      const codec::WireGeometry& g) {
  codec::EncodeInput in;
  in.tick = tick;
  in.base = base;
  in.visible = visible;
  std::string bytes;
  ViewFrame promised, decoded;
  codec::encode_agents(in, g, bytes, promised);
  check(codec::decode_agents(base, tick, bytes, g, decoded).ok());
  check(same(promised, decoded));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const codec::WireGeometry g = world(data[0]);
  const std::uint64_t tick_b = kTick + 1 + data[1];
  const std::size_t n = std::min<std::size_t>(data[2] | (std::size_t{data[3]} << 8), size - 4);
  const std::string_view a(reinterpret_cast<const char*>(data) + 4, n);
  const std::string_view b(reinterpret_cast<const char*>(data) + 4 + n, size - 4 - n);

  ViewFrame fa, fa2;
  const bool a_ok = codec::decode_agents(nullptr, kTick, a, g, fa).ok();
  check(a_ok == codec::decode_agents(nullptr, kTick, a, g, fa2).ok());
  if (!a_ok) return 0;
  check(same(fa, fa2));
  check_frame(fa, g);
  check(fa.tick == kTick);
  {
    std::vector<QAgent> states;
    for (const KnownAgent& k : fa.agents) states.push_back(k.q);
    check_round_trip(nullptr, kTick, states, g);
  }

  ViewFrame fb, fb2;
  const bool b_ok = codec::decode_agents(&fa, tick_b, b, g, fb).ok();
  check(b_ok == codec::decode_agents(&fa, tick_b, b, g, fb2).ok());
  if (!b_ok) return 0;
  check(same(fb, fb2));
  check_frame(fb, g);
  // What the receiver draws at tick_b (entries not updated are extrapolated), kept inside a
  // bounded world as the server's quantiser would: sent against A again.
  std::vector<QAgent> states;
  for (const KnownAgent& k : fb.agents) {
    QAgent q = codec::predict(k, tick_b, g);
    if (!g.wrap) {
      q.x = std::clamp(q.x, 0, g.width_units);
      q.y = std::clamp(q.y, 0, g.height_units);
    }
    states.push_back(q);
  }
  check_round_trip(&fa, tick_b, states, g);
  return 0;
}
