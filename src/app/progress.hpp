#pragma once
// One progress line on standard error: which workload and variant of how
// many, which repetition, time elapsed and an estimate of the time left.
// Redrawn in place on a terminal; on a pipe or file, a plain line at the
// start of each run and then at most every few seconds, so that a log never
// goes silent for long and never floods. A heartbeat thread redraws the line
// while a run or a note is under way, also when one repetition (or the
// validation after the last) takes longer than that.
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace ompref {

class Progress {
 public:
  Progress(int total_runs, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void start_run(const std::string& workload, int workload_index, int workloads, const std::string& variant,
                 int variant_index, int variants);
  void repetition(int done, int total);
  // The repetitions are over: the line says "validating" (the host's work
  // after them: results brought back, the reference, the comparison).
  void validating();
  void finish_run();
  // A message that is not a run (the ceiling measurement, a workload's setup).
  void note(const std::string& what);
  // Clears a redrawn line before the caller prints to standard output.
  void clear();

 private:
  void draw(bool force);  // with mutex_ held
  double now() const;
  void heartbeat();

  bool enabled_, tty_;
  std::FILE* out_ = stderr;  // a duplicate of standard error (progress.cpp says why)
  bool active_ = false, stopping_ = false;  // a run or note is under way; the destructor runs
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread beat_;
  int total_runs_, finished_runs_ = 0;
  double start_, run_start_ = 0, last_draw_ = -1e9, finished_time_ = 0;
  // The workload under way: the estimate takes its own runs' mean for its
  // remaining variants (workloads differ by orders of magnitude per run).
  int workload_index_ = -1, workload_runs_left_ = 0, workload_finished_runs_ = 0;
  double workload_finished_time_ = 0;
  std::string label_, rep_text_;
  bool drawn_ = false;
};

}  // namespace ompref
