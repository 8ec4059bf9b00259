#include "predict/remote_agents.hpp"

#include <cmath>
#include <unordered_map>

#include "flockstep/behavior/body.hpp"
#include "flockstep/behavior/force_steering.hpp"
#include "flockstep/behavior/intercept.hpp"
#include "flockstep/behavior/los_chase.hpp"
#include "flockstep/math/angle.hpp"
#include "flockstep/math/transform.hpp"

namespace flockstep::client {

namespace {

// A jump larger than this between two snapshots is a teleport (respawn, wrap), not motion: no
// interpolation across it and no error sample from it.
constexpr real kTeleportM = 12;

bool is_craft(sim::Technique t) {
  return t == sim::Technique::kPlayer || t == sim::Technique::kLosChase || t == sim::Technique::kIntercept ||
         t == sim::Technique::kPattern;
}

DrawAgent draw_of(const sim::AgentView& v) {
  return {v.id.value, v.kind, v.group, v.position, v.velocity, v.orientation, v.aim, v.target.value, v.state};
}

}  // namespace

void RemoteAgents::configure(const sim::Scenario* scenario, real dt) {
  scenario_ = scenario;
  dt_ = dt;
}

void RemoteAgents::reset() {
  for (Frame& f : frames_) {
    f.agents.clear();
    f.prev_index.clear();
    f.tick = 0;
  }
  head_ = 0;
  count_ = 0;
  ex_.clear();
  ex_target_.clear();
  ex_valid_ = false;
  error_ = {};
  rebase_jump_m_ = 0;
}

const RemoteAgents::Frame& RemoteAgents::frame(std::int32_t k) const { return frames_[(head_ + k) % kFrames]; }
RemoteAgents::Frame& RemoteAgents::frame(std::int32_t k) { return frames_[(head_ + k) % kFrames]; }

std::uint64_t RemoteAgents::newest_tick() const { return count_ > 0 ? frame(count_ - 1).tick : 0; }

const std::vector<sim::AgentView>& RemoteAgents::newest() const {
  static const std::vector<sim::AgentView> kEmpty;
  return count_ > 0 ? frame(count_ - 1).agents : kEmpty;
}

const sim::AgentView* RemoteAgents::find(std::uint32_t id) const {
  if (count_ == 0) return nullptr;
  const Frame& f = frame(count_ - 1);
  for (const sim::AgentView& v : f.agents)
    if (v.id.value == id) return &v;
  return nullptr;
}

Vec2 RemoteAgents::delta(Vec2 from, Vec2 to) const {
  if (scenario_ && scenario_->wrap) return math::torus_delta(from, to, scenario_->width, scenario_->height);
  return to - from;
}

Vec2 RemoteAgents::wrap_position(Vec2 p, real radius) const {
  if (!scenario_) return p;
  const real w = scenario_->width, h = scenario_->height;
  if (scenario_->wrap) return math::wrap_torus(p, w, h);
  p.x = math::clamp(p.x, radius, w - radius);
  p.y = math::clamp(p.y, radius, h - radius);
  return p;
}

void RemoteAgents::push(std::uint64_t tick, std::vector<sim::AgentView>&& agents) {
  if (count_ > 0 && tick <= newest_tick()) return;
  if (count_ == kFrames) {
    head_ = (head_ + 1) % kFrames;
    --count_;
  }
  Frame& f = frame(count_);
  ++count_;
  f.tick = tick;
  f.agents.swap(agents);
  agents.clear();
  f.prev_index.assign(f.agents.size(), -1);
  if (count_ >= 2) {
    const Frame& prev = frame(count_ - 2);
    // Agents keep their dense order between snapshots unless someone was removed, so try the
    // same index first and only fall back to a hash lookup on a miss.
    std::unordered_map<std::uint32_t, std::int32_t> index;
    bool built = false;
    for (std::size_t i = 0; i < f.agents.size(); ++i) {
      const std::uint32_t id = f.agents[i].id.value;
      if (i < prev.agents.size() && prev.agents[i].id.value == id) {
        f.prev_index[i] = static_cast<std::int32_t>(i);
        continue;
      }
      if (!built) {
        index.reserve(prev.agents.size());
        for (std::size_t j = 0; j < prev.agents.size(); ++j)
          index.emplace(prev.agents[j].id.value, static_cast<std::int32_t>(j));
        built = true;
      }
      const auto it = index.find(id);
      if (it != index.end()) f.prev_index[i] = it->second;
    }
    measure_error(prev, f);
  }
}

double RemoteAgents::sample_interpolated(double render_tick, std::vector<DrawAgent>& out) const {
  out.clear();
  if (count_ == 0) return 0;
  const Frame& newest_frame = frame(count_ - 1);
  if (count_ == 1 || render_tick >= static_cast<double>(newest_frame.tick)) {
    for (const sim::AgentView& v : newest_frame.agents) out.push_back(draw_of(v));
    const double beyond = render_tick - static_cast<double>(newest_frame.tick);
    return beyond > 0 ? beyond : 0;
  }
  // Find b: the first frame with tick > render_tick; a = the one before it.
  std::int32_t kb = 1;
  while (kb < count_ - 1 && static_cast<double>(frame(kb).tick) <= render_tick) ++kb;
  const Frame& a = frame(kb - 1);
  const Frame& b = frame(kb);
  if (render_tick <= static_cast<double>(a.tick)) {
    for (const sim::AgentView& v : a.agents) out.push_back(draw_of(v));
    return 0;
  }
  const real alpha =
      static_cast<real>((render_tick - static_cast<double>(a.tick)) / static_cast<double>(b.tick - a.tick));
  out.reserve(b.agents.size());
  for (std::size_t i = 0; i < b.agents.size(); ++i) {
    const sim::AgentView& vb = b.agents[i];
    DrawAgent d = draw_of(vb);
    const std::int32_t ia = b.prev_index[i];
    if (ia >= 0) {
      const sim::AgentView& va = a.agents[static_cast<std::size_t>(ia)];
      const Vec2 dp = delta(va.position, vb.position);
      if (math::length_sq(dp) < kTeleportM * kTeleportM) {
        d.position = wrap_position(va.position + dp * alpha, 0);
        d.velocity = va.velocity + (vb.velocity - va.velocity) * alpha;
        d.orientation = math::wrap_angle(va.orientation + math::wrap_angle(vb.orientation - va.orientation) * alpha);
      } else if (alpha < 0.5) {
        d = draw_of(va);
      }
    }
    out.push_back(d);
  }
  return 0;
}

void RemoteAgents::init_ex(const Frame& f, std::vector<ExAgent>& ex, std::vector<std::int32_t>& target_index) const {
  ex.resize(f.agents.size());
  target_index.assign(f.agents.size(), -1);
  std::unordered_map<std::uint32_t, std::int32_t> index;
  index.reserve(f.agents.size());
  for (std::size_t i = 0; i < f.agents.size(); ++i) {
    const sim::AgentView& v = f.agents[i];
    ExAgent& e = ex[i];
    e.view = v;
    e.cs = {v.position, v.velocity, v.orientation, v.angular_velocity};
    e.heading = math::as_vector(v.orientation);
    e.prev_position = v.position;
    e.prev_orientation = v.orientation;
    index.emplace(v.id.value, static_cast<std::int32_t>(i));
  }
  for (std::size_t i = 0; i < f.agents.size(); ++i) {
    if (!f.agents[i].target.valid()) continue;
    const auto it = index.find(f.agents[i].target.value);
    if (it != index.end()) target_index[i] = it->second;
  }
}

void RemoteAgents::step_dead_reckoning(ExAgent& a, real dt) {
  a.prev_position = a.cs.position;
  a.prev_orientation = a.cs.orientation;
  // Constant speed along a circle of the current turn rate (a straight line for vehicles).
  const real dtheta = a.cs.angular_velocity * dt;
  a.cs.position += a.cs.velocity * dt;
  if (dtheta != 0) a.cs.velocity = math::rotate(a.cs.velocity, dtheta);
  a.cs.orientation = math::wrap_angle(a.cs.orientation + dtheta);
}

void RemoteAgents::step_behaviour(std::vector<ExAgent>& agents, std::int32_t i,
                                  const std::vector<std::int32_t>& target_index) const {
  ExAgent& a = agents[static_cast<std::size_t>(i)];
  const sim::Scenario& sc = *scenario_;
  const bool has_group = a.view.group >= 0 && a.view.group < static_cast<std::int32_t>(sc.groups.size());
  const sim::Technique tech =
      has_group ? sc.groups[static_cast<std::size_t>(a.view.group)].technique : sim::Technique::kPlayer;
  const std::int32_t ti = target_index[static_cast<std::size_t>(i)];
  const ExAgent* target = ti >= 0 ? &agents[static_cast<std::size_t>(ti)] : nullptr;
  // The target as this agent sees it (through the torus seam if the world wraps).
  const Vec2 target_pos = target ? a.cs.position + delta(a.cs.position, target->cs.position) : a.view.aim;

  if (!has_group || is_craft(tech)) {
    real radius = sc.player_craft.length * 0.5;
    if (has_group && (tech == sim::Technique::kLosChase || tech == sim::Technique::kIntercept) && target) {
      const sim::GroupSpec& g = sc.groups[static_cast<std::size_t>(a.view.group)];
      Vec2 goal = target_pos;
      if (tech == sim::Technique::kIntercept) {
        const behavior::InterceptParams ip{g.intercept_max_prediction, true};
        goal = behavior::intercept_point({a.cs.position, a.cs.velocity}, {target_pos, target->cs.velocity}, ip);
      }
      const behavior::LosChaseParams los{g.los_tolerance, 1, true, false};
      a.prev_position = a.cs.position;
      a.prev_orientation = a.cs.orientation;
      behavior::craft_step(a.cs, g.craft, behavior::los_chase_thrusters(a.cs, goal, los), dt_);
      a.cs.orientation = math::wrap_angle(a.cs.orientation);
      radius = g.radius;
    } else {
      step_dead_reckoning(a, dt_);
      if (has_group) radius = sc.groups[static_cast<std::size_t>(a.view.group)].radius;
    }
    a.cs.position = wrap_position(a.cs.position, radius);
    return;
  }

  const sim::GroupSpec& g = sc.groups[static_cast<std::size_t>(a.view.group)];
  behavior::Body b{a.cs.position, a.cs.velocity, a.heading, g.mass, g.max_force, g.max_speed, g.radius};
  Vec2 f{};
  switch (tech) {
    case sim::Technique::kChase:
      if (target) f = behavior::seek_force(b, target_pos);
      break;
    case sim::Technique::kPursue:
      if (target) f = behavior::pursue_force(b, {target_pos, target->cs.velocity});
      break;
    case sim::Technique::kEvade:
      if (target) f = behavior::evade_force(b, {target_pos, target->cs.velocity});
      break;
    case sim::Technique::kHide:
      if (a.view.state == sim::BehaviorState::kHiding) f = behavior::arrive_force(b, a.view.aim, g.arrive_deceleration);
      break;
    case sim::Technique::kPathFollow:
      if (a.view.state == sim::BehaviorState::kPatrolling || a.view.state == sim::BehaviorState::kSeeking)
        f = behavior::seek_force(b, a.view.aim);
      break;
    case sim::Technique::kOffsetPursuit:
      if (target && target->view.group >= 0 && target->view.group < static_cast<std::int32_t>(sc.groups.size())) {
        const sim::GroupSpec& lg = sc.groups[static_cast<std::size_t>(target->view.group)];
        const behavior::Body leader{target_pos,   target->cs.velocity, target->heading, lg.mass,
                                    lg.max_force, lg.max_speed,        lg.radius};
        f = behavior::offset_pursuit_force(b, leader, g.offset, behavior::OffsetFrame::kLeaderLocal,
                                           g.arrive_deceleration);
      }
      break;
    default:
      // Flocking and wandering need neighbours and private random streams: dead reckoning.
      break;
  }
  a.prev_position = a.cs.position;
  a.prev_orientation = a.cs.orientation;
  behavior::body_update(b, f, dt_);
  a.cs.position = wrap_position(b.position, g.radius);
  a.cs.velocity = b.velocity;
  a.heading = b.heading;
  a.cs.orientation = math::orientation_of(b.heading);
}

void RemoteAgents::advance_ex(std::vector<ExAgent>& ex, const std::vector<std::int32_t>& target_index) const {
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(ex.size()); ++i) step_behaviour(ex, i, target_index);
}

