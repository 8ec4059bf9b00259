// libFuzzer target: the WebSocket session path over Beast's in-memory test stream.
//
// The fuzz input is the raw byte stream a client sends after connecting: an HTTP upgrade
// request followed by WebSocket frames. A server-role websocket::stream over
// beast::test::stream, configured exactly like net::WsSession (read_message_max, binary), accepts
// the upgrade and reads messages; every message goes where WsSession sends it: text frames are
// refused, binary ones through codec::decode_client_message with the server's limits, and
// usable commands into a real game::Room (join / inputs / ack, the functions Game::post_join /
// post_inputs / post_ack end in), which is ticked between messages so snapshots are encoded too.
//
// Not covered here (it needs the session's timers and strand): WsSession's token bucket, its
// outbound queue and its close sequencing; those are tested over loopback in
// tests/server/net/abuse_test.cpp. WsSession itself is bound to beast::tcp_stream.
//
// Property beyond the sanitizers: no NaN/Inf ever reaches the world, and a player's craft never
// exceeds its terminal speed (thrust / linear_drag).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include "codec/client_codec.hpp"
#include "config/config.hpp"
#include "game/room.hpp"

namespace {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
using namespace flockstep;

/// Swallows everything the room sends (the fuzzer has no client to deliver it to).
class NullSink : public server::game::ClientSink {
 public:
  void send_snapshot(std::uint64_t, std::shared_ptr<const std::string>, std::string) override {}
  void send_message(std::shared_ptr<const std::string>) override {}
  void close(server::game::CloseReason, std::string) override { closed = true; }
  bool closed = false;
};

sim::Scenario tiny_world() {
  sim::Scenario s;
  s.name = "fuzz";
  s.width = 60;
  s.height = 60;
  s.wrap = true;
  s.seed = 3;
  s.max_agents = 16 + 8;
  sim::GroupSpec g;
  g.name = "boids";
  g.count = 16;
  s.groups = {g};
  return s;
}

void check(bool ok) {
  if (!ok) std::abort();
}

void check_world(const server::game::Room& room) {
  const sim::World& w = room.world();
  const auto craft = room.scenario().player_craft;
  const double max_speed = craft.thrust / craft.linear_drag;
  for (std::int32_t i = 0; i < w.size(); ++i) {
    const sim::AgentView a = w.view(i);
    check(std::isfinite(a.position.x) && std::isfinite(a.position.y));
    check(std::isfinite(a.velocity.x) && std::isfinite(a.velocity.y));
    check(std::isfinite(a.orientation) && std::isfinite(a.angular_velocity));
    if (a.kind == sim::AgentKind::kPlayer) check(std::hypot(a.velocity.x, a.velocity.y) <= max_speed + 1e-6);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const server::config::Config config;  // the server's defaults
  server::game::RoomConfig rc;
  rc.tick_rate_hz = config.tick_rate_hz;
  rc.snapshot_rate_hz = config.snapshot_rate_hz;
  rc.max_players = 4;
  server::game::Room room(rc, tiny_world(), nullptr, nullptr);
  auto sink = std::make_shared<NullSink>();

  boost::asio::io_context ioc;
  beast::test::stream client(ioc), server_end(ioc);
  client.connect(server_end);
  server_end.append(std::string_view(reinterpret_cast<const char*>(data), size));  // what the server reads
  client.close();                                                                  // and then EOF

  websocket::stream<beast::test::stream&> ws(server_end);
  ws.read_message_max(config.max_message_bytes);
  ws.binary(true);
  beast::error_code ec;
  ws.accept(ec);
  if (ec) return 0;

  codec::DecodeLimits limits;
  limits.max_message_bytes = config.max_message_bytes;
  limits.max_input_frames = config.max_input_frames;
  limits.max_name_bytes = config.max_name_bytes;
  bool joined = false;
  bool player = false;
  std::uint32_t violations = 0;
  beast::flat_buffer buffer;
  for (int messages = 0; messages < 256; ++messages) {
    buffer.clear();
    ws.read(buffer, ec);
    if (ec) break;
    if (!ws.got_binary()) break;  // WsSession closes on text frames
    const auto d = buffer.cdata();
    codec::ClientCommand cmd;
    const codec::Result r = codec::decode_client_message(
        std::span<const std::byte>(static_cast<const std::byte*>(d.data()), d.size()), limits, cmd);
    if (!r.usable()) break;
    if (r.status == codec::Status::kClamped && ++violations >= config.max_violations) break;
    if (cmd.type == codec::ClientCommand::Type::kJoin) {
      if (joined) break;
      joined = true;
      player = cmd.join.role == codec::Role::kPlayer;
      room.join(1, sink, cmd.join);
    } else if (cmd.type == codec::ClientCommand::Type::kInput) {
      if (!joined || !player) break;
      room.inputs(1, cmd.inputs);
    } else if (cmd.type == codec::ClientCommand::Type::kAck) {
      if (!joined) break;
      room.ack(1, cmd.ack);
    }
    room.tick();
    check_world(room);
  }
  for (int i = 0; i < 3; ++i) room.tick();
  check_world(room);
  room.leave(1);
  return 0;
}
