#include "app/run_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include "app/isolation.hpp"
#include "app/progress.hpp"
#include "app/rank_results.hpp"
#include "app/result_files.hpp"
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

// The devices target variants run on: --device N, all, or the default device.
std::vector<int> resolve_devices(const std::string& arg) {
  const int n = omp_get_num_devices();
  if (arg.empty()) return {omp_get_default_device()};
  if (arg == "all") {
    if (n == 0) return {omp_get_default_device()};
    std::vector<int> all;
    for (int d = 0; d < n; ++d) all.push_back(d);
    return all;
  }
  int id = -1;
  if (!CLI::detail::lexical_cast(arg, id) || id < 0)
    throw UsageError(fmt::format("--device {}: not a device number (accepted: 0..{} or all)", arg, n - 1));
  if (id >= n)
    throw UsageError(n == 0 ? fmt::format("--device {}: this process sees no offload device (accepted: all, or no --device)", arg)
                            : fmt::format("--device {}: out of range (accepted: 0..{} or all)", arg, n - 1));
  return {id};
}

using Plan = std::vector<std::pair<Workload*, std::vector<const Variant*>>>;

// Every option checked before anything is measured or allocated.
void check_options(const RunArgs& args, CLI::App& run_command) {
  for (const char* option : {"--json", "--csv", "--junit", "--benchmark-json", "--device", "--size", "--save"})
    if (run_command.get_option_no_throw(option) != nullptr && run_command.count(option) > 0 &&
        run_command.get_option(option)->as<std::string>().empty())
      throw UsageError(fmt::format("{}: empty value (see ompref {} --help for what is accepted)", option,
                                   run_command.get_name()));
  for (const std::string& v : args.variants)
    if (v.empty()) throw UsageError("--variant: empty value (accepted: V[,V...] or all)");
  if (isolation_from_name(args.isolate) != Isolation::off && !isolation_supported())
    throw UsageError(fmt::format("--isolate {}: an MPI build runs its variants in the ranks mpirun started "
                                 "(accepted: off)",
                                 args.isolate));
  if (isolation_from_name(args.isolate) == Isolation::off && run_command.get_option_no_throw("--time-limit") &&
      run_command.count("--time-limit") > 0)
    throw UsageError("--time-limit: a run in this process has none (accepted with --isolate process or resume)");
  if (!args.feature.empty()) {
    const std::vector<std::string>& known = openmp_features();
    if (std::find(known.begin(), known.end(), args.feature) == known.end())
      throw UsageError(fmt::format("--feature {}: not an OpenMP feature of the registrations (accepted: {})",
                                   args.feature, fmt::join(known, ", ")));
  }
  // Workload options belong to their workload's option group.
  for (Workload* other : registry().workloads()) {
    if (args.workload == "all" || other->name() == args.workload) continue;
    for (const CLI::App* group : run_command.get_subcommands([](const CLI::App*) { return true; }))
      if (group->get_group() == other->name() + " options")
        for (const CLI::Option* option : group->get_options())
          if (option->count() > 0)
            throw UsageError(fmt::format("{} is a {} option; {} does not accept it", option->get_name(),
                                         other->name(), args.workload));
  }
}

// --size auto (or none): the workload's size for where its target variants
// run, the device or the host. The virtual device is the host's cores and
// memory (its arrays are a second copy in host memory): host-sized.
std::string size_of(const RunArgs& args, const Workload& w) {
  if (args.smallest) return w.sizes().front();
  if (!args.size.empty() && args.size != "auto") return args.size;
  static const bool on_device = !OMPREF_VIRTUAL_DEVICE && target_runs_on_device(resolve_devices(args.device).front());
  return on_device ? w.device_size() : w.default_size();
}

bool names(const std::string& item, const std::string& workload, const std::string& variant) {
  return item == variant || item == workload + "." + variant;
}

