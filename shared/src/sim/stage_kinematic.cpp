// The kinematic model (T03) as stages (stage_kinematic.hpp): the technique sets the velocity
// directly (T15-T20, T25, T37-T40), and the ray-cast steering of T59/T60.
#include "stage_kinematic.hpp"

#include <array>

#include "flockstep/behavior/kinematic.hpp"
#include "flockstep/behavior/lamothe.hpp"
#include "flockstep/behavior/pattern.hpp"
#include "flockstep/behavior/ray_avoid.hpp"
#include "flockstep/behavior/steering.hpp"

namespace flockstep::sim {

namespace {
/// T25 closed square walk: 40 steps forward, then a right angle, four times.
constexpr std::array<behavior::PatternInstruction, 164> kSquareWalk = [] {
  std::array<behavior::PatternInstruction, 164> a{};
  for (std::size_t side = 0; side < 4; ++side) {
    for (std::size_t k = 0; k < 40; ++k) a[side * 41 + k] = {0, 0, 2, 0};
    a[side * 41 + 40] = {90, 0, 0, 0};
  }
  return a;
}();
}  // namespace

Vec2 tracker_velocity(bool track, Vec2 offset, real max_speed, real dt) {
  return track ? behavior::track_step(Vec2{}, offset, max_speed * dt) / dt
               : behavior::evade_step(Vec2{}, offset, max_speed);
}

void commit_kinematic(KinematicRef k, Vec2 velocity, real rotation, bool face, real dt) {
  behavior::Static s{k.position, k.orientation};
  behavior::kinematic_integrate(s, {velocity, rotation}, dt, face);
  k.position = s.position;
  k.velocity = velocity;
  k.orientation = s.orientation;
  k.angular_velocity = rotation;
}

void start_kinematic_agent(const GroupSpec& g, KinematicStartRef r) {
  r.fly = {};
  r.ray_state = {};
  r.rotation = 0;
  r.pattern = {};
  r.pattern.heading_deg = r.orientation * (180 / math::kPi);  // T25 starts along the spawn facing
  // kStraight flies along heading_deg at full speed; kRayAvoid starts along it (it then cruises
  // along its facing when it has no goal).
  if (g.technique == Technique::kStraight || g.technique == Technique::kRayAvoid) {
    r.orientation = math::wrap_angle(g.heading_deg * math::kDegToRad);
    r.heading = math::as_vector(r.orientation);
    r.velocity = r.heading * g.max_speed;
  }
}

void steer_kinematic_agent(const KinematicSteerColumns& c, std::int32_t i, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  const GroupSpec& g = c.groups[static_cast<std::size_t>(c.group[at])];
  const Vec2 pos = c.position[at];
  const std::int32_t tj = c.targets.nearest(g.target_group, i, pos, nullptr);
  const Vec2 tpos = tj >= 0 ? pos + c.targets.plane.delta(pos, c.position[static_cast<std::size_t>(tj)]) : pos;
  const bool has_goal = !math::is_zero(g.goal);
  const bool has_aim = has_goal || tj >= 0;
  const Vec2 goal = has_goal ? pos + c.targets.plane.delta(pos, g.goal) : tpos;
  const real accel = g.max_force / g.mass;  // m/s^2 for the rate-based techniques
  Vec2 out;  // the new velocity, m/s (kRayAvoid: Millington's linear acceleration, m/s^2)
  real rotation = 0;
  AgentId target = tj >= 0 ? c.id[static_cast<std::size_t>(tj)] : AgentId{};
  Vec2 aim = pos;
  BehaviorState st = BehaviorState::kNone;
  switch (g.technique) {
    case Technique::kStraight: {
      // T15: constant velocity; the swerve turns it once, swerve_after_s after (re)spawning.
      real deg = g.heading_deg;
      const auto swerve_tick = static_cast<std::uint64_t>(g.swerve_after_s * c.tick_rate_hz + 0.5);
      if (g.swerve_deg != 0 && c.tick >= c.spawn_tick[at] + swerve_tick) deg += g.swerve_deg;
      out = math::as_vector(math::wrap_angle(deg * math::kDegToRad)) * g.max_speed;
      aim = pos + out;
      target = {};
      tally.add(15);
      break;
    }
    case Technique::kFly: {
      // T16 in LaMothe units (components in [-8, 7] pixels/tick, one move per tick), scaled so
      // that a component of 8 is max_speed m/s.
      behavior::Fly f = c.fly[at];
      f.position = {};
      behavior::FlyParams fp;
      fp.min_burst_ticks = g.fly.min_burst_ticks;
      fp.max_burst_ticks = g.fly.max_burst_ticks;
      behavior::fly_update(f, fp, c.rng[at]);
      c.fly[at] = f;
      tally.add(16);
      out = fly_velocity({static_cast<real>(f.velocity.x), static_cast<real>(f.velocity.y)}, g.max_speed);
      aim = pos + out;
      target = {};
      break;
    }
    case Technique::kTrack:
      // T17 on metres: LaMothe's step from the agent (at the origin) toward the target's offset,
      // max_speed * dt a tick on each axis, as a velocity.
      if (tj >= 0) {
        out = tracker_velocity(true, tpos - pos, g.max_speed, c.dt);
        aim = tpos;
        st = BehaviorState::kSeeking;
        tally.add(17);
      }
      break;
    case Technique::kAntiTrack:
      // T18 on metres: the step away from the target's offset at max_speed on each axis (an
      // equal axis stays), as a velocity.
      if (tj >= 0) {
        out = tracker_velocity(false, tpos - pos, g.max_speed, c.dt);
        aim = tpos;
        st = BehaviorState::kFleeing;
        tally.add(18);
      }
      break;
    case Technique::kVectorTrack: {
      // T19 with pixels = m and ticks = simulation ticks: rate = accel dt^2, cap = max_speed dt.
      behavior::Tracker t{pos, c.velocity[at] * c.dt};
      if (has_aim) {
        behavior::VectorTrackParams vp;
        vp.rate = accel * c.dt * c.dt;
        vp.max_speed = g.max_speed * c.dt;
        behavior::vector_track_update(t, goal, vp);
        tally.add(19);
        aim = goal;
        st = BehaviorState::kSeeking;
      }
      out = t.velocity / c.dt;
      if (has_goal) target = {};
      break;
    }
    case Technique::kMine: {
      // T20 with pixels = m and ticks = simulation ticks (see MineSpec for the mapping).
      behavior::Tracker t{pos, c.velocity[at] * c.dt};
      behavior::MineParams mp;
      mp.tracking_distance = g.mine.tracking_distance;
      mp.tracking_rate = accel * c.dt * c.dt;
      mp.max_velocity = g.max_speed * c.dt;
      mp.near_noise_chance = g.mine.near_noise_chance;
      mp.near_noise = g.max_speed * c.dt / 6;
      mp.far_noise_chance = g.mine.far_noise_chance;
      mp.far_noise = g.max_speed * c.dt / 3;
      // No target: a point beyond the activation radius (fast_length errs by at most ~7%).
      const Vec2 prey = tj >= 0 ? tpos : pos + Vec2{2 * g.mine.tracking_distance + 1, 0};
      const behavior::MineTick mt = behavior::mine_update(t, prey, mp, c.rng[at]);
      tally.add(20);
      out = t.velocity / c.dt;
      if (mt.tracking) {
        aim = tpos;
        st = BehaviorState::kSeeking;
      } else target = {};
      break;
    }
    case Technique::kKinematicSeek:
      if (has_aim) {
        out = behavior::kinematic_seek({pos, c.orientation[at]}, goal, {g.max_speed}).velocity;
        tally.add(37);
        aim = goal;
        st = BehaviorState::kSeeking;
        if (has_goal) target = {};
      }
      break;
    case Technique::kKinematicFlee:
      // T38: full speed straight away from the target (no target: stand still).
      if (tj >= 0) {
        out = behavior::kinematic_flee({pos, c.orientation[at]}, tpos, {g.max_speed}).velocity;
        tally.add(38);
        aim = tpos;
        st = BehaviorState::kFleeing;
      }
      break;
    case Technique::kKinematicArrive:
      // T39: cover the remaining distance in time_to_target, capped at max_speed; stop inside the radius.
      if (has_aim) {
        behavior::KinematicArriveParams ap;
        ap.max_speed = g.max_speed;
        ap.radius = g.radius;
        out = behavior::kinematic_arrive({pos, c.orientation[at]}, goal, ap).velocity;
        tally.add(39);
        aim = goal;
        st = BehaviorState::kSeeking;
        if (has_goal) target = {};
      }
      break;
    case Technique::kKinematicPattern: {
      // T25, one instruction a tick: the seed's zig-zag ("zigzag", drifts along its heading) or
      // a closed square ("square": 40 steps, a right angle, four times). Steps of 2 units are
      // scaled so that one step covers max_speed * dt, whatever the tick rate.
      const std::span<const behavior::PatternInstruction> base =
          g.pattern == PatternKind::kZigZag
              ? std::span<const behavior::PatternInstruction>(behavior::kSeedZigZagPattern)
              : std::span<const behavior::PatternInstruction>(kSquareWalk);
      const real scale = g.max_speed * c.dt / 2;
      behavior::PatternState ps = c.kpattern[at];
      ps.position = pos;
      // Scale only the instruction this tick reads (pattern_step reads exactly one).
      const std::size_t step = static_cast<std::size_t>(ps.index) % base.size();
      behavior::PatternInstruction ins = base[step];
      ins.step_forward *= scale;
      ins.step_backward *= scale;
      behavior::PatternState one = ps;
      one.index = 0;
      behavior::pattern_step(one, std::span<const behavior::PatternInstruction>(&ins, 1));
      ps.position = one.position;
      ps.heading_deg = one.heading_deg;
      ps.last_applied = static_cast<std::int32_t>(step);
      ps.index = static_cast<std::int32_t>((step + 1) % base.size());
      c.kpattern[at] = ps;
      tally.add(25);
      out = (ps.position - pos) / c.dt;
      rotation = 0;
      aim = pos + out;
      target = {};
      st = BehaviorState::kPatrolling;
      break;
    }
    case Technique::kKinematicWander: {
      const behavior::KinematicSteeringOutput o =
          behavior::kinematic_wander({pos, c.orientation[at]}, {g.max_speed, g.kinematic_max_rotation}, c.rng[at]);
      tally.add(40);
      tally.add(13);  // its rotation is a binomial draw
      out = o.velocity;
      rotation = o.rotation;
      aim = pos + out;
      target = {};
      break;
    }
    case Technique::kRayAvoid: {
      // T59/T60: ray avoidance has priority; otherwise seek the goal, or cruise along the facing.
      const behavior::Kinematic k{pos, c.orientation[at], c.velocity[at], c.angular_velocity[at]};
      behavior::MultiRayParams mp;
      mp.config = static_cast<behavior::RayConfig>(g.rays.config);
      mp.lookahead = g.rays.lookahead;
      mp.whisker_length = g.rays.whisker_length;
      mp.side_angle = g.rays.side_angle;
      mp.parallel_offset = g.rays.parallel_offset;
      mp.avoid_distance = g.rays.avoid_distance;
      mp.max_acceleration = accel;
      mp.adaptive_angle = g.rays.corner_remedy;
      mp.winner_ray = g.rays.corner_remedy;
      const behavior::ObstacleDetector det{c.walls, c.obstacles};
      behavior::MultiRayState rs = c.ray_state[at];
      behavior::MultiRayDebug dbg;
      behavior::SteeringOutput so = behavior::multi_ray_avoidance(k, det, mp, rs, c.dt, &dbg);
      c.ray_state[at] = rs;
      tally.add(59);
      tally.add(60);  // the group's ray configuration (and corner remedy when set)
      target = {};
      if (!so.none()) {
        aim = dbg.target;
        st = BehaviorState::kAvoiding;
      } else if (has_goal) {
        so = behavior::dynamic_seek(k, goal, {accel});
        tally.add(42);
        aim = goal;
        st = BehaviorState::kSeeking;
      } else {
        so.linear = behavior::ray_direction(k) * accel;
        aim = pos + behavior::ray_direction(k) * g.rays.lookahead;
      }
      out = so.linear;
      rotation = so.angular;
      break;
    }
    default: break;
  }
  c.force[at] = out;
  c.kin_rotation[at] = rotation;
  c.target[at] = target;
  c.aim[at] = aim;
  c.state[at] = st;
}

void move_kinematic_agent(const KinematicMoveColumns& c, std::int32_t i, TechniqueTally& tally) {
  const auto at = static_cast<std::size_t>(i);
  const GroupSpec& g = c.groups[static_cast<std::size_t>(c.group[at])];
  if (g.technique == Technique::kRayAvoid) {
    // Millington's T05 update with the facing following the velocity (T01).
    behavior::Kinematic k{c.position[at], c.orientation[at], c.velocity[at], c.angular_velocity[at]};
    behavior::integrate_steering(k, {c.force[at], c.kin_rotation[at]}, g.max_speed, c.dt);
    tally.add(5);
    k.orientation = math::new_orientation(k.orientation, k.velocity);
    c.position[at] = k.position;
    c.velocity[at] = k.velocity;
    c.orientation[at] = k.orientation;
    c.angular_velocity[at] = k.rotation;
  } else {
    // T03: the velocity is set directly; wander keeps its own facing and rotation.
    commit_kinematic({c.position[at], c.velocity[at], c.orientation[at], c.angular_velocity[at]}, c.force[at],
                     c.kin_rotation[at], g.technique != Technique::kKinematicWander, c.dt);
    tally.add(3);
    tally.add(12);
  }
  c.heading[at] = math::as_vector(c.orientation[at]);
}

}  // namespace flockstep::sim
