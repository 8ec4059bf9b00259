#pragma once
/// \file published_rooms.hpp
/// Published rooms: scenarios the lab (or any admin client) published through the admin API
/// (PUT /api/admin/published/<name>), kept one file each in `published_dir` so a restart keeps
/// them. A body is checked exactly as a file of scenario_dir (codec::parse_scenario, the code
/// that loads scenarios/*.json), then against the publishing limits; nothing is written or
/// changed unless every check passed. The registry (rooms.hpp) runs them like any room.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::server::ops {
class Logger;
}

namespace flockstep::server::game {

/// Longest published room name, bytes (names are [a-z0-9_-], so bytes = characters).
inline constexpr std::size_t kPublishedNameMaxBytes = 32;
/// Largest scenario body a PUT may carry, bytes (the lab's exports of the shipped scenarios are
/// 1-20 KiB; other requests are limited to 1 KiB, other admin requests to 16 KiB).
inline constexpr std::uint64_t kPublishBodyLimit = 64 * 1024;

/// Publishing settings (config keys published_dir, published_max, published_max_agents).
struct PublishSettings {
  std::string dir;                  ///< folder of published scenarios; empty = publishing off
  std::uint32_t max_rooms = 16;     ///< published rooms at once. [>= 1]
  std::uint32_t max_agents = 4096;  ///< per published scenario: max_agents and the sum of the group counts
};

/// Outcome of a publish / unpublish request: an HTTP status, and on error a message and (for a
/// field of the scenario) the key path it names ("groups[0].count").
struct PublishResult {
  int status = 200;
  std::string error;
  std::string key;
  bool replaced = false;  ///< PUT: a published room of that name existed (and was closed if running)
  bool closed = false;    ///< the room was running and closed
  std::uint32_t agents = 0;
};

/// One published room (GET /api/admin/published).
struct PublishedInfo {
  std::string name;
  std::string description;
  std::uint32_t agents = 0;  ///< sum of the group counts
  bool running = false;
};

/// "" or why `name` cannot name a published room: 1..kPublishedNameMaxBytes of [a-z0-9_-],
/// not starting with '-' (a file name and a URL segment as it is).
std::string check_published_name(std::string_view name);

/// Parse `body` as a scenario file, name it `name` (the body's own `name` is replaced: the room
/// is the URL's), and check `limits`. 200 with `out` set, or 400 naming the key. Never throws.
PublishResult parse_published(std::string_view name, std::string_view body, const PublishSettings& limits,
                              sim::Scenario& out);

/// Sum of the group counts of `s`.
std::uint32_t scenario_agents(const sim::Scenario& s);

/// The files of `dir`: write (0600, atomically), remove, load every one at start-up.
class PublishedStore {
 public:
  /// Creates `dir` (0700) if missing. Throws std::runtime_error when it cannot.
  PublishedStore(std::string dir, ops::Logger* log);
  const std::string& dir() const { return dir_; }
  /// The file of room `name` (a checked name): `<dir>/<name>.json`.
  std::string path_of(const std::string& name) const;
  /// Write `s` as a scenario file, mode 0600. "" or the failing step.
  std::string save(const sim::Scenario& s) const;
  /// Delete room `name`'s file (a missing file is fine).
  void remove(const std::string& name) const;
  /// Every published scenario (by file name), loaded as a scenario_dir file is. A file that
  /// does not load (or whose name does not match its file) is logged (`published_rejected`) and
  /// renamed `*.bad`; the others load.
  std::vector<sim::Scenario> load_all(const PublishSettings& limits) const;

 private:
  std::string dir_;
  ops::Logger* log_;
};

}  // namespace flockstep::server::game
