// The kinematic model (T03): the technique sets the velocity directly (T15-T20, T25, T37-T40),
// and the ray-cast steering of T59/T60.
#include "world_impl.hpp"

#include "stage_kinematic.hpp"

#include <array>

#include "flockstep/behavior/kinematic.hpp"
#include "flockstep/behavior/lamothe.hpp"
#include "flockstep/behavior/pattern.hpp"
#include "flockstep/behavior/ray_avoid.hpp"

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

void WorldImpl::init_technique_state(std::int32_t i) {
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(group_[i])];
  fly_[i] = {};
  ray_state_[i] = {};
  kin_rotation_[i] = 0;
  kpattern_[i] = {};
  kpattern_[i].heading_deg = orientation_[i] * (180 / math::kPi);  // T25 starts along the spawn facing
  // kStraight flies along heading_deg at full speed; kRayAvoid starts along it (it then cruises
  // along its facing when it has no goal).
  if (g.technique == Technique::kStraight || g.technique == Technique::kRayAvoid) {
    orientation_[i] = math::wrap_angle(g.heading_deg * math::kDegToRad);
    heading_[i] = math::as_vector(orientation_[i]);
    velocity_[i] = heading_[i] * g.max_speed;
  }
}

void WorldImpl::steer_kinematic(std::int32_t i, Tally& tally) {
  // Writes only agent i's outputs and its own technique state (fly_, ray_state_, rng_).
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(group_[i])];
  const Vec2 pos = position_[i];
  const std::int32_t tj = targets().nearest(g.target_group, i, pos, nullptr);
  const Vec2 tpos = tj >= 0 ? pos + delta(pos, position_[tj]) : pos;
  const bool has_goal = !math::is_zero(g.goal);
  const bool has_aim = has_goal || tj >= 0;
  const Vec2 goal = has_goal ? pos + delta(pos, g.goal) : tpos;
  const real accel = g.max_force / g.mass;  // m/s^2 for the rate-based techniques
  Vec2 out;  // the new velocity, m/s (kRayAvoid: Millington's linear acceleration, m/s^2)
  real rotation = 0;
  AgentId target = tj >= 0 ? id_[tj] : AgentId{};
  Vec2 aim = pos;
  BehaviorState st = BehaviorState::kNone;
  switch (g.technique) {
    case Technique::kStraight: {
      // T15: constant velocity; the swerve turns it once, swerve_after_s after (re)spawning.
      real deg = g.heading_deg;
      const auto swerve_tick = static_cast<std::uint64_t>(g.swerve_after_s * scenario_.tick_rate_hz + 0.5);
      if (g.swerve_deg != 0 && tick_ >= spawn_tick_[i] + swerve_tick) deg += g.swerve_deg;
      out = math::as_vector(math::wrap_angle(deg * math::kDegToRad)) * g.max_speed;
      aim = pos + out;
      target = {};
      tally.add(15);
      break;
    }
    case Technique::kFly: {
      // T16 in LaMothe units (components in [-8, 7] pixels/tick, one move per tick), scaled so
      // that a component of 8 is max_speed m/s.
      behavior::Fly f = fly_[i];
      f.position = {};
      behavior::FlyParams fp;
      fp.min_burst_ticks = g.fly.min_burst_ticks;
      fp.max_burst_ticks = g.fly.max_burst_ticks;
      behavior::fly_update(f, fp, rng_[i]);
      fly_[i] = f;
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
        out = tracker_velocity(true, tpos - pos, g.max_speed, dt_);
        aim = tpos;
        st = BehaviorState::kSeeking;
        tally.add(17);
      }
      break;
    case Technique::kAntiTrack:
      // T18 on metres: the step away from the target's offset at max_speed on each axis (an
      // equal axis stays), as a velocity.
      if (tj >= 0) {
        out = tracker_velocity(false, tpos - pos, g.max_speed, dt_);
        aim = tpos;
        st = BehaviorState::kFleeing;
        tally.add(18);
      }
      break;
    case Technique::kVectorTrack: {
      // T19 with pixels = m and ticks = simulation ticks: rate = accel dt^2, cap = max_speed dt.
      behavior::Tracker t{pos, velocity_[i] * dt_};
      if (has_aim) {
        behavior::VectorTrackParams vp;
        vp.rate = accel * dt_ * dt_;
        vp.max_speed = g.max_speed * dt_;
        behavior::vector_track_update(t, goal, vp);
        tally.add(19);
        aim = goal;
        st = BehaviorState::kSeeking;
      }
      out = t.velocity / dt_;
      if (has_goal) target = {};
      break;
    }
    case Technique::kMine: {
      // T20 with pixels = m and ticks = simulation ticks (see MineSpec for the mapping).
      behavior::Tracker t{pos, velocity_[i] * dt_};
      behavior::MineParams mp;
      mp.tracking_distance = g.mine.tracking_distance;
      mp.tracking_rate = accel * dt_ * dt_;
      mp.max_velocity = g.max_speed * dt_;
      mp.near_noise_chance = g.mine.near_noise_chance;
      mp.near_noise = g.max_speed * dt_ / 6;
      mp.far_noise_chance = g.mine.far_noise_chance;
      mp.far_noise = g.max_speed * dt_ / 3;
      // No target: a point beyond the activation radius (fast_length errs by at most ~7%).
      const Vec2 prey = tj >= 0 ? tpos : pos + Vec2{2 * g.mine.tracking_distance + 1, 0};
      const behavior::MineTick mt = behavior::mine_update(t, prey, mp, rng_[i]);
      tally.add(20);
      out = t.velocity / dt_;
      if (mt.tracking) {
        aim = tpos;
        st = BehaviorState::kSeeking;
      } else target = {};
      break;
    }
    case Technique::kKinematicSeek:
      if (has_aim) {
        out = behavior::kinematic_seek({pos, orientation_[i]}, goal, {g.max_speed}).velocity;
        tally.add(37);
        aim = goal;
        st = BehaviorState::kSeeking;
        if (has_goal) target = {};
      }
      break;
    case Technique::kKinematicFlee:
      // T38: full speed straight away from the target (no target: stand still).
      if (tj >= 0) {
        out = behavior::kinematic_flee({pos, orientation_[i]}, tpos, {g.max_speed}).velocity;
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
        out = behavior::kinematic_arrive({pos, orientation_[i]}, goal, ap).velocity;
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
      const real scale = g.max_speed * dt_ / 2;
      behavior::PatternState ps = kpattern_[i];
      ps.position = pos;
      // Scale only the instruction this tick reads (pattern_step reads exactly one).
      const std::size_t at = static_cast<std::size_t>(ps.index) % base.size();
      behavior::PatternInstruction ins = base[at];
      ins.step_forward *= scale;
      ins.step_backward *= scale;
      behavior::PatternState one = ps;
      one.index = 0;
      behavior::pattern_step(one, std::span<const behavior::PatternInstruction>(&ins, 1));
      ps.position = one.position;
      ps.heading_deg = one.heading_deg;
      ps.last_applied = static_cast<std::int32_t>(at);
      ps.index = static_cast<std::int32_t>((at + 1) % base.size());
      kpattern_[i] = ps;
      tally.add(25);
      out = (ps.position - pos) / dt_;
      rotation = 0;
      aim = pos + out;
      target = {};
      st = BehaviorState::kPatrolling;
      break;
    }
    case Technique::kKinematicWander: {
      const behavior::KinematicSteeringOutput o =
          behavior::kinematic_wander({pos, orientation_[i]}, {g.max_speed, g.kinematic_max_rotation}, rng_[i]);
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
      const behavior::Kinematic k{pos, orientation_[i], velocity_[i], angular_velocity_[i]};
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
      const behavior::ObstacleDetector det{scenario_.walls, scenario_.obstacles};
      behavior::MultiRayState rs = ray_state_[i];
      behavior::MultiRayDebug dbg;
      behavior::SteeringOutput so = behavior::multi_ray_avoidance(k, det, mp, rs, dt_, &dbg);
      ray_state_[i] = rs;
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
  force_[i] = out;
  kin_rotation_[i] = rotation;
  target_[i] = target;
  aim_[i] = aim;
  state_[i] = st;
}

void WorldImpl::integrate_kinematic(std::int32_t i, Tally& tally) {
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(group_[i])];
  if (g.technique == Technique::kRayAvoid) {
    // Millington's T05 update with the facing following the velocity (T01).
    behavior::Kinematic k{position_[i], orientation_[i], velocity_[i], angular_velocity_[i]};
    behavior::integrate_steering(k, {force_[i], kin_rotation_[i]}, g.max_speed, dt_);
    tally.add(5);
    k.orientation = math::new_orientation(k.orientation, k.velocity);
    position_[i] = k.position;
    velocity_[i] = k.velocity;
    orientation_[i] = k.orientation;
    angular_velocity_[i] = k.rotation;
  } else {
    // T03: the velocity is set directly; wander keeps its own facing and rotation.
    commit_kinematic({position_[i], velocity_[i], orientation_[i], angular_velocity_[i]}, force_[i], kin_rotation_[i],
                     g.technique != Technique::kKinematicWander, dt_);
    tally.add(3);
    tally.add(12);
  }
  heading_[i] = math::as_vector(orientation_[i]);
}

}  // namespace flockstep::sim
