#include "codec/snapshot_codec.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "codec/bit_stream.hpp"
#include "flockstep/math/angle.hpp"

namespace flockstep::codec {

namespace {

constexpr double kTwoPi = 2 * math::kPi;
constexpr std::int64_t kRateOne = std::int64_t{1} << kRateFractionBits;
/// Largest exp-Golomb order the per-snapshot header can name (5 bits).
constexpr unsigned kMaxOrder = 24;
/// Bits of one order in the header.
constexpr unsigned kOrderBits = 5;
/// Staleness given to an agent entering the view when the budget ranks it against known agents
/// (ticks): a little above one snapshot interval at 60/20 Hz, so new agents come in promptly
/// but do not starve the updates of agents already drawn.
constexpr double kEnteringStalenessTicks = 8;
/// Clamp of the turn / acceleration estimates (a glitch must not make the predictions absurd).
constexpr std::int64_t kMaxRate = std::int64_t{1} << 28;
/// Extras mask bits (rare changes of a known agent, coded after the motion records).
enum : unsigned {
  kExHeading = 1,  ///< heading off the velocity direction (agents predicted aligned)
  kExAngvel = 2,
  kExAim = 4,
  kExTarget = 8,
  kExState = 16,
  kExMeta = 32,  ///< kind, group, spawn tick (a player's respawn)
};
constexpr unsigned kExBits = 6;
/// Fixed exp-Golomb orders of the rare fields (their statistics do not pay for a header field).
constexpr unsigned kOrdRemovedGap = 0, kOrdCount = 4, kOrdExtrasGap = 0, kOrdHeadingExtra = 3, kOrdAngvel = 4,
                   kOrdGroup = 0, kOrdSpawnAge = 8, kOrdNewIdGap = 3, kOrdNewSpeed = 6, kOrdNewAim = 6;
/// Position units per aim unit (1/64 m against 1/8 m): an integer, so the world-point prediction
/// of the aim is integer arithmetic on both ends.
constexpr std::int64_t kPositionPerAimUnit = 8;
static_assert(kPositionUnitsPerM / kAimUnitsPerM == kPositionPerAimUnit);
/// How a snapshot predicts the aim offsets of its records (one bit in the header, the cheaper of
/// the two for that snapshot): a wander target riding with its boid keeps its offset, a seek or
/// path point stays where it is in the world while the agent moves.
enum class AimPrediction : unsigned { kOffset = 0, kWorldPoint = 1 };
/// Extras whose aim change costs more than this in the extras list (gap + mask + residuals, in
/// bits beyond the residuals) than a one-bit flag in every record: above it, aims go inline.
constexpr std::uint64_t kExtraOverheadBits = kExBits + 1;
constexpr unsigned kKindBits = 3, kStateBits = 4, kTargetBits = 32;

/// floor(a / b) for b > 0 (C++ division truncates towards zero).
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// floor(v + 0.5) as an integer: the same on every IEEE machine (no rounding-mode dependence).
std::int64_t round_to_int(double v) {
  v = std::clamp(v, -1e15, 1e15);
  return static_cast<std::int64_t>(std::floor(v + 0.5));
}

std::int64_t mod(std::int64_t v, std::int64_t m) {
  const std::int64_t r = v % m;
  return r < 0 ? r + m : r;
}

/// d modulo m, mapped to (-m/2, m/2].
std::int64_t wrap_half(std::int64_t d, std::int64_t m) {
  d = mod(d, m);
  return d > m / 2 ? d - m : d;
}

unsigned bits_for(std::int64_t max_value) {
  unsigned b = 1;
  while ((std::int64_t{1} << b) <= max_value) ++b;
  return b;
}

std::uint16_t angle_units(double rad) {
  return static_cast<std::uint16_t>(mod(round_to_int(rad * kAngleUnits / kTwoPi), kAngleUnits));
}

double angle_rad(std::int64_t u) { return math::wrap_angle(static_cast<double>(u) * kTwoPi / kAngleUnits); }

/// sin_cos of a quantised direction. A direction is one of kAngleUnits values, so the encoder
/// (twice per known agent per client) and the decoder (once per agent drawn) look it up in a
/// table filled once by the same deterministic sin_cos on the same argument: the same bits as
/// calling it, at a tenth of the cost (it was a tenth of the encoder's instructions).
math::SinCos direction_sin_cos(std::int64_t angle) {
  static const std::array<math::SinCos, kAngleUnits> table = [] {
    std::array<math::SinCos, kAngleUnits> t{};
    for (std::int32_t u = 0; u < kAngleUnits; ++u) t[u] = math::sin_cos(static_cast<double>(u) * kTwoPi / kAngleUnits);
    return t;
  }();
  if (angle >= 0 && angle < kAngleUnits) return table[static_cast<std::size_t>(angle)];
  return math::sin_cos(static_cast<double>(angle) * kTwoPi / kAngleUnits);
}

/// Velocity (m/s) of a quantised speed and direction.
math::Vec2 velocity_of(std::int64_t speed, std::int64_t angle) {
  const math::SinCos sc = direction_sin_cos(angle);
  const double s = static_cast<double>(speed) / kSpeedUnitsPerMps;
  return {s * sc.cos, s * sc.sin};
}

std::int32_t coord(double m, std::int32_t size, bool wrap) {
  const std::int64_t v = round_to_int(m * kPositionUnitsPerM);
  return static_cast<std::int32_t>(wrap ? mod(v, size) : std::clamp<std::int64_t>(v, 0, size));
}

bool aligned(const QAgent& q) { return q.heading == q.vel_angle; }

/// Speed and direction at n ticks after k (second order: they keep changing at the estimated rate).
struct Motion {
  std::int64_t speed = 0;
  std::int64_t angle = 0;
};
Motion predict_motion(const KnownAgent& k, std::int64_t n) {
  return {std::clamp<std::int64_t>(k.q.speed + (k.accel * n) / kRateOne, 0, kMaxSpeedUnits),
          mod(k.q.vel_angle + (k.turn * n) / kRateOne, kAngleUnits)};
}

/// Heading of an agent whose heading is not its velocity direction (crafts): it keeps turning at
/// its angular velocity.
std::int64_t predict_free_heading(const KnownAgent& k, std::int64_t n, const WireGeometry& g) {
  const double turn = static_cast<double>(k.q.angvel) / kAngularVelocityUnitsPerRadS * static_cast<double>(n) * g.dt;
  return mod(k.q.heading + round_to_int(turn * kAngleUnits / kTwoPi), kAngleUnits);
}

/// Position after n ticks moving from velocity v0 (speed0, angle0) to v1 (speed1, angle1). The
/// sim integrates semi-implicitly (v += a dt, then p += v dt), so with the velocity changing
/// linearly the displacement is dt * (v_1 + ... + v_n) = dt/2 * ((n - 1) v0 + (n + 1) v1).
std::array<std::int64_t, 2> predict_position(const QAgent& from, std::int64_t speed1, std::int64_t angle1,
                                             std::int64_t n, const WireGeometry& g) {
  const math::Vec2 v0 = velocity_of(from.speed, from.vel_angle);
  const math::Vec2 v1 = velocity_of(speed1, angle1);
  const double f = 0.5 * g.dt * kPositionUnitsPerM;
  const auto a = static_cast<double>(n - 1), b = static_cast<double>(n + 1);
  std::int64_t x = from.x + round_to_int((v0.x * a + v1.x * b) * f);
  std::int64_t y = from.y + round_to_int((v0.y * a + v1.y * b) * f);
  if (g.wrap) {
    x = mod(x, g.width_units);
    y = mod(y, g.height_units);
  }
  return {x, y};
}

std::int64_t coord_residual(std::int64_t actual, std::int64_t predicted, std::int64_t size, bool wrap) {
  return wrap ? wrap_half(actual - predicted, size) : actual - predicted;
}

/// The entry a receiver holds after being sent `q` at `tick`, replacing `prev` (null = new).
KnownAgent advance_entry(const KnownAgent* prev, const QAgent& q, std::uint64_t tick) {
  KnownAgent e{q, tick, 0, 0};
  if (prev && tick > prev->tick) {
    const auto n = static_cast<std::int64_t>(tick - prev->tick);
    e.turn = static_cast<std::int32_t>(std::clamp<std::int64_t>(
        wrap_half(q.vel_angle - prev->q.vel_angle, kAngleUnits) * kRateOne / n, -kMaxRate, kMaxRate));
    e.accel = static_cast<std::int32_t>(
        std::clamp<std::int64_t>((q.speed - prev->q.speed) * kRateOne / n, -kMaxRate, kMaxRate));
  }
  return e;
}

/// Cheapest exp-Golomb order for a set of values (exact total, orders 0..kMaxOrder).
unsigned best_order(const std::vector<std::uint64_t>& values) { return cheapest_exp_golomb_order(values, kMaxOrder); }

/// A known agent that changed: residuals against its prediction.
struct Update {
  std::uint32_t base = 0;  // index in the baseline frame
  std::uint32_t vis = 0;   // index in the visible list
  std::int64_t r_speed = 0, r_angle = 0, r_heading = 0, r_x = 0, r_y = 0;
  bool inline_heading = false;            // baseline not aligned: heading residual coded in the record
  std::int64_t r_aim[2][2] = {};          // aim offset residual (x, y) under each AimPrediction
  std::int64_t r_aim_x = 0, r_aim_y = 0;  // ... under the snapshot's prediction
  bool aim = false;                       // that residual is not zero
  bool motion_zero = false;               // motion exactly on its prediction
  unsigned extras = 0;
  double priority = 0;
  std::uint32_t cost = 0;  // bits, estimated with the chosen orders
  bool zero = false;       // exactly on its prediction (no record unless the stream is dense)
  bool chosen = true;      // sparse stream: has a record
};

/// Extras other than the aim (whose residual depends on the snapshot's AimPrediction).
unsigned extras_of(const QAgent& was, const QAgent& now, bool predicted_aligned) {
  unsigned m = 0;
  if (predicted_aligned && now.heading != now.vel_angle) m |= kExHeading;
  if (now.angvel != was.angvel) m |= kExAngvel;
  if (now.target != was.target) m |= kExTarget;
  if (now.state != was.state) m |= kExState;
  if (now.kind != was.kind || now.group != was.group || now.spawn_tick != was.spawn_tick) m |= kExMeta;
  return m;
}

/// The aim offset a receiver expects of an agent last sent as `was` and now at (x, y).
std::array<std::int64_t, 2> predict_aim(const QAgent& was, std::int64_t x, std::int64_t y, AimPrediction p,
                                        const WireGeometry& g) {
  // No aim (offset 0) stays no aim: composed and idle agents aim at themselves.
  if (p == AimPrediction::kOffset || (was.aim_dx == 0 && was.aim_dy == 0)) return {was.aim_dx, was.aim_dy};
  const std::int64_t dx = g.wrap ? wrap_half(was.x - x, g.width_units) : was.x - x;
  const std::int64_t dy = g.wrap ? wrap_half(was.y - y, g.height_units) : was.y - y;
  auto aim = [](std::int64_t offset, std::int64_t moved) {
    return std::clamp<std::int64_t>(offset + floor_div(moved + kPositionPerAimUnit / 2, kPositionPerAimUnit),
                                    -kMaxAimUnits, kMaxAimUnits);
  };
  return {aim(was.aim_dx, dx), aim(was.aim_dy, dy)};
}

std::uint32_t extras_cost(unsigned m, const Update& u, unsigned k_aim, const QAgent& was, const QAgent& now,
                          std::uint64_t tick) {
  std::uint32_t b = kExBits + 1;  // mask + a short gap
  if (m & kExHeading)
    b += exp_golomb_bits(zigzag(wrap_half(now.heading - now.vel_angle, kAngleUnits)), kOrdHeadingExtra);
  if (m & kExAngvel) b += exp_golomb_bits(zigzag(std::int64_t{now.angvel} - was.angvel), kOrdAngvel);
  if (m & kExAim) b += exp_golomb_bits(zigzag(u.r_aim_x), k_aim) + exp_golomb_bits(zigzag(u.r_aim_y), k_aim);
  if (m & kExTarget) b += kTargetBits;
  if (m & kExState) b += kStateBits;
  if (m & kExMeta)
    b += kKindBits + exp_golomb_bits(zigzag(now.group), kOrdGroup) +
         exp_golomb_bits(zigzag(static_cast<std::int64_t>(tick - now.spawn_tick)), kOrdSpawnAge);
  return b;
}

void put_extras(BitWriter& w, unsigned m, const Update& u, unsigned k_aim, const QAgent& was, const QAgent& now,
                std::uint64_t tick) {
  w.put(m, kExBits);
  if (m & kExHeading) w.put_seg(wrap_half(now.heading - now.vel_angle, kAngleUnits), kOrdHeadingExtra);
  if (m & kExAngvel) w.put_seg(std::int64_t{now.angvel} - was.angvel, kOrdAngvel);
  if (m & kExAim) {
    w.put_seg(u.r_aim_x, k_aim);
    w.put_seg(u.r_aim_y, k_aim);
  }
  if (m & kExTarget) w.put(now.target, kTargetBits);
  if (m & kExState) w.put(now.state, kStateBits);
  if (m & kExMeta) {
    w.put(now.kind, kKindBits);
    w.put_seg(now.group, kOrdGroup);
    w.put_seg(static_cast<std::int64_t>(tick - now.spawn_tick), kOrdSpawnAge);
  }
}

std::uint32_t new_agent_cost(const QAgent& q, std::uint64_t tick, const WireGeometry& g) {
  std::uint32_t b = 4 + kKindBits + exp_golomb_bits(zigzag(q.group), kOrdGroup) +
                    exp_golomb_bits(zigzag(static_cast<std::int64_t>(tick - q.spawn_tick)), kOrdSpawnAge) + g.x_bits +
                    g.y_bits + exp_golomb_bits(static_cast<std::uint64_t>(q.speed), kOrdNewSpeed) + kAngleBits + 1 + 3 +
                    kStateBits;
  if (!aligned(q)) b += kAngleBits;
  if (q.angvel != 0) b += exp_golomb_bits(zigzag(q.angvel), kOrdAngvel);
  if (q.aim_dx != 0 || q.aim_dy != 0)
    b += exp_golomb_bits(zigzag(q.aim_dx), kOrdNewAim) + exp_golomb_bits(zigzag(q.aim_dy), kOrdNewAim);
  if (q.target != 0) b += kTargetBits;
  return b;
}

void put_new_agent(BitWriter& w, const QAgent& q, std::int64_t prev_id, std::uint64_t tick, const WireGeometry& g) {
  w.put_ueg(static_cast<std::uint64_t>(std::int64_t{q.id} - prev_id - 1), kOrdNewIdGap);
  w.put(q.kind, kKindBits);
  w.put_seg(q.group, kOrdGroup);
  w.put_seg(static_cast<std::int64_t>(tick - q.spawn_tick), kOrdSpawnAge);
  w.put(static_cast<std::uint64_t>(q.x), g.x_bits);
  w.put(static_cast<std::uint64_t>(q.y), g.y_bits);
  w.put_ueg(static_cast<std::uint64_t>(q.speed), kOrdNewSpeed);
  w.put(q.vel_angle, kAngleBits);
  w.put(aligned(q) ? 1 : 0, 1);
  if (!aligned(q)) w.put(q.heading, kAngleBits);
  w.put(q.angvel != 0 ? 1 : 0, 1);
  if (q.angvel != 0) w.put_seg(q.angvel, kOrdAngvel);
  const bool aim = q.aim_dx != 0 || q.aim_dy != 0;
  w.put(aim ? 1 : 0, 1);
  if (aim) {
    w.put_seg(q.aim_dx, kOrdNewAim);
    w.put_seg(q.aim_dy, kOrdNewAim);
  }
  w.put(q.target != 0 ? 1 : 0, 1);
  if (q.target != 0) w.put(q.target, kTargetBits);
  w.put(q.state, kStateBits);
}

}  // namespace

WireGeometry WireGeometry::of(const sim::Scenario& s) {
  WireGeometry g;
  auto side = [](double m) {
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(round_to_int(m * kPositionUnitsPerM), 1, kMaxWorldUnits));
  };
  g.width_units = side(s.width);
  g.height_units = side(s.height);
  g.wrap = s.wrap;
  g.dt = 1.0 / (s.tick_rate_hz > 0 ? s.tick_rate_hz : 60);
  g.x_bits = bits_for(g.width_units);
  g.y_bits = bits_for(g.height_units);
  return g;
}

