#pragma once
/// \file process_metrics.hpp
/// The standard process_* families (the names every Prometheus client library exports, so stock
/// dashboards and alerts work): CPU seconds, resident memory, open and maximum descriptors and
/// start time, read from /proc/self at scrape time. prometheus-cpp's core library has no process
/// collector, so this is the one piece written here.
#include <optional>
#include <string_view>
#include <vector>

#include <prometheus/metric_family.h>

namespace flockstep::server::ops {

/// Figures read from /proc; each is empty when its source could not be read (not Linux).
struct ProcessStats {
  std::optional<double> cpu_seconds;         ///< user + system CPU time, s
  std::optional<double> resident_bytes;      ///< resident set size, bytes
  std::optional<double> open_fds;            ///< entries in /proc/self/fd
  std::optional<double> max_fds;             ///< soft RLIMIT_NOFILE
  std::optional<double> start_time_seconds;  ///< process start, s since the Unix epoch
};

/// Parse the figures out of the text of /proc/self/stat and /proc/stat (`btime`); `ticks_per_s`
/// and `page_bytes` from sysconf. Exposed for tests; returns what it could parse.
ProcessStats parse_proc_stat(std::string_view self_stat, std::string_view system_stat, long ticks_per_s,
                             long page_bytes);

/// Read this process's figures now.
ProcessStats read_process_stats();

/// The process_* families for the figures that could be read.
std::vector<prometheus::MetricFamily> process_families(const ProcessStats& s);

}  // namespace flockstep::server::ops
