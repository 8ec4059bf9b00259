#pragma once
/// \file input_log.hpp
/// Input-log recordings (proto/flockstep/v1/input_log.proto, docs/protocol.md "Input-log
/// recordings"): the commands a room gave its sim::World, a saved world every few seconds and
/// the state hash every second. Because the world is deterministic, re-stepping it with the
/// logged commands gives the recorded run back bit for bit, with everything the live world had
/// (force traces for the inspector, at any tick).
///
/// InputLogEncoder writes the records (the server's recorder, tests, the benchmark);
/// InputLogPlayer reads a whole file and re-simulates it (tests, the server's listing, the
/// viewer). Both build natively and in wasm; no exceptions, no clocks, no I/O.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flockstep/sim/world.hpp"

namespace flockstep::v1 {
class InputLogRecord;
}

namespace flockstep::codec {

/// The file's first 8 bytes.
inline constexpr std::string_view kInputLogMagic = "FSLOG001";
/// InputLogHeader.format_version written and the only one read. Version 2: the state hashes it
/// holds (and its seek points', codec::kWorldStateFormatVersion 3) are sim::RowSetHasher's;
/// version 1's were FNV-1a over the agents in id order, which a reader of today would take for
/// a divergence at the first hash.
inline constexpr std::uint32_t kInputLogFormatVersion = 2;
/// Largest record a reader accepts, bytes (a seek point of a 100,000-agent world is about
/// 25 MB, docs/world-state.md); a longer length prefix is taken for corruption.
inline constexpr std::uint32_t kInputLogMaxRecordBytes = 256u << 20;
/// Bytes of framing around each record: the u32 length before it and the u64 FNV-1a after it.
inline constexpr std::size_t kInputLogFrameBytes = 12;

/// What the header says (InputLogHeader without the scenario).
struct InputLogInfo {
  std::string room;
  std::string scenario;  ///< the scenario's name
  std::uint32_t tick_rate_hz = 0;
  std::uint64_t start_tick = 0;
  std::uint32_t seek_interval_ticks = 0;
  std::uint32_t hash_interval_ticks = 0;
  std::uint64_t started_unix_ms = 0;
};

/// Builds the records of one recording, each framed ([u32 length][record][u64 FNV-1a]) and
/// appended to a caller's string. Commands are collected in call order and written as one
/// TickCommands record by commands(); set_input is written only when the entity's input changed
/// since the last one logged (a bot holding its controls costs nothing).
class InputLogEncoder {
 public:
  InputLogEncoder();
  ~InputLogEncoder();
  InputLogEncoder(const InputLogEncoder&) = delete;
  InputLogEncoder& operator=(const InputLogEncoder&) = delete;

  /// The header record (`info.scenario` is ignored: the scenario's name is in `scenario`).
  void header(const InputLogInfo& info, const sim::Scenario& scenario, std::string& out);
  /// A seek point from already encoded world-state bytes (codec::encode_world_state).
  static void seek_point(std::uint64_t tick, std::string_view world_state, std::string& out);
  /// A state hash mark.
  void hash(std::uint64_t tick, std::uint64_t state_hash, std::string& out);
  /// The end record.
  void end(std::uint64_t tick, std::uint64_t state_hash, std::string_view reason, std::string& out);

  // ---- commands of the current tick, in call order ----
  void add_player(sim::AgentId returned);
  void remove(sim::AgentId id);
  void set_input(sim::AgentId id, sim::PlayerInput input);
  void set_group(std::int32_t group, const sim::GroupSpec& spec);
  /// Commands collected so far (not yet written).
  std::size_t pending() const;
  /// Write the collected commands as TickCommands{tick} (nothing when there are none).
  void commands(std::uint64_t tick, std::string& out);

