#include "codec/input_log.hpp"

#include <algorithm>
#include <cmath>

#include "codec/checksum.hpp"
#include "codec/server_codec.hpp"
#include "codec/world_state_codec.hpp"
#include "flockstep/sim/state_hash.hpp"
#include "flockstep/v1/input_log.pb.h"

namespace flockstep::codec {

namespace {

// Little-endian fixed-width integers by hand: the frame is 12 bytes around a protobuf record,
// and protobuf has no public helper for an unprefixed fixed-width integer in a plain string.
void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
}

std::uint64_t get_le(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= std::uint64_t{static_cast<unsigned char>(in[at + k])} << (8 * k);
  return v;
}

}  // namespace

void append_input_log_record(const v1::InputLogRecord& record, std::string& out) {
  const std::string bytes = record.SerializeAsString();
  put_le(out, bytes.size(), 4);
  out += bytes;
  put_le(out, fnv1a(bytes), 8);
}

InputLogRecordSummary summarize_input_log_record(std::string_view record) {
  InputLogRecordSummary out;
  v1::InputLogRecord r;
  if (!r.ParseFromArray(record.data(), static_cast<int>(record.size()))) return out;
  using Kind = InputLogRecordSummary::Kind;
  switch (r.record_case()) {
    case v1::InputLogRecord::kHeader: {
      const v1::InputLogHeader& h = r.header();
      out.kind = Kind::kHeader;
      out.tick = h.start_tick();
      out.info = {h.room(),           h.scenario().name(),     h.tick_rate_hz(),
                  h.start_tick(),     h.seek_interval_ticks(), h.hash_interval_ticks(),
                  h.started_unix_ms()};
      break;
    }
    case v1::InputLogRecord::kCommands: out = {Kind::kCommands, r.commands().tick(), {}, {}}; break;
    case v1::InputLogRecord::kHash: out = {Kind::kHash, r.hash().tick(), {}, {}}; break;
    case v1::InputLogRecord::kSeek: out = {Kind::kSeek, r.seek().tick(), {}, {}}; break;
    case v1::InputLogRecord::kEnd: out = {Kind::kEnd, r.end().tick(), {}, r.end().reason()}; break;
    default: break;
  }
  return out;
}

// ---- encoder ----

InputLogEncoder::InputLogEncoder() : pending_(std::make_unique<v1::InputLogRecord>()) {}
InputLogEncoder::~InputLogEncoder() = default;

void InputLogEncoder::header(const InputLogInfo& info, const sim::Scenario& scenario, std::string& out) {
  v1::InputLogRecord r;
  v1::InputLogHeader* h = r.mutable_header();
  h->set_format_version(kInputLogFormatVersion);
  h->set_room(info.room);
  h->set_tick_rate_hz(info.tick_rate_hz);
  encode_world_spec(scenario, *h->mutable_scenario());
  h->set_start_tick(info.start_tick);
  h->set_seek_interval_ticks(info.seek_interval_ticks);
  h->set_hash_interval_ticks(info.hash_interval_ticks);
  h->set_started_unix_ms(info.started_unix_ms);
  append_input_log_record(r, out);
  last_input_.clear();
  pending_->Clear();
}

void InputLogEncoder::seek_point(std::uint64_t tick, std::string_view world_state, std::string& out) {
  v1::InputLogRecord r;
  r.mutable_seek()->set_tick(tick);
  r.mutable_seek()->set_world_state(std::string(world_state));
  append_input_log_record(r, out);
}

void InputLogEncoder::hash(std::uint64_t tick, std::uint64_t state_hash, std::string& out) {
  v1::InputLogRecord r;
  r.mutable_hash()->set_tick(tick);
  r.mutable_hash()->set_state_hash(state_hash);
  append_input_log_record(r, out);
}

void InputLogEncoder::end(std::uint64_t tick, std::uint64_t state_hash, std::string_view reason, std::string& out) {
  v1::InputLogRecord r;
  r.mutable_end()->set_tick(tick);
  r.mutable_end()->set_state_hash(state_hash);
  r.mutable_end()->set_reason(std::string(reason));
  append_input_log_record(r, out);
}

void InputLogEncoder::add_player(sim::AgentId returned) {
  pending_->mutable_commands()->add_commands()->set_add_player(returned.value);
  last_input_.erase(returned.value);  // a new craft starts with no input
}

