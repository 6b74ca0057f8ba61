#pragma once
// `ompref run` and `ompref check`: the options, the plan (which workloads,
// variants and sizes), and the runs with their progress and result files.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ompref {

struct RunArgs {
  std::string workload;
  std::vector<std::string> variants{"all"};
  std::string size;
  bool smallest = false;  // `check`: every workload at its smallest size
  int reps = 5;
  int warmup = 1;
  // Seconds a run's repetitions may take (RunSettings::budget_s): 5 unless
  // --reps is given; 0 (or --reps without --budget) runs exactly --reps.
  double budget_s = 5;
  std::string device;
  std::string json_path, csv_path, junit_path;
  std::string save;  // results folder's parent, or "none"
  bool no_ceiling = false;
  bool quiet = false;  // no progress line
  std::string device_wait = "spin";  // spin or runtime (common/device_wait.hpp)
  std::string feature;  // `check --feature F`: only the variants whose registration uses F
  bool report_left_out = false;  // `check`: the variants of files that did not compile are failures
};

// The options both commands share (outputs, devices, progress).
void add_output_options(CLI::App& command, RunArgs& args);
// Exit status: 0 every run valid, 1 a run failed validation; throws UsageError.
int run_suite(const RunArgs& args, CLI::App& command);

}  // namespace ompref
