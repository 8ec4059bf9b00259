// Who the client is behind a reverse proxy (trusted_proxies, X-Forwarded-For / Forwarded) as
// the admin API and the per-address session limit see it, and what an oversized request gets
// (431, 413): an in-process server on an OS-chosen loopback port, raw sockets as clients.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "config/trusted_proxies.hpp"
#include "net/client_address.hpp"
#include "net_harness.hpp"

namespace flockstep::server::net {
namespace {

using namespace harness;
using namespace std::chrono_literals;

constexpr const char* kAdmin = "Bearer proxy-test-token";

/// The admin clients list, with this file's token.
nlohmann::json admin_clients(std::uint16_t port) { return harness::admin_clients(port, kAdmin); }

/// A WebSocket upgrade carrying `headers` (lines ending in \r\n); the HTTP status it got. The
/// socket stays open in `fd` (an upgraded session lives until the test closes it).
int upgrade(std::uint16_t port, const std::string& headers, raw::Fd& fd) {
  fd = raw::Fd(raw::connect_tcp(port));
  return raw::http_exchange(fd.get(), raw::upgrade_request("/ws", headers));
}

/// The client addresses the admin API lists, in connection order.
std::vector<std::string> listed_addresses(std::uint16_t port) {
  std::vector<std::string> out;
  for (const auto& c : admin_clients(port)) out.push_back(c.value("address", std::string("(missing)")));
  return out;
}

/// Poll until the admin API lists `n` sessions (a closed socket's session goes away asynchronously).
bool wait_sessions(std::uint16_t port, std::size_t n) {
  for (int i = 0; i < 150; ++i) {
    if (admin_clients(port).size() == n) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Over loopback

/// The status a fresh connection is answered with before it sends anything (the listener refuses
/// an address over its limit at once, with a canned 429); 0 when nothing arrives.
int status_at_accept(std::uint16_t port) {
  raw::Fd fd(raw::connect_tcp(port));
  std::string got;
  const auto deadline = Clock::now() + 2s;
  while (got.find("\r\n\r\n") == std::string::npos && Clock::now() < deadline)
    if (!raw::read_some(fd.get(), got, 50ms) && got.empty()) std::this_thread::sleep_for(5ms);
  return got.size() >= 12 && got.compare(0, 5, "HTTP/") == 0 ? std::atoi(got.substr(9, 3).c_str()) : 0;
}

/// Poll until the server counts `n` open connections (a closed socket goes away asynchronously).
bool wait_connections(Fixture& fx, std::int64_t n) {
  for (int i = 0; i < 150 && fx.metrics().connections.value() != n; ++i) std::this_thread::sleep_for(20ms);
  return fx.metrics().connections.value() == n;
}

TEST(TrustedProxies, SpoofedForwardingHeadersFromAnUntrustedPeerAreIgnored) {
  // No trusted proxies (the default): both headers are the client's own claim.
  Fixture fx([](config::Config& c) {
    c.admin_token = "proxy-test-token";
    c.max_sessions_per_address = 2;
  });
  const std::string spoofed = "X-Forwarded-For: 198.51.100.9\r\nForwarded: for=198.51.100.10\r\n";
  raw::Fd first, second;
  ASSERT_EQ(upgrade(fx.port(), "X-Forwarded-For: 203.0.113.7\r\n", first), 101);
  const auto clients = admin_clients(fx.port());
  ASSERT_EQ(clients.size(), 1u);
  EXPECT_EQ(clients[0]["address"], "127.0.0.1");
  EXPECT_EQ(clients[0]["remote"].get<std::string>().rfind("127.0.0.1:", 0), 0u) << clients[0];
  ASSERT_TRUE(wait_connections(fx, 1));
  // Naming other addresses in both headers does not buy a connection past the per-address limit.
  ASSERT_EQ(upgrade(fx.port(), spoofed, second), 101);
  // The third connection is refused when accepted, before any header could be read.
  EXPECT_EQ(status_at_accept(fx.port()), 429);
  EXPECT_GE(fx.log().count("address_limit address=127.0.0.1"), 1u) << fx.log().text();
  EXPECT_EQ(fx.log().count("203.0.113.7"), 0u) << fx.log().text();
  EXPECT_EQ(fx.log().count("198.51.100."), 0u) << fx.log().text();
  EXPECT_GE(fx.metrics().address_limit_refused.value(), 1u);
}

TEST(TrustedProxies, PlainHttpConnectionsCountTowardsTheAddressLimit) {
  Fixture fx([](config::Config& c) { c.max_sessions_per_address = 3; });
  std::vector<raw::Fd> idle;  // keep-alive HTTP connections that sent nothing yet
  for (int i = 0; i < 3; ++i) idle.emplace_back(raw::connect_tcp(fx.port()));
  ASSERT_TRUE(wait_connections(fx, 3));
  EXPECT_EQ(status_at_accept(fx.port()), 429);
  EXPECT_EQ(fx.metrics().address_limit_refused.value(), 1u);
  // A closed connection gives its count back.
  idle.pop_back();
  ASSERT_TRUE(wait_connections(fx, 2));
  raw::Fd again(raw::connect_tcp(fx.port()));
  EXPECT_EQ(raw::http_exchange(again.get(), "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"), 200);
}

TEST(TrustedProxies, TheAddressLimitIsOnByDefault) {
  config::Config c;
  EXPECT_GT(c.max_sessions_per_address, 0u);
  EXPECT_EQ(c.forwarded_header, "X-Forwarded-For");
}

TEST(TrustedProxies, TrustedPeerNamesTheClientForTheAdminApiAndThePerAddressLimit) {
  Fixture fx([](config::Config& c) {
    c.admin_token = "proxy-test-token";
    c.trusted_proxies = "10.0.0.0/8, 127.0.0.1";
    c.max_sessions_per_address = 1;
  });
  raw::Fd a, b, c, d, e;
  ASSERT_EQ(upgrade(fx.port(), "X-Forwarded-For: 203.0.113.7\r\n", a), 101);
  ASSERT_TRUE(wait_sessions(fx.port(), 1));
  // The same client through the proxy again: over its limit of one connection.
  EXPECT_EQ(upgrade(fx.port(), "X-Forwarded-For: 203.0.113.7\r\n", b), 429);
  // Another client through the same proxy is its own address: allowed. The left-most entry is
  // what that client claimed; the right-most untrusted one (after a trusted 10.x hop) counts.
  ASSERT_EQ(upgrade(fx.port(), "X-Forwarded-For: 192.0.2.99, 198.51.100.4, 10.1.2.3\r\n", c), 101);
  // An IPv6 node with a port.
  ASSERT_EQ(upgrade(fx.port(), "X-Forwarded-For: [2001:db8::5]:4711\r\n", d), 101);
  ASSERT_TRUE(wait_sessions(fx.port(), 3));
  EXPECT_EQ(listed_addresses(fx.port()), (std::vector<std::string>{"203.0.113.7", "198.51.100.4", "2001:db8::5"}));
  for (const auto& client : admin_clients(fx.port()))
    EXPECT_EQ(client["remote"].get<std::string>().rfind("127.0.0.1:", 0), 0u) << client;  // the proxy
  EXPECT_GE(fx.log().count("ws_open conn="), 3u);
  EXPECT_GE(fx.log().count("address=203.0.113.7"), 2u) << fx.log().text();  // ws_open + address_limit
  // The slot is given back when the session ends.
  a.reset();
  ASSERT_TRUE(wait_sessions(fx.port(), 2));
  EXPECT_EQ(upgrade(fx.port(), "X-Forwarded-For: 203.0.113.7\r\n", e), 101);
}

TEST(TrustedProxies, OnlyTheConfiguredHeaderIsReadWhenBothAreSpoofed) {
  // A client sends both headers; the proxy overwrites only the one it is configured for. The
  // server must read that one and ignore the other, whichever it is.
  const std::string both = "X-Forwarded-For: 203.0.113.1\r\nForwarded: for=198.51.100.1\r\n";
  for (const char* header : {"X-Forwarded-For", "Forwarded"}) {
    SCOPED_TRACE(header);
    Fixture fx([header](config::Config& c) {
      c.admin_token = "proxy-test-token";
      c.trusted_proxies = "127.0.0.1";
      c.forwarded_header = header;
    });
    raw::Fd ws;
    ASSERT_EQ(upgrade(fx.port(), both, ws), 101);
    ASSERT_TRUE(wait_sessions(fx.port(), 1));
    EXPECT_EQ(listed_addresses(fx.port()),
              std::vector<std::string>{std::string(header) == "Forwarded" ? "198.51.100.1" : "203.0.113.1"});
  }
}

TEST(TrustedProxies, IPv6ClientsAreCountedPerSlash64) {
  Fixture fx([](config::Config& c) {
    c.trusted_proxies = "127.0.0.1";
    c.max_sessions_per_address = 1;
  });
  raw::Fd a, b, c;
  ASSERT_EQ(upgrade(fx.port(), "X-Forwarded-For: 2001:db8:1:2::a\r\n", a), 101);
  EXPECT_EQ(upgrade(fx.port(), "X-Forwarded-For: 2001:db8:1:2:ffff:ffff:ffff:ffff\r\n", b), 429);  // same /64
  EXPECT_EQ(upgrade(fx.port(), "X-Forwarded-For: 2001:db8:1:3::a\r\n", c), 101);                   // next /64
  namespace ip = boost::asio::ip;
  EXPECT_EQ(address_key(ip::make_address("2001:db8:1:2:3:4:5:6")), "2001:db8:1:2::/64");
  EXPECT_EQ(address_key(ip::make_address("::ffff:192.0.2.1")), "192.0.2.1");
  EXPECT_EQ(address_key(ip::make_address("192.0.2.1")), "192.0.2.1");
}

// ---------------------------------------------------------------------------------------------
// The address rules on their own (pure functions)

TEST(TrustedProxies, RightMostUntrustedHopIsTheClient) {
  namespace ip = boost::asio::ip;
  const auto trusted = config::ProxyList::parse("127.0.0.1, 10.0.0.0/8, fd00::/8");
  const auto peer = ip::make_address("127.0.0.1");
  // `fwd` is read with forwarded_header = Forwarded, `xff` with the default X-Forwarded-For: the
  // same request gives a different client depending on the configured header, never both.
  auto resolve = [&](const ip::address& from, std::vector<std::string_view> fwd, std::vector<std::string_view> xff) {
    const auto by_xff = client_address(trusted, from, forwarded_hops(ForwardedHeader::kXForwardedFor, xff));
    const auto by_fwd = client_address(trusted, from, forwarded_hops(ForwardedHeader::kForwarded, fwd));
    return fwd.empty() ? by_xff.to_string() : by_fwd.to_string() + " / " + by_xff.to_string();
  };
  EXPECT_EQ(resolve(peer, {}, {}), "127.0.0.1");  // a trusted peer naming nobody is the client
  EXPECT_EQ(resolve(peer, {}, {"1.2.3.4"}), "1.2.3.4");
  EXPECT_EQ(resolve(ip::make_address("192.0.2.1"), {}, {"1.2.3.4"}), "192.0.2.1");  // untrusted peer
  EXPECT_EQ(resolve(peer, {}, {"6.6.6.6, 1.2.3.4, 10.9.9.9"}), "1.2.3.4");
  EXPECT_EQ(resolve(peer, {}, {"6.6.6.6", "1.2.3.4:555"}), "1.2.3.4");  // two header lines, a port
  EXPECT_EQ(resolve(peer, {}, {"10.0.0.2, 10.0.0.1"}), "10.0.0.2");     // all trusted: the left-most
  EXPECT_EQ(resolve(peer, {}, {"1.2.3.4, garbage"}), "127.0.0.1");      // cannot vouch past garbage
  EXPECT_EQ(resolve(peer, {"for=5.6.7.8;proto=https, For=\"[2001:db8::1]:80\""}, {"1.2.3.4"}), "2001:db8::1 / 1.2.3.4");
  EXPECT_EQ(resolve(peer, {"for=unknown"}, {}), "127.0.0.1 / 127.0.0.1");
  EXPECT_EQ(resolve(ip::make_address("::ffff:127.0.0.1"), {}, {"1.2.3.4"}), "1.2.3.4");  // dual-stack peer
  EXPECT_EQ(resolve(ip::make_address("fd00::1"), {}, {"2001:db8::9"}), "2001:db8::9");
  EXPECT_EQ(resolve(ip::make_address("fe80::1"), {}, {"2001:db8::9"}), "fe80::1");
  // A chain longer than kMaxForwardedHops of trusted hops stops at the last one looked at.
  std::string chain = "1.2.3.4";
  for (std::size_t i = 0; i < kMaxForwardedHops + 4; ++i) chain += ", 10.0.0." + std::to_string(i + 1);
  EXPECT_EQ(resolve(peer, {}, {chain}), "10.0.0.5");
}

TEST(TrustedProxies, ListParsesAddressesAndRangesAndRefusesBadEntries) {
  namespace ip = boost::asio::ip;
  const auto list = config::ProxyList::parse(" 192.168.1.0/24 ,2001:db8::/32,  203.0.113.5");
  EXPECT_TRUE(list.contains(ip::make_address("192.168.1.77")));
  EXPECT_FALSE(list.contains(ip::make_address("192.168.2.1")));
  EXPECT_TRUE(list.contains(ip::make_address("2001:db8:ffff::1")));
  EXPECT_FALSE(list.contains(ip::make_address("2001:db9::1")));
  EXPECT_TRUE(list.contains(ip::make_address("203.0.113.5")));
  EXPECT_TRUE(list.contains(ip::make_address("::ffff:203.0.113.5")));
  EXPECT_FALSE(list.contains(ip::make_address("203.0.113.6")));
  EXPECT_TRUE(config::ProxyList::parse("").empty());
  for (const char* bad : {"10.0.0.0/33", "10.1.2.3/8", "fd00::1/8", "localhost", "1.2.3", "10.0.0.0/", "::/129"})
    EXPECT_THROW((void)config::ProxyList::parse(bad), config::ConfigError) << bad;
  try {
    (void)config::ProxyList::parse("10.0.0.1, 10.1.2.3/8");
    ADD_FAILURE() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 10.0.0.0/8"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Oversized requests

TEST(HttpLimits, OversizedRequestHeaderGets431ThenTheConnectionCloses) {
  Fixture fx;
  ASSERT_EQ(fx.config().max_http_header_bytes, 8192u);
  raw::Fd fd(raw::connect_tcp(fx.port()));
  const std::string request =
      "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Padding: " + std::string(20 * 1024, 'a') + "\r\n\r\n";
  std::string rest;
  EXPECT_EQ(raw::http_exchange(fd.get(), request, &rest), 431);
  EXPECT_TRUE(raw::wait_eof(fd.get(), 3s, &rest)) << "the connection stays open";
  EXPECT_NE(rest.find("request header too large (limit 8192 bytes)"), std::string::npos) << rest;
  EXPECT_GE(fx.metrics().http_bad_request.value(), 1u);
  EXPECT_GE(fx.log().count("http_header_too_large address=127.0.0.1 limit=8192"), 1u) << fx.log().text();
  // A header under the limit is still answered on a fresh connection.
  raw::Fd ok(raw::connect_tcp(fx.port()));
  EXPECT_EQ(raw::http_exchange(ok.get(), "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"), 200);
}

TEST(HttpLimits, OversizedRequestBodyGets413ThenTheConnectionCloses) {
  Fixture fx;
  raw::Fd fd(raw::connect_tcp(fx.port()));
  std::string rest;
  EXPECT_EQ(raw::http_exchange(
                fd.get(), "GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 20000\r\n\r\n" + std::string(20000, 'b'),
                &rest),
            413);
  EXPECT_TRUE(raw::wait_eof(fd.get(), 3s, &rest));
  EXPECT_NE(rest.find("request body too large"), std::string::npos) << rest;
}

}  // namespace
}  // namespace flockstep::server::net
