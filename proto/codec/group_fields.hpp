#pragma once
/// \file group_fields.hpp
/// The one table of every numeric parameter of a sim::GroupSpec, by its scenario-file name
/// ("max_speed", "craft.thrust", "flock.neighbour_radius", ...). The wire codec sends a group's
/// behaviour table with it (WorldSpec.groups[].params) and the server's JSON scenario loader reads
/// groups with it, so a parameter added to the sim needs one line here to reach files, wire and
/// clients (and the codec round-trip test fails until it has it).
#include <cstdint>
#include <span>
#include <string_view>

#include "flockstep/sim/scenario.hpp"

namespace flockstep::codec {

/// One numeric (or boolean, as 0/1) field of GroupSpec.
struct GroupField {
  std::string_view name;  ///< dotted: "section.field" for nested structs
  double (*get)(const sim::GroupSpec&);
  void (*set)(sim::GroupSpec&, double);
  bool is_bool = false;    ///< stored as 0/1 on the wire; JSON uses true/false
  std::string_view unit;   ///< "m/s", "" for unitless
  std::string_view limit;  ///< valid range as sim::validate() checks it
  std::string_view doc;    ///< one line
};

/// Every numeric field of GroupSpec, in declaration order.
std::span<const GroupField> group_fields();

/// Find a field by name; nullptr if unknown.
const GroupField* find_group_field(std::string_view name);

/// What a tunable parameter path names (see set_group_param).
enum class ParamKind : std::uint8_t { kUnknown = 0, kNumber, kBool };

/// The kind of a tunable parameter of `g` by its path: a group_fields() name ("max_speed"), a
/// composition field ("sharpness", "filters.heading_samples") or a behaviour field of a composed
/// group ("behaviors[2].weight", "behaviors[0].slow_radius"). kUnknown if there is no such
/// parameter (an unknown name, or a behaviour index the group does not have).
ParamKind group_param_kind(const sim::GroupSpec& g, std::string_view path);

/// Set the parameter `path` of `g` (see group_param_kind) to `value`. Returns false when the
/// path names nothing. Range checks are sim::validate()'s job.
bool set_group_param(sim::GroupSpec& g, std::string_view path, double value);

/// Physics pattern name ("square", "zigzag", "arbitrary").
const char* pattern_name(sim::PatternKind k);
/// Parse a pattern name; false if unknown.
bool parse_pattern(std::string_view name, sim::PatternKind& out);

}  // namespace flockstep::codec
