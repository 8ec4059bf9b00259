#pragma once
/// \file ws_client.hpp
/// Small blocking clients for tests and tools: a WebSocket client with timeouts (a read loop runs
/// in the background of its own io_context, so receive() never cancels a read and the stream
/// stays usable), and one-shot HTTP GET. No Beast in this header (pimpl): tests that include it
/// compile fast.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace flockstep::bot {

/// Outcome of WsClient::receive.
enum class Receive : std::uint8_t { kMessage, kTimeout, kClosed };

/// Blocking WebSocket client (binary frames). Not thread-safe; one user thread.
class WsClient {
 public:
  WsClient();
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  /// TCP connect + WebSocket handshake on `target` within `timeout`. False on failure (error()).
  bool connect(const std::string& host, std::uint16_t port, const std::string& target = "/ws",
               std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// Send one binary (or text) message; false on failure.
  bool send(std::string_view bytes, bool text = false);
  /// Send raw bytes on the TCP socket, bypassing WebSocket framing (abuse tests).
  bool send_raw(std::string_view bytes);
  /// Wait up to `timeout` for the next message.
  Receive receive(std::string& out, std::chrono::milliseconds timeout);
  /// Drain messages until the connection closes or `timeout` passes; true if it closed.
  bool wait_closed(std::chrono::milliseconds timeout);
  /// Start a normal close (1000) and wait briefly for the handshake.
  void close();
  /// True once the server closed the connection (close frame or TCP).
  bool closed() const;
  /// WebSocket close code sent by the server (0 if none / not closed).
  std::uint16_t close_code() const;
  /// WebSocket close reason text sent by the server.
  std::string close_reason() const;
  /// Last error text.
  std::string error() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Response of http_get.
struct HttpResponse {
  int status = 0;  ///< 0 = no response (connection failed)
  std::string body;
  std::string content_type;
  std::string error;
};

/// One GET (or other method) with Connection: close. `target` is sent exactly as given, so
/// tests can send raw "/../etc/passwd" or "/%2e%2e/" targets.
HttpResponse http_request(const std::string& host, std::uint16_t port, const std::string& method,
                          const std::string& target, std::chrono::milliseconds timeout = std::chrono::seconds(5));
inline HttpResponse http_get(const std::string& host, std::uint16_t port, const std::string& target,
                             std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  return http_request(host, port, "GET", target, timeout);
}

}  // namespace flockstep::bot
