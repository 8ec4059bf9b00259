#include "ops/log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "ops/metrics.hpp"

namespace flockstep::server::ops {

namespace {

const char* level_name(Level l) {
  switch (l) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
  }
  return "info";
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

bool needs_text_quotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v)
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x20) return true;
  return false;
}

/// Compact JSON; `replace` turns invalid UTF-8 into U+FFFD instead of throwing (a client's bytes
/// can end up in a field).
std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::ordered_json json_value(const Field& f) {
  switch (f.kind) {
    case Field::Kind::kText: return f.text;
    case Field::Kind::kBool: return f.flag;
    case Field::Kind::kSigned: return f.signed_value;
    case Field::Kind::kUnsigned: return f.unsigned_value;
    case Field::Kind::kReal:
      // nlohmann_json would write null for these too; said here so the rule does not depend on it.
      if (!std::isfinite(f.real)) return nullptr;
      return f.real;
  }
  return nullptr;
}

std::string text_value(const Field& f) {
  switch (f.kind) {
    case Field::Kind::kText: return needs_text_quotes(f.text) ? dump(f.text) : f.text;
    case Field::Kind::kBool: return f.flag ? "true" : "false";
    case Field::Kind::kSigned: return std::to_string(f.signed_value);
    case Field::Kind::kUnsigned: return std::to_string(f.unsigned_value);
    case Field::Kind::kReal: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", f.real);
      return buf;
    }
  }
  return {};
}

}  // namespace

Logger::Logger(Options options, std::ostream& out)
    : options_(options), out_(out), clock_([] { return std::chrono::steady_clock::now(); }) {}

std::uint64_t Logger::suppressed_total() const {
  std::lock_guard lock(mutex_);
  return suppressed_total_;
}

bool Logger::admit(std::string_view event, std::uint64_t& suppressed) {
  std::lock_guard lock(mutex_);
  Bucket& b = buckets_[std::string(event)];
  const auto now = clock_();
  if (!b.init) {
    b.init = true;
    b.tokens = options_.burst;
    b.last = now;
  }
  const double elapsed = std::chrono::duration<double>(now - b.last).count();
  b.last = now;
  b.tokens = std::min(options_.burst, b.tokens + elapsed * options_.rate_per_second);
  if (b.tokens < 1) {
    ++b.suppressed;
    ++suppressed_total_;
    if (suppressed_counter_) suppressed_counter_->inc();
    return false;
  }
  b.tokens -= 1;
  suppressed = b.suppressed;
  b.suppressed = 0;
  return true;
}

void Logger::log(Level level, std::string_view event, std::initializer_list<Field> fields) {
  std::uint64_t suppressed = 0;
  if (level < options_.min_level || !admit(event, suppressed)) return;
  write(level, event, fields, nullptr, suppressed);
}

void Logger::log(Level level, std::string_view event, std::initializer_list<Field> fields,
                 const nlohmann::json& object) {
  std::uint64_t suppressed = 0;
  if (level < options_.min_level || !admit(event, suppressed)) return;
  write(level, event, fields, &object, suppressed);
}

void Logger::write(Level level, std::string_view event, std::initializer_list<Field> fields,
                   const nlohmann::json* object, std::uint64_t suppressed) {
  std::string line;
  if (options_.format == LogFormat::kJson) {
    // ordered_json: ts, level and event lead every line, the fields follow in call order. A
    // repeated key keeps its last value, so a line never has a duplicate member.
    nlohmann::ordered_json j;
    j["ts"] = utc_timestamp();
    j["level"] = level_name(level);
    j["event"] = event;
    for (const Field& f : fields) j[std::string(f.key)] = json_value(f);
    if (object && object->is_object())
      for (const auto& [k, v] : object->items()) j[k] = v;
    if (suppressed) j["suppressed"] = suppressed;
    line = dump(j);
    line += '\n';
  } else {
    line.reserve(128);
    line += utc_timestamp();
    line += ' ';
    line += level_name(level);
    line += ' ';
    line += event;
    for (const Field& f : fields) {
      line += ' ';
      line += f.key;
      line += '=';
      line += text_value(f);
    }
    if (object && object->is_object())
      for (const auto& [k, v] : object->items())
        line += ' ' + k + '=' + v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (suppressed) line += " suppressed=" + std::to_string(suppressed);
    line += '\n';
  }
  std::lock_guard lock(mutex_);
  out_ << line << std::flush;
}

bool parse_level(std::string_view s, Level& out) {
  if (s == "debug") out = Level::kDebug;
  else if (s == "info") out = Level::kInfo;
  else if (s == "warn") out = Level::kWarn;
  else if (s == "error") out = Level::kError;
  else return false;
  return true;
}

bool parse_format(std::string_view s, LogFormat& out) {
  if (s == "text") out = LogFormat::kText;
  else if (s == "json") out = LogFormat::kJson;
  else return false;
  return true;
}

}  // namespace flockstep::server::ops
