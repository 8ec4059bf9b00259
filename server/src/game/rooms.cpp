#include "game/rooms.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>

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
  if (!config_.published.dir.empty()) {
    published_store_ = std::make_unique<PublishedStore>(config_.published.dir, log_);
    for (sim::Scenario& s : published_store_->load_all(config_.published)) {
      if (rooms_.count(s.name)) {
        // A scenario file took the name after it was published: the file wins, the published
        // copy stays on disk (unpublish deletes it).
        if (log_) log_->warn("published_shadowed", {{"room", s.name}, {"file", published_store_->path_of(s.name)}});
        continue;
      }
      const std::string name = s.name;
      Entry e{std::move(s), nullptr, {}};
      e.published = true;
      rooms_[name] = std::move(e);
    }
  }
  if (store_) restore_saved();  // published rooms too
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
  if (store_) rc.token_key = store_->token_key();  // restored tokens must still match after a restart
  if (!is_default) rc.bots = 0;                    // bots populate the default room only
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
    if (e.game) {
      e.game->start();  // the default room, and rooms restored from the state_dir
      autostart_recording(name, e.game, e.input_log);
    }
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
  std::vector<Closing> made_way;
  {
    std::lock_guard lock(mutex_);
    made_way.swap(to_close_);
  }
  for (Closing& c : made_way) close_room(c.name, std::move(c.game), c.reason);
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

bool Rooms::in_use(const Entry& e) {
  return e.game && (e.game.use_count() > 1 || e.game->players() > 0 || e.game->spectators() > 0);
}

bool Rooms::can_make_way(const Entry& e) const {
  // Never the default room (always running), never a room someone is in or joining, never one
  // writing an input log (closing it would end the recording that was asked for).
  return config_.make_way && e.game && e.game != default_ && !in_use(e) && !e.input_log->load();
}

std::map<std::string, Rooms::Entry, std::less<>>::iterator Rooms::make_way_candidate() {
  auto best = rooms_.end();
  for (auto it = rooms_.begin(); it != rooms_.end(); ++it)
    if (can_make_way(it->second) && (best == rooms_.end() || it->second.idle_since < best->second.idle_since))
      best = it;
  return best;
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
    std::string open;
    for (const auto& [n, r] : rooms_)
      if (r.game) {
        ++running;
        open += (open.empty() ? "" : ", ") + n;
      }
    if (running >= config_.max_rooms) {
      auto victim = make_way_candidate();
      if (victim == rooms_.end()) {
        why = "room '" + std::string(name) + "' is not running and " + std::to_string(config_.max_rooms) +
              " rooms (max_rooms) already are, all in use; open now: " + open + "; join one of them or try later";
        return nullptr;
      }
      // Taken out under the lock (nobody can acquire it any more) and stopped by the reaper:
      // stopping joins the game's thread, which must not hold up this (I/O) thread. Until then
      // max_rooms + 1 game threads exist for a moment.
      to_close_.push_back(
          {victim->first, std::move(victim->second.game), "made way for '" + std::string(name) + "' (max_rooms)"});
      victim->second.game = nullptr;
      wake_.notify_all();
    }
    e.game = make_game(e.scenario, false);
    e.input_log = std::make_shared<std::atomic<bool>>(false);
    e.idle_since = std::chrono::steady_clock::now();
    e.game->start();
    autostart_recording(e.scenario.name, e.game, e.input_log);
    started = e.game;
  }
  if (log_) log_->info("room_started", {{"room", std::string(name)}});
  return started;
}

void Rooms::close_room(const std::string& name, std::shared_ptr<Game> game, std::string_view reason) {
  game->stop();
  game.reset();
  if (store_) store_->remove(name);  // closed for good: a restart must not bring it back
  if (log_) log_->info("room_closed", {{"room", name}, {"reason", reason}});
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
  std::size_t running = 0;
  bool room_can_make_way = false;
  for (const auto& [name, e] : rooms_) {
    running += e.game ? 1 : 0;
    room_can_make_way = room_can_make_way || can_make_way(e);
  }
  const char* starts = running < config_.max_rooms || room_can_make_way ? "starts" : "full";
  for (const auto& [name, e] : rooms_) {
    RoomSummary r;
    r.on_join = e.game ? "joins" : starts;
    r.published = e.published;
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
  const std::string reason = "empty for " + std::to_string(config_.idle_close.count()) + " ms (room_idle_close_ms)";
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period, [this] { return stopping_ || !to_close_.empty(); });
    if (stopping_) break;
    const auto now = Clock::now();
    std::vector<Closing> closing;
    closing.swap(to_close_);  // rooms that made way
    for (auto& [name, e] : rooms_) {
      if (!e.game || e.game == default_) continue;
      if (in_use(e)) {
        e.idle_since = now;
        continue;
      }
      if (now - e.idle_since >= config_.idle_close) {
        closing.push_back({name, std::move(e.game), reason});
        e.game = nullptr;
      }
    }
    if (closing.empty()) continue;
    lock.unlock();  // stopping a game joins its thread: not under the registry lock
    for (Closing& c : closing) close_room(c.name, std::move(c.game), c.reason);
    lock.lock();
  }
}

