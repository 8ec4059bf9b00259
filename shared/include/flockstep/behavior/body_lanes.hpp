#pragma once
/// \file body_lanes.hpp
/// T08 body_update (body.hpp) for four bodies at a time: the same five steps on lanes, the two
/// truncations and the heading test as masks instead of branches. Each lane computes exactly
/// what body_update computes for its body (the same IEEE operations in the same order; sqrt and
/// division are correctly rounded in every form), so the SIMD forms (AVX2, SSE2, wasm SIMD128)
/// and the scalar reference give body_update's bits (tests/shared/behavior/body_lanes_test.cpp).
#include "flockstep/behavior/flocking_lanes.hpp"
#include "flockstep/behavior/types.hpp"

namespace flockstep::behavior {

/// Four bodies in structure-of-arrays form, updated in place. A caller with fewer than four
/// fills the spare lanes with any finite values (zeros with mass 1 will do) and ignores them.
struct BodyLanes {
  real px[kLaneWidth], py[kLaneWidth];  ///< position, m
  real vx[kLaneWidth], vy[kLaneWidth];  ///< velocity, m/s
  real hx[kLaneWidth], hy[kLaneWidth];  ///< heading (unit vector)
  real fx[kLaneWidth], fy[kLaneWidth];  ///< steering force, N (read only)
  real mass[kLaneWidth], max_force[kLaneWidth], max_speed[kLaneWidth];
};

/// T08 body_update of each lane's body with its force, dt in s.
void body_update_lanes(BodyLanes& b, real dt, LaneKernel kernel = LaneKernel::kSimd);

}  // namespace flockstep::behavior
