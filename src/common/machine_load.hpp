#pragma once
// How busy the machine was while this process ran: the load average when it
// started and now, and over that window, from /proc, the share of CPU time the
// hypervisor took (steal), the CPUs kept busy by other processes, and the share
// of this process's runnable time its threads spent waiting for a CPU. A run
// slower because the machine was busy is told from a slower code by these
// figures (`ompref compare`), not by its times.
#include <optional>

#include <nlohmann/json.hpp>

namespace ompref {

struct MachineLoad {
  int cpus = 0;                                  // CPUs online
  double window_s = 0;                           // from the process's start to now
  std::optional<double> loadavg_before, loadavg_after;  // 1-minute load average
  std::optional<double> steal_percent;           // of all CPUs' time in the window
  std::optional<double> other_busy_cpus;         // CPUs busy with other processes, on average
  std::optional<double> run_queue_wait;          // 0..1: waiting / (running + waiting), this process's threads
};

// The figures from the process's start to now (the start is taken when the
// program starts); a figure the kernel does not give is left empty.
MachineLoad machine_load();
// {"cpus", "window_s", "loadavg_before", "loadavg_after", "cpu_steal_percent",
//  "other_busy_cpus", "run_queue_wait_fraction"}; null for a figure not known.
nlohmann::json machine_load_json(const MachineLoad& load);

}  // namespace ompref
