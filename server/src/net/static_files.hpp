#pragma once
/// \file static_files.hpp
/// Mapping of an HTTP request target to a file under the web root, and MIME types. Pure
/// functions (no Beast) so the traversal rules are unit-tested on their own.
#include <cstdint>
#include <string>
#include <string_view>

namespace flockstep::server::net {

/// Outcome of resolving a request target.
enum class ResolveStatus : std::uint8_t {
  kOk,          ///< `path` names a regular file inside the root
  kBadRequest,  ///< not an origin-form target, bad percent-encoding, NUL byte
  kForbidden,   ///< `..`, `.` segments, backslashes, or a path that leaves the root via symlinks
  kNotFound,    ///< inside the root but no such regular file, a dotfile or dot-folder, or no web root
};

/// Resolve `target` (e.g. "/js/viewer.js?v=3") below `web_root`. Percent-decodes once, then
/// rejects any `.`/`..` segment, backslash or NUL; "/" and "/dir/" map to index.html. The final
/// path's canonical form must stay inside the canonical root (no symlink escapes).
ResolveStatus resolve_static_path(std::string_view web_root, std::string_view target, std::string& path);

/// MIME type by extension (".wasm" -> "application/wasm"; unknown -> application/octet-stream).
std::string_view mime_type(std::string_view path);

/// Decode %XX escapes; false on a malformed escape or an encoded NUL. '+' is left alone (paths).
bool percent_decode(std::string_view in, std::string& out);

/// Cache validators of one file version (RFC 9110 section 8.8).
struct FileValidators {
  std::string etag;           ///< strong: "\"<size hex>-<mtime ns hex>\"" (+ "-gz" for the gzip form)
  std::string last_modified;  ///< IMF-fixdate of the modification time, whole seconds
  std::int64_t mtime_s = 0;   ///< modification time, Unix seconds
  std::uint64_t size = 0;     ///< bytes
};

/// Validators of the regular file `path`; false if it cannot be stat'ed.
bool file_validators(const std::string& path, FileValidators& out);

/// True when a conditional GET may be answered 304: If-None-Match (when present, it alone
/// decides: "*" or a list containing the ETag, weak comparison) or else If-Modified-Since at
/// or after the file's time. Empty headers = not sent.
bool not_modified(std::string_view if_none_match, std::string_view if_modified_since, const FileValidators& v);

/// True when Accept-Encoding allows gzip (listed, or "*", without q=0).
bool accepts_gzip(std::string_view accept_encoding);

/// True for the types the build precompresses (client/CMakeLists.txt: .wasm, .js, .mjs, .css,
/// .html): those are served with Vary: Accept-Encoding, and as FILE.gz when it exists.
bool precompressed_type(std::string_view path);

/// The precompressed sibling of `path` (path + ".gz") when it is a regular file in the same
/// folder (no symlink out of it) at least as new as `path`; empty otherwise.
std::string gzip_sibling(const std::string& path);

/// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") of Unix seconds, and back (false if malformed).
std::string http_date(std::int64_t unix_s);
bool parse_http_date(std::string_view text, std::int64_t& unix_s);

}  // namespace flockstep::server::net
