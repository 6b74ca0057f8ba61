#include "common/runner.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include "common/device.hpp"
#include "common/ranks.hpp"
#include "common/usage_error.hpp"

namespace ompref {

std::string prepare_context(const Variant& variant, int device, RunContext& ctx) {
  ctx.device = device;
  switch (variant.kind) {
    case Kind::host:
      ctx.on_device = false;
      return "host";
    case Kind::target:
      ctx.on_device = target_runs_on_device(device);
      return target_place(device, ctx.on_device);
    case Kind::native: {
      const NativeBackend* native = registry().native();
      if (!native) throw UsageError(fmt::format("{}: this build has no native back end", variant.name));
      ctx.on_device = true;
      ctx.clock.wait_with([native, device] { native->synchronize(device); });
      return native_place(device);
    }
  }
  return "?";
}

namespace {

// The instance a variant runs on: its part where it has one, made by every
// rank together (a part one rank cannot hold ends every rank with its line).
Instance& instance_for(const Variant& variant, Instance& instance) {
  if (!variant.part_of) return instance;
  Instance* part = nullptr;
  agree([&] { part = &variant.part_of(instance); });
  return *part;
}

}  // namespace

VariantRun::VariantRun(const Variant& variant, Instance& instance, int device,
                               const std::vector<int>& devices)
    : variant_(variant), instance_(instance_for(variant, instance)) {
  ctx_.devices = devices;
  ran_on_ = prepare_context(variant, device, ctx_);
  const double reset_at = omp_get_wtime();
  instance_.reset();
  setup_s_ = omp_get_wtime() - reset_at;
  if (variant_.kind != Kind::host && variant_.enter_data) {
    const double t0 = omp_get_wtime();
    variant_.enter_data(instance_, ctx_);
    transfer_s_ = omp_get_wtime() - t0;
  }
}

double VariantRun::repeat() {
  const double t0 = omp_get_wtime();
  ctx_.clock.start();
  variant_.run(instance_, ctx_);
  ctx_.clock.wait();
  ++repetitions_;
  return omp_get_wtime() - t0;
}

Check VariantRun::finish() {
  if (!finished_ && variant_.kind != Kind::host && variant_.exit_data) {
    const double t0 = omp_get_wtime();
    variant_.exit_data(instance_, ctx_);
    transfer_s_ += omp_get_wtime() - t0;
  }
  finished_ = true;
  const double t0 = omp_get_wtime();
  Check check = instance_.validate(repetitions_, variant_.kernel);
  validation_s_ = omp_get_wtime() - t0;
  return check;
}

namespace {

// The timed repetitions of a run: each one's total and its phases' laps.
struct Samples {
  std::vector<double> totals;
  std::map<std::string, std::vector<double>> phase_times;
  int untimed = 0;  // warm-up repetitions left out of the timing
};

// Runs the warm-ups, then the timed repetitions, within the settings' budget.
Samples repeat_timed(VariantRun& run_state, const RunSettings& settings) {
  Samples samples;
  std::vector<double>& totals = samples.totals;
  const int all_reps = settings.warmup + settings.reps;
  const double started = omp_get_wtime();
  const auto keep = [&](double seconds) {
    totals.push_back(seconds);
    for (const auto& [name, lap] : run_state.laps()) samples.phase_times[name].push_back(lap);
  };
  // A warm-up repetition longer than a fifth of the budget is a long run
  // whose one-time costs (a first launch, first touches: milliseconds) are
  // lost in it: it is timed as the first repetition and the warm-up ends,
  // so that a slow step of a lesson does not run twice (the JSON's warmup
  // gives the untimed ones).
  // The warm-ups together stop once they have taken a fifth of the budget:
  // many short ones (--warmup 100000) are bounded by it too.
  int& untimed = samples.untimed;
  double warm_s = 0;
  for (int w = 0; w < settings.warmup; ++w) {
    const double seconds = run_state.repeat();
    if (settings.on_repetition) settings.on_repetition(w + 1, all_reps);
    if (settings.budget_s > 0 && !all_ranks(seconds <= settings.budget_s / 5)) {
      keep(seconds);
      break;
    }
    ++untimed;
    warm_s += seconds;
    if (settings.budget_s > 0 && !all_ranks(warm_s < settings.budget_s / 5)) break;
  }
  while (int(totals.size()) < settings.reps) {
    if (settings.budget_s > 0 && !totals.empty()) {
      double timed = 0;
      for (double t : totals) timed += t;
      const double spent = omp_get_wtime() - started, next = timed / double(totals.size());
      if (!all_ranks(spent + next <= settings.budget_s)) break;
    }
    keep(run_state.repeat());
    if (settings.on_repetition) settings.on_repetition(untimed + int(totals.size()), all_reps);
  }
  return samples;
}

// The run's times, figure of merit and phase rates from its samples and the
// model of the kernel that ran.
void summarize(RunResult& r, Instance& ran, const Variant& variant, const Samples& samples) {
  // Asked after the run: a workload whose variants are different kernels
  // (mesh) models the one that ran.
  r.model = ran.model(variant.kernel);
  r.time_s = Stats::of(samples.totals);
  r.samples_s = samples.totals;
  r.fom = r.time_s.median > 0 ? r.model.fom_amount / r.time_s.median : 0;
  for (const PhaseModel& p : ran.phases()) {
    auto it = samples.phase_times.find(p.name);
    if (it == samples.phase_times.end()) continue;
    PhaseResult pr{p.name, Stats::of(it->second), p.bytes, 0, 0};
    pr.gbps = pr.time_s.median > 0 ? p.bytes / pr.time_s.median / 1e9 : 0;
    pr.gbps_best = pr.time_s.min > 0 ? p.bytes / pr.time_s.min / 1e9 : 0;
    r.phases.push_back(pr);
  }
}

}  // namespace

RunResult run_variant(const Variant& variant, Instance& instance, const std::string& size,
                      const RunSettings& settings, int device, const std::vector<int>& devices) {
  RunResult r;
  r.workload = variant.workload;
  r.variant = variant.name;
  r.kind = variant.kind;
  r.kernel = variant.kernel;
  r.size = size;
  r.reps_requested = settings.reps;

  const double began = omp_get_wtime();
  VariantRun run_state(variant, instance, device, devices);
  Instance& ran = run_state.instance();  // the instance, or the part of it the variant ran on
  r.params = ran.params();
  r.ran_on = run_state.ran_on();
  if (variant.kind != Kind::host) {
    r.on_device = run_state.on_device();
    r.device = device;
  }
  const Samples samples = repeat_timed(run_state, settings);
  r.warmup = samples.untimed;
  r.reps = int(samples.totals.size());
  if (settings.on_validating) settings.on_validating();
  r.check = run_state.finish();
  r.transfer_s = run_state.transfer_s();
  r.setup_s = run_state.setup_s();
  r.validation_s = run_state.validation_s();
  r.notes = run_state.notes();
  summarize(r, ran, variant, samples);
  const double observed = omp_get_wtime();
  r.observables = ran.observables(variant.kernel);
  r.observables_s = omp_get_wtime() - observed;
  r.wall_s = omp_get_wtime() - began;
  return r;
}

void keep_runnable(std::vector<std::pair<Workload*, std::vector<const Variant*>>>& plan,
                   const std::vector<int>& devices, bool named) {
  const auto is_native = [](const Variant* v) { return v->kind == Kind::native; };
  std::vector<std::string> natives;
  for (const auto& [w, chosen] : plan)
    for (const Variant* v : chosen)
      if (is_native(v)) natives.push_back(v->name);
  if (natives.empty()) return;
  const std::string why = native_unusable(devices);
  if (why.empty()) return;
  if (named)
    throw UsageError(fmt::format("--variant {}: {} (accepted here: host and target variants)", fmt::join(natives, ","), why));
  for (auto& [w, chosen] : plan) chosen.erase(std::remove_if(chosen.begin(), chosen.end(), is_native), chosen.end());
  fmt::print("native variants skipped ({}): {}\n", fmt::join(natives, ", "), why);
  std::fflush(stdout);
}

void set_native_fractions(std::vector<RunResult>& runs) {
  for (RunResult& t : runs) {
    if (t.kind != Kind::target || !(t.time_s.median > 0)) continue;
    for (const RunResult& n : runs)
      if (n.kind == Kind::native && n.check.valid && n.workload == t.workload && n.kernel == t.kernel &&
          n.device == t.device && n.size == t.size && n.params == t.params)
        t.native_fraction = n.time_s.median / t.time_s.median;
  }
}

namespace {

// The variants that measure a ceiling on a kind of place.
std::vector<const Variant*> ceiling_candidates(Kind kind) {
  std::vector<const Variant*> candidates;
  for (const Variant* v : registry().variants())
    if (v->kind == kind && !v->ceiling_phase.empty()) candidates.push_back(v);
  return candidates;
}

// The working set a ceiling is sized to (0: the workload's default) and the
// words that say how it was chosen.
struct CeilingSize {
  double target = 0;
  std::string sized = "the default size";
};

// Sized to the run: a few times its largest working set, beyond any cache
// (the host's last-level cache as Linux reports it; 768 MiB for a device,
// above the last-level caches of current GPUs), never above the workload's
// default. A device keeps its default unless the run's working set is small.
CeilingSize ceiling_size(double planned_bytes, bool device_memory) {
  constexpr double mib = 1024.0 * 1024.0;
  const double few = 4, host_floor = std::max(2 * host_info().last_level_cache_bytes, 64 * mib), device_floor = 768 * mib;
  CeilingSize size;
  if (planned_bytes > 0 && !device_memory) {
    size.target = std::max(few * planned_bytes, host_floor);
    size.sized = fmt::format("at most max({} x the run's largest working set of {:.1f} MiB, 2 x the last-level cache of "
                             "{:.1f} MiB, 64 MiB)",
                             few, planned_bytes / mib, host_info().last_level_cache_bytes / mib);
  } else if (planned_bytes > 0 && few * planned_bytes < device_floor) {
    size.target = device_floor;
    size.sized = fmt::format("{:.0f} MiB: the run's largest working set, {:.1f} MiB, is small", device_floor / mib,
                             planned_bytes / mib);
  }
  return size;
}

}  // namespace

const Ceilings::Measured& Ceilings::measure(bool on_device, int device) {
  const int key = on_device ? device : -1;
  auto it = places_.find(key);
  if (it != places_.end()) return it->second;

  // The variants that measure a ceiling on this kind of place, and their
  // workload's instance sized for it (beyond any cache).
  const std::vector<const Variant*> candidates = ceiling_candidates(on_device ? Kind::target : Kind::host);
  MemoryLimits limits = limits_;
  if (!on_device) limits.device_bytes = 0;
  const double began = omp_get_wtime();
  // The virtual device's ceiling is sized as the host's: its memory is the host's.
  const bool device_memory = on_device && !OMPREF_VIRTUAL_DEVICE;
  const CeilingSize size = ceiling_size(planned_bytes_, device_memory);
  Workload::CeilingInstance made;
  if (!candidates.empty())
    made = registry().workload(candidates.front()->workload)->make_for_ceiling(device_memory, limits, size.target);
  std::unique_ptr<Instance>& instance = made.instance;
  // The best phase rate (min time, as BabelStream and the CUDA ceilings report
  // it) over the candidates: which is faster depends on the compiler.
  // Warm-ups let the clocks ramp up; a host ceiling sized below its default
  // (for a small run) takes fewer.
  RunSettings settings;
  settings.reps = on_device ? 20 : made.below_default ? 5 : 15;
  settings.warmup = on_device ? 5 : made.below_default ? 1 : 3;
  Measured m;
  m.valid = instance != nullptr;
  m.sized = made.below_default ? size.sized : "the default size";
  m.reps = settings.reps;
  m.warmup = settings.warmup;
  for (const Variant* v : candidates) {
    if (!instance || v->workload != candidates.front()->workload) continue;
    RunResult run = run_variant(*v, *instance, "ceiling", settings, device, {device});
    m.valid = m.valid && run.check.valid;
    m.ran_on = run.ran_on;
    m.params = run.params;
    for (const PhaseResult& p : run.phases)
      if (p.name == v->ceiling_phase && p.gbps_best > m.gbps) {
        m.gbps = p.gbps_best;
        m.variant = v->name;
        m.label = fmt::format("{} {} {}", v->workload, v->name, p.name);
        m.spread_percent = p.time_s.min > 0 ? (p.time_s.median - p.time_s.min) / p.time_s.min * 100.0 : 0;
      }
  }
  if (!instance) m.ran_on = on_device ? target_place(device, true) : "host";
  fmt::print("ceiling: {:.1f} GB/s on {} (best of {} repetitions of {}, {}; {}){}\n", m.gbps, m.ran_on, settings.reps,
             m.label.empty() ? "no ceiling variant" : m.label, json_text(m.params, -1), m.sized,
             m.valid ? "" : "  FAILED VALIDATION: not used");
  if (!on_device) {
    m.fp64 = measure_host_fp64();
    fmt::print("ceiling: {:.1f} GFLOP/s FP64 on host ({}){}\n", m.fp64.gflops, m.fp64.measured,
               m.fp64.valid ? "" : "  FAILED VALIDATION: not used");
  }
  m.measure_s = omp_get_wtime() - began;
  std::fflush(stdout);
  return places_.emplace(key, m).first->second;
}

// The native back end's probes on one device, once per process.
void Ceilings::measure_native(int device) {
  if (native_.count(device)) return;
  NativeMeasured m;
  m.place = native_place(device);
  for (const NativeProbe& probe : registry().probes()) {
    ProbeResult result = probe.measure(device);
    fmt::print("native ceiling: {:.1f} {} on {} ({}){}\n", result.value, probe.unit, m.place, result.measured,
               result.valid ? "" : "  FAILED VALIDATION");
    std::fflush(stdout);
    m.valid = m.valid && result.valid;
    m.probes.emplace_back(probe, std::move(result));
  }
  native_.emplace(device, std::move(m));
}

void Ceilings::measure_places(bool host, const std::vector<int>& devices) {
  if (!enabled_) return;
  if (host) measure(false, -1);
  for (int d : devices) {
    if (target_runs_on_device(d)) measure(true, d);
    if (native_unusable({d}).empty()) measure_native(d);
  }
}

void Ceilings::apply(RunResult& run) {
  if (!enabled_) return;
  // A native run is held against the OpenMP ceiling of its device, where
  // OpenMP offload really reaches that device.
  if (run.kind == Kind::native && places_.count(run.device) == 0 && !target_runs_on_device(run.device)) return;
  const Measured& m = measure(run.on_device, run.device);
  const double fp64 = fp64_gflops(run.on_device ? run.device : -1);
  if (fp64 > 0 && run.model.flops > 0 && run.time_s.median > 0)
    run.fp64_fraction = run.model.flops / run.time_s.median / 1e9 / fp64;
  if (!m.valid || m.gbps <= 0) return;
  run.ceiling_gbps = m.gbps;
  if (run.time_s.median > 0) run.ceiling_fraction = run.model.bytes / run.time_s.median / 1e9 / m.gbps;
}

double Ceilings::fp64_gflops(int key) const {
  if (key < 0) {
    auto it = places_.find(-1);
    return it != places_.end() && it->second.fp64.valid ? it->second.fp64.gflops : 0;
  }
  auto it = native_.find(key);
  if (it == native_.end()) return 0;
  for (const auto& [probe, result] : it->second.probes)
    if (probe.fp64_gflops_per_unit > 0 && result.valid) return result.value * probe.fp64_gflops_per_unit;
  return 0;
}

// The probes' figures as fields of the device's entry (null when a probe
// failed validation), and how each was measured under "native".
nlohmann::json Ceilings::native_json(const NativeMeasured& m) const {
  nlohmann::json fields = nlohmann::json::object();
  nlohmann::json detail = {{"place", m.place}, {"backend", registry().native()->name}};
  for (const auto& [probe, result] : m.probes) {
    fields[probe.field] = result.valid ? nlohmann::json(result.value) : nlohmann::json(nullptr);
    nlohmann::json one = {{"value", result.value}, {"unit", probe.unit}, {"measured", result.measured},
                          {"valid", result.valid}};
    for (const auto& [name, value] : result.details) one["details"][name] = value;
    detail[probe.field] = one;
  }
  fields["native"] = detail;
  return fields;
}

nlohmann::json Ceilings::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, m] : places_) {
    // The instance's parameters (stream: n, array_bytes) beside the rate.
    nlohmann::json entry = m.params.is_object() ? m.params : nlohmann::json::object();
    entry.update({{"place", m.ran_on}, {"triad_GBps", m.gbps}, {"variant", m.variant}, {"measured", m.label},
                  {"valid", m.valid}, {"triad_spread_percent", m.spread_percent}, {"sized", m.sized},
                  {"reps", m.reps}, {"warmup", m.warmup}, {"measure_s", m.measure_s}});
    if (key < 0 && m.fp64.gflops > 0)
      entry.update({{"fp64_GFLOPs", m.fp64.valid ? nlohmann::json(m.fp64.gflops) : nlohmann::json(nullptr)},
                    {"fp64_measured", m.fp64.measured}, {"fp64_spread_percent", m.fp64.spread_percent}});
    if (auto it = native_.find(key); key >= 0 && it != native_.end()) entry.update(native_json(it->second));
    out.push_back(entry);
  }
  // Devices only the native back end reached (OpenMP offload fell back to the host).
  for (const auto& [key, m] : native_)
    if (places_.count(key) == 0) {
      nlohmann::json entry = {{"place", m.place}, {"valid", m.valid}};
      entry.update(native_json(m));
      out.push_back(entry);
    }
  return out;
}

bool Ceilings::all_valid() const {
  for (const auto& [key, m] : places_)
    if (!m.valid || (m.fp64.gflops > 0 && !m.fp64.valid)) return false;
  for (const auto& [key, m] : native_)
    if (!m.valid) return false;
  return true;
}

}  // namespace ompref
