// The roofline boids kernel (roofline_boids.hpp). This file alone is compiled with -mavx2
// (bench/CMakeLists.txt); the benchmark calls it only where roofline_supported().
#include "roofline_boids.hpp"

#include <cmath>
#include <cstring>

namespace flockstep::bench {

namespace {

// Four doubles: GCC lowers the arithmetic to one AVX2 instruction per operation.
typedef double D4 __attribute__((vector_size(32)));
typedef std::int64_t M4 __attribute__((vector_size(32)));

D4 load(const double* p) {
  D4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
D4 splat(double x) { return D4{x, x, x, x}; }
double hsum(D4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

// A far-away position for the padding lanes of a candidate list: outside every radius.
constexpr double kFar = 1e30;

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double uniform(std::uint64_t& s) { return static_cast<double>(splitmix(s) >> 11) * 0x1.0p-53; }

/// Scales (x, y) down to length max when longer.
void truncate(double& x, double& y, double max) {
  const double l2 = x * x + y * y;
  if (l2 > max * max) {
    const double s = max / std::sqrt(l2);
    x *= s;
    y *= s;
  }
}

/// Reynolds' steering towards a desired direction at full speed: normalise(d) * max_speed - v.
void seek_direction(double dx, double dy, double vx, double vy, double max_speed, double& fx, double& fy) {
  const double l = std::sqrt(dx * dx + dy * dy);
  if (l > 0) {
    fx = dx / l * max_speed - vx;
    fy = dy / l * max_speed - vy;
  } else {
    fx = 0;
    fy = 0;
  }
}

}  // namespace

bool roofline_supported() { return __builtin_cpu_supports("avx2"); }

RooflineBoids::RooflineBoids(std::int32_t n, std::uint64_t seed, RooflineParams p)
    : n_(n), side_(std::sqrt(n / 0.12)), p_(p) {
  cols_ = static_cast<std::int32_t>(std::floor(side_ / p_.radius));
  if (cols_ < 3) cols_ = 3;  // fewer columns would list a cell twice; tiny worlds are not measured
  cell_ = side_ / cols_;
  const auto un = static_cast<std::size_t>(n);
  for (auto* v : {&x_, &y_, &vx_, &vy_, &sx_, &sy_, &svx_, &svy_}) v->assign(un, 0);
  cell_of_.assign(un, 0);
  start_.assign(static_cast<std::size_t>(cols_) * cols_ + 1, 0);
  for (std::int32_t i = 0; i < n; ++i) {
    x_[i] = uniform(seed) * side_;
    y_[i] = uniform(seed) * side_;
    const double a = uniform(seed) * 6.283185307179586;
    vx_[i] = std::cos(a) * p_.max_speed / 3;
    vy_[i] = std::sin(a) * p_.max_speed / 3;
  }
}

std::int64_t RooflineBoids::step() {
  const std::int32_t n = n_, cols = cols_;
  const double inv_cell = 1 / cell_;
  // 1. Counting sort into cell order (row-major), stable.
  std::fill(start_.begin(), start_.end(), 0);
  for (std::int32_t i = 0; i < n; ++i) {
    std::int32_t cx = static_cast<std::int32_t>(x_[i] * inv_cell), cy = static_cast<std::int32_t>(y_[i] * inv_cell);
    cx = cx >= cols ? cols - 1 : cx;
    cy = cy >= cols ? cols - 1 : cy;
    cell_of_[i] = cy * cols + cx;
    ++start_[static_cast<std::size_t>(cell_of_[i]) + 1];
  }
  for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t k = start_[static_cast<std::size_t>(cell_of_[i])]++;
    sx_[k] = x_[i];
    sy_[k] = y_[i];
    svx_[k] = vx_[i];
    svy_[k] = vy_[i];
  }
  for (std::size_t c = start_.size() - 1; c > 0; --c) start_[c] = start_[c - 1];
  start_[0] = 0;

  const D4 r2 = splat(p_.radius * p_.radius), zero = splat(0), one = splat(1);
  std::int64_t pairs = 0;
  for (std::int32_t cy = 0; cy < cols; ++cy) {
    for (std::int32_t cx = 0; cx < cols; ++cx) {
      const std::int32_t cell = cy * cols + cx;
      const std::int32_t b = start_[static_cast<std::size_t>(cell)], e = start_[static_cast<std::size_t>(cell) + 1];
      if (b == e) continue;
      // 2. The cell's candidates, gathered once for all its boids: the 3x3 cells around it, each
      // seen at its image nearest this cell (wrapped world).
      std::int32_t nbr[9];
      double shx[9], shy[9];
      std::int32_t m = 0;
      for (std::int32_t oy = -1, q = 0; oy <= 1; ++oy) {
        std::int32_t ny = cy + oy;
        const double shift_y = ny < 0 ? -side_ : (ny >= cols ? side_ : 0);
        ny = (ny + cols) % cols;
        for (std::int32_t ox = -1; ox <= 1; ++ox, ++q) {
          std::int32_t nx = cx + ox;
          shx[q] = nx < 0 ? -side_ : (nx >= cols ? side_ : 0);
          shy[q] = shift_y;
          nx = (nx + cols) % cols;
          nbr[q] = ny * cols + nx;
          m += start_[static_cast<std::size_t>(nbr[q]) + 1] - start_[static_cast<std::size_t>(nbr[q])];
        }
      }
      // Whole vectors: up to three padding entries past the list, far from everyone.
      const auto padded = static_cast<std::size_t>(m + 4);
      if (cx_.size() < padded)
        for (auto* v : {&cx_, &cy_, &cvx_, &cvy_}) v->resize(padded);
      std::int32_t w = 0;
      for (std::int32_t q = 0; q < 9; ++q) {
        const auto nc = static_cast<std::size_t>(nbr[q]);
        for (std::int32_t k = start_[nc]; k < start_[nc + 1]; ++k, ++w) {
          cx_[w] = sx_[k] + shx[q];
          cy_[w] = sy_[k] + shy[q];
          cvx_[w] = svx_[k];
          cvy_[w] = svy_[k];
        }
      }
      for (std::int32_t pad = 0; pad < 4; ++pad) {
        cx_[m + pad] = kFar;
        cy_[m + pad] = kFar;
        cvx_[m + pad] = 0;
        cvy_[m + pad] = 0;
      }
      // 3. Each boid of the cell against the list, four candidates per instruction.
      for (std::int32_t i = b; i < e; ++i) {
        const D4 px = splat(sx_[i]), py = splat(sy_[i]);
        D4 cnt = zero, sepx = zero, sepy = zero, alx = zero, aly = zero, cox = zero, coy = zero;
        for (std::int32_t t = 0; t < m; t += 4) {
          const D4 dx = load(cx_.data() + t) - px, dy = load(cy_.data() + t) - py;
          const D4 d2 = dx * dx + dy * dy;
          const M4 in = (d2 <= r2) & (d2 > zero);  // inside the radius, not self (or coincident)
          const D4 inv = one / (in ? d2 : one);
          sepx -= in ? dx * inv : zero;
          sepy -= in ? dy * inv : zero;
          alx += in ? load(cvx_.data() + t) : zero;
          aly += in ? load(cvy_.data() + t) : zero;
          cox += in ? dx : zero;
          coy += in ? dy : zero;
          cnt += in ? one : zero;
        }
        const double count = hsum(cnt);
        double vx = svx_[i], vy = svy_[i];
        double fx = 0, fy = 0;
        if (count > 0) {
          // 4. The three Reynolds terms, each clamped to the force limit, then their weighted sum.
          double sfx, sfy, afx, afy, cfx, cfy;
          seek_direction(hsum(sepx), hsum(sepy), vx, vy, p_.max_speed, sfx, sfy);
          truncate(sfx, sfy, p_.max_force);
          afx = hsum(alx) / count - vx;
          afy = hsum(aly) / count - vy;
          truncate(afx, afy, p_.max_force);
          seek_direction(hsum(cox) / count, hsum(coy) / count, vx, vy, p_.max_speed, cfx, cfy);
          truncate(cfx, cfy, p_.max_force);
          fx = p_.w_separation * sfx + p_.w_alignment * afx + p_.w_cohesion * cfx;
          fy = p_.w_separation * sfy + p_.w_alignment * afy + p_.w_cohesion * cfy;
          truncate(fx, fy, p_.max_force);
          pairs += static_cast<std::int64_t>(count);
        }
        // 5. Integration with the speed clamp, then the wrap; written in this tick's sorted order.
        vx += fx * p_.dt;
        vy += fy * p_.dt;
        truncate(vx, vy, p_.max_speed);
        double x = sx_[i] + vx * p_.dt, y = sy_[i] + vy * p_.dt;
        x = x < 0 ? x + side_ : (x >= side_ ? x - side_ : x);
        y = y < 0 ? y + side_ : (y >= side_ ? y - side_ : y);
        x_[i] = x;
        y_[i] = y;
        vx_[i] = vx;
        vy_[i] = vy;
      }
    }
  }
  return pairs;
}

}  // namespace flockstep::bench
