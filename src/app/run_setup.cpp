#include "app/run_setup.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include "app/isolation.hpp"
#include "app/rank_results.hpp"
#include "common/device_wait.hpp"
#include "common/io/output_file.hpp"
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

// --variant NAME in workload w: compiled in this build, or refused.
const Variant* named_variant(const Workload& w, const std::string& name) {
  if (const Variant* v = registry().variant(w.name(), name)) return v;
  for (const LeftOut& out : registry().left_out())
    if (out.workload == w.name() && out.name == name)
      throw UsageError(fmt::format("--variant: {} {} was not compiled in this build ({}: {})", w.name(), name,
                                   out.file, out.reason));
  std::vector<std::string> known;
  for (const Variant* v : registry().variants(w.name())) known.push_back(v->name);
  throw UsageError(
      fmt::format("--variant: unknown {} variant '{}' (accepted: {}, all)", w.name(), name, fmt::join(known, ", ")));
}

// A workload's variants as the options choose them (`check`'s selection, all,
// or the names --variant gives), less those that do not use --feature's F.
std::vector<const Variant*> chosen_variants(const RunArgs& args, const Workload& w) {
  std::vector<const Variant*> chosen;
  if (args.selecting) {
    for (const Variant* v : registry().variants(w.name()))
      if (selected(args, w.name(), v->name)) chosen.push_back(v);
  } else if (args.variants == std::vector<std::string>{"all"}) {
    chosen = registry().variants(w.name());
  } else {
    std::set<std::string> seen;
    for (const std::string& name : args.variants) {
      const Variant* v = named_variant(w, name);
      if (seen.insert(name).second) chosen.push_back(v);
    }
  }
  if (!args.feature.empty())  // `check --feature F`
    chosen.erase(std::remove_if(chosen.begin(), chosen.end(),
                                [&](const Variant* v) {
                                  return std::find(v->features.begin(), v->features.end(), args.feature) ==
                                         v->features.end();
                                }),
                 chosen.end());
  return chosen;
}

// The workloads the options name: `check`'s selection (those with a variant
// chosen), all, or one.
std::vector<Workload*> planned_workloads(const RunArgs& args) {
  if (args.selecting) {
    check_selection(args);
    std::vector<Workload*> workloads;
    for (Workload* w : registry().workloads())
      if (!chosen_variants(args, *w).empty()) workloads.push_back(w);
    return workloads;
  }
  if (args.workload != "all") return {registry().workload(args.workload)};
  if (args.variants != std::vector<std::string>{"all"})
    throw UsageError("--variant: with `run all` only `all` is accepted");
  return registry().workloads();
}

// Which workloads, which of their variants, at which size.
Plan make_plan(const RunArgs& args) {
  Plan plan;
  for (Workload* w : planned_workloads(args)) {
    const std::vector<const Variant*> chosen = chosen_variants(args, *w);
    if (chosen.empty() && !args.feature.empty()) continue;
    const std::string size = size_of(args, *w);
    const std::vector<std::string> sizes = w->sizes();
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

}  // namespace

// --size auto (or none): the workload's size for where its target variants
// run, the device or the host. The virtual device is the host's cores and
// memory (its arrays are a second copy in host memory): host-sized.
std::string size_of(const RunArgs& args, const Workload& w) {
  if (args.smallest) return w.sizes().front();
  if (!args.size.empty() && args.size != "auto") return args.size;
  static const bool on_device = !OMPREF_VIRTUAL_DEVICE && target_runs_on_device(resolve_devices(args.device).front());
  return on_device ? w.device_size() : w.default_size();
}

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

// worker: a parent's worker, which writes no file and repeats no note.
Setup prepare(const RunArgs& args, CLI::App& command, bool worker) {
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

}  // namespace ompref
