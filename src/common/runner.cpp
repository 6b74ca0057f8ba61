#include "common/runner.hpp"

#include <fmt/format.h>
#include <omp.h>

#include "common/device.hpp"
#include "common/stream.hpp"

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

  for (int w = 0; w < settings.warmup; ++w) {
    ctx.clock.start();
    variant.run(instance, ctx);
  }
  std::vector<double> totals;
  std::map<std::string, std::vector<double>> phase_times;
  for (int rep = 0; rep < settings.reps; ++rep) {
    double t0 = omp_get_wtime();
    ctx.clock.start();
    variant.run(instance, ctx);
    totals.push_back(omp_get_wtime() - t0);
    for (const auto& [name, seconds] : ctx.clock.laps()) phase_times[name].push_back(seconds);
  }

  if (variant.kind == Kind::target && variant.exit_data) {
    double t0 = omp_get_wtime();
    variant.exit_data(instance, ctx);
    r.transfer_s += omp_get_wtime() - t0;
  }

  // Asked after the run: a workload whose variants are different kernels
  // (mesh) models the one that ran.
  r.model = instance.model();
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
  r.check = instance.validate(settings.warmup + settings.reps);
  r.observables = instance.observables();
  return r;
}

const Ceilings::Measured& Ceilings::measure(bool on_device, int device) {
  const int key = on_device ? device : -1;
  auto it = places_.find(key);
  if (it != places_.end()) return it->second;

  // Arrays well beyond any cache: 3 x 256 MiB on the host, 3 x 2 GiB on a device.
  std::size_t n = stream::elements_for_size(on_device ? "large" : "medium");
  MemoryLimits limits = limits_;
  if (!on_device) limits.device_bytes = 0;
  while (n > (std::size_t(1) << 20) && (3.0 * 8 * n > limits.host_bytes * 0.5 ||
                                        (limits.device_bytes > 0 && 3.0 * 8 * n > limits.device_bytes * 0.5)))
    n /= 2;
  auto instance = stream::make_instance(n, "ceiling", limits);
  // The best triad (min time, as BabelStream and the CUDA ceilings report it)
  // of the place's stream variants: on a device, both target variants, since
  // which is faster depends on the compiler. Warm-ups let the clocks ramp up.
  const std::vector<std::string> candidates =
      on_device ? std::vector<std::string>{"target_basic", "target_simd"} : std::vector<std::string>{"host_simd"};
  const RunSettings settings = on_device ? RunSettings{20, 5} : RunSettings{15, 3};
  Measured m;
  m.n = n;
  m.valid = true;
  for (const std::string& name : candidates) {
    const Variant* v = registry().variant("stream", name);
    RunResult run = run_variant(*v, *instance, "ceiling", settings, device, {device});
    m.valid = m.valid && run.check.valid;
    m.ran_on = run.ran_on;
    for (const PhaseResult& p : run.phases)
      if (p.name == "triad" && p.gbps_best > m.gbps) {
        m.gbps = p.gbps_best;
        m.variant = name;
      }
  }
  fmt::print("ceiling: stream triad {:.1f} GB/s on {} (best of {} repetitions of stream {}, n = {}){}\n", m.gbps,
             m.ran_on, settings.reps, m.variant, n, m.valid ? "" : "  FAILED VALIDATION: not used");
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
  for (const auto& [key, m] : places_)
    out.push_back({{"place", m.ran_on}, {"triad_GBps", m.gbps}, {"variant", m.variant}, {"n", m.n}, {"valid", m.valid}});
  return out;
}

bool Ceilings::all_valid() const {
  for (const auto& [key, m] : places_)
    if (!m.valid) return false;
  return true;
}

}  // namespace ompref
