#pragma once
// stream: BabelStream's five kernels, the bandwidth ceiling every other result
// is held against. Data layout (shared by host and target variants): three
// separate arrays a, b, c of n doubles, 64-byte aligned.
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

class StreamInstance final : public Instance {
 public:
  explicit StreamInstance(std::size_t n);
  nlohmann::json params() const override;
  Model model(const std::string& kernel) const override;
  std::vector<PhaseModel> phases() const override;
  void reset() override;
  Check validate(int repetitions, const std::string& kernel) const override;
  nlohmann::json observables(const std::string& kernel) const override;

  std::size_t n;
  AlignedArray<double> a, b, c;
  double dot;  // written by the dot kernel of the last repetition
};

// Checks memory, then allocates: the workload and the ceiling measurement both use it.
// The memory check of make_instance, allocating nothing.
void check_instance(std::size_t n, const MemoryLimits& limits);
std::unique_ptr<StreamInstance> make_instance(std::size_t n, const MemoryLimits& limits);

}  // namespace ompref::stream
