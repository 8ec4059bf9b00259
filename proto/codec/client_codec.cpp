#include "codec/client_codec.hpp"

#include <cmath>
#include <limits>

#include "flockstep/v1/messages.pb.h"

namespace flockstep::codec {

const char* to_string(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kClamped: return "clamped";
    case Status::kMalformed: return "malformed";
    case Status::kEmpty: return "empty";
    case Status::kBadEnum: return "bad_enum";
    case Status::kNotFinite: return "not_finite";
    case Status::kBadName: return "bad_name";
    case Status::kBadToken: return "bad_token";
    case Status::kTooManyFrames: return "too_many_frames";
    case Status::kBadSequence: return "bad_sequence";
    case Status::kTooBig: return "too_big";
  }
  return "unknown";
}

namespace {

/// Range-check one number: NaN/Inf rejected; slightly outside (within tolerance, rounding noise
/// from a client's arithmetic) clamped silently; further outside clamped and reported.
Status check_range(double& v, double lo, double hi, double tolerance) {
  if (!std::isfinite(v)) return Status::kNotFinite;
  if (v >= lo && v <= hi) return Status::kOk;
  const bool near = v >= lo - tolerance && v <= hi + tolerance;
  v = v < lo ? lo : hi;
  return near ? Status::kOk : Status::kClamped;
}

Result decode_join(const v1::Join& j, const DecodeLimits& limits, JoinRequest& out) {
  // First: a client of another revision may mean something else by every other field.
  if (j.protocol_version() != kProtocolVersion)
    return fail(Status::kBadEnum, "join.protocol_version " + std::to_string(j.protocol_version()) +
                                      " is not supported: this server speaks protocol " +
                                      std::to_string(kProtocolVersion) + " (see docs/protocol.md)");
  switch (j.role()) {
    case v1::ROLE_PLAYER: out.role = Role::kPlayer; break;
    case v1::ROLE_SPECTATOR: out.role = Role::kSpectator; break;
    default: return fail(Status::kBadEnum, "join.role must be ROLE_PLAYER or ROLE_SPECTATOR");
  }
  if (validate_display_name(j.display_name(), limits.max_name_bytes, out.display_name) != Status::kOk)
    return fail(Status::kBadName, "join.display_name must be 1-" + std::to_string(limits.max_name_bytes) +
                                      " bytes of UTF-8 without control characters");
  if (!j.resume_token().empty() && j.resume_token().size() != kResumeTokenBytes)
    return fail(Status::kBadToken,
                "join.resume_token must be empty or " + std::to_string(kResumeTokenBytes) + " bytes");
  out.resume_token = j.resume_token();
  out.plain_snapshots = j.plain_snapshots();
  out.delivered_baselines = j.delivered_baselines();
  if (j.room().size() > kMaxRoomNameBytes)
    return fail(Status::kMalformed, "join.room must be at most " + std::to_string(kMaxRoomNameBytes) + " bytes");
  out.room = j.room();
  return {};
}

Result decode_input(const v1::Input& in, const DecodeLimits& limits, std::vector<InputFrame>& out) {
  const int n = in.frames_size();
  if (n == 0) return fail(Status::kEmpty, "input.frames is empty");
  if (static_cast<std::uint32_t>(n) > limits.max_input_frames)
    return fail(Status::kTooManyFrames,
                "input.frames has " + std::to_string(n) + " frames, limit " + std::to_string(limits.max_input_frames));
  out.clear();
  out.reserve(static_cast<std::size_t>(n));
  Status worst = Status::kOk;
  std::string detail;
  std::uint32_t prev = 0;
  for (int i = 0; i < n; ++i) {
    const v1::InputFrame& f = in.frames(i);
    const std::string where = "input.frames[" + std::to_string(i) + "]";
    if (f.sequence() == 0 || f.sequence() <= prev)
      return fail(Status::kBadSequence, where + ".sequence must be >= 1 and strictly increasing");
    prev = f.sequence();
    InputFrame frame{f.sequence(), f.turn(), f.throttle()};
    const Status st = check_range(frame.turn, -1.0, 1.0, limits.range_tolerance);
    const Status sth = check_range(frame.throttle, 0.0, 1.0, limits.range_tolerance);
    if (st == Status::kNotFinite) return fail(st, where + ".turn is NaN or infinite");
    if (sth == Status::kNotFinite) return fail(sth, where + ".throttle is NaN or infinite");
    if (st == Status::kClamped && worst == Status::kOk) {
      worst = Status::kClamped;
      detail = where + ".turn outside [-1, 1]";
    }
    if (sth == Status::kClamped && worst == Status::kOk) {
      worst = Status::kClamped;
      detail = where + ".throttle outside [0, 1]";
    }
    out.push_back(frame);
  }
  return Result{worst, std::move(detail)};
}

Result decode_ack(const v1::Ack& in, AckRequest& out) {
  out.snapshot_tick = in.snapshot_tick();
  out.has_view = in.has_view();
  if (!out.has_view) return {};
  const v1::ViewRect& v = in.view();
  double c[4] = {v.min().x(), v.min().y(), v.max().x(), v.max().y()};
  for (double x : c)
    if (!std::isfinite(x)) return fail(Status::kNotFinite, "ack.view is NaN or infinite");
  if (c[0] > c[2] || c[1] > c[3]) return fail(Status::kMalformed, "ack.view min must be <= max");
  // Oversized views are clamped around their centre: legitimate (zoomed out), just bounded.
  for (int a = 0; a < 2; ++a) {
    if (c[a + 2] - c[a] > kMaxViewSideM) {
      const double mid = 0.5 * (c[a] + c[a + 2]);
      c[a] = mid - 0.5 * kMaxViewSideM;
      c[a + 2] = mid + 0.5 * kMaxViewSideM;
    }
  }
  out.view = {c[0], c[1], c[2], c[3]};
  return {};
}

template <class Message>
bool append_serialized(const Message& m, std::string& out) {
  std::string bytes;
  if (!m.SerializeToString(&bytes)) return false;
  out += bytes;
  return true;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    std::size_t len = 0;
    std::uint32_t min_cp = 0;
    if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1Fu;
      len = 2;
      min_cp = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0Fu;
      len = 3;
      min_cp = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07u;
      len = 4;
      min_cp = 0x10000;
    } else return false;  // continuation byte or 0xF8.. as a lead byte
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

Status validate_display_name(std::string_view name, std::uint32_t max_bytes, std::string& out) {
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (name.empty() || name.size() > max_bytes || !is_valid_utf8(name)) return Status::kBadName;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) return Status::kBadName;
  }
  // C1 controls U+0080..U+009F are encoded as C2 80..C2 9F.
  for (std::size_t i = 0; i + 1 < name.size(); ++i)
    if (static_cast<unsigned char>(name[i]) == 0xC2 && static_cast<unsigned char>(name[i + 1]) < 0xA0)
      return Status::kBadName;
  out.assign(name);
  return Status::kOk;
}

