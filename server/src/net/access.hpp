#pragma once
/// \file access.hpp
/// Access checks shared by every HTTP route: the browser Origin allow-list (cross-site WebSocket
/// hijacking) and the admin bearer token. Pure functions without Beast, so they are unit-tested
/// on their own and any later admin route (e.g. live tuning) reuses the very same check.
/// Header-only: small, and it keeps the server library's source list unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flockstep::server::net {

/// Compare two byte strings in time that depends only on `expected.size()`, never on where the
/// first difference is (a token must not be guessable byte by byte from response times).
/// Hand-written because nothing on the dependency list offers it (OpenSSL's CRYPTO_memcmp is
/// not a dependency); the accumulator is volatile so the compiler cannot stop at a mismatch.
inline bool constant_time_equals(std::string_view given, std::string_view expected) {
  volatile std::uint8_t diff = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    // Read `given` cyclically so a short or empty guess costs the same as a right-sized one.
    const auto g = given.empty() ? std::uint8_t{0} : static_cast<std::uint8_t>(given[i % given.size()]);
    diff = static_cast<std::uint8_t>(diff | (g ^ static_cast<std::uint8_t>(expected[i])));
  }
  return diff == 0;
}

/// Outcome of an admin authorisation check.
enum class AdminAuth : std::uint8_t {
  kAllowed,   ///< `Authorization: Bearer <admin_token>` matched
  kDisabled,  ///< no admin_token configured: the admin API does not exist (404)
  kDenied,    ///< header missing, not a bearer token, or the wrong token (401)
};

/// The one admin check: `authorization` is the request's Authorization header value (empty when
/// absent), `admin_token` the configured token (empty = admin API disabled). Every admin route
/// calls this and nothing else.
inline AdminAuth check_admin(std::string_view authorization, std::string_view admin_token) {
  if (admin_token.empty()) return AdminAuth::kDisabled;
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() < kScheme.size()) return AdminAuth::kDenied;
  // The scheme name is case-insensitive (RFC 9110 section 11.1); the token is not.
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    const char want = kScheme[i] >= 'A' && kScheme[i] <= 'Z' ? static_cast<char>(kScheme[i] - 'A' + 'a') : kScheme[i];
    if (lower != want) return AdminAuth::kDenied;
  }
  return constant_time_equals(authorization.substr(kScheme.size()), admin_token) ? AdminAuth::kAllowed
                                                                                 : AdminAuth::kDenied;
}

/// May a WebSocket upgrade carrying this Origin header proceed? `allow_list` is the configured
/// comma-separated list of origins (`https://game.example,http://localhost:8080`); `*` allows
/// every origin; empty (the default) allows only the serving origin: the Origin's host[:port]
/// must equal `host`, the request's Host header (the page was loaded from this very server, as
/// the viewer is). Browsers always send Origin on a WebSocket upgrade, so a page on a foreign
/// site is refused; a request without Origin comes from a non-browser client (bot, tool), which
/// could send any Origin it likes, so it is allowed. Origins and hosts compare case-insensitively
/// (scheme and host are case-insensitive; browsers send them lower-case anyway).
inline bool origin_allowed(std::string_view origin, std::string_view allow_list, std::string_view host) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '/')) s.remove_suffix(1);
    return s;
  };
  auto iequals = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      auto low = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
      if (low(a[i]) != low(b[i])) return false;
    }
    return true;
  };
  allow_list = trim(allow_list);
  if (allow_list == "*") return true;
  if (origin.empty()) return true;
  origin = trim(origin);
  if (allow_list.empty()) {
    // The serving origin: "scheme://" + exactly the Host header. "null" (a sandboxed or file://
    // page) and anything without a scheme never match.
    const std::size_t scheme_end = origin.find("://");
    host = trim(host);
    return scheme_end != std::string_view::npos && !host.empty() && iequals(origin.substr(scheme_end + 3), host);
  }
  while (!allow_list.empty()) {
    const std::size_t comma = allow_list.find(',');
    const std::string_view item = trim(allow_list.substr(0, comma));
    if (!item.empty() && iequals(item, origin)) return true;
    if (comma == std::string_view::npos) break;
    allow_list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace flockstep::server::net
