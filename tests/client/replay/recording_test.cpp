// index_recording: a recording's records are indexed by type and tick, decoding starts at the
// first keyframe, a torn tail is ignored, and anything else that is not a recording is refused
// with a message.
#include "replay/recording.hpp"

#include "codec/client_codec.hpp"

#include <gtest/gtest.h>

namespace flockstep::client {
namespace {

void append(std::vector<std::uint8_t>& file, const std::string& msg) {
  const auto n = static_cast<std::uint32_t>(msg.size());
  for (int i = 0; i < 4; ++i) file.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  file.insert(file.end(), msg.begin(), msg.end());
}

std::string welcome() {
  sim::Scenario s;
  s.name = "rec";
  codec::WelcomeInfo info;
  info.room = "rec";
  std::string out;
  codec::encode_welcome(info, s, out);
  return out;
}

std::string snapshot(std::uint64_t tick, std::uint64_t baseline) {
  v1::ServerMessage m;
  m.mutable_delta_snapshot()->set_server_tick(tick);
  m.mutable_delta_snapshot()->set_baseline_tick(baseline);
  return m.SerializeAsString();
}

std::vector<std::uint8_t> header() { return {'F', 'S', 'R', 'E', 'C', '0', '0', '1'}; }

TEST(Recording, IndexesRecordsFromTheFirstKeyframe) {
  std::vector<std::uint8_t> f = header();
  append(f, welcome());
  append(f, snapshot(10, 7));  // a delta before any keyframe cannot be decoded: not the start
  append(f, snapshot(20, 0));  // keyframe
  append(f, snapshot(23, 20));
  append(f, snapshot(26, 23));
  f.insert(f.end(), {3, 0});  // torn length of a record being written
  const RecordingIndex idx = index_recording(f);
  ASSERT_TRUE(idx.error.empty()) << idx.error;
  ASSERT_EQ(idx.records.size(), 5u);
  EXPECT_EQ(idx.records[0].type, v1::ServerMessage::kWelcome);
  EXPECT_EQ(idx.welcome.room(), "rec");
  EXPECT_TRUE(idx.records[2].keyframe);
  EXPECT_FALSE(idx.records[3].keyframe);
  EXPECT_EQ(idx.first_tick, 20u);
  EXPECT_EQ(idx.last_tick, 26u);
  EXPECT_EQ(idx.records[4].tick, 26u);
}

TEST(Recording, RefusesWhatIsNotARecording) {
  EXPECT_NE(index_recording(std::vector<std::uint8_t>{'n', 'o', 'p', 'e'}).error.find("FSREC001"), std::string::npos);
  std::vector<std::uint8_t> f = header();
  EXPECT_EQ(index_recording(f).error, "the recording is empty");
  append(f, snapshot(20, 0));
  EXPECT_EQ(index_recording(f).error, "the first record is not a Welcome");
  f = header();
  append(f, welcome());
  append(f, snapshot(21, 20));
  EXPECT_EQ(index_recording(f).error, "the recording has no keyframe snapshot");
  append(f, welcome());
  EXPECT_NE(index_recording(f).error.find("a second Welcome"), std::string::npos);
}

TEST(Recording, ARecordingOfAnotherProtocolIsRefusedBeforeItsSnapshotsAreRead) {
  // The same file with the Welcome's protocol_version of the previous and of the next revision:
  // their delta snapshots have another bit layout, which would decode into wrong agents.
  for (const std::uint32_t version : {codec::kProtocolVersion - 1, codec::kProtocolVersion + 1}) {
    v1::ServerMessage w;
    ASSERT_TRUE(w.ParseFromString(welcome()));
    w.mutable_welcome()->set_protocol_version(version);
    std::vector<std::uint8_t> f = header();
    append(f, w.SerializeAsString());
    append(f, snapshot(20, 0));
    const RecordingIndex idx = index_recording(f);
    EXPECT_NE(idx.error.find("recorded with protocol " + std::to_string(version)), std::string::npos) << idx.error;
    EXPECT_NE(idx.error.find("reads protocol " + std::to_string(codec::kProtocolVersion)), std::string::npos);
    EXPECT_TRUE(idx.records.empty());
  }
  // Control: the current revision is read.
  std::vector<std::uint8_t> f = header();
  append(f, welcome());
  append(f, snapshot(20, 0));
  EXPECT_TRUE(index_recording(f).error.empty()) << index_recording(f).error;
}

}  // namespace
}  // namespace flockstep::client