Result decode_client_message(std::span<const std::byte> bytes, const DecodeLimits& limits, ClientCommand& out) {
  if (bytes.size() > limits.max_message_bytes)
    return fail(Status::kTooBig, "message of " + std::to_string(bytes.size()) + " bytes, limit " +
                                     std::to_string(limits.max_message_bytes));
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return fail(Status::kTooBig, "message too big");
  v1::ClientMessage msg;
  if (!msg.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return fail(Status::kMalformed, "not a valid ClientMessage encoding");
  switch (msg.payload_case()) {
    case v1::ClientMessage::kJoin:
      out.type = ClientCommand::Type::kJoin;
      return decode_join(msg.join(), limits, out.join);
    case v1::ClientMessage::kInput:
      out.type = ClientCommand::Type::kInput;
      return decode_input(msg.input(), limits, out.inputs);
    case v1::ClientMessage::kPing:
      out.type = ClientCommand::Type::kPing;
      out.time_us = msg.ping().sender_time_us();
      return {};
    case v1::ClientMessage::kPong:
      out.type = ClientCommand::Type::kPong;
      out.time_us = msg.pong().echo_time_us();
      return {};
    case v1::ClientMessage::kClose:
      out.type = ClientCommand::Type::kClose;
      out.close_code = static_cast<std::uint32_t>(msg.close().code());
      return {};
    case v1::ClientMessage::kAck: out.type = ClientCommand::Type::kAck; return decode_ack(msg.ack(), out.ack);
    case v1::ClientMessage::kInspect:
      // Any id is acceptable: an unknown or stale one is traced as gone (group -1).
      out.type = ClientCommand::Type::kInspect;
      out.inspect_id = msg.inspect().agent_id();
      return {};
    case v1::ClientMessage::PAYLOAD_NOT_SET: break;
  }
  return fail(Status::kEmpty, "ClientMessage without payload");
}

bool encode_join(const JoinRequest& join, std::string& out) {
  v1::ClientMessage m;
  v1::Join* j = m.mutable_join();
  j->set_role(join.role == Role::kPlayer ? v1::ROLE_PLAYER : v1::ROLE_SPECTATOR);
  j->set_display_name(join.display_name);
  j->set_resume_token(join.resume_token);
  j->set_protocol_version(kProtocolVersion);
  j->set_plain_snapshots(join.plain_snapshots);
  j->set_delivered_baselines(join.delivered_baselines);
  j->set_room(join.room);
  return append_serialized(m, out);
}

bool encode_input(std::span<const InputFrame> frames, std::string& out) {
  v1::ClientMessage m;
  v1::Input* in = m.mutable_input();
  for (const InputFrame& f : frames) {
    v1::InputFrame* p = in->add_frames();
    p->set_sequence(f.sequence);
    p->set_turn(f.turn);
    p->set_throttle(f.throttle);
  }
  return append_serialized(m, out);
}

bool encode_ping(std::uint64_t time_us, std::string& out) {
  v1::ClientMessage m;
  m.mutable_ping()->set_sender_time_us(time_us);
  return append_serialized(m, out);
}

bool encode_pong(std::uint64_t echo_time_us, std::string& out) {
  v1::ClientMessage m;
  m.mutable_pong()->set_echo_time_us(echo_time_us);
  return append_serialized(m, out);
}

bool encode_ack(std::uint64_t snapshot_tick, const ViewRect* view, std::string& out) {
  v1::ClientMessage m;
  v1::Ack* a = m.mutable_ack();
  a->set_snapshot_tick(snapshot_tick);
  if (view) {
    a->mutable_view()->mutable_min()->set_x(view->min_x);
    a->mutable_view()->mutable_min()->set_y(view->min_y);
    a->mutable_view()->mutable_max()->set_x(view->max_x);
    a->mutable_view()->mutable_max()->set_y(view->max_y);
  }
  return append_serialized(m, out);
}

bool encode_inspect(std::uint32_t agent_id, std::string& out) {
  v1::ClientMessage m;
  m.mutable_inspect()->set_agent_id(agent_id);
  return append_serialized(m, out);
}

}  // namespace flockstep::codec
