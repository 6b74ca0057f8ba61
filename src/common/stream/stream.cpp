#include "common/stream/stream.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/usage_error.hpp"
#include "common/validation.hpp"

namespace ompref::stream {

namespace {

// The sizes: one table, read by sizes(), elements_for_size() and the error
// that lists what is accepted.
struct SizeRow {
  const char* name;
  int log2_elements;
};
constexpr SizeRow size_table[] = {
    {"tiny", 16},
    {"small", 22},
    {"medium", 25},  // BabelStream's default
    {"large", 28},   // 6 GiB for three arrays: the GPU size
};

std::vector<std::string> size_names() {
  std::vector<std::string> out;
  for (const SizeRow& r : size_table) out.push_back(r.name);
  return out;
}

}  // namespace

std::size_t elements_for_size(const std::string& size) {
  for (const SizeRow& r : size_table)
    if (size == r.name) return std::size_t(1) << r.log2_elements;
  throw UsageError(fmt::format("stream: unknown size '{}' (accepted: {})", size, fmt::join(size_names(), ", ")));
}

StreamInstance::StreamInstance(std::size_t n_)
    : n(n_), a(n_), b(n_), c(n_), dot(std::numeric_limits<double>::quiet_NaN()) {}

nlohmann::json StreamInstance::params() const { return {{"n", n}, {"array_bytes", n * sizeof(double)}}; }

Model StreamInstance::model(const std::string& /*kernel*/) const {
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

Check StreamInstance::validate(int repetitions, const std::string& /*kernel*/) const {
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

  Validation v("closed form (BabelStream recurrence replayed)");
  const std::int64_t count = std::int64_t(n);
  const std::pair<const AlignedArray<double>*, double> arrays[] = {{&a, ga}, {&b, gb}, {&c, gc}};
  const char* names[] = {"a", "b", "c"};
  for (int k = 0; k < 3; ++k) {
    const AlignedArray<double>& arr = *arrays[k].first;
    const double want = arrays[k].second;
    v.compare_all(
        count, [&](std::int64_t i) { return arr[std::size_t(i)]; }, [&](std::int64_t) { return want; },
        element_tolerance,
        [&](std::int64_t i) { return fmt::format("{}[{}] = {} (expected {})", names[k], i, arr[std::size_t(i)], want); });
  }
  v.compare(dot, gold_dot, dot_tolerance, [&] { return fmt::format("dot = {} (expected {})", dot, gold_dot); });
  return v.result();
}

nlohmann::json StreamInstance::observables(const std::string& /*kernel*/) const {
  return {{"dot", dot}, {"a0", a[0]}, {"b0", b[0]}, {"c0", c[0]}};
}

void check_instance(std::size_t n, const MemoryLimits& limits) {
  const double bytes = 3.0 * sizeof(double) * double(n);
  const std::string what = fmt::format("stream with n = {} (three arrays)", n);
  limits.check_host(bytes, what);
  limits.check_device(bytes, what);
}

std::unique_ptr<StreamInstance> make_instance(std::size_t n, const MemoryLimits& limits) {
  check_instance(n, limits);
  return std::make_unique<StreamInstance>(n);
}

namespace {

class StreamWorkload final : public Workload {
 public:
  std::string name() const override { return "stream"; }
  int order() const override { return 0; }
  std::vector<std::string> sizes() const override { return size_names(); }
  std::string default_size() const override { return "medium"; }
  std::string device_size() const override { return "large"; }
  void add_options(CLI::App& group) override {
    group.add_option("--n", n_, "stream: elements per array (overrides --size)")
        ->check(CLI::Range(std::size_t(1), std::size_t(1) << 34));
  }
  void check(const std::string& size, const MemoryLimits& limits) const override {
    check_instance(n_ > 0 ? n_ : elements_for_size(size), limits);
  }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    return make_instance(n_ > 0 ? n_ : elements_for_size(size), limits);
  }
  // Arrays well beyond any cache: 3 x 256 MiB on the host, 3 x 2 GiB on a
  // device, halved until they take at most half of the memory.
  std::unique_ptr<Instance> make_for_ceiling(bool on_device, const MemoryLimits& limits) override {
    std::size_t n = elements_for_size(on_device ? "large" : "medium");
    while (n > (std::size_t(1) << 20) && (3.0 * 8 * double(n) > limits.host_bytes * 0.5 ||
                                          (limits.device_bytes > 0 && 3.0 * 8 * double(n) > limits.device_bytes * 0.5)))
      n /= 2;
    return make_instance(n, limits);
  }

 private:
  std::size_t n_ = 0;
};

const Registration registration{std::make_unique<StreamWorkload>()};

}  // namespace
}  // namespace ompref::stream
