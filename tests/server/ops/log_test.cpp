// Structured logs: valid JSON lines, text escaping, per-event rate limiting with a summary.
#include <gtest/gtest.h>

#include <limits>
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

TEST(Log, JsonLinesWriteNonFiniteNumbersAsNullAndCarryNestedObjects) {
  std::ostringstream out;
  Logger log({LogFormat::kJson, Level::kDebug, 100, 100}, out);
  const double inf = std::numeric_limits<double>::infinity();
  log.info("numbers", {{"nan", std::numeric_limits<double>::quiet_NaN()},
                       {"inf", inf},
                       {"ninf", -inf},
                       {"f", 2.5f},
                       {"neg", -3},
                       {"big", std::uint64_t{1} << 63},
                       {"bad_utf8",
                        "a\xff\xfe"
                        "b"}});
  log.log(Level::kInfo, "config", {{"conn", 1}},
          nlohmann::json{{"config", {{"port", 8080}, {"host", "::"}}}, {"file", nullptr}});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  for (const char* bare : {":nan", ":inf", ":-inf", ":-nan"})  // what printf would write
    EXPECT_EQ(lines[0].find(bare), std::string::npos) << lines[0];
  const auto j = nlohmann::json::parse(lines[0]);
  EXPECT_TRUE(j["nan"].is_null());
  EXPECT_TRUE(j["inf"].is_null());
  EXPECT_TRUE(j["ninf"].is_null());
  EXPECT_EQ(j["f"], 2.5);
  EXPECT_EQ(j["neg"], -3);
  EXPECT_EQ(j["big"], std::uint64_t{1} << 63);
  const std::string replaced = j["bad_utf8"];  // U+FFFD (EF BF BD) in place of the bad bytes
  EXPECT_EQ(replaced.front(), 'a');
  EXPECT_EQ(replaced.back(), 'b');
  EXPECT_NE(replaced.find("\xEF\xBF\xBD"), std::string::npos) << replaced;
  // ts, level and event lead every line.
  EXPECT_EQ(lines[1].rfind("{\"ts\":", 0), 0u) << lines[1];
  EXPECT_LT(lines[1].find("\"level\""), lines[1].find("\"event\""));
  const auto c = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(c["event"], "config");
  EXPECT_EQ(c["conn"], 1);
  EXPECT_EQ(c["config"]["port"], 8080);
  EXPECT_TRUE(c["file"].is_null());
}

TEST(Log, TextLinesWriteNestedObjectsAsCompactJson) {
  std::ostringstream out;
  Logger log({LogFormat::kText, Level::kInfo, 100, 100}, out);
  log.log(Level::kInfo, "config", {}, nlohmann::json{{"config", {{"port", 8080}}}});
  EXPECT_NE(out.str().find(" info config config={\"port\":8080}\n"), std::string::npos) << out.str();
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
