#pragma once
// The registry: workloads declare their sizes, parameters, data, validation and
// bytes/flops model once (a Workload and its Instance); variants register with
// their workload, kind, one sentence of what they teach, and a run function.
// Adding a variant is one function plus one registration line.
//
// Kernel translation units include this header, so it stays light: no JSON or
// command-line library here (they would also be parsed by the device pass).
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/device_data.hpp"

namespace CLI {
class App;
}

namespace ompref {

// host_*: OpenMP on the CPU; target_*: OpenMP offload; native_*: plain CUDA on
// the same instance data (built with OMPREF_NATIVE=cuda: docs/native.md).
enum class Kind { host, target, native };
const char* kind_name(Kind kind);

// What the runner knows of memory before a workload allocates anything.
struct MemoryLimits {
  double host_bytes = 0;     // available host memory
  double device_bytes = 0;   // smallest device memory among the devices used; 0: no device
  // Throws UsageError naming `what` and both sizes when `bytes` do not fit.
  void check_host(double bytes, const std::string& what) const;
  void check_device(double bytes, const std::string& what) const;
};

// How one repetition of an instance turns into rates.
struct Model {
  double bytes = 0;              // bytes one repetition must move (the workload's stated model)
  double flops = 0;              // floating-point operations of one repetition
  std::string fom_name;          // "GB/s", "GFLOP/s", "MLUPS"
  double fom_amount = 0;         // amount of fom units per repetition: fom = fom_amount / seconds
};

// A timed part of one repetition (stream's copy, mul, ...; lbm's passes).
struct PhaseModel {
  std::string name;
  double bytes = 0;
};

struct Check {
  bool valid = false;
  double max_rel_error = 0;
  double tolerance = 0;
  std::string reference;   // "closed form", "host long-double reference", ...
  std::string detail;      // where the worst error is, on failure
};

// One workload set up at one size: its data on the host, its model, its validation.
class Instance {
 public:
  virtual ~Instance() = default;
  virtual nlohmann::json params() const = 0;
  // `kernel` is the variant's kernel tag (Variant::kernel; empty for a
  // workload of one kernel): model, validation and observables are those of
  // the kernel that ran. Asked after a variant's repetitions.
  virtual Model model(const std::string& kernel) const = 0;
  virtual std::vector<PhaseModel> phases() const { return {}; }
  // Initialise the inputs and poison the outputs (NaN): runs before every variant.
  virtual void reset() = 0;
  // Validate after `repetitions` calls of a variant's run function since reset().
  virtual Check validate(int repetitions, const std::string& kernel) const = 0;
  virtual nlohmann::json observables(const std::string& kernel) const = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  // Where the workload comes in `run all` and `list` (lower first): the one
  // whose variants measure the ceiling goes first.
  virtual int order() const = 0;
  virtual std::vector<std::string> sizes() const = 0;
  // `--size auto` (the default): the size of a run on the host, sized for a
  // host (a 2-core machine runs the whole suite in minutes), and of a run on
  // an offload device, sized for the device (stream's target triad large
  // enough to reach its ceiling).
  virtual std::string default_size() const = 0;
  virtual std::string device_size() const { return default_size(); }
  // Workload parameters (--deck, --nx, ...), bound to members of the workload,
  // added to the workload's own option group of the run command (the runner
  // refuses them for other workloads).
  virtual void add_options(CLI::App& group) = 0;
  // Checks the parameters, the input files (type, opened, header) and the
  // memory that make(size, limits) would need, allocating nothing: throws
  // UsageError. The runner calls it for every planned workload before
  // anything is measured or allocated, so that a bad option of the last
  // workload of `run all` is refused at once.
  virtual void check(const std::string& /*size*/, const MemoryLimits& /*limits*/) const {}
  // Options that change only some of the workload's variants: (option, those
  // variants). One given while none of its variants runs is noted in one
  // line on standard error (it changes nothing).
  virtual std::vector<std::pair<std::string, std::vector<std::string>>> variant_options() const { return {}; }
  // Checks (as check() does), then allocates: throws UsageError.
  virtual std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) = 0;
  // An instance for measuring the bandwidth ceiling of a place (on a device
  // or the host) with this workload's ceiling variants (Variant::ceiling_phase);
  // nullptr for workloads that have none.
  virtual std::unique_ptr<Instance> make_for_ceiling(bool /*on_device*/, const MemoryLimits& /*limits*/) {
    return nullptr;
  }
};

// Sub-timings inside one repetition: a variant calls lap("copy") after each part.
class PhaseClock {
 public:
  void start();
  // Waits for the place's queued work (wait_with), then reads the time.
  void lap(const std::string& phase);
  const std::vector<std::pair<std::string, double>>& laps() const { return laps_; }
  // A CUDA launch returns before its kernel ends, unlike a target region: the
  // runner gives native variants a wait for the device (NativeBackend::
  // synchronize) that every lap, and the end of every repetition, calls
  // before the clock is read.
  void wait_with(std::function<void()> wait) { wait_ = std::move(wait); }
  void wait() const {
    if (wait_) wait_();
  }

 private:
  double last_ = 0;
  std::vector<std::pair<std::string, double>> laps_;
  std::function<void()> wait_;
};

// The number of teams of a construct shaped for a GPU: `device_teams` where
// target regions really run on a device, one on the host fallback. libgomp and
// libomp run a host league's teams one after another, each its own parallel
// region, so a league of thousands of teams cannot be formed there or crawls
// (per-item teams made g++-12's fallback 40x slower on mesh direct); one team
// has every host thread.
inline int league(bool on_device, long device_teams) { return on_device ? int(std::max(1L, device_teams)) : 1; }

