// Server -> client mapping. The round-trip tests fill EVERY field of the sim types with distinct
// values and compare field by field after encode -> bytes -> decode; the field-count checks make
// the build fail when a sim struct gains a field, until the codec and this test map it.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <map>

#include "codec/group_fields.hpp"
#include "codec/server_codec.hpp"
#include "flockstep/sim/world.hpp"

namespace flockstep::codec {
namespace {

// ---- aggregate field counting (brace-initialisation probe) ----
struct AnyField {
  template <class T>
  operator T() const;  // declared only: used in unevaluated requires-expressions
};
template <class T, class... A>
constexpr std::size_t field_count() {
  if constexpr (requires { T{A{}..., AnyField{}}; }) return field_count<T, A..., AnyField>();
  else return sizeof...(A);
}

// If one of these fails, a sim struct changed: map the new field in proto/codec (and the
// .proto mirror), extend the distinct-value fill below, then update the count.
static_assert(field_count<sim::AgentView>() == 11, "AgentView changed: map it in encode_agent/decode_agent");
static_assert(field_count<sim::Scenario>() == 20, "Scenario changed: map it in encode/decode_world_spec");
static_assert(field_count<sim::GroupSpec>() == 47, "GroupSpec changed: map it (group_fields.cpp for numbers)");
static_assert(field_count<sim::PathSpec>() == 3, "PathSpec changed");
static_assert(field_count<behavior::CraftParams>() == 8,
              "CraftParams changed: map it (world.proto CraftParams, group_fields)");
static_assert(field_count<sim::LayerWeights>() == 4, "LayerWeights changed: add it to group_fields.cpp");
static_assert(field_count<sim::FlockSpec>() == 8, "FlockSpec changed: add it to group_fields.cpp");
static_assert(field_count<behavior::WanderParams>() == 3, "WanderParams changed: add it to group_fields.cpp");
static_assert(field_count<behavior::DetectionBoxParams>() == 4,
              "DetectionBoxParams changed: add it to group_fields.cpp");
static_assert(field_count<behavior::FeelerParams>() == 3, "FeelerParams changed: add it to group_fields.cpp");
static_assert(field_count<behavior::HideParams>() == 4, "HideParams changed: add it to group_fields.cpp");

static_assert(field_count<sim::FlySpec>() == 2, "FlySpec changed: add it to group_fields.cpp");
static_assert(field_count<sim::MineSpec>() == 3, "MineSpec changed: add it to group_fields.cpp");
static_assert(field_count<sim::RaySpec>() == 7, "RaySpec changed: add it to group_fields.cpp");

/// Numeric fields of GroupSpec: its own 18 (heading_deg, swerve_after_s, swerve_deg,
/// kinematic_max_rotation, tile_speed, chase_range, flocking, avoid_obstacles) plus the nested
/// parameter structs.
constexpr std::size_t kNumericGroupFields = 18 + 8 + 4 + 8 + 3 + 4 + 3 + 4 + 2 + 3 + 7 + 3;

std::span<const std::byte> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// How often each top-level field number occurs in a serialized message (wire walk, no schema).
/// A frame in which every field occurs at most once decodes the same in every protobuf decoder,
/// including those that replace a repeated embedded message instead of merging it (protobufjs < 8).
std::map<std::uint32_t, int> top_level_fields(const std::string& bytes) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::map<std::uint32_t, int> count;
  while (const std::uint32_t tag = in.ReadTag()) {
    ++count[WireFormatLite::GetTagFieldNumber(tag)];
    if (!WireFormatLite::SkipField(&in, tag)) {
      ADD_FAILURE() << "not a valid encoding";
      break;
    }
  }
  return count;
}

sim::AgentView distinct_view() {
  sim::AgentView v;
  v.id.value = 0x00312345;
  v.kind = sim::AgentKind::kPatrol;
  v.group = 7;
  v.position = {1.5, -2.25};
  v.velocity = {3.125, -4.5};
  v.orientation = 0.75;
  v.angular_velocity = -1.375;
  v.target.value = 0x00400777;
  v.aim = {9.5, 10.25};
  v.state = sim::BehaviorState::kHiding;
  v.spawn_tick = 123456789012ULL;
  return v;
}

void expect_view_eq(const sim::AgentView& a, const sim::AgentView& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.group, b.group);
  EXPECT_TRUE(same_bits(a.position.x, b.position.x) && same_bits(a.position.y, b.position.y));
  EXPECT_TRUE(same_bits(a.velocity.x, b.velocity.x) && same_bits(a.velocity.y, b.velocity.y));
  EXPECT_TRUE(same_bits(a.orientation, b.orientation));
  EXPECT_TRUE(same_bits(a.angular_velocity, b.angular_velocity));
  EXPECT_EQ(a.target, b.target);
  EXPECT_TRUE(same_bits(a.aim.x, b.aim.x) && same_bits(a.aim.y, b.aim.y));
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.spawn_tick, b.spawn_tick);
}

