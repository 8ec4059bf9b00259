#include "game/input_log_recorder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "codec/world_state_codec.hpp"
#include "ops/log.hpp"

namespace flockstep::server::game {

namespace {
/// Records are handed to the writer once this many bytes are buffered (and at every seek point
/// and the end): a few hand-overs a second at most, each one lock and a notify.
constexpr std::size_t kHandOverBytes = 1 << 16;
/// stdio buffer of the writer thread.
constexpr std::size_t kFileBufferBytes = 1 << 16;
/// Room kept under max_bytes for the end record (the last commands and LogEnd with its reason).
constexpr std::uint64_t kEndRecordReserve = 4096;
/// Estimated framed size of a seek point before one was measured: the world state codec writes
/// about 474 bytes per agent (docs/world-state.md), plus the scenario.
constexpr std::uint64_t kSeekBytesPerAgent = 600;
constexpr std::uint64_t kSeekBytesBase = 16 << 10;
}  // namespace

std::string recording_file_name(std::string_view room, std::int64_t unix_ms) {
  std::string name;
  for (const char ch : room.substr(0, kMaxRecordingNameBytes)) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    name.push_back(plain ? ch : '_');
  }
  if (name.empty()) name = "room";
  return name + "-" + std::to_string(unix_ms) + ".fslog";
}

std::string prepare_recordings_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create '" + dir + "': " + ec.message();
  // Best effort, as for the state folder: one the server does not own keeps its mode, and the
  // recordings in it are 0600 anyway.
  ::chmod(dir.c_str(), kRecordingDirMode);
  return {};
}

InputLogRecorder::InputLogRecorder(std::string path, const InputLogSettings& settings, ops::Logger* log)
    : path_(std::move(path)), settings_(settings), log_(log) {
  // O_EXCL: a recording is never written over another one.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kRecordingFileMode);
  if (fd < 0 || !(file_ = ::fdopen(fd, "wb"))) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    fail("open", err);
    return;
  }
  std::setvbuf(file_, nullptr, _IOFBF, kFileBufferBytes);
  buffer_.append(codec::kInputLogMagic);
  thread_ = std::thread([this] { writer(); });
}

