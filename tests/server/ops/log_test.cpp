// Structured logs: valid JSON lines, text escaping, per-event rate limiting with a summary.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "ops/log.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::ops {
namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(Log, JsonLinesParseAndEscape) {
  std::ostringstream out;
  Logger log({LogFormat::kJson, Level::kDebug, 100, 100}, out);
  log.warn("ws_close", {{"conn", 7}, {"reason", "bad \"name\"\n\x01"}, {"ok", false}, {"lag", 1.5}});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 1u);
  const auto j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["event"], "ws_close");
  EXPECT_EQ(j["level"], "warn");
  EXPECT_EQ(j["conn"], 7);
  EXPECT_EQ(j["reason"], "bad \"name\"\n\x01");
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["lag"], 1.5);
  EXPECT_TRUE(j.contains("ts"));
}

TEST(Log, TextLinesQuoteValuesWithSpaces) {
  std::ostringstream out;
  Logger log({LogFormat::kText, Level::kInfo, 100, 100}, out);
  log.info("join", {{"name", "two words"}, {"player", 3}});
  log.debug("hidden");  // below the level
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(" info join name=\"two words\" player=3"), std::string::npos) << lines[0];
}

TEST(Log, RateLimitSuppressesPerEventAndReportsTheCount) {
  std::ostringstream out;
  Logger log({LogFormat::kText, Level::kInfo, 1, 3}, out);
  Registry r;
  ServerMetrics m(r);
  log.set_suppressed_counter(&m.log_lines_suppressed);
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  log.set_clock([&] { return now; });
  for (int i = 0; i < 10; ++i) log.warn("malformed", {{"i", i}});
  log.warn("other_event");                    // its own bucket
  EXPECT_EQ(lines_of(out.str()).size(), 4u);  // burst of 3 + the other event
  EXPECT_EQ(log.suppressed_total(), 7u);
  EXPECT_EQ(m.log_lines_suppressed.value(), 7u);
  now += std::chrono::seconds(1);
  log.warn("malformed", {{"i", 10}});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines.back().find("suppressed=7"), std::string::npos) << lines.back();
}

}  // namespace
}  // namespace flockstep::server::ops
