#include "flockstep/sim/extrapolate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "flockstep/behavior/avoid.hpp"
#include "flockstep/behavior/blend.hpp"
#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/combine.hpp"
#include "flockstep/behavior/craft.hpp"
#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/kinematic.hpp"
#include "flockstep/behavior/lamothe.hpp"
#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/math/angle.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/sim/model_params.hpp"
#include "flockstep/sim/rules.hpp"
#include "stage_craft.hpp"
#include "stage_forces.hpp"
#include "stage_kinematic.hpp"
#include "stage_targets.hpp"
#include "stage_tile.hpp"
#include "stage_vehicle.hpp"
#include "tile_map.hpp"

namespace flockstep::sim {
namespace {

/// Behaviours of a vehicle composition whose inputs a snapshot carries: the agent itself, the
/// players and other agents (positions, velocities, headings), the leader of a group (lowest id)
/// and the scenario's static walls and obstacles. Flocking and wandering need every neighbour's
/// private random stream and the world's neighbour truncation; waypoint following needs the
/// agent's waypoint index: those are not in a snapshot.
bool snapshot_evaluable(BehaviorType t) {
  switch (t) {
    case BehaviorType::kWallAvoid:
    case BehaviorType::kObstacleAvoid:
    case BehaviorType::kFleePlayers:
    case BehaviorType::kSeek:
    case BehaviorType::kArrive:
    case BehaviorType::kFlee:
    case BehaviorType::kPursue:
    case BehaviorType::kEvade:
    case BehaviorType::kHide:
    case BehaviorType::kOffsetPursuit:
    case BehaviorType::kInterpose: return true;
    default: return false;
  }
}

ExtrapolationMethod method_for(const GroupSpec& g, const Composition& c) {
  switch (model_of(g)) {
    case Model::kCraft:
      return g.technique == Technique::kLosChase || g.technique == Technique::kIntercept
                 ? ExtrapolationMethod::kBehaviour
                 : ExtrapolationMethod::kDeadReckoning;
    case Model::kVehicle: {
      const bool combiner =
          c.combiner == Combiner::kRunningSum || c.combiner == Combiner::kBlend || c.combiner == Combiner::kPriority;
      // T82 heading smoothing keeps a per-agent history a snapshot does not carry.
      if (!combiner || c.filters.heading_samples > 0 || c.behaviors.empty()) return ExtrapolationMethod::kDeadReckoning;
      for (const BehaviorSpec& b : c.behaviors)
        if (b.weight > 0 && !snapshot_evaluable(b.type)) return ExtrapolationMethod::kDeadReckoning;
      return ExtrapolationMethod::kBehaviour;
    }
    case Model::kKinematic:
      switch (g.technique) {
        // T17 / T18: the step toward / away from the nearest player, which the snapshot has.
        case Technique::kTrack:
        case Technique::kAntiTrack: return ExtrapolationMethod::kBehaviour;
        // The velocity jumps within a snapshot interval by rules whose state is not in a
        // snapshot: LaMothe's fly draws a new burst from its private stream, the mine adds
        // random noise, T40 wander turns by a random binomial every tick (its mean is no turn),
        // a T25 pattern turns on the instruction its counter reaches. The turn and speed rates
        // measured across such a jump are over by the time they are measured: a straight line
        // at the last velocity is closer (docs/viewer.md, "Extrapolation error").
        case Technique::kFly:
        case Technique::kMine:
        case Technique::kKinematicWander:
        case Technique::kKinematicPattern: return ExtrapolationMethod::kFirstOrder;
        default: return ExtrapolationMethod::kDeadReckoning;
      }
    case Model::kTile: return ExtrapolationMethod::kTile;
    default: return ExtrapolationMethod::kDeadReckoning;
  }
}

Plane plane_of(const Scenario& s) { return {s.width, s.height, s.wrap}; }

/// A jump larger than this between two snapshots of one agent is a respawn, not motion: no
/// rates are estimated across it.
constexpr real kTeleportM = 12;
/// T16: the share of what can be left of a fly's burst (its length less the snapshot interval)
/// taken as left when the velocity did not change between two snapshots. Measured on the shipped
/// flies (docs/viewer.md): 0.5 loses the 100 ms median to plain first order (0.145 against
/// 0.114 m), 1.0 keeps most of the 250 ms p95 (1.394 m); 0.75 beats both baselines everywhere.
constexpr real kBurstLeftShare = 0.75;
/// Below this speed the direction of travel is noise (the codec's speed step is 1/16 m/s).
constexpr real kStillMps = 0.0625;

}  // namespace

Extrapolator::Extrapolator(const Scenario& scenario, real dt) : scenario_(scenario), dt_(dt) {
  members_.resize(scenario_.groups.size());
  leader_.resize(scenario_.groups.size());
  // The World adds the solid border as four walls; a scenario taken from a World already has them.
  Scenario border;
  border.width = scenario_.width;
  border.height = scenario_.height;
  border.wrap = scenario_.wrap;
  add_border_walls(border);
  for (const behavior::Wall& w : border.walls) {
    const bool present = std::any_of(scenario_.walls.begin(), scenario_.walls.end(),
                                     [&](const behavior::Wall& o) { return o.a == w.a && o.b == w.b; });
    if (!present) scenario_.walls.push_back(w);
  }
  for (const GroupSpec& g : scenario_.groups) {
    compose_.push_back(composition_of(g));
    method_.push_back(method_for(g, compose_.back()));
  }
  // The tile patterns (T26) and track matrices (T28) from the functions the World builds its own
  // copies with (tile_map.hpp).
  for (const TilePatternSpec& spec : scenario_.tile_patterns) tile_patterns_.push_back(build_tile_pattern(spec));
  for (const TrackSpec& t : scenario_.tracks) track_cells_.push_back(build_track_cells(t, scenario_.tiles));
}

Vec2 Extrapolator::tile_centre(behavior::Tile t) const { return tile_centre_on(scenario_.tiles, t); }

behavior::Tile Extrapolator::tile_at(Vec2 p) const { return tile_under(scenario_.tiles, p); }

void Extrapolator::init_burst(ExtrapolatedAgent& a, const AgentView* old, std::int32_t ticks_between) const {
  // T16: a fly keeps one velocity for a burst of min..max_burst_ticks moves, then draws the next
  // from its private stream (behavior::fly_update). The snapshot shows the velocity, not how much
  // of the burst is left: a velocity that changed since the older snapshot started a burst in
  // between (about half the interval ago), one that did not is somewhere in a burst begun
  // earlier (kBurstLeftShare of what can be left). After that, the mean of the next draw.
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(a.view.group)];
  if (g.technique != Technique::kFly) return;
  const behavior::FlyParams fp;  // the World draws components in fp's range (its defaults)
  const real burst = (g.fly.min_burst_ticks + g.fly.max_burst_ticks) * real(0.5);
  const real n = static_cast<real>(ticks_between);
  real left = burst * real(0.5);
  if (old) left = old->velocity == a.view.velocity ? (burst - n) * kBurstLeftShare : burst - n * real(0.5);
  a.lasts = static_cast<std::int32_t>(std::floor(math::max(left, real(0)) + real(0.5)));
  // The mean component, in LaMothe pixels a tick, as a velocity (stage_kinematic.hpp).
  const real mean = (fp.min_component + fp.max_component) * real(0.5);
  a.then = fly_velocity({mean, mean}, g.max_speed);
}

