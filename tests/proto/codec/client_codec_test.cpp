// Client -> server decoding: every rule of the validation (decode -> range check -> clamp ->
// reject NaN/Inf, names, enums, sequences, sizes). Runs natively and under wasm: no files, no threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "codec/client_codec.hpp"
#include "flockstep/math/rng.hpp"
#include "flockstep/v1/messages.pb.h"

namespace flockstep::codec {
namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

Result decode(const std::string& s, ClientCommand& out, const DecodeLimits& limits = {}) {
  return decode_client_message(bytes_of(s), limits, out);
}

std::string serialize(const v1::ClientMessage& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

std::string input_message(std::vector<std::tuple<std::uint32_t, double, double>> frames) {
  v1::ClientMessage m;
  for (auto [seq, turn, throttle] : frames) {
    v1::InputFrame* f = m.mutable_input()->add_frames();
    f->set_sequence(seq);
    f->set_turn(turn);
    f->set_throttle(throttle);
  }
  return serialize(m);
}

TEST(ClientCodec, JoinRoundTripsEveryField) {
  JoinRequest j;
  j.role = Role::kPlayer;
  j.display_name = "Zo\xC3\xAB \xF0\x9F\x9A\x80";  // "Zoë 🚀": multi-byte UTF-8 is fine
  j.resume_token = std::string(kResumeTokenBytes, '\x7f');
  std::string bytes;
  ASSERT_TRUE(encode_join(j, bytes));
  ClientCommand c;
  const Result r = decode(bytes, c);
  ASSERT_TRUE(r.ok()) << r.detail;
  EXPECT_EQ(c.type, ClientCommand::Type::kJoin);
  EXPECT_EQ(c.join.role, Role::kPlayer);
  EXPECT_EQ(c.join.display_name, j.display_name);
  EXPECT_EQ(c.join.resume_token, j.resume_token);

  j.role = Role::kSpectator;
  j.resume_token.clear();
  bytes.clear();
  ASSERT_TRUE(encode_join(j, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.join.role, Role::kSpectator);
  EXPECT_TRUE(c.join.resume_token.empty());
  EXPECT_TRUE(c.join.room.empty());
}

TEST(ClientCodec, JoinCarriesTheRoomUpTo64Bytes) {
  JoinRequest j;
  j.role = Role::kSpectator;
  j.display_name = "viewer";
  j.room = "intercept";
  std::string bytes;
  ASSERT_TRUE(encode_join(j, bytes));
  ClientCommand c;
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.join.room, "intercept");
  j.room = std::string(kMaxRoomNameBytes, 'r');
  bytes.clear();
  ASSERT_TRUE(encode_join(j, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.join.room.size(), kMaxRoomNameBytes);
  j.room += "x";
  bytes.clear();
  ASSERT_TRUE(encode_join(j, bytes));
  EXPECT_EQ(decode(bytes, c).status, Status::kMalformed);
}

TEST(ClientCodec, InputRoundTripsEveryFrameInOrder) {
  const std::vector<InputFrame> frames{{7, -1.0, 0.0}, {8, 0.25, 0.5}, {9, 1.0, 1.0}};
  std::string bytes;
  ASSERT_TRUE(encode_input(frames, bytes));
  ClientCommand c;
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.type, ClientCommand::Type::kInput);
  EXPECT_EQ(c.inputs, frames);
}

TEST(ClientCodec, PingPongCarryTheirTimestamps) {
  std::string bytes;
  ASSERT_TRUE(encode_ping(123456789012345ULL, bytes));
  ClientCommand c;
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.type, ClientCommand::Type::kPing);
  EXPECT_EQ(c.time_us, 123456789012345ULL);
  bytes.clear();
  ASSERT_TRUE(encode_pong(42, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.type, ClientCommand::Type::kPong);
  EXPECT_EQ(c.time_us, 42u);
}

TEST(ClientCodec, NaNAndInfinityAreRejectedNotClamped) {
  const double bad[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity()};
  for (double v : bad) {
    ClientCommand c;
    EXPECT_EQ(decode(input_message({{1, v, 0.5}}), c).status, Status::kNotFinite) << v;
    EXPECT_EQ(decode(input_message({{1, 0.0, v}}), c).status, Status::kNotFinite) << v;
  }
}

TEST(ClientCodec, OutOfRangeValuesAreClampedAndReported) {
  ClientCommand c;
  Result r = decode(input_message({{1, 1.5, 0.5}, {2, -7.0, 2.0}, {3, 0.0, -0.25}}), c);
  EXPECT_EQ(r.status, Status::kClamped);
  EXPECT_NE(r.detail.find("frames[0].turn"), std::string::npos) << r.detail;
  ASSERT_EQ(c.inputs.size(), 3u);
  EXPECT_EQ(c.inputs[0].turn, 1.0);
  EXPECT_EQ(c.inputs[1].turn, -1.0);
  EXPECT_EQ(c.inputs[1].throttle, 1.0);
  EXPECT_EQ(c.inputs[2].throttle, 0.0);
  // Rounding noise just outside the range is clamped silently (not a violation).
  r = decode(input_message({{1, 1.0 + 1e-12, -1e-12}}), c);
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_EQ(c.inputs[0].turn, 1.0);
  EXPECT_EQ(c.inputs[0].throttle, 0.0);
}

TEST(ClientCodec, SequencesMustBePositiveAndStrictlyIncreasing) {
  ClientCommand c;
  EXPECT_EQ(decode(input_message({{0, 0, 0}}), c).status, Status::kBadSequence);
  EXPECT_EQ(decode(input_message({{5, 0, 0}, {5, 0, 0}}), c).status, Status::kBadSequence);
  EXPECT_EQ(decode(input_message({{5, 0, 0}, {4, 0, 0}}), c).status, Status::kBadSequence);
  EXPECT_TRUE(decode(input_message({{5, 0, 0}, {9, 0, 0}}), c).ok());  // gaps are fine
}

TEST(ClientCodec, FrameCountIsLimited) {
  DecodeLimits limits;
  limits.max_input_frames = 4;
  ClientCommand c;
  EXPECT_TRUE(decode(input_message({{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}}), c, limits).ok());
  EXPECT_EQ(decode(input_message({{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}, {5, 0, 0}}), c, limits).status,
            Status::kTooManyFrames);
  EXPECT_EQ(decode(input_message({}), c).status, Status::kEmpty);
}

TEST(ClientCodec, UnknownRoleAndFutureProtocolAreRejected) {
  for (int role : {0, 3, 99, -1}) {
    v1::ClientMessage m;
    m.mutable_join()->set_role(static_cast<v1::Role>(role));
    m.mutable_join()->set_display_name("x");
    m.mutable_join()->set_protocol_version(kProtocolVersion);
    ClientCommand c;
    EXPECT_EQ(decode(serialize(m), c).status, Status::kBadEnum) << role;
  }
  // Every revision but the one the server speaks is refused, with a reason naming both: 0 (unset,
  // a client that predates the field), 1 (snapshots whose per-player part merges into the body),
  // 2 (aim offsets coded in the old layout: it would misread every delta snapshot) and anything
  // newer.
  for (std::uint32_t version : {0u, 1u, 2u, 4u, 1000u}) {
    v1::ClientMessage m;
    m.mutable_join()->set_role(v1::ROLE_PLAYER);
    m.mutable_join()->set_display_name("x");
    m.mutable_join()->set_protocol_version(version);
    ClientCommand c;
    const Result r = decode(serialize(m), c);
    EXPECT_EQ(r.status, Status::kBadEnum) << version;
    EXPECT_NE(r.detail.find("protocol_version " + std::to_string(version) + " is not supported"), std::string::npos)
        << r.detail;
    EXPECT_NE(r.detail.find("speaks protocol 3"), std::string::npos) << r.detail;
    EXPECT_LE(r.detail.size(), 110u) << "fits a WebSocket close reason (120 bytes) after the status prefix";
  }
  v1::ClientMessage m;
  m.mutable_join()->set_role(v1::ROLE_PLAYER);
  m.mutable_join()->set_display_name("x");
  m.mutable_join()->set_protocol_version(3);
  ClientCommand c;
  EXPECT_TRUE(decode(serialize(m), c).ok());
}

TEST(ClientCodec, DisplayNamesMustBeValidShortUtf8WithoutControls) {
  auto join_with = [](const std::string& name) {
    v1::ClientMessage m;
    m.mutable_join()->set_role(v1::ROLE_SPECTATOR);
    m.mutable_join()->set_display_name(name);
    m.mutable_join()->set_protocol_version(kProtocolVersion);
    return serialize(m);
  };
  ClientCommand c;
  const std::string bad[] = {
      "",                    // empty
      "   ",                 // empty after trimming
      std::string(33, 'a'),  // too long (limit 32 bytes)
      "a\x01"
      "b",                 // C0 control
      "tab\there",         // tab is a control character too
      "del\x7f",           // DEL
      "c1\xC2\x85",        // C1 control U+0085 (NEL)
      "\xC0\x80",          // overlong NUL
      "\xE0\x80\xAF",      // overlong '/'
      "\xED\xA0\x80",      // UTF-16 surrogate
      "\xF4\x90\x80\x80",  // > U+10FFFF
      "\xE2\x82",          // truncated sequence
      "\x80",              // lone continuation byte
      "\xFF",              // never valid
  };
  for (const std::string& name : bad) EXPECT_EQ(decode(join_with(name), c).status, Status::kBadName) << name;
  ASSERT_TRUE(decode(join_with("  Ada  "), c).ok());
  EXPECT_EQ(c.join.display_name, "Ada");  // trimmed
  ASSERT_TRUE(decode(join_with(std::string(32, 'b')), c).ok());
  ASSERT_TRUE(decode(join_with("\xE6\x97\xA5\xE6\x9C\xAC"), c).ok());  // CJK
}

TEST(ClientCodec, ResumeTokensMustHaveTheIssuedSize) {
  for (std::size_t n : {1u, 15u, 17u, 64u}) {
    v1::ClientMessage m;
    m.mutable_join()->set_role(v1::ROLE_PLAYER);
    m.mutable_join()->set_display_name("p");
    m.mutable_join()->set_protocol_version(kProtocolVersion);
    m.mutable_join()->set_resume_token(std::string(n, 'k'));
    ClientCommand c;
    EXPECT_EQ(decode(serialize(m), c).status, Status::kBadToken) << n;
  }
}

TEST(ClientCodec, GarbageEmptyAndOversizedFramesAreRejected) {
  ClientCommand c;
  EXPECT_EQ(decode(std::string("\xff\xff\xff\xff", 4), c).status, Status::kMalformed);
  EXPECT_EQ(decode(std::string(), c).status, Status::kEmpty);  // valid encoding, no payload
  DecodeLimits limits;
  limits.max_message_bytes = 64;
  EXPECT_EQ(decode(std::string(65, '\0'), c, limits).status, Status::kTooBig);
  // A wrong wire type for a known field (string where a message is expected) is malformed.
  EXPECT_EQ(decode(std::string("\x0a\x03"
                               "abc",
                               5),
                   c)
                .status,
            Status::kMalformed);
}

TEST(ClientCodec, MutatedMessagesNeverCrashAndNeverYieldInvalidCommands) {
  // A cheap in-test fuzz (the libFuzzer target is tests/fuzz): valid messages with 1-4
  // random bytes overwritten. Whatever still decodes as usable must satisfy the invariants the
  // room relies on.
  std::vector<std::string> seeds(3);
  JoinRequest j;
  j.role = Role::kPlayer;
  j.display_name = "seed player";
  ASSERT_TRUE(encode_join(j, seeds[0]));
  const std::vector<InputFrame> frames{{1, 0.5, 0.5}, {2, -0.5, 1.0}, {3, 1.0, 0.0}};
  ASSERT_TRUE(encode_input(frames, seeds[1]));
  ASSERT_TRUE(encode_ping(99, seeds[2]));
  math::Rng rng = math::Rng::seeded(2024, 3);
  int usable = 0, rejected = 0;
  for (int iter = 0; iter < 30000; ++iter) {
    std::string s = seeds[static_cast<std::size_t>(iter % 3)];
    const int flips = rng.range(1, 4);
    for (int k = 0; k < flips; ++k)
      s[static_cast<std::size_t>(rng.range(0, static_cast<std::int32_t>(s.size()) - 1))] =
          static_cast<char>(rng.range(0, 255));
    ClientCommand c;
    const Result r = decode(s, c);
    if (!r.usable()) {
      ++rejected;
      EXPECT_FALSE(r.detail.empty());
      continue;
    }
    ++usable;
    if (c.type == ClientCommand::Type::kInput) {
      std::uint32_t prev = 0;
      for (const InputFrame& f : c.inputs) {
        EXPECT_TRUE(std::isfinite(f.turn) && f.turn >= -1 && f.turn <= 1);
        EXPECT_TRUE(std::isfinite(f.throttle) && f.throttle >= 0 && f.throttle <= 1);
        EXPECT_GT(f.sequence, prev);
        prev = f.sequence;
      }
    }
    if (c.type == ClientCommand::Type::kJoin) {
      EXPECT_TRUE(is_valid_utf8(c.join.display_name));
      EXPECT_FALSE(c.join.display_name.empty());
      EXPECT_LE(c.join.display_name.size(), 32u);
    }
  }
  // Both the accepting and the rejecting paths are exercised.
  EXPECT_GT(usable, 1000);
  EXPECT_GT(rejected, 1000);
}

TEST(ClientCodec, StatusNamesAreStable) {
  EXPECT_STREQ(to_string(Status::kMalformed), "malformed");
  EXPECT_STREQ(to_string(Status::kNotFinite), "not_finite");
  EXPECT_STREQ(to_string(Status::kClamped), "clamped");
}

TEST(ClientCodec, InspectCarriesAnyAgentIdAndZeroStops) {
  ClientCommand c;
  std::string bytes;
  ASSERT_TRUE(encode_inspect(0x1234567u, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.type, ClientCommand::Type::kInspect);
  EXPECT_EQ(c.inspect_id, 0x1234567u);
  bytes.clear();
  ASSERT_TRUE(encode_inspect(0, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.type, ClientCommand::Type::kInspect);
  EXPECT_EQ(c.inspect_id, 0u);
}

TEST(ClientCodec, AckCarriesTheTickAndAValidatedViewRectangle) {
  ClientCommand c;
  std::string bytes;
  ASSERT_TRUE(encode_ack(1234, nullptr, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.type, ClientCommand::Type::kAck);
  EXPECT_EQ(c.ack.snapshot_tick, 1234u);
  EXPECT_FALSE(c.ack.has_view);
  const ViewRect view{-5, 10, 95.5, 60};
  bytes.clear();
  ASSERT_TRUE(encode_ack(0, &view, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_EQ(c.ack.snapshot_tick, 0u);
  ASSERT_TRUE(c.ack.has_view);
  EXPECT_EQ(c.ack.view, view);
  // NaN and inverted rectangles are refused; a huge one is clamped around its centre.
  const ViewRect nan{0, std::nan(""), 1, 1}, inverted{10, 0, 0, 10}, huge{-1e9, 0, 1e9, 10};
  bytes.clear();
  ASSERT_TRUE(encode_ack(1, &nan, bytes));
  EXPECT_EQ(decode(bytes, c).status, Status::kNotFinite);
  bytes.clear();
  ASSERT_TRUE(encode_ack(1, &inverted, bytes));
  EXPECT_EQ(decode(bytes, c).status, Status::kMalformed);
  bytes.clear();
  ASSERT_TRUE(encode_ack(1, &huge, bytes));
  ASSERT_TRUE(decode(bytes, c).ok());
  EXPECT_DOUBLE_EQ(c.ack.view.max_x - c.ack.view.min_x, kMaxViewSideM);
  EXPECT_DOUBLE_EQ(c.ack.view.min_x + c.ack.view.max_x, 0);
}

}  // namespace
}  // namespace flockstep::codec
