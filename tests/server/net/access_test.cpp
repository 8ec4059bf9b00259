// Who may connect and administer: the Origin allow-list and the admin bearer token, checked
// before the upgrade against an in-process server on an OS-chosen port; and the diagnostics echo
// endpoint, off unless configured.
#include <gtest/gtest.h>

#include "net/admin_limiter.hpp"
#include "net_harness.hpp"

namespace flockstep::server::net {
namespace {

using namespace harness;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// Origin allow-list and admin token

TEST(Access, OriginOutsideTheAllowListGets403BeforeTheUpgrade) {
  Fixture fx([](config::Config& c) { c.allowed_origins = "https://game.example, http://localhost:8080"; });
  auto status = [&](const std::string& headers) {
    raw::Fd fd(raw::connect_tcp(fx.port()));
    return raw::http_exchange(fd.get(), raw::upgrade_request("/ws", headers));
  };
  EXPECT_EQ(status("Origin: https://evil.example\r\n"), 403);
  EXPECT_EQ(status("Origin: https://game.example.evil.example\r\n"), 403);
  EXPECT_EQ(status("Origin: null\r\n"), 403);
  EXPECT_EQ(status("Origin: https://game.example\r\n"), 101);
  EXPECT_EQ(status("Origin: HTTP://LOCALHOST:8080\r\n"), 101);
  EXPECT_EQ(status(""), 101) << "non-browser clients send no Origin";
  EXPECT_GE(fx.log().count("origin_refused"), 1u);
}

TEST(Access, WithoutAnAllowListOnlyTheServingOriginMayUpgrade) {
  Fixture fx;  // allowed_origins left at its default (empty): the Host header's origin only
  auto status = [&](const std::string& headers) {
    raw::Fd fd(raw::connect_tcp(fx.port()));
    return raw::http_exchange(fd.get(), raw::upgrade_request("/ws", headers));  // Host: 127.0.0.1
  };
  EXPECT_EQ(status("Origin: https://evil.example\r\n"), 403);
  EXPECT_EQ(status("Origin: http://127.0.0.1.evil.example\r\n"), 403);
  EXPECT_EQ(status("Origin: http://127.0.0.1:1\r\n"), 403);  // another port is another origin
  EXPECT_EQ(status("Origin: null\r\n"), 403);
  EXPECT_EQ(status("Origin: http://127.0.0.1\r\n"), 101);
  EXPECT_EQ(status(""), 101) << "non-browser clients send no Origin";
  EXPECT_GE(fx.log().count("origin_refused"), 3u);
  // Control: "*" is the old default, any origin.
  Fixture any([](config::Config& c) { c.allowed_origins = "*"; });
  raw::Fd fd(raw::connect_tcp(any.port()));
  EXPECT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request("/ws", "Origin: https://evil.example\r\n")), 101);
}

TEST(Access, OriginAndTokenChecksArePureFunctions) {
  EXPECT_FALSE(origin_allowed("https://a.example", "", "b.example"));  // empty list: the serving origin only
  EXPECT_TRUE(origin_allowed("https://a.example", "", "a.example"));
  EXPECT_TRUE(origin_allowed("http://A.example:8080", "", "a.example:8080"));
  EXPECT_FALSE(origin_allowed("http://a.example:8080", "", "a.example"));
  EXPECT_FALSE(origin_allowed("null", "", "null"));
  EXPECT_FALSE(origin_allowed("https://a.example", "", ""));
  EXPECT_TRUE(origin_allowed("", "", "a.example"));  // no Origin: not a browser
  EXPECT_TRUE(origin_allowed("https://a.example", "*", "b.example"));
  EXPECT_TRUE(origin_allowed("https://a.example", "https://b.example,https://a.example/", "b.example"));
  EXPECT_FALSE(origin_allowed("https://a.example.b", "https://a.example", "a.example.b"));
  EXPECT_FALSE(origin_allowed("https://a.exampl", "https://a.example", ""));
  EXPECT_TRUE(constant_time_equals("secret", "secret"));
  EXPECT_FALSE(constant_time_equals("secreT", "secret"));
  EXPECT_FALSE(constant_time_equals("secret-longer", "secret"));
  EXPECT_FALSE(constant_time_equals("secre", "secret"));
  EXPECT_FALSE(constant_time_equals("", "secret"));
  EXPECT_EQ(check_admin("Bearer secret", "secret"), AdminAuth::kAllowed);
  EXPECT_EQ(check_admin("bearer secret", "secret"), AdminAuth::kAllowed);
  EXPECT_EQ(check_admin("Bearer secret ", "secret"), AdminAuth::kDenied);
  EXPECT_EQ(check_admin("Basic c2VjcmV0", "secret"), AdminAuth::kDenied);
  EXPECT_EQ(check_admin("", "secret"), AdminAuth::kDenied);
  EXPECT_EQ(check_admin("Bearer ", ""), AdminAuth::kDisabled);
}

