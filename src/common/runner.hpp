#pragma once
// The generic flow every run of every variant goes through, and the triad
// ceiling each run is held against.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/fp64_probe.hpp"
#include "common/registry.hpp"
#include "common/results.hpp"

namespace ompref {

struct RunSettings {
  RunSettings() = default;
  RunSettings(int reps_, int warmup_, double budget_s_, std::function<void(int, int)> on_repetition_ = {},
              std::function<void()> on_validating_ = {})
      : reps(reps_), warmup(warmup_), budget_s(budget_s_), on_repetition(std::move(on_repetition_)),
        on_validating(std::move(on_validating_)) {}
  int reps = 5;
  int warmup = 1;
  // > 0: no further timed repetition starts once warm-ups and repetitions
  // so far, plus one more, would exceed this many seconds (at least one
  // timed repetition runs; with several MPI ranks they stop together), and
  // a warm-up longer than a fifth of it is timed instead (runner.cpp).
  double budget_s = 0;
  // Called after every repetition, warm-ups included: (done, warmup + reps).
  std::function<void(int, int)> on_repetition;
  // Called when the repetitions are over and the host work after them
  // begins: the device data brought back, the validation against the
  // reference (which may compute it) and the observables.
  std::function<void()> on_validating;
};

// The run sequence of one variant on one instance, step by step, for the
// runner and for the benchmark binary: construction resets the instance
// (inputs set, outputs poisoned) and enters the device data (timed:
// transfer); repeat() runs one repetition; finish() exits the device data
// (timed: transfer) and validates the repetitions run (timed: validation,
// with any reference run it calls for).
class VariantRun {
 public:
  // `instance`, or the part of it the variant runs on (Variant::part_of).
  VariantRun(const Variant& variant, Instance& instance, int device, const std::vector<int>& devices);
  // The instance the variant runs on: the one given, or its part.
  Instance& instance() const { return instance_; }
  // One repetition (native variants: ended by a wait for the device); its wall time.
  double repeat();
  // The phase laps of the last repetition.
  const std::vector<std::pair<std::string, double>>& laps() const { return ctx_.clock.laps(); }
  Check finish();
  int repetitions() const { return repetitions_; }
  double transfer_s() const { return transfer_s_; }
  double setup_s() const { return setup_s_; }
  double validation_s() const { return validation_s_; }
  const std::string& ran_on() const { return ran_on_; }
  bool on_device() const { return ctx_.on_device; }
  const nlohmann::json& notes() const { return ctx_.notes; }

 private:
  const Variant& variant_;
  Instance& instance_;
  RunContext ctx_;
  std::string ran_on_;
  double transfer_s_ = 0, setup_s_ = 0, validation_s_ = 0;
  int repetitions_ = 0;
  bool finished_ = false;
};

// A VariantRun: warm-up, timed repetitions, then the model, the phases,
// the validation and the observables in one result.
// Native variants' repetitions and laps end with a wait for the device.
RunResult run_variant(const Variant& variant, Instance& instance, const std::string& size,
                      const RunSettings& settings, int device, const std::vector<int>& devices);

// Sets where `variant` runs on `device` (ctx.device, ctx.on_device, and for
// native variants the clock's wait for the device) and returns the place:
// "host", "host (fallback)" or "NVIDIA H200 (device 0)".
std::string prepare_context(const Variant& variant, int device, RunContext& ctx);

// Native variants need the native device of every device in `devices`
// (native_unusable). Without one they leave the plan, with one line on
// stdout; when the user named them (`named`: --variant), the command is
// refused (UsageError).
void keep_runnable(std::vector<std::pair<Workload*, std::vector<const Variant*>>>& plan,
                   const std::vector<int>& devices, bool named);

// Each target run's native_fraction: its native twin's median time / its own,
// where the twin (same workload, kernel tag, device, size and parameters) ran
// valid among `runs`.
void set_native_fractions(std::vector<RunResult>& runs);

// The bandwidth ceiling measured once per place a process runs on (the host,
// each device), with the variants that declare a ceiling phase (stream's
// triad: host_simd on the host, the better of its target variants on a
// device). The ceiling is the best (min-time) rate; runs are held against it
// with their median time, so a fraction is never flattered. Where a native
// back end has the device, its probes (the CUDA triad over launch shapes, the
// FP64 FMA rate) are measured too and reported beside the OpenMP ceiling,
// which stays the one runs are held against.
class Ceilings {
 public:
  Ceilings(bool enabled, MemoryLimits limits) : enabled_(enabled), limits_(limits) {}
  // Sizes the ceilings to the run (before they are measured): `planned_bytes`,
  // the largest working set the run plans (planned_host_bytes), bounds the
  // host ceiling's arrays to a few times it, never below twice the host's
  // last-level cache; a device's ceiling keeps its default size unless the
  // run's working set is small (runner.cpp). 0: the default sizes.
  void size_for(double planned_bytes) { planned_bytes_ = planned_bytes; }
  // Measures the places up front, before any workload allocates: the host and
  // each device that really runs target regions.
  void measure_places(bool host, const std::vector<int>& devices);
  // Fills run.ceiling_gbps and run.ceiling_fraction, measuring the place first if needed.
  void apply(RunResult& run);
  nlohmann::json to_json() const;
  bool all_valid() const;

 private:
  struct Measured {
    double gbps = 0;
    nlohmann::json params;  // the ceiling instance's parameters
    bool valid = false;
    std::string ran_on;
    std::string variant;  // the variant that set it
    std::string label;    // "<workload> <variant> <phase>"
    HostFp64 fp64;        // the host's FP64 rate (host entry only)
    double spread_percent = 0;  // (median - best) / best of the ceiling phase's repetitions
    std::string sized;          // how the instance's size was chosen, in words
    int reps = 0, warmup = 0;
    double measure_s = 0;       // wall time of the measurement, the FP64 probe included
  };
  struct NativeMeasured {
    std::string place;
    std::vector<std::pair<NativeProbe, ProbeResult>> probes;
    bool valid = true;
  };
  const Measured& measure(bool on_device, int device);
  void measure_native(int device);
  nlohmann::json native_json(const NativeMeasured& m) const;
  // The FP64 rate of a place in GFLOP/s (0: not measured there): the host's
  // probe, or a device's native FP64 FMA probe.
  double fp64_gflops(int key) const;

  bool enabled_;
  MemoryLimits limits_;
  double planned_bytes_ = 0;
  std::map<int, Measured> places_;         // key: device number, -1 for the host
  std::map<int, NativeMeasured> native_;   // key: device number
};

}  // namespace ompref