// `check`'s --workload, --variant and --exclude: every item names something,
// and something is left.
void check_selection(const RunArgs& args) {
  std::vector<std::string> known_workloads;
  for (Workload* w : registry().workloads()) known_workloads.push_back(w->name());
  for (const std::string& w : args.workloads)
    if (std::find(known_workloads.begin(), known_workloads.end(), w) == known_workloads.end())
      throw UsageError(fmt::format("--workload: unknown workload '{}' (accepted: {})", w, fmt::join(known_workloads, ", ")));
  // Every variant of the chosen workloads, compiled or not.
  std::vector<std::pair<std::string, std::string>> all;
  for (const Variant* v : registry().variants())
    all.emplace_back(v->workload, v->name);
  for (const LeftOut& v : registry().left_out())
    if (!v.name.empty()) all.emplace_back(v.workload, v.name);
  const auto in_workloads = [&](const std::string& w) {
    return args.workloads.empty() || std::find(args.workloads.begin(), args.workloads.end(), w) != args.workloads.end();
  };
  const std::pair<const std::vector<std::string>*, const char*> lists[] = {{&args.variants, "--variant"},
                                                                           {&args.exclude, "--exclude"}};
  for (const auto& [items, option] : lists) {
    if (*items == std::vector<std::string>{"all"}) continue;
    for (const std::string& item : *items)
      if (std::none_of(all.begin(), all.end(), [&](const auto& p) { return in_workloads(p.first) && names(item, p.first, p.second); }))
        throw UsageError(fmt::format("{}: no variant '{}' in {} (accepted: a variant's name or <workload>.<variant>, "
                                     "as `ompref list{}` prints)",
                                     option, item,
                                     args.workloads.empty() ? std::string("any workload") : fmt::format("{}", fmt::join(args.workloads, ", ")),
                                     args.workloads.size() == 1 ? " " + args.workloads.front() : std::string()));
  }
  if (std::none_of(all.begin(), all.end(), [&](const auto& p) { return selected(args, p.first, p.second); }))
    throw UsageError("--exclude: every selected variant is excluded (nothing left to check)");
}

// Which workloads, which of their variants, at which size.
Plan make_plan(const RunArgs& args) {
  const bool all_variants = args.variants == std::vector<std::string>{"all"};
  std::vector<Workload*> workloads;
  if (args.selecting) {  // `check`: its selection
    check_selection(args);
    for (Workload* w : registry().workloads()) {
      std::vector<const Variant*> chosen;
      for (const Variant* v : registry().variants(w->name()))
        if (selected(args, w->name(), v->name)) chosen.push_back(v);
      if (!args.feature.empty())
        chosen.erase(std::remove_if(chosen.begin(), chosen.end(),
                                    [&](const Variant* v) {
                                      return std::find(v->features.begin(), v->features.end(), args.feature) ==
                                             v->features.end();
                                    }),
                     chosen.end());
      if (!chosen.empty()) workloads.push_back(w);
    }
  } else if (args.workload == "all") {
    workloads = registry().workloads();
    if (!all_variants) throw UsageError("--variant: with `run all` only `all` is accepted");
  } else {
    workloads = {registry().workload(args.workload)};
  }
  Plan plan;
  for (Workload* w : workloads) {
    std::vector<const Variant*> chosen;
    std::vector<std::string> known;
    for (const Variant* v : registry().variants(w->name())) known.push_back(v->name);
    if (args.selecting) {
      for (const Variant* v : registry().variants(w->name()))
        if (selected(args, w->name(), v->name)) chosen.push_back(v);
    } else if (all_variants) {
      chosen = registry().variants(w->name());
    } else {
      std::set<std::string> seen;
      for (const std::string& name : args.variants) {
        const Variant* v = registry().variant(w->name(), name);
        for (const LeftOut& out : registry().left_out())
          if (!v && out.workload == w->name() && out.name == name)
            throw UsageError(fmt::format("--variant: {} {} was not compiled in this build ({}: {})", w->name(),
                                         name, out.file, out.reason));
        if (!v)
          throw UsageError(fmt::format("--variant: unknown {} variant '{}' (accepted: {}, all)", w->name(), name,
                                       fmt::join(known, ", ")));
        if (seen.insert(name).second) chosen.push_back(v);
      }
    }
    if (!args.feature.empty()) {  // `check --feature F`
      chosen.erase(std::remove_if(chosen.begin(), chosen.end(),
                                  [&](const Variant* v) {
                                    return std::find(v->features.begin(), v->features.end(), args.feature) ==
                                           v->features.end();
                                  }),
                   chosen.end());
      if (chosen.empty()) continue;
    }
    const std::string size = size_of(args, *w);
    std::vector<std::string> sizes = w->sizes();
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end())
      throw UsageError(fmt::format("--size: {} has no size '{}' (accepted: {})", w->name(), size, fmt::join(sizes, ", ")));
    plan.emplace_back(w, chosen);
  }
  if (plan.empty())
    throw UsageError(args.feature.empty()
                         ? std::string("the selection leaves no variant compiled in this build")
                         : fmt::format("--feature {}: no selected variant of this build uses it (ompref list --features)",
                                       args.feature));
  return plan;
}

