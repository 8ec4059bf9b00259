#include "game/rooms.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "game/game.hpp"
#include "game/room_state.hpp"
#include "game/scenario_file.hpp"
#include "ops/log.hpp"

namespace flockstep::server::game {

std::vector<sim::Scenario> load_scenario_dir(const std::string& dir) {
  std::vector<sim::Scenario> out;
  for (ScenarioFile& f : load_scenario_files(dir)) out.push_back(std::move(f.scenario));
  return out;
}

std::vector<ScenarioFile> load_scenario_files(const std::string& dir) {
  std::vector<ScenarioFile> out;
  if (dir.empty()) return out;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  if (ec) throw ScenarioError(dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    sim::Scenario s;
    try {
      s = load_scenario_file(f.string());
    } catch (const ScenarioError& e) {
      const std::string what = e.what();
      // load_scenario_file may already name the file; do not say it twice.
      throw ScenarioError(what.find(f.string()) == std::string::npos ? f.string() + ": " + what : what);
    }
    for (const ScenarioFile& o : out)
      if (o.scenario.name == s.name)
        throw ScenarioError(f.string() + ": name: '" + s.name + "' is already used by another file");
    out.push_back({f.filename().string(), std::move(s)});
  }
  return out;
}

Rooms::Rooms(RoomsConfig config, sim::Scenario default_scenario, std::vector<sim::Scenario> others,
             ops::ServerMetrics* metrics, ops::Logger* log)
    : config_(std::move(config)), metrics_(metrics), log_(log), default_name_(default_scenario.name) {
  config_.max_rooms = std::max<std::uint32_t>(1, config_.max_rooms);
  if (!config_.state_dir.empty()) store_ = std::make_unique<StateStore>(config_.state_dir, log_);
  default_ = make_game(default_scenario, true);
  rooms_[default_name_] = Entry{std::move(default_scenario), default_, {}};
  for (sim::Scenario& s : others) {
    if (rooms_.count(s.name)) continue;
    const std::string name = s.name;
    rooms_[name] = Entry{std::move(s), nullptr, {}};
  }
  if (store_) restore_saved();
}

namespace {
std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

void Rooms::restore_saved() {
  for (SavedRoomFile& f : store_->load_all()) {
    if (!f.error.empty()) {
      store_->set_aside(f.path, f.error);
      continue;
    }
    const std::string name = f.state.room();
    auto it = rooms_.find(name);
    if (it == rooms_.end()) {
      store_->set_aside(f.path, "room '" + name + "' is not a scenario of this server (scenario, scenario_dir)");
      continue;
    }
    if (room_state_path(store_->dir(), name) != f.path) {
      store_->set_aside(f.path, "room '" + name + "' belongs in " + room_state_path(store_->dir(), name));
      continue;
    }
    Entry& e = it->second;
    std::shared_ptr<Game> game = e.game;  // the default room exists already
    if (!game) {
      std::size_t running = 0;
      for (const auto& [n, r] : rooms_) running += r.game ? 1 : 0;
      if (running >= config_.max_rooms) {
        store_->set_aside(f.path, "max_rooms (" + std::to_string(config_.max_rooms) + ") rooms are restored already");
        continue;
      }
      game = make_game(e.scenario, false);
    }
    if (std::string why = game->restore(f.state); !why.empty()) {
      store_->set_aside(f.path, why);  // a fresh game made for it is dropped unstarted
      continue;
    }
    e.game = game;
    e.idle_since = std::chrono::steady_clock::now();
    ++restored_;
    if (log_)
      log_->info("room_restored", {{"room", name},
                                   {"tick", f.state.tick()},
                                   {"state_hash", hex64(f.state.state_hash())},
                                   {"players", static_cast<std::uint64_t>(f.state.players_size())},
                                   {"file", f.path}});
  }
}

Rooms::~Rooms() { stop(); }

std::shared_ptr<Game> Rooms::make_game(const sim::Scenario& s, bool is_default) {
  RoomConfig rc = config_.room;
  rc.room_name = s.name;
  rc.report_world_tick = is_default;
  if (!is_default) rc.bots = 0;  // bots populate the default room only
  auto game = std::make_shared<Game>(rc, s, config_.max_catchup_ticks, metrics_, log_);
  if (store_ && config_.save_interval.count() > 0)
    game->set_autosave(config_.save_interval,
                       [store = store_.get()](v1::RoomState state, std::unique_ptr<sim::World> world) {
                         store->save_async(std::move(state), std::move(world));
                       });
  return game;
}

void Rooms::start() {
  std::lock_guard lock(mutex_);
  for (auto& [name, e] : rooms_)
    if (e.game) e.game->start();  // the default room, and rooms restored from the state_dir
  if (reaper_.joinable()) return;
  stopping_ = false;
  reaper_ = std::thread([this] { reap(); });
}

void Rooms::stop() {
  std::vector<std::pair<std::string, std::shared_ptr<Game>>> games;
  bool save = false;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [name, e] : rooms_)
      if (e.game) games.emplace_back(name, e.game);
    save = store_ && !saved_at_stop_;
    saved_at_stop_ = true;
  }
  wake_.notify_all();
  if (reaper_.joinable()) reaper_.join();
  for (auto& [name, g] : games) g->stop();
  if (!save) return;
  // Every game thread has ended: each room's state is final and read from this thread.
  for (auto& [name, g] : games) {
    const auto t0 = std::chrono::steady_clock::now();
    const v1::RoomState state = g->save_state();
    const auto built = std::chrono::steady_clock::now();
    if (!store_->save_now(state).empty()) continue;  // logged by the store
    const auto written = std::chrono::steady_clock::now();
    using us = std::chrono::microseconds;
    if (log_)
      log_->info("room_saved", {{"room", name},
                                {"tick", state.tick()},
                                {"state_hash", hex64(state.state_hash())},
                                {"players", static_cast<std::uint64_t>(state.players_size())},
                                {"bytes", static_cast<std::uint64_t>(state.world_state().size())},
                                {"build_us", std::chrono::duration_cast<us>(built - t0).count()},
                                {"write_us", std::chrono::duration_cast<us>(written - built).count()},
                                {"file", room_state_path(store_->dir(), name)}});
  }
}

