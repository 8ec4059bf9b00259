// libFuzzer target: a client's delta decoder end to end: untrusted ServerMessage bytes through
// codec::decode_server_message into codec::SnapshotReceiver (baseline lookup in its history,
// agent records, agent_count check, the own craft's exact state), and plain Snapshot messages
// through codec::decode_snapshot_agents.
//
// Input layout (tests/fuzz/make_corpus.py writes seeds in it):
//   byte 0        world: bit 0 = wrap, bit 1 = 1000 x 600 m instead of 120 x 120 m
//   then records  [length, 2 bytes little endian][that many bytes: one ServerMessage]
// Properties checked on every input, beyond "no crash, no sanitizer report":
//   - the receiver's newest tick never goes back; after kOk its agents are sorted by id, unique
//     and finite, and it acknowledges the newest tick; after kEmpty (baseline not in the history)
//     it acknowledges 0 (the server then sends a full snapshot);
//   - the whole sequence decodes the same way twice (a fresh receiver, the same results).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "codec/server_codec.hpp"

namespace {

using namespace flockstep;

// A broken property aborts (libFuzzer reports the input as a crash) after naming itself, so a
// finding says which property failed without a debugger.
#define check(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      std::fprintf(stderr, "property failed: %s (line %d)\n", #cond, __LINE__); \
      std::abort();                                                             \
    }                                                                           \
  } while (0)

bool finite(const sim::AgentView& a) {
  return std::isfinite(a.position.x) && std::isfinite(a.position.y) && std::isfinite(a.velocity.x) &&
         std::isfinite(a.velocity.y) && std::isfinite(a.orientation) && std::isfinite(a.angular_velocity) &&
         std::isfinite(a.aim.x) && std::isfinite(a.aim.y);
}

/// One pass over the input; returns what each message did (status, tick, agent count).
std::vector<std::uint64_t> run(const std::uint8_t* data, std::size_t size) {
  sim::Scenario scenario;
  scenario.width = (data[0] & 2) ? 1000 : 120;
  scenario.height = (data[0] & 2) ? 600 : 120;
  scenario.wrap = (data[0] & 1) != 0;
  codec::SnapshotReceiver rx;
  rx.configure(scenario);
  std::vector<std::uint64_t> trace;
  std::vector<sim::AgentView> plain;
  std::size_t at = 1;
  while (at + 2 <= size) {
    const std::size_t len = std::min<std::size_t>(data[at] | (std::size_t{data[at + 1]} << 8), size - at - 2);
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data + at + 2), len);
    at += 2 + len;
    v1::ServerMessage m;
    if (!codec::decode_server_message(bytes, m).ok()) {
      trace.push_back(1000);
      continue;
    }
    if (m.has_snapshot()) {
      const codec::Result r = codec::decode_snapshot_agents(m.snapshot(), plain);
      if (r.ok())
        for (const sim::AgentView& a : plain) check(finite(a));
      trace.push_back(2000 + static_cast<std::uint64_t>(r.status));
      continue;
    }
    if (!m.has_delta_snapshot()) continue;
    const std::uint64_t before = rx.tick();
    const codec::Result r = rx.receive(m);
    check(rx.tick() >= before);
    if (r.ok()) {
      check(rx.ack_tick() == rx.tick());
      std::uint32_t prev = 0;
      for (const sim::AgentView& a : rx.agents()) {
        check(a.id.value > prev);
        prev = a.id.value;
        check(finite(a));
      }
    } else if (r.status == codec::Status::kEmpty) {
      check(rx.ack_tick() == 0);
    }
    trace.push_back(static_cast<std::uint64_t>(r.status));
    trace.push_back(rx.tick());
    trace.push_back(rx.agents().size());
  }
  return trace;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  check(run(data, size) == run(data, size));
  return 0;
}
