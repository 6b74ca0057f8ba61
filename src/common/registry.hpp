#pragma once
// The registry: workloads (common/workload.hpp), their variants
// (common/variant.hpp) and the native back end (common/native_backend.hpp)
// register here at program start, and the runner, the command and the tests
// read them from here. Adding a variant is one function plus one registration
// line; kernel translation units include this header.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/native_backend.hpp"
#include "common/run_context.hpp"
#include "common/variant.hpp"
#include "common/workload.hpp"

namespace ompref {

// A variant whose source file did not compile: the build left the file out
// of the program and registered its variants (found by cmake/step_variants.cmake
// without compiling it) with the compiler's first error line instead
// (cmake/compile_step.cmake). `ompref list` and `ompref check` report them.
struct LeftOut {
  Kind kind = Kind::target;
  std::string workload;
  std::string name;  // empty: no registration found in the file
  std::string file;  // from src/
  std::string reason;  // the compiler's first error line
};

class Registry {
 public:
  void add(std::unique_ptr<Workload> workload);
  void add(Variant variant);
  void add(NativeProbe probe);
  void add(LeftOut left_out);
  void set_native(NativeBackend backend);
  // The variants of files that did not compile (LeftOut), in their order.
  const std::vector<LeftOut>& left_out() const { return left_out_; }
  // The native back end, or nullptr in a build without one.
  const NativeBackend* native() const { return native_.get(); }
  // In their order.
  std::vector<NativeProbe> probes() const;
  // Workloads in the suite's order (Workload::order).
  std::vector<Workload*> workloads() const;
  Workload* workload(const std::string& name) const;
  // Variants of one workload (all workloads when empty), host ones first.
  std::vector<const Variant*> variants(const std::string& workload = "") const;
  const Variant* variant(const std::string& workload, const std::string& name) const;

 private:
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::vector<Variant> variants_;
  std::vector<NativeProbe> probes_;
  std::vector<LeftOut> left_out_;
  std::unique_ptr<NativeBackend> native_;
};

Registry& registry();

// A native (plain CUDA) variant, the twin of a workload's target variants on
// the same instance data: the same DeviceData declaration, entered by the
// native back end (cudaMalloc + cudaMemcpy before timing, outputs copied back
// and everything freed after). The kernels find their arrays' device copies
// with native_cuda/cuda_support.hpp. Runs on the CUDA device of the OpenMP device
// number (see NativeBackend). `data` makes the declaration from the instance,
// as target_variant's does.
template <class I, class Data, class = std::enable_if_t<std::is_invocable_r_v<DeviceData, Data, I&>>>
Variant native_variant(std::string workload, std::string name, std::string sentence,
                       void (*run)(I&, RunContext&), Data data,
                       const char* file = __builtin_FILE()) {
  return with_device_data<I>(host_variant(std::move(workload), std::move(name), std::move(sentence), run, file),
                             Kind::native, data,
                             [](const DeviceData& d, int device) { registry().native()->enter(d, device); },
                             [](const DeviceData& d, int device) { registry().native()->exit(d, device); });
}

// A static object of this type registers at program start.
struct Registration {
  explicit Registration(Variant variant) { registry().add(std::move(variant)); }
  explicit Registration(std::unique_ptr<Workload> workload) { registry().add(std::move(workload)); }
  explicit Registration(NativeBackend backend) { registry().set_native(std::move(backend)); }
  explicit Registration(NativeProbe probe) { registry().add(std::move(probe)); }
  explicit Registration(std::vector<LeftOut> variants) {
    for (LeftOut& v : variants) registry().add(std::move(v));
  }
};

}  // namespace ompref