std::shared_ptr<Game> Rooms::acquire(std::string_view name, std::string& why) {
  if (name.empty()) return default_;
  std::shared_ptr<Game> started;
  {
    std::lock_guard lock(mutex_);
    auto it = rooms_.find(name);
    if (it == rooms_.end()) {
      why = "no room '" + std::string(name) + "' (GET /api/rooms lists them)";
      return nullptr;
    }
    Entry& e = it->second;
    if (e.game) {
      e.idle_since = std::chrono::steady_clock::now();
      return e.game;
    }
    if (stopping_) {
      why = "server shutting down";
      return nullptr;
    }
    std::size_t running = 0;
    for (const auto& [n, r] : rooms_) running += r.game ? 1 : 0;
    if (running >= config_.max_rooms) {
      why = "room '" + std::string(name) + "' is not running and " + std::to_string(config_.max_rooms) +
            " rooms (max_rooms) already are; try later";
      return nullptr;
    }
    e.game = make_game(e.scenario, false);
    e.idle_since = std::chrono::steady_clock::now();
    e.game->start();
    started = e.game;
  }
  if (log_) log_->info("room_started", {{"room", std::string(name)}});
  return started;
}

std::shared_ptr<Game> Rooms::running(std::string_view name) const {
  if (name.empty()) return default_;
  std::lock_guard lock(mutex_);
  auto it = rooms_.find(name);
  return it == rooms_.end() ? nullptr : it->second.game;
}

bool Rooms::known(std::string_view name) const {
  std::lock_guard lock(mutex_);
  return rooms_.find(name) != rooms_.end();
}

bool Rooms::scenario(std::string_view name, sim::Scenario& out) const {
  std::lock_guard lock(mutex_);
  auto it = rooms_.find(name.empty() ? std::string_view(default_name_) : name);
  if (it == rooms_.end()) return false;
  out = it->second.scenario;
  return true;
}

std::size_t Rooms::running_count() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [name, e] : rooms_) n += e.game ? 1 : 0;
  return n;
}

std::vector<RoomSummary> Rooms::list() const {
  std::vector<RoomSummary> out;
  std::lock_guard lock(mutex_);
  for (const auto& [name, e] : rooms_) {
    RoomSummary r;
    r.name = name;
    r.title = name;
    r.description = e.scenario.description;
    if (e.game) {
      r.running = true;
      r.players = e.game->players();
      r.spectators = e.game->spectators();
      r.agents = e.game->agents();
      r.tick = e.game->tick();
    }
    if (name == default_name_) out.insert(out.begin(), std::move(r));
    else out.push_back(std::move(r));
  }
  return out;
}

void Rooms::reap() {
  using Clock = std::chrono::steady_clock;
  const auto period = std::clamp<std::chrono::milliseconds>(config_.idle_close / 4, std::chrono::milliseconds(20),
                                                            std::chrono::milliseconds(1000));
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period, [this] { return stopping_; });
    if (stopping_) break;
    const auto now = Clock::now();
    std::vector<std::pair<std::string, std::shared_ptr<Game>>> closing;
    for (auto& [name, e] : rooms_) {
      if (!e.game || e.game == default_) continue;
      // Busy: someone is in it, or a session (joining, or about to leave) still holds it.
      if (e.game.use_count() > 1 || e.game->players() > 0 || e.game->spectators() > 0) {
        e.idle_since = now;
        continue;
      }
      if (now - e.idle_since >= config_.idle_close) {
        closing.emplace_back(name, std::move(e.game));
        e.game = nullptr;
      }
    }
    if (closing.empty()) continue;
    lock.unlock();  // stopping a game joins its thread: not under the registry lock
    for (auto& [name, g] : closing) {
      g->stop();
      g.reset();
      if (store_) store_->remove(name);  // closed for good: a restart must not bring it back
      if (log_)
        log_->info("room_closed",
                   {{"room", name}, {"idle_ms", static_cast<std::uint64_t>(config_.idle_close.count())}});
    }
    lock.lock();
  }
}

}  // namespace flockstep::server::game