QAgent quantize(const sim::AgentView& a, const WireGeometry& g) {
  QAgent q;
  q.id = a.id.value;
  q.kind = static_cast<std::uint8_t>(a.kind);
  q.state = static_cast<std::uint8_t>(a.state);
  q.group = a.group;
  q.x = coord(a.position.x, g.width_units, g.wrap);
  q.y = coord(a.position.y, g.height_units, g.wrap);
  q.heading = angle_units(a.orientation);
  q.speed = static_cast<std::int32_t>(
      std::clamp<std::int64_t>(round_to_int(math::length(a.velocity) * kSpeedUnitsPerMps), 0, kMaxSpeedUnits));
  // A resting agent's direction is its heading (keeps the "aligned" prediction of vehicles).
  q.vel_angle = q.speed > 0 ? angle_units(math::arctan2(a.velocity.y, a.velocity.x)) : q.heading;
  q.angvel = static_cast<std::int32_t>(
      std::clamp<std::int64_t>(round_to_int(a.angular_velocity * kAngularVelocityUnitsPerRadS),
                               -kMaxAngularVelocityUnits, kMaxAngularVelocityUnits));
  // Relative to the quantised position, so the receiver's aim is position + offset exactly.
  const double px = q.x / kPositionUnitsPerM, py = q.y / kPositionUnitsPerM;
  q.aim_dx = static_cast<std::int32_t>(
      std::clamp<std::int64_t>(round_to_int((a.aim.x - px) * kAimUnitsPerM), -kMaxAimUnits, kMaxAimUnits));
  q.aim_dy = static_cast<std::int32_t>(
      std::clamp<std::int64_t>(round_to_int((a.aim.y - py) * kAimUnitsPerM), -kMaxAimUnits, kMaxAimUnits));
  q.target = a.target.value;
  q.spawn_tick = a.spawn_tick;
  return q;
}

