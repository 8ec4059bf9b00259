#include "net/connection.hpp"

#include <utility>

namespace flockstep::client {

bool Connection::open(const std::string& url, Handlers handlers) {
  reset();
  EmscriptenWebSocketCreateAttributes attrs;
  emscripten_websocket_init_create_attributes(&attrs);
  attrs.url = url.c_str();
  attrs.protocols = nullptr;  // no subprotocol: the server speaks one protocol on /ws
  attrs.createOnMainThread = EM_TRUE;
  const EMSCRIPTEN_WEBSOCKET_T s = emscripten_websocket_new(&attrs);
  if (s <= 0) return false;
  socket_ = s;
  handlers_ = std::move(handlers);
  bytes_received_ = 0;
  bytes_sent_ = 0;
  emscripten_websocket_set_onopen_callback(s, this, &Connection::on_open_cb);
  emscripten_websocket_set_onmessage_callback(s, this, &Connection::on_message_cb);
  emscripten_websocket_set_onerror_callback(s, this, &Connection::on_error_cb);
  emscripten_websocket_set_onclose_callback(s, this, &Connection::on_close_cb);
  return true;
}

bool Connection::send(const std::string& bytes) {
  if (!open_ || socket_ <= 0) return false;
  // The API takes a non-const pointer but only reads (it copies into a JS ArrayBuffer).
  if (emscripten_websocket_send_binary(socket_, const_cast<char*>(bytes.data()),
                                       static_cast<std::uint32_t>(bytes.size())) != EMSCRIPTEN_RESULT_SUCCESS)
    return false;
  bytes_sent_ += bytes.size();
  return true;
}

void Connection::close(std::uint16_t code, const char* reason) {
  if (socket_ > 0) emscripten_websocket_close(socket_, code, reason);
}

void Connection::reset() {
  if (socket_ > 0) {
    // close() starts the closing handshake; delete() detaches every JS handler at once, so no
    // callback reaches this object afterwards. 4000, not 1000: the server ends a player's
    // resume token on a close 1000 (a deliberate leave), and this close is a reconnect (the
    // deliberate one is Session::stop, which closes with 1000 first).
    emscripten_websocket_close(socket_, 4000, "reconnect");
    emscripten_websocket_delete(socket_);
  }
  socket_ = 0;
  open_ = false;
  handlers_ = {};
}

EM_BOOL Connection::on_open_cb(int, const EmscriptenWebSocketOpenEvent*, void* self) {
  auto* c = static_cast<Connection*>(self);
  c->open_ = true;
  if (c->handlers_.on_open) c->handlers_.on_open();
  return EM_TRUE;
}

EM_BOOL Connection::on_message_cb(int, const EmscriptenWebSocketMessageEvent* e, void* self) {
  auto* c = static_cast<Connection*>(self);
  c->bytes_received_ += e->numBytes;
  if (!e->isText && c->handlers_.on_message) c->handlers_.on_message(e->data, e->numBytes);
  return EM_TRUE;
}

EM_BOOL Connection::on_error_cb(int, const EmscriptenWebSocketErrorEvent*, void*) {
  // A close event always follows an error; the reconnect logic runs there.
  return EM_TRUE;
}

EM_BOOL Connection::on_close_cb(int, const EmscriptenWebSocketCloseEvent* e, void* self) {
  auto* c = static_cast<Connection*>(self);
  const std::uint16_t code = e->code;
  const std::string reason = e->reason;
  const bool clean = e->wasClean;
  Handlers h = std::move(c->handlers_);
  // The socket is finished: free it now, then tell the owner (who may open a new one).
  emscripten_websocket_delete(c->socket_);
  c->socket_ = 0;
  c->open_ = false;
  c->handlers_ = {};
  if (h.on_close) h.on_close(code, reason, clean);
  return EM_TRUE;
}

}  // namespace flockstep::client
