#include "flockstep/behavior/body_lanes.hpp"

#include "body_lanes_kernel.hpp"

namespace flockstep::behavior {

#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
// body_lanes_avx2.cpp: the same template built for AVX2, run only where the CPU has it.
void body_update_lanes_avx2(BodyLanes& b, real dt);
namespace {
const bool kCpuHasAvx2 = __builtin_cpu_supports("avx2");
}  // namespace
#endif

void body_update_lanes(BodyLanes& b, real dt, LaneKernel kernel) {
#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
  if (kernel == LaneKernel::kSimd && kCpuHasAvx2) return body_update_lanes_avx2(b, dt);
#endif
#if defined(FLOCKSTEP_LANES_SIMD)
  if (kernel != LaneKernel::kScalar) return lanes_kernel::body_update<math::lanes::SimdLanes>(b, dt);
#else
  (void)kernel;
#endif
  lanes_kernel::body_update<math::lanes::ScalarLanes>(b, dt);
}

}  // namespace flockstep::behavior
