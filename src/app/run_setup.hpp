#pragma once
// `ompref run` and `ompref check` before anything is measured: every option
// checked, the plan (which workloads, which of their variants, at which size),
// the devices, and the memory the places offer.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/result_files.hpp"
#include "app/run_command.hpp"
#include "common/device.hpp"
#include "common/registry.hpp"
#include "common/workload.hpp"

namespace CLI {
class App;
}

namespace ompref {

using Plan = std::vector<std::pair<Workload*, std::vector<const Variant*>>>;

// What a run needs before anything is measured, every option checked.
struct Setup {
  std::optional<ResultFiles> files;
  Plan plan;
  std::vector<int> devices;
  bool any_target = false, any_host = false;  // any_target: target or native, on a device
  HostInfo host;
  MemoryLimits limits;
  double planned_bytes = 0;  // the largest working set planned (0: a workload did not say); the ceilings' size
};

// Every option, output and input checked, the plan made and every planned
// workload's memory checked; throws UsageError. worker: a parent's worker,
// which writes no file and repeats no note.
Setup prepare(const RunArgs& args, CLI::App& command, bool worker = false);
// --size auto (or none): the workload's size for where its target variants run.
std::string size_of(const RunArgs& args, const Workload& w);
// The plan as text: every rank's and every worker's must be the same.
std::string plan_text_of(const Setup& setup, const RunArgs& args);

}  // namespace ompref
