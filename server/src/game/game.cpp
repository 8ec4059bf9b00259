#include "game/game.hpp"

#include <chrono>
#include <utility>

#include "flockstep/sim/tick.hpp"
#include "game/input_log_recorder.hpp"
#include "game/recorder.hpp"
#include "game/room_state.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::game {

Game::Game(const RoomConfig& config, sim::Scenario scenario, std::uint32_t max_catchup_ticks,
           ops::ServerMetrics* metrics, ops::Logger* log)
    : pool_(ThreadPool::capped_threads(config.sim_threads)),
      room_(config, std::move(scenario), metrics, log),
      tick_rate_hz_(config.tick_rate_hz),
      report_world_tick_(config.report_world_tick),
      max_catchup_ticks_(max_catchup_ticks),
      metrics_(metrics),
      room_metrics_(metrics ? &metrics->room(config.room_name.empty() ? room_.scenario().name : config.room_name)
                            : nullptr),
      log_(log) {
  // The per-agent phases of every tick run on the pool's workers and this game thread; the
  // world's fixed partition keeps the results identical to a serial tick.
  room_.set_task_runner(pool_.runner());
  publish();
}

Game::~Game() { stop(); }

void Game::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void Game::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Game::push(Command c) {
  std::lock_guard lock(mutex_);
  inbox_.push_back(std::move(c));
}

void Game::post_join(ConnectionId conn, std::shared_ptr<ClientSink> sink, codec::JoinRequest request) {
  Command c{Command::Type::kJoin, conn, std::move(sink), std::move(request), {}};
  push(std::move(c));
}

void Game::post_inputs(ConnectionId conn, std::vector<codec::InputFrame> frames) {
  Command c{Command::Type::kInputs, conn, nullptr, {}, std::move(frames)};
  push(std::move(c));
}

void Game::post_leave(ConnectionId conn, bool ended) {
  Command c{Command::Type::kLeave, conn, nullptr, {}, {}};
  c.ended = ended;
  push(std::move(c));
}

void Game::post_ack(ConnectionId conn, codec::AckRequest ack) {
  push(Command{Command::Type::kAck, conn, nullptr, {}, {}, ack});
}

void Game::post_inspect(ConnectionId conn, std::uint32_t agent) {
  Command c{Command::Type::kInspect, conn, nullptr, {}, {}};
  c.agent = agent;
  push(std::move(c));
}

std::future<TuneResult> Game::post_tune(std::int32_t group, std::vector<TunePatch> patches) {
  Command c{Command::Type::kTune, 0, nullptr, {}, {}};
  c.group = group;
  c.patches = std::move(patches);
  c.tune = std::make_shared<std::promise<TuneResult>>();
  auto f = c.tune->get_future();
  push(std::move(c));
  return f;
}

std::shared_ptr<const PublishedRoom> Game::published() const {
  std::lock_guard lock(published_mutex_);
  return published_;
}

void Game::publish() {
  auto p = std::make_shared<PublishedRoom>();
  p->scenario = room_.scenario();
  if (const InputLogRecorder* log = room_.input_log()) p->recording_path = log->path();
  published_log_ = room_.input_log();
  publish_due_ = false;
  std::shared_ptr<const PublishedRoom> old;
  {
    std::lock_guard lock(published_mutex_);
    old = std::exchange(published_, std::move(p));
  }
  // `old` (maybe the last reference) is freed here, outside the lock.
}

std::future<sim::Scenario> Game::post_scenario() {
  Command c{Command::Type::kScenario, 0, nullptr, {}, {}};
  c.scenario = std::make_shared<std::promise<sim::Scenario>>();
  auto f = c.scenario->get_future();
  push(std::move(c));
  return f;
}

void Game::post_call(std::function<void(Room&)> call, std::function<void()> answered) {
  Command c{Command::Type::kCall, 0, nullptr, {}, {}};
  c.call = std::move(call);
  c.answered = std::move(answered);
  push(std::move(c));
}

std::string Game::restore(const v1::RoomState& saved) {
  std::string why = room_.restore(saved);
  if (why.empty()) {
    publish();
    tick_.store(room_.current_tick(), std::memory_order_relaxed);
    agents_.store(static_cast<std::uint32_t>(room_.world().size()), std::memory_order_relaxed);
  }
  return why;
}

void Game::set_autosave(std::chrono::milliseconds period,
                        std::function<void(v1::RoomState, std::unique_ptr<sim::World>)> sink) {
  autosave_period_ = period;
  autosave_ = std::move(sink);
}

void Game::set_recorder(std::unique_ptr<Recorder> recorder) {
  recorder_ = std::move(recorder);
  room_.set_recorder(recorder_.get());
}