TileStep Extrapolator::tile_step_of(const AgentView& v) const {
  // The World moves a tile walker from centre(from) to centre(to) at tile_speed steps per second,
  // velocity = (centre(to) - centre(from)) * tile_speed, and aims at centre(to): the snapshot's
  // aim names `to`, its velocity the step (whole tiles per axis), its position the progress.
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(v.group)];
  TileStep ts;
  ts.to = tile_at(v.aim);
  ts.from = ts.to;
  ts.progress = 0;
  const real per_tile = g.tile_speed * scenario_.tiles.cell;  // m/s for a one-tile orthogonal step
  const Vec2 step = v.velocity / per_tile;
  const auto dr = static_cast<std::int32_t>(std::floor(step.y + real(0.5)));
  const auto dc = static_cast<std::int32_t>(std::floor(step.x + real(0.5)));
  if (dr != 0 || dc != 0) {
    ts.from = {ts.to.row - dr, ts.to.col - dc};
    const Vec2 span = tile_centre(ts.to) - tile_centre(ts.from);
    ts.progress = 1 - math::length(tile_centre(ts.to) - v.position) / math::length(span);
  }
  return ts;
}

void Extrapolator::init_tile(ExtrapolatedAgent& a, const AgentView* old, std::int32_t ticks_between) const {
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(a.view.group)];
  TileStep& ts = a.tile;
  ts = tile_step_of(a.view);
  if (ts.from == ts.to && old) {
    // Standing on a tile centre (a patrol waits one step on every corner): the position cannot
    // tell how long it has stood, the older snapshot can. Progress keeps accumulating while it
    // stands, so it is the older step's progress plus the ticks since, less the step it
    // finished; standing then as well, at least the ticks since.
    const TileStep was = tile_step_of(*old);
    const real since = static_cast<real>(ticks_between) * g.tile_speed * dt_;
    if (!(was.from == was.to) && was.to == ts.to) ts.progress = was.progress + since - 1;
    else if (was.from == was.to && was.to == ts.to) ts.progress = since;
  }
  ts.progress = std::clamp(ts.progress, real(0), real(1) - std::numeric_limits<real>::epsilon());
  // A patrol on its pattern: the entry it walks to, the one after the entry it left.
  if (g.technique != Technique::kTilePatrol || a.view.state != BehaviorState::kPatrolling || g.tile_pattern < 0 ||
      g.tile_pattern >= static_cast<std::int32_t>(tile_patterns_.size()))
    return;
  const behavior::TilePathPattern& p = tile_patterns_[static_cast<std::size_t>(g.tile_pattern)];
  const std::int32_t n = behavior::path_entry_count(p);
  auto world_entry = [&](std::int32_t k) {
    const behavior::Tile e = behavior::path_entry(p, (k % n + n) % n);
    return behavior::Tile{p.row_offset + e.row, p.col_offset + e.col};
  };
  // Patterns repeat their corner tiles (each T22 segment starts on the one before's end), so a
  // patrol standing on a corner is on the second copy: match the step (from, to) first, and the
  // tile alone only when no step matches (a patrol standing where it started).
  for (std::int32_t k = 0; k < n && ts.pattern < 0; ++k)
    if (world_entry(k) == ts.to && world_entry(k - 1) == ts.from) ts.pattern = k;
  for (std::int32_t k = 0; k < n && ts.pattern < 0; ++k)
    if (world_entry(k) == ts.to) ts.pattern = k;
}