// The smallest memory of the places the plan runs on.
MemoryLimits memory_limits(const HostInfo& host, bool any_target, const std::vector<int>& devices) {
  MemoryLimits limits;
  limits.host_bytes = host.available_bytes;
  if (any_target)
    for (const DeviceInfo& d : offload_devices())
      if (std::find(devices.begin(), devices.end(), d.id) != devices.end() && d.memory_bytes > 0)
        limits.device_bytes = limits.device_bytes > 0 ? std::min(limits.device_bytes, d.memory_bytes) : d.memory_bytes;
  return limits;
}

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
      agree([&] { instance = p.workload->make(p.size, limits); });  // MPI ranks: one refused, all leave
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

// The workload options that only some variants read (each variant's
// registration declares them: Variant::options), with those variants.
std::map<std::string, std::vector<std::string>> option_readers(const std::string& workload) {
  std::map<std::string, std::vector<std::string>> readers;
  for (const Variant* v : registry().variants(workload))
    for (const std::string& option : v->options) readers[option].push_back(v->name);
  return readers;
}

// An option that only some variants read, given while none of them runs.
void note_idle_options(const Plan& plan, CLI::App& command) {
  for (const auto& [w, chosen] : plan)
    for (const auto& [option, variants] : option_readers(w->name())) {
      const CLI::Option* given = command.get_option_no_throw(option);  // `check` has no workload options
      if (given == nullptr || given->count() == 0) continue;
      const bool used = std::any_of(chosen.begin(), chosen.end(), [&, &variants = variants](const Variant* v) {
        return std::find(variants.begin(), variants.end(), v->name) != variants.end();
      });
      if (!used)
        fmt::print(stderr, "ompref: note: {} changes only {} {}, which {} not among the variants run\n", option,
                   w->name(), fmt::join(variants, ", "), variants.size() > 1 ? "are" : "is");
    }
}

// The workload options that name a file read, and those that name a folder
// written into (their workloads check what is inside: lbm's --out).
constexpr const char* input_file_options[] = {"--mesh"};
constexpr const char* output_folder_options[] = {"--out"};

std::string given(CLI::App& command, const char* option) {
  const CLI::Option* o = command.get_option_no_throw(option);
  return o != nullptr && o->count() > 0 ? o->as<std::string>() : std::string();
}

// No output names, aliases or lies inside a file the run reads.
void check_outputs_against_inputs(const RunArgs& args, CLI::App& command) {
  std::vector<NamedPath> outputs = {{args.json_path, "--json"},
                                    {args.csv_path, "--csv"},
                                    {args.junit_path, "--junit"},
                                    {args.benchmark_path, "--benchmark-json"}};
  if (args.save != "none") outputs.push_back({args.save, "--save"});
  for (const char* option : output_folder_options) outputs.push_back({given(command, option), option});
  std::vector<NamedPath> inputs;
  for (const char* option : input_file_options) inputs.push_back({given(command, option), option});
  check_outputs_spare_inputs(outputs, inputs);
}

