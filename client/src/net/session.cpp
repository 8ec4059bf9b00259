#include "net/session.hpp"

#include <utility>

#include <emscripten/emscripten.h>

namespace flockstep::client {

void Session::configure(std::string url, Handlers handlers) {
  url_ = std::move(url);
  handlers_ = std::move(handlers);
}

void Session::start(codec::Role role, std::string display_name, double now_ms, std::string room) {
  stop();
  CoreConfig c;
  c.role = role;
  c.display_name = std::move(display_name);
  c.room = std::move(room);
  c.reconnect = ReconnectPolicy::viewer();
  core_.start(std::move(c), now_ms);
  connect(now_ms);
}

void Session::stop() {
  if (conn_.active()) conn_.close(1000, "leaving");
  bytes_received_total_ += conn_.bytes_received();
  bytes_sent_total_ += conn_.bytes_sent();
  conn_.reset();
  core_.stop();
}

void Session::connect(double) {
  bytes_received_total_ += conn_.bytes_received();
  bytes_sent_total_ += conn_.bytes_sent();
  Connection::Handlers h;
  h.on_open = [this] { send(&core_.opened(emscripten_get_now())); };
  h.on_message = [this](const std::uint8_t* d, std::uint32_t n) { on_message(d, n); };
  h.on_close = [this](std::uint16_t code, const std::string& reason, bool) { on_close(code, reason); };
  if (!conn_.open(url_, std::move(h))) lost("cannot create a WebSocket for " + url_);
}

void Session::send(const std::string* bytes) {
  if (bytes && !bytes->empty()) conn_.send(*bytes);
}

void Session::on_message(const std::uint8_t* data, std::uint32_t size) {
  const double now = emscripten_get_now();
  const ReceiveResult r =
      core_.receive(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size), now);
  send(r.reply);
  switch (r.type) {
    case Received::kWelcome:
      if (handlers_.on_welcome) handlers_.on_welcome(core_.welcome(), r.resumed, r.world_ok, r.detail);
      break;
    case Received::kSnapshot: {
      snapshot_parse_ms_ = snapshot_parse_ms_ * 0.9 + (emscripten_get_now() - now) * 0.1;
      if (!handlers_.on_snapshot) break;
      const v1::ServerMessage& m = core_.message();
      const v1::PlayerSnapshot& p = m.player();  // all zero for a spectator
      SnapshotFrame f;
      f.server_tick = m.delta_snapshot().server_tick();
      f.last_input_sequence = p.last_input_sequence();
      f.input_held_ticks = p.input_held_ticks();
      f.input_slips = p.input_slips();
      f.state_hash = m.delta_snapshot().state_hash();
      f.baseline_tick = m.delta_snapshot().baseline_tick();
      f.agents = &core_.agents();
      f.own = &r.own;
      handlers_.on_snapshot(f, size);
      break;
    }
    case Received::kEvents:
      if (handlers_.on_events) handlers_.on_events(core_.message().events());
      break;
    case Received::kSteeringTrace:
      if (handlers_.on_steering_trace) handlers_.on_steering_trace(core_.message().steering_trace());
      break;
    case Received::kGroupUpdate:
      if (r.applied && handlers_.on_group_update) handlers_.on_group_update(r.group);
      break;
    default: break;
  }
}

void Session::on_close(std::uint16_t code, const std::string& reason) {
  if (core_.state() == LinkState::kIdle) return;  // the user left
  lost(reason.empty() ? "connection closed (WebSocket code " + std::to_string(code) + ")" : reason);
}

void Session::lost(const std::string& reason) {
  // Jitter: clients dropped together do not come back in lockstep.
  const ReconnectDecision d = core_.closed(reason, emscripten_get_now(), static_cast<double>(emscripten_random()));
  if (d.refused) {
    // No such room (or no room left): retrying cannot help; the viewer goes back to the lobby.
    if (handlers_.on_refused) handlers_.on_refused(core_.last_close());
    return;
  }
  if (handlers_.on_lost) handlers_.on_lost(core_.last_close());
}

void Session::update(double now_ms) {
  const UpdateResult u = core_.update(now_ms);
  send(u.send);
  if (u.connect) connect(now_ms);
  if (u.lost) {
    conn_.reset();
    lost(core_.last_close());
  }
}

bool Session::send_inputs() {
  const std::string* bytes = core_.input_message();
  return bytes && conn_.send(*bytes);
}

void Session::set_inspect(std::uint32_t agent) {
  if (const std::string* bytes = core_.inspect_if_changed(agent)) conn_.send(*bytes);
}

void Session::drop(double) {
  if (core_.state() == LinkState::kIdle) return;
  conn_.reset();
  lost("connection dropped by the client (test)");
}

}  // namespace flockstep::client
