#pragma once
/// \file snapshot_codec.hpp
/// Quantised, delta-coded snapshots: the agent part of ServerMessage.delta_snapshot.
///
/// 1. Quantisation (bounded world, fixed point): position in 1/64 m, speed in 1/16 m/s, velocity
///    direction and heading in 2^10 steps per turn, angular velocity in 1/64 rad/s, aim point as
///    an offset from the agent in 1/8 m. QAgent is the exact wire state; the receiver rebuilds
///    every QAgent field exactly.
/// 2. Frames: what a receiver knows after a snapshot (a ViewFrame: per agent in its view, the
///    last QAgent it was sent and that state's tick, plus turn/acceleration estimates). Server and
///    receiver build identical frames, so the server can delta against any frame the receiver
///    acknowledged (Quake III keeps 32; see server/src/game/snapshot_streams.hpp).
/// 3. Prediction: each agent's state at the new tick is predicted from the baseline entry with
///    integer arithmetic plus the deterministic math of shared/ (second order: speed and
///    direction keep changing at their last rate, position follows the trapezoid of the two
///    velocities), and only the residual is coded, as exp-Golomb codes whose orders are chosen per
///    snapshot. An agent whose state equals the prediction costs nothing; a skipped agent keeps
///    its old entry (the receiver extrapolates it) and costs nothing either.
/// The bit layout is in docs/protocol.md ("Quantised delta snapshots").
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/status.hpp"
#include "flockstep/sim/agent.hpp"
#include "flockstep/sim/scenario.hpp"