TEST(ServerCodec, AgentViewRoundTripsEveryFieldBitExact) {
  const sim::AgentView in = distinct_view();
  v1::Agent wire;
  encode_agent(in, wire);
  std::string bytes;
  ASSERT_TRUE(wire.SerializeToString(&bytes));
  v1::Agent parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  sim::AgentView out;  // defaults differ from every distinct value above
  ASSERT_TRUE(decode_agent(parsed, out).ok());
  expect_view_eq(in, out);
  // Negative zero and tiny values keep their bits (plain doubles on the wire).
  sim::AgentView z = in;
  z.orientation = -0.0;
  z.velocity = {5e-324, -1e300};
  encode_agent(z, wire);
  ASSERT_TRUE(decode_agent(wire, out).ok());
  expect_view_eq(z, out);
}

TEST(ServerCodec, EveryKindAndStateMapsToADistinctWireValueAndBack) {
  std::set<int> seen;
  for (int k = 0; k < static_cast<int>(sim::AgentKind::kCount); ++k) {
    const auto kind = static_cast<sim::AgentKind>(k);
    const v1::AgentKind w = to_wire(kind);
    EXPECT_NE(w, v1::AGENT_KIND_UNSPECIFIED);
    EXPECT_TRUE(seen.insert(w).second);
    sim::AgentKind back{};
    ASSERT_TRUE(from_wire(w, back));
    EXPECT_EQ(back, kind);
  }
  seen.clear();
  for (int s = 0; s <= static_cast<int>(sim::BehaviorState::kCaptured); ++s) {
    const auto state = static_cast<sim::BehaviorState>(s);
    const v1::BehaviourState w = to_wire(state);
    EXPECT_TRUE(seen.insert(w).second) << s;
    sim::BehaviorState back{};
    ASSERT_TRUE(from_wire(w, back));
    EXPECT_EQ(back, state);
  }
  sim::AgentKind k{};
  EXPECT_FALSE(from_wire(static_cast<v1::AgentKind>(99), k));
  EXPECT_FALSE(from_wire(v1::AGENT_KIND_UNSPECIFIED, k));
}

