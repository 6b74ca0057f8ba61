#pragma once
// `ompref compare` and `ompref report`: the result files of `ompref run --json`
// (DESIGN.md's schema) read back. compare prints the median times of several
// files side by side with the speedup of each against the first (by time for
// the same work, by figure of merit for work of another size); report hands
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
  double min_s = 0, max_s = 0;  // the fastest and slowest timed repetitions
  std::vector<double> samples;  // every timed repetition's time (time_s.samples); empty in older files
  std::string fom_name;         // the figure of merit per unit of work ("GB/s", "MLUPS", ...); empty: none
  double fom_value = 0;
};

struct ResultFile {
  std::string path;
  std::string header;  // compiler | offload | host | devices | date [| ompref git describe]
  std::vector<ResultRun> runs;
  nlohmann::json top;  // the document without its runs: provenance, host, ceilings, load (compare_noise.hpp)
};

// Reads a file written by `ompref run --json`; anything else (a missing file,
// text that is not JSON, JSON of another program) is a UsageError naming the file.
ResultFile load_result_file(const std::string& path);

// One run (workload, variant, place) across the files; null where a file lacks it.
// Runs of the same size match first; a run left without a partner then matches
// the same workload, variant and place at another size (size: "small/medium").
struct Row {
  std::string workload, variant, size, place;
  std::vector<const ResultRun*> in_file;
};

// The rows in the order they first appear (files in order, runs in file order).
std::vector<Row> match_runs(const std::vector<ResultFile>& files);

// How a run of file k is set against the same run of the first file:
// by time where the two did the same work (same size, same params), by the
// figure of merit per unit of work where they differ only in what that figure
// normalises (compare.cpp's rate_rules), and not at all otherwise.
enum class Basis { missing, time, rate, not_comparable };
struct Comparison {
  Basis basis = Basis::missing;
  std::optional<double> speedup;  // above 1: the other run is faster; only for time and rate
  std::string why;                // rate: what differs; not_comparable: "<param> differs", ...
};
Comparison compare_runs(const ResultRun* first, const ResultRun* other);
Comparison compare_in_row(const Row& row, std::size_t k);

// compare_in_row(row, k).speedup: median time in the first file / in file k, or
// file k's figure of merit / the first file's; above 1, file k is faster.
std::optional<double> speedup(const Row& row, std::size_t k);

// The geometric mean of ratios: the summary of speedups that does not depend on
// which file is the reference (Fleming and Wallace, CACM 1986).
std::optional<double> geometric_mean(const std::vector<double>& ratios);

// Per file k: the geometric mean of the speedups of `workload`'s rows comparable
// and valid in both the first file and file k, how many there were, and how
// many of those were compared by rate.
struct Geomean {
  std::optional<double> value;
  int runs = 0;
  int by_rate = 0;
};
std::vector<Geomean> workload_geomeans(const std::vector<Row>& rows, const std::string& workload, std::size_t files);

// A run's spread in percent: how far its median sits above its fastest
// repetition, (median - min) / min. 0 for one repetition.
double spread_percent(const ResultRun& run);

// --threshold: "P" (every place), "host=P,device=P", or both ("P,device=Q":
// Q on devices, P on the host). A place without a threshold is not gated.
struct Thresholds {
  std::optional<double> host, device;
};
// Bad text (empty, an empty item, a negative or non-finite number, an unknown
// place, a place twice) is a UsageError naming --threshold.
Thresholds parse_thresholds(const std::string& text);
// "device 5%, host 25%" or "5%" where both are the same.
std::string describe(const Thresholds& t);

// The runs of files 2..N slower than in the first file by more than their
// place's threshold: the place is "host" where either run ran on the host
// (a host variant, or a target run that fell back), else "device". beyond_noise:
// where both runs have rank_test_min_samples repetitions or more, the rank
// test on them (compare_noise.hpp) finds the difference (p below
// rank_test_alpha); else slower than the larger spread of the two runs; and,
// given the files, the machine did not change at the run's place between
// them (machine_changes). Only those beyond noise fail the gate.
struct Slower {
  const Row* row;
  std::size_t file;
  double percent;       // (1 / speedup - 1) * 100
  double noise_percent;  // the larger spread_percent of the two runs
  double threshold;     // the place's threshold
  bool by_rate;
  bool beyond_noise;
  std::optional<double> p_value;  // the rank test's, where it was used
  std::string machine_changed;    // how the machine changed at the run's place; empty: it did not
};
std::vector<Slower> slower_than_first(const std::vector<Row>& rows, std::size_t files, const Thresholds& t);
std::vector<Slower> slower_than_first(const std::vector<Row>& rows, const std::vector<ResultFile>& files,
                                      const Thresholds& t);

// Lines that explain what compare did not match: a file whose runs were made
// at other sizes than the first file's, and a file with no run comparable to
// the first file (why, and what to pass). Empty when there is nothing to say.
std::string matching_notes(const std::vector<ResultFile>& files, const std::vector<Row>& rows);

// The whole printout of `ompref compare`.
std::string format_comparison(const std::vector<ResultFile>& files, const std::vector<Row>& rows,
                              const std::optional<Thresholds>& thresholds);

// What `compare --json` writes: the files, one entry per row (its runs per
// file: index into the file's "runs", size, median, valid, figure of merit;
// per file k > 0: basis "time" | "rate" | "not_comparable" | "missing",
// speedup or null, why, in_geomean; the note), the geometric means per
// workload and file, and matching_notes' lines. `ompref report` draws its
// comparisons from it.
nlohmann::json comparison_json(const std::vector<ResultFile>& files, const std::vector<Row>& rows);

struct CompareArgs {
  std::vector<std::string> files;
  std::optional<std::string> threshold;  // --threshold's text, as given
  std::string json;                      // --json FILE: comparison_json, written whole
};
CLI::App* add_compare_command(CLI::App& app, CompareArgs& args);
// 0, or 1 when --threshold finds a run slower than in the first file beyond
// its threshold and its spread.
int run_compare(const CompareArgs& args);

struct ReportArgs {
  std::vector<std::string> files;
  std::string out, cuda;
};
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);
// report.py's exit status: 0, or 2 on bad input.
int run_report(const ReportArgs& args);

}  // namespace ompref
