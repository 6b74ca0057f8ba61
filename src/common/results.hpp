#pragma once
// One run's result and the three ways it leaves the program: the stdout
// table, the JSON file of DESIGN.md's schema, and CSV.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/device.hpp"
#include "common/registry.hpp"

namespace ompref {

struct Stats {
  double min = 0, median = 0, max = 0;
  double stdev = 0;  // the sample standard deviation (0 for fewer than two samples)
  static Stats of(std::vector<double> samples);
};

struct PhaseResult {
  std::string name;
  Stats time_s;
  double bytes = 0;
  double gbps = 0;       // bytes / median time
  double gbps_best = 0;  // bytes / min time (BabelStream's and the CUDA ceilings' convention)
};

// How a run that is not valid failed: its validation (a wrong result), or its
// process (an isolated run, src/app/isolation.hpp) ended by a signal or a
// non-zero exit (crash), or ran past the time limit and was killed (timeout).
enum class FailureKind { validation, crash, timeout };
const char* failure_kind_name(FailureKind kind);  // "validation", "crash", "timeout"

struct RunResult {
  std::string workload, variant;
  Kind kind = Kind::host;
  std::string kernel;        // the variant's kernel tag (Variant::kernel)
  std::string ran_on;        // "host", "host (fallback)" or "<device name> (device N)"
  bool on_device = false;
  int device = -1;           // OpenMP device number; -1 for host variants
  std::string size;
  nlohmann::json params;
  int reps = 0, warmup = 0;  // timed repetitions run (fewer than asked when a budget ended them)
  int reps_requested = 0;
  Stats time_s;
  std::vector<double> samples_s;  // every timed repetition's time, in the order they ran
  double transfer_s = 0;
  // Where the rest of the run's wall time went, on the host: the instance's
  // reset (inputs set, outputs poisoned), the validation (with any reference
  // run it calls for), the observables; wall_s is the whole run, reset to
  // observables, repetitions and transfers included.
  double setup_s = 0, validation_s = 0, observables_s = 0, wall_s = 0;
  Model model;
  double fom = 0;
  std::optional<double> ceiling_gbps;       // the best triad measured on the same place
  std::optional<double> ceiling_fraction;   // (bytes / median time) / ceiling
  std::optional<double> fp64_fraction;      // (flops / median time) / the place's measured FP64 rate
  // Target runs: the native twin's median time / this run's median time, where
  // the twin (same workload, kernel tag, device and size) ran valid in the same process.
  std::optional<double> native_fraction;
  Check check;
  // When !check.valid: how the run failed; for a crash or a timeout, the
  // process's last lines on standard error (the offload runtime's error lines).
  FailureKind failure_kind = FailureKind::validation;
  std::vector<std::string> failure_log;
  nlohmann::json observables;
  nlohmann::json notes = nlohmann::json::object();  // the variant's own (RunContext::notes)
  std::vector<PhaseResult> phases;
  // Several MPI ranks (docs/mpi.md, src/app/rank_results.cpp): how many, how
  // the work was shared, and each rank's host, device, times and check; null
  // in a single-process run.
  nlohmann::json ranks;
};

// Text valid in every output format, whatever bytes the command line, file
// names and environment hold: invalid UTF-8 replaced by U+FFFD (nlohmann's
// replace handler), with one note on stderr the first time.
std::string valid_utf8(const std::string& text);
// A JSON document as text (dump(indent)), invalid UTF-8 replaced as above
// instead of throwing after the runs are done.
std::string json_text(const nlohmann::json& doc, int indent);

nlohmann::json run_to_json(const RunResult& r);
// The inverse of run_to_json, for the results an isolated run's process
// sends back (src/app/isolation.cpp): with `kernel` and `on_device`, which
// the result file does not hold, given beside them. Non-finite numbers,
// written as null, come back as NaN (the worst error as infinity).
RunResult run_from_json(const nlohmann::json& j);
nlohmann::json host_to_json(const HostInfo& host);
nlohmann::json devices_to_json(const std::vector<DeviceInfo>& devices);
// The whole document of DESIGN.md: suite, version, compiler, offload, host, devices, runs.
// The result file's schema_version this program writes and reads
// (declared once, in schema/result.schema.json).
int result_schema_version();
nlohmann::json report_json(const std::vector<RunResult>& runs, const nlohmann::json& ceilings);
// The compiler that built the suite: name ("clang", "g++", "unknown") and version ("22.1.8").
struct CompilerId {
  std::string name, version;
};
CompilerId build_compiler();
std::string compiler_description();  // "clang 22.1.8"

// The `native` column (native_fraction) appears only when a run has one.
void print_run_table(const std::vector<RunResult>& runs, std::FILE* out);
// One line saying what the table's of_ceiling column is, printed above it.
void print_run_table_legend(const std::vector<RunResult>& runs, std::FILE* out);
void print_phase_table(const RunResult& run, std::FILE* out);
// What a failed run's FAIL says, composed in this one place: the line on
// standard error after the run, the line under the table and the message of
// its JUnit failure. "<kind>: <what>" and the OpenMP features the variant
// uses; empty for a valid run.
std::string failure_message(const RunResult& run);
// The CSV has the same columns whatever ran (DESIGN.md): one per phase named
// here (stream's, then lbm's passes and halo exchanges), in this order; a test holds every
// workload's phases against the list.
const std::vector<std::string>& csv_phase_columns();
std::string runs_to_csv(const std::vector<RunResult>& runs);

}  // namespace ompref
