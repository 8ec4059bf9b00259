// Reconnect and resume: a player whose connection drops gets the same craft back with its resume
// token within the window, and a forged, stolen or expired token creates nothing.
#include <gtest/gtest.h>

#include "net_harness.hpp"

namespace flockstep::server::net {
namespace {

using namespace harness;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// Reconnect and resume

/// Join as a player over a raw socket (so the test can drop TCP without any close); the Welcome.
v1::Welcome raw_join(raw::Fd& fd, std::uint16_t port, const std::string& name, const std::string& token = {}) {
  fd = raw::Fd(raw::connect_tcp(port));
  std::string buf;
  EXPECT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request(), &buf), 101);
  raw::send_all(fd.get(), raw::frame(0x2, join_bytes(codec::Role::kPlayer, name, token)));
  const auto deadline = Clock::now() + 3s;
  while (Clock::now() < deadline) {
    while (auto f = raw::pop_frame(buf)) {
      v1::ServerMessage m;
      if (f->opcode == 0x2 && codec::decode_server_message(bytes_of(f->payload), m).ok() && m.has_welcome())
        return m.welcome();
    }
    if (!raw::read_some(fd.get(), buf, 20ms)) break;
  }
  ADD_FAILURE() << "no Welcome";
  return {};
}

/// A spectator that decodes the snapshot stream like the viewer does.
struct Watcher {
  WsClient ws;
  codec::SnapshotReceiver receiver;
  explicit Watcher(std::uint16_t port) {
    const v1::Welcome w = join(ws, port, codec::Role::kSpectator, "watcher");
    sim::Scenario scenario;
    EXPECT_TRUE(codec::decode_world_spec(w.world(), scenario).ok());
    receiver.configure(scenario);
  }
  /// A snapshot sent after this call, decoded (older ones queued in the client are skipped);
  /// false if none arrived.
  bool next() {
    std::string bytes;
    while (ws.receive(bytes, 1ms) == Receive::kMessage) {
    }
    v1::ServerMessage m;
    if (!next_of(ws, kSnap, m)) return false;
    return receiver.receive(m).ok();
  }
  /// Player crafts in the newest snapshot; `found` gets the one with `id`, if present.
  int count_players(std::uint32_t id, std::optional<sim::AgentView>* found) const {
    int n = 0;
    for (const sim::AgentView& a : receiver.agents()) {
      n += a.kind == sim::AgentKind::kPlayer;
      if (a.id.value == id && found) *found = a;
    }
    return n;
  }
};

TEST(Resume, DroppedPlayerResumesTheSameCraftWithinTheWindowAndGetsANewOneAfterIt) {
  Fixture fx([](config::Config& c) { c.resume_window_ms = 1200; });
  Watcher watcher(fx.port());
  raw::Fd first;
  const v1::Welcome w1 = raw_join(first, fx.port(), "ada");
  ASSERT_NE(w1.entity_id(), 0u);
  ASSERT_EQ(w1.resume_token().size(), codec::kResumeTokenBytes);
  std::optional<sim::AgentView> craft;
  ASSERT_TRUE(watcher.next());
  ASSERT_TRUE(watcher.next());
  ASSERT_EQ(watcher.count_players(w1.entity_id(), &craft), 1);
  ASSERT_TRUE(craft);
  const std::uint64_t spawn_tick = craft->spawn_tick;

  first.abort();  // TCP reset mid-game: no close frame, no goodbye
  std::this_thread::sleep_for(200ms);
  // Forged token: refused, and it creates nothing.
  const std::string forged(codec::kResumeTokenBytes, '\x42');
  WsClient forger;
  ASSERT_TRUE(forger.connect("127.0.0.1", fx.port()));
  forger.send(join_bytes(codec::Role::kPlayer, "forger", forged));
  ASSERT_TRUE(forger.wait_closed(3s));
  EXPECT_EQ(forger.close_code(), 1008);
  EXPECT_NE(forger.close_reason().find("unknown"), std::string::npos) << forger.close_reason();

  // Resume within the window: same craft, same life, and the first snapshot is a full one.
  WsClient back;
  const v1::Welcome w2 = join(back, fx.port(), codec::Role::kPlayer, "ada", w1.resume_token());
  EXPECT_EQ(w2.entity_id(), w1.entity_id());
  v1::ServerMessage m;
  ASSERT_TRUE(next_of(back, kSnap, m));
  EXPECT_EQ(m.delta_snapshot().baseline_tick(), 0u) << "full snapshot on resume";
  EXPECT_EQ(m.player().own().id(), w1.entity_id());
  EXPECT_EQ(m.player().own().spawn_tick(), spawn_tick) << "state continues: the same life, not a respawn";
  ASSERT_TRUE(watcher.next());
  EXPECT_EQ(watcher.count_players(w1.entity_id(), &craft), 1) << "never a duplicate craft";

  // Reusing the (new) token while its owner is connected is refused.
  WsClient thief;
  ASSERT_TRUE(thief.connect("127.0.0.1", fx.port()));
  thief.send(join_bytes(codec::Role::kPlayer, "thief", w2.resume_token()));
  ASSERT_TRUE(thief.wait_closed(3s));
  EXPECT_EQ(thief.close_code(), 1008);
  EXPECT_NE(thief.close_reason().find("in use"), std::string::npos) << thief.close_reason();
  EXPECT_FALSE(back.closed());

  // Drop again and wait past the window: the token is dead and the craft is gone.
  back.close();
  std::this_thread::sleep_for(1800ms);
  WsClient late;
  ASSERT_TRUE(late.connect("127.0.0.1", fx.port()));
  late.send(join_bytes(codec::Role::kPlayer, "ada", w2.resume_token()));
  ASSERT_TRUE(late.wait_closed(3s));
  EXPECT_EQ(late.close_code(), 1008);
  WsClient fresh;
  const v1::Welcome w3 = join(fresh, fx.port(), codec::Role::kPlayer, "ada");
  EXPECT_NE(w3.entity_id(), 0u);
  EXPECT_NE(w3.entity_id(), w1.entity_id());
  ASSERT_TRUE(watcher.next());
  ASSERT_TRUE(watcher.next());
  craft.reset();
  EXPECT_EQ(watcher.count_players(w3.entity_id(), &craft), 1) << "exactly one craft: the new one";
  EXPECT_TRUE(craft);
  craft.reset();
  watcher.count_players(w1.entity_id(), &craft);
  EXPECT_FALSE(craft) << "the old craft left the world";
}

