#pragma once
// `ompref compare` and `ompref report`: the result files of `ompref run --json`
// (DESIGN.md's schema) read back. compare prints the median times of several
// files side by side with the speedup of each against the first; report hands
// the files to scripts/report.py for a Markdown page and plots.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

namespace ompref {

// One run of a result file, reduced to what comparing needs.
struct ResultRun {
  std::string workload, variant, size;
  std::string place;   // "host" or "device N": where it was meant to run (the matching key)
  std::string ran_on;  // where it did run: "host", "host (fallback)", "<device> (device N)"
  nlohmann::json params;
  double median_s = 0;
  bool valid = true;
};

struct ResultFile {
  std::string path;
  std::string header;  // compiler | offload | host | devices | date [| ompref git describe]
  std::vector<ResultRun> runs;
};

// Reads a file written by `ompref run --json`; anything else (a missing file,
// text that is not JSON, JSON of another program) is a UsageError naming the file.
ResultFile load_result_file(const std::string& path);

// One run (workload, variant, size, place) across the files; null where a file lacks it.
struct Row {
  std::string workload, variant, size, place;
  std::vector<const ResultRun*> in_file;
};

// The rows in the order they first appear (files in order, runs in file order).
std::vector<Row> match_runs(const std::vector<ResultFile>& files);

// time in the first file / time in file `k`: above 1, file k is faster.
std::optional<double> speedup(const Row& row, std::size_t k);

// The geometric mean of ratios: the summary of speedups that does not depend on
// which file is the reference (Fleming and Wallace, CACM 1986).
std::optional<double> geometric_mean(const std::vector<double>& ratios);

// Per file k: the geometric mean of the speedups of `workload`'s rows present and
// valid in both the first file and file k, and how many there were.
struct Geomean {
  std::optional<double> value;
  int runs = 0;
};
std::vector<Geomean> workload_geomeans(const std::vector<Row>& rows, const std::string& workload, std::size_t files);

// The runs of files 2..N slower than in the first file by more than `percent`.
struct Slower {
  const Row* row;
  std::size_t file;
  double percent;
};
std::vector<Slower> slower_than_first(const std::vector<Row>& rows, std::size_t files, double percent);

// The whole printout of `ompref compare`.
std::string format_comparison(const std::vector<ResultFile>& files, const std::vector<Row>& rows,
                              std::optional<double> threshold_percent);

struct CompareArgs {
  std::vector<std::string> files;
  double threshold = -1;  // percent; below 0: no --threshold
};
CLI::App* add_compare_command(CLI::App& app, CompareArgs& args);
// 0, or 1 when --threshold finds a run slower than in the first file.
int run_compare(const CompareArgs& args);

struct ReportArgs {
  std::vector<std::string> files;
  std::string out, cuda;
};
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);
// report.py's exit status: 0, or 2 on bad input.
int run_report(const ReportArgs& args);

}  // namespace ompref
