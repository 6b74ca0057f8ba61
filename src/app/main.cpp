// The `ompref` command: list, devices, run. The contract is DESIGN.md's:
// exit 0 when every run is valid, 1 when one failed validation, 2 on bad
// usage or bad input with one line on stderr.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "app/compare.hpp"
#include "app/result_files.hpp"
#include "app/run_command.hpp"
#include "common/device.hpp"
#include "common/io/output_file.hpp"
#include "common/machine_record.hpp"
#include "common/provenance.hpp"
#include "common/ranks.hpp"
#include "common/registry.hpp"
#include "common/results.hpp"
#include "common/runner.hpp"
#include "common/usage_error.hpp"

using namespace ompref;

namespace {

double gib(double bytes) { return bytes / (1024.0 * 1024 * 1024); }

// The variants of files the build could not compile (common/registry.hpp
// LeftOut), one line each: "<workload> <variant> <kind> not compiled: <why>".
std::string left_out_line(const LeftOut& v) {
  if (v.name.empty()) return fmt::format("{} (no registration found) not compiled: {}", v.file, v.reason);
  return fmt::format("{} {} {} not compiled: {}", v.workload, v.name, kind_name(v.kind), v.reason);
}

// `list --features`: each OpenMP feature, how many variants use it, and which.
void list_features() {
  std::vector<std::string> names = openmp_features();
  for (const Variant* v : registry().variants())
    for (const std::string& f : v->features)
      if (std::find(names.begin(), names.end(), f) == names.end()) names.push_back(f);
  for (const std::string& f : names) {
    std::vector<std::string> users;
    for (const Variant* v : registry().variants())
      if (std::find(v->features.begin(), v->features.end(), f) != v->features.end())
        users.push_back(v->workload + " " + v->name);
    const bool known = std::find(openmp_features().begin(), openmp_features().end(), f) != openmp_features().end();
    fmt::print("{}{}: {} variant{}{}{}\n", f, known ? "" : " (not a known feature: see openmp_features())",
               users.size(), users.size() == 1 ? "" : "s", users.empty() ? "" : ": ", fmt::join(users, ", "));
  }
  std::vector<std::string> untagged;
  for (const Variant* v : registry().variants())
    if (v->features.empty()) untagged.push_back(v->workload + " " + v->name);
  if (!untagged.empty()) fmt::print("(no features declared): {} variant{}: {}\n", untagged.size(),
                                    untagged.size() == 1 ? "" : "s", fmt::join(untagged, ", "));
}

// workload: `list W`, that workload's variants alone ("": every workload's).
void list_variants(bool json, bool features, const std::string& workload) {
  if (features) {
    list_features();
    return;
  }
  if (!workload.empty() && registry().workload(workload) == nullptr) {
    std::vector<std::string> names;
    for (Workload* w : registry().workloads()) names.push_back(w->name());
    throw UsageError(fmt::format("list: unknown workload '{}' (accepted: {})", workload, fmt::join(names, ", ")));
  }
  std::vector<LeftOut> left_out;
  for (const LeftOut& v : registry().left_out())
    if (workload.empty() || v.workload == workload) left_out.push_back(v);
  if (!json) {
    for (const Variant* v : registry().variants(workload))
      fmt::print("{} {} {} {}\n", v->workload, v->name, kind_name(v->kind), v->sentence);
    for (const LeftOut& v : left_out) fmt::print("{}\n", left_out_line(v));
    return;
  }
  // Every fact a variant's registration declares, for scripts and tests.
  nlohmann::json out = nlohmann::json::array();
  for (const Variant* v : registry().variants(workload))
    out.push_back({{"workload", v->workload},
                   {"variant", v->name},
                   {"kind", kind_name(v->kind)},
                   {"sentence", v->sentence},
                   {"file", v->file},
                   {"step_of", v->step_of},
                   {"mirrors", v->mirrors},
                   {"kernel", v->kernel},
                   {"options", v->options},
                   {"features", v->features},
                   {"ceiling_phase", v->ceiling_phase},
                   {"splits_across_ranks", v->splits_across_ranks},
                   {"compiled", true}});
  // The variants of files that did not compile: what is known without compiling them.
  for (const LeftOut& v : left_out)
    out.push_back({{"workload", v.workload},
                   {"variant", v.name},
                   {"kind", kind_name(v.kind)},
                   {"file", v.file},
                   {"compiled", false},
                   {"not_compiled", v.reason}});
  fmt::print("{}\n", out.dump(2));
}

// `devices --require N`: the offload devices where a target region really runs
// (not the host fallback); fewer than N is bad input for a script that needs
// them, refused in one line before anything is printed.
void require_devices(int wanted) {
  std::vector<std::string> fell_back;
  int usable = 0;
  const std::vector<DeviceInfo> devices = offload_devices();
  for (const DeviceInfo& d : devices) {
    if (target_runs_on_device(d.id)) ++usable;
    else fell_back.push_back(fmt::format("device {}", d.id));
  }
  if (usable >= wanted) return;
  const std::string why = !fell_back.empty() ? fmt::format("; {} fell back to the host", fmt::join(fell_back, ", "))
                          : devices.empty()  ? fmt::format(" (this build: {})", offload_description())
                                             : std::string();
  throw UsageError(fmt::format("devices --require {}: {} usable offload device{}{}", wanted, usable,
                               usable == 1 ? "" : "s", why));
}

void list_devices() {
  HostInfo h = host_info();
  fmt::print("host: {}, {} cores, {} OpenMP threads, {:.1f} GiB memory\n", h.cpu.empty() ? "unknown CPU" : h.cpu,
             h.cores, h.threads, gib(h.memory_bytes));
  auto devices = offload_devices();
  fmt::print("machine:\n{}", machine_record_text(machine_record()));
  fmt::print("build: {}{}\n", offload_description(), OMPREF_OFFLOAD_BUILD ? "" : " (a host build: target variants always run on the host)");
  if (devices.empty()) fmt::print("no offload devices (this build: {})\n", offload_description());
  for (const DeviceInfo& d : devices)
    fmt::print("device {}: {}, {:.1f} GiB memory\n", d.id, d.name, gib(d.memory_bytes));
}

// An empty value (`--G ''`, `--mesh ''`) is refused by every option that
// takes one, in this command, its subcommands and their option groups: CLI11
// would otherwise read it as 0, an empty path or the default.
void refuse_empty_values(CLI::App& app) {
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? std::string("empty value (see ompref --help)") : std::string(); },
      "");
  for (CLI::Option* option : app.get_options())
    if (option->get_type_size() > 0) option->check(non_empty);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

