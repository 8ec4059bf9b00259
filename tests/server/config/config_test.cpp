// Configuration precedence, validation and messages that name the bad key or flag.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.hpp"
#include "config/config.hpp"

#include <nlohmann/json.hpp>

namespace flockstep::server::config {
namespace {

using Env = std::map<std::string, std::string>;

LoadResult load_with(const std::vector<std::string>& args, const Env& env = {}) {
  return load(args, [&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

/// The ConfigError message of a failing load, or "" if it did not fail.
std::string error_of(const std::vector<std::string>& args, const Env& env = {}) {
  try {
    load_with(args, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, DefaultsLoadAndEveryKeyIsInHelpWithItsLimit) {
  const LoadResult r = load_with({});
  EXPECT_EQ(r.config.port, 8080u);
  EXPECT_EQ(r.config.tick_rate_hz, 60u);
  EXPECT_EQ(r.config.snapshot_rate_hz, 20u);
  EXPECT_EQ(r.config.send_queue_snapshots, 2u);
  const std::string help = help_text();
  for (const char* flag : {"--port", "--max-connections", "--max-message-bytes", "--input-rate-hz", "--idle-timeout-ms",
                           "--handshake-timeout-ms", "--send-queue-snapshots", "--tick-rate-hz", "--snapshot-rate-hz",
                           "--bots", "--web-root", "--scenario", "--log-format", "--resume-window-ms", "--config"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  EXPECT_NE(help.find("FLOCKSTEP_MAX_CONNECTIONS"), std::string::npos);
  EXPECT_NE(help.find("limit: 64..1048576"), std::string::npos);  // max_message_bytes
  EXPECT_TRUE(load_with({"--help"}).help);
}

TEST(Config, VersionIsAModeThatIgnoresTheRestOfTheLine) {
  EXPECT_TRUE(load_with({"--version"}).version);
  // Like --help: a bad flag after it does not matter, the program prints its version and exits.
  EXPECT_TRUE(load_with({"--version", "--no-such-flag=1"}).version);
  EXPECT_FALSE(load_with({}).version);
  EXPECT_NE(help_text().find("--version"), std::string::npos);
}

TEST(Config, FlagsBeatEnvironmentBeatsFileBeatsDefaults) {
  testing::TempDir dir;
  const std::string file =
      dir.write("c.json", R"({"port": 1000, "tick_rate_hz": 30, "bots": 2, "log_format": "json"})");
  const LoadResult r =
      load_with({"--config=" + file, "--port", "3000"}, {{"FLOCKSTEP_PORT", "2000"}, {"FLOCKSTEP_TICK_RATE_HZ", "50"}});
  EXPECT_EQ(r.config.port, 3000u);        // flag
  EXPECT_EQ(r.config.tick_rate_hz, 50u);  // env over file
  EXPECT_EQ(r.config.bots, 2u);           // file over default
  EXPECT_EQ(r.config.log_format, "json");
  EXPECT_EQ(r.config.max_connections, 1100u);  // default
  const std::string d = describe(r);
  EXPECT_NE(d.find("port = 3000  (flag)"), std::string::npos) << d;
  EXPECT_NE(d.find("tick_rate_hz = 50  (env)"), std::string::npos) << d;
  EXPECT_NE(d.find("bots = 2  (file)"), std::string::npos) << d;
  EXPECT_NE(d.find("max_connections = 1100  (default)"), std::string::npos) << d;
  // The config file may also come from the environment.
  EXPECT_EQ(load_with({}, {{"FLOCKSTEP_CONFIG", file}}).config.port, 1000u);
}

TEST(Config, UnknownFlagIsNamed) {
  const std::string e = error_of({"--max-conections=5"});
  EXPECT_NE(e.find("--max-conections"), std::string::npos) << e;
  EXPECT_NE(error_of({"positional"}).find("positional"), std::string::npos);
  EXPECT_NE(error_of({"--port"}).find("--port needs a value"), std::string::npos);
}

TEST(Config, OutOfRangeAndMalformedValuesNameTheFlagAndLimit) {
  std::string e = error_of({"--tick-rate-hz=0"});
  EXPECT_NE(e.find("--tick-rate-hz"), std::string::npos) << e;
  EXPECT_NE(e.find("1..240"), std::string::npos) << e;
  e = error_of({"--port=70000"});
  EXPECT_NE(e.find("--port"), std::string::npos) << e;
  e = error_of({"--max-message-bytes=12kb"});
  EXPECT_NE(e.find("--max-message-bytes"), std::string::npos) << e;
  e = error_of({"--port=-1"});
  EXPECT_NE(e.find("--port"), std::string::npos) << e;
  e = error_of({"--log-format=xml"});
  EXPECT_NE(e.find("text|json"), std::string::npos) << e;
}

TEST(Config, BadEnvironmentValueNamesTheVariable) {
  const std::string e = error_of({}, {{"FLOCKSTEP_IDLE_TIMEOUT_MS", "soon"}});
  EXPECT_NE(e.find("FLOCKSTEP_IDLE_TIMEOUT_MS"), std::string::npos) << e;
}

TEST(Config, FileErrorsNameFileAndKey) {
  testing::TempDir dir;
  std::string e = error_of({"--config=" + dir.write("a.json", R"({"max_conections": 5})")});
  EXPECT_NE(e.find("unknown key 'max_conections'"), std::string::npos) << e;
  e = error_of({"--config=" + dir.write("b.json", R"({"port": "eighty"})")});
  EXPECT_NE(e.find("key 'port'"), std::string::npos) << e;
  e = error_of({"--config=" + dir.write("c.json", R"({"bots": 1.5})")});
  EXPECT_NE(e.find("key 'bots'"), std::string::npos) << e;
  e = error_of({"--config=" + dir.write("d.json", "{ nope")});
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
  e = error_of({"--config=" + (dir.path() / "missing.json").string()});
  EXPECT_NE(e.find("cannot be read"), std::string::npos) << e;
}

TEST(Config, AddressAndMetricsKeysHaveSafeDefaultsAndNamedErrors) {
  const Config d = load_with({}).config;
  EXPECT_EQ(d.forwarded_header, "X-Forwarded-For");
  EXPECT_EQ(d.max_sessions_per_address, 64u);  // on by default
  EXPECT_EQ(d.metrics_port, "");               // /metrics on the game port
  EXPECT_EQ(d.allowed_origins, "");            // the serving origin
  EXPECT_EQ(load_with({"--forwarded-header=Forwarded"}).config.forwarded_header, "Forwarded");
  EXPECT_EQ(load_with({}, {{"FLOCKSTEP_METRICS_PORT", "9100"}}).config.metrics_port, "9100");
  std::string e = error_of({"--forwarded-header=X-Real-IP"});
  EXPECT_NE(e.find("--forwarded-header"), std::string::npos) << e;
  EXPECT_NE(e.find("X-Forwarded-For|Forwarded"), std::string::npos) << e;
  for (const char* bad :
       {"--metrics-port=70000", "--metrics-port=nine", "--metrics-port=-1", "--metrics-port=123456"}) {
    e = error_of({bad});
    EXPECT_NE(e.find("--metrics-port"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("not a TCP port"), std::string::npos) << bad << ": " << e;
  }
  testing::TempDir dir;
  const Config f =
      load_with({"--config=" + dir.write("ok.json", R"({"forwarded_header": "Forwarded", "metrics_port": "0"})")})
          .config;
  EXPECT_EQ(f.forwarded_header, "Forwarded");
  EXPECT_EQ(f.metrics_port, "0");
  e = error_of({"--config=" + dir.write("typo.json", R"({"forwarded_headers": "Forwarded"})")});
  EXPECT_NE(e.find("unknown key 'forwarded_headers'"), std::string::npos) << e;
}

TEST(Config, CrossChecksNameBothKeys) {
  std::string e = error_of({"--snapshot-rate-hz=90", "--tick-rate-hz=60"});
  EXPECT_NE(e.find("snapshot_rate_hz"), std::string::npos) << e;
  EXPECT_NE(e.find("tick_rate_hz"), std::string::npos) << e;
  e = error_of({"--bots=5", "--max-players=4"});
  EXPECT_NE(e.find("bots"), std::string::npos) << e;
}

TEST(Config, TrustedProxiesFromFlagEnvironmentOrJsonListAndBadEntriesAreNamed) {
  EXPECT_EQ(load_with({}).config.trusted_proxies, "");  // none by default
  EXPECT_EQ(load_with({"--trusted-proxies=10.0.0.0/8,::1"}).config.trusted_proxies, "10.0.0.0/8,::1");
  EXPECT_EQ(load_with({}, {{"FLOCKSTEP_TRUSTED_PROXIES", "127.0.0.1"}}).config.trusted_proxies, "127.0.0.1");
  testing::TempDir dir;
  const auto from_file =
      load_with({"--config=" + dir.write("p.json", R"({"trusted_proxies": ["172.16.0.0/12", "fd00::/8"]})")});
  EXPECT_EQ(from_file.config.trusted_proxies, "172.16.0.0/12,fd00::/8");
  EXPECT_EQ(
      load_with({"--config=" + dir.write("q.json", R"({"trusted_proxies": "127.0.0.1"})")}).config.trusted_proxies,
      "127.0.0.1");

  std::string e = error_of({"--trusted-proxies=10.0.0.1,10.0.0.0/40"});
  EXPECT_NE(e.find("flag --trusted-proxies"), std::string::npos) << e;
  EXPECT_NE(e.find("'10.0.0.0/40'"), std::string::npos) << e;
  e = error_of({}, {{"FLOCKSTEP_TRUSTED_PROXIES", "proxy.internal"}});
  EXPECT_NE(e.find("FLOCKSTEP_TRUSTED_PROXIES"), std::string::npos) << e;
  EXPECT_NE(e.find("'proxy.internal' is not an IP address or CIDR range"), std::string::npos) << e;
  e = error_of({"--config=" + dir.write("r.json", R"({"trusted_proxies": ["10.0.0.0/8", 7]})")});
  EXPECT_NE(e.find("key 'trusted_proxies'"), std::string::npos) << e;
  EXPECT_NE(e.find("array of strings"), std::string::npos) << e;
  e = error_of({"--config=" + dir.write("s.json", R"({"trusted_proxies": ["192.168.1.1/16"]})")});
  EXPECT_NE(e.find("did you mean 192.168.0.0/16"), std::string::npos) << e;
  EXPECT_EQ(error_of({"--max-sessions-per-address=100001"}).find("flag --max-sessions-per-address"), 0u);
}

TEST(Config, EffectiveConfigurationAsJsonKeepsTypesAndHidesTheAdminToken) {
  const auto r = load_with({"--admin-token=hidden-value", "--port=9000", "--trusted-proxies=10.0.0.0/8"});
  const nlohmann::json j = describe_json(r);
  EXPECT_TRUE(j["file"].is_null());
  EXPECT_EQ(j["config"]["port"], 9000);
  EXPECT_EQ(j["config"]["host"], "0.0.0.0");
  EXPECT_EQ(j["config"]["trusted_proxies"], "10.0.0.0/8");
  EXPECT_EQ(j["config"]["admin_token"], "(set)");
  EXPECT_EQ(j.dump().find("hidden-value"), std::string::npos);
  EXPECT_EQ(j["sources"]["port"], "flag");
  EXPECT_EQ(j["sources"]["threads"], "default");
  // Every key of the text form is in the JSON form.
  EXPECT_EQ(j["config"].size(), j["sources"].size());
  const std::string text = describe(r);
  for (const auto& [key, value] : j["config"].items())
    EXPECT_NE(text.find("  " + key + " = "), std::string::npos) << key;
}

TEST(Config, RoomAndRecordingKeysHaveDefaultsFlagsAndLimits) {
  const auto none = [](const char*) -> const char* { return nullptr; };
  const Config d = load({}, none).config;
  EXPECT_EQ(d.scenario_dir, "scenarios");
  EXPECT_EQ(d.max_rooms, 8u);
  EXPECT_EQ(d.room_idle_close_ms, 60000u);
  EXPECT_EQ(d.record, "");
  EXPECT_EQ(d.record_keyframe_s, 5u);
  const Config c = load({"--record", "out.fsrec", "--record-keyframe-s=2", "--max-rooms=3", "--scenario-dir=demos",
                         "--room-idle-close-ms=500"},
                        none)
                       .config;
  EXPECT_EQ(c.record, "out.fsrec");
  EXPECT_EQ(c.record_keyframe_s, 2u);
  EXPECT_EQ(c.max_rooms, 3u);
  EXPECT_EQ(c.scenario_dir, "demos");
  EXPECT_EQ(c.room_idle_close_ms, 500u);
  EXPECT_THROW(load({"--max-rooms=0"}, none), ConfigError);
  EXPECT_THROW(load({"--record-keyframe-s=0"}, none), ConfigError);
  const std::string help = help_text();
  for (const char* flag : {"--scenario-dir", "--max-rooms", "--room-idle-close-ms", "--record", "--record-keyframe-s"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
}

TEST(Config, MarkdownReferenceListsEveryKey) {
  const std::string md = markdown_reference();
  EXPECT_NE(md.find("| `max_connections` | `--max-connections` | `FLOCKSTEP_MAX_CONNECTIONS` | `1100` |"),
            std::string::npos);
  EXPECT_NE(md.find("`send_queue_snapshots`"), std::string::npos);
}

TEST(Config, StateKeysHaveDefaultsFlagsEnvironmentFileAndLimits) {
  const Config d = load_with({}).config;
  EXPECT_EQ(d.state_dir, "") << "rooms are not saved unless asked";
  EXPECT_EQ(d.state_save_interval_s, 5u);
  const Config c = load_with({"--state-dir=/var/lib/flockstep/rooms", "--state-save-interval-s=0"}).config;
  EXPECT_EQ(c.state_dir, "/var/lib/flockstep/rooms");
  EXPECT_EQ(c.state_save_interval_s, 0u);
  EXPECT_EQ(load_with({}, {{"FLOCKSTEP_STATE_DIR", "/s"}}).config.state_dir, "/s");
  testing::TempDir dir;
  const std::string file = dir.write("c.json", R"({"state_dir": "/f", "state_save_interval_s": 60})");
  EXPECT_EQ(load_with({"--config=" + file}).config.state_save_interval_s, 60u);
  const std::string too_long = error_of({"--state-save-interval-s=3601"});
  EXPECT_NE(too_long.find("--state-save-interval-s"), std::string::npos) << too_long;
  EXPECT_NE(too_long.find("0..3600"), std::string::npos) << too_long;
  const std::string typed = error_of({"--config=" + dir.write("t.json", R"({"state_dir": 5})")});
  EXPECT_NE(typed.find("state_dir"), std::string::npos) << typed;
}

TEST(Config, DocsServerMdHasEveryRowOfTheGeneratedReference) {
  std::ifstream in(std::string(FLOCKSTEP_SOURCE_DIR) + "/docs/server.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rows(markdown_reference());
  std::string row;
  while (std::getline(rows, row)) EXPECT_NE(doc.find(row + "\n"), std::string::npos) << "docs/server.md lacks: " << row;
}

}  // namespace
}  // namespace flockstep::server::config
