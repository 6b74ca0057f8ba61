#include "common/stream.hpp"

#include <cmath>
#include <limits>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/usage_error.hpp"

namespace ompref::stream {

std::size_t elements_for_size(const std::string& size) {
  if (size == "tiny") return std::size_t(1) << 16;
  if (size == "small") return std::size_t(1) << 22;
  if (size == "medium") return std::size_t(1) << 25;  // BabelStream's default
  if (size == "large") return std::size_t(1) << 28;   // 6 GiB for three arrays: the GPU size
  throw UsageError(fmt::format("stream: unknown size '{}' (accepted: tiny, small, medium, large)", size));
}

StreamInstance::StreamInstance(std::size_t n_, std::string size_name)
    : n(n_), a(n_), b(n_), c(n_), dot(std::numeric_limits<double>::quiet_NaN()), size_name_(std::move(size_name)) {}

nlohmann::json StreamInstance::params() const { return {{"n", n}, {"array_bytes", n * sizeof(double)}}; }

Model StreamInstance::model() const {
  double bytes = 0;
  for (const auto& k : kernels) bytes += double(k.arrays) * sizeof(double) * double(n);
  // mul 1, add 1, triad 2, dot 2 flops per element.
  return Model{bytes, 6.0 * double(n), "GB/s", bytes / 1e9};
}

std::vector<PhaseModel> StreamInstance::phases() const {
  std::vector<PhaseModel> out;
  for (const auto& k : kernels) out.push_back({k.name, double(k.arrays) * sizeof(double) * double(n)});
  return out;
}

void StreamInstance::reset() {
  double* pa = a.data();
  double* pb = b.data();
  double* pc = c.data();
  // In parallel, with the same static schedule as the host kernels: first touch.
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    pa[i] = start_a;
    pb[i] = start_b;
    pc[i] = start_c;
  }
  dot = std::numeric_limits<double>::quiet_NaN();
}

// Relative error with NaN and Inf failing: returns +inf for them.
static double relative_error(double got, double want) {
  if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
  double scale = std::fabs(want) > 0 ? std::fabs(want) : 1.0;
  return std::fabs(got - want) / scale;
}

Check StreamInstance::validate(int repetitions) const {
  // Every element follows the same recurrence: replay it on scalars.
  double ga = start_a, gb = start_b, gc = start_c;
  for (int r = 0; r < repetitions; ++r) {
    gc = ga;
    gb = scalar * gc;
    gc = ga + gb;
    ga = gb + scalar * gc;
  }
  const double gold_dot = ga * gb * double(n);
  const double element_tolerance = 100 * std::numeric_limits<double>::epsilon();
  const double dot_tolerance = 1e-8;

  Check check;
  check.reference = "closed form (BabelStream recurrence replayed)";
  check.tolerance = element_tolerance;
  double worst = 0;  // worst error as a multiple of its tolerance
  std::string where;
  auto consider = [&](double err, double tol, const std::string& what) {
    if (!(err / tol <= worst)) {
      worst = err / tol;
      where = what;
      check.max_rel_error = err;
      check.tolerance = tol;
    }
  };
  const std::pair<const AlignedArray<double>*, double> arrays[] = {{&a, ga}, {&b, gb}, {&c, gc}};
  const char* names[] = {"a", "b", "c"};
  for (int k = 0; k < 3; ++k) {
    const AlignedArray<double>& arr = *arrays[k].first;
    double want = arrays[k].second;
    double arr_worst = 0;
    std::size_t arr_index = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double err = relative_error(arr[i], want);
      if (!(err <= arr_worst)) {
        arr_worst = err;
        arr_index = i;
      }
    }
    consider(arr_worst, element_tolerance, fmt::format("{}[{}] = {} (expected {})", names[k], arr_index, arr[arr_index], want));
  }
  consider(relative_error(dot, gold_dot), dot_tolerance, fmt::format("dot = {} (expected {})", dot, gold_dot));
  check.valid = worst <= 1.0;
  if (!check.valid) check.detail = where;
  return check;
}

nlohmann::json StreamInstance::observables() const {
  return {{"dot", dot}, {"a0", a[0]}, {"b0", b[0]}, {"c0", c[0]}};
}

std::unique_ptr<StreamInstance> make_instance(std::size_t n, const std::string& size_name, const MemoryLimits& limits) {
  const double bytes = 3.0 * sizeof(double) * double(n);
  const std::string what = fmt::format("stream with n = {} (three arrays)", n);
  limits.check_host(bytes, what);
  limits.check_device(bytes, what);
  return std::make_unique<StreamInstance>(n, size_name);
}

namespace {

class StreamWorkload final : public Workload {
 public:
  std::string name() const override { return "stream"; }
  std::string summary() const override { return "BabelStream copy, mul, add, triad, dot: the bandwidth ceiling"; }
  std::vector<std::string> sizes() const override { return {"tiny", "small", "medium", "large"}; }
  std::string default_size() const override { return "medium"; }
  void add_options(CLI::App& run) override {
    run.add_option("--n", n_, "stream: elements per array (overrides --size)")
        ->check(CLI::Range(std::size_t(1), std::size_t(1) << 34))
        ->group("stream options");
  }
  std::vector<std::string> option_names() const override { return {"--n"}; }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    if (n_ > 0) return make_instance(n_, "custom", limits);
    return make_instance(elements_for_size(size), size, limits);
  }

 private:
  std::size_t n_ = 0;
};

const Registration registration{std::make_unique<StreamWorkload>()};

}  // namespace
}  // namespace ompref::stream