TEST(ServerCodec, AgentWithNonFiniteOrUnknownValuesIsRejected) {
  v1::Agent wire;
  encode_agent(distinct_view(), wire);
  sim::AgentView out;
  v1::Agent bad = wire;
  bad.mutable_position()->set_x(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(decode_agent(bad, out).status, Status::kNotFinite);
  bad = wire;
  bad.set_angular_velocity(std::numeric_limits<double>::infinity());
  EXPECT_EQ(decode_agent(bad, out).status, Status::kNotFinite);
  bad = wire;
  bad.set_state(static_cast<v1::BehaviourState>(77));
  EXPECT_EQ(decode_agent(bad, out).status, Status::kBadEnum);
}

TEST(ServerCodec, GroupFieldTableCoversEveryNumericFieldOnce) {
  EXPECT_EQ(group_fields().size(), kNumericGroupFields);
  std::set<std::string_view> names;
  for (const GroupField& f : group_fields()) EXPECT_TRUE(names.insert(f.name).second) << f.name;
  // Each setter writes a field no other entry reads (no two entries alias one member).
  for (std::size_t i = 0; i < group_fields().size(); ++i) {
    sim::GroupSpec g;
    const GroupField& f = group_fields()[i];
    std::vector<double> before;
    for (const GroupField& o : group_fields()) before.push_back(o.get(g));
    f.set(g, f.is_bool ? (before[i] != 0 ? 0.0 : 1.0) : before[i] + 1000.5);
    for (std::size_t k = 0; k < group_fields().size(); ++k) {
      if (k == i) EXPECT_NE(group_fields()[k].get(g), before[k]) << f.name;
      else EXPECT_EQ(group_fields()[k].get(g), before[k]) << f.name << " also changed " << group_fields()[k].name;
    }
  }
}

/// A scenario with every field set to a value that differs from its default and from the
/// other fields, still valid for sim::validate().
sim::Scenario distinct_scenario() {
  sim::Scenario s;
  s.name = "distinct";
  s.description = "every field differs";
  s.width = 321.5;
  s.height = 234.25;
  s.wrap = true;
  s.tick_rate_hz = 50;
  s.seed = 0xDEADBEEFCAFEULL;
  s.max_agents = 777;
  s.max_players = 13;
  s.grid_cell = 16.5;
  s.player_craft = {1.1, 0.6, 1.2, 4.4, 3.3, 0.45, 4.5, 2.5};
  s.respawn_protection_s = 2.75;
  s.steering_interval_ticks = 3;
  s.obstacles = {{{10.5, 20.5}, 3.5}, {{30.25, 40.75}, 1.25}};
  s.walls = {{{1.5, 2.5}, {3.5, 4.5}}};
  s.paths = {{"loop", {{5.5, 6.5}, {7.5, 8.5}, {9.5, 1.5}}, true}, {"line", {{0.5, 0.25}, {2, 3}}, false}};
  sim::GroupSpec a;
  a.name = "alpha";
  a.kind = sim::AgentKind::kPatrol;
  a.technique = sim::Technique::kPathFollow;
  a.count = 3;
  a.spawn_min = {11.5, 12.5};
  a.spawn_max = {13.5, 14.5};
  a.path = 1;
  a.leader_group = -1;
  a.offset = {-4.5, 1.25};
  a.pattern = sim::PatternKind::kZigZag;
  a.goal = {3.5, 4.5};
  a.tile_pattern = 0;
  // Every numeric parameter gets default + a distinct step; stays valid (see validate()).
  int i = 0;
  for (const GroupField& f : group_fields()) {
    if (f.is_bool) f.set(a, f.get(a) != 0 ? 0 : 1);
    else f.set(a, f.get(a) + 0.125 * (++i));
  }
  sim::GroupSpec b;
  b.name = "beta";
  b.kind = sim::AgentKind::kPatrol;
  b.technique = sim::Technique::kOffsetPursuit;
  b.count = 2;
  b.leader_group = 0;
  b.pattern = sim::PatternKind::kArbitrary;
  b.target_group = 0;
  b.track = 0;
  s.groups = {a, b};
  // Tile data: a 5 x 4 map of 4.5 m cells, one wall tile, a pattern and a track.
  s.tiles.cols = 5;
  s.tiles.rows = 4;
  s.tiles.cell = 4.5;
  s.tiles.blocked.assign(20, 0);
  s.tiles.blocked[3 * 5 + 4] = 1;
  s.tile_patterns = {{"hook", {{0, 0}, {0, 3}, {2, 3}, {0, 0}}, 1, 0}};
  s.tracks = {{"rail", {{0, 0, 0, 4}, {1, 0, 3, 0}}}};
  // A distinct value a parameter's range refuses (probabilities, enumerations such as
  // rays.config) goes back to its default: validate() names it, up to once per field.
  for (std::size_t tries = 0; tries < group_fields().size(); ++tries) {
    const std::string why = sim::validate(s);
    const std::string prefix = "groups[0].";
    if (why.rfind(prefix, 0) != 0) break;
    const GroupField* f = find_group_field(why.substr(prefix.size(), why.find(':') - prefix.size()));
    if (!f) break;
    f->set(s.groups[0], f->get(sim::GroupSpec{}));
  }
  return s;
}

void expect_group_eq(const sim::GroupSpec& a, const sim::GroupSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.technique, b.technique);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.spawn_min, b.spawn_min);
  EXPECT_EQ(a.spawn_max, b.spawn_max);
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.leader_group, b.leader_group);
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(a.pattern, b.pattern);
  EXPECT_EQ(a.target_group, b.target_group);
  EXPECT_EQ(a.goal, b.goal);
  EXPECT_EQ(a.tile_pattern, b.tile_pattern);
  EXPECT_EQ(a.track, b.track);
  for (const GroupField& f : group_fields()) EXPECT_TRUE(same_bits(f.get(a), f.get(b))) << f.name;
}

