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
  kNotFound,    ///< inside the root but no such regular file (or no web root configured)
};

/// Resolve `target` (e.g. "/js/viewer.js?v=3") below `web_root`. Percent-decodes once, then
/// rejects any `.`/`..` segment, backslash or NUL; "/" and "/dir/" map to index.html. The final
/// path's canonical form must stay inside the canonical root (no symlink escapes).
ResolveStatus resolve_static_path(std::string_view web_root, std::string_view target, std::string& path);

/// MIME type by extension (".wasm" -> "application/wasm"; unknown -> application/octet-stream).
std::string_view mime_type(std::string_view path);

/// Decode %XX escapes; false on a malformed escape or an encoded NUL. '+' is left alone (paths).
bool percent_decode(std::string_view in, std::string& out);

}  // namespace flockstep::server::net
