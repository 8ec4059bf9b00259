#include "flockstep/behavior/body_lanes.hpp"

#include "body_lanes_kernel.hpp"

namespace flockstep::behavior {

#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
// body_lanes_avx2.cpp: the same template built for AVX2, run only where the CPU has it.
void body_update_lanes_avx2(BodyLanes& b, real dt);
std::int32_t body_update_columns_avx2(const BodyColumns& c, std::int32_t n, real dt);
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

namespace {
/// Whole blocks of four in the 128-bit form (SSE2 / wasm SIMD128) or the scalar reference.
std::int32_t columns_portable(const BodyColumns& c, std::int32_t n, real dt, LaneKernel kernel) {
#if defined(FLOCKSTEP_LANES_SIMD)
  if (kernel != LaneKernel::kScalar) return lanes_kernel::body_update_columns<math::lanes::SimdLanes>(c, n, dt);
#else
  (void)kernel;
#endif
  return lanes_kernel::body_update_columns<math::lanes::ScalarLanes>(c, n, dt);
}
}  // namespace

void body_update_columns(const BodyColumns& c, std::int32_t n, real dt, LaneKernel kernel) {
  // Whole blocks of four in the widest form the CPU has (one dispatch per call, never per body).
#if defined(FLOCKSTEP_LANES_AVX2_KERNEL)
  const std::int32_t done = kernel == LaneKernel::kSimd && kCpuHasAvx2 ? body_update_columns_avx2(c, n, dt)
                                                                       : columns_portable(c, n, dt, kernel);
#else
  const std::int32_t done = columns_portable(c, n, dt, kernel);
#endif
  if (done == n) return;
  // The rest (fewer than four) through BodyLanes, spare lanes zero with mass 1.
  BodyLanes b{};
  for (std::int32_t j = 0; j < kLaneWidth; ++j) b.mass[j] = 1;
  const std::int32_t m = n - done;
  for (std::int32_t j = 0; j < m; ++j) {
    const auto i = static_cast<std::size_t>(done + j);
    b.px[j] = c.position[i].x;
    b.py[j] = c.position[i].y;
    b.vx[j] = c.velocity[i].x;
    b.vy[j] = c.velocity[i].y;
    b.hx[j] = c.heading[i].x;
    b.hy[j] = c.heading[i].y;
    b.fx[j] = c.force[i].x;
    b.fy[j] = c.force[i].y;
    b.mass[j] = c.mass;
    b.max_force[j] = c.max_force;
    b.max_speed[j] = c.max_speed;
  }
  body_update_lanes(b, dt, kernel);
  for (std::int32_t j = 0; j < m; ++j) {
    const auto i = static_cast<std::size_t>(done + j);
    c.position[i] = {b.px[j], b.py[j]};
    c.velocity[i] = {b.vx[j], b.vy[j]};
    c.heading[i] = {b.hx[j], b.hy[j]};
  }
}

}  // namespace flockstep::behavior