TEST(ServerCodec, ScenarioRoundTripsEveryFieldThroughWelcome) {
  const sim::Scenario in = distinct_scenario();
  ASSERT_EQ(sim::validate(in), "");
  WelcomeInfo info;
  info.player_id = 9;
  info.entity.value = 0x00100003;
  info.role = Role::kPlayer;
  info.tick_rate_hz = 50;
  info.snapshot_rate_hz = 25;
  info.server_tick = 4242;
  info.resume_token = std::string(kResumeTokenBytes, 'r');
  info.resume_window_ms = 9000;
  info.max_input_frames = 48;
  std::string bytes;
  encode_welcome(info, in, bytes);

  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  ASSERT_EQ(msg.payload_case(), v1::ServerMessage::kWelcome);
  const v1::Welcome& w = msg.welcome();
  EXPECT_EQ(w.player_id(), 9u);
  EXPECT_EQ(w.entity_id(), 0x00100003u);
  EXPECT_EQ(w.role(), v1::ROLE_PLAYER);
  EXPECT_EQ(w.tick_rate_hz(), 50u);
  EXPECT_EQ(w.snapshot_rate_hz(), 25u);
  EXPECT_EQ(w.server_tick(), 4242u);
  EXPECT_EQ(w.resume_token(), info.resume_token);
  EXPECT_EQ(w.resume_window_ms(), 9000u);
  EXPECT_EQ(w.max_input_frames(), 48u);

  sim::Scenario out;  // all defaults: every mapped field must be overwritten
  const Result r = decode_world_spec(w.world(), out);
  ASSERT_TRUE(r.ok()) << r.detail;
  EXPECT_EQ(out.name, in.name);
  EXPECT_EQ(out.description, in.description);
  EXPECT_EQ(out.width, in.width);
  EXPECT_EQ(out.height, in.height);
  EXPECT_EQ(out.wrap, in.wrap);
  EXPECT_EQ(out.tick_rate_hz, in.tick_rate_hz);
  EXPECT_EQ(out.seed, in.seed);
  EXPECT_EQ(out.max_agents, in.max_agents);
  EXPECT_EQ(out.max_players, in.max_players);
  EXPECT_EQ(out.grid_cell, in.grid_cell);
  const behavior::CraftParams& c = out.player_craft;
  const behavior::CraftParams& e = in.player_craft;
  EXPECT_EQ(c.mass, e.mass);
  EXPECT_EQ(c.inertia, e.inertia);
  EXPECT_EQ(c.length, e.length);
  EXPECT_EQ(c.thrust, e.thrust);
  EXPECT_EQ(c.max_steering_force, e.max_steering_force);
  EXPECT_EQ(c.linear_drag, e.linear_drag);
  EXPECT_EQ(c.lateral_drag, e.lateral_drag);
  EXPECT_EQ(c.angular_drag, e.angular_drag);
  EXPECT_EQ(out.respawn_protection_s, in.respawn_protection_s);
  EXPECT_EQ(out.steering_interval_ticks, in.steering_interval_ticks);
  ASSERT_EQ(out.obstacles.size(), in.obstacles.size());
  for (std::size_t i = 0; i < in.obstacles.size(); ++i) {
    EXPECT_EQ(out.obstacles[i].center, in.obstacles[i].center);
    EXPECT_EQ(out.obstacles[i].radius, in.obstacles[i].radius);
  }
  ASSERT_EQ(out.walls.size(), in.walls.size());
  EXPECT_EQ(out.walls[0].a, in.walls[0].a);
  EXPECT_EQ(out.walls[0].b, in.walls[0].b);
  ASSERT_EQ(out.paths.size(), in.paths.size());
  for (std::size_t i = 0; i < in.paths.size(); ++i) {
    EXPECT_EQ(out.paths[i].name, in.paths[i].name);
    EXPECT_EQ(out.paths[i].loop, in.paths[i].loop);
    EXPECT_EQ(out.paths[i].points, in.paths[i].points);
  }
  ASSERT_EQ(out.groups.size(), in.groups.size());
  for (std::size_t i = 0; i < in.groups.size(); ++i) expect_group_eq(in.groups[i], out.groups[i]);
  EXPECT_EQ(w.room(), "");
  EXPECT_EQ(out.tiles.cols, in.tiles.cols);
  EXPECT_EQ(out.tiles.rows, in.tiles.rows);
  EXPECT_EQ(out.tiles.cell, in.tiles.cell);
  EXPECT_EQ(out.tiles.blocked, in.tiles.blocked);
  ASSERT_EQ(out.tile_patterns.size(), 1u);
  EXPECT_EQ(out.tile_patterns[0].name, "hook");
  EXPECT_EQ(out.tile_patterns[0].vertices, in.tile_patterns[0].vertices);
  EXPECT_EQ(out.tile_patterns[0].row_offset, 1);
  EXPECT_EQ(out.tile_patterns[0].col_offset, 0);
  ASSERT_EQ(out.tracks.size(), 1u);
  EXPECT_EQ(out.tracks[0].name, "rail");
  EXPECT_EQ(out.tracks[0].segments, in.tracks[0].segments);
}

