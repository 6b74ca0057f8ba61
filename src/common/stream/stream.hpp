#pragma once
// stream: BabelStream's five kernels, the bandwidth ceiling every other result
// is held against. Data layout (shared by host and target variants): three
// separate arrays a, b, c of n doubles (or, with --precision single, n floats:
// af, bf, cf), 64-byte aligned.
#include <cstddef>
#include <memory>
#include <string>

#include "common/aligned_array.hpp"
#include "common/registry.hpp"

namespace ompref::stream {

// BabelStream's start values and scalar.
constexpr double start_a = 0.1;
constexpr double start_b = 0.2;
constexpr double start_c = 0.0;
constexpr double scalar = 0.4;

// Arrays moved per element by each kernel, in the order they run.
struct KernelTraffic {
  const char* name;
  int arrays;
};
constexpr KernelTraffic kernels[] = {{"copy", 2}, {"mul", 2}, {"add", 3}, {"triad", 3}, {"dot", 2}};

std::size_t elements_for_size(const std::string& size);  // tiny, small, medium, large

// The arrays' element type, `--precision single|double` (default double).
// The dot sums in double in both: its products are of the arrays' type.
enum class Precision { single, double_ };
const char* precision_name(Precision p);  // "single", "double"

class StreamInstance final : public Instance {
 public:
  // `memory`: the arrays' (mapped_memory: page-locked where a device may map them).
  explicit StreamInstance(std::size_t n, Precision precision = Precision::double_, Memory memory = Memory::pageable);
  nlohmann::json params() const override;
  Model model(const std::string& kernel) const override;
  std::vector<PhaseModel> phases() const override;
  void reset() override;
  Check validate(int repetitions, const std::string& kernel) const override;
  nlohmann::json observables(const std::string& kernel) const override;

  std::size_t n;
  Precision precision;
  bool single() const { return precision == Precision::single; }
  std::size_t element_bytes() const { return single() ? sizeof(float) : sizeof(double); }
  AlignedArray<double> a, b, c;  // double precision (empty in single)
  AlignedArray<float> af, bf, cf;  // single precision (empty in double)
  double dot;  // written by the dot kernel of the last repetition

  // A variant's kernels, written once for both precisions: kernels(a, b, c)
  // on the three arrays of the run's precision.
  template <class Kernels>
  void with_arrays(Kernels kernels) {
    if (single())
      kernels(af.data(), bf.data(), cf.data());
    else
      kernels(a.data(), b.data(), c.data());
  }
};

// Checks memory, then allocates: the workload and the ceiling measurement both use it.
// The memory check of make_instance, allocating nothing.
void check_instance(std::size_t n, const MemoryLimits& limits, Precision precision = Precision::double_);
std::unique_ptr<StreamInstance> make_instance(std::size_t n, const MemoryLimits& limits,
                                              Precision precision = Precision::double_);

// The validation's tolerances for n elements of type T after `repetitions`
// repetitions (the bounds are derived beside them, in stream.cpp).
struct Tolerances {
  double element, dot;
};
Tolerances tolerances(Precision precision, std::size_t n, int repetitions);

}  // namespace ompref::stream