TileStep Extrapolator::steer_tile(std::span<const ExtrapolatedAgent> agents, std::int32_t i, math::Rng& rng) const {
  // The World's tile step (stage_tile.hpp); on arrival the next tile where it follows.
  const ExtrapolatedAgent& a = agents[static_cast<std::size_t>(i)];
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(a.view.group)];
  TileStep ts = a.tile;
  if (!advance_tile_step({ts.from, ts.to, ts.previous, ts.progress}, g.tile_speed, dt_)) return ts;
  const behavior::Tile previous = ts.previous;
  // Where the next tile does not follow from the snapshot, the walker waits on the centre of
  // the tile it reached: the point nearest to every way it may go on.
  if (g.technique == Technique::kTileTrack && g.track >= 0 &&
      g.track < static_cast<std::int32_t>(track_cells_.size())) {
    // T28 (behavior::follow_track): one candidate is taken, a dead end turns back; at a junction
    // the World draws from the agent's private random stream, which no snapshot carries.
    const std::vector<std::uint8_t>& cells = track_cells_[static_cast<std::size_t>(g.track)];
    const behavior::TrackView view{cells.data(), scenario_.tiles.rows, scenario_.tiles.cols};
    if (a.own_stream) {
      ts.to = next_track_tile(ts.from, previous, view, rng);  // the World's own draw (stage_tile.hpp)
      return ts;
    }
    std::array<behavior::Tile, 8> candidates{};
    const std::int32_t n = behavior::track_candidates(view, ts.from, previous, candidates);
    if (n == 1) {
      ts.to = candidates[0];
    } else if (n > 1) {
      // A junction. Going straight on where the track does, and waiting on the centre where it
      // turns, was measured closest to the truth (docs/viewer.md: carrying on along the
      // straightest branch, or waiting at every junction, do worse at p95 or at the median).
      // (Straight on from a known previous tile only: one next to `from`.)
      const behavior::Tile ahead{2 * ts.from.row - previous.row, 2 * ts.from.col - previous.col};
      const bool known = std::abs(previous.row - ts.from.row) <= 1 && std::abs(previous.col - ts.from.col) <= 1 &&
                         !(previous == ts.from);
      if (known &&
          std::any_of(candidates.begin(), candidates.begin() + n, [&](behavior::Tile c) { return c == ahead; }))
        ts.to = ahead;
    } else if (behavior::on_track(view, previous)) {
      ts.to = previous;
    }
  } else if (g.technique == Technique::kTilePatrol && ts.pattern >= 0) {
    // T27 (behavior::patrol_step): the next entry, unless a target in chase_range breaks the
    // patrol out into a chase, whose path the World walks by line of sight with a breadth-first
    // fall-back over line state no snapshot carries: then the walker waits, pattern unknown.
    const std::int32_t j = nearest_target(agents, g.target_group, i, a.view.position);
    const bool enemy =
        g.chase_range > 0 && j >= 0 &&
        math::length(delta(a.view.position, agents[static_cast<std::size_t>(j)].view.position)) <= g.chase_range;
    const behavior::TilePathPattern& p = tile_patterns_[static_cast<std::size_t>(g.tile_pattern)];
    behavior::TilePatrolState patrol{ts.pattern, ts.from, true};
    if (behavior::patrol_step(patrol, p, behavior::pattern_anchor(p), enemy)) {
      ts.pattern = patrol.index;
      ts.to = patrol.tile;
    } else {
      ts.pattern = -1;
    }
  }
  return ts;
}

