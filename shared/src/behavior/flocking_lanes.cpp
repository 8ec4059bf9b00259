#include "flockstep/behavior/flocking_lanes.hpp"

#include <string_view>

#include "flocking_lanes_kernel.hpp"

namespace flockstep::behavior {

#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
// flocking_lanes_avx2.cpp: the same template built for AVX2, run only where the CPU has it.
void flock_sums_lanes_avx2(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges,
                           LaneFlockResult& out);
namespace {
const bool kCpuHasAvx2 = __builtin_cpu_supports("avx2");
}  // namespace
#endif

void flock_sums_lanes(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges,
                      LaneKernel kernel, LaneFlockResult& out) {
#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
  if (kernel == LaneKernel::kSimd && kCpuHasAvx2) return flock_sums_lanes_avx2(q, a, ranges, out);
#endif
#if defined(FLOCKSTEP_LANES_SIMD)
  if (kernel != LaneKernel::kScalar) return lanes_kernel::flock_sums<math::lanes::SimdLanesF8>(q, a, ranges, out);
#else
  (void)kernel;
#endif
  lanes_kernel::flock_sums<math::lanes::ScalarLanesF8>(q, a, ranges, out);
}

const char* lanes_instruction_set() {
#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
  if (kCpuHasAvx2) return "avx2";
#endif
#if defined(FLOCKSTEP_LANES_SIMD) && defined(__SSE2__)
  return "sse2";
#elif defined(FLOCKSTEP_LANES_SIMD) && defined(__wasm_simd128__)
  return "simd128";
#else
  return "scalar";
#endif
}

bool lanes_are_simd() { return std::string_view(lanes_instruction_set()) != "scalar"; }

}  // namespace flockstep::behavior
