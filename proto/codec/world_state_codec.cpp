#include "codec/world_state_codec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <boost/pfr.hpp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "codec/checksum.hpp"
#include "codec/server_codec.hpp"
#include "flockstep/sim/state_hash.hpp"
#include "flockstep/sim/world_state.hpp"
#include "flockstep/v1/world_state.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace flockstep::codec {
namespace {

/// The record layout of every column below: changing a state struct changes the bytes, so it
/// needs a new version (and a reader of the old one, if saved states must survive it).
constexpr std::uint32_t kFormatVersion = kWorldStateFormatVersion;

/// std::bit_cast, which the libc++ of Debian's Emscripten (clang 14) does not have yet.
template <class To, class From>
To bits_as(const From& v) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &v, sizeof to);
  return to;
}

template <class T>
struct IsStdArray : std::false_type {};
template <class T, std::size_t N>
struct IsStdArray<std::array<T, N>> : std::true_type {};

/// Integers must have the same width on every platform (no size_t, long or pointers).
template <class T>
constexpr bool kFixedWidth =
    std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;

// Records are written field by field with Boost.PFR (a struct's fields in declaration order,
// recursively), in little-endian fixed widths: the same bytes from a 64-bit native build and a
// 32-bit wasm one, no padding bytes, and no hand-kept field list to forget a new field in.
template <class T>
void put(std::string& out, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    out.push_back(v ? '\1' : '\0');
  } else if constexpr (std::is_enum_v<T>) {
    put(out, static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_integral_v<T>) {
    static_assert(kFixedWidth<T>, "state fields need fixed-width integers");
    const auto u = static_cast<std::make_unsigned_t<T>>(v);
    for (std::size_t b = 0; b < sizeof(T); ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xFFu));
  } else if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 8, "state reals are IEEE binary64");
    put(out, bits_as<std::uint64_t>(v));
  } else if constexpr (IsStdArray<T>::value) {
    for (const auto& e : v) put(out, e);
  } else {
    boost::pfr::for_each_field(v, [&out](const auto& f) { put(out, f); });
  }
}

/// Reads records back; the first problem sticks (`error`), later reads do nothing.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  void get(T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      std::uint8_t b = 0;
      get(b);
      if (b > 1) fail("a bool is neither 0 nor 1");
      v = b == 1;
    } else if constexpr (std::is_enum_v<T>) {
      std::underlying_type_t<T> u{};
      get(u);
      v = static_cast<T>(u);  // ranges: sim::World::from_state checks them
    } else if constexpr (std::is_integral_v<T>) {
      static_assert(kFixedWidth<T>, "state fields need fixed-width integers");
      if (!error.empty() || bytes_.size() - pos_ < sizeof(T)) return fail("record cut short");
      std::make_unsigned_t<T> u = 0;
      for (std::size_t b = 0; b < sizeof(T); ++b)
        u |= static_cast<std::make_unsigned_t<T>>(
            static_cast<std::make_unsigned_t<T>>(static_cast<unsigned char>(bytes_[pos_ + b])) << (8 * b));
      pos_ += sizeof(T);
      v = static_cast<T>(u);
    } else if constexpr (std::is_floating_point_v<T>) {
      std::uint64_t bits = 0;
      get(bits);
      v = bits_as<T>(bits);
      // No state number is ever NaN or infinite (the World asserts finite positions and
      // velocities); one in the bytes is corruption.
      if (!std::isfinite(v)) fail("a number is not finite");
    } else if constexpr (IsStdArray<T>::value) {
      for (auto& e : v) get(e);
    } else {
      boost::pfr::for_each_field(v, [this](auto& f) { this->get(f); });
    }
  }
  bool done() const { return pos_ == bytes_.size(); }
  void fail(const char* why) {
    if (error.empty()) error = why;
  }
  std::string error;

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

template <class T>
std::size_t record_size() {
  static const std::size_t size = [] {
    std::string s;
    put(s, T{});
    return s.size();
  }();
  return size;
}

