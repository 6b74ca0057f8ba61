// The `ompref` command: list, devices, run. The contract is DESIGN.md's:
// exit 0 when every run is valid, 1 when one failed validation, 2 on bad
// usage or bad input with one line on stderr.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include "app/compare.hpp"
#include "common/device.hpp"
#include "common/registry.hpp"
#include "common/results.hpp"
#include "common/runner.hpp"
#include "common/usage_error.hpp"

using namespace ompref;

namespace {

double gib(double bytes) { return bytes / (1024.0 * 1024 * 1024); }

void list_variants() {
  for (const Variant* v : registry().variants())
    fmt::print("{} {} {} {}\n", v->workload, v->name, kind_name(v->kind), v->sentence);
}

void list_devices() {
  HostInfo h = host_info();
  fmt::print("host: {}, {} cores, {} OpenMP threads, {:.1f} GiB memory\n", h.cpu.empty() ? "unknown CPU" : h.cpu,
             h.cores, h.threads, gib(h.memory_bytes));
  auto devices = offload_devices();
  fmt::print("build: {}{}\n", OMPREF_OFFLOAD_DESC, OMPREF_OFFLOAD_BUILD ? "" : " (a host build: target variants always run on the host)");
  if (devices.empty()) fmt::print("no offload devices (this build: {})\n", OMPREF_OFFLOAD_DESC);
  for (const DeviceInfo& d : devices)
    fmt::print("device {}: {}, {:.1f} GiB memory\n", d.id, d.name, gib(d.memory_bytes));
}

// Refuses an output path that cannot be written, before any run starts.
void check_writable(const std::string& path, const char* option) {
  if (path.empty()) return;
  bool existed = access(path.c_str(), F_OK) == 0;
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) throw UsageError(fmt::format("{} {}: cannot write this file (accepted: a writable file path)", option, path));
  std::fclose(f);
  if (!existed) std::remove(path.c_str());
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw UsageError(fmt::format("cannot write {}", path));
}

struct RunArgs {
  std::string workload;
  std::vector<std::string> variants{"all"};
  std::string size;
  int reps = 5;
  int warmup = 1;
  std::string device;
  std::string json_path, csv_path;
  bool no_ceiling = false;
};

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
  for (const char* option : {"--json", "--csv", "--device", "--size"})
    if (run_command.count(option) > 0 && run_command.get_option(option)->as<std::string>().empty())
      throw UsageError(fmt::format("{}: empty value (see ompref run --help for what is accepted)", option));
  for (const std::string& v : args.variants)
    if (v.empty()) throw UsageError("--variant: empty value (accepted: V[,V...] or all)");
  if (args.json_path == args.csv_path && !args.json_path.empty())
    throw UsageError("--json and --csv name the same file (accepted: two different paths)");
  check_writable(args.json_path, "--json");
  check_writable(args.csv_path, "--csv");
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

std::string size_of(const RunArgs& args, const Workload& w) { return args.size.empty() ? w.default_size() : args.size; }

// Which workloads, which of their variants, at which size.
Plan make_plan(const RunArgs& args) {
  const bool all_variants = args.variants == std::vector<std::string>{"all"};
  std::vector<Workload*> workloads;
  if (args.workload == "all") {
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
    if (all_variants) {
      chosen = registry().variants(w->name());
    } else {
      std::set<std::string> seen;
      for (const std::string& name : args.variants) {
        const Variant* v = registry().variant(w->name(), name);
        if (!v)
          throw UsageError(fmt::format("--variant: unknown {} variant '{}' (accepted: {}, all)", w->name(), name,
                                       fmt::join(known, ", ")));
        if (seen.insert(name).second) chosen.push_back(v);
      }
    }
    const std::string size = size_of(args, *w);
    std::vector<std::string> sizes = w->sizes();
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end())
      throw UsageError(fmt::format("--size: {} has no size '{}' (accepted: {})", w->name(), size, fmt::join(sizes, ", ")));
    plan.emplace_back(w, chosen);
  }
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
  fmt::print("\n");
  std::fflush(stdout);
}

// Every chosen variant of every planned workload, on every place it runs on.
std::vector<RunResult> run_plan(const Plan& plan, const RunArgs& args, const MemoryLimits& limits,
                                const std::vector<int>& devices, Ceilings& ceilings) {
  std::vector<RunResult> runs;
  RunSettings settings{args.reps, args.warmup};
  for (const auto& [w, chosen] : plan) {
    const std::string size = size_of(args, *w);
    std::unique_ptr<Instance> instance = w->make(size, limits);
    for (const Variant* v : chosen) {
      std::vector<int> places = v->kind == Kind::target ? devices : std::vector<int>{-1};
      for (int d : places) {
        RunResult r = run_variant(*v, *instance, size, settings, d, devices);
        ceilings.apply(r);
        print_phase_table(r, stdout);
        if (!r.check.valid)
          fmt::print(stderr, "ompref: {} {} failed validation: {}\n", r.workload, r.variant, r.check.detail);
        runs.push_back(std::move(r));
        std::fflush(stdout);
      }
    }
  }
  return runs;
}

