// The T76 lane kernel built for AVX2 (eight floats per instruction). This translation unit alone
// is compiled with -mavx2 (shared/CMakeLists.txt); flocking_lanes.cpp calls it only when the CPU
// reports AVX2. Same template, same operations per lane, same bits as the SSE2 and scalar forms.
#include "flocking_lanes_kernel.hpp"

#if !defined(__AVX2__)
#error "flocking_lanes_avx2.cpp must be compiled with -mavx2"
#endif

namespace flockstep::behavior {

void flock_sums_lanes_avx2(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges,
                           LaneFlockResult& out) {
  lanes_kernel::flock_sums<math::lanes::SimdLanesF8x256>(q, a, ranges, out);
}

}  // namespace flockstep::behavior