struct RunContext {
  int device = 0;                 // OpenMP device number for target variants
  std::vector<int> devices;       // every device the run may use (multi-device variants)
  bool on_device = false;         // target regions really run on `device` (not the host fallback)
  PhaseClock clock;
};

using RunFunction = std::function<void(Instance&, RunContext&)>;

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

  // At registration: host_variant(...).for_kernel("direct"), .measuring_ceiling("triad").
  Variant& for_kernel(std::string tag) {
    kernel = std::move(tag);
    return *this;
  }
  Variant& measuring_ceiling(std::string phase) {
    ceiling_phase = std::move(phase);
    return *this;
  }
  Variant& split_across_ranks() {
    splits_across_ranks = true;
    return *this;
  }
};

// What the runner needs from a native back end. The CUDA one
// (src/native_cuda/backend.cu) registers itself at program start; a build
// without it has none, and no native variant. Device numbers are OpenMP's:
// native variants run on the CUDA device of the same number, which is the
// same GPU when OpenMP's only offload plugin is NVIDIA's (LLVM's libomptarget
// and gcc's nvptx plugin both number devices in CUDA's order, after
// CUDA_VISIBLE_DEVICES). Errors from the device are thrown as std::runtime_error.
struct NativeBackend {
  std::string name;                                        // "CUDA"
  std::string (*version)() = nullptr;                      // "CUDA runtime 13.0, driver 13.0"
  int (*device_count)(std::string& why) = nullptr;         // usable devices; 0 with the reason in `why`
  std::string (*device_name)(int device) = nullptr;        // "NVIDIA H200"
  void (*synchronize)(int device) = nullptr;               // waits (polling) for the device's queued work
  void (*enter)(const DeviceData& data, int device) = nullptr;  // allocate, copy every array to the device
  void (*exit)(const DeviceData& data, int device) = nullptr;   // copy outputs back, free every array
};

// A measurement of the device itself with the native back end (the CUDA
// triad over launch shapes, the FP64 FMA rate), reported in the device's
// entry of the JSON `ceilings` beside the OpenMP ceiling.
struct ProbeResult {
  double value = 0;
  bool valid = false;
  std::string measured;                                    // how: kernel, launch shape, repetitions
  std::vector<std::pair<std::string, double>> details;     // e.g. each launch shape's rate
};
struct NativeProbe {
  std::string field;                                       // the JSON field: "native_triad_GBps"
  std::string unit;                                        // "GB/s"
  int order = 0;                                           // probes run in this order
  ProbeResult (*measure)(int device) = nullptr;
  // A probe of the FP64 rate (the ceiling of compute-bound runs) gives how
  // many GFLOP/s one unit of its value is (TFLOP/s: 1000); 0 for the others.
  double fp64_gflops_per_unit = 0;
};

class Registry {
 public:
  void add(std::unique_ptr<Workload> workload);
  void add(Variant variant);
  void add(NativeProbe probe);
  void set_native(NativeBackend backend);
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
  std::unique_ptr<NativeBackend> native_;
};

Registry& registry();

// Typed glue: variant functions take their workload's instance type.
template <class I>
RunFunction typed(void (*fn)(I&, RunContext&)) {
  if (fn == nullptr) return {};
  return [fn](Instance& instance, RunContext& context) { fn(static_cast<I&>(instance), context); };
}

template <class I>
Variant host_variant(std::string workload, std::string name, std::string sentence,
                     void (*run)(I&, RunContext&)) {
  Variant v;
  v.workload = std::move(workload);
  v.name = std::move(name);
  v.kind = Kind::host;
  v.sentence = std::move(sentence);
  v.run = typed(run);
  return v;
}

// A target variant whose device data is one declaration beside the kernel
// (common/device_data.hpp): the runner enters it before timing, exits after.
template <class I>
Variant target_variant(std::string workload, std::string name, std::string sentence,
                       void (*run)(I&, RunContext&), DeviceData (*data)(I&)) {
  Variant v = host_variant(std::move(workload), std::move(name), std::move(sentence), run);
  v.kind = Kind::target;
  v.enter_data = [data](Instance& instance, RunContext& context) {
    data(static_cast<I&>(instance)).enter(context.device);
  };
  v.exit_data = [data](Instance& instance, RunContext& context) {
    data(static_cast<I&>(instance)).exit(context.device);
  };
  return v;
}

// A native (plain CUDA) variant, the twin of a workload's target variants on
// the same instance data: the same DeviceData declaration, entered by the
// native back end (cudaMalloc + cudaMemcpy before timing, outputs copied back
// and everything freed after). The kernels find their arrays' device copies
// with native_cuda/present.hpp. Runs on the CUDA device of the OpenMP device
// number (see NativeBackend).
template <class I>
Variant native_variant(std::string workload, std::string name, std::string sentence,
                       void (*run)(I&, RunContext&), DeviceData (*data)(I&)) {
  Variant v = host_variant(std::move(workload), std::move(name), std::move(sentence), run);
  v.kind = Kind::native;
  v.enter_data = [data](Instance& instance, RunContext& context) {
    registry().native()->enter(data(static_cast<I&>(instance)), context.device);
  };
  v.exit_data = [data](Instance& instance, RunContext& context) {
    registry().native()->exit(data(static_cast<I&>(instance)), context.device);
  };
  return v;
}

// A static object of this type registers at program start.
struct Registration {
  explicit Registration(Variant variant) { registry().add(std::move(variant)); }
  explicit Registration(std::unique_ptr<Workload> workload) { registry().add(std::move(workload)); }
  explicit Registration(NativeBackend backend) { registry().set_native(std::move(backend)); }
  explicit Registration(NativeProbe probe) { registry().add(std::move(probe)); }
};

}  // namespace ompref
