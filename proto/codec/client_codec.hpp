#pragma once
/// \file client_codec.hpp
/// Client -> server messages: decoding + validation of untrusted bytes (server side) and encoding
/// (bot, browser). The server never looks at a generated ClientMessage itself: it gets a
/// validated ClientCommand or a Status naming what was wrong.
///
/// Validation order (house style section 5): decode -> range check -> clamp -> reject NaN/Inf.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/status.hpp"

namespace flockstep::codec {

/// Role requested in Join.
enum class Role : std::uint8_t { kPlayer = 1, kSpectator = 2 };

/// The protocol revision this codec speaks (Join.protocol_version, Welcome.protocol_version).
/// 2: the per-player part of a snapshot travels in ServerMessage.player, never merged into the
/// shared body; 3: delta snapshots code aim offsets against a per-snapshot prediction with a
/// per-snapshot order, inline in the motion records when that is cheaper (docs/protocol.md,
/// "Protocol versions"). The server refuses every other value.
inline constexpr std::uint32_t kProtocolVersion = 3;

/// Largest Welcome.ack_every_snapshots: a server offers 1..this (its ack_every_snapshots key), a
/// client clamps what it is told to it. Pacing allows max_unacked + ack_every - 1 snapshots
/// outstanding, which must stay inside the 32 frames both ends keep. [Limit: 1..24]
inline constexpr std::uint32_t kMaxAckEverySnapshots = 16;

/// Bytes in a resume token (random, issued by the server in Welcome).
inline constexpr std::size_t kResumeTokenBytes = 16;

/// Limits the decoder enforces; the server fills them from its configuration.
struct DecodeLimits {
  std::uint32_t max_message_bytes = 4096;  ///< whole frame, bytes. [Limit: >= 64]
  std::uint32_t max_input_frames = 64;     ///< InputFrames per Input message. [Limit: 1..1024]
  std::uint32_t max_name_bytes = 32;       ///< display name after trimming, bytes of UTF-8. [Limit: 1..256]
  double range_tolerance = 1e-9;           ///< values this far outside their range are clamped silently
};

/// A validated Join.
struct JoinRequest {
  Role role = Role::kSpectator;
  std::string display_name;      ///< valid UTF-8, no control characters, trimmed, 1..max_name_bytes
  std::string resume_token;      ///< empty or exactly kResumeTokenBytes raw bytes
  bool plain_snapshots = false;  ///< plain Snapshot messages instead of the delta stream (Join field 5)
  std::string room = {};         ///< room (scenario) name, <= kMaxRoomNameBytes; empty = the default room
  /// Deltas against the newest delivered snapshot from the second one on, before any Ack (Join field 7).
  bool delivered_baselines = false;
};
/// Longest Join.room accepted.
inline constexpr std::size_t kMaxRoomNameBytes = 64;

/// A validated input frame: finite, turn in [-1, 1], throttle in [0, 1], sequence >= 1.
struct InputFrame {
  std::uint32_t sequence = 0;
  double turn = 0;      ///< [-1, 1], +1 = turn left (CCW)
  double throttle = 0;  ///< [0, 1]
  friend bool operator==(const InputFrame&, const InputFrame&) = default;
};

/// Largest side of a view rectangle a client may send, m; larger ones are clamped (not a
/// violation: a client zoomed out over a huge world is legitimate).
inline constexpr double kMaxViewSideM = 100000;

/// A validated view rectangle (Ack.view): finite, min <= max, each side <= kMaxViewSideM.
struct ViewRect {
  double min_x = 0, min_y = 0, max_x = 0, max_y = 0;  ///< m
  friend bool operator==(const ViewRect&, const ViewRect&) = default;
};

/// A validated Ack.
struct AckRequest {
  std::uint64_t snapshot_tick = 0;  ///< newest decoded DeltaSnapshot; 0 = "send a full one"
  bool has_view = false;            ///< `view` was sent (replaces the previous one)
  ViewRect view;
};

/// One decoded client message.
struct ClientCommand {
  enum class Type : std::uint8_t { kJoin, kInput, kPing, kPong, kClose, kAck, kInspect };
  Type type = Type::kPing;
  JoinRequest join;                ///< kJoin
  std::vector<InputFrame> inputs;  ///< kInput: strictly increasing sequences, oldest first
  std::uint64_t time_us = 0;       ///< kPing: sender time; kPong: echoed server time
  std::uint32_t close_code = 0;    ///< kClose: the client's Close.code (informational)
  AckRequest ack;                  ///< kAck
  std::uint32_t inspect_id = 0;    ///< kInspect: the agent to trace (any value; 0 = stop)
};

/// Decode and validate one client frame. On a usable() result `out` holds the command (values
/// clamped when the status is kClamped); otherwise `out` is unspecified and the caller closes
/// the connection with the returned detail as reason.
Result decode_client_message(std::span<const std::byte> bytes, const DecodeLimits& limits, ClientCommand& out);

/// Validate a display name: UTF-8, no control characters, trimmed of ASCII spaces, non-empty,
/// at most max_bytes. Writes the trimmed name to `out`.
Status validate_display_name(std::string_view name, std::uint32_t max_bytes, std::string& out);

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view s);

/// Encode a Join (clients, bot). Appends nothing on failure; returns false if serialisation fails.
bool encode_join(const JoinRequest& join, std::string& out);
/// Encode an Input carrying `frames` (clients, bot).
bool encode_input(std::span<const InputFrame> frames, std::string& out);
/// Encode a client Ping with the sender's clock in microseconds.
bool encode_ping(std::uint64_t time_us, std::string& out);
/// Encode a client Pong answering a server Ping.
bool encode_pong(std::uint64_t echo_time_us, std::string& out);
/// Encode an Ack of snapshot `snapshot_tick`, with a view rectangle when `view` is not null.
bool encode_ack(std::uint64_t snapshot_tick, const ViewRect* view, std::string& out);
/// Encode an Inspect of agent `agent_id` (0 = stop inspecting).
bool encode_inspect(std::uint32_t agent_id, std::string& out);

}  // namespace flockstep::codec
