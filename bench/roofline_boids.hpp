#pragma once
/// \file roofline_boids.hpp
/// A plain boids kernel written for the benchmarks only: the reference the World's flock tick is
/// measured against side by side (BM_RooflineBoids in sim_bench.cpp, docs/performance.md). It is
/// what a hand-tuned single-purpose flock costs on this machine: separation, alignment, cohesion,
/// a force and speed clamp, Euler integration on a wrapped square, over a grid that is re-sorted
/// every tick (the sort is part of the step, as the World's grid rebuild is). Double precision like
/// the simulation, four boids' candidates per AVX2 instruction (GCC vector extensions).
///
/// What it leaves out, and the World pays for: the 270 degree field of view, the cruise and wander
/// terms, obstacle avoidance and push-out, the prioritised combiner, technique counters, group
/// tests, bit-exact cross-platform summation order and the per-agent generational ids. So it is a
/// floor, not a like-for-like competitor: "within 2x of it" is the target the flock tick is held to.
///
/// Written by hand on purpose (it is the measuring stick): no library offers a boids kernel.
#include <cstdint>
#include <vector>

namespace flockstep::bench {

/// Parameters matched to sim::canonical::flock(n): 0.12 boids per m^2, 6 m neighbourhood and cell.
struct RooflineParams {
  double radius = 6;        ///< neighbourhood radius, m; also the grid cell size [Limit: > 0]
  double max_speed = 6;     ///< m/s
  double max_force = 12;    ///< N on a unit mass
  double w_separation = 2;  ///< weights of the three Reynolds terms
  double w_alignment = 1;
  double w_cohesion = 1;
  double dt = 1.0 / 60;  ///< s
};

/// n boids on a wrapped side x side square, structure of arrays; step() sorts them into cell order
/// (the storage order after a step is the cell order of its start) and moves them one tick.
class RooflineBoids {
 public:
  RooflineBoids(std::int32_t n, std::uint64_t seed, RooflineParams p = {});
  /// One tick: counting sort into cell order, per-cell candidate lists, sums, forces, integration.
  /// Returns the number of neighbour pairs counted (a checksum the benchmark reports).
  std::int64_t step();
  std::int32_t size() const { return n_; }
  double side() const { return side_; }

 private:
  std::int32_t n_;
  double side_;
  RooflineParams p_;
  std::int32_t cols_;
  double cell_;
  std::vector<double> x_, y_, vx_, vy_;      // storage, cell order of the last step's start
  std::vector<double> sx_, sy_, svx_, svy_;  // the same, sorted this tick
  std::vector<std::int32_t> cell_of_, start_;
  // One cell's candidates (its 3x3 neighbourhood, images pre-shifted), padded to whole vectors.
  std::vector<double> cx_, cy_, cvx_, cvy_;
};

/// True when this CPU runs the AVX2 build of the kernel (the benchmark skips otherwise).
bool roofline_supported();

}  // namespace flockstep::bench