int run_suite(const RunArgs& args, CLI::App& run_command) {
  check_options(args, run_command);
  const Plan plan = make_plan(args);
  bool any_target = false, any_host = false;
  for (const auto& [w, chosen] : plan)
    for (const Variant* v : chosen) (v->kind == Kind::target ? any_target : any_host) = true;

  std::vector<int> devices = resolve_devices(args.device);
  if (any_target && offload_mandatory() && omp_get_num_devices() == 0)
    throw UsageError(fmt::format("OMP_TARGET_OFFLOAD=MANDATORY but no offload device is available (this build: {})",
                                 OMPREF_OFFLOAD_DESC));
  const HostInfo host = host_info();
  const MemoryLimits limits = memory_limits(host, any_target, devices);
  print_header(host);

  Ceilings ceilings(!args.no_ceiling, limits);
  ceilings.measure_places(any_host || any_target, any_target ? devices : std::vector<int>{});
  std::vector<RunResult> runs = run_plan(plan, args, limits, devices, ceilings);
  print_run_table(runs, stdout);

  if (!args.json_path.empty()) write_file(args.json_path, report_json(runs, ceilings.to_json()).dump(2) + "\n");
  if (!args.csv_path.empty()) write_file(args.csv_path, runs_to_csv(runs));

  bool all_valid = ceilings.all_valid();
  for (const RunResult& r : runs) all_valid = all_valid && r.check.valid;
  return all_valid ? 0 : 1;
}

int run_main(int argc, char** argv) {
  CLI::App app{"ompref: an OpenMP offload reference suite (host SIMD and target variants, validated, against a measured ceiling)"};
  app.require_subcommand(1);
  CLI::App* list = app.add_subcommand("list", "one line per variant: <workload> <variant> <host|target> <sentence>");
  CLI::App* devices = app.add_subcommand("devices", "the host and each offload device");
  CLI::App* run = app.add_subcommand("run", "run workloads, validate every run, print the table");

  std::vector<std::string> workload_names;
  for (Workload* w : registry().workloads()) workload_names.push_back(w->name());
  workload_names.push_back("all");

  RunArgs args;
  run->add_option("workload", args.workload, fmt::format("a workload, or all: {}", fmt::join(workload_names, ", ")))
      ->required()
      ->check(CLI::IsMember(workload_names));
  run->add_option("--variant", args.variants, "V[,V...] or all")->delimiter(',');
  run->add_option("--size", args.size, "tiny, small, medium, large or paper (what the workload has)");
  run->add_option("--reps", args.reps, "timed repetitions")->check(CLI::Range(1, 100000));
  run->add_option("--warmup", args.warmup, "untimed repetitions first")->check(CLI::Range(0, 100000));
  run->add_option("--device", args.device, "N or all: the offload devices target variants run on");
  run->add_option("--json", args.json_path, "write the results as JSON");
  run->add_option("--csv", args.csv_path, "write the results as CSV");
  run->add_flag("--no-ceiling", args.no_ceiling, "skip the stream triad ceiling measurement");
  for (Workload* w : registry().workloads()) w->add_options(*run->add_option_group(w->name() + " options"));

  // compare and report read result files back (src/app/compare.cpp, src/app/report.cpp).
  CompareArgs compare_args;
  CLI::App* compare = add_compare_command(app, compare_args);
  ReportArgs report_args;
  CLI::App* report = add_report_command(app, report_args);

  const std::set<std::string> commands = {"list", "devices", "run", "compare", "report"};
  if (argc > 1 && argv[1][0] != '-' && commands.count(argv[1]) == 0)
    throw UsageError(fmt::format("unknown command '{}' (accepted: list, devices, run, compare, report)", argv[1]));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    fmt::print(stderr, "ompref: {} (see ompref --help)\n", what);
    return 2;
  }

  if (list->parsed()) {
    list_variants();
    return 0;
  }
  if (devices->parsed()) {
    list_devices();
    return 0;
  }
  if (compare->parsed()) return run_compare(compare_args);
  if (report->parsed()) return run_report(report_args);
  return run_suite(args, *run);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ompref: {}\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "ompref: out of memory while allocating the problem (try a smaller --size)\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ompref: {}\n", e.what());
    return 2;
  }
}
