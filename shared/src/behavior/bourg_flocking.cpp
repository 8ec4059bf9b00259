/// \file bourg_flocking.cpp
/// T31-T36 Bourg & Seemann flocking and the headless AIDemo4 world (T35).
#include "flockstep/behavior/bourg_flocking.hpp"

#include <cstddef>

namespace flockstep::behavior {
namespace {

real abs_r(real x) { return x < 0 ? -x : x; }

/// Signed bearing of a local point, radians in (-pi, pi]; + = left.
real bearing_of(Vec2 local) { return math::arctan2(local.y, local.x); }

/// Extra work done in the same pass as gathering (the seed does separation inside its loop).
struct GatherExtras {
  const FlockRuleParams* separation = nullptr;  ///< non-null: accumulate separation here
  const CraftParams* craft = nullptr;           ///< the unit's craft (length and S), with separation
  real separation_force = 0;
  std::int32_t leader = -1;  ///< id to look out for
  bool leader_visible = false;
  Vec2 leader_position;
};

bool accept(std::int32_t self, std::int32_t j, std::int32_t size) { return j > 0 && j != self && j < size; }

void consider(std::int32_t self, std::int32_t j, Vec2 position, Vec2 heading, std::span<const Mover> units, real radius,
              ViewModel model, const ViewParams& params, std::span<std::int32_t> visible, NeighborSummary& out,
              GatherExtras* extras) {
  if (!accept(self, j, static_cast<std::int32_t>(units.size()))) return;  // player (0) and self excluded
  const Mover& other = units[static_cast<std::size_t>(j)];
  const Vec2 d = other.position - position;
  // The seed tests the angle first and only then the distance.
  if (!in_view(math::to_local(d, heading), model, params)) return;
  if (math::length_sq(d) > radius * radius) return;
  out.average_position += other.position;  // sums for now, divided at the end
  out.average_velocity += other.velocity;
  if (static_cast<std::size_t>(out.stored) < visible.size()) visible[static_cast<std::size_t>(out.stored++)] = j;
  ++out.count;
  if (extras != nullptr) {
    if (extras->separation != nullptr) {
      extras->separation_force +=
          separation_force(position, heading, other.position, *extras->craft, *extras->separation);
    }
    if (j == extras->leader) {
      extras->leader_visible = true;
      extras->leader_position = other.position;
    }
  }
}

NeighborSummary gather_impl(std::int32_t self, Vec2 position, Vec2 heading, std::span<const Mover> units,
                            std::span<const std::int32_t> candidates, bool all, real length, ViewModel model,
                            const ViewParams& params, std::span<std::int32_t> visible, GatherExtras* extras) {
  NeighborSummary out;
  const real radius = view_radius(length, model, params);
  if (all) {
    for (std::int32_t j = 1; j < static_cast<std::int32_t>(units.size()); ++j) {
      consider(self, j, position, heading, units, radius, model, params, visible, out, extras);
    }
  } else {
    for (const std::int32_t j : candidates) {
      consider(self, j, position, heading, units, radius, model, params, visible, out, extras);
    }
  }
  if (out.count > 0) {  // seed gap: no guard for N = 0
    out.average_position /= static_cast<real>(out.count);
    out.average_velocity /= static_cast<real>(out.count);
  }
  return out;
}

Vec2 self_position(std::span<const Mover> units, std::int32_t self) {
  return self >= 0 && self < static_cast<std::int32_t>(units.size()) ? units[static_cast<std::size_t>(self)].position
                                                                     : Vec2{};
}

}  // namespace

bool in_view(Vec2 local, ViewModel model, const ViewParams& params) {
  const real forward = local.x;
  const real side = abs_r(local.y);
  const bool ahead = params.abeam_visible ? forward >= 0 : forward > 0;
  switch (model) {
    case ViewModel::wide:
      // Blind wedge behind the unit bounded by |side| = k_back * |back|.
      return ahead || (forward < 0 && side > params.k_back * -forward);
    case ViewModel::limited: return ahead;
    case ViewModel::narrow: return ahead && side < params.k_front * forward;
  }
  return false;
}

real view_radius(real length, ViewModel model, const ViewParams& params) {
  switch (model) {
    case ViewModel::wide: return length * params.wide_radius_factor;
    case ViewModel::limited: return length * params.limited_radius_factor;
    case ViewModel::narrow: return length * params.narrow_radius_factor;
  }
  return 0;
}

NeighborSummary gather_neighbors(std::int32_t self, Vec2 self_heading, std::span<const Mover> units,
                                 std::span<const std::int32_t> candidates, real length, ViewModel model,
                                 const ViewParams& params, std::span<std::int32_t> visible) {
  return gather_impl(self, self_position(units, self), self_heading, units, candidates, false, length, model, params,
                     visible, nullptr);
}

NeighborSummary gather_neighbors_all(std::int32_t self, Vec2 self_heading, std::span<const Mover> units, real length,
                                     ViewModel model, const ViewParams& params, std::span<std::int32_t> visible) {
  return gather_impl(self, self_position(units, self), self_heading, units, {}, true, length, model, params, visible,
                     nullptr);
}

real cohesion_force(Vec2 position, Vec2 heading, Vec2 average_position, real max_steering_force,
                    const FlockRuleParams& params) {
  const Vec2 local = math::to_local(average_position - position, heading);
  if (math::is_zero(local)) return 0;
  // Response curve: proportional to the signed bearing (+ = left), full force at 180 deg.
  return max_steering_force * params.cohesion_weight * bearing_of(local) / math::kPi;
}

real alignment_force(Vec2 heading, Vec2 average_velocity, real max_steering_force, const FlockRuleParams& params) {
  if (math::is_zero(average_velocity)) return 0;
  const Vec2 mean = math::normalized(average_velocity);
  const real phi = math::arccos_clamped(math::dot(heading, mean));    // catalog T29: clamp acos input
  const real side = math::cross(heading, mean);                       // > 0: mean heading is to the left
  const real m = side > 0 ? 1 : (side < 0 ? -1 : (phi > 0 ? 1 : 0));  // exactly opposite: turn left
  return m * max_steering_force * params.alignment_weight * phi / math::kPi;
}

real separation_force(Vec2 position, Vec2 heading, Vec2 neighbor_position, const CraftParams& craft,
                      const FlockRuleParams& params) {
  const real length = craft.length;
  const real threshold = length * params.separation_factor;
  const Vec2 d = neighbor_position - position;
  const real dist = math::length(d);
  if (dist > threshold) return 0;
  const Vec2 local = math::to_local(d, heading);
  const real m = local.y < 0 ? -1 : 1;  // side of the neighbour; dead ahead / coincident counts as left
  const real effective = math::max(dist, length * params.min_distance_factor);
  // Inverse-distance response: equals S k_s at the threshold and grows as 1/d inside it; the
  // sign is opposite to the neighbour's side so the unit steers away (dead ahead: turn right).
  return -m * craft.max_steering_force * params.separation_weight * threshold / effective;
}

real obstacle_force(Vec2 position, Vec2 heading, std::span<const Circle> obstacles, const CraftParams& craft,
                    const FlockRuleParams& params) {
  const real length = craft.length;
  const real look_ahead = length * params.obstacle_look_ahead_factor;
  const real clearance = length * params.obstacle_clearance_factor;
  const real floor_gap = length * params.min_distance_factor;
  real force = 0;
  for (const Circle& c : obstacles) {
    const Vec2 local = math::to_local(c.center - position, heading);
    const real dist = math::length(local);
    const real reach = c.radius + clearance;
    const bool in_path = local.x > 0 && local.x < look_ahead + c.radius && abs_r(local.y) < reach;
    const bool too_close = dist < reach && local.x > -c.radius;
    if (!in_path && !too_close) continue;
    const real gap = math::max(dist - c.radius, floor_gap);
    const real m = local.y > 0 ? -1 : 1;  // obstacle on the left -> push right; dead ahead -> left
    // Response: k_o S at the look-ahead distance, growing as 1/gap toward the surface (the
    // thruster's bound in flock_unit_ai caps the sum).
    force += m * craft.max_steering_force * params.obstacle_weight * look_ahead / gap;
  }
  return force;
}

FlockSteering flock_unit_ai(std::int32_t self, const CraftState& state, const CraftParams& craft, FlockRole role,
                            const FlockContext& context, const FlockUnitParams& params, ChaseMode& mode) {
  FlockSteering out;
  const FlockRuleParams& rules = params.rules;
  const real s = craft.max_steering_force;
  const Vec2 heading = craft_heading(state);
  real force = 0;
  const bool has_player = !context.units.empty();
  if (role == FlockRole::leader && has_player) {
    out.aim = context.units[0].position;
    force += lateral_force(los_chase_thrusters(state, out.aim, params.los), craft);
  } else if (role == FlockRole::interceptor && has_player) {
    const InterceptChaseOutput ic = intercept_chase(state, context.units[0], params.intercept, params.los, mode);
    out.aim = ic.aim.point;
    force += lateral_force(ic.thrusters, craft);
  } else if (context.flocking) {
    GatherExtras extras;
    extras.separation = &rules;
    extras.craft = &craft;
    extras.leader = context.leader == self ? -1 : context.leader;
    out.neighbors = gather_impl(self, state.position, heading, context.units, context.candidates,
                                context.candidates.empty(), craft.length, context.view, params.view, {}, &extras);
    if (out.neighbors.count > 0) {
      force += cohesion_force(state.position, heading, out.neighbors.average_position, s, rules);
      force += alignment_force(heading, out.neighbors.average_velocity, s, rules);
      force += extras.separation_force;
    }
    if (has_player && rules.player_pull_weight > 0) {
      // The player is never a neighbour (T33) but the flock chases it when it is in view.
      const Vec2 local = math::to_local(context.units[0].position - state.position, heading);
      if (!math::is_zero(local) && in_view(local, context.view, params.view) &&
          math::length(local) <= view_radius(craft.length, context.view, params.view)) {
        force += s * rules.player_pull_weight * bearing_of(local) / math::kPi;
      }
    }
    if (extras.leader_visible) {
      out.leader_visible = true;
      const Vec2 local = math::to_local(extras.leader_position - state.position, heading);
      if (!math::is_zero(local)) force += s * rules.leader_pull_weight * bearing_of(local) / math::kPi;
    }
  }
  force += obstacle_force(state.position, heading, context.obstacles, craft, rules);
  // One bow thruster: however many rules ask, the craft pushes at most S either way.
  out.lateral_force = math::clamp(force, -s, s);
  return out;
}

Demo4World demo4_make(const Demo4Params& params, std::span<const Circle> obstacles, Rng& rng) {
  Demo4World w;
  w.num_units = params.num_units < 1 ? 1 : (params.num_units > kDemo4MaxUnits ? kDemo4MaxUnits : params.num_units);
  w.num_obstacles = 0;
  for (const Circle& c : obstacles) {
    if (w.num_obstacles >= kDemo4MaxObstacles) break;
    w.obstacles[static_cast<std::size_t>(w.num_obstacles++)] = c;
  }
  const std::span<const Circle> used(w.obstacles.data(), static_cast<std::size_t>(w.num_obstacles));
  CraftState& player = w.units[0];
  player.position = {params.width * 0.5, params.height * 0.5};
  player.orientation = 0;
  player.velocity = {params.spawn_speed, 0};
  const real margin = params.craft.length * (params.ai.rules.obstacle_clearance_factor + 2);
  for (std::int32_t i = 1; i < w.num_units; ++i) {
    CraftState& u = w.units[static_cast<std::size_t>(i)];
    // Rejection sampling outside the obstacles; bounded so a crowded world cannot hang.
    for (int attempt = 0; attempt < 64; ++attempt) {
      u.position = {rng.uniform(0, params.width), rng.uniform(0, params.height)};
      bool clear = true;
      for (const Circle& c : used) clear = clear && math::distance(u.position, c.center) > c.radius + margin;
      if (clear) break;
    }
    u.orientation = rng.uniform(-math::kPi, math::kPi);
    u.velocity = math::as_vector(u.orientation) * params.spawn_speed;
    w.roles[static_cast<std::size_t>(i)] = FlockRole::follower;
  }
  if (params.leader > 0 && params.leader < w.num_units)
    w.roles[static_cast<std::size_t>(params.leader)] = FlockRole::leader;
  if (params.interceptor > 0 && params.interceptor < w.num_units) {
    w.roles[static_cast<std::size_t>(params.interceptor)] = FlockRole::interceptor;
  }
  return w;
}

namespace {

/// T14; true when the torus moved the unit (it crossed the seam this tick).
bool wrap_unit(CraftState& u, const Demo4Params& params) {
  if (!params.wrap) return false;
  const Vec2 before = u.position;
  u.position = params.seed_wrap ? math::wrap_seed(u.position, params.width, params.height)
                                : math::wrap_torus(u.position, params.width, params.height);
  return !(u.position == before);
}

}  // namespace

bool demo4_step(Demo4World& world, const Demo4Params& params, Demo4Input input) {
  // Step 1: the player, arrow keys -> thrusters at player_factor, then integrate and wrap.
  const Thrusters keys{input.right, input.left, params.player_factor, 1};
  craft_step(world.units[0], params.craft, keys, params.dt);
  wrap_unit(world.units[0], params);
  // Step 2: the units.
  demo4_step_units(world, params);
  ++world.tick;
  // Step 3, render decimation: a counter only; nothing above reads it.
  if (++world.render_counter >= params.render_frame_count) {
    world.render_counter = 0;
    ++world.frames_rendered;
    return true;
  }
  return false;
}

void demo4_step_units(Demo4World& world, const Demo4Params& params) {
  const auto n = static_cast<std::size_t>(world.num_units);
  std::array<Mover, kDemo4MaxUnits> movers{};
  for (std::size_t i = 0; i < n; ++i) movers[i] = Mover{world.units[i].position, world.units[i].velocity};

  FlockContext ctx;
  ctx.units = std::span<const Mover>(movers.data(), n);
  ctx.obstacles = std::span<const Circle>(world.obstacles.data(), static_cast<std::size_t>(world.num_obstacles));
  ctx.view = world.view;
  ctx.flocking = world.flocking;
  ctx.leader = -1;
  if (params.leader > 0 && params.leader < world.num_units &&
      world.roles[static_cast<std::size_t>(params.leader)] == FlockRole::leader) {
    ctx.leader = params.leader;
  }

  // Compute phase: every AI unit decides from the same snapshot.
  std::array<real, kDemo4MaxUnits> lateral{};
  for (std::size_t i = 1; i < n; ++i) {
    const FlockSteering s = flock_unit_ai(static_cast<std::int32_t>(i), world.units[i], params.craft, world.roles[i],
                                          ctx, params.ai, world.modes[i]);
    lateral[i] = s.lateral_force;
    world.aims[i] = s.aim;
    world.seen[i] = s.neighbors.count;
    world.leader_seen[i] = s.leader_visible;
  }
  // Commit phase: every unit at full thrust with its net lateral bow force, then the wrap.
  for (std::size_t i = 1; i < n; ++i) {
    craft_step_lateral(world.units[i], params.craft, lateral[i], 1, params.dt);
    world.wrapped[i] = wrap_unit(world.units[i], params);
  }
}

}  // namespace flockstep::behavior
