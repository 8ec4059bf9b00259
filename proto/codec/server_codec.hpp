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
#include "codec/snapshot_codec.hpp"
#include "codec/status.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"
#include "flockstep/sim/trace.hpp"
#include "flockstep/v1/messages.pb.h"

namespace flockstep::sim {
class World;  // encode_body reads one; the codec needs only its interface in the .cpp
}  // namespace flockstep::sim

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
/// One group with its full parameter table (WorldSpec.groups[i], GroupUpdate.spec).
void encode_group(const sim::GroupSpec& group, v1::AgentGroup& out);
/// Inverse of encode_group (starts from a default GroupSpec); `where` prefixes error details.
/// Checks finiteness and names only: sim::validate() of the whole scenario is the caller's.
Result decode_group(const v1::AgentGroup& in, const std::string& where, sim::GroupSpec& out);

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

/// Where a player's input stream stands at a snapshot: the newest input applied, and how many
/// ticks the server has simulated since then holding it because no newer one had arrived
/// (PlayerSnapshot.input_held_ticks). The client steps its prediction for that input as many more
/// times before comparing, so a late input never reads as a misprediction.
struct InputProgress {
  std::uint32_t last_sequence = 0;  ///< newest InputFrame.sequence applied; 0 = none yet
  std::uint32_t held_ticks = 0;     ///< ticks since it was applied (0 = the state is right after it)
  std::uint32_t slips = 0;          ///< held ticks + dropped frames so far (wrapping counter)
};

/// The per-player bytes appended to a shared plain body: ServerMessage{player{last_input_sequence,
/// input_held_ticks, input_slips}} (protocol 2). Body and suffix set different fields of
/// ServerMessage, so any protobuf decoder reads both without merging an embedded message.
void encode_snapshot_suffix(InputProgress input, std::string& out);

/// Client side: the agents of a snapshot as AgentViews.
Result decode_snapshot_agents(const v1::Snapshot& in, std::vector<sim::AgentView>& out);

// ---- quantised delta snapshots (layout in snapshot_codec.hpp, docs/protocol.md) ----
/// Serialized ServerMessage{delta_snapshot{server_tick, baseline_tick, state_hash, agents,
/// agent_count}}: the part shared by every client that needs the same agent records.
void encode_delta_body(std::uint64_t server_tick, std::uint64_t baseline_tick, std::uint64_t state_hash,
                       std::string_view agents, std::uint32_t agent_count, std::string& out);
/// The per-player bytes appended to a delta body: ServerMessage{player{last_input_sequence,
/// input_held_ticks, input_slips, own}} with the craft's exact state (null = craft not in the
/// world). Spectators get no suffix at all.
void encode_delta_suffix(InputProgress input, const sim::AgentView* own, std::string& out);

/// Receiver side of the delta snapshot stream (viewer, bot, tests): keeps the frames of the last
/// kHistory decoded snapshots, decodes each DeltaSnapshot against its baseline, and turns the
/// result into AgentViews with the own craft's exact state.
class SnapshotReceiver {
 public:
  /// Frames kept: the newest kHistory decoded ones. As deep as the server's history
  /// (game::SnapshotStreams::kHistory), so any baseline it may still use is here: see
  /// docs/protocol.md, "Baselines".
  static constexpr std::size_t kHistory = 32;

  /// World geometry (from Welcome.world) and forget every frame.
  void configure(const sim::Scenario& scenario);
  /// Forget every frame (new connection): the next snapshot must be a full one.
  void reset();
  /// Decode one snapshot. kOk: agents()/tick() describe it. kEmpty: its baseline is not here
  /// (nothing changed; acknowledge ack_tick() == 0 to get a full snapshot). Otherwise malformed.
  /// Snapshots not newer than the newest decoded one are ignored: kOk with tick() unchanged, or
  /// kEmpty while a full snapshot is awaited (ack 0 stays).
  /// `player`: ServerMessage.player of the same frame, whose `own` (a player's craft, exact)
  /// replaces the quantised entry; null for a body without it (spectators, replays).
  Result receive(const v1::DeltaSnapshot& in, const v1::PlayerSnapshot* player = nullptr);
  /// A whole decoded frame: its delta_snapshot and, when present, its player part.
  Result receive(const v1::ServerMessage& frame) {
    return receive(frame.delta_snapshot(), frame.has_player() ? &frame.player() : nullptr);
  }
  /// Agents of the newest decoded snapshot at its tick, sorted by id; the own craft exact.
  const std::vector<sim::AgentView>& agents() const { return views_; }
  /// Tick of the newest decoded snapshot (0 = none).
  std::uint64_t tick() const { return newest_; }
  /// What to acknowledge: the newest decoded tick, or 0 after a baseline was missing.
  std::uint64_t ack_tick() const { return need_full_ ? 0 : newest_; }
  /// Frame of a decoded tick still in the history, or null.
  const ViewFrame* frame(std::uint64_t tick) const;
  const WireGeometry& geometry() const { return geometry_; }

 private:
  WireGeometry geometry_;
  // Found by tick (a linear search of 32); tick 0 = a free slot.
  std::vector<ViewFrame> ring_ = std::vector<ViewFrame>(kHistory);
  std::uint64_t newest_ = 0;
  bool need_full_ = false;
  std::vector<sim::AgentView> views_;
};

// ---- the other server messages ----
/// Per-connection data of a Welcome.
struct WelcomeInfo {
  std::uint32_t player_id = 0;
  sim::AgentId entity;  ///< invalid for spectators
  Role role = Role::kSpectator;
  std::uint32_t tick_rate_hz = 60;
  std::uint32_t snapshot_rate_hz = 20;
  std::uint64_t server_tick = 0;
  std::string resume_token;  ///< raw bytes, players only
  std::uint32_t resume_window_ms = 0;
  std::uint32_t max_input_frames = 64;
  std::string room;  ///< the room's name
  /// The client acknowledges at least every this many decoded delta snapshots (Welcome field).
  std::uint32_t ack_every_snapshots = 1;
};
/// Serialized ServerMessage{welcome}.
void encode_welcome(const WelcomeInfo& info, const sim::Scenario& scenario, std::string& out);

/// Serialized ServerMessage{group_update}: group `group` is `spec` from `server_tick` on.
void encode_group_update(std::uint64_t server_tick, std::int32_t group, const sim::GroupSpec& spec, std::string& out);
/// Serialized ServerMessage{steering_trace} of `trace`.
void encode_steering_trace(const sim::SteeringTrace& trace, std::string& out);
/// Serialized ServerMessage{steering_trace{agent_id, available = false}}: the room traces
/// sim::kMaxTraced agents already.
void encode_trace_unavailable(std::uint32_t agent_id, std::uint64_t server_tick, std::string& out);
/// A received SteeringTrace as a sim::SteeringTrace; fails on non-finite numbers, unknown
/// behaviour names or more than sim::kMaxBehaviors behaviours.
Result decode_steering_trace(const v1::SteeringTrace& in, sim::SteeringTrace& out);

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

/// Parse a server frame (clients, bot). A player's snapshot frame is the shared body plus
/// ServerMessage.player (protocol 2): callers read the input progress and the own craft there;
/// `player` without a snapshot or delta_snapshot is malformed.
Result decode_server_message(std::span<const std::byte> bytes, v1::ServerMessage& out);

}  // namespace flockstep::codec