void Game::drain() {
  {
    std::lock_guard lock(mutex_);
    work_.swap(inbox_);
  }
  for (Command& c : work_) {
    switch (c.type) {
      case Command::Type::kJoin: room_.join(c.conn, c.sink, c.join); break;
      case Command::Type::kInputs: room_.inputs(c.conn, c.frames); break;
      case Command::Type::kLeave: room_.leave(c.conn, c.ended); break;
      case Command::Type::kAck: room_.ack(c.conn, c.ack); break;
      case Command::Type::kInspect: room_.inspect(c.conn, c.agent); break;
      case Command::Type::kTune: {
        TuneResult r = room_.tune(c.group, c.patches);
        if (r.status != 200) c.tune->set_value(std::move(r));
        else waiting_tunes_.emplace_back(c.group, std::move(c.tune));  // answered after the tick
        publish_due_ = true;
        break;
      }
      case Command::Type::kScenario: c.scenario->set_value(room_.scenario()); break;
      case Command::Type::kCall:
        c.call(room_);
        publish();  // e.g. an input log started or stopped: routes see it before the caller is answered
        if (c.answered) c.answered();
        break;
    }
  }
  work_.clear();
}

void Game::run() {
  using clock = std::chrono::steady_clock;
  sim::TickClock ticks(static_cast<std::int32_t>(tick_rate_hz_), static_cast<std::int32_t>(max_catchup_ticks_));
  const double period_s = 1.0 / tick_rate_hz_;
  auto last = clock::now();
  std::uint64_t dropped_reported = 0;
  auto next_autosave = last + autosave_period_;
  for (;;) {
    const auto now = clock::now();
    const auto elapsed_us = std::chrono::duration_cast<std::chrono::microseconds>(now - last).count();
    // Only whole microseconds are consumed, so no time is lost to rounding.
    last += std::chrono::microseconds(elapsed_us);
    const std::int32_t due = ticks.advance(elapsed_us);
    for (std::int32_t i = 0; i < due; ++i) {
      const auto t0 = clock::now();
      drain();  // commands apply at the tick boundary, in arrival order
      room_.tick();
      tick_.store(room_.current_tick(), std::memory_order_relaxed);
      // Routes read the published copy: refresh it when this tick may have changed what it holds
      // (a tuning applied, a call ran, an input log started or ended on its own), before the
      // tunings are answered so a client that saw its 200 reads the tuned scenario.
      if (publish_due_ || published_log_ != room_.input_log()) publish();
      // Tunings queued before this tick were applied by it: answer their requests.
      for (auto& [group, promise] : waiting_tunes_) {
        TuneResult r;
        r.status = 503;
        r.error = "the update was not applied";
        for (const auto& [g, applied] : room_.tuned())
          if (g == group) r = applied;
        promise->set_value(std::move(r));
      }
      waiting_tunes_.clear();
      players_.store(static_cast<std::uint32_t>(room_.connected_players()), std::memory_order_relaxed);
      spectators_.store(static_cast<std::uint32_t>(room_.spectator_count()), std::memory_order_relaxed);
      agents_.store(static_cast<std::uint32_t>(room_.world().size()), std::memory_order_relaxed);
      const double took = std::chrono::duration<double>(clock::now() - t0).count();
      if (room_metrics_) {
        room_metrics_->tick_seconds.observe(took);  // and the server-wide total it is linked to
        if (took > period_s) room_metrics_->tick_overruns.inc();
        room_metrics_->ticks.set(static_cast<std::int64_t>(room_.current_tick()));
        if (report_world_tick_) metrics_->ticks.set(static_cast<std::int64_t>(room_.current_tick()));
      }
    }
    // The periodic save: the state is taken here, between two ticks (it must be one tick's): the
    // sessions and a copy of the world; the store's thread encodes and writes it.
    if (autosave_ && autosave_period_.count() > 0 && clock::now() >= next_autosave) {
      next_autosave = clock::now() + autosave_period_;
      const auto t0 = clock::now();
      std::unique_ptr<sim::World> world;
      v1::RoomState state = room_.save_state_deferred(world);
      const auto us = std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - t0).count();
      last_autosave_us_.store(static_cast<std::uint64_t>(us), std::memory_order_relaxed);
      if (log_)
        log_->debug("room_autosave", {{"room", state.room()},
                                      {"tick", state.tick()},
                                      {"agents", static_cast<std::uint64_t>(world->size())},
                                      {"copy_us", static_cast<std::uint64_t>(us)}});
      autosave_(std::move(state), std::move(world));
    }
    if (ticks.dropped_ticks() != dropped_reported) {
      if (room_metrics_) room_metrics_->ticks_skipped.inc(ticks.dropped_ticks() - dropped_reported);
      if (log_) log_->warn("ticks_skipped", {{"total", ticks.dropped_ticks()}});
      dropped_reported = ticks.dropped_ticks();
    }
    std::unique_lock lock(mutex_);
    if (stopping_) break;
    wake_.wait_for(lock, std::chrono::microseconds(std::max<std::int64_t>(ticks.until_next_us(), 100)),
                   [this] { return stopping_; });
    if (stopping_) break;
  }
}

}  // namespace flockstep::server::game
