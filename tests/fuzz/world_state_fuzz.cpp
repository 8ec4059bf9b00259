// libFuzzer target: codec::decode_world_state, the reader of saved worlds (a file or a store the
// server does not fully trust). Each input is tried twice:
//   1. as the whole WorldStateFile (version and body hash checks first);
//   2. with its body (the input itself, or the body of the input when it parses as a file)
//      wrapped in a file with the right version and hash, so mutations reach the body's own
//      checks (columns, scenario, World::from_state consistency, the state hash);
//   3. when the body parses, with the scenario's size fields (width, height, grid_cell) taken
//      from the input's last 24 bytes, so the size limits see any value (the seeds named
//      size-* are saved worlds at and past those limits, from room_state_test.cpp).
// Properties beyond "no crash, no sanitizer report": exactly one of world/error is set; an
// accepted world is within the size limits, steps a few ticks without failing an assertion, and
// saves to bytes that restore to the same hash.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "codec/checksum.hpp"
#include "codec/world_state_codec.hpp"
#include "flockstep/v1/world_state.pb.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input as a crash
}

void try_decode(std::string_view bytes) {
  flockstep::codec::DecodedWorld d = flockstep::codec::decode_world_state(bytes);
  check(!d.world != d.error.empty());
  if (!d.world) return;
  const flockstep::sim::Scenario& s = d.world->scenario();
  check(std::max(1.0, std::floor(s.width / s.grid_cell)) * std::max(1.0, std::floor(s.height / s.grid_cell)) <=
        flockstep::codec::kMaxWorldGridCells);
  // Larger worlds are fine to accept but too slow to step for every input.
  if (d.world->size() > 2000) return;
  for (int k = 0; k < 3; ++k) d.world->step();
  const flockstep::codec::DecodedWorld again =
      flockstep::codec::decode_world_state(flockstep::codec::encode_world_state(*d.world));
  check(again.world != nullptr);
  check(again.world->state_hash() == d.world->state_hash());
}

/// `body` in a file with the right version and hash.
std::string wrap(std::string body) {
  flockstep::v1::WorldStateFile file;
  file.set_format_version(flockstep::codec::kWorldStateFormatVersion);
  file.set_body_hash(flockstep::codec::fnv1a(body));  // the codec's own body checksum
  file.set_body(std::move(body));
  return file.SerializeAsString();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try_decode(input);
  flockstep::v1::WorldStateFile file;
  std::string body(input);
  if (file.ParseFromArray(data, static_cast<int>(size))) body = file.body();
  flockstep::v1::WorldStateBody parsed;
  const bool sized = size >= 24 && parsed.ParseFromString(body);
  try_decode(wrap(std::move(body)));
  if (sized) {
    double v[3];
    std::memcpy(v, data + size - 24, sizeof v);
    flockstep::v1::WorldSpec& w = *parsed.mutable_scenario();
    w.set_width(v[0]);
    w.set_height(v[1]);
    w.set_grid_cell(v[2]);
    try_decode(wrap(parsed.SerializeAsString()));
  }
  return 0;
}