/// Join `token` back as a player on a new connection: the Welcome, or nullopt when refused
/// (`reason` gets the close reason).
std::optional<v1::Welcome> try_resume(std::uint16_t port, const std::string& token, std::string* reason = nullptr) {
  WsClient ws;
  EXPECT_TRUE(ws.connect("127.0.0.1", port));
  ws.send(join_bytes(codec::Role::kPlayer, "back", token));
  v1::ServerMessage m;
  if (next_of(ws, v1::ServerMessage::kWelcome, m)) return m.welcome();
  EXPECT_TRUE(ws.wait_closed(3s));
  if (reason) *reason = ws.close_reason();
  return std::nullopt;
}

/// End a raw connection the way `how` says (a close as a browser does it: the frame, the
/// server's answer, then FIN), then give the server time to see it.
enum class Leave { kTcpReset, kClose1001, kClose1000, kCloseMessage };
void leave(raw::Fd& fd, Leave how) {
  switch (how) {
    case Leave::kTcpReset: fd.abort(); break;
    case Leave::kClose1001: raw::send_all(fd.get(), raw::close_frame(1001)); break;
    case Leave::kClose1000: raw::send_all(fd.get(), raw::close_frame(1000)); break;
    case Leave::kCloseMessage: {
      v1::ClientMessage m;
      m.mutable_close()->set_code(v1::Close::CODE_NORMAL);
      raw::send_all(fd.get(), raw::frame(0x2, m.SerializeAsString()));
      break;
    }
  }
  if (how != Leave::kTcpReset) {
    std::string buf;
    raw::read_close_code(fd.get(), buf, 2s);
    fd.reset();
  }
  std::this_thread::sleep_for(300ms);
}

TEST(Resume, EveryResumeRotatesTheTokenAndTheOneUsedIsDeadFromThen) {
  Fixture fx([](config::Config& c) { c.resume_window_ms = 20000; });
  raw::Fd first;
  const v1::Welcome w1 = raw_join(first, fx.port(), "ada");
  ASSERT_EQ(w1.resume_token().size(), codec::kResumeTokenBytes);
  leave(first, Leave::kTcpReset);

  raw::Fd back;
  const v1::Welcome w2 = raw_join(back, fx.port(), "ada", w1.resume_token());
  ASSERT_EQ(w2.entity_id(), w1.entity_id()) << "resumed the same craft";
  ASSERT_EQ(w2.resume_token().size(), codec::kResumeTokenBytes);
  EXPECT_NE(w2.resume_token(), w1.resume_token()) << "the Welcome of a resume carries a new token";
  leave(back, Leave::kTcpReset);

  // The token used for the resume is dead although the window still runs; the new one works.
  std::string why;
  EXPECT_FALSE(try_resume(fx.port(), w1.resume_token(), &why)) << "an old token took the craft back";
  EXPECT_NE(why.find("unknown"), std::string::npos) << why;
  const auto w3 = try_resume(fx.port(), w2.resume_token());
  ASSERT_TRUE(w3) << "the rotated token is refused";
  EXPECT_EQ(w3->entity_id(), w1.entity_id());
  EXPECT_NE(w3->resume_token(), w2.resume_token());
}

TEST(Resume, ADeliberateLeaveEndsTheTokenAndALostConnectionKeepsIt) {
  Fixture fx([](config::Config& c) { c.resume_window_ms = 20000; });
  // Control first: a dropped TCP connection and a "going away" close (a tab closed, a network
  // change) keep the craft for the resume window.
  for (const Leave how : {Leave::kTcpReset, Leave::kClose1001}) {
    raw::Fd fd;
    const v1::Welcome w = raw_join(fd, fx.port(), "kept");
    leave(fd, how);
    std::string why;
    const auto back = try_resume(fx.port(), w.resume_token(), &why);
    EXPECT_TRUE(back) << "a lost connection ended the session (" << static_cast<int>(how) << "): " << why;
    if (back) {
      EXPECT_EQ(back->entity_id(), w.entity_id());
    }
  }
  // The client's Close message and a close 1000 it starts end the session: the token is dead at
  // once (well inside the window) and the craft has left.
  for (const Leave how : {Leave::kCloseMessage, Leave::kClose1000}) {
    raw::Fd fd;
    const v1::Welcome w = raw_join(fd, fx.port(), "quits");
    leave(fd, how);
    std::string why;
    EXPECT_FALSE(try_resume(fx.port(), w.resume_token(), &why))
        << "the token outlived a deliberate leave (" << static_cast<int>(how) << ")";
    EXPECT_NE(why.find("unknown"), std::string::npos) << static_cast<int>(how) << ": " << why;
  }
}

}  // namespace
}  // namespace flockstep::server::net
