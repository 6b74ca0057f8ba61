#pragma once
// Where a run's results go: the files the user named (--json, --csv,
// --junit) and the results folder kept by default
// (ompref-results/<date>-<time>-<host>/: results.json, results.csv,
// table.txt), rewritten atomically after every finished run, so that an
// interrupted run keeps every run it finished.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/registry.hpp"
#include "common/results.hpp"

namespace ompref {

struct OutputPaths {
  std::string json, csv, junit;
  std::string benchmark;  // --benchmark-json: github-action-benchmark's customSmallerIsBetter list
  std::string save_base;  // parent of the results folder; "none": no folder
};

class ResultFiles {
 public:
  // Checks every path (nothing written yet): throws UsageError.
  explicit ResultFiles(OutputPaths paths);
  // Names the results folder (after the checks, before the first run); it is
  // created when the first run is saved, so an interrupt before then leaves none.
  void open_folder();
  // After each finished run: the folder's files; at the end: also the named files.
  void save_progress(const std::vector<RunResult>& runs, const nlohmann::json& ceilings);
  // left_out: `check`'s variants of files that did not compile (failed test
  // cases in --junit); device_required: a target run on the host fallback is
  // a skipped test case there.
  void write_named(const std::vector<RunResult>& runs, const nlohmann::json& ceilings,
                   const std::vector<LeftOut>& left_out = {}, bool device_required = false);
  const std::string& folder() const { return folder_; }

 private:
  void create_folder();
  // "<date>-<time>-<host>": the results folder's name in --save.
  static std::string folder_name();

  OutputPaths paths_;
  std::string planned_, folder_;  // folder_: once created
};

// Every signal that ends a process by default (INT, TERM, HUP, PIPE, ALRM,
// USR1, USR2, XCPU, XFSZ from another process, VTALRM, PROF, QUIT, POLL, PWR, STKFLT and the real-time
// ones): exit 130 (INT, TERM) or 128 + the signal, leaving every finished run
// in the results folder and no temporary file. A signal that arrives while the
// folder's files are written takes effect once all three hold the same runs.
void exit_130_on_interrupt();
// From here the command ends with its own status and line: a terminating
// signal (mpirun ending the other ranks once one has exited 2) adds no
// "interrupted" line and does not change the status.
void ending_with_error();
// The process group such an interrupt also ends (an isolated run's process,
// src/app/isolation.hpp); 0: none.
void kill_on_interrupt(int process_group);

std::string table_text(const std::vector<RunResult>& runs);
// JUnit XML: one <testsuite> per workload (its properties: compiler,
// offload, device, ran_on, size, version, git_commit), one test case per run
// named <workload>.<variant> (its size, where it ran and its kind are the
// case's properties); a failure carries the worst error, the tolerance, where
// it is and the variant's OpenMP features; each variant of a file that did not
// compile is a failed test case of type "compile". device_required
// (OMP_TARGET_OFFLOAD=MANDATORY or --device): a valid target run that fell
// back to the host is <skipped>, not a pass.
std::string junit_xml(const std::vector<RunResult>& runs, const std::vector<LeftOut>& left_out = {},
                      bool device_required = false);
// github-action-benchmark's customSmallerIsBetter input: one entry per valid
// run, {name: "<workload>.<variant>", unit: "s", value: its median time,
// range, extra: size, place, repetitions and figure of merit}.
nlohmann::json benchmark_json(const std::vector<RunResult>& runs);

}  // namespace ompref
