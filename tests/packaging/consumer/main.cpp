// A consumer of the installed flockstep::shared: one behaviour call and a deterministic world.
// Usage: consumer EXPECTED_FLOCK500_HASH (hex; the golden hash the library's own tests pin), so
// a consumer build that rounds differently from the project's is caught, not just one that fails
// to link.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "flockstep/behavior/steering.hpp"
#include "flockstep/build_info.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer EXPECTED_FLOCK500_HASH\n");
    return 2;
  }
  const std::uint64_t expected = std::strtoull(argv[1], nullptr, 16);

  namespace b = flockstep::behavior;
  b::Kinematic me;  // at the origin, at rest
  b::SeekParams seek;
  seek.max_acceleration = 10;
  const b::SteeringOutput s = b::dynamic_seek(me, {3, 4}, seek);
  if (s.linear.x != 6 || s.linear.y != 8) {
    std::fprintf(stderr, "seek: expected (6, 8), got (%.17g, %.17g)\n", s.linear.x, s.linear.y);
    return 1;
  }

  flockstep::sim::World world(flockstep::sim::canonical::flock(500));
  for (int i = 0; i < 2000; ++i) world.step();
  const std::uint64_t hash = world.state_hash();
  std::printf("flockstep %.*s: seek ok, flock(500) after 2000 ticks: %d agents, hash 0x%016llx (expected 0x%016llx)\n",
              static_cast<int>(flockstep::build_info::kVersion.size()), flockstep::build_info::kVersion.data(),
              world.size(), static_cast<unsigned long long>(hash), static_cast<unsigned long long>(expected));
  return hash == expected ? 0 : 1;
}