// `ompref run W --help`: W's options alone (the other workloads' are hidden),
// then W's sizes, its default sizes and its variants.
void focus_help(int argc, char** argv, CLI::App& run) {
  if (argc < 3 || std::string(argv[1]) != "run") return;
  Workload* w = registry().workload(argv[2]);
  bool help = false;
  for (int i = 3; i < argc; ++i) help = help || std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h";
  if (!w || !help) return;
  for (CLI::App* group : run.get_subcommands([](CLI::App*) { return true; }))
    if (group->get_group() != w->name() + " options") {
      for (CLI::Option* option : group->get_options()) option->group("");
      group->group("");  // the other workloads' groups, headers too, leave the help
    }
  std::string footer = fmt::format("\n{} sizes: {} (auto: {} on the host, {} on an offload device)\n{} variants:\n",
                                   w->name(), fmt::join(w->sizes(), ", "), w->default_size(), w->device_size(),
                                   w->name());
  for (const Variant* v : registry().variants(w->name()))
    footer += fmt::format("  {:<28} {}\n", v->name, v->sentence);
  run.footer(footer);
}

// A list option (NAME[,NAME...], or the option repeated) whose items, each checked by option_items, land in `items`.
CLI::Option* add_list_option(CLI::App& app, const std::string& name, std::vector<std::string>& items,
                             const std::string& help, const std::string& type_name) {
  return app
      .add_option_function<std::vector<std::string>>(
          name, [&items, name](const std::vector<std::string>& given) { items = option_items(given, name); }, help)
      ->type_name(type_name);
}

// `run`: the workload, the shared options and each workload's own group.
CLI::App* add_run_command(CLI::App& app, RunArgs& args, int argc, char** argv) {
  CLI::App* run = app.add_subcommand("run", "run workloads, validate every run, print the table");
  std::vector<std::string> workload_names;
  for (Workload* w : registry().workloads()) workload_names.push_back(w->name());
  workload_names.push_back("all");
  args.save = std::getenv("OMPREF_RESULTS") ? std::getenv("OMPREF_RESULTS") : "ompref-results";
  args.quiet = std::getenv("OMPREF_QUIET") != nullptr && std::string(std::getenv("OMPREF_QUIET")) == "1";
  run->add_option("workload", args.workload, fmt::format("a workload, or all: {}", fmt::join(workload_names, ", ")))
      ->required()
      ->check(CLI::IsMember(workload_names));
  add_list_option(*run, "--variant", args.variants, "V[,V...] or all", "V[,V...]");
  run->add_option("--size", args.size,
                  "auto (the default: host-sized on the host, device-sized where target variants run on a device), "
                  "tiny, small, medium, large, huge or paper (what the workload has)");
  run->add_option("--reps", args.reps, "timed repetitions")->check(CLI::Range(1, 100000))->capture_default_str();
  run->add_option("--warmup", args.warmup, "untimed repetitions first")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  run->add_option_function<double>("--budget", [&args](double seconds) {
        // CLI11's Range lets NaN through (no comparison is true): checked here.
        if (!(seconds >= 0 && seconds <= 1e6))
          throw UsageError(fmt::format("--budget: {} is not a number of seconds in 0..1e6", seconds));
        args.budget_s = seconds;
      },
                  "seconds: a run starts no further timed repetition once this would be exceeded (at least one "
                  "runs; a warm-up longer than a fifth of it is timed, and the warm-ups stop once they have taken a fifth; "
                  "the JSON gives reps, reps_requested and warmup); default 5, off when --reps is given; 0: off")
      ->type_name("FLOAT");
  run->add_flag("--no-ceiling", args.no_ceiling, "skip the bandwidth ceiling measurement");
  add_output_options(*run, args);
  add_isolation_options(*run, args, false);
  for (Workload* w : registry().workloads()) w->add_options(*run->add_option_group(w->name() + " options"));
  focus_help(argc, argv, *run);
  return run;
}