TEST(ServerCodec, WelcomeCarriesTheRoomName) {
  WelcomeInfo info;
  info.room = "arena";
  std::string bytes;
  encode_welcome(info, distinct_scenario(), bytes);
  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  EXPECT_EQ(msg.welcome().room(), "arena");
}

TEST(ServerCodec, SteeringTraceRoundTripsBitForBitAndRejectsBadNumbers) {
  sim::SteeringTrace t;
  t.agent = sim::AgentId{0x300005u};
  t.tick = 777;
  t.group = 2;
  t.count = 3;
  t.behaviors[0] = {sim::BehaviorType::kSeparation, true, {{0.1, -2.5e-7}, 0}, 1.5};
  t.behaviors[1] = {sim::BehaviorType::kDynamicWander, false, {}, 0.25};
  t.behaviors[2] = {sim::BehaviorType::kAlign, true, {{0, 0}, -3.0000000000000004}, 2};
  t.result = {{1.0 / 3.0, -7.125}, 0.5};
  std::string bytes;
  encode_steering_trace(t, bytes);
  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  ASSERT_EQ(msg.payload_case(), v1::ServerMessage::kSteeringTrace);
  EXPECT_TRUE(msg.steering_trace().available());
  EXPECT_EQ(msg.steering_trace().behaviours(0).type(), "separation");
  sim::SteeringTrace back;
  ASSERT_TRUE(decode_steering_trace(msg.steering_trace(), back).ok());
  EXPECT_EQ(back.agent, t.agent);
  EXPECT_EQ(back.tick, 777u);
  EXPECT_EQ(back.group, 2);
  ASSERT_EQ(back.count, 3);
  for (int q = 0; q < 3; ++q) {
    EXPECT_EQ(back.behaviors[q].type, t.behaviors[q].type);
    EXPECT_EQ(back.behaviors[q].evaluated, t.behaviors[q].evaluated);
    EXPECT_EQ(back.behaviors[q].raw.linear, t.behaviors[q].raw.linear);
    EXPECT_EQ(back.behaviors[q].raw.angular, t.behaviors[q].raw.angular);
    EXPECT_EQ(back.behaviors[q].weight, t.behaviors[q].weight);
  }
  EXPECT_EQ(back.result.linear, t.result.linear);
  EXPECT_EQ(back.result.angular, t.result.angular);
  // Refused: a NaN, an unknown behaviour, too many behaviours.
  v1::SteeringTrace bad = msg.steering_trace();
  bad.mutable_behaviours(1)->mutable_linear()->set_x(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(decode_steering_trace(bad, back).status, Status::kNotFinite);
  bad = msg.steering_trace();
  bad.mutable_behaviours(0)->set_type("teleport");
  EXPECT_EQ(decode_steering_trace(bad, back).status, Status::kBadEnum);
  bad = msg.steering_trace();
  while (bad.behaviours_size() <= sim::kMaxBehaviors) *bad.add_behaviours() = bad.behaviours(0);
  EXPECT_EQ(decode_steering_trace(bad, back).status, Status::kTooBig);
  // The refusal carries only the agent.
  bytes.clear();
  encode_trace_unavailable(9, 10, bytes);
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  EXPECT_FALSE(msg.steering_trace().available());
  EXPECT_EQ(msg.steering_trace().agent_id(), 9u);
  EXPECT_EQ(msg.steering_trace().behaviours_size(), 0);
}

TEST(ServerCodec, GroupUpdateRoundTripsTheWholeGroup) {
  const sim::Scenario s = distinct_scenario();
  std::string bytes;
  encode_group_update(1234, 1, s.groups[1], bytes);
  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  ASSERT_EQ(msg.payload_case(), v1::ServerMessage::kGroupUpdate);
  EXPECT_EQ(msg.group_update().server_tick(), 1234u);
  EXPECT_EQ(msg.group_update().group(), 1);
  sim::GroupSpec g;
  ASSERT_TRUE(decode_group(msg.group_update().spec(), "spec", g).ok());
  expect_group_eq(s.groups[1], g);
  v1::AgentGroup bad = msg.group_update().spec();
  bad.mutable_goal()->set_x(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(decode_group(bad, "spec", g).status, Status::kNotFinite);
}

TEST(ServerCodec, TileMapWithTheWrongCellCountIsRejected) {
  v1::WorldSpec spec;
  encode_world_spec(distinct_scenario(), spec);
  spec.mutable_tiles()->set_cells(std::string(19, '\0'));
  sim::Scenario out;
  EXPECT_EQ(decode_world_spec(spec, out).status, Status::kMalformed);
  encode_world_spec(distinct_scenario(), spec);
  spec.mutable_tile_patterns(0)->add_vertices(1);
  EXPECT_EQ(decode_world_spec(spec, out).status, Status::kMalformed);
}

TEST(ServerCodec, WorldSpecDecodeRejectsBadValues) {
  v1::WorldSpec spec;
  encode_world_spec(distinct_scenario(), spec);
  sim::Scenario out;
  v1::WorldSpec bad = spec;
  bad.set_width(std::numeric_limits<double>::infinity());
  EXPECT_EQ(decode_world_spec(bad, out).status, Status::kNotFinite);
  bad = spec;
  bad.mutable_groups(0)->set_technique("teleport");
  EXPECT_EQ(decode_world_spec(bad, out).status, Status::kBadEnum);
  bad = spec;
  bad.mutable_groups(0)->add_params()->set_name("no_such_param");
  EXPECT_EQ(decode_world_spec(bad, out).status, Status::kBadEnum);
  bad = spec;
  bad.mutable_groups(1)->set_leader_group(1);  // leads itself: sim::validate refuses
  const Result r = decode_world_spec(bad, out);
  EXPECT_EQ(r.status, Status::kMalformed);
  EXPECT_NE(r.detail.find("leader_group"), std::string::npos) << r.detail;
}

sim::Scenario small_world() {
  sim::Scenario s;
  s.name = "small";
  s.width = 60;
  s.height = 60;
  s.wrap = true;
  s.max_agents = 64;
  s.max_players = 4;
  sim::GroupSpec g;
  g.name = "boids";
  g.count = 12;
  s.groups = {g};
  return s;
}

TEST(ServerCodec, SnapshotBodyPlusSuffixDecodesAsOneSnapshot) {
  const sim::Scenario scenario = small_world();
  sim::World world(scenario);
  const sim::AgentId player = world.add_player();
  ASSERT_TRUE(player.valid());
  for (int i = 0; i < 5; ++i) world.step();
  SnapshotEncoder enc;
  const std::string body = enc.encode_body(world);
  std::string suffix;
  encode_snapshot_suffix({0xABCDE, 3, 7}, suffix);
  EXPECT_LE(suffix.size(), 10u);  // a few bytes per player

  // Protocol 2: the body sets the payload (field 2) and the suffix only ServerMessage.player
  // (field 11), each once: no decoder has to merge two Snapshot occurrences.
  EXPECT_EQ(top_level_fields(body), (std::map<std::uint32_t, int>{{2, 1}}));
  EXPECT_EQ(top_level_fields(suffix), (std::map<std::uint32_t, int>{{11, 1}}));
  v1::ServerMessage raw;
  ASSERT_TRUE(raw.ParseFromString(body + suffix));
  EXPECT_EQ(raw.player().last_input_sequence(), 0xABCDEu);
  EXPECT_EQ(raw.player().input_held_ticks(), 3u);
  EXPECT_EQ(raw.player().input_slips(), 7u);
  EXPECT_FALSE(raw.player().has_own()) << "plain agents are exact already";

  // decode_server_message keeps both parts: the shared body and the player's own.
  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(body + suffix), msg).ok());
  ASSERT_EQ(msg.payload_case(), v1::ServerMessage::kSnapshot);
  ASSERT_TRUE(msg.has_player());
  EXPECT_EQ(msg.player().last_input_sequence(), 0xABCDEu);
  EXPECT_EQ(msg.player().input_held_ticks(), 3u);
  EXPECT_EQ(msg.player().input_slips(), 7u);
  EXPECT_EQ(msg.snapshot().server_tick(), world.tick());
  EXPECT_EQ(msg.snapshot().state_hash(), world.state_hash());
  std::vector<sim::AgentView> views;
  ASSERT_TRUE(decode_snapshot_agents(msg.snapshot(), views).ok());
  ASSERT_EQ(static_cast<std::int32_t>(views.size()), world.size());
  for (std::int32_t i = 0; i < world.size(); ++i) expect_view_eq(world.view(i), views[static_cast<std::size_t>(i)]);

  // The body alone (spectators) is a snapshot without a player part.
  ASSERT_TRUE(decode_server_message(bytes_of(body), msg).ok());
  EXPECT_EQ(msg.payload_case(), v1::ServerMessage::kSnapshot);
  EXPECT_FALSE(msg.has_player());
}

