// Offline benchmark as a frame source: the whole drawing pipeline (snapshot buffer,
// interpolation, instancing, annotations) without a server, so viewer cost is measured apart from
// the server's. Opened with "n sim": sim = 0: n synthetic agents fly straight and bounce (cheap,
// isolates the viewer); sim = 1: a local sim::World of canonical::flock(n) runs in the page (wasm
// sim cost too).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "flockstep/math/angle.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/sim/canonical.hpp"
#include "flockstep/sim/world.hpp"
#include "frame/frame_source.hpp"

namespace flockstep::client {
namespace {

class BenchSource final : public FrameSource {
 public:
  /// Agents a bench may ask for (the page's buttons ask for 1,000 to 20,000).
  static constexpr std::int32_t kMaxAgents = 200000;

  explicit BenchSource(FrameHost& host) : FrameSource(host) {}
  const char* mode() const override { return "bench"; }

  std::string open(std::span<const std::uint8_t> data) override {
    const std::string text(reinterpret_cast<const char*>(data.data()), data.size());
    int n = 0, run_sim = 0;
    if (std::sscanf(text.c_str(), "%d %d", &n, &run_sim) != 2) return "bench: expected \"agents sim\", got " + text;
    n_ = std::clamp(n, 1, kMaxAgents);
    adopt_world(sim::canonical::flock(n_));
    if (run_sim != 0) {
      world_ = std::make_unique<sim::World>(scenario_);
    } else {
      math::Rng rng = math::Rng::seeded(42, 9);
      for (std::int32_t i = 0; i < n_; ++i) {
        sim::AgentView v;
        v.id = sim::AgentId{static_cast<std::uint32_t>(i + 1) | (1u << sim::AgentId::kSlotBits)};
        v.kind = static_cast<sim::AgentKind>(i % 5);
        v.group = 0;
        v.position = {rng.uniform(0, scenario_.width), rng.uniform(0, scenario_.height)};
        const math::real a = rng.uniform(-math::kPi, math::kPi);
        v.velocity = math::as_vector(a) * rng.uniform(2, 6);
        v.orientation = a;
        v.aim = v.position + v.velocity;
        agents_.push_back(v);
      }
    }
    host_.world_changed(*this, true);
    return "";
  }

  void advance(const FrameInput& in) override {
    if (paused_) return;  // the view holds still
    accum_ms_ += in.frame_ms;
    std::int32_t steps = 0;
    while (accum_ms_ >= dt_ms_ && steps < 4) {
      accum_ms_ -= dt_ms_;
      ++steps;
      ++tick_;
      const double dt = 1.0 / tick_rate_;
      if (world_) {
        const double t0 = emscripten_get_now();
        world_->step();
        sim_ms_ = sim_ms_ * 0.9 + (emscripten_get_now() - t0) * 0.1;
      } else {
        for (sim::AgentView& v : agents_) {
          v.position += v.velocity * dt;
          if (v.position.x < 0 || v.position.x > scenario_.width) v.velocity.x = -v.velocity.x;
          if (v.position.y < 0 || v.position.y > scenario_.height) v.velocity.y = -v.velocity.y;
          v.orientation = math::orientation_of(v.velocity);
          v.aim = v.position + v.velocity;
        }
      }
      if (tick_ % 3 == 0) {  // 20 Hz snapshots
        std::vector<sim::AgentView> views;
        if (world_) {
          views.reserve(static_cast<std::size_t>(world_->size()));
          for (std::int32_t i = 0; i < world_->size(); ++i) views.push_back(world_->view(i));
        } else {
          views = agents_;
        }
        clock_.set_offset(static_cast<double>(tick_) * dt_ms_ - in.now);
        push(tick_, std::move(views), in.now);
      }
    }
    if (accum_ms_ > dt_ms_) accum_ms_ = dt_ms_;
  }

  void control(const std::string& what, double value) override {
    if (what == "paused") paused_ = value != 0;
  }
  bool paused() const override { return paused_; }

  void publish(nlohmann::json& j, double now) const override {
    (void)now;
    j["bench"] = n_;
    j["bench_sim_ms"] = world_ ? sim_ms_ : 0.0;
    j["paused"] = paused_;
  }

 private:
  std::int32_t n_ = 0;
  std::unique_ptr<sim::World> world_;
  std::vector<sim::AgentView> agents_;
  std::uint64_t tick_ = 0;
  double accum_ms_ = 0;
  double sim_ms_ = 0;
  bool paused_ = false;
};

}  // namespace

std::unique_ptr<FrameSource> make_bench_source(FrameHost& host) { return std::make_unique<BenchSource>(host); }

}  // namespace flockstep::client