template <class T>
std::string column(const std::vector<T>& v) {
  std::string out;
  out.reserve(v.size() * record_size<T>());
  for (const T& e : v) put(out, e);
  return out;
}

/// Decodes a column of `count` records (count < 0: as many as the bytes hold, exactly).
template <class T>
bool read_column(std::string_view bytes, std::int64_t count, std::vector<T>& out, const char* name,
                 std::string& error) {
  const std::size_t rs = record_size<T>();
  if (bytes.size() % rs != 0 || (count >= 0 && bytes.size() / rs != static_cast<std::uint64_t>(count))) {
    error = std::string(name) + ": " + std::to_string(bytes.size()) + " bytes is not " +
            (count >= 0 ? std::to_string(count) + " records" : std::string("whole records")) + " of " +
            std::to_string(rs) + " bytes";
    return false;
  }
  out.assign(bytes.size() / rs, T{});
  Reader r(bytes);
  for (T& e : out) r.get(e);
  if (!r.error.empty()) {
    error = std::string(name) + ": " + r.error;
    return false;
  }
  return true;
}

/// The size limits of the header, or "": checked before the World allocates anything.
std::string check_sizes(const sim::Scenario& s) {
  if (!(s.grid_cell > 0)) return "grid_cell: must be > 0";
  // In doubles: a tiny cell or a huge side overflows any integer (the grid's own int32 cast too).
  const auto cells = [&s](double cell) {
    return std::max(1.0, std::floor(s.width / cell)) * std::max(1.0, std::floor(s.height / cell));
  };
  const double grid = cells(s.grid_cell);
  if (!(grid <= kMaxWorldGridCells))
    return "width, height, grid_cell: " + std::to_string(grid) + " grid cells, over the limit of " +
           std::to_string(static_cast<std::uint64_t>(kMaxWorldGridCells));
  // The obstacle index's cell (WorldImpl::build_obstacle_index): grid_cell, at least 4 m.
  const double pairs = cells(std::max(s.grid_cell, 4.0)) * static_cast<double>(s.obstacles.size());
  if (!(pairs <= kMaxWorldObstacleCellPairs))
    return "obstacles: " + std::to_string(s.obstacles.size()) + " obstacles over " + std::to_string(grid) +
           " cells, over the limit of " + std::to_string(static_cast<std::uint64_t>(kMaxWorldObstacleCellPairs)) +
           " obstacle-cell pairs";
  return {};
}

}  // namespace