// ---- published rooms ----

void Rooms::close_room_with_clients(const std::string& name, std::shared_ptr<Game> game, const std::string& reason,
                                    std::chrono::milliseconds timeout) {
  auto told = std::make_shared<std::promise<void>>();
  auto f = told->get_future();
  game->post_call([told, reason](Room& room) {
    room.close_clients(CloseReason::kUnknownRoom, reason);
    told->set_value();
  });
  f.wait_for(timeout);  // a broken promise (the game stopped) is ready too
  close_room(name, std::move(game), reason);
}

PublishResult Rooms::publish(std::string_view name, std::string_view body, std::chrono::milliseconds timeout) {
  if (!published_store_) return {503, "publishing is off (published_dir is not set)", {}};
  sim::Scenario s;
  PublishResult r = parse_published(name, body, config_.published, s);
  if (r.status != 200) return r;
  std::lock_guard serial(publish_mutex_);
  {
    std::lock_guard lock(mutex_);
    auto it = rooms_.find(s.name);
    if (it != rooms_.end() && !it->second.published)
      return {
          409,
          "name: '" + s.name + "' is a scenario of this server (scenario, scenario_dir); publish under another name",
          "name"};
    if (it == rooms_.end()) {
      std::size_t n = 0;
      for (const auto& [other, e] : rooms_) n += e.published ? 1 : 0;
      if (n >= config_.published.max_rooms)
        return {409,
                std::to_string(config_.published.max_rooms) +
                    " rooms (published_max) are published already; unpublish one first",
                {}};
    }
    r.replaced = it != rooms_.end();
  }
  // The file first: when it cannot be written, nothing has changed.
  if (std::string why = published_store_->save(s); !why.empty()) return {500, "cannot save the scenario: " + why, {}};
  std::shared_ptr<Game> closing;
  {
    std::lock_guard lock(mutex_);
    Entry& e = rooms_[s.name];
    closing = std::move(e.game);
    e.game = nullptr;
    e.scenario = std::move(s);
    e.published = true;
  }
  const std::string room(name);
  if (closing) {
    r.closed = true;
    close_room_with_clients(room, std::move(closing), "room '" + room + "' was republished; join again", timeout);
  } else if (store_) {
    store_->remove(room);  // a saved world of the old scenario must not come back
  }
  if (log_)
    log_->info("room_published",
               {{"room", room}, {"agents", static_cast<std::uint64_t>(r.agents)}, {"replaced", r.replaced}});
  return r;
}

PublishResult Rooms::unpublish(std::string_view name, std::chrono::milliseconds timeout) {
  if (!published_store_) return {503, "publishing is off (published_dir is not set)", {}};
  std::lock_guard serial(publish_mutex_);
  std::shared_ptr<Game> closing;
  {
    std::lock_guard lock(mutex_);
    auto it = rooms_.find(name);
    if (it == rooms_.end() || !it->second.published)
      return {404, "no published room '" + std::string(name.substr(0, kPublishedNameMaxBytes + 8)) + "'", {}};
    closing = std::move(it->second.game);
    rooms_.erase(it);
  }
  const std::string room(name);
  published_store_->remove(room);
  PublishResult r;
  if (closing) {
    r.closed = true;
    close_room_with_clients(room, std::move(closing), "room '" + room + "' was unpublished", timeout);
  } else if (store_) {
    store_->remove(room);
  }
  if (log_) log_->info("room_unpublished", {{"room", room}, {"closed", r.closed}});
  return r;
}

std::vector<PublishedInfo> Rooms::published() const {
  std::vector<PublishedInfo> out;
  std::lock_guard lock(mutex_);
  for (const auto& [name, e] : rooms_)
    if (e.published) out.push_back({name, e.scenario.description, scenario_agents(e.scenario), e.game != nullptr});
  return out;
}

}  // namespace flockstep::server::game

