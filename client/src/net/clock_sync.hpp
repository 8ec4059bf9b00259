#pragma once
/// \file clock_sync.hpp
/// Estimate of the server's clock from snapshot arrival times. Each snapshot gives a sample
/// `tick * dt - local_ms`: the true offset plus that snapshot's delay. The least-delayed
/// snapshot is the best estimate, so a larger sample is taken at once; smaller ones (the
/// offset drifting down) are followed slowly; a sample far off (a stall, a new server) resets.

namespace flockstep::client {

/// See file comment. Times in ms on the browser clock (performance.now()).
class ClockSync {
 public:
  /// A jump larger than this (ms) replaces the estimate instead of nudging it.
  static constexpr double kSnapMs = 250;
  /// Fraction of a smaller sample's difference applied per snapshot (clock drift).
  static constexpr double kDriftGain = 0.02;

  /// A snapshot of `server_tick` arrived at `local_ms`; ticks last `dt_ms`.
  void observe(double server_tick, double local_ms, double dt_ms);
  /// Forget the estimate (a new world).
  void reset() {
    valid_ = false;
    offset_ms_ = 0;
  }
  /// True once a snapshot was observed.
  bool valid() const { return valid_; }
  /// Estimated server time minus local time, ms.
  double offset_ms() const { return offset_ms_; }
  /// Estimated server tick (fractional) at `local_ms`; 0 before the first snapshot.
  double server_tick(double local_ms, double dt_ms) const {
    return valid_ && dt_ms > 0 ? (local_ms + offset_ms_) / dt_ms : 0;
  }
  /// Set the offset directly (offline benchmark: the local clock is the server's).
  void set_offset(double offset_ms) {
    offset_ms_ = offset_ms;
    valid_ = true;
  }

 private:
  double offset_ms_ = 0;
  bool valid_ = false;
};

}  // namespace flockstep::client
