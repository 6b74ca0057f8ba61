#include "common/stream/stream.hpp"

#include <algorithm>
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
#include "common/workload_facts.hpp"

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

std::vector<std::string> size_names() { return size_names_of(size_table, &SizeRow::name); }

}  // namespace

std::size_t elements_for_size(const std::string& size) {
  return std::size_t(1) << size_row("stream", size_table, &SizeRow::name, size).log2_elements;
}

const char* precision_name(Precision p) { return p == Precision::single ? "single" : "double"; }

StreamInstance::StreamInstance(std::size_t n_, Precision precision_, Memory memory)
    : n(n_),
      precision(precision_),
      a(single() ? 0 : n_, memory),
      b(single() ? 0 : n_, memory),
      c(single() ? 0 : n_, memory),
      af(single() ? n_ : 0, memory),
      bf(single() ? n_ : 0, memory),
      cf(single() ? n_ : 0, memory),
      dot(std::numeric_limits<double>::quiet_NaN()) {}

// `precision` only in single precision: a double-precision run carries the
// params of the files written before the option, and compare matches them;
// compare finds single against double "not comparable: precision differs".
nlohmann::json StreamInstance::params() const {
  nlohmann::json p = {{"n", n}, {"array_bytes", n * element_bytes()}};
  if (single()) p["precision"] = precision_name(precision);
  return p;
}

Model StreamInstance::model(const std::string& /*kernel*/) const {
  double bytes = 0;
  for (const auto& k : kernels) bytes += double(k.arrays) * double(element_bytes()) * double(n);
  // mul 1, add 1, triad 2, dot 2 flops per element.
  return Model{bytes, 6.0 * double(n), "GB/s", bytes / 1e9};
}

std::vector<PhaseModel> StreamInstance::phases() const {
  std::vector<PhaseModel> out;
  for (const auto& k : kernels) out.push_back({k.name, double(k.arrays) * double(element_bytes()) * double(n)});
  return out;
}

namespace {

template <class T>
void fill_start(T* pa, T* pb, T* pc, std::size_t n) {
  // In parallel, with the same static schedule as the host kernels: first touch.
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    pa[i] = T(start_a);
    pb[i] = T(start_b);
    pc[i] = T(start_c);
  }
}

// Every element follows the same recurrence: replayed on scalars in long
// double, with the scalar and start values the kernels use (rounded to T).
struct Gold {
  long double a, b, c;
};
template <class T>
Gold replay(int repetitions) {
  const long double q = T(scalar);
  long double ga = T(start_a), gb = T(start_b), gc = T(start_c);
  for (int r = 0; r < repetitions; ++r) {
    gc = ga;
    gb = q * gc;
    gc = ga + gb;
    ga = gb + q * gc;
  }
  return {ga, gb, gc};
}

template <class T>
Check validate_arrays(const AlignedArray<T>& a, const AlignedArray<T>& b, const AlignedArray<T>& c, double dot,
                      std::size_t n, Precision precision, int repetitions) {
  const Gold g = replay<T>(repetitions);
  const double gold_dot = double(g.a * g.b * static_cast<long double>(n));
  const Tolerances tol = tolerances(precision, n, repetitions);
  Validation v(fmt::format("closed form (BabelStream recurrence replayed, {} precision)", precision_name(precision)));
  const std::pair<const AlignedArray<T>*, double> arrays[] = {{&a, double(g.a)}, {&b, double(g.b)}, {&c, double(g.c)}};
  const char* names[] = {"a", "b", "c"};
  for (int k = 0; k < 3; ++k) {
    const AlignedArray<T>& arr = *arrays[k].first;
    const double want = arrays[k].second;
    // In parallel (worst_element): the device ceiling validates three arrays
    // of 2^28 elements after each of its candidates.
    const T* p = arr.data();
    v.compare_all(
        n == 0 ? 0 : std::int64_t(arr.size()), [&](std::int64_t i) { return double(p[i]); },
        [&](std::int64_t) { return want; }, tol.element,
        [&](std::int64_t at) { return fmt::format("{}[{}] = {} (expected {})", names[k], at, p[at], want); });
  }
  v.compare(dot, gold_dot, tol.dot, [&] { return fmt::format("dot = {} (expected {})", dot, gold_dot); });
  return v.result();
}

}  // namespace

