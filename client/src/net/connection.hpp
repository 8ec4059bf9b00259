#pragma once
/// \file connection.hpp
/// One browser WebSocket (emscripten/websocket.h, -lwebsocket.js) carrying binary protobuf
/// frames. Callbacks run on the browser's main thread between animation frames; no threads.
/// Reconnect policy lives in Session, not here: a Connection is one attempt.
#include <cstdint>
#include <functional>
#include <string>

#include <emscripten/websocket.h>

namespace flockstep::client {

/// See file comment.
class Connection {
 public:
  /// What the owner hears about. All optional.
  struct Handlers {
    std::function<void()> on_open;
    std::function<void(const std::uint8_t* data, std::uint32_t size)> on_message;
    /// The socket closed (or failed to open): WebSocket close code and reason.
    std::function<void(std::uint16_t code, const std::string& reason, bool was_clean)> on_close;
  };

  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { reset(); }

  /// Start connecting to `url` (ws:// or wss://). Closes any previous socket first.
  bool open(const std::string& url, Handlers handlers);
  /// Send one binary frame; false when not open.
  bool send(const std::string& bytes);
  /// Start a clean close (code 1000 = normal). Handlers stay attached until the close event.
  void close(std::uint16_t code, const char* reason);
  /// Drop the socket and its handlers at once, without waiting for a close event.
  void reset();
  /// True after on_open until on_close.
  bool is_open() const { return open_; }
  /// True while a socket exists (connecting or open).
  bool active() const { return socket_ > 0; }
  /// Bytes of every message received on this connection.
  std::uint64_t bytes_received() const { return bytes_received_; }
  /// Bytes sent on this connection.
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  static EM_BOOL on_open_cb(int, const EmscriptenWebSocketOpenEvent* e, void* self);
  static EM_BOOL on_message_cb(int, const EmscriptenWebSocketMessageEvent* e, void* self);
  static EM_BOOL on_error_cb(int, const EmscriptenWebSocketErrorEvent* e, void* self);
  static EM_BOOL on_close_cb(int, const EmscriptenWebSocketCloseEvent* e, void* self);

  EMSCRIPTEN_WEBSOCKET_T socket_ = 0;
  Handlers handlers_;
  bool open_ = false;
  std::uint64_t bytes_received_ = 0;
  std::uint64_t bytes_sent_ = 0;
};

}  // namespace flockstep::client
