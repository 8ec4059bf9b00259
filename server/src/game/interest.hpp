#pragma once
/// \file interest.hpp
/// Area of interest: which agents a client receives, and how much each one matters when its
/// bandwidth budget is exceeded. Players see a circle around their craft, spectators the view
/// rectangle they send (or the whole world until they send one). Hysteresis: an agent enters
/// the view inside the area and leaves only once it is `hysteresis_m` outside it, so an agent
/// moving along the edge does not flicker in and out.
#include <cstdint>
#include <span>
#include <vector>

#include "codec/client_codec.hpp"
#include "codec/snapshot_codec.hpp"

namespace flockstep::server::game {

/// Interest settings (from config::Config).
struct InterestConfig {
  double player_radius_m = 100;   ///< players receive agents within this distance of their craft; 0 = everything
  double hysteresis_m = 10;       ///< an agent already in view leaves only this far outside the area, m. [>= 0]
  double weight_distance_m = 40;  ///< budget priority halves at this distance from the area's centre, m. [> 0]
  double weight_speed_mps = 4;    ///< budget priority doubles at this speed (faster = changes more), m/s. [> 0]
};

/// The area of one client.
struct Area {
  enum class Kind : std::uint8_t { kAll, kCircle, kRect };
  Kind kind = Kind::kAll;
  double cx = 0, cy = 0;        ///< circle centre (players: the craft), m
  double radius = 0;            ///< circle radius, m
  codec::ViewRect rect;         ///< kRect, m
  std::uint32_t always_id = 0;  ///< this agent is always in view (the player's own craft)
  /// Player crafts are always in view (spectators: they cycle through players and follow them
  /// with the camera, and players are few, so this costs little).
  bool players_always = false;
  friend bool operator==(const Area&, const Area&) = default;
};

/// The world of one snapshot, quantised once and shared by every client's selection.
struct WorldSample {
  std::vector<codec::QAgent> agents;  ///< sorted by id
  std::vector<double> x, y, speed;    ///< per agent (same order): position m, speed m/s
  double width = 0, height = 0;       ///< world size, m
  bool wrap = false;

  /// Coarse bucket grid over the sample (build_index()), so a client's area costs the agents
  /// near it instead of a pass over the whole world: 25 areas over 100,000 agents were 2.5
  /// million distance tests per snapshot. cols == 0: no index, select_visible scans everything.
  double cell_m = 0;
  std::int32_t cols = 0, rows = 0;
  std::vector<std::int32_t> cell_start;  ///< cols * rows + 1 offsets into cell_items
  std::vector<std::int32_t> cell_items;  ///< sample indices per cell, ascending within a cell
  std::vector<std::int32_t> players;     ///< sample indices of player crafts, ascending

  /// Smallest bucket side, m: a client's area (a 100 m circle, a screen of 100-300 m) spans a
  /// few cells. [Limit: > 0]
  static constexpr double kMinCellM = 32;
  /// Most buckets per axis (bounds the index's memory for huge worlds; cells grow instead).
  static constexpr std::int32_t kMaxCellsPerAxis = 256;
  /// Rebuild the bucket grid from x, y and agents (a counting sort: O(agents + cells)).
  void build_index();
};

/// Agents of `world` inside `area` (plus, with hysteresis, those of `previous` still near it),
/// sorted by id, with their budget weights (nearer and faster = larger). With an index only the
/// buckets the area (grown by the hysteresis) touches are examined, and the result is the same
/// as the full scan's (tests/server/game/snapshot_streams_test.cpp compares them).
void select_visible(const WorldSample& world, const Area& area, const codec::ViewFrame* previous,
                    const InterestConfig& config, std::vector<codec::QAgent>& out, std::vector<float>& weight);

}  // namespace flockstep::server::game