ExtrapolationMethod Extrapolator::method_of(std::int32_t group) const {
  if (group < 0 || group >= static_cast<std::int32_t>(method_.size())) return ExtrapolationMethod::kDeadReckoning;
  return method_[static_cast<std::size_t>(group)];
}

Vec2 Extrapolator::delta(Vec2 from, Vec2 to) const { return plane_of(scenario_).delta(from, to); }

void Extrapolator::init(std::span<const AgentView> views, std::vector<ExtrapolatedAgent>& out,
                        std::span<const AgentView> previous, std::int32_t ticks_between) const {
  out.resize(views.size());
  std::size_t hint = 0;
  for (std::size_t i = 0; i < views.size(); ++i) {
    const AgentView& v = views[i];
    ExtrapolatedAgent& a = out[i];
    a = ExtrapolatedAgent{};
    a.view = v;
    a.heading = math::as_vector(v.orientation);
    a.method = v.kind == AgentKind::kPlayer ? ExtrapolationMethod::kDeadReckoning : method_of(v.group);
    // Snapshots keep the same order unless agents came or went: try the same index first.
    const AgentView* old = nullptr;
    if (ticks_between > 0) {
      if (i < previous.size() && previous[i].id == v.id) old = &previous[i];
      for (std::size_t k = 0; !old && k < previous.size(); ++k) {
        const std::size_t j = (hint + k) % previous.size();
        if (previous[j].id == v.id) {
          old = &previous[j];
          hint = j + 1;
        }
      }
    }
    if (old && math::length_sq(delta(old->position, v.position)) > kTeleportM * kTeleportM) old = nullptr;
    if (a.method == ExtrapolationMethod::kTile) init_tile(a, old, ticks_between);
    if (a.method == ExtrapolationMethod::kFirstOrder) init_burst(a, old, ticks_between);
    if (!old) continue;
    const real s0 = math::length(old->velocity), s1 = math::length(v.velocity);
    const real n = static_cast<real>(ticks_between);
    a.accel = (s1 - s0) / n;
    if (s0 > kStillMps && s1 > kStillMps)
      a.turn = math::wrap_angle(math::orientation_of(v.velocity) - math::orientation_of(old->velocity)) / n;
  }
}