namespace flockstep::codec {

/// Position resolution: 1/64 m = 1.6 cm, a tenth of a pixel at the viewer's default zoom.
inline constexpr double kPositionUnitsPerM = 64;
/// Speed resolution: 1/16 m/s (a 100 ms extrapolation drifts < 4 mm from the rounding).
inline constexpr double kSpeedUnitsPerMps = 16;
/// Velocity direction and heading: 2^10 steps per turn (0.35 degrees; 100 ms at 6 m/s drifts
/// sideways < 4 mm). Each extra bit costs about one bit per moving agent and snapshot.
inline constexpr unsigned kAngleBits = 10;
/// Steps per turn.
inline constexpr std::int32_t kAngleUnits = 1 << kAngleBits;
/// Angular velocity resolution: 1/64 rad/s.
inline constexpr double kAngularVelocityUnitsPerRadS = 64;
/// Largest speed on the wire: 2^20 - 1 units = 16 km/s (clamped beyond; no agent comes close).
inline constexpr std::int32_t kMaxSpeedUnits = (1 << 20) - 1;
/// Largest |angular velocity| on the wire: 2^20 units = 16384 rad/s.
inline constexpr std::int32_t kMaxAngularVelocityUnits = 1 << 20;
/// Aim point resolution: 1/8 m, as an offset from the agent (it is an annotation: drawn as a
/// marker; a wander target riding with its boid then costs nothing while it stays put).
inline constexpr double kAimUnitsPerM = 8;
/// Largest |aim offset| on the wire: 2^24 units = 2097 km (clamped beyond).
inline constexpr std::int32_t kMaxAimUnits = 1 << 24;
/// Fraction bits of the per-tick turn and acceleration estimates.
inline constexpr int kRateFractionBits = 8;
/// Most agents one snapshot may carry (decoder limit; the sim's id has 20 slot bits).
inline constexpr std::uint32_t kMaxSnapshotAgents = 1u << 20;
/// World sides up to 2^24 position units (262 km) can be coded.
inline constexpr std::int64_t kMaxWorldUnits = std::int64_t{1} << 24;

/// The world as the wire sees it (from the scenario, which both sides have).
struct WireGeometry {
  std::int32_t width_units = 1;   ///< world width in position units, > 0
  std::int32_t height_units = 1;  ///< world height in position units, > 0
  bool wrap = false;              ///< toroidal world: coordinates are taken modulo the size
  double dt = 1.0 / 60;           ///< seconds per tick
  unsigned x_bits = 1;            ///< bits of an absolute x coordinate
  unsigned y_bits = 1;            ///< bits of an absolute y coordinate
  /// Geometry of a scenario (width, height, wrap, tick rate). Sides beyond kMaxWorldUnits clamp.
  static WireGeometry of(const sim::Scenario& s);
};

/// One agent's quantised state: exactly what the wire carries (see the file comment for units).
struct QAgent {
  std::uint32_t id = 0;         ///< sim::AgentId value
  std::uint8_t kind = 0;        ///< sim::AgentKind
  std::uint8_t state = 0;       ///< sim::BehaviorState
  std::uint16_t vel_angle = 0;  ///< direction of velocity, [0, kAngleUnits); = heading when speed is 0
  std::uint16_t heading = 0;    ///< orientation, [0, kAngleUnits)
  std::int32_t group = 0;       ///< index into the scenario's groups; -1 for players
  std::int32_t x = 0;           ///< position units; [0, width_units) when wrapping, else clamped to [0, width_units]
  std::int32_t y = 0;
  std::int32_t speed = 0;   ///< [0, kMaxSpeedUnits]
  std::int32_t angvel = 0;  ///< [-kMaxAngularVelocityUnits, kMaxAngularVelocityUnits]
  std::int32_t aim_dx = 0;  ///< aim point - position, aim units, [-kMaxAimUnits, kMaxAimUnits]
  std::int32_t aim_dy = 0;
  std::uint32_t target = 0;  ///< sim::AgentId value, 0 = none
  std::uint64_t spawn_tick = 0;
  friend bool operator==(const QAgent&, const QAgent&) = default;
};

/// Quantise an agent (rounding to nearest; wrap or clamp into the world).
QAgent quantize(const sim::AgentView& a, const WireGeometry& g);
/// The AgentView a QAgent stands for (velocity from speed and direction via the deterministic
/// math::sin_cos, orientation in (-pi, pi]).
sim::AgentView dequantize(const QAgent& q);

/// What a receiver knows about one agent after a snapshot.
struct KnownAgent {
  QAgent q;                ///< the last state it was sent
  std::uint64_t tick = 0;  ///< tick of that state
  std::int32_t turn = 0;   ///< estimated vel_angle change per tick, 1/2^kRateFractionBits angle units
  std::int32_t accel = 0;  ///< estimated speed change per tick, 1/2^kRateFractionBits speed units
};

/// Everything a receiver knows after the snapshot of `tick`: one entry per agent in its view,
/// sorted by id. Immutable once built; the server shares one between clients with the same bytes.
struct ViewFrame {
  std::uint64_t tick = 0;
  std::vector<KnownAgent> agents;
};

/// The state a receiver assumes for `k` at `tick` (>= k.tick): the prediction the residuals are
/// coded against, also used to draw agents that were not updated in a snapshot.
QAgent predict(const KnownAgent& k, std::uint64_t tick, const WireGeometry& g);

/// Input of encode_agents().
struct EncodeInput {
  std::uint64_t tick = 0;           ///< tick of the new snapshot (> base->tick)
  const ViewFrame* base = nullptr;  ///< acknowledged baseline; null = full snapshot
  std::span<const QAgent> visible;  ///< agents in the receiver's view now, sorted by id, unique
  /// Interest weight per visible agent (same order), > 0: larger = nearer / faster-changing.
  /// Empty = all 1. Only used when the budget is exceeded.
  std::span<const float> weight;
  std::uint32_t budget_bytes = 0;  ///< most bytes of agent records; 0 = unlimited
};

/// What an encode did (for metrics, tests and the bench).
struct EncodeStats {
  std::uint32_t updated = 0;      ///< agents with a residual record (known and changed)
  std::uint32_t entered = 0;      ///< agents sent in full (entered the view, or a full snapshot)
  std::uint32_t removed = 0;      ///< agents that left the view (or the world)
  std::uint32_t deferred = 0;     ///< changed or entering agents left for a later snapshot (budget)
  std::uint32_t unchanged = 0;    ///< known agents exactly on their prediction (no bits)
  std::uint64_t bits = 0;         ///< size of the agent records
  std::uint32_t aim_changes = 0;  ///< agents whose aim offset was off its prediction
  bool aim_world_point = false;   ///< aims predicted as world points (else as offsets kept)
  bool aim_inline = false;        ///< aim changes coded in the records (else in the extras)
};

/// Encode the agents of a snapshot against `in.base` into `bytes` (bit-packed records) and build
/// the frame the receiver will hold after decoding them.
void encode_agents(const EncodeInput& in, const WireGeometry& g, std::string& bytes, ViewFrame& frame,
                   EncodeStats* stats = nullptr);

/// Receiver side: rebuild the frame of `tick` from `bytes` and the baseline (null = full). Every
/// count, index and id is checked (the bytes are untrusted); on error `out` is unspecified.
Result decode_agents(const ViewFrame* base, std::uint64_t tick, std::string_view bytes, const WireGeometry& g,
                     ViewFrame& out);

/// The AgentViews of a frame at its tick (agents not updated by it are extrapolated with predict()).
void frame_views(const ViewFrame& frame, const WireGeometry& g, std::vector<sim::AgentView>& out);

}  // namespace flockstep::codec
