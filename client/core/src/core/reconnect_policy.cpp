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
  if (code == v1::Close::CODE_UNKNOWN_ROOM) {
    // No such room (or no room left): retrying cannot help.
    d.refused = true;
    return stop(end.server_reason.empty() ? "unknown room" : end.server_reason);
  }
  if (code == v1::Close::CODE_BAD_RESUME) {
    if (fresh_join_after_bad_resume) {
      // The craft is gone: join again as a new player, now.
      d.retry = true;
      d.resume = false;
      d.delay_ms = 0;
      return d;
    }
    if (end.server_reason.find("in use") == std::string::npos) return stop("resume refused: " + end.server_reason);
  } else if (final_refusals &&
             (code == v1::Close::CODE_NORMAL || code == v1::Close::CODE_MALFORMED || code == v1::Close::CODE_TOO_BIG ||
              code == v1::Close::CODE_RATE_LIMITED || code == v1::Close::CODE_ROOM_FULL)) {
    return stop("refused by the server: " + end.server_reason);
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