void RemoteAgents::measure_error(const Frame& older, const Frame& newer) {
  if (!scenario_ || newer.tick <= older.tick) return;
  const std::uint64_t span = newer.tick - older.tick;
  const std::int32_t ticks = static_cast<std::int32_t>(span > 30 ? 30 : span);
  init_ex(older, scratch_b_, scratch_target_);
  scratch_d_ = scratch_b_;
  for (std::int32_t t = 0; t < ticks; ++t) {
    advance_ex(scratch_b_, scratch_target_);
    for (ExAgent& e : scratch_d_) {
      step_dead_reckoning(e, dt_);
      e.cs.position = wrap_position(e.cs.position, 0);
    }
  }
  ExtrapolationError err;
  err.ticks = ticks;
  real sum_b = 0, sum_d = 0;
  for (std::size_t i = 0; i < newer.agents.size(); ++i) {
    const std::int32_t ia = newer.prev_index[i];
    if (ia < 0) continue;
    const Vec2 truth = newer.agents[i].position;
    const real eb = math::length(delta(scratch_b_[static_cast<std::size_t>(ia)].cs.position, truth));
    const real ed = math::length(delta(scratch_d_[static_cast<std::size_t>(ia)].cs.position, truth));
    if (eb > kTeleportM || ed > kTeleportM) continue;  // respawn
    sum_b += eb;
    sum_d += ed;
    if (eb > err.behaviour_max_m) err.behaviour_max_m = eb;
    ++err.samples;
  }
  if (err.samples > 0) {
    err.behaviour_mean_m = sum_b / err.samples;
    err.dead_reckoning_mean_m = sum_d / err.samples;
  }
  error_ = err;
}