// The bounds, u the unit roundoff of the arrays' type (2^-24 single, 2^-53
// double), r the repetitions, n the elements:
// - an element: every value is positive, so a rounding's relative error adds
//   to the relative error it carries; per repetition mul rounds once, add
//   once, the triad twice (the product and the sum; once where contracted to
//   an FMA), and the triad's inputs already carry the add's: at most
//   (4 r + 2) u to first order against the recurrence replayed exactly. Never
//   below 100 machine epsilons (the tolerance before this bound was derived).
// - the dot: a and b carry the element bound each, each product one rounding
//   in T (u), and the sum, kept in double in both precisions, at most
//   (n - 1) 2^-53 in any order (recursive summation, Higham, Accuracy and
//   Stability of Numerical Algorithms, 2nd ed., eq. 4.4): it grows with n
//   (2^25 doubles: 3.7e-9; 2^28: 3.0e-8). Never below 1e-8.
//   A sum in single precision would have the bound (n - 1) 2^-24, above 1 from
//   n = 2^24: the reason the dot sums in double.
Tolerances tolerances(Precision precision, std::size_t n, int repetitions) {
  const double eps = precision == Precision::single ? double(std::numeric_limits<float>::epsilon())
                                                    : std::numeric_limits<double>::epsilon();
  const double u = eps / 2;
  const double element_bound = (4.0 * repetitions + 2.0) * u;
  const double sum_bound = (double(n) - 1.0) * std::ldexp(1.0, -53);
  return {std::max(100 * eps, element_bound), std::max(1e-8, 2 * element_bound + u + sum_bound)};
}

void StreamInstance::reset() {
  if (single()) fill_start(af.data(), bf.data(), cf.data(), n);
  else fill_start(a.data(), b.data(), c.data(), n);
  dot = std::numeric_limits<double>::quiet_NaN();
}

Check StreamInstance::validate(int repetitions, const std::string& /*kernel*/) const {
  return single() ? validate_arrays(af, bf, cf, dot, n, precision, repetitions)
                  : validate_arrays(a, b, c, dot, n, precision, repetitions);
}

nlohmann::json StreamInstance::observables(const std::string& /*kernel*/) const {
  if (single()) return {{"dot", dot}, {"a0", af[0]}, {"b0", bf[0]}, {"c0", cf[0]}};
  return {{"dot", dot}, {"a0", a[0]}, {"b0", b[0]}, {"c0", c[0]}};
}

void check_instance(std::size_t n, const MemoryLimits& limits, Precision precision) {
  const double bytes = 3.0 * double(precision == Precision::single ? sizeof(float) : sizeof(double)) * double(n);
  const std::string what = fmt::format("stream with n = {} (three arrays, {} precision)", n, precision_name(precision));
  limits.check_host(bytes, what);
  limits.check_device(bytes, what);
}

std::unique_ptr<StreamInstance> make_instance(std::size_t n, const MemoryLimits& limits, Precision precision) {
  check_instance(n, limits, precision);
  return std::make_unique<StreamInstance>(n, precision, mapped_memory(limits));
}

namespace {

class StreamWorkload final : public FactsWorkload {
 public:
  // GB/s, bytes moved / time: the arrays' length scales the bytes.
  StreamWorkload() : FactsWorkload({"stream", 0, "medium", "large", {"GB/s", compared_params({"n", "array_bytes"})}}) {}
  std::vector<std::string> sizes() const override { return size_names(); }
  void add_options(CLI::App& group) override {
    group.add_option("--n", n_, "stream: elements per array (overrides --size)")
        ->check(CLI::Range(std::size_t(1), std::size_t(1) << 34));
    group
        .add_option_function<std::string>(
            "--precision",
            [this](const std::string& p) { precision_ = p == "single" ? Precision::single : Precision::double_; },
            "stream: the arrays' type, single or double (default double); the dot sums in double in both; "
            "recorded in params as precision (single only), compared only with runs of the same precision")
        ->check(CLI::IsMember({"single", "double"}));
  }
  void check(const std::string& size, const MemoryLimits& limits) const override {
    check_instance(n_ > 0 ? n_ : elements_for_size(size), limits, precision_);
  }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    return make_instance(n_ > 0 ? n_ : elements_for_size(size), limits, precision_);
  }
  // Arrays well beyond any cache: 3 x 256 MiB on the host, 3 x 2 GiB on a
  // device, or fewer elements (a multiple of 4096) where target_bytes asks
  // for less; halved until they take at most half of the memory.
  CeilingInstance make_for_ceiling(bool on_device, const MemoryLimits& limits, double target_bytes) override {
    std::size_t n = elements_for_size(on_device ? "large" : "medium");
    const double element_bytes = 3.0 * sizeof(double);
    const bool below = target_bytes > 0 && target_bytes < element_bytes * double(n);
    if (below) n = std::max(std::size_t(4096), std::size_t(target_bytes / element_bytes) / 4096 * 4096);
    while (n > (std::size_t(1) << 20) && (element_bytes * double(n) > limits.host_bytes * 0.5 ||
                                          (limits.device_bytes > 0 && element_bytes * double(n) > limits.device_bytes * 0.5)))
      n /= 2;
    return {make_instance(n, limits), below};
  }

 private:
  std::size_t n_ = 0;
  Precision precision_ = Precision::double_;
};

const Registration registration{std::make_unique<StreamWorkload>()};

}  // namespace
}  // namespace ompref::stream
