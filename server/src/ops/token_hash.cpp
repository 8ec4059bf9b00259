#include "ops/token_hash.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstddef>
#include <span>
#include <stdexcept>

#include "ops/os_random.hpp"

namespace flockstep::server::ops {

std::string token_hash(std::string_view key, std::string_view token) {
  std::string out(kTokenHashBytes, '\0');
  unsigned int len = 0;
  // One-shot HMAC: no context to leak, and it cannot fail for SHA-256 with in-memory buffers
  // short of an allocation failure inside OpenSSL, which is treated like std::bad_alloc.
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(token.data()), token.size(),
            reinterpret_cast<unsigned char*>(out.data()), &len) ||
      len != kTokenHashBytes)
    throw std::runtime_error("HMAC-SHA256 failed (OpenSSL)");
  return out;
}

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string new_token_key() {
  std::string key(kTokenKeyBytes, '\0');
  if (const int err = fill_os_random(std::as_writable_bytes(std::span<char>(key))))
    throw std::runtime_error(os_random_error(err) + ": cannot make the resume-token key");
  return key;
}

}  // namespace flockstep::server::ops