// Protocol 1 carried a player's input progress and craft inside Snapshot (2, 5, 6) and
// DeltaSnapshot (6-9). Protocol 2 sends them in ServerMessage.player only, and messages.proto
// reserves the old numbers and names (tests/deploy/check_proto_reserved.py checks that), so the
// generated classes have no accessor that would read a zero from the shared body.
template <class M>
concept HasSequence = requires(const M& m) {
  m.last_input_sequence();
};
template <class M>
concept HasHeldTicks = requires(const M& m) {
  m.input_held_ticks();
};
template <class M>
concept HasSlips = requires(const M& m) {
  m.input_slips();
};
template <class M>
concept HasOwn = requires(const M& m) {
  m.own();
};
static_assert(!HasSequence<v1::Snapshot> && !HasHeldTicks<v1::Snapshot> && !HasSlips<v1::Snapshot>,
              "Snapshot declares a field protocol 2 never sends");
static_assert(!HasSequence<v1::DeltaSnapshot> && !HasHeldTicks<v1::DeltaSnapshot> && !HasSlips<v1::DeltaSnapshot> &&
                  !HasOwn<v1::DeltaSnapshot>,
              "DeltaSnapshot declares a field protocol 2 never sends");
static_assert(HasSequence<v1::PlayerSnapshot> && HasHeldTicks<v1::PlayerSnapshot> && HasSlips<v1::PlayerSnapshot> &&
                  HasOwn<v1::PlayerSnapshot>,
              "control: the concepts find the fields where they are");

