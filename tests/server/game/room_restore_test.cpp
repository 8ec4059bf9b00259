// Saved rooms restored: a room continues bit for bit, players resume their craft and score, a
// file that does not fit the room is refused and the room stays fresh, bots drive on.
#include "room_test_util.hpp"

namespace flockstep::server::game {
namespace {

using namespace room_test;

const v1::Score* last_score(const FakeSink& sink, std::uint32_t player_id) {
  const v1::Score* out = nullptr;
  for (const auto& m : sink.messages)
    if (m.has_events())
      for (const auto& s : m.events().scores())
        if (s.player_id() == player_id) out = &s;
  return out;
}

/// A room's state as it comes back from a file (bytes, not the object).
v1::RoomState through_bytes(const v1::RoomState& state) {
  v1::RoomState back;
  EXPECT_EQ(decode_room_state(encode_room_state(state), back), "");
  return back;
}

TEST(RoomState, RestoredRoomContinuesBitForBitAndPlayersResumeTheirCraftAndScore) {
  Room a(config(), hunt_world(), nullptr, nullptr);
  auto prey = std::make_shared<FakeSink>();
  a.join(1, prey, player("prey"));
  auto other = std::make_shared<FakeSink>();
  a.join(2, other, player("other"));
  const v1::Welcome w = *prey->welcome();
  for (int t = 0; t < 60 * 30 && prey->count_captures() == 0; ++t) a.tick();
  ASSERT_EQ(prey->count_captures(), 1) << "the chaser caught nobody: no score to keep";
  for (int t = 0; t < 90; ++t) a.tick();
  const v1::Score* before = last_score(*prey, w.player_id());
  ASSERT_NE(before, nullptr);
  ASSERT_EQ(before->captures(), 1u);
  const std::uint64_t best = before->best_ticks();
  // The SIGTERM path: the sessions end (leave), then the room is saved.
  a.leave(1);
  a.leave(2);
  const v1::RoomState saved = through_bytes(a.save_state());
  EXPECT_EQ(saved.tick(), a.current_tick());
  EXPECT_EQ(saved.players_size(), 2);

  Room b(config(), hunt_world(), nullptr, nullptr);
  ASSERT_EQ(b.restore(saved), "");
  EXPECT_EQ(b.current_tick(), a.current_tick());
  EXPECT_EQ(b.world().state_hash(), a.world().state_hash());
  EXPECT_EQ(b.player_count(), 2u);
  EXPECT_EQ(b.connected_players(), 0u);
  // Both rooms step on identically (the crafts coast, as they would after a disconnect).
  for (int t = 0; t < 120; ++t) {
    a.tick();
    b.tick();
    ASSERT_EQ(b.world().state_hash(), a.world().state_hash()) << "tick " << b.current_tick();
  }
  // The prey resumes with its token: the same craft, player id and score.
  auto back = std::make_shared<FakeSink>();
  b.join(7, back, player("prey again", w.resume_token()));
  ASSERT_NE(back->welcome(), nullptr) << back->close_detail;
  EXPECT_EQ(back->welcome()->entity_id(), w.entity_id());
  EXPECT_EQ(back->welcome()->player_id(), w.player_id());
  EXPECT_EQ(b.entity_of(7).value, w.entity_id());
  for (int t = 0; t < 61; ++t) b.tick();
  const v1::Score* after = last_score(*back, w.player_id());
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->captures(), 1u);
  EXPECT_GE(after->best_ticks(), best);
  EXPECT_EQ(after->display_name(), "prey again");
  // A token that was never issued stays refused.
  auto stranger = std::make_shared<FakeSink>();
  b.join(8, stranger, player("x", std::string(codec::kResumeTokenBytes, '\x5a')));
  EXPECT_TRUE(stranger->closed);
  EXPECT_EQ(stranger->close_reason, CloseReason::kBadResume);
}

TEST(RoomState, ASavedRoomThatDoesNotFitIsRefusedAndTheRoomStaysFresh) {
  Room a(config(), calm_world(), nullptr, nullptr);
  auto sink = std::make_shared<FakeSink>();
  a.join(1, sink, player("p"));
  for (int t = 0; t < 30; ++t) a.tick();
  const v1::RoomState good = a.save_state();
  const std::string token = sink->welcome()->resume_token();

  struct Case {
    const char* what;
    std::function<void(v1::RoomState&)> spoil;
    const char* error;
  };
  const Case cases[] = {
      {"corrupt world bytes",
       [](v1::RoomState& s) {
         std::string w = s.world_state();
         for (std::size_t i = w.size() / 3; i < w.size(); i += 7) w[i] = static_cast<char>(w[i] ^ 0x5a);
         s.set_world_state(w);
       },
       "world_state"},
      {"truncated world",
       [](v1::RoomState& s) { s.set_world_state(s.world_state().substr(0, s.world_state().size() / 2)); },
       "world_state"},
      {"another room", [](v1::RoomState& s) { s.set_room("elsewhere"); }, "room"},
      {"another tick rate", [](v1::RoomState& s) { s.set_tick_rate_hz(30); }, "tick_rate_hz"},
      {"hash of another world", [](v1::RoomState& s) { s.set_state_hash(s.state_hash() ^ 1); }, "state_hash"},
      {"a player without a craft", [](v1::RoomState& s) { s.mutable_players(0)->set_entity_id(999999); }, "entity_id"},
      {"a short token", [](v1::RoomState& s) { s.mutable_players(0)->set_resume_token("abc"); }, "resume_token"},
  };
  for (const Case& c : cases) {
    v1::RoomState bad = good;
    c.spoil(bad);
    Room b(config(), calm_world(), nullptr, nullptr);
    const std::uint64_t fresh_hash = b.world().state_hash();
    const std::string why = b.restore(bad);
    EXPECT_NE(why.find(c.error), std::string::npos) << c.what << ": " << why;
    // Untouched: tick 0, the fresh world, nobody's token.
    EXPECT_EQ(b.current_tick(), 0u) << c.what;
    EXPECT_EQ(b.world().state_hash(), fresh_hash) << c.what;
    EXPECT_EQ(b.player_count(), 0u) << c.what;
    auto s = std::make_shared<FakeSink>();
    b.join(3, s, player("p", token));
    EXPECT_EQ(s->close_reason, CloseReason::kBadResume) << c.what;
  }
  // Control: the unspoiled state restores, and the same token is accepted.
  Room b(config(), calm_world(), nullptr, nullptr);
  ASSERT_EQ(b.restore(good), "");
  auto s = std::make_shared<FakeSink>();
  b.join(3, s, player("p", token));
  EXPECT_FALSE(s->closed) << s->close_detail;
  EXPECT_EQ(b.current_tick(), 30u);
}

TEST(RoomState, RestoredBotsKeepTheirCraftsAndDriveOnIdentically) {
  RoomConfig c = config();
  c.bots = 2;
  Room a(c, calm_world(), nullptr, nullptr);
  for (int t = 0; t < 100; ++t) a.tick();
  Room b(c, calm_world(), nullptr, nullptr);
  ASSERT_EQ(b.restore(through_bytes(a.save_state())), "");
  EXPECT_EQ(b.player_count(), 2u);
  for (int t = 0; t < 300; ++t) {
    a.tick();
    b.tick();
  }
  EXPECT_EQ(b.world().state_hash(), a.world().state_hash()) << "the bots' generators were not restored";
}

}  // namespace
}  // namespace flockstep::server::game
