// Entry points of the Flockstep browser viewer: main() wires the browser's callbacks to the one
// Viewer (viewer.hpp), and the fs_* functions are what the page's JavaScript calls
// (client/web/, docs/viewer.md "Exported functions").
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <string>

#include "ui/page.hpp"
#include "viewer.hpp"

namespace flockstep::client {
namespace {

Viewer g_viewer;

// ---------------------------------------------------------------------------------------------
// Browser glue
// ---------------------------------------------------------------------------------------------

EM_BOOL raf(double time, void*) {
  g_viewer.frame(time);
  return EM_TRUE;
}
EM_BOOL key_down(int, const EmscriptenKeyboardEvent* e, void*) { return g_viewer.on_key(e, true); }
EM_BOOL key_up(int, const EmscriptenKeyboardEvent* e, void*) { return g_viewer.on_key(e, false); }
EM_BOOL mouse(int type, const EmscriptenMouseEvent* e, void*) { return g_viewer.on_mouse(type, e); }
EM_BOOL wheel(int, const EmscriptenWheelEvent* e, void*) { return g_viewer.on_wheel(e); }
EM_BOOL mouse_up_anywhere(int, const EmscriptenMouseEvent*, void*) {
  g_viewer.end_drag();
  return EM_FALSE;
}
EM_BOOL blur(int, const EmscriptenFocusEvent*, void*) {
  g_viewer.on_blur();
  return EM_FALSE;
}
EM_BOOL context_lost(int, const void*, void*) {
  return EM_TRUE;  // preventDefault: the browser may then restore the context
}
EM_BOOL context_restored(int, const void*, void*) {
  g_viewer.context_restored();
  return EM_TRUE;
}

}  // namespace
}  // namespace flockstep::client

using flockstep::client::g_viewer;
namespace page = flockstep::client::page;

