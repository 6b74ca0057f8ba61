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
  std::string json_path, csv_path, junit_path, benchmark_path;
  std::string save;  // results folder's parent, or "none"
  bool no_ceiling = false;
  bool quiet = false;  // no progress line
  std::string device_wait = "spin";  // spin or runtime (common/device_wait.hpp)
  std::string feature;  // `check --feature F`: only the variants whose registration uses F
  // `check --workload W --variant V --exclude V`: selecting is set for check,
  // where a variant is named V (in every chosen workload that has one) or
  // <workload>.<variant>, as its JUnit test case is.
  bool selecting = false;
  std::vector<std::string> workloads, exclude;
  bool report_left_out = false;  // `check`: the variants of files that did not compile are failures
  // Isolated runs (app/isolation.hpp): off, process or resume; `check`'s
  // default is default_check_isolation(). time_limit_s: seconds a run may
  // take in its process (0: none).
  std::string isolate = "off";
  double time_limit_s = 0;
  std::string worker_order;  // the hidden --isolated-worker: this process runs a parent's runs
  std::vector<std::string> arguments;  // the command line without the program's name (for the workers)
};

// The options both commands share (outputs, devices, progress).
void add_output_options(CLI::App& command, RunArgs& args);
// --isolate and --time-limit (`check`: is_check).
void add_isolation_options(CLI::App& command, RunArgs& args, bool is_check);
// "a,b" and "c" (an option given twice) -> {a, b, c}; an empty item is a
// UsageError naming the option.
std::vector<std::string> option_items(const std::vector<std::string>& given, const std::string& option);
// `check`'s selection (--workload, --variant, --exclude) keeps this variant.
bool selected(const RunArgs& args, const std::string& workload, const std::string& variant);
// Exit status: 0 every run valid, 1 a run failed validation; throws UsageError.
int run_suite(const RunArgs& args, CLI::App& command);

}  // namespace ompref
