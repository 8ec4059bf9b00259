#pragma once
/// \file log.hpp
/// Structured log lines, text (`ts level event key=value ...`) or JSON (one object per line,
/// encoded by nlohmann_json, so a line is always valid JSON: bad UTF-8 is replaced, NaN is null),
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

#include <nlohmann/json_fwd.hpp>

namespace flockstep::server::ops {

class Counter;

/// Severity of a line.
enum class Level : std::uint8_t { kDebug, kInfo, kWarn, kError };

/// One key/value of a log line. Numbers keep their type so the JSON form writes them as JSON
/// numbers (a number that is not finite, NaN or an infinity, is written as null: JSON has no
/// literal for it); the text form writes them with printf.
struct Field {
  enum class Kind : std::uint8_t { kText, kBool, kSigned, kUnsigned, kReal };

  Field(std::string_view k, std::string_view v) : key(k), text(v), kind(Kind::kText) {}
  Field(std::string_view k, const std::string& v) : key(k), text(v), kind(Kind::kText) {}
  Field(std::string_view k, const char* v) : key(k), text(v), kind(Kind::kText) {}
  Field(std::string_view k, bool v) : key(k), kind(Kind::kBool), flag(v) {}
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Field(std::string_view k, T v) : key(k) {
    if constexpr (std::is_floating_point_v<T>) {
      kind = Kind::kReal;
      real = static_cast<double>(v);
    } else if constexpr (std::is_signed_v<T>) {
      kind = Kind::kSigned;
      signed_value = static_cast<std::int64_t>(v);
    } else {
      kind = Kind::kUnsigned;
      unsigned_value = static_cast<std::uint64_t>(v);
    }
  }

  std::string_view key;
  std::string text;  ///< kText
  Kind kind = Kind::kText;
  bool flag = false;                 ///< kBool
  std::int64_t signed_value = 0;     ///< kSigned
  std::uint64_t unsigned_value = 0;  ///< kUnsigned
  double real = 0;                   ///< kReal
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
  /// As log(), plus the members of `object` (a JSON object: nested values such as the effective
  /// configuration). JSON lines carry them as members; text lines as key=<compact JSON>.
  void log(Level level, std::string_view event, std::initializer_list<Field> fields, const nlohmann::json& object);

  /// Count suppressed lines in this counter too (metrics); may be null.
  void set_suppressed_counter(Counter* c) { suppressed_counter_ = c; }
  /// Replace the clock (tests).
  void set_clock(std::function<std::chrono::steady_clock::time_point()> clock) { clock_ = std::move(clock); }
  /// Total lines suppressed so far.
  std::uint64_t suppressed_total() const;

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
  /// The rate limit: true when a line of `event` may be written; `suppressed` = lines of it
  /// dropped since the last one written.
  bool admit(std::string_view event, std::uint64_t& suppressed);
  void write(Level level, std::string_view event, std::initializer_list<Field> fields, const nlohmann::json* object,
             std::uint64_t suppressed);

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
