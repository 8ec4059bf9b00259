#include "game/input_log_recorder.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "codec/world_state_codec.hpp"
#include "ops/log.hpp"

namespace flockstep::server::game {

namespace {
/// Records are handed to the writer once this many bytes are buffered (and at every seek point
/// and the end): a few hand-overs a second at most, each one lock and a notify.
constexpr std::size_t kHandOverBytes = 1 << 16;
/// stdio buffer of the writer thread.
constexpr std::size_t kFileBufferBytes = 1 << 16;
}  // namespace

InputLogRecorder::InputLogRecorder(std::string path, const InputLogSettings& settings, ops::Logger* log)
    : path_(std::move(path)), settings_(settings), log_(log) {
  // O_EXCL: a recording is never written over another one.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
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

void InputLogRecorder::fail(const char* op, int err) {
  // Called once: by the constructor, or by the writer thread on its first error (it stops then).
  failed_.store(true, std::memory_order_relaxed);
  if (log_) log_->error("input_log_stopped", {{"file", path_}, {"op", op}, {"error", std::strerror(err)}});
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
  ++seek_points_;
  hand_over(std::make_unique<sim::World>(world));
}

void InputLogRecorder::before_step(const sim::World& world) {
  if (!active()) return;
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
    // The size limit: stop before a seek point (the big record) would pass it. Its size is
    // taken as the last one's, which the writer measured.
    const std::uint64_t next = last_seek_size_.load(std::memory_order_relaxed);
    if (bytes() + next + 256 > settings_.max_bytes) {
      finish(world, "size limit");
      return;
    }
    last_seek_tick_ = t;
    ++seek_points_;
    hand_over(std::make_unique<sim::World>(world));
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
    if (!buffer_.empty()) queue_.push_back({std::move(buffer_), nullptr});
    if (world) queue_.push_back({{}, std::move(world)});
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
    if (ok()) {
      const bool seek = item.world != nullptr;
      if (seek) {
        const std::string state = codec::encode_world_state(*item.world);
        codec::InputLogEncoder::seek_point(item.world->tick(), state, item.bytes);
        item.world.reset();
        last_seek_size_.store(item.bytes.size(), std::memory_order_relaxed);
        seek_bytes_.fetch_add(item.bytes.size(), std::memory_order_relaxed);
      }
      if (std::fwrite(item.bytes.data(), 1, item.bytes.size(), file_) != item.bytes.size()) fail("write", errno);
      // Each item is a seek point, 64 KiB of records or the end: a few a second at most, so
      // every one goes to the kernel at once (a stopped recording is complete on disk when its
      // end record is handed over and written).
      else if (std::fflush(file_) != 0) fail("flush", errno);
    }
    lock.lock();
  }
}

}  // namespace flockstep::server::game
