#pragma once
/// \file group_fields.hpp
/// The one table of every numeric parameter of a sim::GroupSpec, by its scenario-file name
/// ("max_speed", "craft.thrust", "flock.neighbour_radius", ...). The wire codec sends a group's
/// behaviour table with it (WorldSpec.groups[].params) and the server's JSON scenario loader reads
/// groups with it, so a parameter added to the sim needs one line here to reach files, wire and
/// clients (and the codec round-trip test fails until it has it).
#include <span>
#include <string_view>

#include "flockstep/sim/world.hpp"

namespace flockstep::codec {

/// One numeric (or boolean, as 0/1) field of GroupSpec.
struct GroupField {
  std::string_view name;  ///< dotted: "section.field" for nested structs
  double (*get)(const sim::GroupSpec&);
  void (*set)(sim::GroupSpec&, double);
  bool is_bool = false;   ///< stored as 0/1 on the wire; JSON uses true/false
};

/// Every numeric field of GroupSpec, in declaration order.
std::span<const GroupField> group_fields();

/// Find a field by name; nullptr if unknown.
const GroupField* find_group_field(std::string_view name);

/// Physics pattern name ("square", "zigzag", "arbitrary").
const char* pattern_name(sim::PatternKind k);
/// Parse a pattern name; false if unknown.
bool parse_pattern(std::string_view name, sim::PatternKind& out);

}  // namespace flockstep::codec