// The quick toolchain check: every variant of every workload at its
// smallest size, one repetition, no warm-up, no ceiling.
CLI::App* add_check_command(CLI::App& app, const RunArgs& run_args, RunArgs& check_args) {
  check_args = run_args;
  check_args.workload = "all";
  check_args.smallest = true;
  check_args.reps = 1;
  check_args.warmup = 0;
  check_args.budget_s = 0;
  check_args.no_ceiling = true;
  check_args.report_left_out = true;
  CLI::App* check = app.add_subcommand(
      "check", "the quick toolchain check: every variant of every workload at its smallest size, once, validated; "
               "the variants of files the build could not compile are reported as failed");
  check->add_option("--feature", check_args.feature,
                    "only the variants that use this OpenMP feature (ompref list --features names them)");
  check_args.selecting = true;
  add_list_option(*check, "--workload", check_args.workloads, "only these workloads (W[,W...], or the option repeated)",
                  "W[,W...]");
  add_list_option(*check, "--variant", check_args.variants,
                  "only these variants: a name (in every chosen workload that has it) or <workload>.<variant> "
                  "(V[,V...], or the option repeated)",
                  "V[,V...]");
  add_list_option(*check, "--exclude", check_args.exclude,
                  "leave out these variants, named as for --variant (V[,V...], or the option repeated)", "V[,V...]");
  add_output_options(*check, check_args);
  add_isolation_options(*check, check_args, true);
  return check;
}

// OMP_DEFAULT_DEVICE names the device of a target construct without a device
// clause; LLVM's libomptarget aborts (SIGABRT, "Device number '5' out of
// range") at the first one when it names no device, and libgomp runs it on
// the host. Its syntax is checked before any runtime starts
// (openmp_environment.cpp); whether it names a device is known only once the
// devices are counted: here, before any work. 0 is the default and always
// accepted (the host when there is no device).
void check_default_device() {
  const char* v = std::getenv("OMP_DEFAULT_DEVICE");
  if (v == nullptr) return;
  const long n = std::strtol(v, nullptr, 10);
  const int devices = omp_get_num_devices();
  if (n == 0 || n < devices) return;
  throw UsageError(fmt::format("OMP_DEFAULT_DEVICE='{}' names no device (accepted: {}; this machine has {} offload device{})",
                               v, devices > 1 ? fmt::format("0 to {}", devices - 1) : std::string("0"), devices,
                               devices == 1 ? "" : "s"));
}

// `ompref list`'s options.
struct ListArgs {
  bool json = false, features = false;
  std::string workload;
};

CLI::App* add_list_command(CLI::App& app, ListArgs& args) {
  CLI::App* list = app.add_subcommand(
      "list", "one line per variant: <workload> <variant> <host|target|native> <sentence> (or not compiled: <why>)");
  CLI::Option* workload_arg =
      list->add_option("workload", args.workload, "only this workload's variants (ompref list prints them all)");
  CLI::Option* json_flag = list->add_flag(
      "--json", args.json, "every variant's registration as JSON: file, step_of, mirrors, kernel, options, features");
  list->add_flag("--features", args.features, "each OpenMP feature with the number of variants that use it, and which")
      ->excludes(json_flag)
      ->excludes(workload_arg);
  return list;
}

CLI::App* add_devices_command(CLI::App& app, int& require) {
  CLI::App* devices = app.add_subcommand("devices", "the host and each offload device");
  devices
      ->add_option("--require", require,
                   "exit 2 (one line) unless at least N offload devices run target regions (not the host fallback)")
      ->check(CLI::Range(1, 1 << 20));
  return devices;
}

