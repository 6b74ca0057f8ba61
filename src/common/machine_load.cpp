#include "common/machine_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ompref {
namespace {

struct Snapshot {
  std::chrono::steady_clock::time_point at;
  std::optional<double> loadavg;
  // /proc/stat's first line, in clock ticks: all CPUs' time, idle (idle + iowait), steal.
  std::optional<double> total, idle, steal;
  double self_cpu_s = 0;  // this process's user + system time
  // Sums over this process's threads of /proc/self/task/*/schedstat: ns on a CPU, ns waiting for one.
  std::optional<double> run_ns, wait_ns;
};

std::optional<double> read_loadavg() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  if (in >> one) return one;
  return std::nullopt;
}

void read_stat(Snapshot& s) {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0) return;
  std::istringstream fields(line.substr(4));
  double v[8] = {};  // user nice system idle iowait irq softirq steal (guest time is inside user)
  int got = 0;
  while (got < 8 && fields >> v[got]) ++got;
  if (got < 5) return;
  double total = 0;
  for (int i = 0; i < got; ++i) total += v[i];
  s.total = total;
  s.idle = v[3] + v[4];
  if (got == 8) s.steal = v[7];
}

void read_schedstat(Snapshot& s) {
  std::error_code ec;
  double run = 0, wait = 0;
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream in(task.path() / "schedstat");
    double r = 0, w = 0;
    if (in >> r >> w) {
      run += r;
      wait += w;
      any = true;
    }
  }
  if (any) {
    s.run_ns = run;
    s.wait_ns = wait;
  }
}

Snapshot snapshot() {
  Snapshot s;
  s.at = std::chrono::steady_clock::now();
  s.loadavg = read_loadavg();
  read_stat(s);
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    s.self_cpu_s = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                   1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  read_schedstat(s);
  return s;
}

// Taken when the program starts, before main.
const Snapshot start = snapshot();

nlohmann::json or_null(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); }

}  // namespace

MachineLoad machine_load() {
  const Snapshot now = snapshot();
  MachineLoad m;
  m.cpus = int(sysconf(_SC_NPROCESSORS_ONLN));
  m.window_s = std::chrono::duration<double>(now.at - start.at).count();
  m.loadavg_before = start.loadavg;
  m.loadavg_after = now.loadavg;
  if (start.total && now.total && *now.total > *start.total) {
    const double total = *now.total - *start.total;
    if (start.steal && now.steal) m.steal_percent = 100.0 * (*now.steal - *start.steal) / total;
    // Ticks of all CPUs busy, less this process's own CPU time, per tick of one CPU.
    const long ticks = sysconf(_SC_CLK_TCK);
    const double busy = total - (*now.idle - *start.idle) - (m.steal_percent ? *now.steal - *start.steal : 0.0);
    const double self = (now.self_cpu_s - start.self_cpu_s) * double(ticks > 0 ? ticks : 100);
    if (m.cpus > 0) m.other_busy_cpus = std::max(0.0, (busy - self) / (total / m.cpus));
  }
  if (now.run_ns && now.wait_ns) {
    // Threads started after the start snapshot count from their own start.
    const double run = *now.run_ns - start.run_ns.value_or(0), wait = *now.wait_ns - start.wait_ns.value_or(0);
    if (run + wait > 0 && run >= 0 && wait >= 0) m.run_queue_wait = wait / (run + wait);
  }
  return m;
}

nlohmann::json machine_load_json(const MachineLoad& m) {
  return {{"cpus", m.cpus},
          {"window_s", m.window_s},
          {"loadavg_before", or_null(m.loadavg_before)},
          {"loadavg_after", or_null(m.loadavg_after)},
          {"cpu_steal_percent", or_null(m.steal_percent)},
          {"other_busy_cpus", or_null(m.other_busy_cpus)},
          {"run_queue_wait_fraction", or_null(m.run_queue_wait)}};
}

}  // namespace ompref