sim::AgentView dequantize(const QAgent& q) {
  sim::AgentView a;
  a.id.value = q.id;
  a.kind = static_cast<sim::AgentKind>(q.kind);
  a.group = q.group;
  a.position = {q.x / kPositionUnitsPerM, q.y / kPositionUnitsPerM};
  a.velocity = velocity_of(q.speed, q.vel_angle);
  a.orientation = angle_rad(q.heading);
  a.angular_velocity = q.angvel / kAngularVelocityUnitsPerRadS;
  a.target.value = q.target;
  a.aim = {a.position.x + q.aim_dx / kAimUnitsPerM, a.position.y + q.aim_dy / kAimUnitsPerM};
  a.state = static_cast<sim::BehaviorState>(q.state);
  a.spawn_tick = q.spawn_tick;
  return a;
}

QAgent predict(const KnownAgent& k, std::uint64_t tick, const WireGeometry& g) {
  if (tick <= k.tick) return k.q;
  const auto n = static_cast<std::int64_t>(tick - k.tick);
  QAgent q = k.q;
  const Motion m = predict_motion(k, n);
  q.speed = static_cast<std::int32_t>(m.speed);
  q.vel_angle = static_cast<std::uint16_t>(m.angle);
  q.heading = static_cast<std::uint16_t>(aligned(k.q) ? m.angle : predict_free_heading(k, n, g));
  const auto p = predict_position(k.q, m.speed, m.angle, n, g);
  q.x = static_cast<std::int32_t>(std::clamp<std::int64_t>(p[0], INT32_MIN, INT32_MAX));
  q.y = static_cast<std::int32_t>(std::clamp<std::int64_t>(p[1], INT32_MIN, INT32_MAX));
  return q;
}

