#include "predict/remote_agents.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>

#include "flockstep/math/angle.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/sim/rules.hpp"
#include "flockstep/sim/group_kind.hpp"

namespace flockstep::client {

namespace {

// A jump larger than this between two snapshots is a teleport (respawn, wrap), not motion: no
// interpolation across it and no error sample from it.
constexpr real kTeleportM = 12;

DrawAgent draw_of(const sim::AgentView& v) {
  return {v.id.value, v.kind, v.group, v.position, v.velocity, v.orientation, v.aim, v.target.value, v.state};
}

}  // namespace

void RemoteAgents::configure(const sim::Scenario* scenario, real dt) {
  scenario_ = scenario;
  dt_ = dt;
  extrapolator_.reset();
  if (scenario_) extrapolator_.emplace(*scenario_, dt_);
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
  ex_prev_position_.clear();
  ex_prev_orientation_.clear();
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

Vec2 RemoteAgents::confined(Vec2 p) const {
  if (!scenario_) return p;
  Vec2 v{};  // a drawn pose has no velocity to cancel
  sim::apply_border(p, v, 0, *scenario_);
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
    measure_error(count_ - 2, f);
    if (hold_errors_on_) measure_holds(f);
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
        d.position = confined(va.position + dp * alpha);
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

void RemoteAgents::init_ex(std::int32_t k, std::vector<sim::ExtrapolatedAgent>& ex) const {
  const Frame& f = frame(k);
  if (k > 0) {
    const Frame& before = frame(k - 1);
    extrapolator_->init(f.agents, ex, before.agents, static_cast<std::int32_t>(f.tick - before.tick));
  } else {
    extrapolator_->init(f.agents, ex);
  }
}

void RemoteAgents::advance_ex() {
  ex_prev_position_.resize(ex_.size());
  ex_prev_orientation_.resize(ex_.size());
  for (std::size_t i = 0; i < ex_.size(); ++i) {
    ex_prev_position_[i] = ex_[i].view.position;
    ex_prev_orientation_[i] = ex_[i].view.orientation;
  }
  extrapolator_->step(ex_);
}

void RemoteAgents::measure_error(std::int32_t k_older, const Frame& newer) {
  const Frame& older = frame(k_older);
  if (!extrapolator_ || newer.tick <= older.tick) return;
  const std::uint64_t span = newer.tick - older.tick;
  const std::int32_t ticks = static_cast<std::int32_t>(span > 30 ? 30 : span);
  init_ex(k_older, scratch_b_);
  scratch_d_ = scratch_b_;
  // The control: every agent dead reckoned by the same model the extrapolator falls back to.
  for (sim::ExtrapolatedAgent& e : scratch_d_) e.method = sim::ExtrapolationMethod::kDeadReckoning;
  extrapolator_->advance(scratch_b_, ticks);
  extrapolator_->advance(scratch_d_, ticks);
  ExtrapolationError err;
  err.ticks = ticks;
  real sum_b = 0, sum_d = 0;
  for (std::size_t i = 0; i < newer.agents.size(); ++i) {
    const std::int32_t ia = newer.prev_index[i];
    if (ia < 0) continue;
    const Vec2 truth = newer.agents[i].position;
    const real eb = math::length(delta(scratch_b_[static_cast<std::size_t>(ia)].view.position, truth));
    const real ed = math::length(delta(scratch_d_[static_cast<std::size_t>(ia)].view.position, truth));
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

void RemoteAgents::measure_holds(const Frame& newer) {
  if (!extrapolator_ || !scenario_) return;
  for (std::size_t h = 0; h < std::size(kHoldsMs); ++h) {
    // The snapshot exactly that long before the newest (none when one was lost on the way), and
    // one before it for the rates the extrapolator starts from.
    const auto span = static_cast<std::uint64_t>(kHoldsMs[h] / 1000.0 / dt_ + 0.5);
    std::int32_t k = -1;
    for (std::int32_t i = 1; i < count_ - 1; ++i)
      if (frame(i).tick + span == newer.tick) k = i;
    if (k < 0) continue;
    const Frame& older = frame(k);
    init_ex(k, scratch_b_);
    scratch_d_ = scratch_b_;
    for (sim::ExtrapolatedAgent& e : scratch_d_) e.method = sim::ExtrapolationMethod::kDeadReckoning;
    extrapolator_->advance(scratch_b_, static_cast<std::int32_t>(span));
    extrapolator_->advance(scratch_d_, static_cast<std::int32_t>(span));
    std::unordered_map<std::uint32_t, std::size_t> index;
    index.reserve(older.agents.size());
    for (std::size_t i = 0; i < older.agents.size(); ++i) index[older.agents[i].id.value] = i;
    for (const sim::AgentView& truth : newer.agents) {
      const auto it = index.find(truth.id.value);
      if (it == index.end()) continue;
      const real eb = math::length(delta(scratch_b_[it->second].view.position, truth.position));
      const real ed = math::length(delta(scratch_d_[it->second].view.position, truth.position));
      const real es = math::length(delta(older.agents[it->second].position, truth.position));
      if (eb > kTeleportM || ed > kTeleportM || es > kTeleportM) continue;  // respawn
      HoldError& e = hold_errors_[h][sim::group_kind(*scenario_, truth.group)];
      ++e.samples;
      e.behaviour_sum_m += eb;
      e.behaviour_max_m = std::max<double>(e.behaviour_max_m, eb);
      e.dead_reckoning_sum_m += ed;
      e.held_sum_m += es;
    }
  }
}

void RemoteAgents::sample_extrapolated(double now_tick, std::vector<DrawAgent>& out, std::int32_t max_ahead_ticks) {
  out.clear();
  if (count_ == 0 || !extrapolator_) return;
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
        advance_ex();
        ++ex_tick_;
      }
      old_pos.reserve(ex_.size());
      const real alpha = static_cast<real>(1.0 - (static_cast<double>(ex_tick_) - t));
      for (std::size_t i = 0; i < ex_.size(); ++i)
        old_pos.push_back(ex_prev_position_[i] + delta(ex_prev_position_[i], ex_[i].view.position) * alpha);
    }
    init_ex(count_ - 1, ex_);
    ex_prev_position_.clear();
    ex_prev_orientation_.clear();
    for (const sim::ExtrapolatedAgent& e : ex_) {
      ex_prev_position_.push_back(e.view.position);
      ex_prev_orientation_.push_back(e.view.orientation);
    }
    ex_base_tick_ = f.tick;
    ex_tick_ = f.tick;
    ex_valid_ = true;
    while (ex_tick_ < target_tick) {
      advance_ex();
      ++ex_tick_;
    }
    if (can_compare) {
      const real alpha = static_cast<real>(1.0 - (static_cast<double>(ex_tick_) - t));
      real sum = 0;
      std::int32_t n = 0;
      for (std::size_t i = 0; i < ex_.size(); ++i) {
        const std::int32_t ia = f.prev_index[i];
        if (ia < 0 || static_cast<std::size_t>(ia) >= old_pos.size()) continue;
        const Vec2 prev = ex_prev_position_[i];
        const real j = math::length(
            delta(old_pos[static_cast<std::size_t>(ia)], prev + delta(prev, ex_[i].view.position) * alpha));
        if (j > kTeleportM) continue;
        sum += j;
        ++n;
      }
      rebase_jump_m_ = n > 0 ? sum / n : 0;
    }
  }
  while (ex_tick_ < target_tick) {
    advance_ex();
    ++ex_tick_;
  }
  // Draw between the last two extrapolated ticks (t lies in (ex_tick_ - 1, ex_tick_]).
  real alpha = static_cast<real>(1.0 - (static_cast<double>(ex_tick_) - t));
  if (ex_tick_ == ex_base_tick_) alpha = 1;
  out.reserve(ex_.size());
  for (std::size_t i = 0; i < ex_.size(); ++i) {
    const sim::AgentView& v = ex_[i].view;
    DrawAgent d = draw_of(v);
    const Vec2 prev = ex_prev_position_[i];
    d.position = confined(prev + delta(prev, v.position) * alpha);
    const real prev_ori = ex_prev_orientation_[i];
    d.orientation = math::wrap_angle(prev_ori + math::wrap_angle(v.orientation - prev_ori) * alpha);
    out.push_back(d);
  }
}

}  // namespace flockstep::client