void RemoteAgents::sample_extrapolated(double now_tick, std::vector<DrawAgent>& out, std::int32_t max_ahead_ticks) {
  out.clear();
  if (count_ == 0 || !scenario_) return;
  const Frame& f = frame(count_ - 1);
  double t = now_tick;
  const double newest_t = static_cast<double>(f.tick);
  if (t < newest_t) t = newest_t;
  if (t > newest_t + max_ahead_ticks) t = newest_t + max_ahead_ticks;
  const auto target_tick = static_cast<std::uint64_t>(std::ceil(t));

  if (!ex_valid_ || ex_base_tick_ != f.tick) {
    // Remember where the old basis was drawn, to measure the jump the new snapshot causes.
    std::vector<Vec2> old_pos;
    const bool can_compare = ex_valid_ && count_ >= 2 && frame(count_ - 2).tick == ex_base_tick_;
    if (can_compare) {
      while (ex_tick_ < target_tick) {
        advance_ex(ex_, ex_target_);
        ++ex_tick_;
      }
      old_pos.reserve(ex_.size());
      const real alpha = static_cast<real>(1.0 - (static_cast<double>(ex_tick_) - t));
      for (const ExAgent& e : ex_) old_pos.push_back(e.prev_position + delta(e.prev_position, e.cs.position) * alpha);
    }
    init_ex(f, ex_, ex_target_);
    ex_base_tick_ = f.tick;
    ex_tick_ = f.tick;
    ex_valid_ = true;
    while (ex_tick_ < target_tick) {
      advance_ex(ex_, ex_target_);
      ++ex_tick_;
    }
    if (can_compare) {
      const real alpha = static_cast<real>(1.0 - (static_cast<double>(ex_tick_) - t));
      real sum = 0;
      std::int32_t n = 0;
      for (std::size_t i = 0; i < ex_.size(); ++i) {
        const std::int32_t ia = f.prev_index[i];
        if (ia < 0 || static_cast<std::size_t>(ia) >= old_pos.size()) continue;
        const ExAgent& e = ex_[i];
        const real j = math::length(delta(old_pos[static_cast<std::size_t>(ia)],
                                          e.prev_position + delta(e.prev_position, e.cs.position) * alpha));
        if (j > kTeleportM) continue;
        sum += j;
        ++n;
      }
      rebase_jump_m_ = n > 0 ? sum / n : 0;
    }
  }
  while (ex_tick_ < target_tick) {
    advance_ex(ex_, ex_target_);
    ++ex_tick_;
  }
  // Draw between the last two extrapolated ticks (t lies in (ex_tick_ - 1, ex_tick_]).
  real alpha = static_cast<real>(1.0 - (static_cast<double>(ex_tick_) - t));
  if (ex_tick_ == ex_base_tick_) alpha = 1;
  out.reserve(ex_.size());
  for (const ExAgent& e : ex_) {
    DrawAgent d = draw_of(e.view);
    const Vec2 dp = delta(e.prev_position, e.cs.position);
    d.position = wrap_position(e.prev_position + dp * alpha, 0);
    d.velocity = e.cs.velocity;
    d.orientation =
        math::wrap_angle(e.prev_orientation + math::wrap_angle(e.cs.orientation - e.prev_orientation) * alpha);
    out.push_back(d);
  }
}

}  // namespace flockstep::client