std::string encode_world_state(const sim::World& world) {
  const sim::WorldState s = world.export_state();
  v1::WorldStateBody b;
  encode_world_spec(s.scenario, *b.mutable_scenario());
  b.set_tick(s.tick);
  b.set_state_hash(world.state_hash());
  b.set_agent_count(static_cast<std::uint32_t>(s.size()));
  b.set_flock_kernel(s.flock_kernel);
  b.set_world_rng(column(std::vector{s.world_rng}));
  b.set_slot_generation(column(s.slot_generation));
  b.set_slot_dense(column(s.slot_dense));
  b.set_free_slots(column(s.free_slots));
  b.set_id(column(s.id));
  b.set_kind(column(s.kind));
  b.set_motion(column(s.motion));
  b.set_group(column(s.group));
  b.set_position(column(s.position));
  b.set_velocity(column(s.velocity));
  b.set_heading(column(s.heading));
  b.set_orientation(column(s.orientation));
  b.set_angular_velocity(column(s.angular_velocity));
  b.set_rng(column(s.rng));
  b.set_wander(column(s.wander));
  b.set_waypoint(column(s.waypoint));
  b.set_pattern(column(s.pattern));
  b.set_chase_mode(column(s.chase_mode));
  b.set_input(column(s.input));
  b.set_spawn_tick(column(s.spawn_tick));
  b.set_force(column(s.force));
  b.set_thrusters(column(s.thrusters));
  b.set_target(column(s.target));
  b.set_aim(column(s.aim));
  b.set_state(column(s.state));
  b.set_tile(column(s.tile));
  b.set_fly(column(s.fly));
  b.set_ray_state(column(s.ray_state));
  b.set_kin_rotation(column(s.kin_rotation));
  b.set_dyn_wander(column(s.dyn_wander));
  b.set_kpattern(column(s.kpattern));
  b.set_path_state(column(s.path_state));
  b.set_smoothing_allocated(s.smoothing_allocated);
  b.set_smoother(column(s.smoother));
  b.set_commands(column(s.commands));
  for (const auto& [g, spec] : s.pending_groups) {
    v1::PendingGroup* p = b.add_pending_groups();
    p->set_group(g);
    encode_group(spec, *p->mutable_spec());
  }
  b.set_events(column(s.events));
  b.set_events_pending(column(s.events_pending));
  b.set_players(column(s.players));
  b.set_leader_index(column(s.leader_index));
  for (const auto& m : s.members) b.add_members(column(m));
  for (const std::int64_t c : s.technique_counts) b.add_technique_counts(c);
  b.set_pushout_corrections(s.pushout_corrections);
  b.set_pushout_max_depth(s.pushout_max_depth);

  v1::WorldStateFile file;
  file.set_format_version(kFormatVersion);
  // Deterministic serialization: the same world gives the same bytes on every platform.
  std::string body;
  {
    google::protobuf::io::StringOutputStream raw(&body);
    google::protobuf::io::CodedOutputStream coded(&raw);
    coded.SetSerializationDeterministic(true);
    b.SerializeToCodedStream(&coded);
  }
  file.set_body_hash(fnv1a(body));
  file.set_body(std::move(body));
  return file.SerializeAsString();
}

