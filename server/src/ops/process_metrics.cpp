#include "ops/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace flockstep::server::ops {

namespace {

std::string slurp(const char* path) {
  std::ifstream in(path);
  return in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string();
}

prometheus::MetricFamily family(const char* name, const char* help, prometheus::MetricType type, double v) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) m.counter.value = v;
  else m.gauge.value = v;
  f.metric.push_back(m);
  return f;
}

}  // namespace

ProcessStats parse_proc_stat(std::string_view self_stat, std::string_view system_stat, long ticks_per_s,
                             long page_bytes) {
  ProcessStats s;
  // The command name (field 2) is in parentheses and may contain spaces and ')': the fields
  // after it start behind the last ')'. Then field 3 (state) is the first token.
  const auto close = self_stat.rfind(')');
  if (close != std::string_view::npos && ticks_per_s > 0) {
    std::istringstream in{std::string(self_stat.substr(close + 1))};
    std::vector<std::string> f((std::istream_iterator<std::string>(in)), std::istream_iterator<std::string>());
    // f[0] is field 3; field N is f[N - 3]: utime 14, stime 15, starttime 22, rss 24 (pages).
    if (f.size() >= 22) {
      const double tps = static_cast<double>(ticks_per_s);
      s.cpu_seconds = (std::strtod(f[11].c_str(), nullptr) + std::strtod(f[12].c_str(), nullptr)) / tps;
      s.resident_bytes = std::strtod(f[21].c_str(), nullptr) * static_cast<double>(page_bytes);
      // starttime counts clock ticks since boot; /proc/stat's btime is boot in epoch seconds.
      const auto bt = system_stat.find("\nbtime ");
      if (bt != std::string_view::npos) {
        const double boot = std::strtod(std::string(system_stat.substr(bt + 7, 32)).c_str(), nullptr);
        s.start_time_seconds = boot + std::strtod(f[19].c_str(), nullptr) / tps;
      }
    }
  }
  return s;
}

ProcessStats read_process_stats() {
  ProcessStats s =
      parse_proc_stat(slurp("/proc/self/stat"), slurp("/proc/stat"), sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
  std::error_code ec;
  double fds = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++fds;
  // The iterator's own descriptor is listed too while it is open; the figure is what a scrape
  // sees, like the Go and Python clients report it.
  if (!ec) s.open_fds = fds;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) s.max_fds = static_cast<double>(lim.rlim_cur);
  return s;
}

std::vector<prometheus::MetricFamily> process_families(const ProcessStats& s) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  if (s.cpu_seconds)
    out.push_back(family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                         MetricType::Counter, *s.cpu_seconds));
  if (s.resident_bytes)
    out.push_back(family("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
                         *s.resident_bytes));
  if (s.open_fds)
    out.push_back(family("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, *s.open_fds));
  if (s.max_fds)
    out.push_back(family("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge, *s.max_fds));
  if (s.start_time_seconds)
    out.push_back(family("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                         MetricType::Gauge, *s.start_time_seconds));
  return out;
}

}  // namespace flockstep::server::ops
