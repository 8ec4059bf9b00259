#include "net/static_files.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace flockstep::server::net {

namespace fs = std::filesystem;

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      if (in[i] == '\0') return false;
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = hex_value(in[i + 1]);
    const int lo = hex_value(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return false;
    out += c;
    i += 2;
  }
  return true;
}

ResolveStatus resolve_static_path(std::string_view web_root, std::string_view target, std::string& path) {
  if (target.empty() || target.front() != '/') return ResolveStatus::kBadRequest;
  if (const auto q = target.find_first_of("?#"); q != std::string_view::npos) target = target.substr(0, q);
  std::string decoded;
  if (!percent_decode(target, decoded)) return ResolveStatus::kBadRequest;
  // Decoding happens exactly once; a decoded '%' stays literal ("%252e" is the file "%2e").
  if (decoded.find('\\') != std::string::npos) return ResolveStatus::kForbidden;
  // Every segment is checked, so "/a/../b", "/..", "/./x" and "//x" are all refused.
  std::size_t start = 1;
  bool hidden = false;
  while (start <= decoded.size()) {
    const std::size_t end = std::min(decoded.find('/', start), decoded.size());
    const std::string_view seg = std::string_view(decoded).substr(start, end - start);
    const bool last = end == decoded.size();
    if (seg == "." || seg == "..") return ResolveStatus::kForbidden;
    if (seg.empty() && !last) return ResolveStatus::kForbidden;
    hidden = hidden || (!seg.empty() && seg.front() == '.');
    start = end + 1;
  }
  // Dotfiles and dot-folders (.git, .env, .htpasswd) are never served: not found, as if absent
  // (a deploy that copies a checkout into the web root must not publish it).
  if (hidden) return ResolveStatus::kNotFound;
  if (web_root.empty()) return ResolveStatus::kNotFound;
  std::string rel = decoded.substr(1);
  if (rel.empty() || rel.back() == '/') rel += "index.html";

  std::error_code ec;
  const fs::path root = fs::canonical(fs::path(web_root), ec);
  if (ec) return ResolveStatus::kNotFound;
  const fs::path candidate = root / rel;
  const fs::path real = fs::canonical(candidate, ec);
  if (ec) return ResolveStatus::kNotFound;
  // Symlinks inside the root must not lead outside it.
  const std::string root_s = root.string();
  const std::string real_s = real.string();
  if (real_s.size() <= root_s.size() || real_s.compare(0, root_s.size(), root_s) != 0 ||
      (root_s.back() != '/' && real_s[root_s.size()] != '/'))
    return ResolveStatus::kForbidden;
  if (!fs::is_regular_file(real, ec)) return ResolveStatus::kNotFound;
  if (real_s.find("/.", root_s.size()) != std::string::npos) return ResolveStatus::kNotFound;  // a link to a dotfile
  path = real_s;
  return ResolveStatus::kOk;
}

std::string_view mime_type(std::string_view path) {
  struct Entry {
    std::string_view ext;
    std::string_view type;
  };
  static constexpr Entry kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".htm", "text/html; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".json", "application/json"},
      {".wasm", "application/wasm"},
      {".map", "application/json"},
      {".proto", "text/plain; charset=utf-8"},
      {".txt", "text/plain; charset=utf-8"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},
      {".svg", "image/svg+xml"},
      {".ico", "image/vnd.microsoft.icon"},
      {".webp", "image/webp"},
      {".woff2", "font/woff2"},
  };
  for (const Entry& e : kTypes)
    if (ends_with(path, e.ext)) return e.type;
  return "application/octet-stream";
}

bool file_validators(const std::string& path, FileValidators& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto ns =
      static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(st.st_mtim.tv_nsec);
  char b[64];
  std::snprintf(b, sizeof b, "\"%llx-%llx\"", static_cast<unsigned long long>(st.st_size),
                static_cast<unsigned long long>(ns));
  out.etag = b;
  out.mtime_s = static_cast<std::int64_t>(st.st_mtim.tv_sec);
  out.last_modified = http_date(out.mtime_s);
  out.size = static_cast<std::uint64_t>(st.st_size);
  return true;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// Calls f(item) for every comma-separated item, trimmed.
template <class F>
void for_each_item(std::string_view list, F f) {
  while (!list.empty()) {
    const std::size_t c = list.find(',');
    f(trim(list.substr(0, c)));
    if (c == std::string_view::npos) break;
    list.remove_prefix(c + 1);
  }
}

}  // namespace

bool not_modified(std::string_view if_none_match, std::string_view if_modified_since, const FileValidators& v) {
  if (!trim(if_none_match).empty()) {
    bool match = false;
    for_each_item(if_none_match, [&](std::string_view tag) {
      if (tag == "*") match = true;
      if (tag.substr(0, 2) == "W/") tag.remove_prefix(2);  // weak comparison for GET
      if (tag == v.etag) match = true;
    });
    return match;
  }
  std::int64_t since = 0;
  return !trim(if_modified_since).empty() && parse_http_date(trim(if_modified_since), since) && v.mtime_s <= since;
}

bool accepts_gzip(std::string_view accept_encoding) {
  bool ok = false;
  for_each_item(accept_encoding, [&](std::string_view item) {
    const std::size_t semi = item.find(';');
    std::string coding(trim(item.substr(0, semi)));
    for (char& c : coding) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (coding != "gzip" && coding != "x-gzip" && coding != "*") return;
    double q = 1;
    if (semi != std::string_view::npos) {
      std::string_view p = trim(item.substr(semi + 1));
      if (p.size() > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') q = std::atof(std::string(p.substr(2)).c_str());
    }
    if (q > 0) ok = true;
  });
  return ok;
}

bool precompressed_type(std::string_view path) {
  for (std::string_view ext : {".wasm", ".js", ".mjs", ".css", ".html"})
    if (ends_with(path, ext)) return true;
  return false;
}

std::string gzip_sibling(const std::string& path) {
  std::error_code ec;
  const fs::path gz = fs::path(path + ".gz");
  const fs::path real = fs::canonical(gz, ec);
  if (ec || real.parent_path() != fs::path(path).parent_path() || !fs::is_regular_file(real, ec)) return {};
  // A stale .gz (older than the file) would serve old bytes: ignore it.
  if (fs::last_write_time(real, ec) < fs::last_write_time(path, ec) || ec) return {};
  return real.string();
}

std::string http_date(std::int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[40];
  std::strftime(b, sizeof b, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return b;
}

bool parse_http_date(std::string_view text, std::int64_t& unix_s) {
  std::tm tm{};
  const std::string s(text);
  const char* end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return false;
  unix_s = static_cast<std::int64_t>(timegm(&tm));
  return true;
}

}  // namespace flockstep::server::net