TEST(ServerCodec, FieldsNoLongerOnTheWireAreSkippedAsUnknown) {
  // An old (protocol 1) server's Snapshot with last_input_sequence = 7 in field 2: it parses, and
  // the value is nowhere a caller could read it as the sequence (only ServerMessage.player has it).
  // ServerMessage field 2 (snapshot, length 4) = {field 1 (server_tick) = 9, field 2 = 7}.
  const std::string old_body("\x12\x04\x08\x09\x10\x07", 6);
  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(old_body), msg).ok());
  EXPECT_EQ(msg.snapshot().server_tick(), 9u);
  EXPECT_FALSE(msg.has_player());
  EXPECT_EQ(msg.player().last_input_sequence(), 0u);
}

TEST(ServerCodec, DeltaBodyPlusPlayerPartSetEachFieldOnceAndDecodeAsOneSnapshot) {
  std::string body;
  encode_delta_body(600, 597, 0x1234, std::string("\x01\x02\x03", 3), 3, body);
  sim::AgentView own = distinct_view();
  std::string suffix;
  encode_delta_suffix({41, 2, 9}, &own, suffix);
  const std::string frame = body + suffix;
  EXPECT_EQ(top_level_fields(frame), (std::map<std::uint32_t, int>{{10, 1}, {11, 1}}));

  v1::ServerMessage raw;  // what a decoder of the .proto files sees
  ASSERT_TRUE(raw.ParseFromString(frame));
  EXPECT_EQ(raw.delta_snapshot().server_tick(), 600u);
  EXPECT_EQ(raw.delta_snapshot().baseline_tick(), 597u);
  EXPECT_EQ(raw.player().last_input_sequence(), 41u);
  EXPECT_EQ(raw.player().own().id(), own.id.value);
  EXPECT_TRUE(same_bits(raw.player().own().position().x(), own.position.x));

  v1::ServerMessage msg;  // what the C++ callers see: both parts of the frame
  ASSERT_TRUE(decode_server_message(bytes_of(frame), msg).ok());
  const v1::DeltaSnapshot& d = msg.delta_snapshot();
  EXPECT_EQ(d.server_tick(), 600u);
  EXPECT_EQ(d.baseline_tick(), 597u);
  EXPECT_EQ(d.state_hash(), 0x1234u);
  EXPECT_EQ(d.agent_count(), 3u);
  const v1::PlayerSnapshot& p = msg.player();
  EXPECT_EQ(p.last_input_sequence(), 41u);
  EXPECT_EQ(p.input_held_ticks(), 2u);
  EXPECT_EQ(p.input_slips(), 9u);
  ASSERT_TRUE(p.has_own());
  EXPECT_EQ(p.own().id(), own.id.value);
  EXPECT_TRUE(same_bits(p.own().velocity().y(), own.velocity.y));
  EXPECT_TRUE(same_bits(p.own().heading(), own.orientation));
  EXPECT_TRUE(same_bits(p.own().angular_velocity(), own.angular_velocity));
  EXPECT_EQ(p.own().spawn_tick(), own.spawn_tick);

  // A player whose craft is not in the world: the part is there, without `own`.
  encode_delta_suffix({41, 0, 9}, nullptr, suffix);
  ASSERT_TRUE(decode_server_message(bytes_of(body + suffix), msg).ok());
  EXPECT_FALSE(msg.player().has_own());
  EXPECT_EQ(msg.player().last_input_sequence(), 41u);

  // `player` belongs to snapshots only.
  std::string pong;
  encode_server_pong(1, 2, pong);
  EXPECT_EQ(decode_server_message(bytes_of(pong + suffix), msg).status, Status::kMalformed);
}