TEST(Access, AdminApiRequiresTheBearerTokenAndCanKick) {
  Fixture fx([](config::Config& c) { c.admin_token = "t0ken-for-tests"; });
  WsClient victim;
  join(victim, fx.port(), codec::Role::kSpectator, "victim");
  auto request = [&](const std::string& method, const std::string& target, const std::string& auth, std::string* body) {
    raw::Fd fd(raw::connect_tcp(fx.port()));
    std::string rest;
    const int code =
        raw::http_exchange(fd.get(),
                           method + " " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" +
                               (auth.empty() ? "" : "Authorization: " + auth + "\r\n") + "Content-Length: 0\r\n\r\n",
                           &rest);
    raw::wait_eof(fd.get(), 2s, &rest);
    if (body) *body = rest;
    return code;
  };
  std::string body;
  EXPECT_EQ(request("GET", "/api/admin/clients", "", nullptr), 401);
  EXPECT_EQ(request("GET", "/api/admin/clients", "Bearer wrong", nullptr), 401);
  EXPECT_EQ(request("GET", "/api/admin/clients", "Bearer t0ken-for-test", nullptr), 401);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=1", "Bearer nope", nullptr), 401);
  EXPECT_FALSE(victim.closed());
  ASSERT_EQ(request("GET", "/api/admin/clients", "Bearer t0ken-for-tests", &body), 200);
  EXPECT_NE(body.find("\"name\":\"victim\""), std::string::npos) << body;
  const auto at = body.find("\"conn\":");
  ASSERT_NE(at, std::string::npos) << body;
  const std::string conn = std::to_string(std::atoll(body.c_str() + at + 7));
  EXPECT_EQ(request("GET", "/api/admin/kick?conn=" + conn, "Bearer t0ken-for-tests", nullptr), 405);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=abc", "Bearer t0ken-for-tests", nullptr), 400);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=999999", "Bearer t0ken-for-tests", nullptr), 404);
  EXPECT_EQ(request("POST", "/api/admin/kick?conn=" + conn, "Bearer t0ken-for-tests", nullptr), 200);
  ASSERT_TRUE(victim.wait_closed(3s));
  EXPECT_NE(victim.close_reason().find("kicked"), std::string::npos);
  EXPECT_GE(fx.log().count("admin_denied"), 1u);
}

TEST(Access, FailedAdminAttemptsAreRateLimitedPerAddressCountedAndLogged) {
  // Behind a trusted proxy (loopback) so two clients have two addresses.
  Fixture fx([](config::Config& c) {
    c.admin_token = "t0ken-for-tests";
    c.trusted_proxies = "127.0.0.1";
  });
  auto request = [&](const std::string& client, const std::string& auth) {
    raw::Fd fd(raw::connect_tcp(fx.port()));
    return raw::http_exchange(fd.get(),
                              "GET /api/admin/clients HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                              "X-Forwarded-For: " +
                                  client + "\r\nAuthorization: " + auth + "\r\n\r\n");
  };
  for (std::uint32_t i = 0; i < kAdminFailuresPerWindow; ++i)
    EXPECT_EQ(request("203.0.113.5", "Bearer guess-" + std::to_string(i)), 401) << i;
  EXPECT_EQ(request("203.0.113.5", "Bearer guess-more"), 429);
  EXPECT_EQ(request("203.0.113.5", "Bearer t0ken-for-tests"), 429) << "a right guess must not show";
  // Another address is not affected; its right token works.
  EXPECT_EQ(request("198.51.100.7", "Bearer t0ken-for-tests"), 200);
  // An IPv6 client is one /64: another address in the same /64 is limited with it.
  for (std::uint32_t i = 0; i < kAdminFailuresPerWindow; ++i) request("2001:db8:1:2::a", "Bearer nope");
  EXPECT_EQ(request("2001:db8:1:2::ffff", "Bearer t0ken-for-tests"), 429);
  EXPECT_EQ(request("2001:db8:1:3::a", "Bearer t0ken-for-tests"), 200);
  EXPECT_EQ(fx.metrics().admin_auth_failed.value(), 2u * kAdminFailuresPerWindow);
  EXPECT_EQ(fx.metrics().admin_auth_limited.value(), 3u);
  EXPECT_GE(fx.log().count("admin_rate_limited"), 1u) << fx.log().text();
  EXPECT_NE(fx.log().text().find("address=203.0.113.5"), std::string::npos);
}

