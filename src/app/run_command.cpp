#include "app/run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include "app/isolation.hpp"
#include "app/progress.hpp"
#include "app/rank_results.hpp"
#include "app/result_files.hpp"
#include "app/run_setup.hpp"
#include "common/device.hpp"
#include "common/device_wait.hpp"
#include "common/io/output_file.hpp"
#include "common/machine_record.hpp"
#include "common/ranks.hpp"
#include "common/registry.hpp"
#include "common/results.hpp"
#include "common/runner.hpp"
#include "common/usage_error.hpp"

namespace ompref {
namespace {

void print_header(const HostInfo& host) {
  fmt::print("ompref {} | {} | {}\n", OMPREF_VERSION, compiler_description(), OMPREF_OFFLOAD_DESC);
  fmt::print("host: {}, {} OpenMP threads", host.cpu.empty() ? "unknown CPU" : host.cpu, host.threads);
  for (const DeviceInfo& d : offload_devices()) fmt::print(" | device {}: {}", d.id, d.name);
  if (OMPREF_OFFLOAD_BUILD || OMPREF_NATIVE_BUILD) fmt::print(" | device wait: {}", device_wait_description());
  fmt::print("\n");
  std::fflush(stdout);
}

// Every chosen variant of every planned workload, on every place it runs
// on, in the order they run.
std::vector<PlannedRun> planned_runs(const Plan& plan, const RunArgs& args, const std::vector<int>& devices) {
  std::vector<PlannedRun> runs;
  for (std::size_t wi = 0; wi < plan.size(); ++wi) {
    const auto& [w, chosen] = plan[wi];
    const std::string size = size_of(args, *w);
    for (std::size_t vi = 0; vi < chosen.size(); ++vi)
      for (int d : chosen[vi]->kind == Kind::host ? std::vector<int>{-1} : devices)
        runs.push_back({w, chosen[vi], d, size, int(wi), int(plan.size()), int(vi), int(chosen.size())});
  }
  return runs;
}

// What follows every finished run, in this process or isolated: its ceiling,
// the ranks' aggregate, its phase lines, its FAIL line, the results folder
// rewritten.
void record_run(RunResult r, const Variant& v, Ceilings& ceilings, Progress& progress, ResultFiles& files,
                std::vector<RunResult>& runs) {
  if (r.check.valid || r.failure_kind == FailureKind::validation) ceilings.apply(r);  // a crash has no rate
  combine_ranks(r, v);  // MPI ranks: rank 0 holds the aggregate (docs/mpi.md)
  progress.clear();
  print_phase_table(r, stdout);
  if (!r.check.valid) fmt::print(stderr, "ompref: FAIL {} {}: {}\n", r.workload, r.variant, failure_message(r));
  runs.push_back(std::move(r));
  set_native_fractions(runs);  // target runs against their native twin, once it has run
  std::fflush(stdout);
  files.save_progress(runs, ceilings.to_json());
}

void note_preparing(Progress& progress, const PlannedRun& p) {
  progress.note(fmt::format("{} {}/{}: preparing the {} problem", p.workload->name(), p.workload_index + 1,
                            p.workloads, p.size));
}

void start_progress(Progress& progress, const PlannedRun& p) {
  progress.start_run(p.workload->name(), p.workload_index, p.workloads, p.variant->name, p.variant_index, p.variants);
}

// The runs in this process; the results folder is rewritten after every run.
std::vector<RunResult> run_plan(const std::vector<PlannedRun>& planned, const RunArgs& args,
                                const MemoryLimits& limits, const std::vector<int>& devices, Ceilings& ceilings,
                                Progress& progress, ResultFiles& files) {
  std::vector<RunResult> runs;
  RunSettings settings{args.reps, args.warmup, args.budget_s,
                       [&](int done, int total) { progress.repetition(done, total); },
                       [&] { progress.validating(); }};
  std::unique_ptr<Instance> instance;
  const Workload* prepared = nullptr;
  for (const PlannedRun& p : planned) {
    if (p.workload != prepared) {
      instance.reset();  // the last workload's memory, freed first
      note_preparing(progress, p);
      // MPI ranks: one refused (memory, a mesh file), all leave.
      agree([&] { io_errors_as_usage([&] { instance = p.workload->make(p.size, limits); }); });
      prepared = p.workload;
    }
    start_progress(progress, p);
    RunResult r = run_variant(*p.variant, *instance, p.size, settings, p.device, devices);
    progress.finish_run();
    record_run(std::move(r), *p.variant, ceilings, progress, files, runs);
  }
  progress.clear();
  return runs;
}

// The runs in processes of their own (app/isolation.hpp), recorded as they finish.
std::vector<RunResult> run_plan_isolated(const std::vector<PlannedRun>& planned, const RunArgs& args,
                                         const std::string& plan_text, Ceilings& ceilings, Progress& progress,
                                         ResultFiles& files) {
  std::vector<RunResult> runs;
  IsolationSettings settings;
  settings.mode = isolation_from_name(args.isolate);
  settings.time_limit_s = args.time_limit_s;
  settings.arguments = args.arguments;
  settings.plan_digest = plan_digest(plan_text);
  settings.reps_requested = args.reps;
  IsolationEvents events;
  events.preparing = [&](std::size_t i) { note_preparing(progress, planned[i]); };
  events.started = [&](std::size_t i) { start_progress(progress, planned[i]); };
  events.repetition = [&](int done, int total) { progress.repetition(done, total); };
  events.validating = [&] { progress.validating(); };
  events.finished = [&](std::size_t i, RunResult r) {
    progress.finish_run();
    record_run(std::move(r), *planned[i].variant, ceilings, progress, files, runs);
  };
  events.before_output = [&] { progress.clear(); };
  run_isolated(planned, settings, events);
  progress.clear();
  return runs;
}

int count_runs(const Plan& plan, std::size_t devices) {
  int n = 0;
  for (const auto& [w, chosen] : plan)
    for (const Variant* v : chosen) n += v->kind == Kind::host ? 1 : int(devices);
  return n;
}

void print_where_next(const ResultFiles& files) {
  if (files.folder().empty()) return;
  fmt::print("results: {0}/results.json, results.csv, table.txt\n"
             "next: ompref compare {0}/results.json OTHER.json | ompref report {0}/results.json --out {0}/report\n",
             files.folder());
}

// A parent's worker (--isolated-worker): its runs, each event sent to the
// parent as it happens; nothing printed on standard output.
int run_worker(const RunArgs& args, CLI::App& command) {
  const WorkerOrder order = parse_worker_order(args.worker_order);
  end_with_parent();
  const Setup setup = prepare(args, command, true);
  const std::vector<PlannedRun> planned = planned_runs(setup.plan, args, setup.devices);
  if (plan_digest(plan_text_of(setup, args)) != order.digest || order.first + order.count > planned.size())
    throw UsageError("a process of this command planned other runs than its parent (the devices or the input files "
                     "changed meanwhile?)");
  ParentChannel parent(order.fd);
  RunSettings settings{args.reps, args.warmup, args.budget_s,
                       [&](int done, int total) { parent.repetition(done, total); }, [&] { parent.validating(); }};
  std::unique_ptr<Instance> instance;
  const Workload* prepared = nullptr;
  for (std::size_t i = order.first; i < order.first + order.count; ++i) {
    const PlannedRun& p = planned[i];
    if (p.workload != prepared) {
      parent.preparing(i);
      instance.reset();
      instance = p.workload->make(p.size, setup.limits);
      prepared = p.workload;
    }
    // Where it runs, asked first: the device starts (a JIT build compiles its
    // device code) before the run's time limit begins.
    RunContext where;
    const std::string ran_on = prepare_context(*p.variant, p.device, where);
    parent.started(i, ran_on, where.on_device, instance->params());
    parent.finished(i, run_variant(*p.variant, *instance, p.size, settings, p.device, setup.devices));
  }
  return 0;
}

// The ceilings of the places the plan runs on: the host's where a run uses
// it, a host variant or a target variant that falls back to the host (not
// one whose regions all run on devices: a device-only run spends no time
// measuring the host). Without a ceiling nothing is asked: isolated runs
// start the device in their processes alone.
void measure_ceilings(Ceilings& ceilings, const Setup& setup, const RunArgs& args, Progress& progress) {
  const std::vector<int>& devices = setup.devices;
  ceilings.size_for(setup.planned_bytes);
  if (!args.no_ceiling) progress.note("measuring the bandwidth ceiling of each place");
  const bool target_on_host = !args.no_ceiling && setup.any_target &&
                              (devices.empty() || std::any_of(devices.begin(), devices.end(), [](int d) {
                                 return !target_runs_on_device(d);
                               }));
  ceilings.measure_places(setup.any_host || target_on_host, setup.any_target ? devices : std::vector<int>{});
  progress.clear();
}

// `check`: the variants of files the build could not compile, each a FAIL line.
std::vector<LeftOut> failed_left_out(const RunArgs& args) {
  std::vector<LeftOut> left_out;
  if (args.report_left_out)
    for (const LeftOut& v : registry().left_out())
      if (v.name.empty() || (selected(args, v.workload, v.name) && args.feature.empty())) left_out.push_back(v);
  for (const LeftOut& v : left_out)
    fmt::print(stderr, "ompref: FAIL {} not compiled: {}\n",
               v.name.empty() ? v.file : fmt::format("{} {} ({})", v.workload, v.name, v.file), v.reason);
  return left_out;
}

}  // namespace

int run_suite(const RunArgs& args, CLI::App& command) {
  if (!args.worker_order.empty()) return run_worker(args, command);
  Setup setup;
  // MPI ranks check the same options together: when one refuses, all leave (docs/mpi.md).
  agree([&] { io_errors_as_usage([&] { setup = prepare(args, command); }); });
  // MPI ranks: the same plan everywhere (--size auto, the devices and the
  // native variants kept depend on what each rank sees).
  const std::string plan_text = plan_text_of(setup, args);
  agree_on("plans (workloads, sizes, variants, devices)", plan_text);
  ResultFiles& files = *setup.files;
  const Plan& plan = setup.plan;
  const std::vector<int>& devices = setup.devices;
  const MemoryLimits& limits = setup.limits;
  // With `--json -` or `--csv -` standard output carries that document
  // alone: everything else printed goes to standard error meanwhile.
  const bool document_on_stdout =
      args.json_path == "-" || args.csv_path == "-" || args.junit_path == "-" || args.benchmark_path == "-";
  const int saved_stdout = document_on_stdout ? dup(STDOUT_FILENO) : -1;
  if (document_on_stdout) dup2(STDERR_FILENO, STDOUT_FILENO);
  exit_130_on_interrupt();
  print_header(setup.host);

  Progress progress(count_runs(plan, devices.size()), !args.quiet);
  Ceilings ceilings(!args.no_ceiling, limits);
  measure_ceilings(ceilings, setup, args, progress);
  const std::vector<PlannedRun> planned = planned_runs(plan, args, devices);
  std::vector<RunResult> runs = isolation_from_name(args.isolate) == Isolation::off
                                    ? run_plan(planned, args, limits, devices, ceilings, progress, files)
                                    : run_plan_isolated(planned, args, plan_text, ceilings, progress, files);
  print_run_table_legend(runs, stdout);
  print_run_table(runs, stdout);
  print_where_next(files);
  const bool table_written = standard_output_error() == 0;
  if (document_on_stdout) {
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
  }
  const std::vector<LeftOut> left_out = failed_left_out(args);
  // A target run on the host fallback where a device was asked for: skipped in --junit.
  const bool device_required = offload_mandatory() || !args.device.empty();
  files.write_named(runs, ceilings.to_json(), left_out, device_required);  // the named files first: a lost table loses no result
  if (!table_written)
    throw UsageError("standard output: the table could not be written (a full disk or a closed pipe?)");

  bool all_valid = ceilings.all_valid() && left_out.empty();
  for (const RunResult& r : runs) all_valid = all_valid && r.check.valid;
  return all_ranks(all_valid) ? 0 : 1;
}

void add_isolation_options(CLI::App& command, RunArgs& args, bool is_check) {
  const std::string jit_note =
      OMPREF_DEVICE_JIT ? " (this build compiles all its device code at run time in every process: process pays "
                          "that compile once per variant, resume once per process)"
                        : "";
  const std::string mpi_note = isolation_supported() ? "" : "; an MPI build: off only (its processes are the ranks)";
  if (is_check) args.isolate = isolation_name(default_check_isolation());
  command
      .add_option("--isolate", args.isolate,
                  "resume: the variants run in a process started for them, so that one that crashes, aborts or "
                  "hangs is its own FAIL (crash, timeout) and a new process resumes with the next; process: each "
                  "variant in a process of its own, its problem prepared there" +
                      jit_note + "; off: in this process" + mpi_note)
      ->check(CLI::IsMember({"process", "resume", "off"}))
      ->default_str(args.isolate);
  if (is_check) args.time_limit_s = 120;
  command
      .add_option_function<double>(
          "--time-limit",
          [&args](double seconds) {
            if (!(seconds >= 0 && seconds <= 1e6))
              throw UsageError(fmt::format("--time-limit: {} is not a number of seconds in 0..1e6", seconds));
            args.time_limit_s = seconds;
          },
          fmt::format("seconds an isolated run (and a process's start and problem preparation before it) may "
                      "take before it is killed and reported as a timeout; 0: none; default {}",
                      is_check ? "120" : "0 (none)"))
      ->type_name("SECONDS");
  // A parent's worker (app/isolation.hpp): hidden from the help.
  command.add_option(worker_option, args.worker_order)->group("");
}

void add_output_options(CLI::App& command, RunArgs& args) {
  command.add_option("--device", args.device, "N or all: the offload devices target variants run on");
  command.add_option("--json", args.json_path, "write the results as JSON (- for standard output)");
  command.add_option("--csv", args.csv_path, "write the results as CSV, provenance in the last columns (- for standard output)");
  command.add_option("--junit", args.junit_path,
                     "write JUnit XML: a test suite per workload, a test case <workload>.<variant> per run; a target "
                     "run on the host fallback is skipped where a device was required (--device or "
                     "OMP_TARGET_OFFLOAD=MANDATORY) (- for standard output)");
  command.add_option("--benchmark-json", args.benchmark_path,
                     "write each valid run's median time as github-action-benchmark's customSmallerIsBetter JSON "
                     "(name <workload>.<variant>, unit s, value) (- for standard output)");
  command.add_option("--save", args.save, "parent of the results folder kept after every run, or none")
      ->default_str(args.save);
  command.add_flag("--quiet", args.quiet, "no progress line on standard error (also: OMPREF_QUIET=1)");
  command.add_option_function<std::string>(
      "--note", [](const std::string& text) { set_machine_note(text); },
      "a note of your own on the machine or the run, kept in the result files (machine.note)");
  command
      .add_option("--device-wait", args.device_wait,
                  "how the host waits for an NVIDIA device: spin (as CUDA programs do) or runtime (the OpenMP "
                  "runtime's choice: LLVM's sleeps); docs/native.md")
      ->check(CLI::IsMember({"spin", "runtime"}))
      ->default_str("spin");
}

}  // namespace ompref