namespace flockstep::server::game {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRecordingExtension = ".fslog";

bool is_recording_name(std::string_view file) {
  if (file.size() <= kRecordingExtension.size() || file.size() > 255 || file.front() == '.') return false;
  if (file.substr(file.size() - kRecordingExtension.size()) != kRecordingExtension) return false;
  return std::all_of(file.begin(), file.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

std::vector<fs::path> recording_files(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && is_recording_name(e.path().filename().string())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t read_u32(std::istream& in, bool& ok) {
  unsigned char b[4];
  ok = static_cast<bool>(in.read(reinterpret_cast<char*>(b), 4));
  return std::uint64_t{b[0]} | std::uint64_t{b[1]} << 8 | std::uint64_t{b[2]} << 16 | std::uint64_t{b[3]} << 24;
}

/// A listing row from the file's frames: the header and the last whole record are parsed, the
/// rest skipped by their lengths (no world is decoded; the player checks everything on load).
RecordingInfo summarize_file(const fs::path& path) {
  RecordingInfo info;
  info.file = path.filename().string();
  std::error_code ec;
  info.bytes = fs::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  if (!in.read(magic, 8) || std::string_view(magic, 8) != codec::kInputLogMagic) {
    info.error = "not an input-log recording";
    return info;
  }
  std::uint64_t at = 8, last_at = 0, last_len = 0;
  std::size_t records = 0;
  std::string body;
  for (;;) {
    bool ok = false;
    const std::uint64_t len = read_u32(in, ok);
    if (!ok || len > codec::kInputLogMaxRecordBytes || at + 4 + len + 8 > info.bytes)
      break;  // the end, or a tail being written
    if (records == 0) {
      body.resize(len);
      if (!in.read(body.data(), static_cast<std::streamsize>(len))) break;
      const codec::InputLogRecordSummary h = codec::summarize_input_log_record(body);
      if (h.kind != codec::InputLogRecordSummary::Kind::kHeader) {
        info.error = "the first record is not a header";
        return info;
      }
      info.room = h.info.room;
      info.scenario = h.info.scenario;
      info.tick_rate_hz = h.info.tick_rate_hz;
      info.first_tick = info.last_tick = h.info.start_tick;
      info.started_unix_ms = h.info.started_unix_ms;
      in.seekg(8, std::ios::cur);
    } else {
      in.seekg(static_cast<std::streamoff>(len + 8), std::ios::cur);
    }
    last_at = at;
    last_len = len;
    at += 4 + len + 8;
    ++records;
  }
  if (records == 0) {
    info.error = "no header";
    return info;
  }
  if (records > 1) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(last_at + 4));
    body.resize(last_len);
    if (in.read(body.data(), static_cast<std::streamsize>(last_len))) {
      const codec::InputLogRecordSummary last = codec::summarize_input_log_record(body);
      info.last_tick = std::max(info.first_tick, last.tick);
      info.complete = last.kind == codec::InputLogRecordSummary::Kind::kEnd;
      info.end_reason = last.reason;
    }
  }
  return info;
}

std::string file_name_of(const std::string& path) { return fs::path(path).filename().string(); }

}  // namespace

RecordingResult Rooms::start_on(Room& room, const InputLogSettings& settings, const std::string& name,
                                ops::Logger* log) {
  if (settings.dir.empty()) return {503, "input-log recordings are off (recordings_dir is not set)", {}};
  if (const InputLogRecorder* r = room.input_log())
    return {409, "room '" + name + "' is being recorded already", file_name_of(r->path())};
  if (std::string why = prepare_recordings_dir(settings.dir); !why.empty()) return {503, why, {}};
  if (recording_files(settings.dir).size() >= settings.max_files)
    return {409,
            "recordings_dir holds recordings_max (" + std::to_string(settings.max_files) +
                ") recordings; delete some first",
            {}};
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const std::string path = (fs::path(settings.dir) / recording_file_name(name, ms)).string();
  auto rec = std::make_unique<InputLogRecorder>(path, settings, log);
  if (!rec->ok()) return {503, "cannot create " + path + " (see the log)", {}};
  if (std::string why = room.start_input_log(std::move(rec)); !why.empty()) return {409, why, {}};
  return {200, {}, file_name_of(path)};
}

void Rooms::autostart_recording(const std::string& name, const std::shared_ptr<Game>& game,
                                std::shared_ptr<std::atomic<bool>> logging) {
  if (config_.input_logs.dir.empty()) return;
  const auto& list = config_.record_rooms;
  if (std::find(list.begin(), list.end(), name) == list.end() && std::find(list.begin(), list.end(), "*") == list.end())
    return;
  game->post_call([settings = config_.input_logs, name, log = log_, logging = std::move(logging)](Room& room) {
    const RecordingResult r = start_on(room, settings, name, log);
    if (r.status == 200) logging->store(true);
    if (r.status != 200 && log) log->warn("input_log_not_started", {{"room", name}, {"error", r.error}});
  });
}

namespace {
/// Run `call` on `game`'s thread and wait for its answer (503 when it does not come in time).
RecordingResult ask(Game& game, std::chrono::milliseconds timeout, std::function<RecordingResult(Room&)> call) {
  auto promise = std::make_shared<std::promise<RecordingResult>>();
  auto future = promise->get_future();
  // Answered after the game published its copy, so a following route sees the call's effect.
  auto result = std::make_shared<RecordingResult>();
  game.post_call([result, call = std::move(call)](Room& room) { *result = call(room); },
                 [promise, result] { promise->set_value(std::move(*result)); });
  if (future.wait_for(timeout) != std::future_status::ready) return {503, "the room did not answer in time", {}};
  try {
    return future.get();
  } catch (const std::future_error&) {
    return {503, "the room stopped", {}};
  }
}
}  // namespace

bool Rooms::running_with_log_flag(std::string_view name, std::shared_ptr<Game>& game,
                                  std::shared_ptr<std::atomic<bool>>& logging) const {
  std::lock_guard lock(mutex_);
  auto it = rooms_.find(name);
  if (it == rooms_.end()) return false;
  game = it->second.game;
  logging = it->second.input_log;
  return true;
}

RecordingResult Rooms::start_recording(std::string_view name, std::chrono::milliseconds timeout) {
  std::shared_ptr<Game> game;
  std::shared_ptr<std::atomic<bool>> logging;
  if (!running_with_log_flag(name, game, logging)) return {404, "no room '" + std::string(name) + "'", {}};
  if (!game) return {409, "room '" + std::string(name) + "' is not running (join it to start it)", {}};
  return ask(*game, timeout, [settings = config_.input_logs, n = std::string(name), log = log_, logging](Room& room) {
    RecordingResult r = start_on(room, settings, n, log);
    if (r.status == 200) logging->store(true);
    return r;
  });
}

RecordingResult Rooms::stop_recording(std::string_view name, std::chrono::milliseconds timeout) {
  std::shared_ptr<Game> game;
  std::shared_ptr<std::atomic<bool>> logging;
  if (!running_with_log_flag(name, game, logging)) return {404, "no room '" + std::string(name) + "'", {}};
  if (!game) return {409, "room '" + std::string(name) + "' is not running", {}};
  return ask(*game, timeout, [n = std::string(name), logging](Room& room) {
    const std::string path = room.stop_input_log("admin stop");
    logging->store(false);
    if (path.empty()) return RecordingResult{409, "room '" + n + "' is not being recorded", {}};
    return RecordingResult{200, {}, file_name_of(path)};
  });
}

std::vector<std::string> Rooms::active_recordings() const {
  std::vector<std::shared_ptr<Game>> games;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, e] : rooms_)
      if (e.game) games.push_back(e.game);
  }
  // Each room's published copy (game.hpp): the routes never wait for a room's tick.
  std::vector<std::string> out;
  for (const auto& g : games)
    if (const auto p = g->published(); !p->recording_path.empty()) out.push_back(file_name_of(p->recording_path));
  return out;
}

