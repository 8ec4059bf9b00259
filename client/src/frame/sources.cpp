// The modes the page opens by name (fs_source_open): one line each. Live play is opened by Play /
// Spectate instead (it needs a name, a role and a server), so it is not in this table.
#include <algorithm>
#include <array>

#include "frame/frame_source.hpp"

namespace flockstep::client {

std::unique_ptr<FrameSource> make_replay_source(FrameHost& host);
std::unique_ptr<FrameSource> make_lab_source(FrameHost& host);
std::unique_ptr<FrameSource> make_bench_source(FrameHost& host);

namespace {
constexpr std::array kSources{
    FrameSourceEntry{"replay", make_replay_source},
    FrameSourceEntry{"lab", make_lab_source},
    FrameSourceEntry{"bench", make_bench_source},
};
}  // namespace

std::span<const FrameSourceEntry> frame_sources() { return kSources; }

std::unique_ptr<FrameSource> make_frame_source(std::string_view mode, FrameHost& host) {
  const auto it =
      std::find_if(kSources.begin(), kSources.end(), [&](const FrameSourceEntry& e) { return mode == e.mode; });
  return it == kSources.end() ? nullptr : it->make(host);
}

}  // namespace flockstep::client
