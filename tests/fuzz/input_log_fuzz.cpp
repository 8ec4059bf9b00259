// libFuzzer target: codec::InputLogPlayer::open, the reader of input-log recordings (files an
// operator downloads and a browser loads: not trusted). Each input is tried twice:
//   1. as the whole file (magic, framing, checksums first);
//   2. re-framed: the input's records (cut by their length prefixes, after the magic if it has
//      one) get the magic and correct checksums, so mutations reach the record checks (order,
//      header, commands, seek points, the end record).
// Properties beyond "no crash, no sanitizer report": exactly one of player/error is set; an
// accepted log seeks to its middle and end and steps without failing an assertion, and a
// divergence names a tick inside the log.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "codec/checksum.hpp"
#include "codec/input_log.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input as a crash
}

void try_open(std::string_view bytes) {
  std::string error;
  auto p = flockstep::codec::InputLogPlayer::open(bytes, error);
  check((p == nullptr) != error.empty());
  if (!p) return;
  // Long logs of big worlds are fine to accept but too slow to re-simulate for every input.
  if (p->world().size() > 2000 || p->last_tick() - p->first_tick() > 600) return;
  p->seek(p->first_tick() + (p->last_tick() - p->first_tick()) / 2);
  p->seek(p->last_tick());
  check(p->tick() == p->last_tick());
  check(!p->step());
  p->seek(p->first_tick());
  for (const auto& d : p->divergences()) check(d.tick >= p->first_tick() && d.tick <= p->last_tick());
}

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try_open(input);
  std::string_view rest = input;
  if (rest.substr(0, flockstep::codec::kInputLogMagic.size()) == flockstep::codec::kInputLogMagic)
    rest.remove_prefix(flockstep::codec::kInputLogMagic.size());
  std::string framed(flockstep::codec::kInputLogMagic);
  while (rest.size() >= 4) {
    std::uint64_t n = 0;
    for (int k = 0; k < 4; ++k) n |= std::uint64_t{static_cast<unsigned char>(rest[k])} << (8 * k);
    if (n > rest.size() - 4) break;
    const std::string_view record = rest.substr(4, n);
    put_le(framed, n, 4);
    framed.append(record);
    put_le(framed, flockstep::codec::fnv1a(record), 8);  // the codec's record checksum
    rest.remove_prefix(4 + n + std::min<std::size_t>(8, rest.size() - 4 - n));
  }
  try_open(framed);
  return 0;
}