std::vector<RecordingInfo> Rooms::recordings() const {
  std::vector<RecordingInfo> out;
  const std::vector<fs::path> files = recording_files(config_.input_logs.dir);
  if (files.empty()) return out;
  const std::vector<std::string> active = active_recordings();
  for (const fs::path& f : files) {
    RecordingInfo info = summarize_file(f);
    info.recording = std::find(active.begin(), active.end(), info.file) != active.end();
    out.push_back(std::move(info));
  }
  return out;
}

int Rooms::read_recording(std::string_view file, std::string& bytes, std::string& error) const {
  if (!is_recording_name(file) || config_.input_logs.dir.empty()) {
    error = "no recording '" + std::string(file.substr(0, 100)) + "'";
    return 404;
  }
  const fs::path path = fs::path(config_.input_logs.dir) / std::string(file);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    error = "no recording '" + std::string(file) + "'";
    return 404;
  }
  const std::vector<std::string> active = active_recordings();
  if (std::find(active.begin(), active.end(), file) != active.end()) {
    error = "'" + std::string(file) + "' is being recorded; stop the recording first";
    return 409;
  }
  const RecordingInfo info = summarize_file(path);
  if (!info.complete) {
    error = "'" + std::string(file) + "' has no end record (the server stopped while recording it)";
    return 409;
  }
  std::ifstream in(path, std::ios::binary);
  bytes.resize(info.bytes);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    error = "cannot read '" + std::string(file) + "'";
    return 500;
  }
  return 200;
}

}  // namespace flockstep::server::game