// Standard output and error open and writable before any run: a closed
// descriptor would be reused by the next file opened (the table written into
// it), and a pipe without a reader loses the table after the work.
void check_standard_streams() {
  for (const auto& [fd, name] : {std::pair{STDOUT_FILENO, "standard output"}, std::pair{STDERR_FILENO, "standard error"}}) {
    if (fcntl(fd, F_GETFL) == -1) throw UsageError(fmt::format("{} is closed (accepted: open, or >/dev/null)", name));
    struct pollfd p {fd, POLLOUT, 0};
    if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLNVAL)) != 0)
      throw UsageError(fmt::format("{} cannot be written (a pipe whose reader has left?)", name));
  }
}

// worker: a parent's worker, which writes no file and repeats no note.
Setup prepare(const RunArgs& args, CLI::App& command, bool worker = false) {
  Setup s;
  check_standard_streams();
  check_options(args, command);
  check_outputs_against_inputs(args, command);
  if (OMPREF_OFFLOAD_BUILD || OMPREF_NATIVE_BUILD)  // before any target region
    apply_device_wait(args.device_wait == "spin" ? DeviceWait::spin : DeviceWait::runtime);
  // The first target region (--size auto asks where target variants run)
  // may compile the device code: it says so while no progress line exists.
  set_device_start_notes(!args.quiet && !worker);
  if (!worker) s.files.emplace(outputs_of_this_rank({args.json_path, args.csv_path, args.junit_path, args.benchmark_path, args.save}));
  s.plan = make_plan(args);
  s.devices = resolve_devices(args.device);
  // Native (CUDA) variants: left out, or refused when named, without a CUDA device (docs/native.md).
  keep_runnable(s.plan, s.devices, args.variants != std::vector<std::string>{"all"} && !args.selecting);
  for (const auto& [w, chosen] : s.plan)
    for (const Variant* v : chosen) (v->kind == Kind::host ? s.any_host : s.any_target) = true;

  if (s.any_target && offload_mandatory() && omp_get_num_devices() == 0)
    throw UsageError(fmt::format("OMP_TARGET_OFFLOAD=MANDATORY but no offload device is available (this build: {})",
                                 OMPREF_OFFLOAD_DESC));
  s.host = host_info();
  s.limits = memory_limits(s.host, s.any_target, s.devices);
  // Every planned workload's options, input files and memory, before any
  // ceiling is measured or any workload allocates.
  for (const auto& [w, chosen] : s.plan) {
    double asked = 0;
    MemoryLimits recording = s.limits;
    recording.record_host = &asked;
    w->check(size_of(args, *w), recording);
    s.planned_bytes = asked > 0 && s.planned_bytes >= 0 ? std::max(s.planned_bytes, asked) : -1;
  }
  s.planned_bytes = std::max(s.planned_bytes, 0.0);
  if (!worker) {
    note_idle_options(s.plan, command);
    s.files->open_folder();
  }
  set_device_start_notes(false);
  return s;
}

// The plan as text: every rank's and every worker's must be the same.
std::string plan_text_of(const Setup& setup, const RunArgs& args) {
  std::string text = fmt::format("devices {}, reps {}, warmup {}, budget {}, ceiling {}\n", setup.devices.size(),
                                 args.reps, args.warmup, args.budget_s, !args.no_ceiling);
  for (const auto& [w, chosen] : setup.plan) {
    text += fmt::format("{} {}:", w->name(), size_of(args, *w));
    for (const Variant* v : chosen) text += " " + v->name;
    text += "\n";
  }
  return text;
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

}  // namespace