void Extrapolator::init(std::span<const AgentView> views, const WorldState& state,
                        std::vector<ExtrapolatedAgent>& out) const {
  init(views, out);
  // The state's rows by id slot: its rows are in id order, the views in the order they came in.
  std::vector<std::int32_t> row_of_slot;
  for (std::size_t r = 0; r < state.id.size(); ++r) {
    const std::uint32_t slot = state.id[r].slot();
    if (slot >= row_of_slot.size()) row_of_slot.resize(slot + 1, -1);
    row_of_slot[slot] = static_cast<std::int32_t>(r);
  }
  for (ExtrapolatedAgent& a : out) {
    const std::uint32_t slot = a.view.id.slot();
    if (slot >= row_of_slot.size() || row_of_slot[slot] < 0) continue;
    const auto i = static_cast<std::size_t>(row_of_slot[slot]);
    if (state.id[i] != a.view.id || i >= state.heading.size()) continue;
    a.heading = state.heading[i];  // a snapshot's orientation gives it only to the angle's rounding
    if (a.method != ExtrapolationMethod::kTile) continue;
    if (i >= state.tile.size()) continue;
    const WorldState::Tile& t = state.tile[i];
    // On its pattern (mode 0) a patrol's entry is the one it walks to; off it, unknown.
    a.tile = {t.from, t.to, t.progress, t.previous, t.mode == 0 && t.patrol.patrolling ? t.patrol.index : -1};
    if (i < state.rng.size()) {
      a.rng = state.rng[i];
      a.own_stream = true;
    }
  }
}

std::int32_t Extrapolator::nearest_target(std::span<const ExtrapolatedAgent>, std::int32_t target_group,
                                          std::int32_t self, Vec2 p) const {
  // The nearest player, or the nearest other agent of target_group (stage_targets.hpp), over the
  // lists step() made at the start of the tick (snapshots list agents in id order, as the World's lists are).
  const Targets targets{players_, members_, position_.data(), plane_of(scenario_)};
  return targets.nearest(target_group, self, p, nullptr);
}

Extrapolator::Steer Extrapolator::steer(std::span<const ExtrapolatedAgent> agents, std::int32_t i) const {
  const ExtrapolatedAgent& a = agents[static_cast<std::size_t>(i)];
  Steer s;
  s.state = a.view.state;
  s.rng = a.rng;
  if (a.method == ExtrapolationMethod::kTile) s.tile = steer_tile(agents, i, s.rng);
  if (a.method != ExtrapolationMethod::kBehaviour) return s;
  const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(a.view.group)];
  const Vec2 pos = a.view.position;
  const Vec2 centre{scenario_.width / 2, scenario_.height / 2};
  // The agent j as agent i sees it: at its torus copy nearest to i.
  auto mover_of = [&](std::int32_t j) {
    const AgentView& o = agents[static_cast<std::size_t>(j)].view;
    return behavior::Mover{pos + delta(pos, o.position), o.velocity};
  };

  if (model_of(g) == Model::kKinematic) {
    // T17 / T18 (stage_kinematic.hpp): the new velocity in `force`; no target, no motion.
    const std::int32_t tj = nearest_target(agents, g.target_group, i, pos);
    s.state = BehaviorState::kNone;
    if (tj >= 0) {
      const bool track = g.technique == Technique::kTrack;
      s.force = tracker_velocity(track, mover_of(tj).position - pos, g.max_speed, dt_);
      s.state = track ? BehaviorState::kSeeking : BehaviorState::kFleeing;
    }
    return s;
  }

  if (model_of(g) == Model::kCraft) {
    // T21 and T23/T24 (stage_craft.hpp), with the chase mode the snapshot reports.
    const behavior::CraftState cs{pos, a.view.velocity, a.view.orientation, a.view.angular_velocity};
    const std::int32_t pj = nearest_target(agents, g.target_group, i, pos);
    behavior::ChaseMode mode = a.view.state == BehaviorState::kLosFallback ? behavior::ChaseMode::line_of_sight
                                                                           : behavior::ChaseMode::intercept;
    const behavior::Mover prey = pj >= 0 ? mover_of(pj) : behavior::Mover{};
    const CraftChase c = chase_craft(g, cs, pj >= 0 ? &prey : nullptr, centre, mode);
    s.thrusters = c.thrusters;
    s.state = c.state;
    return s;
  }

  // Vehicle composition (compose.hpp): each behaviour's rule as the World runs it
  // (stage_forces.hpp), over the agents as they stood at the tick's start.
  struct Env {
    const Extrapolator& x;
    std::span<const ExtrapolatedAgent> agents;
    const Scenario& scenario() const { return x.scenario_; }
    Vec2 delta(Vec2 from, Vec2 to) const { return x.delta(from, to); }
    // Every obstacle: the World's look-up by cell returns those that can matter at p, and the
    // avoidance rule picks the same one from either.
    std::span<const Circle> obstacles_near(Vec2) const { return x.scenario_.obstacles; }
    Targets targets;
    std::int32_t nearest_player(Vec2 p, real* distance) const { return targets.nearest_player(p, distance); }
    std::int32_t nearest_in_group(std::int32_t group, std::int32_t self, Vec2 p) const {
      return targets.nearest_in_group(group, self, p, nullptr);
    }
    std::int32_t leader(std::int32_t group) const {
      return group >= 0 && group < static_cast<std::int32_t>(x.leader_.size())
                 ? x.leader_[static_cast<std::size_t>(group)]
                 : -1;
    }
    const AgentView& view(std::int32_t j) const { return agents[static_cast<std::size_t>(j)].view; }
    Vec2 position(std::int32_t j) const { return view(j).position; }
    Vec2 velocity(std::int32_t j) const { return view(j).velocity; }
    Vec2 heading(std::int32_t j) const { return agents[static_cast<std::size_t>(j)].heading; }
    std::int32_t group(std::int32_t j) const { return view(j).group; }
  };
  const Env env{*this, agents, {players_, members_, position_.data(), plane_of(scenario_)}};
  const Composition& c = compose_[static_cast<std::size_t>(a.view.group)];
  const stage::Agent agent{i, pos, a.view.velocity, a.heading};
  // The combiner the World runs (behavior::PrioritizedCombiner) for the running sum and the priority.
  const bool prioritized = c.combiner == Combiner::kRunningSum || c.combiner == Combiner::kPriority;
  behavior::PrioritizedCombiner combine{
      c.combiner == Combiner::kPriority ? behavior::PriorityRule::kPriority : behavior::PriorityRule::kRunningSum,
      g.max_force, c.epsilon};
  behavior::SteeringOutput outs[kMaxBehaviors];
  real weights[kMaxBehaviors] = {};
  const std::size_t nb = std::min(c.behaviors.size(), static_cast<std::size_t>(kMaxBehaviors));
  for (std::size_t k = 0; k < nb; ++k) {
    const BehaviorSpec& bs = c.behaviors[k];
    if (!(bs.weight > 0)) continue;
    if (prioritized && !combine.wants()) break;
    struct ForceOnly {  // the Extrapolator keeps only the force
      Vec2 f;
      bool produced = false;
      void force(Vec2 v) {
        f = v;
        produced = true;
      }
      void credit(int) {}
      void state(BehaviorState) {}
      void target(std::int32_t) {}
      void aim(Vec2) {}
    } out;
    stage::vehicle_force(env, bs, g, agent, out);
    if (!out.produced) continue;
    const Vec2 f = out.f;
    if (prioritized) combine.take(bs.weight, {f, 0});
    outs[k] = {f, 0};
    weights[k] = bs.weight;
  }
  if (prioritized) {
    s.force = combine.result(c.max_angular).linear;
  } else {
    s.force = behavior::blend_steering(std::span<const behavior::SteeringOutput>(outs, nb),
                                       std::span<const real>(weights, nb), {g.max_force, c.max_angular})
                  .linear;
  }
  return s;
}

