#pragma once
/// \file log.hpp
/// Structured log lines, text (`ts level event key=value ...`) or JSON (one object per line),
/// with a per-event rate limit so a storm of bad clients cannot flood the log: each event name has
/// a token bucket; lines over the limit are counted and the count is reported (`suppressed=N`) on
/// the next line of that event that gets through. Thread-safe.
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

namespace flockstep::server::ops {

class Counter;

/// Severity of a line.
enum class Level : std::uint8_t { kDebug, kInfo, kWarn, kError };

/// One key/value of a log line.
struct Field {
  Field(std::string_view k, std::string_view v) : key(k), value(v), quoted(true) {}
  Field(std::string_view k, const std::string& v) : key(k), value(v), quoted(true) {}
  Field(std::string_view k, const char* v) : key(k), value(v), quoted(true) {}
  Field(std::string_view k, bool v) : key(k), value(v ? "true" : "false"), quoted(false) {}
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Field(std::string_view k, T v) : key(k), value(format_number(v)), quoted(false) {}

  std::string_view key;
  std::string value;
  bool quoted;

 private:
  template <class T>
  static std::string format_number(T v) {
    if constexpr (std::is_floating_point_v<T>) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
      return buf;
    } else {
      return std::to_string(v);
    }
  }
};

/// Output format.
enum class LogFormat : std::uint8_t { kText, kJson };

/// Structured, rate-limited logger.
class Logger {
 public:
  struct Options {
    LogFormat format = LogFormat::kText;
    Level min_level = Level::kInfo;
    double rate_per_second = 20;  ///< lines per second per event name. [Limit: > 0]
    double burst = 40;            ///< bucket size per event name, lines. [Limit: >= 1]
  };
  /// Writes to `out` (not owned; must outlive the logger).
  Logger(Options options, std::ostream& out);

  /// Write one line if `level` is enabled and the event's bucket has a token.
  void log(Level level, std::string_view event, std::initializer_list<Field> fields = {});
  void debug(std::string_view event, std::initializer_list<Field> f = {}) { log(Level::kDebug, event, f); }
  void info(std::string_view event, std::initializer_list<Field> f = {}) { log(Level::kInfo, event, f); }
  void warn(std::string_view event, std::initializer_list<Field> f = {}) { log(Level::kWarn, event, f); }
  void error(std::string_view event, std::initializer_list<Field> f = {}) { log(Level::kError, event, f); }

  /// Count suppressed lines in this counter too (metrics); may be null.
  void set_suppressed_counter(Counter* c) { suppressed_counter_ = c; }
  /// Replace the clock (tests).
  void set_clock(std::function<std::chrono::steady_clock::time_point()> clock) { clock_ = std::move(clock); }
  /// Total lines suppressed so far.
  std::uint64_t suppressed_total() const;

  /// JSON string escaping (quotes, backslash, control characters as \u00XX).
  static void append_json_string(std::string& out, std::string_view s);

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point last;
    std::uint64_t suppressed = 0;
    bool init = false;
  };
  Options options_;
  std::ostream& out_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
  std::uint64_t suppressed_total_ = 0;
  Counter* suppressed_counter_ = nullptr;
  std::function<std::chrono::steady_clock::time_point()> clock_;
};

/// Parse "debug|info|warn|error"; false on anything else.
bool parse_level(std::string_view s, Level& out);
/// Parse "text|json"; false on anything else.
bool parse_format(std::string_view s, LogFormat& out);

}  // namespace flockstep::server::ops
