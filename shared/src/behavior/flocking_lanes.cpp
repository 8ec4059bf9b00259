#include "flockstep/behavior/flocking_lanes.hpp"

#include <string_view>

#include "flocking_lanes_kernel.hpp"

namespace flockstep::behavior {

#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
// flocking_lanes_avx2.cpp: the same template built for AVX2, run only where the CPU has it.
LaneFlockResult flock_sums_lanes_avx2(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges);
LaneFlockResult flock_sums_one_pass_avx2(const LaneQuery& q, const NeighbourArrays& a,
                                         std::span<const SlotRange> ranges);
LaneFlockResult flock_sums_list_avx2(const LaneQuery& q, const CandidateList& list);
namespace {
const bool kCpuHasAvx2 = __builtin_cpu_supports("avx2");
}  // namespace
#endif

LaneFlockResult flock_sums_lanes(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges,
                                 LaneKernel kernel) {
#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
  if (kernel == LaneKernel::kSimd && kCpuHasAvx2) return flock_sums_lanes_avx2(q, a, ranges);
  if (kernel == LaneKernel::kSimdOnePass && kCpuHasAvx2) return flock_sums_one_pass_avx2(q, a, ranges);
#endif
#if defined(FLOCKSTEP_LANES_SIMD)
  if (kernel == LaneKernel::kSimdOnePass)
    return lanes_kernel::flock_sums_one_pass<math::lanes::SimdLanes>(q, a, ranges);
#else
  if (kernel == LaneKernel::kSimdOnePass)
    return lanes_kernel::flock_sums_one_pass<math::lanes::ScalarLanes>(q, a, ranges);
#endif
#if defined(FLOCKSTEP_LANES_SIMD)
  if (kernel != LaneKernel::kScalar) return lanes_kernel::flock_sums<math::lanes::SimdLanes>(q, a, ranges);
#else
  (void)kernel;
#endif
  return lanes_kernel::flock_sums<math::lanes::ScalarLanes>(q, a, ranges);
}

bool gather_candidates(const NeighbourArrays& a, std::span<const SlotRange> ranges, std::int32_t group,
                       CandidateList& out) {
  std::int32_t n = 0;
  for (const SlotRange& r : ranges) {
    // Counted before writing, so a crowd is refused without running past the arrays.
    std::int32_t in_group = 0;
    for (std::int32_t k = r.begin; k < r.end; ++k) in_group += a.group[k] == group ? 1 : 0;
    if (n + in_group > CandidateList::kCapacity) return false;
    for (std::int32_t k = r.begin; k < r.end; ++k) {
      if (a.group[k] != group) continue;
      out.x[n] = a.x[k] + r.shift.x;  // the range scan's (x + shift), rounded the same way
      out.y[n] = a.y[k] + r.shift.y;
      out.hx[n] = a.hx[k];
      out.hy[n] = a.hy[k];
      out.slot[n] = k;
      ++n;
    }
  }
  out.count = n;
  for (std::int32_t j = 0; j < kLaneWidth; ++j) {
    out.x[n + j] = out.y[n + j] = out.hx[n + j] = out.hy[n + j] = 0;
    out.slot[n + j] = -1;
  }
  return true;
}

LaneFlockResult flock_sums_list(const LaneQuery& q, const CandidateList& list, LaneKernel kernel) {
#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
  if ((kernel == LaneKernel::kSimd || kernel == LaneKernel::kSimdOnePass) && kCpuHasAvx2)
    return flock_sums_list_avx2(q, list);
#endif
#if defined(FLOCKSTEP_LANES_SIMD)
  if (kernel != LaneKernel::kScalar) return lanes_kernel::flock_sums_list<math::lanes::SimdLanes>(q, list);
#else
  (void)kernel;
#endif
  return lanes_kernel::flock_sums_list<math::lanes::ScalarLanes>(q, list);
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
