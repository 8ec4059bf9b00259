#include "net/ws_frame.hpp"

namespace flockstep::server::net {

FrameHeader binary_frame_header(std::uint64_t payload_bytes) {
  FrameHeader h;
  h.bytes[0] = static_cast<char>(0x82);  // FIN | opcode 2 (binary)
  if (payload_bytes < 126) {
    h.bytes[1] = static_cast<char>(payload_bytes);  // MASK bit clear: server frames are unmasked
    h.size = 2;
  } else if (payload_bytes < 65536) {
    h.bytes[1] = 126;
    h.bytes[2] = static_cast<char>(payload_bytes >> 8);
    h.bytes[3] = static_cast<char>(payload_bytes);
    h.size = 4;
  } else {
    h.bytes[1] = 127;
    for (int i = 0; i < 8; ++i)
      h.bytes[static_cast<std::size_t>(2 + i)] = static_cast<char>(payload_bytes >> (56 - 8 * i));
    h.size = 10;
  }
  return h;
}

std::shared_ptr<const std::string> make_binary_frame(std::string_view payload) {
  const FrameHeader h = binary_frame_header(payload.size());
  auto frame = std::make_shared<std::string>();
  frame->reserve(h.size + payload.size());
  frame->append(h.view());
  frame->append(payload);
  return frame;
}

}  // namespace flockstep::server::net
