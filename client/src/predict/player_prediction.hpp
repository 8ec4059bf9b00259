#pragma once
/// \file player_prediction.hpp
/// Client-side prediction of the player's own craft, Overwatch style: a ring buffer of the
/// inputs sent (with the state predicted after each), replayed on top of every authoritative
/// state the server sends. The craft is stepped with the very function the server's World
/// runs for a player (sim::step_player, shared/), so with no loss and a
/// steady input stream the server's state equals the predicted one bit for bit and no
/// correction ever happens.
///
/// Pure C++ (no Emscripten, no protobuf): the wasm unit tests drive it with a local sim::World
/// standing in for the server.
#include <array>
#include <cstdint>
#include <span>

#include "flockstep/behavior/craft.hpp"
#include "flockstep/sim/player.hpp"

namespace flockstep::client {

using math::real;
using math::Vec2;

/// Bitwise equality of two craft states (prediction is exact, so this is the test, not a tolerance).
bool same_bits(const behavior::CraftState& a, const behavior::CraftState& b);

/// Euclidean distance between the positions of two states, m.
real position_error(const behavior::CraftState& a, const behavior::CraftState& b);

/// One input the client produced: its sequence number and the state predicted after it.
struct InputRecord {
  std::uint32_t sequence = 0;  ///< >= 1, +1 per client tick
  sim::PlayerInput input;
  behavior::CraftState after;  ///< predicted state after applying `input` for one tick
  bool predicted = false;      ///< `after` is valid (false for inputs made before the first snapshot)
};

/// What a reconcile() found.
struct ReconcileResult {
  bool first = false;         ///< first authoritative state: prediction (re)started from it
  bool compared = false;      ///< the server's sequence was still in the buffer and was compared
  bool corrected = false;     ///< compared and the bits differed: a misprediction
  bool held = false;          ///< the server held the input for extra ticks (its queue ran dry);
                              ///< the comparison stepped the prediction as often, and the present
                              ///< prediction moved by jump_m (a timing correction, not a misprediction)
  real error_m = 0;           ///< position difference between prediction and server at that sequence, m
  real jump_m = 0;            ///< how far the current predicted position moved by the replay, m
  std::int32_t replayed = 0;  ///< inputs replayed on top of the server state
};

/// How an authoritative state relates to the inputs: PlayerSnapshot.last_input_sequence and
/// input_held_ticks, and whether it can be compared at all (not across a capture and respawn,
/// which only the server decides).
struct ServerProgress {
  std::uint32_t last_applied = 0;  ///< newest input applied (0 = none yet)
  std::uint32_t held_ticks = 0;    ///< further ticks the server stepped holding that input
  std::uint32_t slips = 0;         ///< PlayerSnapshot.input_slips: held ticks + dropped frames so far
  bool comparable = true;          ///< false: the craft respawned since the last state; do not compare
};

/// The ring buffers and the replay. Not thread-safe; one owner.
class PlayerPredictor {
 public:
  /// Ring capacity: more than 4 s of inputs at 60 Hz.
  static constexpr std::int32_t kCapacity = 256;

  /// `scenario` must outlive the predictor (player craft params, obstacles, borders). dt = 1/tick rate, s.
  void configure(const sim::Scenario* scenario, real dt);
  /// Forget everything (new connection, respawn under another entity); sequence numbers continue.
  void reset();
  /// Forget the state and the inputs but keep counting sequences (resume: the server skips
  /// sequences it has already received, so they must keep growing).
  void reset_keep_sequence();

  /// One local tick: assigns the next sequence, steps the predicted craft (if an authoritative
  /// state has arrived) and records both. Returns the sequence. While no state has arrived the
  /// input is still recorded (it will be replayed once the first snapshot comes).
  std::uint32_t advance(sim::PlayerInput input);

  /// An authoritative state `server` after the server applied input `at.last_applied` (0 = none
  /// yet) and then held it for `at.held_ticks` more ticks. Compares with the prediction for that
  /// sequence (stepped as many more times with the same input) when the server's timeline did
  /// not slip anywhere else since the last state (`at.slips` grew by exactly `at.held_ticks`),
  /// drops acknowledged inputs, and replays the rest on top of `server`.
  ReconcileResult reconcile(const behavior::CraftState& server, ServerProgress at);
  /// Same, with no held ticks.
  ReconcileResult reconcile(const behavior::CraftState& server, std::uint32_t last_applied) {
    return reconcile(server, ServerProgress{last_applied, 0, 0, true});
  }

  /// Drop the inputs the server has applied (up to `last_applied`) without a state to compare:
  /// the input window of a client that does not predict (load bots, protocol_core.hpp).
  void acknowledge(std::uint32_t last_applied);

  /// Predicted state after the newest input.
  const behavior::CraftState& state() const { return state_; }
  bool has_state() const { return has_state_; }
  /// Newest sequence produced (0 = none).
  std::uint32_t last_sequence() const { return next_sequence_ - 1; }
  /// Newest sequence the server acknowledged.
  std::uint32_t last_acked() const { return last_acked_; }
  /// Inputs not yet acknowledged, oldest first (at most `max`, the newest ones).
  std::int32_t unacked(std::span<InputRecord> out) const;
  /// Number of unacknowledged inputs held.
  std::int32_t unacked_count() const { return count_; }
  /// Mispredictions found so far.
  std::uint64_t corrections() const { return corrections_; }
  /// States in which the server had held an input for extra ticks (its queue ran dry).
  std::uint64_t held_states() const { return held_states_; }
  /// Longest hold the comparison steps through; a longer one (a client frozen for seconds) is
  /// not compared, just rebased on.
  static constexpr std::uint32_t kMaxHeldTicks = 240;

 private:
  InputRecord& at(std::int32_t k) { return ring_[static_cast<std::size_t>((head_ + k) % kCapacity)]; }
  const InputRecord& at(std::int32_t k) const { return ring_[static_cast<std::size_t>((head_ + k) % kCapacity)]; }

  const sim::Scenario* scenario_ = nullptr;
  real dt_ = real(1) / 60;
  std::array<InputRecord, kCapacity> ring_{};
  std::int32_t head_ = 0;   // index of the oldest unacked record
  std::int32_t count_ = 0;  // unacked records
  std::uint32_t next_sequence_ = 1;
  std::uint32_t last_acked_ = 0;
  behavior::CraftState state_{};
  bool has_state_ = false;
  std::uint64_t corrections_ = 0;
  std::uint64_t held_states_ = 0;
  std::uint32_t slips_ = 0;  // ServerProgress::slips of the state last rebased on
};

}  // namespace flockstep::client
