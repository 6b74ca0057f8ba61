// Google Benchmark over the same registry as `ompref`: every (workload,
// variant) at the size given on the command line, with bytes_per_second and
// items_per_second counters from the workload's model.
//   ompref_bench [--size tiny|small|...] [--workload W] [google benchmark flags]
// Each benchmark validates its result once the timing loop ends and reports
// an error instead of a time if the result is wrong.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "common/device.hpp"
#include "common/registry.hpp"
#include "common/runner.hpp"
#include "common/usage_error.hpp"

namespace {

using namespace ompref;

void run_benchmark(benchmark::State& state, Workload* workload, const Variant* variant, const std::string& size) {
  MemoryLimits limits;
  limits.host_bytes = host_info().available_bytes;
  std::unique_ptr<Instance> instance;
  try {
    instance = workload->make(size, limits);
  } catch (const UsageError& e) {
    state.SkipWithError(e.what());
    return;
  }
  // The runner's own run sequence; Google Benchmark decides the repetitions.
  VariantRun run_state(*variant, *instance, 0, {0});
  run_state.repeat();  // warm-up (and, on a device, the JIT compile)
  for (auto _ : state) run_state.repeat();
  const Check check = run_state.finish();
  if (!check.valid) {
    state.SkipWithError(("validation failed: " + check.detail).c_str());
    return;
  }
  Model model = instance->model(variant->kernel);
  state.SetBytesProcessed(int64_t(model.bytes) * state.iterations());
  state.SetItemsProcessed(int64_t(model.flops) * state.iterations());
  state.counters["fom_" + model.fom_name] =
      benchmark::Counter(model.fom_amount * double(state.iterations()), benchmark::Counter::kIsRate);
}

// Takes --size and --workload out of argv before Google Benchmark sees it.
std::string take_flag(int& argc, char** argv, const char* name, const std::string& fallback) {
  const std::string prefix = std::string(name) + "=";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    int used = 0;
    if (arg.rfind(prefix, 0) == 0) {
      value = arg.substr(prefix.size());
      used = 1;
    } else if (arg == name && i + 1 < argc) {
      value = argv[i + 1];
      used = 2;
    }
    if (used) {
      for (int j = i; j + used < argc; ++j) argv[j] = argv[j + used];
      argc -= used;
      return value;
    }
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string size = take_flag(argc, argv, "--size", "tiny");
  const std::string only = take_flag(argc, argv, "--workload", "");
  int registered = 0;
  for (Workload* w : registry().workloads()) {
    if (!only.empty() && w->name() != only) continue;
    auto sizes = w->sizes();
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) continue;
    for (const Variant* v : registry().variants(w->name())) {
      // Native (CUDA) variants need CUDA device 0: docs/native.md.
      if (v->kind == Kind::native && !native_unusable({0}).empty()) continue;
      benchmark::RegisterBenchmark(fmt::format("{}/{}/{}", w->name(), v->name, size).c_str(), run_benchmark, w, v, size)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
      ++registered;
    }
  }
  if (registered == 0) {
    fmt::print(stderr, "ompref_bench: no workload has size '{}'{}\n", size, only.empty() ? "" : " for " + only);
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