 private:
  std::unique_ptr<v1::InputLogRecord> pending_;
  std::map<std::uint32_t, sim::PlayerInput> last_input_;  // by entity id value
};

/// Append one framed record. Exposed for tests that build altered logs.
void append_input_log_record(const v1::InputLogRecord& record, std::string& out);

/// What one record is, read without decoding any world (a server's listing walks the frames of a
/// file and reads only the first and the last record).
struct InputLogRecordSummary {
  enum class Kind : std::uint8_t { kInvalid, kHeader, kCommands, kHash, kSeek, kEnd } kind = Kind::kInvalid;
  std::uint64_t tick = 0;  ///< the record's tick (the header: start_tick)
  InputLogInfo info;       ///< the header's fields (kHeader)
  std::string reason;      ///< LogEnd.reason (kEnd)
};
/// `record` is the bytes between a frame's length and its checksum.
InputLogRecordSummary summarize_input_log_record(std::string_view record);

/// Re-simulates an input log. open() validates the whole file first (framing, checksums,
/// record order, every seek point decoded and checked) and refuses it with a message on the first
/// problem, so a player never holds half a log. Then: seek() to any tick in [first_tick(),
/// last_tick()], step() forward, world() at every tick. Each logged state hash (and every seek
/// point and the end record) is compared when re-simulation reaches its tick; a mismatch is kept
/// in divergences() (tick, expected, got) and never hidden. A divergence does not stop playback.
class InputLogPlayer {
 public:
  /// Null and `error` set when the bytes are not a complete, valid recording.
  static std::unique_ptr<InputLogPlayer> open(std::string_view bytes, std::string& error);
  ~InputLogPlayer();

  const InputLogInfo& info() const { return info_; }
  std::uint64_t first_tick() const { return info_.start_tick; }
  /// The end record's tick.
  std::uint64_t last_tick() const { return end_tick_; }
  /// Why the recording stopped (LogEnd.reason).
  const std::string& end_reason() const { return end_reason_; }
  std::uint64_t tick() const { return world_->tick(); }
  const sim::World& world() const { return *world_; }

  /// Re-simulate to `tick` (clamped into [first_tick(), last_tick()]): from the current world
  /// when it is at or before `tick` and no seek point lies between, else from the nearest seek
  /// point at or before `tick`. Returns the tick reached. The hashes between that seek point and
  /// the old position are not compared: to check a whole log, step() it from first_tick().
  std::uint64_t seek(std::uint64_t tick);
  /// One tick forward; false (nothing done) at last_tick().
  bool step();

  /// Trace these agents (the inspector); kept across seeks, which replace the world.
  void set_traced(std::vector<sim::AgentId> agents);

  struct Divergence {
    std::uint64_t tick = 0;
    std::uint64_t expected = 0;  ///< the logged hash (or id, for an add_player)
    std::uint64_t got = 0;       ///< what re-simulation gave
    std::string what;            ///< "state_hash", "seek_point", "end", "add_player", "set_group"
  };
  /// Every mismatch found so far, in the order found (each tick and kind once).
  const std::vector<Divergence>& divergences() const { return divergences_; }
  /// The hash logged for `tick` (a StateHashMark), or 0 when none.
  std::uint64_t logged_hash(std::uint64_t tick) const;
  /// Ticks with a logged state hash, ascending.
  std::vector<std::uint64_t> hash_ticks() const;
  /// Hash marks compared so far (each tick once), for tests and the page.
  std::size_t hashes_checked() const { return checked_.size(); }

  std::size_t seek_point_count() const { return seeks_.size(); }
  std::size_t command_count() const { return command_count_; }

  struct Command {
    enum class Type : std::uint8_t { kSetInput, kAddPlayer, kRemove, kSetGroup } type{};
    sim::AgentId id;
    sim::PlayerInput input;
    std::int32_t group = 0;
    sim::GroupSpec spec;
  };

 private:
  InputLogPlayer() = default;
  void restore(std::size_t seek_index);
  /// At world_->tick(): compare the hash mark, apply that tick's commands, compare the end.
  void arrive();
  void diverged(std::uint64_t tick, std::uint64_t expected, std::uint64_t got, const char* what);

  struct Seek {
    std::uint64_t tick = 0;
    std::string bytes;
    std::uint64_t hash = 0;
  };
  InputLogInfo info_;
  std::vector<Seek> seeks_;
  std::map<std::uint64_t, std::vector<Command>> commands_;
  std::map<std::uint64_t, std::uint64_t> hashes_;
  std::uint64_t end_tick_ = 0;
  std::uint64_t end_hash_ = 0;
  std::string end_reason_;
  std::size_t command_count_ = 0;
  std::unique_ptr<sim::World> world_;
  std::vector<sim::AgentId> traced_;
  std::vector<Divergence> divergences_;
  std::map<std::uint64_t, bool> checked_;  // hash-mark ticks compared
  bool arrive_restored_ = false;           // the world was just restored from a seek point
};

}  // namespace flockstep::codec