void encode_agents(const EncodeInput& in, const WireGeometry& g, std::string& bytes, ViewFrame& frame,
                   EncodeStats* stats) {
  static const ViewFrame kEmpty;
  const ViewFrame& base = in.base ? *in.base : kEmpty;
  const std::vector<KnownAgent>& B = base.agents;
  const std::span<const QAgent> V = in.visible;
  const std::uint64_t T = in.tick;
  auto weight = [&](std::size_t j) { return in.weight.empty() ? 1.0 : static_cast<double>(in.weight[j]); };

  // 1. Merge the baseline and the view by id: removed, changed (residuals), unchanged, entering.
  std::vector<std::uint32_t> removed;
  std::vector<Update> updates;
  std::vector<std::uint32_t> entering;
  std::uint32_t unchanged = 0;
  std::size_t i = 0, j = 0;
  while (i < B.size() || j < V.size()) {
    if (j == V.size() || (i < B.size() && B[i].q.id < V[j].id)) {
      removed.push_back(static_cast<std::uint32_t>(i++));
    } else if (i == B.size() || V[j].id < B[i].q.id) {
      entering.push_back(static_cast<std::uint32_t>(j++));
    } else {
      const KnownAgent& k = B[i];
      const QAgent& now = V[j];
      const auto n = static_cast<std::int64_t>(T - k.tick);
      const Motion m = predict_motion(k, n);
      Update u;
      u.base = static_cast<std::uint32_t>(i);
      u.vis = static_cast<std::uint32_t>(j);
      u.r_speed = now.speed - m.speed;
      u.r_angle = wrap_half(now.vel_angle - m.angle, kAngleUnits);
      const bool predicted_aligned = aligned(k.q);
      u.inline_heading = !predicted_aligned;
      if (u.inline_heading) u.r_heading = wrap_half(now.heading - predict_free_heading(k, n, g), kAngleUnits);
      const auto p = predict_position(k.q, now.speed, now.vel_angle, n, g);
      u.r_x = coord_residual(now.x, p[0], g.width_units, g.wrap);
      u.r_y = coord_residual(now.y, p[1], g.height_units, g.wrap);
      u.extras = extras_of(k.q, now, predicted_aligned);
      for (const AimPrediction ap : {AimPrediction::kOffset, AimPrediction::kWorldPoint}) {
        const auto a = predict_aim(k.q, now.x, now.y, ap, g);
        u.r_aim[static_cast<unsigned>(ap)][0] = now.aim_dx - a[0];
        u.r_aim[static_cast<unsigned>(ap)][1] = now.aim_dy - a[1];
      }
      u.motion_zero = u.r_speed == 0 && u.r_angle == 0 && u.r_heading == 0 && u.r_x == 0 && u.r_y == 0;
      u.priority = weight(j) * static_cast<double>(n);
      updates.push_back(u);
      ++i;
      ++j;
    }
  }

  // 1b. The aim: the cheaper prediction for this snapshot, its order, and whether the changes go
  // in the records (a flag each) or in the extras list (gap + mask each).
  AimPrediction aim_prediction = AimPrediction::kOffset;
  unsigned k_aim = 0;
  bool aim_inline = false;
  {
    std::vector<std::uint64_t> va[2];
    std::uint64_t changed[2] = {0, 0};
    for (const Update& u : updates)
      for (unsigned p = 0; p < 2; ++p)
        if (u.r_aim[p][0] != 0 || u.r_aim[p][1] != 0) {
          va[p].push_back(zigzag(u.r_aim[p][0]));
          va[p].push_back(zigzag(u.r_aim[p][1]));
          ++changed[p];
        }
    std::uint64_t cost[2];
    unsigned order[2];
    for (unsigned p = 0; p < 2; ++p) {
      order[p] = best_order(va[p]);
      cost[p] = changed[p] * kExtraOverheadBits;
      for (std::uint64_t v : va[p]) cost[p] += exp_golomb_bits(v, order[p]);
    }
    const unsigned p = cost[1] < cost[0] ? 1 : 0;
    aim_prediction = static_cast<AimPrediction>(p);
    k_aim = order[p];
    std::uint64_t records = 0;  // agents that get a record whatever their aim does
    for (Update& u : updates) {
      u.r_aim_x = u.r_aim[p][0];
      u.r_aim_y = u.r_aim[p][1];
      u.aim = u.r_aim_x != 0 || u.r_aim_y != 0;
      records += (!u.motion_zero || u.extras != 0) ? 1 : 0;
    }
    aim_inline = changed[p] * kExtraOverheadBits > records + changed[p];
    for (Update& u : updates) {
      if (u.aim && !aim_inline) u.extras |= kExAim;
      // Exactly on its prediction: the receiver's extrapolation is already right, no record.
      u.zero = u.motion_zero && u.extras == 0 && !u.aim;
      unchanged += u.zero ? 1 : 0;
      u.chosen = !u.zero;
    }
  }

  // 2. Orders of the motion residuals, over every candidate.
  std::vector<std::uint64_t> vs, va, vh, vp;
  vs.reserve(updates.size());
  va.reserve(updates.size());
  vp.reserve(2 * updates.size());
  for (const Update& u : updates) {
    if (u.zero) continue;
    vs.push_back(zigzag(u.r_speed));
    va.push_back(zigzag(u.r_angle));
    if (u.inline_heading) vh.push_back(zigzag(u.r_heading));
    vp.push_back(zigzag(u.r_x));
    vp.push_back(zigzag(u.r_y));
  }
  const unsigned k_speed = best_order(vs), k_angle = best_order(va), k_heading = best_order(vh), k_pos = best_order(vp);

  // 3. The budget: rank changed and entering agents by interest x staleness, keep what fits.
  std::vector<bool> enter_chosen(entering.size(), true);
  std::uint32_t deferred = 0;
  if (in.budget_bytes > 0) {
    struct Cand {
      double priority;
      std::uint32_t cost;
      std::int64_t index;  // >= 0: updates[index]; < 0: entering[-index - 1]
    };
    std::vector<Cand> cands;
    cands.reserve(updates.size() + entering.size());
    std::uint64_t total = 0;
    for (std::size_t u = 0; u < updates.size(); ++u) {
      Update& up = updates[u];
      if (up.zero) continue;
      up.cost =
          1 + exp_golomb_bits(zigzag(up.r_speed), k_speed) + exp_golomb_bits(zigzag(up.r_angle), k_angle) +
          exp_golomb_bits(zigzag(up.r_x), k_pos) + exp_golomb_bits(zigzag(up.r_y), k_pos) +
          (up.inline_heading ? exp_golomb_bits(zigzag(up.r_heading), k_heading) : 0) +
          (aim_inline
               ? 1 + (up.aim ? exp_golomb_bits(zigzag(up.r_aim_x), k_aim) + exp_golomb_bits(zigzag(up.r_aim_y), k_aim)
                             : 0)
               : 0) +
          (up.extras ? extras_cost(up.extras, up, k_aim, B[up.base].q, V[up.vis], T) : 0);
      cands.push_back({up.priority, up.cost, static_cast<std::int64_t>(u)});
      total += up.cost;
    }
    for (std::size_t e = 0; e < entering.size(); ++e) {
      const std::uint32_t c = new_agent_cost(V[entering[e]], T, g);
      cands.push_back({weight(entering[e]) * kEnteringStalenessTicks, c, -static_cast<std::int64_t>(e) - 1});
      total += c;
    }
    const std::uint64_t fixed = 64 + 2 * removed.size();  // header, counts, removal list (estimate)
    const std::uint64_t budget_bits = std::uint64_t{in.budget_bytes} * 8;
    if (total + fixed > budget_bits) {
      std::stable_sort(cands.begin(), cands.end(),
                       [](const Cand& a, const Cand& b) { return a.priority > b.priority; });
      std::uint64_t used = fixed;
      for (const Cand& c : cands) {
        const bool fits = used + c.cost <= budget_bits;
        if (fits) used += c.cost;
        else ++deferred;
        if (c.index >= 0) updates[static_cast<std::size_t>(c.index)].chosen = fits;
        else enter_chosen[static_cast<std::size_t>(-c.index - 1)] = fits;
      }
    }
  }

  // 4. Write.
  BitWriter w(bytes);
  w.put_ueg(removed.size(), kOrdCount);
  {
    std::int64_t prev = -1;
    for (std::uint32_t r : removed) {
      w.put_ueg(static_cast<std::uint64_t>(r - prev - 1), kOrdRemovedGap);
      prev = r;
    }
  }
  // Sparse: records of changed agents, each with the gap since the previous one. Dense (when
  // nearly every known agent moved, as in a flock): a record for every kept agent, no gaps.
  std::vector<std::uint64_t> gaps;
  std::uint32_t n_sparse = 0;
  {
    std::int64_t prev = -1;
    for (const Update& u : updates) {
      if (!u.chosen) continue;
      gaps.push_back(static_cast<std::uint64_t>(u.base - prev - 1));
      prev = u.base;
      ++n_sparse;
    }
  }
  const unsigned k_gap = best_order(gaps);
  bool dense = deferred == 0 && !updates.empty();
  if (dense) {
    std::uint64_t gap_bits = 0;
    for (std::uint64_t gp : gaps) gap_bits += exp_golomb_bits(gp, k_gap);
    std::uint64_t zero_bits = 0;
    for (const Update& u : updates)
      if (u.zero)
        zero_bits += 4 + k_speed + k_angle + 2 * k_pos + (u.inline_heading ? 1 + k_heading : 0) + (aim_inline ? 1 : 0);
    dense = zero_bits < gap_bits;
  }
  if (dense)
    for (Update& u : updates) u.chosen = true;
  const auto n_updates = static_cast<std::uint32_t>(dense ? updates.size() : n_sparse);
  for (unsigned k : {k_gap, k_speed, k_angle, k_heading, k_pos, k_aim}) w.put(k, kOrderBits);
  w.put(static_cast<unsigned>(aim_prediction), 1);
  w.put(aim_inline ? 1 : 0, 1);
  w.put(dense ? 1 : 0, 1);
  w.put_ueg(n_updates, kOrdCount);
  {
    std::size_t g_index = 0;
    for (const Update& u : updates) {
      if (!u.chosen) continue;
      if (!dense) w.put_ueg(gaps[g_index++], k_gap);
      w.put_seg(u.r_speed, k_speed);
      w.put_seg(u.r_angle, k_angle);
      if (u.inline_heading) w.put_seg(u.r_heading, k_heading);
      w.put_seg(u.r_x, k_pos);
      w.put_seg(u.r_y, k_pos);
      if (aim_inline) {
        w.put(u.aim ? 1 : 0, 1);
        if (u.aim) {
          w.put_seg(u.r_aim_x, k_aim);
          w.put_seg(u.r_aim_y, k_aim);
        }
      }
    }
  }
  {
    std::uint32_t n_extras = 0;
    for (const Update& u : updates) n_extras += (u.chosen && u.extras) ? 1 : 0;
    w.put_ueg(n_extras, kOrdCount);
    std::int64_t prev = -1, idx = 0;
    for (const Update& u : updates) {
      if (!u.chosen) continue;
      if (u.extras) {
        w.put_ueg(static_cast<std::uint64_t>(idx - prev - 1), kOrdExtrasGap);
        put_extras(w, u.extras, u, k_aim, B[u.base].q, V[u.vis], T);
        prev = idx;
      }
      ++idx;
    }
  }
  std::uint32_t n_enter = 0;
  for (bool c : enter_chosen) n_enter += c ? 1 : 0;
  w.put_ueg(n_enter, kOrdCount);
  {
    std::int64_t prev_id = -1;
    for (std::size_t e = 0; e < entering.size(); ++e) {
      if (!enter_chosen[e]) continue;
      const QAgent& q = V[entering[e]];
      put_new_agent(w, q, prev_id, T, g);
      prev_id = q.id;
    }
  }
  const std::size_t bits = w.bit_count();
  w.finish();

  // 5. The receiver's frame after decoding: merge kept baseline entries and entering agents.
  frame.tick = T;
  frame.agents.clear();
  frame.agents.reserve(B.size() - removed.size() + n_enter);
  {
    std::size_t r = 0, u = 0, e = 0;
    for (std::size_t b = 0; b <= B.size(); ++b) {
      // Entering agents with smaller ids than the next kept baseline entry go first.
      const std::uint32_t limit = b < B.size() ? B[b].q.id : 0xFFFFFFFFu;
      while (e < entering.size() && (V[entering[e]].id < limit || b == B.size())) {
        if (enter_chosen[e]) frame.agents.push_back(advance_entry(nullptr, V[entering[e]], T));
        ++e;
      }
      if (b == B.size()) break;
      if (r < removed.size() && removed[r] == b) {
        ++r;
        continue;
      }
      while (u < updates.size() && updates[u].base < b) ++u;
      if (u < updates.size() && updates[u].base == b && updates[u].chosen)
        frame.agents.push_back(advance_entry(&B[b], V[updates[u].vis], T));
      else frame.agents.push_back(B[b]);
    }
  }
  if (stats) {
    stats->updated = n_sparse;
    stats->entered = n_enter;
    stats->removed = static_cast<std::uint32_t>(removed.size());
    stats->deferred = deferred;
    stats->unchanged = unchanged;
    stats->bits = bits;
    stats->aim_world_point = aim_prediction == AimPrediction::kWorldPoint;
    stats->aim_inline = aim_inline;
    stats->aim_changes = 0;
    for (const Update& u : updates) stats->aim_changes += (u.chosen && u.aim) ? 1 : 0;
  }
}

