#include "common/runner.hpp"

#include <fmt/format.h>
#include <omp.h>

#include "common/device.hpp"

namespace ompref {

RunResult run_variant(const Variant& variant, Instance& instance, const std::string& size,
                      const RunSettings& settings, int device, const std::vector<int>& devices) {
  RunResult r;
  r.workload = variant.workload;
  r.variant = variant.name;
  r.kind = variant.kind;
  r.size = size;
  r.params = instance.params();
  r.reps = settings.reps;
  r.warmup = settings.warmup;

  RunContext ctx;
  ctx.device = device;
  ctx.devices = devices;

  instance.reset();
  if (variant.kind == Kind::target) {
    ctx.on_device = target_runs_on_device(device);
    double t0 = omp_get_wtime();
    if (variant.enter_data) variant.enter_data(instance, ctx);
    r.transfer_s = omp_get_wtime() - t0;
    r.on_device = ctx.on_device;
    r.device = device;
    r.ran_on = target_place(device, r.on_device);
  } else {
    r.ran_on = "host";
  }

  const int all_reps = settings.warmup + settings.reps;
  for (int w = 0; w < settings.warmup; ++w) {
    ctx.clock.start();
    variant.run(instance, ctx);
    if (settings.on_repetition) settings.on_repetition(w + 1, all_reps);
  }
  std::vector<double> totals;
  std::map<std::string, std::vector<double>> phase_times;
  for (int rep = 0; rep < settings.reps; ++rep) {
    double t0 = omp_get_wtime();
    ctx.clock.start();
    variant.run(instance, ctx);
    totals.push_back(omp_get_wtime() - t0);
    for (const auto& [name, seconds] : ctx.clock.laps()) phase_times[name].push_back(seconds);
    if (settings.on_repetition) settings.on_repetition(settings.warmup + rep + 1, all_reps);
  }

  if (variant.kind == Kind::target && variant.exit_data) {
    double t0 = omp_get_wtime();
    variant.exit_data(instance, ctx);
    r.transfer_s += omp_get_wtime() - t0;
  }

  // Asked after the run: a workload whose variants are different kernels
  // (mesh) models the one that ran.
  r.model = instance.model(variant.kernel);
  r.time_s = Stats::of(totals);
  r.fom = r.time_s.median > 0 ? r.model.fom_amount / r.time_s.median : 0;
  for (const PhaseModel& p : instance.phases()) {
    auto it = phase_times.find(p.name);
    if (it == phase_times.end()) continue;
    PhaseResult pr{p.name, Stats::of(it->second), p.bytes, 0, 0};
    pr.gbps = pr.time_s.median > 0 ? p.bytes / pr.time_s.median / 1e9 : 0;
    pr.gbps_best = pr.time_s.min > 0 ? p.bytes / pr.time_s.min / 1e9 : 0;
    r.phases.push_back(pr);
  }
  r.check = instance.validate(settings.warmup + settings.reps, variant.kernel);
  r.observables = instance.observables(variant.kernel);
  return r;
}

const Ceilings::Measured& Ceilings::measure(bool on_device, int device) {
  const int key = on_device ? device : -1;
  auto it = places_.find(key);
  if (it != places_.end()) return it->second;

  // The variants that measure a ceiling on this kind of place, and their
  // workload's instance sized for it (beyond any cache).
  const Kind kind = on_device ? Kind::target : Kind::host;
  std::vector<const Variant*> candidates;
  for (const Variant* v : registry().variants())
    if (v->kind == kind && !v->ceiling_phase.empty()) candidates.push_back(v);
  MemoryLimits limits = limits_;
  if (!on_device) limits.device_bytes = 0;
  std::unique_ptr<Instance> instance;
  if (!candidates.empty()) instance = registry().workload(candidates.front()->workload)->make_for_ceiling(on_device, limits);
  // The best phase rate (min time, as BabelStream and the CUDA ceilings report
  // it) over the candidates: which is faster depends on the compiler.
  // Warm-ups let the clocks ramp up.
  RunSettings settings;
  settings.reps = on_device ? 20 : 15;
  settings.warmup = on_device ? 5 : 3;
  Measured m;
  m.valid = instance != nullptr;
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
      }
  }
  if (!instance) m.ran_on = on_device ? target_place(device, true) : "host";
  fmt::print("ceiling: {:.1f} GB/s on {} (best of {} repetitions of {}, {}){}\n", m.gbps, m.ran_on, settings.reps,
             m.label.empty() ? "no ceiling variant" : m.label, m.params.dump(),
             m.valid ? "" : "  FAILED VALIDATION: not used");
  std::fflush(stdout);
  return places_.emplace(key, m).first->second;
}

void Ceilings::measure_places(bool host, const std::vector<int>& devices) {
  if (!enabled_) return;
  if (host) measure(false, -1);
  for (int d : devices)
    if (target_runs_on_device(d)) measure(true, d);
}

void Ceilings::apply(RunResult& run) {
  if (!enabled_) return;
  const Measured& m = measure(run.on_device, run.device);
  if (!m.valid || m.gbps <= 0) return;
  run.ceiling_gbps = m.gbps;
  if (run.time_s.median > 0) run.ceiling_fraction = run.model.bytes / run.time_s.median / 1e9 / m.gbps;
}

nlohmann::json Ceilings::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, m] : places_) {
    // The instance's parameters (stream: n, array_bytes) beside the rate.
    nlohmann::json entry = m.params.is_object() ? m.params : nlohmann::json::object();
    entry.update({{"place", m.ran_on}, {"triad_GBps", m.gbps}, {"variant", m.variant}, {"measured", m.label},
                  {"valid", m.valid}});
    out.push_back(entry);
  }
  return out;
}

bool Ceilings::all_valid() const {
  for (const auto& [key, m] : places_)
    if (!m.valid) return false;
  return true;
}

}  // namespace ompref
