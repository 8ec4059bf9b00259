#pragma once
/// \file client_address.hpp
/// Who the client is behind reverse proxies. A connection's TCP peer may name the address it
/// forwards for in `Forwarded` (RFC 7239) or `X-Forwarded-For` (only the one `forwarded_header`
/// names is read); anybody can send those headers, so they are believed only when the peer is in
/// `trusted_proxies`, and then hop by hop from the
/// right: each proxy appends the address it received from, so the right-most address that is
/// not a trusted proxy is the client (addresses further left were written by the client itself
/// and prove nothing). Pure functions without Beast, unit-tested on their own (access_test.cpp).
/// Header-only, like access.hpp.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v6.hpp>

#include "config/trusted_proxies.hpp"

namespace flockstep::server::net {

/// Forwarded hops looked at per request, right-most first: a longer chain of trusted proxies
/// ends at the last one looked at (bounds the work a header can cause).
inline constexpr std::size_t kMaxForwardedHops = 16;

/// One node of a Forwarded `for=` or an X-Forwarded-For entry as an address: `192.0.2.1`,
/// `192.0.2.1:4711`, `[2001:db8::1]:4711`, `2001:db8::1`, quoted or not. nullopt for what names
/// no address (`unknown`, obfuscated `_hidden`, garbage).
inline std::optional<boost::asio::ip::address> parse_node(std::string_view v) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  v = trim(v);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  if (!v.empty() && v.front() == '[') {
    const std::size_t close = v.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    v = v.substr(1, close - 1);
  } else if (v.find(':') != std::string_view::npos && v.find(':') == v.rfind(':')) {
    v = v.substr(0, v.find(':'));  // IPv4 with a port (an IPv6 address has two colons or more)
  }
  boost::system::error_code ec;
  const auto a = boost::asio::ip::make_address(std::string(v), ec);
  if (ec) return std::nullopt;
  return config::unmapped(a);
}

/// The header a trusted proxy names the client in (config key `forwarded_header`). Exactly one is
/// read: a proxy overwrites (or appends to) the header it is configured for and passes the other
/// one through untouched, so reading both would let a client smuggle an address past it.
enum class ForwardedHeader : std::uint8_t {
  kXForwardedFor,  ///< `X-Forwarded-For: client, proxy1, ...` (nginx's $proxy_add_x_forwarded_for); the default
  kForwarded,      ///< `Forwarded: for=client, for=proxy1` (RFC 7239)
};

/// The configured name ("X-Forwarded-For" or "Forwarded") as the enum; anything else (refused by
/// the config already) reads X-Forwarded-For.
inline ForwardedHeader forwarded_header_of(std::string_view name) {
  return name == "Forwarded" ? ForwardedHeader::kForwarded : ForwardedHeader::kXForwardedFor;
}

/// The hops the configured header names, left (client side) to right (nearest proxy). `lines`
/// are that header's lines in order (the other header is never looked at). An entry that names
/// no address is kept as nullopt.
inline std::vector<std::optional<boost::asio::ip::address>> forwarded_hops(ForwardedHeader header,
                                                                           const std::vector<std::string_view>& lines) {
  std::vector<std::optional<boost::asio::ip::address>> hops;
  auto split = [](std::string_view s, char sep, auto&& each) {
    while (true) {
      const std::size_t at = s.find(sep);
      each(s.substr(0, at));
      if (at == std::string_view::npos) break;
      s.remove_prefix(at + 1);
    }
  };
  if (header == ForwardedHeader::kForwarded) {
    // forwarded-element *( "," forwarded-element ), element = pair *( ";" pair ), pair = token "=" value.
    // (A quoted value could hold a comma; a for= node never does, so splitting first is safe.)
    for (std::string_view line : lines)
      split(line, ',', [&](std::string_view element) {
        std::optional<boost::asio::ip::address> node;
        bool has_for = false;
        split(element, ';', [&](std::string_view pair) {
          while (!pair.empty() && (pair.front() == ' ' || pair.front() == '\t')) pair.remove_prefix(1);
          if (pair.size() < 4) return;
          const std::string_view name = pair.substr(0, 4);
          if ((name[0] == 'f' || name[0] == 'F') && (name[1] == 'o' || name[1] == 'O') &&
              (name[2] == 'r' || name[2] == 'R') && name[3] == '=') {
            has_for = true;
            node = parse_node(pair.substr(4));
          }
        });
        if (has_for) hops.push_back(node);
      });
    return hops;
  }
  for (std::string_view line : lines)
    split(line, ',', [&](std::string_view item) { hops.push_back(parse_node(item)); });
  return hops;
}

/// The client's address: the TCP `peer` itself unless it is a trusted proxy; then the right-most
/// hop that is not trusted. A hop that names no address ends the walk at the trusted proxy that
/// wrote it (it cannot vouch for anyone further); when every hop is trusted, the left-most one.
inline boost::asio::ip::address client_address(const config::ProxyList& trusted, const boost::asio::ip::address& peer,
                                               const std::vector<std::optional<boost::asio::ip::address>>& hops) {
  boost::asio::ip::address current = config::unmapped(peer);
  if (!trusted.contains(current)) return current;
  std::size_t looked = 0;
  for (auto it = hops.rbegin(); it != hops.rend() && looked < kMaxForwardedHops; ++it, ++looked) {
    if (!*it) return current;
    current = **it;
    if (!trusted.contains(current)) return current;
  }
  return current;
}

/// What per-address limits count by (max_sessions_per_address, admin failures): an IPv4 address
/// itself; an IPv6 address by its /64, the smallest block an ISP hands one subscriber (a host
/// picks any of its 2^64 addresses freely, so counting single IPv6 addresses would limit nothing).
inline std::string address_key(const boost::asio::ip::address& a) {
  const boost::asio::ip::address u = config::unmapped(a);
  if (u.is_v4()) return u.to_string();
  return boost::asio::ip::network_v6(u.to_v6(), 64).canonical().to_string();
}

}  // namespace flockstep::server::net
