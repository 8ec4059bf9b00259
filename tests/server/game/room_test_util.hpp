#pragma once
// The room without sockets, shared by room_test.cpp and room_restore_test.cpp: FakeSink decodes
// what the room sends like a client does; worlds, joins and config the tests build rooms from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codec/server_codec.hpp"
#include "flockstep/v1/room_state.pb.h"
#include "game/room.hpp"
#include "game/room_state.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::game::room_test {

/// Records what the room sends to one connection.
class FakeSink : public ClientSink {
 public:
  void send_snapshot(std::uint64_t, std::shared_ptr<const std::string> body, std::string suffix) override {
    bodies.push_back(body);
    v1::ServerMessage m;
    const std::string all = *body + suffix;
    // The player part (ServerMessage.player) comes beside the shared DeltaSnapshot body.
    EXPECT_TRUE(codec::decode_server_message({reinterpret_cast<const std::byte*>(all.data()), all.size()}, m).ok());
    EXPECT_TRUE(m.has_delta_snapshot());
    const v1::DeltaSnapshot& d = m.delta_snapshot();
    if (!configured) {
      sim::Scenario sc;
      ASSERT_NE(welcome(), nullptr);
      ASSERT_TRUE(codec::decode_world_spec(welcome()->world(), sc).ok());
      receiver.configure(sc);
      configured = true;
    }
    const codec::Result r = receiver.receive(m);
    EXPECT_TRUE(r.ok()) << r.detail;
    baselines.push_back(d.baseline_tick());
    players.push_back(m.player());
    v1::Snapshot plain;
    plain.set_server_tick(d.server_tick());
    plain.set_state_hash(d.state_hash());
    for (const sim::AgentView& a : receiver.agents()) codec::encode_agent(a, *plain.add_agents());
    snapshots.push_back(plain);
    pending_ack = receiver.ack_tick();
  }
  /// Acknowledge the newest decoded snapshot, as a client does (after the tick, never inside it).
  void ack(Room& room, ConnectionId conn) {
    if (pending_ack != 0) room.ack(conn, codec::AckRequest{pending_ack, false, {}});
    pending_ack = 0;
  }
  void send_message(std::shared_ptr<const std::string> message) override {
    v1::ServerMessage m;
    EXPECT_TRUE(m.ParseFromString(*message));
    messages.push_back(m);
  }
  void close(CloseReason reason, std::string detail) override {
    closed = true;
    close_reason = reason;
    close_detail = std::move(detail);
  }
  const v1::Welcome* welcome() const {
    for (const auto& m : messages)
      if (m.has_welcome()) return &m.welcome();
    return nullptr;
  }
  int count_captures() const {
    int n = 0;
    for (const auto& m : messages)
      if (m.has_events()) n += m.events().captures_size();
    return n;
  }
  int count_respawns() const {
    int n = 0;
    for (const auto& m : messages)
      if (m.has_events()) n += m.events().respawns_size();
    return n;
  }

  std::vector<std::shared_ptr<const std::string>> bodies;
  std::vector<v1::Snapshot> snapshots;
  std::vector<v1::PlayerSnapshot> players;  // ServerMessage.player of each (empty for spectators)
  std::vector<std::uint64_t> baselines;     // DeltaSnapshot.baseline_tick of each (0 = full)
  codec::SnapshotReceiver receiver;
  bool configured = false;
  std::uint64_t pending_ack = 0;
  std::vector<v1::ServerMessage> messages;
  bool closed = false;
  CloseReason close_reason = CloseReason::kNormal;
  std::string close_detail;
};

inline codec::JoinRequest player(const std::string& name = "p", const std::string& token = {}) {
  return codec::JoinRequest{codec::Role::kPlayer, name, token};
}
inline codec::JoinRequest spectator() { return codec::JoinRequest{codec::Role::kSpectator, "s", {}}; }

/// Open wrapped field with a few boids (and nothing that hunts).
inline sim::Scenario calm_world() {
  sim::Scenario s;
  s.name = "calm";
  s.width = 100;
  s.height = 100;
  s.wrap = true;
  s.seed = 11;
  s.max_agents = 128;
  sim::GroupSpec g;
  g.name = "boids";
  g.count = 10;
  s.groups = {g};
  return s;
}

inline RoomConfig config(std::uint32_t max_players = 8) {
  RoomConfig c;
  c.max_players = max_players;
  // One resume-token key for every room of a test, as rooms on one state folder share it: a
  // restored room must recognise the tokens of the room that saved it.
  c.token_key = std::string(32, 'k');
  return c;
}

inline const v1::Agent* find_agent(const v1::Snapshot& s, std::uint32_t id) {
  for (const auto& a : s.agents())
    if (a.id() == id) return &a;
  return nullptr;
}

/// A bounded box with one fast chaser and nothing else.
inline sim::Scenario hunt_world() {
  sim::Scenario s;
  s.name = "hunt";
  s.width = 60;
  s.height = 60;
  s.wrap = false;
  s.seed = 5;
  s.max_agents = 16;
  s.respawn_protection_s = 0.5;
  sim::GroupSpec g;
  g.name = "chaser";
  g.kind = sim::AgentKind::kPursuer;
  g.technique = sim::Technique::kChase;
  g.count = 1;
  g.max_speed = 9;
  g.capture_radius = 1.0;
  s.groups = {g};
  return s;
}

}  // namespace flockstep::server::game::room_test