std::vector<std::string> option_items(const std::vector<std::string>& given, const std::string& option) {
  std::vector<std::string> out;
  for (const std::string& text : given) {
    // Split here, not by CLI11's delimiter (which drops an empty last item): every item named.
    const std::vector<std::string> items = CLI::detail::split(text, ',');
    const bool empty_item = std::any_of(items.begin(), items.end(), [](const std::string& v) { return v.empty(); });
    if (text.empty() || empty_item || std::size_t(std::count(text.begin(), text.end(), ',')) + 1 != items.size())
      throw UsageError(fmt::format("{} '{}': an empty item (accepted: NAME[,NAME...], the option repeated)", option, text));
    out.insert(out.end(), items.begin(), items.end());
  }
  return out;
}

bool selected(const RunArgs& args, const std::string& workload, const std::string& variant) {
  if (!args.workloads.empty() && std::find(args.workloads.begin(), args.workloads.end(), workload) == args.workloads.end())
    return false;
  const auto named = [&](const std::string& item) { return names(item, workload, variant); };
  if (args.variants != std::vector<std::string>{"all"} && std::none_of(args.variants.begin(), args.variants.end(), named))
    return false;
  return std::none_of(args.exclude.begin(), args.exclude.end(), named);
}

int run_suite(const RunArgs& args, CLI::App& command) {
  if (!args.worker_order.empty()) return run_worker(args, command);
  Setup setup;
  // MPI ranks check the same options together: when one refuses, all leave (docs/mpi.md).
  agree([&] { setup = prepare(args, command); });
  // MPI ranks: the same plan everywhere (--size auto, the devices and the
  // native variants kept depend on what each rank sees).
  const std::string plan_text = plan_text_of(setup, args);
  agree_on("plans (workloads, sizes, variants, devices)", plan_text);
  ResultFiles& files = *setup.files;
  const Plan& plan = setup.plan;
  const std::vector<int>& devices = setup.devices;
  const bool any_target = setup.any_target, any_host = setup.any_host;
  const HostInfo& host = setup.host;
  const MemoryLimits& limits = setup.limits;
  // With `--json -` or `--csv -` standard output carries that document
  // alone: everything else printed goes to standard error meanwhile.
  const bool document_on_stdout =
      args.json_path == "-" || args.csv_path == "-" || args.junit_path == "-" || args.benchmark_path == "-";
  const int saved_stdout = document_on_stdout ? dup(STDOUT_FILENO) : -1;
  if (document_on_stdout) dup2(STDERR_FILENO, STDOUT_FILENO);
  exit_130_on_interrupt();
  print_header(host);

  Progress progress(count_runs(plan, devices.size()), !args.quiet);
  Ceilings ceilings(!args.no_ceiling, limits);
  ceilings.size_for(setup.planned_bytes);
  if (!args.no_ceiling) progress.note("measuring the bandwidth ceiling of each place");
  // The host's ceiling where a run uses it: a host variant, or a target
  // variant that falls back to the host (not one whose regions all run on
  // devices: a device-only run spends no time measuring the host). Without
  // a ceiling nothing is asked: isolated runs start the device in their
  // processes alone.
  const bool target_on_host = !args.no_ceiling && any_target &&
                              (devices.empty() || std::any_of(devices.begin(), devices.end(), [](int d) {
                                 return !target_runs_on_device(d);
                               }));
  ceilings.measure_places(any_host || target_on_host, any_target ? devices : std::vector<int>{});
  progress.clear();
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
  // `check`: the variants of files the build could not compile fail it.
  std::vector<LeftOut> left_out;
  if (args.report_left_out)
    for (const LeftOut& v : registry().left_out())
      if (v.name.empty() || (selected(args, v.workload, v.name) && args.feature.empty())) left_out.push_back(v);
  for (const LeftOut& v : left_out)
    fmt::print(stderr, "ompref: FAIL {} not compiled: {}\n",
               v.name.empty() ? v.file : fmt::format("{} {} ({})", v.workload, v.name, v.file), v.reason);
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
