#pragma once
// Isolated runs (`ompref check`, `ompref run --isolate`): the runs of a plan
// go to processes started from this program's own file (never a fork of a
// process that may hold an offload runtime), each told by a hidden option
// which runs to do and the descriptor on which it sends every event (one
// JSON object per line) as it happens. A process that dies by a signal,
// exits non-zero or runs past the time limit (then killed with its process
// group) turns the run it was in into that run's FAIL, of kind crash or
// timeout (results.hpp FailureKind), with its last lines on standard error;
// the next run goes to a new process. The processes' standard error passes
// through to this one's; their standard output is discarded (they print no
// table: this process prints it).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/registry.hpp"
#include "common/results.hpp"

namespace ompref {

// off: every run in this process; process: each run in a process of its
// own; resume: one process runs the remaining runs in turn, and after a crash
// or a timeout a new one resumes with the next run (the device start, with a
// JIT build's compile of all device code, is paid once per process).
enum class Isolation { off, process, resume };
Isolation isolation_from_name(const std::string& name);  // "off", "process" or "resume"
const char* isolation_name(Isolation mode);
// `check`'s default: resume, which costs about nothing over off where
// process pays each variant's process start, device start (in a JIT build
// the compile of all device code) and problem preparation (docs/toolchains.md
// has the measurements); off in an MPI build (its processes are the ranks
// mpirun started, which run every variant in step).
Isolation default_check_isolation();
// Whether this build can run isolated at all (not an MPI build).
bool isolation_supported();

// One run of a plan, in plan order: the index a parent and its processes share.
struct PlannedRun {
  Workload* workload = nullptr;
  const Variant* variant = nullptr;
  int device = -1;  // -1: a host variant
  std::string size;
  int workload_index = 0, workloads = 0, variant_index = 0, variants = 0;
};

// What the parent does with its processes' events, in the order they come.
struct IsolationEvents {
  std::function<void(std::size_t run)> preparing;  // a process prepares run's problem (after its start)
  std::function<void(std::size_t run)> started;
  std::function<void(int done, int total)> repetition;
  std::function<void()> validating;
  // Every run's result, from its process, or its crash or timeout composed here.
  std::function<void(std::size_t run, RunResult result)> finished;
  std::function<void()> before_output;  // before a process's line of standard error is passed on
};

struct IsolationSettings {
  Isolation mode = Isolation::process;
  double time_limit_s = 0;  // 0: none
  std::vector<std::string> arguments;  // this command line, without the program's name
  std::string plan_digest;             // plan_digest() of the plan's text
  int reps_requested = 0;
};

// Runs `runs` in processes as settings.mode says, every run reported through
// events.finished in plan order.
void run_isolated(const std::vector<PlannedRun>& runs, const IsolationSettings& settings,
                  const IsolationEvents& events);

// The hidden option that makes a process a parent's worker, and its value.
constexpr const char* worker_option = "--isolated-worker";
struct WorkerOrder {
  int fd = -1;
  std::size_t first = 0, count = 0;
  std::string digest;
};
WorkerOrder parse_worker_order(const std::string& text);  // throws UsageError
std::string plan_digest(const std::string& plan_text);

// A worker's side: one JSON line per event on the parent's descriptor.
class ParentChannel {
 public:
  explicit ParentChannel(int fd) : fd_(fd) {}
  void preparing(std::size_t run);
  void started(std::size_t run, const std::string& ran_on, bool on_device, const nlohmann::json& params);
  void repetition(int done, int total);
  void validating();
  void finished(std::size_t run, const RunResult& result);

 private:
  void send(const nlohmann::json& event);
  int fd_;
};

// A worker ends with its parent (which may be killed without a chance to end it).
void end_with_parent();

}  // namespace ompref