void Extrapolator::dead_reckon(ExtrapolatedAgent& a) const {
  // The codec's second-order model (codec::predict_motion): speed and direction of travel keep
  // changing at their measured rates; the position advances semi-implicitly like the World's bodies.
  AgentView& v = a.view;
  if (a.method == ExtrapolationMethod::kFirstOrder && a.lasts >= 0) {
    if (a.lasts == 0) v.velocity = a.then;
    --a.lasts;
  }
  const real speed = math::length(v.velocity);
  // The rates carry on the change measured between two snapshots; a group's own speed limit
  // bounds where that can lead (a kinematic agent that jumps to full speed would otherwise keep
  // accelerating).
  const bool second_order = a.method != ExtrapolationMethod::kFirstOrder;
  const real accel = second_order ? a.accel : 0, turn = second_order ? a.turn : 0;
  real next_speed = math::max(real(0), speed + accel);
  if (v.group >= 0 && v.group < static_cast<std::int32_t>(scenario_.groups.size())) {
    const GroupSpec& g = scenario_.groups[static_cast<std::size_t>(v.group)];
    const Model m = model_of(g);
    if (m == Model::kVehicle || m == Model::kSteering || m == Model::kKinematic)
      next_speed = math::min(next_speed, math::max(speed, g.max_speed));
  }
  if (speed > 0) v.velocity = math::rotate(v.velocity, turn) * (next_speed / speed);
  v.position += v.velocity * dt_;
  const bool free_heading = v.kind == AgentKind::kPlayer || v.angular_velocity != 0;
  if (free_heading) {
    // Crafts' heading is not their direction of travel: it keeps turning at the angular velocity.
    v.orientation = math::wrap_angle(v.orientation + v.angular_velocity * dt_);
  } else if (next_speed > kStillMps) {
    v.orientation = math::orientation_of(v.velocity);
  }
  a.heading = math::as_vector(v.orientation);
}