TEST(Access, AdminLimiterWindowEndsAndItsMemoryIsBounded) {
  AdminLimiter limiter;
  const auto t0 = AdminLimiter::Clock::now();
  for (std::uint32_t i = 0; i + 1 < kAdminFailuresPerWindow; ++i) limiter.failed("a", t0);
  EXPECT_FALSE(limiter.limited("a", t0));
  limiter.failed("a", t0 + 1s);
  EXPECT_TRUE(limiter.limited("a", t0 + 1s));
  EXPECT_FALSE(limiter.limited("b", t0 + 1s));
  EXPECT_TRUE(limiter.limited("a", t0 + kAdminFailureWindow - 1s));
  EXPECT_FALSE(limiter.limited("a", t0 + kAdminFailureWindow));  // the window began at the first failure
  limiter.failed("a", t0 + kAdminFailureWindow);                 // a new window
  EXPECT_FALSE(limiter.limited("a", t0 + kAdminFailureWindow));
  for (std::size_t i = 0; i < kAdminFailureAddresses + 100; ++i) limiter.failed("x" + std::to_string(i), t0);
  EXPECT_LE(limiter.tracked(), kAdminFailureAddresses);
}

TEST(Access, AdminTokenIsNeverPrintedInTheEffectiveConfiguration) {
  const auto loaded =
      config::load({"--admin-token=super-secret-value"}, [](const char*) -> const char* { return nullptr; });
  EXPECT_EQ(loaded.config.admin_token, "super-secret-value");
  const std::string dump = config::describe(loaded);
  EXPECT_EQ(dump.find("super-secret-value"), std::string::npos) << dump;
  EXPECT_NE(dump.find("admin_token = (set)"), std::string::npos) << dump;
  EXPECT_NE(config::help_text().find("--admin-token"), std::string::npos);
  EXPECT_NE(config::help_text().find("--allowed-origins"), std::string::npos);
  EXPECT_NE(config::help_text().find("--echo-endpoint"), std::string::npos);
}

TEST(Access, AdminApiDoesNotExistWithoutAToken) {
  Fixture fx;
  raw::Fd fd(raw::connect_tcp(fx.port()));
  EXPECT_EQ(
      raw::http_exchange(fd.get(), "GET /api/admin/clients HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \r\n\r\n"),
      404);
}

// ---------------------------------------------------------------------------------------------
// Diagnostics echo

TEST(Echo, EchoEndpointIsOffByDefaultAndEchoesBothFrameTypesWhenOn) {
  {
    Fixture off;
    raw::Fd fd(raw::connect_tcp(off.port()));
    EXPECT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request("/echo")), 404);
  }
  Fixture fx([](config::Config& c) { c.echo_endpoint = "on"; });
  WsClient c;
  ASSERT_TRUE(c.connect("127.0.0.1", fx.port(), "/echo")) << c.error();
  std::string got;
  const std::string binary("\x00\x01\xfe\xff binary", 11);
  ASSERT_TRUE(c.send(binary));
  ASSERT_EQ(c.receive(got, 3s), Receive::kMessage);
  EXPECT_EQ(got, binary);
  ASSERT_TRUE(c.send("h\xc3\xa9llo text", true));
  ASSERT_EQ(c.receive(got, 3s), Receive::kMessage);
  EXPECT_EQ(got, "h\xc3\xa9llo text");
  const std::string big(1 << 20, 'z');  // far above max_message_bytes of /ws
  ASSERT_TRUE(c.send(big));
  ASSERT_EQ(c.receive(got, 5s), Receive::kMessage);
  EXPECT_EQ(got.size(), big.size());
  // Raw: a fragmented text message comes back whole; invalid UTF-8 in a text frame is 1007.
  raw::Fd fd(raw::connect_tcp(fx.port()));
  std::string buf;
  ASSERT_EQ(raw::http_exchange(fd.get(), raw::upgrade_request("/echo"), &buf), 101);
  raw::send_all(fd.get(), raw::frame(0x1, "frag", false) + raw::frame(0x0, "mented"));
  const auto deadline = Clock::now() + 3s;
  std::optional<raw::ServerFrame> f;
  while (!(f = raw::pop_frame(buf)) && Clock::now() < deadline) raw::read_some(fd.get(), buf, 20ms);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 0x1);
  EXPECT_EQ(f->payload, "fragmented");
  raw::send_all(fd.get(), raw::frame(0x1, "\xff\xfe"));
  EXPECT_EQ(raw::read_close_code(fd.get(), buf, 3s), 1007);
  c.close();
}

}  // namespace
}  // namespace flockstep::server::net
