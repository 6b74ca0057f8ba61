#pragma once
// A workload and its instance: what a workload declares once (its sizes,
// parameters, data, validation and bytes/flops model) and what one instance of
// it at one size gives the runner. Kernel translation units include it
// (through common/registry.hpp), so it stays light: no JSON or command-line
// library here (they would also be parsed by the device pass).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/host_memory.hpp"

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
  // Where set, check_host also records the largest request here.
  double* record_host = nullptr;
};
// The memory of the arrays target variants map: page-locked where they may
// run on a device (a device was found: device_bytes > 0), so that the
// copies run at the link's rate; pageable otherwise.
inline Memory mapped_memory(const MemoryLimits& limits) {
  return limits.device_bytes > 0 ? Memory::page_locked : Memory::pageable;
}

// How one repetition of an instance turns into rates.
struct Model {
  double bytes = 0;              // bytes one repetition must move (the workload's stated model)
  double flops = 0;              // floating-point operations of one repetition
  std::string fom_name;          // "GB/s", "GFLOP/s", "MLUPS"
  // The work of one repetition in the figure of merit's unit times seconds
  // (GB for GB/s, GFLOP for GFLOP/s, millions of lattice-site updates for
  // MLUPS): the figure of merit is fom_amount / the median time in seconds.
  double fom_amount = 0;
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

// How two runs of a workload compare (`ompref compare`, `ompref report`): the
// unit of its figure of merit (Model::fom_name) and, per parameter of its
// runs (Instance::params), whether a difference in it keeps them comparable.
// `work`: the parameter scales the work of a repetition and the figure of
// merit (work / median time) divides it out, so runs that differ in it, or in
// --size, are compared by their figures of merit ("by rate"). `same_work`: it
// changes how the work is done (a launch shape, an order), not how much: runs
// that differ only in it are still compared by time. A parameter not declared
// changes what is computed or how work is counted (a data set, a physical
// constant, the FLOP model, an input file): runs that differ in it are not
// comparable. `generator` (with `work`): comparable only where both values
// are that generator's text at another size ("cube 32" and "cube 128").
enum class ParamEffect { work, same_work };
struct ComparedParam {
  std::string param;
  ParamEffect effect;
  std::string generator;  // empty: any two values
};
struct Comparability {
  std::string fom;                     // the figure of merit's unit, as Model::fom_name
  std::vector<ComparedParam> params;   // the parameters that keep runs comparable
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
  // What keeps two of its runs comparable (above).
  virtual Comparability comparability() const = 0;
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
  // Checks (as check() does), then allocates: throws UsageError.
  virtual std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) = 0;
  // An instance for measuring the bandwidth ceiling of a place (on a device
  // or the host) with this workload's ceiling variants (Variant::ceiling_phase);
  // nullptr for workloads that have none.
  // target_bytes > 0: the instance's arrays take at most about that many
  // bytes (never more than without it); 0: the workload's own choice.
  struct CeilingInstance {
    std::unique_ptr<Instance> instance;
    bool below_default = false;  // smaller than the workload's own choice, for target_bytes
  };
  virtual CeilingInstance make_for_ceiling(bool /*on_device*/, const MemoryLimits& /*limits*/, double /*target_bytes*/) {
    return {};
  }
};

// The host bytes `w` asks for at `size` with its options (what its check()
// holds against host memory): the working set of the run it plans.
double planned_host_bytes(const Workload& w, const std::string& size);


}  // namespace ompref
