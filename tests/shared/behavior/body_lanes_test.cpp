// T08 body update on lanes (body_lanes.hpp): every form (AVX2 where the CPU has it, 128-bit
// SSE2 / wasm SIMD128, the scalar reference) gives body_update's bits for each lane.
#include "flockstep/behavior/body_lanes.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "flockstep/behavior/body.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/math/transform.hpp"

namespace flockstep::behavior {
namespace {

std::uint64_t bits(real x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

TEST(BodyLanes, T08_EveryFormGivesBodyUpdatesBitsPerLane) {
  auto rng = math::Rng::seeded(808, 3);
  const real dt = 1.0 / 60;
  std::int32_t truncated_forces = 0, truncated_speeds = 0, kept_headings = 0;
  for (int round = 0; round < 500; ++round) {
    BodyLanes in{};
    Body ref[kLaneWidth];
    Vec2 force[kLaneWidth];
    for (int j = 0; j < kLaneWidth; ++j) {
      Body& b = ref[j];
      b.mass = rng.uniform(0.5, 3);
      b.max_force = rng.uniform(1, 20);
      b.max_speed = rng.uniform(1, 10);
      b.position = {rng.uniform(-100, 100), rng.uniform(-100, 100)};
      b.heading = math::as_vector(rng.uniform(-math::kPi, math::kPi));
      // Mix the cases each mask decides: forces inside and beyond max_force, speeds that end
      // above max_speed, bodies at rest with no force (the heading must stay as it was).
      const int kind = static_cast<int>(rng.uniform(0, 4));
      b.velocity = kind == 3 ? Vec2{} : math::as_vector(rng.uniform(-math::kPi, math::kPi)) * rng.uniform(0, 12);
      force[j] =
          kind == 3 ? Vec2{} : math::as_vector(rng.uniform(-math::kPi, math::kPi)) * rng.uniform(0, 2 * b.max_force);
      in.px[j] = b.position.x;
      in.py[j] = b.position.y;
      in.vx[j] = b.velocity.x;
      in.vy[j] = b.velocity.y;
      in.hx[j] = b.heading.x;
      in.hy[j] = b.heading.y;
      in.fx[j] = force[j].x;
      in.fy[j] = force[j].y;
      in.mass[j] = b.mass;
      in.max_force[j] = b.max_force;
      in.max_speed[j] = b.max_speed;
      truncated_forces += math::length(force[j]) > b.max_force;
      const Vec2 before = b.heading;
      body_update(b, force[j], dt);
      truncated_speeds += math::length(b.velocity) >= b.max_speed * (1 - 1e-12);
      kept_headings += b.heading == before;
    }
    for (const LaneKernel k : {LaneKernel::kSimd, LaneKernel::kSimd128, LaneKernel::kScalar}) {
      BodyLanes out = in;
      body_update_lanes(out, dt, k);
      for (int j = 0; j < kLaneWidth; ++j) {
        SCOPED_TRACE(testing::Message() << "round " << round << " lane " << j << " kernel " << static_cast<int>(k));
        EXPECT_EQ(bits(out.px[j]), bits(ref[j].position.x));
        EXPECT_EQ(bits(out.py[j]), bits(ref[j].position.y));
        EXPECT_EQ(bits(out.vx[j]), bits(ref[j].velocity.x));
        EXPECT_EQ(bits(out.vy[j]), bits(ref[j].velocity.y));
        EXPECT_EQ(bits(out.hx[j]), bits(ref[j].heading.x));
        EXPECT_EQ(bits(out.hy[j]), bits(ref[j].heading.y));
      }
    }
  }
  // The random bodies really exercised both sides of each mask.
  EXPECT_GT(truncated_forces, 100);
  EXPECT_GT(truncated_speeds, 100);
  EXPECT_GT(kept_headings, 100);
}

TEST(BodyLanes, T08_ColumnsFormGivesBodyUpdatesBitsForAnyCountAndLeavesTheRestAlone) {
  // body_update_columns over a table's Vec2 columns: whole blocks of four in the lane kernel and
  // the last n % 4 through BodyLanes. Every count from 0 to 13 (every remainder, with and without
  // whole blocks), started at an offset into the columns as the world's runs are; the entries
  // around the run must keep their bits.
  auto rng = math::Rng::seeded(809, 5);
  const real dt = 1.0 / 60;
  constexpr std::int32_t kOffset = 3, kCapacity = 24;
  std::int32_t truncated_speeds = 0;
  for (int round = 0; round < 40; ++round) {
    for (std::int32_t n = 0; n <= 13; ++n) {
      const real mass = rng.uniform(0.5, 3), max_force = rng.uniform(1, 20), max_speed = rng.uniform(1, 10);
      std::vector<Vec2> pos(kCapacity), vel(kCapacity), head(kCapacity), force(kCapacity);
      for (std::int32_t k = 0; k < kCapacity; ++k) {
        pos[k] = {rng.uniform(-100, 100), rng.uniform(-100, 100)};
        head[k] = math::as_vector(rng.uniform(-math::kPi, math::kPi));
        const bool rest = rng.uniform(0, 4) >= 3;  // at rest with no force: the heading must stay
        vel[k] = rest ? Vec2{} : math::as_vector(rng.uniform(-math::kPi, math::kPi)) * rng.uniform(0, 12);
        force[k] = rest ? Vec2{} : math::as_vector(rng.uniform(-math::kPi, math::kPi)) * rng.uniform(0, 2 * max_force);
      }
      std::vector<Vec2> want_pos = pos, want_vel = vel, want_head = head;
      for (std::int32_t k = kOffset; k < kOffset + n; ++k) {
        Body b{pos[k], vel[k], head[k], mass, max_force, max_speed, 1};
        body_update(b, force[k], dt);
        want_pos[k] = b.position;
        want_vel[k] = b.velocity;
        want_head[k] = b.heading;
        truncated_speeds += math::length(b.velocity) >= max_speed * (1 - 1e-12);
      }
      for (const LaneKernel kernel : {LaneKernel::kSimd, LaneKernel::kSimd128, LaneKernel::kScalar}) {
        std::vector<Vec2> p = pos, v = vel, h = head;
        body_update_columns({p.data() + kOffset, v.data() + kOffset, h.data() + kOffset, force.data() + kOffset, mass,
                             max_force, max_speed},
                            n, dt, kernel);
        for (std::int32_t k = 0; k < kCapacity; ++k) {
          SCOPED_TRACE(testing::Message()
                       << "round " << round << " n " << n << " entry " << k << " kernel " << static_cast<int>(kernel));
          EXPECT_EQ(bits(p[k].x), bits(want_pos[k].x));
          EXPECT_EQ(bits(p[k].y), bits(want_pos[k].y));
          EXPECT_EQ(bits(v[k].x), bits(want_vel[k].x));
          EXPECT_EQ(bits(v[k].y), bits(want_vel[k].y));
          EXPECT_EQ(bits(h[k].x), bits(want_head[k].x));
          EXPECT_EQ(bits(h[k].y), bits(want_head[k].y));
        }
      }
    }
  }
  EXPECT_GT(truncated_speeds, 100);  // the speed clamp was exercised
}

}  // namespace
}  // namespace flockstep::behavior
