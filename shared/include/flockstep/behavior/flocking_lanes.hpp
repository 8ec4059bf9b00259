#pragma once
/// \file flocking_lanes.hpp
/// T76 neighbourhood sums (with T31 radius and T32 field of view) as a data-parallel kernel: the
/// candidates of one body are scanned eight at a time in structure-of-arrays storage, and the
/// tests that pick neighbours (self, range, group, field of view) are lane masks, not branches.
/// It produces the FlockSums the per-neighbour loop of flocking.hpp does, finished by the same
/// flocking_forces_from_sums(); the sums are taken in single precision and in a fixed order
/// (below), so they equal the per-neighbour sums to float rounding, not bit for bit.
///
/// Two passes: the first scans the ranges eight slots at a time and compacts, in scan order, the
/// candidates within the radius, of the group and not self (a compare per lane); the second sums
/// that list eight at a time and pays the square root and the division only for its entries.
///
/// Precision: the candidates' positions and headings come as float (NeighbourArrays); the query's
/// position, heading, cos_half_fov, the range shifts and the world size are rounded to float, the
/// squared radius is radius * radius in double rounded to float. Offsets, the range test, the
/// field of view and the separation terms are then float arithmetic; the lane sums are widened to
/// double at the end. (Offsets within a neighbourhood radius need nothing like double precision:
/// a float position in a 1 km world is exact to 0.1 mm.)
///
/// Order of the sums (what makes the result the same bits everywhere): candidates come in
/// ranges of consecutive slots, scanned in order; the t-th candidate that passes the first pass
/// (counting from 0 across all ranges) goes to lane t % 8. Each lane sums its entries in that
/// order; at the end the lanes are added as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
/// The SIMD forms and the scalar reference (LaneKernel::kScalar) run the same template, so they
/// agree bit for bit (tests/shared/behavior/flocking_lanes_test.cpp), natively (SSE2 or AVX2)
/// and in wasm SIMD128.
#include <cstdint>
#include <span>

#include "flockstep/behavior/flocking.hpp"

namespace flockstep::behavior {

/// Double lanes per block of the kernels over double columns (body_lanes.hpp).
inline constexpr std::int32_t kLaneWidth = 4;
/// Float lanes per block of the neighbourhood kernel. Arrays passed to it must be readable
/// kNeighbourLanes - 1 entries past the end of any range (the values there are masked out,
/// whatever they are).
inline constexpr std::int32_t kNeighbourLanes = 8;

/// Candidate data in structure-of-arrays form, indexed by slot, in single precision.
struct NeighbourArrays {
  const float* x = nullptr;             ///< position x, m
  const float* y = nullptr;             ///< position y, m
  const float* hx = nullptr;            ///< heading x (unit vector)
  const float* hy = nullptr;            ///< heading y
  const std::int32_t* group = nullptr;  ///< group of each slot
};

/// Consecutive slots [begin, end) to scan, seen at an image of the world.
struct SlotRange {
  std::int32_t begin = 0;
  std::int32_t end = 0;
  /// Added to these slots' positions: on a wrapped world, +-width / +-height for cells across the
  /// seam from the query (the image nearest to it), else 0. m
  Vec2 shift{0, 0};
};

/// Who counts as a neighbour of the body at `position`.
struct LaneQuery {
  Vec2 position;           ///< m
  Vec2 heading;            ///< unit vector (the field of view is centred on it)
  std::int32_t self = -1;  ///< own slot, skipped
  std::int32_t group = 0;  ///< only candidates of this group count
  real radius = 5;         ///< T31 neighbourhood radius, m (inclusive)
  /// T32 cosine of half the field of view; <= -1 sees all round. A candidate at offset d counts
  /// unless dot(heading, d) < cos_half_fov |d| (a candidate at distance 0 always counts).
  real cos_half_fov = -1;
  /// Offsets are also folded to the shortest torus displacement on width x height (math::
  /// torus_delta). Only needed where ranges cannot carry the image in `shift`: a wrapped world of
  /// fewer than three cells on an axis.
  bool wrap = false;
  real width = 0, height = 0;  ///< m (only with wrap)
};

/// Which implementation of the kernel to run (all give the same bits).
enum class LaneKernel : std::uint8_t {
  kSimd,     ///< the widest the CPU has: AVX2 where present (x86-64), else SSE2 / wasm SIMD128
  kSimd128,  ///< 128-bit vectors: SSE2 natively, SIMD128 in wasm
  kScalar,   ///< the reference: the same operations lane by lane in plain C++
};

/// The sums and what the kernel could not express.
struct LaneFlockResult {
  FlockSums sums;
  /// A kept candidate sits exactly at `position`: its separation term needs the coincident rule
  /// (separation_term), which the lanes leave out; the caller recomputes such a body's sums.
  bool coincident = false;
};

/// T76 sums over the candidates of `ranges` that pass LaneQuery's tests, written into `out`.
/// The world's form: the kernel stores each sum where the caller keeps it. Returned by value, the
/// result crossed the stack - the kernel's 8-byte stores read back by the caller's 16-byte copy,
/// a store-forwarding stall per agent (docs/performance.md).
void flock_sums_lanes(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges,
                      LaneKernel kernel, LaneFlockResult& out);

/// The same sums returned by value.
inline LaneFlockResult flock_sums_lanes(const LaneQuery& q, const NeighbourArrays& a, std::span<const SlotRange> ranges,
                                        LaneKernel kernel = LaneKernel::kSimd) {
  LaneFlockResult out;
  flock_sums_lanes(q, a, ranges, kernel, out);
  return out;
}

/// True when LaneKernel::kSimd runs vector instructions in this build (SSE2/AVX2 natively,
/// SIMD128 in wasm); false when it falls back to the scalar form.
bool lanes_are_simd();
/// What LaneKernel::kSimd runs on this CPU: "avx2", "sse2", "simd128" or "scalar".
const char* lanes_instruction_set();

}  // namespace flockstep::behavior
