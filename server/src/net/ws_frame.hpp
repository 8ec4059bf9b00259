#pragma once
/// \file ws_frame.hpp
/// RFC 6455 (section 5.2) server-to-client frames, built once and written to many sockets.
///
/// Written by hand because Beast has no API to frame a message once for many sockets: its
/// websocket::stream frames every write itself, per stream. A server frame is unmasked, so the
/// bytes of a binary message are the same for every client, and a body shared by thousands of
/// spectators can be framed once and handed to every socket as is (as uWebSockets' publish
/// does). Only the simplest frame is built: FIN set, opcode binary, no RSV bits (no extension:
/// the sessions that use these frames run without permessage-deflate), no mask.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace flockstep::server::net {

/// Longest server frame header: 2 bytes + a 64-bit extended payload length.
inline constexpr std::size_t kMaxFrameHeaderBytes = 10;

/// A frame header in place (no allocation): `size` bytes of `bytes` are used.
struct FrameHeader {
  std::array<char, kMaxFrameHeaderBytes> bytes{};
  std::uint8_t size = 0;
  std::string_view view() const { return {bytes.data(), size}; }
};

/// The header of one unfragmented, unmasked binary frame carrying `payload_bytes`: FIN +
/// opcode 0x2, then the length in 7 bits (< 126), 16 bits (< 65,536) or 64 bits, network order.
FrameHeader binary_frame_header(std::uint64_t payload_bytes);

/// One complete binary frame (header + `payload`), to be written unchanged to every socket.
std::shared_ptr<const std::string> make_binary_frame(std::string_view payload);

}  // namespace flockstep::server::net