InputLogRecorder::~InputLogRecorder() {
  if (thread_.joinable()) {
    hand_over(nullptr);
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  if (file_) std::fclose(file_);
}

void InputLogRecorder::fail(const char* op, int err) { fail(op, std::string(std::strerror(err))); }

void InputLogRecorder::fail(const char* op, const std::string& why) {
  // Called once: by the constructor, start(), or by the writer thread on its first error (it
  // stops then).
  failed_.store(true, std::memory_order_relaxed);
  if (log_) log_->error("input_log_stopped", {{"file", path_}, {"op", op}, {"error", why}});
}

std::uint64_t InputLogRecorder::seek_estimate(const sim::World& world) const {
  const std::uint64_t last = last_seek_size_.load(std::memory_order_relaxed);
  return last > 0 ? last : kSeekBytesBase + kSeekBytesPerAgent * static_cast<std::uint64_t>(world.size());
}

const char* InputLogRecorder::over_limit(const sim::World& world, bool seek) {
  // Seek points handed over but not encoded yet (and the one about to be) count at the
  // estimate; the encoded ones at their size, with every record appended so far, handed over or
  // still in buffer_. The writer moves a seek point from the first count to the second in one
  // step under mutex_, and this reads both under it: read apart, a seek point encoded in
  // between was counted twice, and a recording near its cap ended a seek interval early.
  std::uint64_t est = 0, queued_seeks = 0, encoded_seeks = 0;
  {
    std::lock_guard lock(mutex_);
    est = seek_estimate(world);
    queued_seeks = queued_seeks_.load(std::memory_order_relaxed);
    encoded_seeks = seek_bytes_.load(std::memory_order_relaxed);
  }
  const std::uint64_t seeks = queued_seeks + (seek ? 1 : 0);
  if (buffered_total_ + encoded_seeks + seeks * est + kEndRecordReserve > settings_.max_bytes) return "size limit";
  if (queued_bytes_.load(std::memory_order_relaxed) + buffer_.size() + (seek ? est : 0) > settings_.max_queue_bytes)
    return "writer behind";
  return nullptr;
}

void InputLogRecorder::start(const sim::World& world, const std::string& room) {
  if (started_ || !ok()) return;
  started_ = true;
  const std::uint32_t rate = static_cast<std::uint32_t>(world.scenario().tick_rate_hz);
  seek_interval_ticks_ = std::uint64_t{settings_.seek_interval_s} * rate;
  hash_interval_ticks_ = rate;
  first_tick_ = last_seek_tick_ = world.tick();
  codec::InputLogInfo info;
  info.room = room;
  info.tick_rate_hz = rate;
  info.start_tick = world.tick();
  info.seek_interval_ticks = static_cast<std::uint32_t>(seek_interval_ticks_);
  info.hash_interval_ticks = static_cast<std::uint32_t>(hash_interval_ticks_);
  info.started_unix_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  enc_.header(info, world.scenario(), buffer_);
  buffered_total_ = buffer_.size();  // the magic and the header
  // The header and the first seek point make a recording: one that cannot hold them is not begun.
  if (buffer_.size() + seek_estimate(world) + kEndRecordReserve > settings_.max_bytes) {
    fail("start", "recording_max_mb (" + std::to_string(settings_.max_bytes) +
                      " bytes) cannot hold the room's first seek point (about " + std::to_string(seek_estimate(world)) +
                      " bytes)");
    return;
  }
  ++seek_points_;
  hand_over(std::make_unique<sim::World>(world));
}

void InputLogRecorder::before_step(const sim::World& world) {
  if (!active()) return;
  // The size cap holds at every append, not only at seek points: a room with many players adds
  // command records every tick.
  if (const char* why = over_limit(world, false)) return finish(world, why);
  const std::size_t before = buffer_.size();
  enc_.commands(world.tick(), buffer_);
  buffered_total_ += buffer_.size() - before;
}

void InputLogRecorder::after_step(const sim::World& world) {
  if (!active()) return;
  const std::uint64_t t = world.tick();
  const std::size_t before = buffer_.size();
  if (t % hash_interval_ticks_ == 0) enc_.hash(t, world.state_hash(), buffer_);
  buffered_total_ += buffer_.size() - before;
  if (t - last_seek_tick_ >= seek_interval_ticks_) {
    // Stop before a seek point (the big record) would pass a limit; its size is taken as the
    // last one's, which the writer measured.
    if (const char* why = over_limit(world, true)) return finish(world, why);
    last_seek_tick_ = t;
    ++seek_points_;
    hand_over(std::make_unique<sim::World>(world));
  } else if (const char* why = over_limit(world, false)) {
    finish(world, why);
  } else if (buffer_.size() >= kHandOverBytes) {
    hand_over(nullptr);
  }
}

void InputLogRecorder::finish(const sim::World& world, std::string_view reason) {
  if (!active()) return;
  const std::size_t before = buffer_.size();
  enc_.commands(world.tick(), buffer_);
  enc_.end(world.tick(), world.state_hash(), reason, buffer_);
  buffered_total_ += buffer_.size() - before;
  finished_ = true;
  hand_over(nullptr);
  if (log_)
    log_->info("input_log_finished",
               {{"file", path_}, {"reason", std::string(reason)}, {"tick", world.tick()}, {"bytes", bytes()}});
}

void InputLogRecorder::hand_over(std::unique_ptr<sim::World> world) {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    if (!buffer_.empty()) {
      const std::uint64_t n = buffer_.size();
      queued_bytes_.fetch_add(n, std::memory_order_relaxed);
      queue_.push_back({std::move(buffer_), nullptr, n});
    }
    if (world) {
      const std::uint64_t est = seek_estimate(*world);
      queued_bytes_.fetch_add(est, std::memory_order_relaxed);
      queued_seeks_.fetch_add(1, std::memory_order_relaxed);
      queue_.push_back({{}, std::move(world), est});
    }
  }
  buffer_.clear();
  wake_.notify_one();
}

void InputLogRecorder::writer() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      if (stopping_) break;
      continue;
    }
    Item item = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    const bool seek = item.world != nullptr;
    std::uint64_t encoded_seek = 0;
    if (ok()) {
      if (seek) {
        const std::string state = codec::encode_world_state(*item.world);
        codec::InputLogEncoder::seek_point(item.world->tick(), state, item.bytes);
        item.world.reset();
        encoded_seek = item.bytes.size();
      }
      // The hard cap: the game thread's estimate ends a recording before this, unless a seek
      // point came out much larger than the last; the file then stops at a whole record.
      if (written_ + item.bytes.size() > settings_.max_bytes) {
        fail("write", "size limit: " + std::to_string(written_ + item.bytes.size()) + " bytes would pass " +
                          std::to_string(settings_.max_bytes));
      } else if (std::fwrite(item.bytes.data(), 1, item.bytes.size(), file_) != item.bytes.size()) {
        fail("write", errno);
        // Each item is a seek point, 64 KiB of records or the end: a few a second at most, so
        // every one goes to the kernel at once (a stopped recording is complete on disk when its
        // end record is handed over and written).
      } else if (std::fflush(file_) != 0) {
        fail("flush", errno);
      } else {
        written_ += item.bytes.size();
      }
    }
    lock.lock();
    // The seek point leaves the queued count and joins the encoded bytes in one step under the
    // lock over_limit() reads them under.
    if (encoded_seek > 0) {
      last_seek_size_.store(encoded_seek, std::memory_order_relaxed);
      seek_bytes_.fetch_add(encoded_seek, std::memory_order_relaxed);
    }
    if (seek) queued_seeks_.fetch_sub(1, std::memory_order_relaxed);
    queued_bytes_.fetch_sub(item.queued, std::memory_order_relaxed);
  }
}

}  // namespace flockstep::server::game
