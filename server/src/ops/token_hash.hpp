#pragma once
/// \file token_hash.hpp
/// Resume tokens at rest: a room keeps (in memory and in its saved file) only a keyed hash of
/// each player's token, HMAC-SHA256 under a server key, never the token itself. Whoever reads a
/// state file or a core dump then learns nothing that takes over a craft, and without the key
/// cannot even test a guessed token offline. OpenSSL's libcrypto computes the HMAC (Debian
/// libssl-dev): a well-kept implementation rather than a hand-written SHA-256.
#include <cstddef>
#include <string>
#include <string_view>

namespace flockstep::server::ops {

/// Size of a token key, bytes (the HMAC-SHA256 block allows up to 64; 32 is the hash's strength).
inline constexpr std::size_t kTokenKeyBytes = 32;
/// Size of a token hash (SHA-256 output), bytes.
inline constexpr std::size_t kTokenHashBytes = 32;

/// HMAC-SHA256 of `token` under `key` (kTokenHashBytes raw bytes).
std::string token_hash(std::string_view key, std::string_view token);

/// Equality of two secrets in time that does not depend on where they differ (CRYPTO_memcmp);
/// different sizes are unequal.
bool same_secret(std::string_view a, std::string_view b);

/// A fresh key from the OS generator (os_random.hpp). Throws std::runtime_error when the
/// generator fails (start-up: main() checked it already).
std::string new_token_key();

}  // namespace flockstep::server::ops
