#pragma once
/// \file page.hpp
/// The only way C++ talks to the page: calls of `window.flockstepUi.<name>(...)`, implemented in
/// client/web/ (ES modules). Keeping the JavaScript there (and only a dispatcher here) lets the
/// page's code be read, linted and changed without rebuilding the wasm.
#include <string>

namespace flockstep::client::page {

/// flockstepUi.<name>(a, b) with string arguments; nothing if the page has no such function.
void call(const char* name, const std::string& a = {}, const std::string& b = {});
/// flockstepUi.<name>() as an integer; `fallback` if the page has no such function.
int query_int(const char* name, int fallback);
/// flockstepUi.<name>() as a string; empty if the page has no such function.
std::string query_string(const char* name);
/// window.__flockstepUpdate(json): the state of this frame.
void publish_state(const std::string& json);

}  // namespace flockstep::client::page