void InputLogEncoder::remove(sim::AgentId id) {
  pending_->mutable_commands()->add_commands()->set_remove(id.value);
  last_input_.erase(id.value);
}

void InputLogEncoder::set_input(sim::AgentId id, sim::PlayerInput input) {
  const auto it = last_input_.find(id.value);
  // Bit equality (not ==): -0.0 and 0.0 are different inputs to a bit-exact world.
  if (it != last_input_.end() && std::signbit(it->second.turn) == std::signbit(input.turn) &&
      std::signbit(it->second.throttle) == std::signbit(input.throttle) && it->second.turn == input.turn &&
      it->second.throttle == input.throttle)
    return;
  last_input_[id.value] = input;
  v1::LoggedInput* in = pending_->mutable_commands()->add_commands()->mutable_set_input();
  in->set_entity(id.value);
  in->set_turn(input.turn);
  in->set_throttle(input.throttle);
}

void InputLogEncoder::set_group(std::int32_t group, const sim::GroupSpec& spec) {
  v1::LoggedGroup* g = pending_->mutable_commands()->add_commands()->mutable_set_group();
  g->set_group(group);
  encode_group(spec, *g->mutable_spec());
}

std::size_t InputLogEncoder::pending() const {
  return pending_->has_commands() ? static_cast<std::size_t>(pending_->commands().commands_size()) : 0;
}

void InputLogEncoder::commands(std::uint64_t tick, std::string& out) {
  if (pending() == 0) return;
  pending_->mutable_commands()->set_tick(tick);
  append_input_log_record(*pending_, out);
  pending_->Clear();
}

// ---- player ----

InputLogPlayer::~InputLogPlayer() = default;

