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

/// n bodies of one group in place in the caller's columns (a table's Vec2 columns, no copy into
/// BodyLanes): body i is position[i], velocity[i], heading[i], moved by force[i]; all share the
/// group's mass and limits. Four at a time, the last n % 4 through BodyLanes: every body gets
/// body_update's bits (tests/shared/behavior/body_lanes_test.cpp).
struct BodyColumns {
  Vec2* position = nullptr;     ///< m, updated
  Vec2* velocity = nullptr;     ///< m/s, updated
  Vec2* heading = nullptr;      ///< unit vector, updated
  const Vec2* force = nullptr;  ///< steering force, N
  real mass = 1;                ///< kg [Limit: > 0]
  real max_force = 1;           ///< N [Limit: >= 0]
  real max_speed = 1;           ///< m/s [Limit: >= 0]
};
static_assert(sizeof(Vec2) == 2 * sizeof(real), "a Vec2 column is read as pairs of reals");

/// T08 body_update of the n bodies of `c`, dt in s. [Limit: n >= 0]
void body_update_columns(const BodyColumns& c, std::int32_t n, real dt, LaneKernel kernel = LaneKernel::kSimd);

}  // namespace flockstep::behavior