void Extrapolator::integrate(ExtrapolatedAgent& a, const Steer& s) const {
  AgentView& v = a.view;
  if (a.method == ExtrapolationMethod::kTile) {
    a.tile = s.tile;
    a.rng = s.rng;
    const TileMotion m = tile_motion(tile_centre(a.tile.from), tile_centre(a.tile.to), a.tile.progress,
                                     scenario_.groups[static_cast<std::size_t>(v.group)].tile_speed);
    v.position = m.position;
    v.velocity = m.velocity;
    v.angular_velocity = 0;
    v.aim = tile_centre(a.tile.to);
    if (m.moving) {
      a.heading = m.heading;
      v.orientation = m.orientation;
    }
  } else if (a.method != ExtrapolationMethod::kBehaviour) {
    dead_reckon(a);
  } else if (model_of(scenario_.groups[static_cast<std::size_t>(v.group)]) == Model::kKinematic) {
    // T03 (stage_kinematic.hpp): the velocity set directly, facing along it.
    commit_kinematic({v.position, v.velocity, v.orientation, v.angular_velocity}, s.force, 0, true, dt_);
    a.heading = math::as_vector(v.orientation);
    v.state = s.state;
  } else if (model_of(scenario_.groups[static_cast<std::size_t>(v.group)]) == Model::kCraft) {
    // T10, the angle kept wrapped (stage_craft.hpp).
    const behavior::CraftState cs =
        step_craft({v.position, v.velocity, v.orientation, v.angular_velocity},
                   scenario_.groups[static_cast<std::size_t>(v.group)].craft, s.thrusters, dt_);
    v.position = cs.position;
    v.velocity = cs.velocity;
    v.orientation = cs.orientation;
    v.angular_velocity = cs.angular_velocity;
    a.heading = math::as_vector(v.orientation);
    v.state = s.state;
  } else {
    // T08 (stage_vehicle.hpp): the World's per-agent body update, whose lane form
    // (move_vehicle_bodies) is tested to give the same bits.
    move_vehicle_body(scenario_.groups[static_cast<std::size_t>(v.group)], v.position, v.velocity, a.heading, s.force,
                      dt_);
    v.orientation = math::orientation_of(a.heading);
  }
  // The end-of-tick rules (confine_body, rules.hpp). Tile walkers stay between tile centres
  // inside the map and are not confined, as in the World.
  if (a.method == ExtrapolationMethod::kTile) return;
  confine_body(v.position, v.velocity, body_radius(scenario_, v.group), scenario_.obstacles, scenario_,
               scenario_.wrap ? scenario_.width : 0, scenario_.wrap ? scenario_.height : 0);
}

void Extrapolator::step(std::span<ExtrapolatedAgent> agents) {
  // Compute-then-commit, as the World: every agent steers from the state at the tick's start,
  // its targets found among the players and group members as they stand then.
  position_.resize(agents.size());
  for (std::size_t j = 0; j < agents.size(); ++j) position_[j] = agents[j].view.position;
  build_roster(
      static_cast<std::int32_t>(agents.size()),
      [&](std::int32_t j) {
        const AgentView& v = agents[static_cast<std::size_t>(j)].view;
        return RosterEntry{v.kind, v.group, v.id};
      },
      [](std::int32_t) { return true; }, players_, members_, leader_);
  steer_.resize(agents.size());
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(agents.size()); ++i)
    steer_[static_cast<std::size_t>(i)] = steer(agents, i);
  for (std::size_t i = 0; i < agents.size(); ++i) integrate(agents[i], steer_[i]);
}

void Extrapolator::advance(std::span<ExtrapolatedAgent> agents, std::int32_t ticks) {
  const std::int32_t n = std::clamp(ticks, std::int32_t{0}, kMaxExtrapolationTicks);
  for (std::int32_t t = 0; t < n; ++t) step(agents);
}

}  // namespace flockstep::sim
