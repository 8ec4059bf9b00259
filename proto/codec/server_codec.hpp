#pragma once
/// \file server_codec.hpp
/// Server -> client messages: sim types -> generated protobuf (server) and back (clients, bot,
/// tests). The decode direction validates too (finite numbers, known enums, sim::validate), so a
/// client can rebuild a World from a Welcome without trusting the bytes blindly.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/client_codec.hpp"
#include "codec/status.hpp"
#include "flockstep/sim/world.hpp"
#include "flockstep/v1/messages.pb.h"

namespace flockstep::codec {

// ---- enums ----
v1::AgentKind to_wire(sim::AgentKind k);
bool from_wire(v1::AgentKind k, sim::AgentKind& out);
v1::BehaviourState to_wire(sim::BehaviorState s);
bool from_wire(v1::BehaviourState s, sim::BehaviorState& out);

// ---- world description (Welcome.world) ----
/// Every field of the scenario, groups with their full parameter table.
void encode_world_spec(const sim::Scenario& scenario, v1::WorldSpec& out);
/// Rebuild a scenario; rejects non-finite numbers, unknown enums/names and anything
/// sim::validate() refuses. Fields absent on the wire keep the values already in `out`.
Result decode_world_spec(const v1::WorldSpec& in, sim::Scenario& out);

// ---- agents and snapshots ----
/// Every field of an AgentView.
void encode_agent(const sim::AgentView& view, v1::Agent& out);
/// Inverse of encode_agent; rejects non-finite numbers and unknown enums.
Result decode_agent(const v1::Agent& in, sim::AgentView& out);

/// Encodes the shared body of a snapshot once per snapshot tick. Keeps one message alive between
/// calls so the repeated Agent objects are reused (no allocation in a steady world).
class SnapshotEncoder {
 public:
  /// Serialized ServerMessage{snapshot{server_tick, agents, state_hash}}; valid until the next call.
  const std::string& encode_body(const sim::World& world);

 private:
  v1::ServerMessage message_;
  std::string bytes_;
};

/// The per-player bytes appended to a shared body: ServerMessage{snapshot{last_input_sequence}}.
/// Concatenated protobuf encodings merge, so body + suffix decodes as one Snapshot.
void encode_snapshot_suffix(std::uint32_t last_input_sequence, std::string& out);

/// Client side: the agents of a snapshot as AgentViews.
Result decode_snapshot_agents(const v1::Snapshot& in, std::vector<sim::AgentView>& out);

// ---- the other server messages ----
/// Per-connection data of a Welcome.
struct WelcomeInfo {
  std::uint32_t player_id = 0;
  sim::AgentId entity;            ///< invalid for spectators
  Role role = Role::kSpectator;
  std::uint32_t tick_rate_hz = 60;
  std::uint32_t snapshot_rate_hz = 20;
  std::uint64_t server_tick = 0;
  std::string resume_token;       ///< raw bytes, players only
  std::uint32_t resume_window_ms = 0;
  std::uint32_t max_input_frames = 64;
};
/// Serialized ServerMessage{welcome}.
void encode_welcome(const WelcomeInfo& info, const sim::Scenario& scenario, std::string& out);

/// Append a capture (sim Event kCapture) of player `player_id` to an Events message.
void add_capture(v1::Events& events, std::uint32_t player_id, const sim::Event& e);
/// Append a respawn (sim Event kRespawn).
void add_respawn(v1::Events& events, std::uint32_t player_id, const sim::Event& e);

/// Serialized ServerMessage{close{code, reason}} (reason truncated to 120 bytes).
void encode_close(v1::Close::Code code, std::string_view reason, std::string& out);
/// Serialized ServerMessage{pong}.
void encode_server_pong(std::uint64_t echo_time_us, std::uint64_t server_tick, std::string& out);
/// Serialized ServerMessage{ping}.
void encode_server_ping(std::uint64_t time_us, std::string& out);
/// Serialized ServerMessage{events}.
void encode_events(const v1::Events& events, std::string& out);

/// Parse a server frame (clients, bot). Body + suffix concatenations are accepted (merged).
Result decode_server_message(std::span<const std::byte> bytes, v1::ServerMessage& out);

}  // namespace flockstep::codec
