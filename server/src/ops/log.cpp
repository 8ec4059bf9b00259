#include "ops/log.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

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

}  // namespace

Logger::Logger(Options options, std::ostream& out)
    : options_(options), out_(out), clock_([] { return std::chrono::steady_clock::now(); }) {}

void Logger::append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

std::uint64_t Logger::suppressed_total() const {
  std::lock_guard lock(mutex_);
  return suppressed_total_;
}

void Logger::log(Level level, std::string_view event, std::initializer_list<Field> fields) {
  if (level < options_.min_level) return;
  std::uint64_t suppressed = 0;
  {
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
      return;
    }
    b.tokens -= 1;
    suppressed = b.suppressed;
    b.suppressed = 0;
  }

  std::string line;
  line.reserve(128);
  if (options_.format == LogFormat::kJson) {
    line += "{\"ts\":";
    append_json_string(line, utc_timestamp());
    line += ",\"level\":\"";
    line += level_name(level);
    line += "\",\"event\":";
    append_json_string(line, event);
    for (const Field& f : fields) {
      line += ',';
      append_json_string(line, f.key);
      line += ':';
      if (f.quoted) append_json_string(line, f.value);
      else line += f.value;
    }
    if (suppressed) line += ",\"suppressed\":" + std::to_string(suppressed);
    line += "}\n";
  } else {
    line += utc_timestamp();
    line += ' ';
    line += level_name(level);
    line += ' ';
    line += event;
    for (const Field& f : fields) {
      line += ' ';
      line += f.key;
      line += '=';
      if (f.quoted && needs_text_quotes(f.value)) append_json_string(line, f.value);
      else line += f.value;
    }
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
