#pragma once
// A variant: one way of running a workload (host_*, target_*, native_*), with
// what it teaches, its run function and its device data, and the facts the
// runner, the tests, the scripts and the docs read from its registration.
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/device_data.hpp"
#include "common/run_context.hpp"
#include "common/workload.hpp"

namespace ompref {

struct Variant {
  std::string workload;
  std::string name;
  Kind kind = Kind::host;
  std::string sentence;           // what the variant teaches, one sentence
  RunFunction run;                // one repetition
  RunFunction enter_data;         // target: allocate and copy to the device(s), before timing
  RunFunction exit_data;          // target: copy results back and release, after timing
  std::string kernel;             // the kernel it runs, for workloads of several kernels (empty: the workload's one)
  std::string ceiling_phase;      // non-empty: this phase's best rate is a bandwidth ceiling of its place
  // MPI ranks (docs/mpi.md): false, every rank runs the whole instance (its own
  // copy: the figure of merit adds up); true, the ranks share one instance's
  // work (a decomposed variant, src/mpi/): the slowest rank's time is the run's.
  bool splits_across_ranks = false;
  // Where set, the variant runs on the part of the instance this rank holds
  // (lbm's slab variants: the rank's slab and its ghost planes, src/mpi/):
  // the runner resets, runs, validates and observes what part_of returns
  // (made on the first call, kept by the instance for the next; throws
  // UsageError when it cannot fit). Empty: the instance itself.
  std::function<Instance&(Instance&)> part_of;
  // The lesson graph, declared here once and read by `ompref list --json`, the
  // mirror check, the report's step charts and the tests:
  std::string file;               // its source file, from src/ (set by the registration's call site)
  std::string step_of;            // the variant whose file this one's diff is against (empty: none)
  std::string mirrors;            // the pair: the variant of the other place it mirrors line for line
  std::vector<std::string> options;  // the workload options that change what it runs (beyond the size)
  // The OpenMP features it uses (openmp_features() names them), declared once
  // here and read by `ompref list --features`, `ompref check --feature F` and
  // the tag test (tests/feature_tags.py, which greps the file for each).
  std::vector<std::string> features;

  // At registration: host_variant(...).for_kernel("direct"), .measuring_ceiling("triad").
  Variant& for_kernel(std::string tag) { return set(kernel, std::move(tag)); }
  Variant& measuring_ceiling(std::string phase) { return set(ceiling_phase, std::move(phase)); }
  Variant& follows(std::string predecessor) { return set(step_of, std::move(predecessor)); }
  Variant& mirror_of(std::string other) { return set(mirrors, std::move(other)); }
  Variant& reading(std::vector<std::string> option_names) { return set(options, std::move(option_names)); }
  // `using` is a C++ keyword: .uses({"target teams distribute parallel for", "simd"}).
  Variant& uses(std::vector<std::string> feature_names) { return set(features, std::move(feature_names)); }
  Variant& split_across_ranks() { return set(splits_across_ranks, true); }

 private:
  // What each setter does: one field set, the variant returned for the next call.
  template <class T>
  Variant& set(T& field, T value) {
    field = std::move(value);
    return *this;
  }
};

// The OpenMP features a registration may name in .uses(), in the order
// `ompref list --features` prints them.
inline const std::vector<std::string>& openmp_features() {
  static const std::vector<std::string> names{
      "parallel for",                          // a host `parallel for` (or `parallel` + `for`)
      "target teams distribute parallel for",  // the combined offload construct
      "target teams loop",                     // `loop` in place of distribute parallel for
      "teams distribute",                      // teams and distribute written apart from parallel for
      "simd",
      "collapse",
      "declare target",
      "declare reduction",
      "reduction",
      "array reduction",                       // a reduction over an array section
      "struct reduction",                      // a reduction over a struct (through declare reduction)
      "atomic",
      "map(alloc)",
      "target enter/exit data",
      "target update",
      "target data",
      "nowait",
      "depend",
      "taskwait",
      "thread_limit",
      "num_teams",
      "num_threads",
      "schedule",
      "ompx_attribute",
      "omp_target_alloc",                      // device memory from the runtime's allocation routines
      "is_device_ptr",
      "multiple devices",
  };
  return names;
}

// A source file's path from the repository's src/ folder ("src/omp_target/gpp.cpp"),
// whatever path the compiler was given.
inline std::string source_path(const char* file) {
  const std::string f = file ? file : "";
  const auto at = f.rfind("src/");
  return at == std::string::npos ? f : f.substr(at);
}

// Typed glue: variant functions take their workload's instance type.
template <class I>
RunFunction typed(void (*fn)(I&, RunContext&)) {
  if (fn == nullptr) return {};
  return [fn](Instance& instance, RunContext& context) { fn(static_cast<I&>(instance), context); };
}

template <class I>
Variant host_variant(std::string workload, std::string name, std::string sentence,
                     void (*run)(I&, RunContext&), const char* file = __builtin_FILE()) {
  Variant v;
  v.file = source_path(file);
  v.workload = std::move(workload);
  v.name = std::move(name);
  v.kind = Kind::host;
  v.sentence = std::move(sentence);
  v.run = typed(run);
  return v;
}

// Variant v, now of `kind`, with device data: `data` makes the declaration
// from the instance, enter(declaration, device) puts it on the device before
// timing and exit(declaration, device) takes it off after.
template <class I, class Data, class Enter, class Exit>
Variant with_device_data(Variant v, Kind kind, Data data, Enter enter, Exit exit) {
  v.kind = kind;
  v.enter_data = [data, enter](Instance& instance, RunContext& context) {
    enter(data(static_cast<I&>(instance)), context.device);
  };
  v.exit_data = [data, exit](Instance& instance, RunContext& context) {
    exit(data(static_cast<I&>(instance)), context.device);
  };
  return v;
}

// A target variant whose device data is one declaration beside the kernel
// (common/device_data.hpp): the runner enters it before timing, exits after.
// `data` makes the declaration from the instance (a function, or a callable
// that carries what it needs: mesh's kernel tag).
template <class I, class Data, class = std::enable_if_t<std::is_invocable_r_v<DeviceData, Data, I&>>>
Variant target_variant(std::string workload, std::string name, std::string sentence,
                       void (*run)(I&, RunContext&), Data data,
                       const char* file = __builtin_FILE()) {
  return with_device_data<I>(host_variant(std::move(workload), std::move(name), std::move(sentence), run, file),
                             Kind::target, data, [](const DeviceData& d, int device) { d.enter(device); },
                             [](const DeviceData& d, int device) { d.exit(device); });
}

}  // namespace ompref
