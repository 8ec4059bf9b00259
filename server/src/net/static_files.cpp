#include "net/static_files.hpp"

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
  while (start <= decoded.size()) {
    const std::size_t end = std::min(decoded.find('/', start), decoded.size());
    const std::string_view seg = std::string_view(decoded).substr(start, end - start);
    const bool last = end == decoded.size();
    if (seg == "." || seg == "..") return ResolveStatus::kForbidden;
    if (seg.empty() && !last) return ResolveStatus::kForbidden;
    start = end + 1;
  }
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

}  // namespace flockstep::server::net