extern "C" {

/// Join as a player with a display name (UTF-8, 1-32 bytes).
EMSCRIPTEN_KEEPALIVE void fs_play(const char* name) { g_viewer.play(name ? name : ""); }
/// Join as a spectator.
EMSCRIPTEN_KEEPALIVE void fs_spectate() { g_viewer.spectate(); }
/// Leave (back to the start screen).
EMSCRIPTEN_KEEPALIVE void fs_leave() { g_viewer.leave(); }
/// Set a view option: annotations, extrapolate, trails, minimap, paused (0/1),
/// annotation_mask (bit per agent kind), zoom (px per m), fit (any value).
EMSCRIPTEN_KEEPALIVE void fs_set_option(const char* name, double value) {
  g_viewer.set_option(name ? name : "", value);
}
/// Spectators, paused: advance the view by one tick.
EMSCRIPTEN_KEEPALIVE void fs_step() { g_viewer.step_once(); }
/// Follow an agent by id (0 = free camera).
EMSCRIPTEN_KEEPALIVE void fs_follow(unsigned id) { g_viewer.follow(id); }
/// Follow the next (+1) or previous (-1) player.
EMSCRIPTEN_KEEPALIVE void fs_cycle_player(int dir) { g_viewer.cycle_player(dir < 0 ? -1 : 1); }
/// On-screen joystick: turn [-1, 1] (+1 right), throttle [0, 1], active = finger down.
EMSCRIPTEN_KEEPALIVE void fs_set_touch(double turn, double throttle, int active) {
  g_viewer.touch(turn, throttle, active != 0);
}
/// WebSocket URL for the next Play/Spectate (default ws(s)://<page host>/ws or ?server=).
EMSCRIPTEN_KEEPALIVE void fs_set_server_url(const char* url) { g_viewer.set_url(url ? url : ""); }
/// Offline benchmark without a server: n agents, synthetic (sim = 0) or a local sim::World (sim = 1).
EMSCRIPTEN_KEEPALIVE void fs_bench(int n, int sim) {
  const std::string spec = std::to_string(n) + " " + (sim != 0 ? "1" : "0");
  const std::string error =
      g_viewer.open_source("bench", {reinterpret_cast<const std::uint8_t*>(spec.data()), spec.size()});
  if (!error.empty()) page::call("toast", error);
}
/// Lab: load scenario JSON (UTF-8) into an in-page world and run it. Returns "" or the error;
/// the string lives until the next fs_lab_* call.
EMSCRIPTEN_KEEPALIVE const char* fs_lab_load(const char* json) {
  static std::string result;
  const std::string text = json ? json : "";
  result = g_viewer.open_source("lab", {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  return result.c_str();
}
/// Lab: "paused" (0/1), "step" (ticks), "speed" (0.1-4), "restart" (seed; 0 = next seed).
EMSCRIPTEN_KEEPALIVE void fs_lab_control(const char* what, double value) {
  g_viewer.control_mode("lab", what ? what : "", value);
}
/// Lab: set group `group`'s parameter `key` (a Tune panel path, or "count"). "" or the error.
EMSCRIPTEN_KEEPALIVE const char* fs_lab_tune(int group, const char* key, double value) {
  static std::string result;
  result = g_viewer.lab_tune(group, key ? key : "", value);
  return result.c_str();
}
/// Lab: the scenario as tuned, as a scenario file ("" when no lab runs).
EMSCRIPTEN_KEEPALIVE const char* fs_lab_export() {
  static std::string result;
  result = g_viewer.lab_export();
  return result.c_str();
}
/// A buffer of n bytes for fs_source_open / fs_replay_open (JS copies a file into HEAPU8 there).
EMSCRIPTEN_KEEPALIVE std::uint8_t* fs_source_buffer(unsigned n) { return g_viewer.upload_buffer(n); }
/// Open the mode `mode` (frame/sources.cpp: "replay", "lab", "bench", ...) from the bytes in the
/// fs_source_buffer. Returns "" or why not (the running mode then keeps running); the string
/// lives until the next call.
EMSCRIPTEN_KEEPALIVE const char* fs_source_open(const char* mode) {
  static std::string result;
  result = g_viewer.open_source(mode ? mode : "", g_viewer.upload());
  g_viewer.release_upload();
  return result.c_str();
}
/// A control of the running mode (FrameSource::control: "paused", "step", "speed", "seek", ...).
EMSCRIPTEN_KEEPALIVE void fs_source_control(const char* what, double value) {
  g_viewer.control(what ? what : "", value);
}
/// Tests: drop the connection as if the network failed (the viewer reconnects and resumes).
EMSCRIPTEN_KEEPALIVE void fs_drop_connection() { g_viewer.drop(); }
/// Room (scenario name) for the next Play / Spectate; empty = the server's default room.
EMSCRIPTEN_KEEPALIVE void fs_set_room(const char* room) { g_viewer.set_room(room ? room : ""); }
/// Replay: a buffer of n bytes for the recording file (JS copies the file into HEAPU8 there).
EMSCRIPTEN_KEEPALIVE std::uint8_t* fs_replay_buffer(unsigned n) { return g_viewer.upload_buffer(n); }
/// Replay: parse the buffer and start playing it (1) or report why not (0, flockstepUi.replayError).
EMSCRIPTEN_KEEPALIVE int fs_replay_open() {
  const std::string error = g_viewer.open_source("replay", g_viewer.upload());
  g_viewer.release_upload();
  g_viewer.set_replay_error(error);
  if (error.empty()) return 1;
  page::call("replayError", error);
  return 0;
}
/// Replay controls: play (0/1), speed (0.25-4), seek (tick), step (+1 / -1 snapshot).
EMSCRIPTEN_KEEPALIVE void fs_replay_control(const char* what, double value) {
  g_viewer.control_mode("replay", what ? what : "", value);
}
/// Click or tap at CSS px (x, y) of the canvas: follow (spectate) and inspect the agent there.
/// Returns its id (0 = none).
EMSCRIPTEN_KEEPALIVE unsigned fs_pick(double x, double y) { return g_viewer.pick(x, y); }
/// Screen boxes of the page's panels, "x,y,w,h;..." in CSS px of the canvas: labels avoid them.
EMSCRIPTEN_KEEPALIVE void fs_set_occluders(const char* list) { g_viewer.set_occluders(list ? list : ""); }
/// Touch gestures of spectators: pan by (dx, dy) CSS px, zoom by `factor` about (px, py).
EMSCRIPTEN_KEEPALIVE void fs_pan_zoom(double dx, double dy, double factor, double px, double py) {
  g_viewer.pan_zoom(dx, dy, factor, px, py);
}

}  // extern "C"

int main() {
  using namespace flockstep::client;
  if (!g_viewer.init()) return 1;
  emscripten_set_keydown_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_TRUE, key_down);
  emscripten_set_keyup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_TRUE, key_up);
  emscripten_set_mousedown_callback(Viewer::kCanvas, nullptr, EM_TRUE, mouse);
  emscripten_set_mousemove_callback(Viewer::kCanvas, nullptr, EM_TRUE, mouse);
  emscripten_set_mouseup_callback(Viewer::kCanvas, nullptr, EM_TRUE, mouse);
  // A drag that ends outside the canvas still ends.
  emscripten_set_mouseup_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, mouse_up_anywhere);
  emscripten_set_wheel_callback(Viewer::kCanvas, nullptr, EM_TRUE, wheel);
  emscripten_set_blur_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_TRUE, blur);
  emscripten_set_webglcontextlost_callback(Viewer::kCanvas, nullptr, EM_TRUE, context_lost);
  emscripten_set_webglcontextrestored_callback(Viewer::kCanvas, nullptr, EM_TRUE, context_restored);
  emscripten_request_animation_frame_loop(raf, nullptr);
  page::call("ready");
  return 0;
}
