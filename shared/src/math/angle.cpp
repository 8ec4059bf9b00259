#include "flockstep/math/angle.hpp"

namespace flockstep::math {
namespace {

// fdlibm __kernel_sin / __kernel_cos minimax coefficients on [-pi/4, pi/4].
constexpr real S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04,
               S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
constexpr real C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05,
               C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;

real kernel_sin(real x) {
  const real z = x * x;
  return x + x * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
}
real kernel_cos(real x) {
  const real z = x * x;
  const real r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  // 1 - z/2 computed as in fdlibm to keep the low bits: w = 1 - hz, then add back the rounding.
  const real hz = 0.5 * z;
  const real w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + z * r);
}

// pi/2 split into a 33-bit head and a tail (Cody-Waite), so x - n*pi/2 is exact for moderate n.
constexpr real kPio2Hi = 1.57079632673412561417e+00;
constexpr real kPio2Lo = 6.07710050650619224932e-11;
constexpr real kInvPio2 = 6.36619772367581382433e-01;

// fdlibm atan tables.
constexpr real kAtanHi[] = {4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
                            1.57079632679489655800e+00};
constexpr real kAtanLo[] = {2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
                            6.12323399573676603587e-17};
constexpr real kAT[] = {3.33333333333329318027e-01,  -1.99999999998764832476e-01, 1.42857142725034663711e-01,
                        -1.11111104054623557880e-01, 9.09088713343650656196e-02,  -7.69187620504482999495e-02,
                        6.66107313738753120669e-02,  -5.83357013379057348645e-02, 4.97687799461593236017e-02,
                        -3.65315727442169155270e-02, 1.62858201153657823623e-02};

// atan of a non-negative finite or infinite x.
real atan_pos(real x) {
  if (x > 7.3786976294838206464e19) return kAtanHi[3] + kAtanLo[3];  // 2^66: atan is pi/2 to the last bit
  int id;
  if (x < 0.4375) {
    id = -1;
  } else if (x < 1.1875) {
    if (x < 0.6875) {
      id = 0;
      x = (2.0 * x - 1.0) / (2.0 + x);
    } else {
      id = 1;
      x = (x - 1.0) / (x + 1.0);
    }
  } else if (x < 2.4375) {
    id = 2;
    x = (x - 1.5) / (1.0 + 1.5 * x);
  } else {
    id = 3;
    x = -1.0 / x;
  }
  const real z = x * x;
  const real w = z * z;
  const real s1 = z * (kAT[0] + w * (kAT[2] + w * (kAT[4] + w * (kAT[6] + w * (kAT[8] + w * kAT[10])))));
  const real s2 = w * (kAT[1] + w * (kAT[3] + w * (kAT[5] + w * (kAT[7] + w * kAT[9]))));
  if (id < 0) return x - x * (s1 + s2);
  return kAtanHi[id] - ((x * (s1 + s2) - kAtanLo[id]) - x);
}

// Beyond this magnitude one ulp of x exceeds 0.1 rad, so the angle carries no information; we
// only promise a bounded, deterministic answer there. Below it, n*kPio2Hi may round, which costs
// accuracy (about 1e-6 at 1e10) but keeps |r| <= pi/4 + tiny, so results stay bounded.
constexpr real kMaxMeaningfulAngle = 1e15;

// Coarse reduction of a huge finite angle into [0, 2pi); falls back to 0 when the product
// rounds so badly that the remainder is out of range. Deterministic (floor and IEEE ops only).
real reduce_huge(real x) {
  const real r = x - kTwoPi * std::floor(x / kTwoPi);
  return (r >= 0 && r < kTwoPi) ? r : 0.0;
}

}  // namespace

SinCos sin_cos(real x) {
  if (!is_finite(x)) return {x - x, x - x};  // NaN in, NaN out: the codec keeps NaN out of state
  if (!(x < kMaxMeaningfulAngle && x > -kMaxMeaningfulAngle)) x = reduce_huge(x);
  // n = nearest integer to x / (pi/2); floor is exact, so this is deterministic.
  const real n = std::floor(x * kInvPio2 + 0.5);
  const real r = (x - n * kPio2Hi) - n * kPio2Lo;
  const real s = kernel_sin(r);
  const real c = kernel_cos(r);
  // Quadrant from n mod 4; n is an integer held exactly in a double, and may be negative.
  long long q = static_cast<long long>(n) % 4;
  if (q < 0) q += 4;
  switch (q) {
    case 0: return {s, c};
    case 1: return {c, -s};
    case 2: return {-s, -c};
    default: return {-c, s};
  }
}

real arctan2(real y, real x) {
  if (y == 0) return x < 0 ? kPi : 0.0;  // keeps the result in (-pi, pi]; the origin maps to 0
  if (x == 0) return y > 0 ? kHalfPi : -kHalfPi;
  const real ay = y < 0 ? -y : y;
  const real ax = x < 0 ? -x : x;
  real t = atan_pos(ay / ax);
  if (x < 0) t = kPi - t;
  return y < 0 ? -t : t;
}

real arccos_clamped(real x) {
  x = clamp(x, -1.0, 1.0);
  return arctan2(sqrt((1.0 - x) * (1.0 + x)), x);
}

real wrap_angle(real phi) {
  if (!is_finite(phi)) return phi;
  if (!(phi < kMaxMeaningfulAngle && phi > -kMaxMeaningfulAngle)) phi = reduce_huge(phi);
  real r = phi - kTwoPi * std::floor(phi / kTwoPi + 0.5);
  // Two-sided fix-up: floor(...+0.5) can land the result on -pi or a hair outside.
  if (r <= -kPi) r += kTwoPi;
  if (r > kPi) r -= kTwoPi;
  return r;
}

}  // namespace flockstep::math
