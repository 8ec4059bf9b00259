#pragma once
/// \file os_random.hpp
/// Bytes from the operating system's cryptographic generator (getrandom(2)), for secrets such as
/// resume tokens. Never a seeded or simulation generator: `shared/` keeps its own deterministic
/// PCG32 for the simulation, and a PCG32 stream can be recovered from a few of its outputs.
/// Header-only: one small function, and it keeps the server library's source list unchanged.
#include <sys/random.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>

namespace flockstep::server::ops {

/// Fill `out` from getrandom(2) (the kernel's generator, blocking only until it was seeded once
/// at boot). Retries on EINTR and on short reads (a request above 256 bytes may return fewer).
/// Returns 0, or the errno of the failure (ENOSYS: a kernel before 3.17 or a seccomp filter that
/// forbids the call). Written against the system call rather than std::random_device because the
/// standard does not promise that random_device is non-deterministic, nor says how it fails.
inline int fill_os_random(std::span<std::byte> out) noexcept {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// The message for a failed fill_os_random (names the call and the error).
inline std::string os_random_error(int err) {
  return std::string("the operating system's random generator failed (getrandom: ") + std::strerror(err) + ")";
}

}  // namespace flockstep::server::ops