DecodedWorld decode_world_state(std::string_view bytes, const ScenarioCheck& check) {
  DecodedWorld out;
  const auto refuse = [&out](std::string why) {
    out.world.reset();
    out.error = "world state: " + std::move(why);
    return std::move(out);
  };
  // protobuf parses at most 2 GiB - 1 in one message (an int size): a larger state cannot be ours.
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return refuse("larger than 2 GiB");
  v1::WorldStateFile file;
  if (!file.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return refuse("not a WorldStateFile message");
  if (file.format_version() != kFormatVersion)
    return refuse("format version " + std::to_string(file.format_version()) + ", this reader knows only " +
                  std::to_string(kFormatVersion));
  if (fnv1a(file.body()) != file.body_hash()) return refuse("body hash mismatch (truncated or corrupted)");
  v1::WorldStateBody b;
  if (!b.ParseFromString(file.body())) return refuse("body is not a WorldStateBody message");

  sim::WorldState s;
  if (const Result r = decode_world_spec(b.scenario(), s.scenario); !r.ok()) return refuse("scenario: " + r.detail);
  if (std::string why = check_sizes(s.scenario); !why.empty()) return refuse("scenario: " + why);
  if (check)
    if (std::string why = check(s.scenario); !why.empty()) return refuse(why);
  s.tick = b.tick();
  s.flock_kernel = b.flock_kernel() > 255 ? 255 : static_cast<std::uint8_t>(b.flock_kernel());
  std::string e;
  const std::int64_t n = b.agent_count();
  std::vector<math::Rng> world_rng;
  const bool ok =
      read_column(b.world_rng(), 1, world_rng, "world_rng", e) &&
      read_column(b.slot_generation(), -1, s.slot_generation, "slot_generation", e) &&
      read_column(b.slot_dense(), -1, s.slot_dense, "slot_dense", e) &&
      read_column(b.free_slots(), -1, s.free_slots, "free_slots", e) && read_column(b.id(), n, s.id, "id", e) &&
      read_column(b.kind(), n, s.kind, "kind", e) && read_column(b.motion(), n, s.motion, "motion", e) &&
      read_column(b.group(), n, s.group, "group", e) && read_column(b.position(), n, s.position, "position", e) &&
      read_column(b.velocity(), n, s.velocity, "velocity", e) && read_column(b.heading(), n, s.heading, "heading", e) &&
      read_column(b.orientation(), n, s.orientation, "orientation", e) &&
      read_column(b.angular_velocity(), n, s.angular_velocity, "angular_velocity", e) &&
      read_column(b.rng(), n, s.rng, "rng", e) && read_column(b.wander(), n, s.wander, "wander", e) &&
      read_column(b.waypoint(), n, s.waypoint, "waypoint", e) && read_column(b.pattern(), n, s.pattern, "pattern", e) &&
      read_column(b.chase_mode(), n, s.chase_mode, "chase_mode", e) && read_column(b.input(), n, s.input, "input", e) &&
      read_column(b.spawn_tick(), n, s.spawn_tick, "spawn_tick", e) && read_column(b.force(), n, s.force, "force", e) &&
      read_column(b.thrusters(), n, s.thrusters, "thrusters", e) && read_column(b.target(), n, s.target, "target", e) &&
      read_column(b.aim(), n, s.aim, "aim", e) && read_column(b.state(), n, s.state, "state", e) &&
      read_column(b.tile(), n, s.tile, "tile", e) && read_column(b.fly(), n, s.fly, "fly", e) &&
      read_column(b.ray_state(), n, s.ray_state, "ray_state", e) &&
      read_column(b.kin_rotation(), n, s.kin_rotation, "kin_rotation", e) &&
      read_column(b.dyn_wander(), n, s.dyn_wander, "dyn_wander", e) &&
      read_column(b.kpattern(), n, s.kpattern, "kpattern", e) &&
      read_column(b.path_state(), n, s.path_state, "path_state", e) &&
      read_column(b.smoother(), b.smoothing_allocated() ? n : 0, s.smoother, "smoother", e) &&
      read_column(b.commands(), -1, s.commands, "commands", e) && read_column(b.events(), -1, s.events, "events", e) &&
      read_column(b.events_pending(), -1, s.events_pending, "events_pending", e) &&
      read_column(b.players(), -1, s.players, "players", e) &&
      read_column(b.leader_index(), -1, s.leader_index, "leader_index", e);
  if (!ok) return refuse(e);
  s.world_rng = world_rng[0];
  s.smoothing_allocated = b.smoothing_allocated();
  s.members.resize(static_cast<std::size_t>(b.members_size()));
  for (int g = 0; g < b.members_size(); ++g)
    if (!read_column(b.members(g), -1, s.members[static_cast<std::size_t>(g)], "members", e)) return refuse(e);
  for (const v1::PendingGroup& p : b.pending_groups()) {
    sim::GroupSpec spec;
    const std::string where = "pending_groups[" + std::to_string(p.group()) + "]";
    if (const Result r = decode_group(p.spec(), where, spec); !r.ok()) return refuse(r.detail);
    s.pending_groups.emplace_back(p.group(), std::move(spec));
  }
  if (b.technique_counts_size() != static_cast<int>(sim::kTechniqueCount))
    return refuse("technique_counts: " + std::to_string(b.technique_counts_size()) + " counters, not " +
                  std::to_string(sim::kTechniqueCount));
  for (std::size_t k = 0; k < sim::kTechniqueCount; ++k) {
    s.technique_counts[k] = b.technique_counts(static_cast<int>(k));
    if (s.technique_counts[k] < 0) return refuse("technique_counts: negative");
  }
  s.pushout_corrections = b.pushout_corrections();
  s.pushout_max_depth = b.pushout_max_depth();
  if (!std::isfinite(s.pushout_max_depth)) return refuse("pushout_max_depth: not finite");

  std::unique_ptr<sim::World> world = sim::World::from_state(std::move(s), e);
  if (!world) return refuse(e);
  // The stored hash is taken from the saving World: a restore that is not bit-identical in the
  // hashed state (any agent, the tick, the random streams) is refused.
  if (world->state_hash() != b.state_hash()) return refuse("state hash after restore differs from the stored one");
  out.world = std::move(world);
  return out;
}

}  // namespace flockstep::codec