Result decode_agents(const ViewFrame* base_in, std::uint64_t tick, std::string_view bytes, const WireGeometry& g,
                     ViewFrame& out) {
  static const ViewFrame kEmpty;
  const ViewFrame& base = base_in ? *base_in : kEmpty;
  const std::vector<KnownAgent>& B = base.agents;
  auto bad = [](const char* what) { return Result{Status::kMalformed, std::string("snapshot agents: ") + what}; };
  if (base_in && tick <= base.tick) return bad("baseline is not older than the snapshot");
  BitReader r(bytes);

  // Removed entries.
  const std::uint64_t n_removed = r.get_ueg(kOrdCount);
  if (!r.ok() || n_removed > B.size()) return bad("removed count");
  std::vector<char> state(B.size(), 0);  // 0 kept, 1 removed, 2 updated
  {
    std::int64_t prev = -1;
    for (std::uint64_t k = 0; k < n_removed; ++k) {
      const std::int64_t idx = prev + 1 + static_cast<std::int64_t>(r.get_ueg(kOrdRemovedGap));
      if (!r.ok() || idx >= static_cast<std::int64_t>(B.size())) return bad("removed index");
      state[static_cast<std::size_t>(idx)] = 1;
      prev = idx;
    }
  }
  unsigned k_ord[6];
  for (unsigned& k : k_ord) {
    k = static_cast<unsigned>(r.get(kOrderBits));
    if (k > kMaxOrder) return bad("code order");
  }
  const unsigned k_gap = k_ord[0], k_speed = k_ord[1], k_angle = k_ord[2], k_heading = k_ord[3], k_pos = k_ord[4],
                 k_aim = k_ord[5];
  const auto aim_prediction = static_cast<AimPrediction>(r.get(1));
  const bool aim_inline = r.get(1) != 0;

  // Motion records of known agents (dense: one for every kept agent, in order; sparse: gaps).
  const bool dense = r.get(1) != 0;
  const std::uint64_t n_updates = r.get_ueg(kOrdCount);
  if (!r.ok() || n_updates > B.size() || (dense && n_updates != B.size() - n_removed)) return bad("update count");
  std::vector<std::uint32_t> upd_index;
  std::vector<QAgent> upd_q;
  upd_index.reserve(static_cast<std::size_t>(n_updates));
  upd_q.reserve(static_cast<std::size_t>(n_updates));
  {
    std::int64_t prev = -1;
    for (std::uint64_t k = 0; k < n_updates; ++k) {
      std::int64_t idx = prev + 1;
      if (dense)
        while (idx < static_cast<std::int64_t>(B.size()) && state[static_cast<std::size_t>(idx)] == 1) ++idx;
      else idx += static_cast<std::int64_t>(r.get_ueg(k_gap));
      if (!r.ok() || idx >= static_cast<std::int64_t>(B.size()) || state[static_cast<std::size_t>(idx)] != 0)
        return bad("update index");
      prev = idx;
      const KnownAgent& known = B[static_cast<std::size_t>(idx)];
      const auto n = static_cast<std::int64_t>(tick - known.tick);
      const Motion m = predict_motion(known, n);
      QAgent q = known.q;
      const std::int64_t speed = m.speed + r.get_seg(k_speed);
      if (speed < 0 || speed > kMaxSpeedUnits) return bad("speed out of range");
      q.speed = static_cast<std::int32_t>(speed);
      q.vel_angle = static_cast<std::uint16_t>(mod(m.angle + r.get_seg(k_angle), kAngleUnits));
      if (aligned(known.q)) q.heading = q.vel_angle;  // a heading off the velocity comes in the extras
      else
        q.heading =
            static_cast<std::uint16_t>(mod(predict_free_heading(known, n, g) + r.get_seg(k_heading), kAngleUnits));
      const auto p = predict_position(known.q, q.speed, q.vel_angle, n, g);
      std::int64_t x = p[0] + r.get_seg(k_pos), y = p[1] + r.get_seg(k_pos);
      if (g.wrap) {
        x = mod(x, g.width_units);
        y = mod(y, g.height_units);
      }
      if (!r.ok() || x < 0 || x > g.width_units || y < 0 || y > g.height_units) return bad("position out of the world");
      q.x = static_cast<std::int32_t>(x);
      q.y = static_cast<std::int32_t>(y);
      // The aim: its prediction, plus the residual of this record (inline) or of its extras.
      auto aim = predict_aim(known.q, x, y, aim_prediction, g);
      if (aim_inline && r.get(1) != 0) {
        aim[0] += r.get_seg(k_aim);
        aim[1] += r.get_seg(k_aim);
        if (std::max(std::abs(aim[0]), std::abs(aim[1])) > kMaxAimUnits) return bad("aim out of range");
      }
      q.aim_dx = static_cast<std::int32_t>(aim[0]);
      q.aim_dy = static_cast<std::int32_t>(aim[1]);
      state[static_cast<std::size_t>(idx)] = 2;
      upd_index.push_back(static_cast<std::uint32_t>(idx));
      upd_q.push_back(q);
    }
  }

  // Extras of updated agents.
  const std::uint64_t n_extras = r.get_ueg(kOrdCount);
  if (!r.ok() || n_extras > n_updates) return bad("extras count");
  {
    std::int64_t prev = -1;
    for (std::uint64_t k = 0; k < n_extras; ++k) {
      const std::int64_t idx = prev + 1 + static_cast<std::int64_t>(r.get_ueg(kOrdExtrasGap));
      if (!r.ok() || idx >= static_cast<std::int64_t>(n_updates)) return bad("extras index");
      prev = idx;
      QAgent& q = upd_q[static_cast<std::size_t>(idx)];
      const auto m = static_cast<unsigned>(r.get(kExBits));
      if (m & kExHeading)
        q.heading = static_cast<std::uint16_t>(mod(q.vel_angle + r.get_seg(kOrdHeadingExtra), kAngleUnits));
      if (m & kExAngvel) {
        const std::int64_t v = q.angvel + r.get_seg(kOrdAngvel);
        if (v < -kMaxAngularVelocityUnits || v > kMaxAngularVelocityUnits) return bad("angular velocity out of range");
        q.angvel = static_cast<std::int32_t>(v);
      }
      if (m & kExAim) {
        if (aim_inline) return bad("aim in the extras of a snapshot with inline aims");
        const std::int64_t ax = q.aim_dx + r.get_seg(k_aim), ay = q.aim_dy + r.get_seg(k_aim);
        if (std::max(std::abs(ax), std::abs(ay)) > kMaxAimUnits) return bad("aim out of range");
        q.aim_dx = static_cast<std::int32_t>(ax);
        q.aim_dy = static_cast<std::int32_t>(ay);
      }
      if (m & kExTarget) q.target = static_cast<std::uint32_t>(r.get(kTargetBits));
      if (m & kExState) {
        q.state = static_cast<std::uint8_t>(r.get(kStateBits));
        if (q.state > static_cast<std::uint8_t>(sim::BehaviorState::kCaptured)) return bad("behaviour state");
      }
      if (m & kExMeta) {
        q.kind = static_cast<std::uint8_t>(r.get(kKindBits));
        const std::int64_t group = r.get_seg(kOrdGroup);
        const std::int64_t age = r.get_seg(kOrdSpawnAge);
        if (q.kind >= static_cast<std::uint8_t>(sim::AgentKind::kCount) || group < -1 || group > INT32_MAX || age < 0 ||
            static_cast<std::uint64_t>(age) > tick)
          return bad("agent kind, group or spawn tick");
        q.group = static_cast<std::int32_t>(group);
        q.spawn_tick = tick - static_cast<std::uint64_t>(age);
      }
      if (!r.ok()) return bad("truncated extras");
    }
  }

  // Entering agents.
  const std::uint64_t n_enter = r.get_ueg(kOrdCount);
  if (!r.ok() || n_enter > kMaxSnapshotAgents) return bad("entering count");
  std::vector<KnownAgent> entering;
  entering.reserve(static_cast<std::size_t>(n_enter));
  {
    std::int64_t prev_id = -1;
    for (std::uint64_t k = 0; k < n_enter; ++k) {
      QAgent q;
      const std::int64_t id = prev_id + 1 + static_cast<std::int64_t>(r.get_ueg(kOrdNewIdGap));
      if (id <= 0 || id > 0xFFFFFFFFll) return bad("agent id");
      q.id = static_cast<std::uint32_t>(id);
      prev_id = id;
      q.kind = static_cast<std::uint8_t>(r.get(kKindBits));
      const std::int64_t group = r.get_seg(kOrdGroup);
      const std::int64_t age = r.get_seg(kOrdSpawnAge);
      if (q.kind >= static_cast<std::uint8_t>(sim::AgentKind::kCount) || group < -1 || group > INT32_MAX || age < 0 ||
          static_cast<std::uint64_t>(age) > tick)
        return bad("agent kind, group or spawn tick");
      q.group = static_cast<std::int32_t>(group);
      q.spawn_tick = tick - static_cast<std::uint64_t>(age);
      q.x = static_cast<std::int32_t>(r.get(g.x_bits));
      q.y = static_cast<std::int32_t>(r.get(g.y_bits));
      if (q.x > g.width_units || q.y > g.height_units || (g.wrap && (q.x == g.width_units || q.y == g.height_units)))
        return bad("position out of the world");
      const std::uint64_t speed = r.get_ueg(kOrdNewSpeed);
      if (speed > static_cast<std::uint64_t>(kMaxSpeedUnits)) return bad("speed out of range");
      q.speed = static_cast<std::int32_t>(speed);
      q.vel_angle = static_cast<std::uint16_t>(r.get(kAngleBits));
      q.heading = r.get(1) ? q.vel_angle : static_cast<std::uint16_t>(r.get(kAngleBits));
      if (r.get(1)) {
        const std::int64_t v = r.get_seg(kOrdAngvel);
        if (v == 0 || v < -kMaxAngularVelocityUnits || v > kMaxAngularVelocityUnits)
          return bad("angular velocity out of range");
        q.angvel = static_cast<std::int32_t>(v);
      }
      if (r.get(1)) {
        const std::int64_t ax = r.get_seg(kOrdNewAim), ay = r.get_seg(kOrdNewAim);
        if (std::max(std::abs(ax), std::abs(ay)) > kMaxAimUnits) return bad("aim out of range");
        q.aim_dx = static_cast<std::int32_t>(ax);
        q.aim_dy = static_cast<std::int32_t>(ay);
      }
      if (r.get(1)) q.target = static_cast<std::uint32_t>(r.get(kTargetBits));
      q.state = static_cast<std::uint8_t>(r.get(kStateBits));
      if (q.state > static_cast<std::uint8_t>(sim::BehaviorState::kCaptured)) return bad("behaviour state");
      if (!r.ok()) return bad("truncated entering agent");
      entering.push_back(advance_entry(nullptr, q, tick));
    }
  }

  // Merge into the new frame (ids must stay unique and sorted).
  out.tick = tick;
  out.agents.clear();
  out.agents.reserve(static_cast<std::size_t>(B.size() - n_removed + n_enter));
  std::size_t u = 0, e = 0;
  for (std::size_t b = 0; b <= B.size(); ++b) {
    const std::uint32_t limit = b < B.size() ? B[b].q.id : 0xFFFFFFFFu;
    while (e < entering.size() && (entering[e].q.id < limit || b == B.size())) {
      if (!out.agents.empty() && out.agents.back().q.id >= entering[e].q.id) return bad("duplicate agent id");
      out.agents.push_back(entering[e++]);
    }
    if (b == B.size()) break;
    if (state[b] == 1) continue;
    if (e < entering.size() && entering[e].q.id == B[b].q.id) return bad("entering agent already known");
    if (state[b] == 2) {
      out.agents.push_back(advance_entry(&B[b], upd_q[u], tick));
      ++u;
    } else {
      out.agents.push_back(B[b]);
    }
  }
  if (out.agents.size() > kMaxSnapshotAgents) return bad("too many agents");
  return {};
}

void frame_views(const ViewFrame& frame, const WireGeometry& g, std::vector<sim::AgentView>& out) {
  out.resize(frame.agents.size());
  for (std::size_t i = 0; i < frame.agents.size(); ++i) {
    const KnownAgent& k = frame.agents[i];
    out[i] = dequantize(k.tick == frame.tick ? k.q : predict(k, frame.tick, g));
  }
}

}  // namespace flockstep::codec
