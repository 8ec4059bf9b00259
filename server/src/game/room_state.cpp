#include "game/room_state.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "codec/world_state_codec.hpp"
#include "ops/log.hpp"
#include "ops/token_hash.hpp"

namespace flockstep::server::game {

namespace {

namespace fs = std::filesystem;

std::string os_error(const std::string& step, const std::string& path, int err) {
  return step + " '" + path + "': " + std::strerror(err);
}

/// fsync of a folder, so a rename inside it is on disk too.
int sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return rc;
}

std::string read_whole(const std::string& path, std::string& out) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return "cannot read '" + path + "': " + ec.message();
  if (size > kMaxRoomStateBytes)
    return "'" + path + "' is " + std::to_string(size) + " bytes, over the limit of " +
           std::to_string(kMaxRoomStateBytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open '" + path + "'";
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return "cannot read '" + path + "'";
  return {};
}

}  // namespace

void finish_room_state(v1::RoomState& state, const sim::World& world) {
  state.set_state_hash(world.state_hash());
  state.set_world_state(codec::encode_world_state(world));
}

std::string encode_room_state(const v1::RoomState& state) {
  std::string out;
  state.SerializeToString(&out);
  return out;
}

std::string decode_room_state(std::string_view bytes, v1::RoomState& out) {
  out.Clear();
  if (bytes.empty()) return "empty file";
  if (!out.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return "not a RoomState message (corrupt)";
  if (out.version() < kOldestRoomStateVersion || out.version() > kRoomStateVersion)
    return "version " + std::to_string(out.version()) + ", this server reads versions " +
           std::to_string(kOldestRoomStateVersion) + " to " + std::to_string(kRoomStateVersion);
  if (out.room().empty()) return "room: missing";
  // Fields are written in field-number order, so a file cut short loses the world (field 8)
  // before anything else that matters: an empty world is how truncation shows.
  if (out.world_state().empty()) return "world_state: missing (truncated file?)";
  if (out.tick_rate_hz() == 0) return "tick_rate_hz: missing";
  return {};
}

std::string room_state_path(const std::string& dir, const std::string& room) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string name;
  for (const char ch : room) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      name.push_back(ch);
    } else {
      name.push_back('%');
      name.push_back(kHex[c >> 4]);
      name.push_back(kHex[c & 15]);
    }
  }
  return (fs::path(dir) / (name + std::string(kRoomStateSuffix))).string();
}

// POSIX calls rather than std::ofstream: the standard library has no fsync, and without it a
// rename can reach the disk before the data it names (an empty file after a power cut).
std::string write_file_atomic(const std::string& path, std::string_view bytes, unsigned mode) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) return os_error("create", tmp, errno);
  // A temp file left by a crash or an older build keeps its old mode through O_CREAT: set it.
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return os_error("chmod", tmp, err);
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      return os_error("write", tmp, err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return os_error("fsync", tmp, err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return os_error("close", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return os_error("rename to", path, err);
  }
  const std::string dir = fs::path(path).parent_path().string();
  if (const int err = sync_dir(dir.empty() ? "." : dir)) return os_error("fsync of folder", dir, err);
  return {};
}

StateStore::StateStore(std::string dir, ops::Logger* log) : dir_(std::move(dir)), log_(log) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("state_dir '" + dir_ + "': cannot create: " + ec.message());
  if (!fs::is_directory(dir_, ec)) throw std::runtime_error("state_dir '" + dir_ + "': not a folder");
  // The folder holds every player's session: nobody else may list it (also a folder an older
  // build created with the default mode). A folder the server does not own (a volume's root
  // with fsGroup) cannot be changed: a warning, not a start-up error, as every file in it is
  // 0600 anyway.
  if (::chmod(dir_.c_str(), kStateDirMode) != 0 && log_)
    log_->warn("state_dir_mode", {{"dir", dir_}, {"error", os_error("chmod", dir_, errno)}});
  // Prove now that saves will work, rather than finding out at SIGTERM.
  const std::string probe = (fs::path(dir_) / ".write-test").string();
  if (std::string why = write_file_atomic(probe, "ok"); !why.empty())
    throw std::runtime_error("state_dir '" + dir_ + "': not writable: " + why);
  fs::remove(probe, ec);
  const std::string lock_path = (fs::path(dir_) / ".lock").string();
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, kStateFileMode);
  if (lock_fd_ < 0) throw std::runtime_error("state_dir '" + dir_ + "': " + os_error("open", lock_path, errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(lock_fd_);
    throw std::runtime_error("state_dir '" + dir_ + "': " +
                             (err == EWOULDBLOCK ? std::string("in use by another running server (") + lock_path +
                                                       " is locked); the next one starts after it has exited"
                                                 : os_error("lock", lock_path, err)));
  }
  try {
    load_token_key();
  } catch (...) {
    ::close(lock_fd_);
    throw;
  }
  writer_ = std::thread([this] { run(); });
}