std::unique_ptr<InputLogPlayer> InputLogPlayer::open(std::string_view bytes, std::string& error) {
  std::unique_ptr<InputLogPlayer> p(new InputLogPlayer());
  std::size_t index = 0;
  const auto refuse = [&](const std::string& why) {
    error = "input log: record " + std::to_string(index) + ": " + why;
    return nullptr;
  };
  if (bytes.size() < kInputLogMagic.size() || bytes.substr(0, kInputLogMagic.size()) != kInputLogMagic) {
    error = "input log: not an input-log recording (no FSLOG001 magic)";
    return nullptr;
  }
  // Pass 1, cheap: every frame's length and checksum, and the end record last, so a truncated
  // or corrupted file is refused before any world is decoded.
  std::vector<std::string_view> bodies;
  for (std::size_t at = kInputLogMagic.size(); at < bytes.size(); ++index) {
    if (bytes.size() - at < 4) return refuse("truncated length prefix");
    const std::uint64_t n = get_le(bytes, at, 4);
    if (n > kInputLogMaxRecordBytes)
      return refuse("length " + std::to_string(n) + " over the limit of " + std::to_string(kInputLogMaxRecordBytes) +
                    " bytes (corrupted)");
    // Under the limit, so it fits a size_t also where that is 32 bits (wasm).
    const auto len = static_cast<std::size_t>(n);
    if (bytes.size() - at - 4 < len + 8) return refuse("truncated (the file ends inside the record)");
    const std::string_view body = bytes.substr(at + 4, len);
    if (get_le(bytes, at + 4 + len, 8) != fnv1a(body)) return refuse("checksum mismatch (corrupted)");
    bodies.push_back(body);
    at += 4 + len + 8;
  }
  index = bodies.empty() ? 0 : bodies.size() - 1;
  if (bodies.size() < 2) return refuse("no seek point (the file ends after its header)");
  if (summarize_input_log_record(bodies.back()).kind != InputLogRecordSummary::Kind::kEnd)
    return refuse("no end record: the file is truncated (or the server stopped before the recording ended)");
  // Pass 2: every record's content and order.
  bool have_end = false;
  std::uint64_t last_record_tick = 0, last_commands_tick = 0, last_hash_tick = 0;
  bool any_commands = false;
  std::size_t groups = 0;
  v1::InputLogRecord r;
  for (index = 0; index < bodies.size(); ++index) {
    if (have_end) return refuse("bytes after the end record");
    const std::string_view body = bodies[index];
    if (!r.ParseFromArray(body.data(), static_cast<int>(body.size()))) return refuse("not an InputLogRecord message");
    if (index == 0) {
      if (!r.has_header()) return refuse("the first record must be the header");
      const v1::InputLogHeader& h = r.header();
      if (h.format_version() != kInputLogFormatVersion)
        return refuse("format version " + std::to_string(h.format_version()) + ", this reader knows only " +
                      std::to_string(kInputLogFormatVersion));
      if (h.tick_rate_hz() < 1 || h.tick_rate_hz() > 240) return refuse("header.tick_rate_hz: must be in 1..240");
      if (h.seek_interval_ticks() < 1 || h.hash_interval_ticks() < 1)
        return refuse("header: seek_interval_ticks and hash_interval_ticks must be at least 1");
      sim::Scenario s;
      if (const Result res = decode_world_spec(h.scenario(), s); !res.ok())
        return refuse("header.scenario: " + res.detail);
      p->info_ = {h.room(),
                  s.name,
                  h.tick_rate_hz(),
                  h.start_tick(),
                  h.seek_interval_ticks(),
                  h.hash_interval_ticks(),
                  h.started_unix_ms()};
      last_record_tick = h.start_tick();
      continue;
    }
    if (r.has_header()) return refuse("a second header");
    if (index == 1 && !(r.has_seek() && r.seek().tick() == p->info_.start_tick))
      return refuse("the second record must be the seek point at the start tick " +
                    std::to_string(p->info_.start_tick));
    std::uint64_t tick = 0;
    switch (r.record_case()) {
      case v1::InputLogRecord::kSeek: {
        tick = r.seek().tick();
        if (index > 1 && (tick <= p->seeks_.back().tick || (any_commands && tick <= last_commands_tick)))
          return refuse("seek point at tick " + std::to_string(tick) + " out of order");
        DecodedWorld d = decode_world_state(r.seek().world_state());
        if (!d.world) return refuse("seek point at tick " + std::to_string(tick) + ": " + d.error);
        if (d.world->tick() != tick)
          return refuse("seek point at tick " + std::to_string(tick) + " holds a world at tick " +
                        std::to_string(d.world->tick()));
        if (d.world->scenario().tick_rate_hz != static_cast<std::int32_t>(p->info_.tick_rate_hz))
          return refuse("seek point at tick " + std::to_string(tick) + ": the world runs at another tick rate");
        if (index == 1) groups = d.world->scenario().groups.size();
        else if (d.world->scenario().groups.size() != groups)
          return refuse("seek point at tick " + std::to_string(tick) + ": another scenario");
        p->seeks_.push_back({tick, std::string(r.seek().world_state()), d.world->state_hash()});
        break;
      }
      case v1::InputLogRecord::kHash:
        tick = r.hash().tick();
        if (tick <= p->info_.start_tick || (last_hash_tick != 0 && tick <= last_hash_tick) ||
            (any_commands && tick <= last_commands_tick))
          return refuse("state hash at tick " + std::to_string(tick) + " out of order");
        last_hash_tick = tick;
        p->hashes_[tick] = r.hash().state_hash();
        break;
      case v1::InputLogRecord::kCommands: {
        tick = r.commands().tick();
        if (tick < p->info_.start_tick || (any_commands && tick <= last_commands_tick))
          return refuse("commands of tick " + std::to_string(tick) + " out of order");
        if (r.commands().commands_size() == 0) return refuse("commands of tick " + std::to_string(tick) + ": empty");
        any_commands = true;
        last_commands_tick = tick;
        std::vector<Command>& list = p->commands_[tick];
        for (int k = 0; k < r.commands().commands_size(); ++k) {
          const v1::LogCommand& c = r.commands().commands(k);
          const std::string where = "commands of tick " + std::to_string(tick) + "[" + std::to_string(k) + "]";
          Command out;
          switch (c.command_case()) {
            case v1::LogCommand::kSetInput:
              if (!std::isfinite(c.set_input().turn()) || !std::isfinite(c.set_input().throttle()))
                return refuse(where + ".set_input: not finite");
              out.type = Command::Type::kSetInput;
              out.id = sim::AgentId{c.set_input().entity()};
              out.input = {c.set_input().turn(), c.set_input().throttle()};
              break;
            case v1::LogCommand::kAddPlayer:
              out.type = Command::Type::kAddPlayer;
              out.id = sim::AgentId{c.add_player()};
              break;
            case v1::LogCommand::kRemove:
              out.type = Command::Type::kRemove;
              out.id = sim::AgentId{c.remove()};
              break;
            case v1::LogCommand::kSetGroup: {
              out.type = Command::Type::kSetGroup;
              out.group = c.set_group().group();
              if (out.group < 0 || static_cast<std::size_t>(out.group) >= groups)
                return refuse(where + ".set_group.group: no group " + std::to_string(out.group));
              if (const Result res = decode_group(c.set_group().spec(), where + ".set_group.spec", out.spec); !res.ok())
                return refuse(res.detail);
              break;
            }
            default: return refuse(where + ": no command");
          }
          list.push_back(std::move(out));
          ++p->command_count_;
        }
        break;
      }
      case v1::InputLogRecord::kEnd:
        tick = r.end().tick();
        have_end = true;
        p->end_tick_ = tick;
        p->end_hash_ = r.end().state_hash();
        p->end_reason_ = r.end().reason();
        break;
      default: return refuse("an empty record");
    }
    if (tick < last_record_tick)
      return refuse("tick " + std::to_string(tick) + " before the previous record's " +
                    std::to_string(last_record_tick));
    last_record_tick = tick;
  }
  if (p->seeks_.empty() || !have_end) return refuse("no seek point or no end record");  // pass 1 saw both
  p->restore(0);
  error.clear();
  return p;
}

