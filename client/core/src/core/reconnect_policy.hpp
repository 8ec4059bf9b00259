#pragma once
/// \file reconnect_policy.hpp
/// When and how a client tries again after its connection ended, as plain data: the transport
/// (a browser WebSocket, a JavaScript SDK, a test) asks the policy for a decision and applies it
/// with its own timers. Nothing here reads a clock or a random source: the caller passes the
/// attempt number and a uniform random number, so the schedule is a pure function and testable.
#include <cstdint>
#include <string>

#include "flockstep/v1/messages.pb.h"

namespace flockstep::client {

/// How a connection ended, as far as the reconnect decision is concerned.
struct LinkEnd {
  bool user_closed = false;  ///< the user left: never retried
  bool had_welcome = false;  ///< the ended connection (or an earlier one of this session) was welcomed
  /// The server's Close message on that connection (CODE_UNSPECIFIED: none, the socket just ended).
  v1::Close::Code server_code = v1::Close::CODE_UNSPECIFIED;
  std::string server_reason;
  double lost_for_ms = 0;  ///< time since the connection was lost (compared with the resume window)
};

/// What to do about it.
struct ReconnectDecision {
  bool retry = false;    ///< open a new connection after delay_ms
  double delay_ms = 0;   ///< wait this long first
  bool resume = true;    ///< send the resume token (false: the craft is gone; join as a new player)
  bool refused = false;  ///< the server refused this session for good (no such room): back to the lobby
  std::string why;       ///< why not retried (empty when retry)
};

/// The schedule: delay(attempt) = min(max_delay_ms, initial_delay_ms * factor^attempt), times a
/// jitter factor in [1 - jitter, 1 + jitter] so that clients dropped together do not come back in
/// lockstep; `max_attempts` tries (0 = unlimited), and which server refusals end the session.
struct ReconnectPolicy {
  double initial_delay_ms = 250;  ///< first delay, ms (> 0)
  double factor = 2;              ///< growth per attempt (>= 1)
  double max_delay_ms = 8000;     ///< cap, ms
  double jitter = 0.2;            ///< fraction of the delay drawn at random either way, [0, 1)
  std::int32_t max_attempts = 0;  ///< attempts before giving up; 0 = unlimited
  /// Viewer rule: a refused resume (the craft is gone: window expired, server restarted) is
  /// answered at once by a fresh join as a new player. Otherwise (SDK rule) it ends the session,
  /// except when the server only said the token was still "in use" (it has not yet seen the old
  /// connection end), which is retried with backoff.
  bool fresh_join_after_bad_resume = true;
  /// SDK rule: close codes after which a new connection would be refused the same way (normal,
  /// malformed, too big, rate limited, room full) end the session. The viewer retries them.
  bool final_refusals = false;
  /// Give up once the resume window (Welcome.resume_window_ms; 0 = none) has passed since the
  /// loss, because the server has released the craft by then (SDK players).
  bool bounded_by_resume_window = false;

  /// The viewer's policy: 250 ms doubling to 8 s, +-20 % jitter, unlimited, fresh join after a
  /// refused resume, every other close retried.
  static ReconnectPolicy viewer() { return {}; }
  /// The JavaScript SDK's default (index.mjs RECONNECT_DEFAULTS): 100 ms doubling to 5 s, no
  /// jitter, 10 attempts, bounded by the resume window, refusals final.
  static ReconnectPolicy sdk() { return {100, 2, 5000, 0, 10, false, true, true}; }

  /// Delay before attempt `attempt` (0 = the first retry), ms. `unit_random` in [0, 1).
  double delay_ms(std::int32_t attempt, double unit_random) const;
  /// Whether a connection closed by the server with `code` (and its `reason`) ends the session
  /// under this policy, whatever the attempt count or the time: no such room, a refused resume
  /// (unless this policy joins afresh, or the token was only still "in use"), and with
  /// `final_refusals` the refusals a new connection would get again. `decide` stops on exactly
  /// these; the JavaScript SDK asks it (sdk_core.cpp) instead of keeping its own list.
  bool is_final(v1::Close::Code code, const std::string& reason) const;
  /// The decision after connection end `end`, before retry number `attempt` (0-based).
  /// `resume_window_ms`: the Welcome's (0 = unknown or spectator: unbounded).
  ReconnectDecision decide(const LinkEnd& end, std::int32_t attempt, double unit_random,
                           double resume_window_ms = 0) const;
};

}  // namespace flockstep::client
