#pragma once
/// \file trusted_proxies.hpp
/// The `trusted_proxies` key parsed: IP addresses and CIDR ranges, IPv4 and IPv6, whose
/// connections may name the real client in X-Forwarded-For / Forwarded (net/client_address.hpp).
/// Parsing and matching use Asio's ip::network_v4/v6 rather than hand-written code.
/// Header-only: small, and it keeps the server library's source list unchanged.
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

#include "config/config.hpp"

namespace flockstep::server::config {

/// An IPv4-mapped IPv6 address (::ffff:a.b.c.d, what a dual-stack socket reports for an IPv4
/// peer) as the IPv4 address it is, so `127.0.0.1` matches such a peer too.
inline boost::asio::ip::address unmapped(const boost::asio::ip::address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped())
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a.to_v6());
  return a;
}

/// A set of addresses and ranges. Empty (the default) trusts no peer.
class ProxyList {
 public:
  /// Parse a comma-separated list (`127.0.0.1, 10.0.0.0/8, fd00::/8`). Throws ConfigError naming
  /// the first bad entry: not an address or range, a prefix too long, or host bits set below the
  /// prefix (10.1.2.3/8 is refused rather than guessed to mean 10.0.0.0/8).
  static ProxyList parse(std::string_view list) {
    ProxyList out;
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      std::string_view item = list.substr(0, comma);
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
      if (item.empty()) continue;
      out.add(std::string(item));
    }
    return out;
  }

  bool empty() const { return v4_.empty() && v6_.empty(); }

  /// Is `a` (IPv4-mapped addresses as IPv4) inside one of the ranges?
  bool contains(const boost::asio::ip::address& a) const {
    const auto u = unmapped(a);
    if (u.is_v4()) {
      for (const auto& n : v4_)
        if (boost::asio::ip::network_v4(u.to_v4(), n.prefix_length()).canonical() == n) return true;
    } else {
      for (const auto& n : v6_)
        if (boost::asio::ip::network_v6(u.to_v6(), n.prefix_length()).canonical() == n) return true;
    }
    return false;
  }

 private:
  void add(const std::string& item) {
    namespace ip = boost::asio::ip;
    boost::system::error_code ec;
    if (item.find('/') == std::string::npos) {
      const ip::address a = ip::make_address(item, ec);
      if (ec)
        throw ConfigError("'" + item + "' is not an IP address or CIDR range (e.g. 10.0.0.1, 10.0.0.0/8, fd00::/8)");
      const ip::address u = unmapped(a);
      if (u.is_v4()) v4_.emplace_back(u.to_v4(), 32);
      else v6_.emplace_back(u.to_v6(), 128);
      return;
    }
    auto add_range = [&item](const auto& n, auto& into) {
      if (n != n.canonical())
        throw ConfigError("'" + item + "' has host bits set below the prefix (did you mean " +
                          n.canonical().to_string() + "?)");
      into.push_back(n);
    };
    if (const ip::network_v4 n = ip::make_network_v4(item, ec); !ec) return add_range(n, v4_);
    ec = {};
    if (const ip::network_v6 n = ip::make_network_v6(item, ec); !ec) return add_range(n, v6_);
    throw ConfigError("'" + item +
                      "' is not an IP address or CIDR range (prefix at most /32 for IPv4, /128 for IPv6; e.g. "
                      "10.0.0.0/8, fd00::/8)");
  }

  std::vector<boost::asio::ip::network_v4> v4_;
  std::vector<boost::asio::ip::network_v6> v6_;
};

}  // namespace flockstep::server::config