void InputLogPlayer::diverged(std::uint64_t tick, std::uint64_t expected, std::uint64_t got, const char* what) {
  for (const Divergence& d : divergences_)
    if (d.tick == tick && d.what == what) return;
  divergences_.push_back({tick, expected, got, what});
}

void InputLogPlayer::restore(std::size_t seek_index) {
  // Validated by open(): decoding cannot fail here.
  DecodedWorld d = decode_world_state(seeks_[seek_index].bytes);
  world_ = std::move(d.world);
  world_->set_traced(traced_);
  arrive_restored_ = true;
  arrive();
}

void InputLogPlayer::arrive() {
  const std::uint64_t t = world_->tick();
  const bool restored = arrive_restored_;
  arrive_restored_ = false;
  if (const auto h = hashes_.find(t); h != hashes_.end()) {
    checked_[t] = true;
    if (const std::uint64_t got = world_->state_hash(); got != h->second) diverged(t, h->second, got, "state_hash");
  }
  if (!restored)
    for (const Seek& s : seeks_)
      if (s.tick == t)
        if (const std::uint64_t got = world_->state_hash(); got != s.hash) diverged(t, s.hash, got, "seek_point");
  if (const auto c = commands_.find(t); c != commands_.end()) {
    for (const Command& cmd : c->second) {
      switch (cmd.type) {
        case Command::Type::kSetInput: world_->set_input(cmd.id, cmd.input); break;
        case Command::Type::kRemove: world_->remove(cmd.id); break;
        case Command::Type::kAddPlayer: {
          const sim::AgentId got = world_->add_player();
          if (got != cmd.id) diverged(t, cmd.id.value, got.value, "add_player");
          break;
        }
        case Command::Type::kSetGroup:
          if (!world_->set_group(cmd.group, cmd.spec).empty())
            diverged(t, static_cast<std::uint64_t>(cmd.group), 0, "set_group");
          break;
      }
    }
  }
  if (t == end_tick_)
    if (const std::uint64_t got = world_->state_hash(); got != end_hash_) diverged(t, end_hash_, got, "end");
}

bool InputLogPlayer::step() {
  if (world_->tick() >= end_tick_) return false;
  world_->step();
  arrive();
  return true;
}

std::uint64_t InputLogPlayer::seek(std::uint64_t tick) {
  tick = std::clamp(tick, first_tick(), last_tick());
  std::size_t idx = 0;
  for (std::size_t k = 0; k < seeks_.size(); ++k)
    if (seeks_[k].tick <= tick) idx = k;
  const std::uint64_t now = world_->tick();
  if (now > tick || now < seeks_[idx].tick) restore(idx);
  while (world_->tick() < tick && step()) {
  }
  return world_->tick();
}

void InputLogPlayer::set_traced(std::vector<sim::AgentId> agents) {
  traced_ = std::move(agents);
  world_->set_traced(traced_);
}

std::uint64_t InputLogPlayer::logged_hash(std::uint64_t tick) const {
  const auto h = hashes_.find(tick);
  return h == hashes_.end() ? 0 : h->second;
}

std::vector<std::uint64_t> InputLogPlayer::hash_ticks() const {
  std::vector<std::uint64_t> out;
  out.reserve(hashes_.size());
  for (const auto& [t, h] : hashes_) out.push_back(t);
  return out;
}

}  // namespace flockstep::codec
