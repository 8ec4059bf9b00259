#pragma once
/// \file replay_keys.hpp
/// The replay bar's keys, the same for both kinds of recording (frame/replay_source.cpp,
/// frame/input_log_source.cpp): P or Space play / pause, N or . one step forward, B or , one
/// step back.
#include <string>
#include <string_view>

namespace flockstep::client {

/// The FrameSource control a replay key stands for (`what`, `value`); false for other keys.
inline bool replay_key_control(std::string_view code, bool playing, std::string& what, double& value) {
  if (code == "KeyP" || code == "Space") {
    what = "play";
    value = playing ? 0 : 1;
  } else if (code == "Period" || code == "KeyN" || code == "Comma" || code == "KeyB") {
    what = "step";
    value = code == "Period" || code == "KeyN" ? 1 : -1;
  } else {
    return false;
  }
  return true;
}

}  // namespace flockstep::client