// The command line checked and parsed on every MPI rank, then the outcome
// agreed (a rank refusing an option alone, or running another command,
// would leave the others waiting in a collective); the run's plan is agreed
// in run_suite. Returns the exit status of --help, or -1.
int parse_agreed(CLI::App& app, int argc, char** argv) {
  int help_status = -1;
  agree([&] {
    // An empty argument anywhere is refused before CLI11 sees it (no option
    // takes an empty value, and CLI11 2.3 loops on one that follows an unknown option).
    for (int i = 1; i < argc; ++i)
      if (argv[i][0] == '\0')
        throw UsageError(i > 1 && argv[i - 1][0] == '-'
                             ? fmt::format("{}: empty value (see ompref --help)", argv[i - 1])
                             : fmt::format("argument {} is empty (see ompref --help)", i));
    std::set<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) commands.insert(sub->get_name());
    if (argc > 1 && argv[1][0] != '-' && commands.count(argv[1]) == 0)
      throw UsageError(fmt::format("unknown command '{}' (accepted: {})", argv[1], fmt::join(commands, ", ")));
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      help_status = app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      help_status = app.exit(e);
    } catch (const CLI::ParseError& e) {
      std::string what = e.what();
      if (what.empty()) what = e.get_name();
      throw UsageError(fmt::format("{} (see ompref --help)", what));
    }
  });
  return help_status;
}

int run_main(int argc, char** argv) {
  set_command_line(argc, argv);
  CLI::App app{"ompref: an OpenMP offload reference suite (host SIMD and target variants, validated, against a measured ceiling)"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print the version, commit, compiler, OpenMP runtime, offload mode and flags");
  ListArgs list_args;
  CLI::App* list = add_list_command(app, list_args);
  int require = 0;
  CLI::App* devices = add_devices_command(app, require);
  RunArgs args, check_args;
  for (int i = 1; i < argc; ++i) args.arguments.push_back(argv[i]);  // for isolated runs' processes
  CLI::App* run = add_run_command(app, args, argc, argv);
  CLI::App* check = add_check_command(app, args, check_args);

  // compare and report read result files back (src/app/compare.cpp, src/app/report.cpp).
  CompareArgs compare_args;
  CLI::App* compare = add_compare_command(app, compare_args);
  ReportArgs report_args;
  CLI::App* report = add_report_command(app, report_args);

  refuse_empty_values(app);
  const int help_status = parse_agreed(app, argc, argv);
  agree_on("commands", help_status >= 0        ? std::string("help")
                       : version                ? std::string("version")
                       : app.get_subcommands().empty() ? std::string()
                                                       : app.get_subcommands().front()->get_name());
  if (help_status >= 0) return help_status;
  if (run->parsed() || check->parsed() || devices->parsed()) agree(check_default_device);

  if (version) {
    fmt::print("{}\n", version_line());
    return 0;
  }
  if (app.get_subcommands().empty()) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    fmt::print(stderr, "ompref: a subcommand is required (accepted: {}; see ompref --help)\n", fmt::join(names, ", "));
    return 2;
  }
  if (list->parsed()) {
    list_variants(list_args.json, list_args.features, list_args.workload);
    return 0;
  }
  if (devices->parsed()) {
    if (require > 0) require_devices(require);
    list_devices();
    return 0;
  }
  if (check->parsed()) return run_suite(check_args, *check);
  if (compare->parsed()) return run_compare(compare_args);
  if (report->parsed()) return run_report(report_args);
  if (run->count("--reps") > 0 && run->count("--budget") == 0) args.budget_s = 0;  // exactly --reps
  return run_suite(args, *run);
}

// What every command printed on standard output (a table, a list, help,
// the version) flushed; a write that failed there (a full disk, a closed
// pipe) is an error of the command, whatever it returned: exit 2, one line.
int flushed_stdout(int status) {
  const int error = standard_output_error();
  if (error == 0) return status;
  return report_error(fmt::format("ompref: cannot write to standard output ({})", std::strerror(error)), 2, false);
}

}  // namespace

int main(int argc, char** argv) {
  // MPI ranks where the build has them (docs/mpi.md); nothing otherwise.
  RankScope ranks(argc, argv);
  // A signal ends a command without leaving a temporary file; a file-size
  // limit makes a write fail (reported) rather than end the command.
  remove_pending_output_on_signals();
  guard_standard_output();
  try {
    return flushed_stdout(run_main(argc, argv));
  } catch (const UsageError& e) {
    ending_with_error();
    return report_error(fmt::format("ompref: {}", e.what()), 2, dynamic_cast<const AgreedUsageError*>(&e) != nullptr);
  } catch (const IoError& e) {  // a file read or written outside the ranks' agreement
    return report_error(fmt::format("ompref: {}", e.what()), 2, false);
  } catch (const std::bad_alloc&) {
    return report_error("ompref: out of memory while allocating the problem (try a smaller --size)", 2, false);
  } catch (const std::exception& e) {
    return report_error(fmt::format("ompref: {}", e.what()), 2, false);
  }
}