TEST(ServerCodec, WelcomeNamesTheProtocolVersion) {
  WelcomeInfo info;
  std::string bytes;
  sim::Scenario scenario;
  scenario.width = scenario.height = 100;
  encode_welcome(info, scenario, bytes);
  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  EXPECT_EQ(msg.welcome().protocol_version(), kProtocolVersion);
  EXPECT_EQ(kProtocolVersion, 3u);
}

TEST(ServerCodec, SnapshotEncoderReusesMessagesAndTracksRemovals) {
  const sim::Scenario scenario = small_world();
  sim::World world(scenario);
  const sim::AgentId p = world.add_player();
  world.step();
  SnapshotEncoder enc;
  v1::ServerMessage msg;
  ASSERT_TRUE(msg.ParseFromString(enc.encode_body(world)));
  const int before = msg.snapshot().agents_size();
  EXPECT_EQ(before, world.size());
  world.remove(p);
  world.step();
  ASSERT_TRUE(msg.ParseFromString(enc.encode_body(world)));
  EXPECT_EQ(msg.snapshot().agents_size(), before - 1);
  for (const v1::Agent& a : msg.snapshot().agents()) EXPECT_NE(a.id(), p.value);
}

TEST(ServerCodec, EventsCloseAndPongEncode) {
  v1::Events ev;
  sim::Event cap;
  cap.type = sim::Event::Type::kCapture;
  cap.subject.value = 5;
  cap.other.value = 6;
  cap.tick = 700;
  cap.survived_ticks = 650;
  add_capture(ev, 3, cap);
  sim::Event resp = cap;
  resp.type = sim::Event::Type::kRespawn;
  add_respawn(ev, 3, resp);
  std::string bytes;
  encode_events(ev, bytes);
  v1::ServerMessage msg;
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  ASSERT_EQ(msg.events().captures_size(), 1);
  EXPECT_EQ(msg.events().captures(0).player_id(), 3u);
  EXPECT_EQ(msg.events().captures(0).pursuer_id(), 6u);
  EXPECT_EQ(msg.events().captures(0).survived_ticks(), 650u);
  ASSERT_EQ(msg.events().respawns_size(), 1);
  EXPECT_EQ(msg.events().respawns(0).entity_id(), 5u);

  encode_close(v1::Close::CODE_TOO_SLOW, std::string(500, 'x'), bytes);
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  EXPECT_EQ(msg.close().code(), v1::Close::CODE_TOO_SLOW);
  EXPECT_EQ(msg.close().reason().size(), 120u);  // truncated to fit a WebSocket close frame

  encode_server_pong(77, 88, bytes);
  ASSERT_TRUE(decode_server_message(bytes_of(bytes), msg).ok());
  EXPECT_EQ(msg.pong().echo_time_us(), 77u);
  EXPECT_EQ(msg.pong().server_tick(), 88u);
}

}  // namespace
}  // namespace flockstep::codec
