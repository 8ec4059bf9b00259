#include "ui/page.hpp"

#include <cstdlib>

#include <emscripten/emscripten.h>

// A dispatcher, nothing more: the functions it reaches are in client/web/*.js.
EM_JS(void, fs_page_call, (const char* name, const char* a, const char* b), {
  var u = window.flockstepUi, f = u && u[UTF8ToString(name)];
  if (typeof f == = 'function') f.call(u, UTF8ToString(a), UTF8ToString(b));
});
EM_JS(int, fs_page_int, (const char* name, int fallback), {
  var u = window.flockstepUi, f = u && u[UTF8ToString(name)];
  return typeof f == = 'function' ? (f.call(u) | 0) : fallback;
});
EM_JS(char*, fs_page_string, (const char* name), {
  var u = window.flockstepUi, f = u && u[UTF8ToString(name)];
  var s = typeof f == = 'function' ? String(f.call(u)) : "";
  var n = lengthBytesUTF8(s) + 1, p = _malloc(n);
  stringToUTF8(s, p, n);
  return p;
});
EM_JS(void, fs_page_state, (const char* json), {
  if (window.__flockstepUpdate) window.__flockstepUpdate(UTF8ToString(json));
});

namespace flockstep::client::page {

void call(const char* name, const std::string& a, const std::string& b) { fs_page_call(name, a.c_str(), b.c_str()); }

int query_int(const char* name, int fallback) { return fs_page_int(name, fallback); }

std::string query_string(const char* name) {
  char* p = fs_page_string(name);
  std::string s = p ? p : "";
  std::free(p);
  return s;
}

void publish_state(const std::string& json) { fs_page_state(json.c_str()); }

}  // namespace flockstep::client::page
