#include "core/reconnect_policy.hpp"

#include <algorithm>
#include <cmath>

namespace flockstep::client {

double ReconnectPolicy::delay_ms(std::int32_t attempt, double unit_random) const {
  // The exponent is capped so that a long outage cannot overflow the power (the cap on the
  // delay applies long before 2^64 anyway).
  const double grow = std::pow(std::max(1.0, factor), std::clamp(attempt, 0, 64));
  const double base = std::fmin(max_delay_ms, initial_delay_ms * grow);
  const double u = std::clamp(unit_random, 0.0, 1.0);
  return base * (1.0 - jitter + 2.0 * jitter * u);
}

bool ReconnectPolicy::is_final(v1::Close::Code code, const std::string& reason) const {
  switch (code) {
    case v1::Close::CODE_UNKNOWN_ROOM: return true;  // no such room (or no room left): retrying cannot help
    case v1::Close::CODE_BAD_RESUME:
      // The craft is gone: the viewer joins again as a new player; the SDK stops, except when the
      // server has not yet seen the old connection end (the token is still "in use").
      return !fresh_join_after_bad_resume && reason.find("in use") == std::string::npos;
    case v1::Close::CODE_NORMAL:
    case v1::Close::CODE_MALFORMED:
    case v1::Close::CODE_TOO_BIG:
    case v1::Close::CODE_RATE_LIMITED:
    case v1::Close::CODE_ROOM_FULL: return final_refusals;
    default: return false;
  }
}

ReconnectDecision ReconnectPolicy::decide(const LinkEnd& end, std::int32_t attempt, double unit_random,
                                          double resume_window_ms) const {
  ReconnectDecision d;
  auto stop = [&d](std::string why) {
    d.retry = false;
    d.why = std::move(why);
    return d;
  };
  if (end.user_closed) return stop("closed by the user");
  const v1::Close::Code code = end.server_code;
  if (is_final(code, end.server_reason)) {
    if (code == v1::Close::CODE_UNKNOWN_ROOM) {
      d.refused = true;
      return stop(end.server_reason.empty() ? "unknown room" : end.server_reason);
    }
    if (code == v1::Close::CODE_BAD_RESUME) return stop("resume refused: " + end.server_reason);
    return stop("refused by the server: " + end.server_reason);
  }
  if (code == v1::Close::CODE_BAD_RESUME && fresh_join_after_bad_resume) {
    // The craft is gone: join again as a new player, now.
    d.retry = true;
    d.resume = false;
    d.delay_ms = 0;
    return d;
  }
  if (max_attempts > 0 && attempt >= max_attempts)
    return stop("gave up after " + std::to_string(attempt) + " attempts");
  d.retry = true;
  d.delay_ms = delay_ms(attempt, unit_random);
  if (bounded_by_resume_window && resume_window_ms > 0 && end.lost_for_ms + d.delay_ms > resume_window_ms)
    return stop("the resume window has passed");
  return d;
}

}  // namespace flockstep::client
