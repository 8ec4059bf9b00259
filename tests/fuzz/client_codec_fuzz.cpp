// libFuzzer target: the codec's decode-and-validate path for untrusted client bytes
// (codec::decode_client_message), the only validator between the network and the game.
// Properties checked on every input, beyond "no crash, no sanitizer report":
//   - a usable result never carries NaN/Inf or out-of-range controls, sequences are >= 1 and
//     strictly increasing, names are valid UTF-8 within the limit, tokens have the right size;
//   - decoding is deterministic, and re-encoding a usable Join/Input decodes to the same command.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "codec/client_codec.hpp"

namespace {

using flockstep::codec::ClientCommand;

void check(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input as a crash
}

void check_valid(const ClientCommand& c, const flockstep::codec::DecodeLimits& limits) {
  using Type = ClientCommand::Type;
  if (c.type == Type::kJoin) {
    check(!c.join.display_name.empty() && c.join.display_name.size() <= limits.max_name_bytes);
    check(flockstep::codec::is_valid_utf8(c.join.display_name));
    check(c.join.resume_token.empty() || c.join.resume_token.size() == flockstep::codec::kResumeTokenBytes);
  }
  if (c.type == Type::kInput) {
    check(!c.inputs.empty() && c.inputs.size() <= limits.max_input_frames);
    std::uint32_t prev = 0;
    for (const auto& f : c.inputs) {
      check(f.sequence > prev);
      prev = f.sequence;
      check(std::isfinite(f.turn) && f.turn >= -1 && f.turn <= 1);
      check(std::isfinite(f.throttle) && f.throttle >= 0 && f.throttle <= 1);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  flockstep::codec::DecodeLimits limits;  // the server's defaults
  ClientCommand a, b;
  const auto ra = flockstep::codec::decode_client_message(bytes, limits, a);
  const auto rb = flockstep::codec::decode_client_message(bytes, limits, b);
  check(ra.status == rb.status);
  if (!ra.usable()) return 0;
  check_valid(a, limits);
  // Round trip: what the server accepted re-encodes to something that decodes the same way.
  std::string again;
  if (a.type == ClientCommand::Type::kJoin) flockstep::codec::encode_join(a.join, again);
  else if (a.type == ClientCommand::Type::kInput) flockstep::codec::encode_input(a.inputs, again);
  else return 0;
  ClientCommand c;
  const auto rc = flockstep::codec::decode_client_message(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(again.data()), again.size()), limits, c);
  check(rc.ok());
  check(c.type == a.type);
  if (a.type == ClientCommand::Type::kInput) check(c.inputs == a.inputs);
  else check(c.join.display_name == a.join.display_name && c.join.role == a.join.role);
  return 0;
}
