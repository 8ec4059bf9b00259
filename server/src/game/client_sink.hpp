#pragma once
/// \file client_sink.hpp
/// How the game talks to a connection without knowing about sockets: the game thread calls these
/// methods and the implementation (net::WsSession) posts the work onto the connection's strand,
/// so the tick never waits for I/O. The room holds sinks as weak_ptr: a vanished connection is
/// simply skipped.
#include <cstdint>
#include <memory>
#include <string>

namespace flockstep::server::game {

/// Identifies one WebSocket connection for its whole life (never reused within a process).
using ConnectionId = std::uint64_t;

/// Why a connection is closed by the server; net maps it to a WebSocket close code and a
/// ServerMessage.close code.
enum class CloseReason : std::uint8_t {
  kNormal,       ///< client asked / left                         1000
  kShutdown,     ///< server going away                           1001
  kMalformed,    ///< undecodable or invalid message              1007
  kProtocol,     ///< message not allowed now (e.g. Input before Join), text frame  1008 / 1003
  kTooBig,       ///< message over max_message_bytes              1009
  kViolations,   ///< too many out-of-range values                1008
  kTooSlow,      ///< not reading fast enough                     1008
  kRoomFull,     ///< no player slot                              1013
  kTimeout,      ///< no Join in time                             1008
  kBadResume,    ///< unknown/expired/in-use resume token         1008
  kUnknownRoom,  ///< Join.room: no such scenario, or max_rooms reached  1008
};

/// Short stable name ("too_slow", ...), for logs.
const char* to_string(CloseReason r);

/// What a sink holds queued for its client, for operators (admin API): a client whose link
/// cannot take the stream shows here before the lag limit drops it.
struct SendQueue {
  std::uint64_t messages = 0;    ///< queued, the batch being written included
  std::uint64_t bytes = 0;       ///< those messages' frames, bytes
  std::uint64_t peak_bytes = 0;  ///< the most `bytes` has been since the connection opened
};

/// Outbound side of a connection, callable from any thread.
class ClientSink {
 public:
  virtual ~ClientSink() = default;
  /// The snapshot of server tick `tick`: `body` is shared by every client of this snapshot
  /// tick, `suffix` is this client's few bytes (may be empty). Latest wins: an unsent older
  /// snapshot may be replaced.
  virtual void send_snapshot(std::uint64_t tick, std::shared_ptr<const std::string> body, std::string suffix) = 0;
  /// A snapshot with no suffix, shared by many clients (spectators of one view): `frame` is
  /// `body` as one complete WebSocket frame (net/ws_frame.hpp), built once for all of them, that
  /// a sink writing its own frames sends unchanged. Same rules as send_snapshot; by default it
  /// is send_snapshot(tick, body, {}).
  virtual void send_frame(std::uint64_t tick, std::shared_ptr<const std::string> body,
                          std::shared_ptr<const std::string> frame) {
    (void)frame;
    send_snapshot(tick, std::move(body), {});
  }
  /// The newest snapshot tick this sink has handed in full to an ordered, reliable transport
  /// (TCP: written to the socket), 0 = none or unknown. Everything written before it reaches
  /// the client before anything written after it, so a client that decodes deltas already
  /// holds that snapshot's frame when the next one arrives (SnapshotStreams: the delivered
  /// baseline). A sink that cannot tell returns 0. Any thread.
  virtual std::uint64_t delivered_snapshot() const { return 0; }
  /// What is queued now (any thread; a sink without a queue of its own reports zeros).
  virtual SendQueue send_queue() const { return {}; }
  /// Any other message (welcome, events, pong): queued reliably, in order.
  virtual void send_message(std::shared_ptr<const std::string> message) = 0;
  /// Close the connection with a reason (sent as ServerMessage.close, then the WebSocket close).
  virtual void close(CloseReason reason, std::string detail) = 0;
};

}  // namespace flockstep::server::game
