// The T08 body update on lanes built for AVX2 (four doubles per instruction). This translation
// unit alone is compiled with -mavx2 (shared/CMakeLists.txt); body_lanes.cpp calls it only when
// the CPU reports AVX2. Same template, same operations per lane, same bits as the other forms.
#include "body_lanes_kernel.hpp"

#if !defined(__AVX2__)
#error "body_lanes_avx2.cpp must be compiled with -mavx2"
#endif

namespace flockstep::behavior {

void body_update_lanes_avx2(BodyLanes& b, real dt) { lanes_kernel::body_update<math::lanes::SimdLanes256>(b, dt); }

std::int32_t body_update_columns_avx2(const BodyColumns& c, std::int32_t n, real dt) {
  return lanes_kernel::body_update_columns<math::lanes::SimdLanes256>(c, n, dt);
}

}  // namespace flockstep::behavior