void StateStore::load_token_key() {
  const std::string path = (fs::path(dir_) / kTokenKeyFile).string();
  std::error_code ec;
  if (fs::exists(path, ec)) {
    std::string bytes;
    std::string why = read_whole(path, bytes);
    if (why.empty() && bytes.size() == ops::kTokenKeyBytes) {
      token_key_ = std::move(bytes);
      ::chmod(path.c_str(), kStateFileMode);  // a key copied in with a wider mode
      return;
    }
    set_aside(path, why.empty() ? std::to_string(bytes.size()) + " bytes, a token key has " +
                                      std::to_string(ops::kTokenKeyBytes) + "; saved players cannot resume"
                                : why);
  }
  token_key_ = ops::new_token_key();
  if (std::string why = write_file_atomic(path, token_key_); !why.empty())
    throw std::runtime_error("state_dir '" + dir_ + "': cannot write the token key: " + why);
}

StateStore::~StateStore() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (writer_.joinable()) writer_.join();
  ::close(lock_fd_);  // releases the flock
}

std::vector<SavedRoomFile> StateStore::load_all() const {
  std::vector<SavedRoomFile> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (e.is_regular_file() && e.path().extension() == kRoomStateSuffix) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    SavedRoomFile s;
    s.path = f.string();
    std::string bytes;
    s.error = read_whole(s.path, bytes);
    if (s.error.empty()) s.error = decode_room_state(bytes, s.state);
    out.push_back(std::move(s));
  }
  return out;
}

void StateStore::set_aside(const std::string& path, const std::string& why) {
  const std::string to = path + std::string(kRejectedSuffix);
  std::error_code ec;
  fs::rename(path, to, ec);
  // Kept for a post-mortem, as private as the file it was (one written by an older build may
  // be world-readable).
  if (!ec) ::chmod(to.c_str(), kStateFileMode);
  if (log_)
    log_->error(
        "room_state_rejected",
        {{"file", path}, {"error", why}, {"moved_to", ec ? std::string("(not moved: ") + ec.message() + ")" : to}});
}

void StateStore::save_async(v1::RoomState state, std::unique_ptr<sim::World> world) {
  {
    std::lock_guard lock(mutex_);
    const std::string room = state.room();
    pending_[room] = Pending{std::move(state), std::move(world)};
  }
  wake_.notify_one();
}

std::string StateStore::save_now(const v1::RoomState& state) {
  std::lock_guard io(io_mutex_);
  {
    std::lock_guard lock(mutex_);
    pending_.erase(state.room());
  }
  return write(state);
}

void StateStore::remove(const std::string& room) {
  std::lock_guard io(io_mutex_);
  {
    std::lock_guard lock(mutex_);
    pending_.erase(room);
  }
  std::error_code ec;
  fs::remove(room_state_path(dir_, room), ec);
}

std::uint64_t StateStore::writes() const {
  std::lock_guard lock(mutex_);
  return writes_;
}

std::string StateStore::write(const v1::RoomState& state) {
  const std::string path = room_state_path(dir_, state.room());
  std::string why = write_file_atomic(path, encode_room_state(state));
  if (!why.empty()) {
    if (log_) log_->error("room_save_failed", {{"room", state.room()}, {"error", why}});
    return why;
  }
  std::lock_guard lock(mutex_);
  ++writes_;
  return {};
}

void StateStore::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (stopping_) return;
    }
    std::lock_guard io(io_mutex_);
    Pending job;
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty()) continue;  // taken by save_now or remove meanwhile
      auto it = pending_.begin();
      job = std::move(it->second);
      pending_.erase(it);
    }
    if (job.world) finish_room_state(job.state, *job.world);
    write(job.state);
  }
}

}  // namespace flockstep::server::game
