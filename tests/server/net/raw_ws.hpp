#pragma once
// Raw TCP / WebSocket helpers for abuse tests (POSIX sockets, no Beast): they send what no
// well-behaved client library would (bad frames, half handshakes, unmasked frames, lying length
// headers) and read the server's answer byte by byte. Header-only, test code.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace flockstep::server::net::raw {

using Clock = std::chrono::steady_clock;

/// Blocking TCP connect to 127.0.0.1:port; -1 on failure. `receive_buffer` > 0 sets SO_RCVBUF
/// before connecting (so the advertised window stays small too).
inline int connect_tcp(std::uint16_t port, int receive_buffer = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (receive_buffer > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/// Write everything (blocking); false on error.
inline bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// Read what arrives within `timeout` into `out`; returns false once the peer closed (EOF or reset).
inline bool read_some(int fd, std::string& out, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return true;  // nothing yet
  char buf[8192];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n <= 0) return false;
  out.append(buf, static_cast<std::size_t>(n));
  return true;
}

/// Read until the peer closes or the timeout passes; true if it closed.
inline bool wait_eof(int fd, std::chrono::milliseconds timeout, std::string* seen = nullptr) {
  const auto deadline = Clock::now() + timeout;
  std::string sink;
  std::string& out = seen ? *seen : sink;
  while (Clock::now() < deadline) {
    if (!read_some(fd, out, std::chrono::milliseconds(20))) return true;
    if (!seen && sink.size() > (1u << 20)) sink.clear();
  }
  return false;
}

/// A WebSocket upgrade request for `path` (extra header lines end in \r\n).
inline std::string upgrade_request(std::string_view path = "/ws", std::string_view extra_headers = {}) {
  std::string r = "GET ";
  r += path;
  r += " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
  r += extra_headers;
  r += "\r\n";
  return r;
}

/// Send an HTTP request and read the status line's code (0 if none arrived in time). Leaves any
/// bytes after the response head in `rest`.
inline int http_exchange(int fd, std::string_view request, std::string* rest = nullptr,
                         std::chrono::milliseconds timeout = std::chrono::seconds(3)) {
  if (!send_all(fd, request)) return 0;
  std::string got;
  const auto deadline = Clock::now() + timeout;
  while (got.find("\r\n\r\n") == std::string::npos && Clock::now() < deadline)
    if (!read_some(fd, got, std::chrono::milliseconds(20))) break;
  if (got.size() < 12 || got.compare(0, 5, "HTTP/") != 0) return 0;
  const auto end = got.find("\r\n\r\n");
  if (rest && end != std::string::npos) *rest = got.substr(end + 4);
  return std::atoi(got.substr(9, 3).c_str());
}

/// One client WebSocket frame. `masked` = false breaks RFC 6455 (clients must mask).
inline std::string frame(std::uint8_t opcode, std::string_view payload, bool fin = true, bool masked = true,
                         std::uint8_t rsv = 0, std::optional<std::uint64_t> claimed_length = std::nullopt) {
  std::string f;
  f.push_back(static_cast<char>((fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0F)));
  const std::uint64_t len = claimed_length.value_or(payload.size());
  const char mask_bit = masked ? static_cast<char>(0x80) : 0;
  if (len < 126) {
    f.push_back(static_cast<char>(mask_bit | static_cast<char>(len)));
  } else if (len <= 0xFFFF) {
    f.push_back(static_cast<char>(mask_bit | 126));
    f.push_back(static_cast<char>((len >> 8) & 0xFF));
    f.push_back(static_cast<char>(len & 0xFF));
  } else {
    f.push_back(static_cast<char>(mask_bit | 127));
    for (int i = 7; i >= 0; --i) f.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
  }
  const char key[4] = {0x12, 0x34, 0x56, 0x78};
  if (masked) f.append(key, 4);
  for (std::size_t i = 0; i < payload.size(); ++i)
    f.push_back(masked ? static_cast<char>(payload[i] ^ key[i % 4]) : payload[i]);
  return f;
}

/// A close frame carrying `code` (any value, valid or not).
inline std::string close_frame(std::uint16_t code) {
  const char p[2] = {static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
  return frame(0x8, std::string_view(p, 2));
}

/// A server frame parsed from a byte stream.
struct ServerFrame {
  std::uint8_t opcode = 0;
  std::string payload;
};

/// Parse one unmasked server frame from the front of `buf` (removing it); nullopt if incomplete.
inline std::optional<ServerFrame> pop_frame(std::string& buf) {
  if (buf.size() < 2) return std::nullopt;
  const auto b0 = static_cast<std::uint8_t>(buf[0]), b1 = static_cast<std::uint8_t>(buf[1]);
  std::size_t pos = 2;
  std::uint64_t len = b1 & 0x7F;
  if (len == 126) {
    if (buf.size() < 4) return std::nullopt;
    len = (std::uint64_t{static_cast<std::uint8_t>(buf[2])} << 8) | static_cast<std::uint8_t>(buf[3]);
    pos = 4;
  } else if (len == 127) {
    if (buf.size() < 10) return std::nullopt;
    len = 0;
    for (int i = 0; i < 8; ++i) len = (len << 8) | static_cast<std::uint8_t>(buf[2 + static_cast<std::size_t>(i)]);
    pos = 10;
  }
  if (buf.size() < pos + len) return std::nullopt;
  ServerFrame f{static_cast<std::uint8_t>(b0 & 0x0F), buf.substr(pos, static_cast<std::size_t>(len))};
  buf.erase(0, pos + static_cast<std::size_t>(len));
  return f;
}

/// Read frames until the server's close frame (returns its code) or EOF / timeout (returns 0).
/// `binary_seen` counts the binary messages that came before it.
inline int read_close_code(int fd, std::string& buf, std::chrono::milliseconds timeout, int* binary_seen = nullptr) {
  const auto deadline = Clock::now() + timeout;
  bool open = true;
  while (Clock::now() < deadline) {
    while (auto f = pop_frame(buf)) {
      if (f->opcode == 0x8)
        return f->payload.size() >= 2
                   ? (static_cast<std::uint8_t>(f->payload[0]) << 8) | static_cast<std::uint8_t>(f->payload[1])
                   : 1005;
      if (f->opcode == 0x2 && binary_seen) ++*binary_seen;
    }
    if (!open) return 0;
    open = read_some(fd, buf, std::chrono::milliseconds(20));
  }
  return 0;
}

/// Owns a socket fd.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  /// Drop the connection with a TCP reset (no FIN, no WebSocket close): a vanished client.
  void abort() {
    if (fd_ < 0) return;
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    reset();
  }

 private:
  int fd_;
};

}  // namespace flockstep::server::net::raw
