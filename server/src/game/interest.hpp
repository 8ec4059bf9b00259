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
  double cx = 0, cy = 0;   ///< circle centre (players: the craft), m
  double radius = 0;       ///< circle radius, m
  codec::ViewRect rect;    ///< kRect, m
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
};

/// Agents of `world` inside `area` (plus, with hysteresis, those of `previous` still near it),
/// sorted by id, with their budget weights (nearer and faster = larger).
void select_visible(const WorldSample& world, const Area& area, const codec::ViewFrame* previous,
                    const InterestConfig& config, std::vector<codec::QAgent>& out, std::vector<float>& weight);

}  // namespace flockstep::server::game
