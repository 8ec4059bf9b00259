#include "game/published_rooms.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "game/room_state.hpp"
#include "game/scenario_file.hpp"
#include "ops/log.hpp"

namespace flockstep::server::game {

namespace fs = std::filesystem;

namespace {
constexpr std::string_view kExtension = ".json";

/// The key path a ScenarioError message starts with ("groups[0].count: expected ..."); "" for
/// the body as a whole ("scenario: not valid JSON ...").
std::string key_of(const std::string& message) {
  const auto colon = message.find(": ");
  if (colon == std::string::npos) return {};
  std::string key = message.substr(0, colon);
  if (key == "scenario" || key.find(' ') != std::string::npos) return {};
  return key;
}
}  // namespace

std::string check_published_name(std::string_view name) {
  if (name.empty()) return "name: empty (1.." + std::to_string(kPublishedNameMaxBytes) + " of a-z 0-9 _ -)";
  if (name.size() > kPublishedNameMaxBytes)
    return "name: longer than " + std::to_string(kPublishedNameMaxBytes) + " characters";
  if (name.front() == '-') return "name: must not start with '-'";
  const bool ok = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  if (!ok) return "name: only a-z 0-9 _ - are allowed";
  return {};
}

std::uint32_t scenario_agents(const sim::Scenario& s) {
  std::uint64_t n = 0;
  for (const sim::GroupSpec& g : s.groups) n += static_cast<std::uint64_t>(std::max(0, g.count));
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(n, UINT32_MAX));
}

PublishResult parse_published(std::string_view name, std::string_view body, const PublishSettings& limits,
                              sim::Scenario& out) {
  if (std::string why = check_published_name(name); !why.empty()) return {400, why, "name"};
  if (body.size() > kPublishBodyLimit)
    return {400, "body: larger than " + std::to_string(kPublishBodyLimit) + " bytes", {}};
  sim::Scenario s;
  try {
    s = parse_scenario(std::string(body));  // the scenario_dir loader's parser and checks
  } catch (const ScenarioError& e) {
    return {400, e.what(), key_of(e.what())};
  }
  s.name = std::string(name);
  const std::uint32_t agents = scenario_agents(s);
  const std::string limit = std::to_string(limits.max_agents) + " (published_max_agents)";
  if (static_cast<std::uint32_t>(s.max_agents) > limits.max_agents)
    return {400, "max_agents: " + std::to_string(s.max_agents) + " is over the limit of published rooms, " + limit,
            "max_agents"};
  // sim::validate (in parse_scenario) keeps the groups and max_players within max_agents, so
  // bounding max_agents bounds the agents and the memory the room sizes.
  out = std::move(s);
  PublishResult r;
  r.agents = agents;
  return r;
}

PublishedStore::PublishedStore(std::string dir, ops::Logger* log) : dir_(std::move(dir)), log_(log) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_)) throw std::runtime_error("published_dir '" + dir_ + "': cannot create it");
  // Only the server's user reads what admins published.
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace, ec);
}

std::string PublishedStore::path_of(const std::string& name) const {
  return (fs::path(dir_) / (name + std::string(kExtension))).string();
}

std::string PublishedStore::save(const sim::Scenario& s) const {
  return write_file_atomic(path_of(s.name), scenario_to_json(s) + "\n", kStateFileMode);
}

void PublishedStore::remove(const std::string& name) const {
  std::error_code ec;
  fs::remove(path_of(name), ec);
}

std::vector<sim::Scenario> PublishedStore::load_all(const PublishSettings& limits) const {
  std::vector<sim::Scenario> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (e.is_regular_file(ec) && e.path().extension() == kExtension) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    // The stem is the room's name; the file goes through the same checks as a PUT body.
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    sim::Scenario s;
    std::string why = in ? parse_published(f.stem().string(), text.str(), limits, s).error : "cannot be read";
    if (why.empty()) {
      out.push_back(std::move(s));
      continue;
    }
    if (log_) log_->warn("published_rejected", {{"file", f.string()}, {"error", why}});
    fs::rename(f, fs::path(f.string() + ".bad"), ec);
  }
  return out;
}

}  // namespace flockstep::server::game
