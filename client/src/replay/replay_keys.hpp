#pragma once
/// \file replay_keys.hpp
/// The replay bar's keys, the same for both kinds of recording (frame/replay_source.cpp,
/// frame/input_log_source.cpp): P or Space play / pause, N or . one step forward, B or , one
/// step back.
#include <string_view>

#include "frame/frame_source.hpp"

namespace flockstep::client {

/// Apply the replay key `code` to `source` as its control ("play", "step"); false for other keys.
inline bool replay_key(FrameSource& source, std::string_view code, bool playing) {
  if (code == "KeyP" || code == "Space") source.control("play", playing ? 0 : 1);
  else if (code == "Period" || code == "KeyN") source.control("step", 1);
  else if (code == "Comma" || code == "KeyB") source.control("step", -1);
  else return false;
  return true;
}

}  // namespace flockstep::client
