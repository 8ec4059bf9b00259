#pragma once
/// \file input_lead.hpp
/// How many inputs the client keeps ahead of the server. The server applies one queued input per
/// tick and holds the last one when its queue is empty (a "starved" tick); each starved tick
/// shifts `server_tick - last_applied_sequence` by one, so the client owes one more input. Too much
/// lead only adds latency (and the server keeps at most 8 inputs): when the server's queue,
/// estimated as unacknowledged inputs minus those still in flight, stays above kMaxLeadTicks for
/// a whole window, one client tick is skipped.
#include <cstdint>

namespace flockstep::client {

/// See file comment. Times in ms on the browser clock.
class InputLead {
 public:
  static constexpr std::int32_t kInitialLeadTicks = 3;  ///< inputs queued at the server from the start
  static constexpr std::int32_t kMaxLeadTicks = 7;      ///< the server keeps at most 8 pending inputs
  static constexpr std::int32_t kMaxOwedPerShift = 3;   ///< inputs added for one observed shift at most
  static constexpr double kTrimWindowMs = 2000;         ///< queue must stay high this long before a trim

  /// Start (or restart) a session: a player owes the initial lead, a spectator nothing.
  void start(bool player, double now_ms);
  /// An authoritative state: server `tick` applied input `applied` (0 = none yet); the client's
  /// newest sequence is `last_sequence`; `in_flight_ticks` = round-trip time / tick length.
  void observe(std::uint64_t tick, std::uint32_t applied, std::uint32_t last_sequence, double in_flight_ticks,
               double now_ms);
  /// One client tick is due: true when it should be skipped (lead trimmed) instead of producing
  /// an input.
  bool take_skip();
  /// True while an extra input is owed and the unacknowledged count `unacked` leaves room.
  bool take_owed(std::int32_t unacked);

  std::int32_t owed() const { return owed_; }
  std::int32_t skips() const { return skip_; }
  /// Lead changes so far (inputs added for starved ticks, ticks skipped to trim).
  std::int32_t adjustments() const { return adjustments_; }

 private:
  std::int32_t owed_ = 0;
  std::int32_t skip_ = 0;
  std::int64_t last_tick_minus_seq_ = -1;
  double queue_min_ = 1e9;
  double window_start_ms_ = 0;
  std::int32_t adjustments_ = 0;
};

}  // namespace flockstep::client
