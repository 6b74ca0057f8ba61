#include "common/registry.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <omp.h>

#include "common/usage_error.hpp"

namespace ompref {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::host: return "host";
    case Kind::target: return "target";
    case Kind::native: return "native";
  }
  return "?";
}

static std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024)); }

void MemoryLimits::check_host(double bytes, const std::string& what) const {
  if (record_host) *record_host = std::max(*record_host, bytes);
  if (bytes > host_bytes)
    throw UsageError(fmt::format("{} needs {} of host memory; {} is available", what, gib(bytes), gib(host_bytes)));
}

double planned_host_bytes(const Workload& w, const std::string& size) {
  double asked = 0;
  MemoryLimits recording;
  recording.host_bytes = std::numeric_limits<double>::infinity();
  recording.record_host = &asked;
  try {
    w.check(size, recording);  // device_bytes 0: no device limit
  } catch (const UsageError&) {
    return 0;  // refused for another reason: the run will say so itself
  }
  return asked;
}

void MemoryLimits::check_device(double bytes, const std::string& what) const {
  if (device_bytes > 0 && bytes > device_bytes)
    throw UsageError(fmt::format("{} needs {} of device memory; the device has {}", what, gib(bytes), gib(device_bytes)));
}

void PhaseClock::start() {
  laps_.clear();
  last_ = omp_get_wtime();
}

void PhaseClock::lap(const std::string& phase) {
  wait();
  double now = omp_get_wtime();
  laps_.emplace_back(phase, now - last_);
  last_ = now;
}

void Registry::add(std::unique_ptr<Workload> workload) { workloads_.push_back(std::move(workload)); }

void Registry::add(Variant variant) { variants_.push_back(std::move(variant)); }

void Registry::add(NativeProbe probe) { probes_.push_back(std::move(probe)); }

void Registry::add(LeftOut left_out) { left_out_.push_back(std::move(left_out)); }

void Registry::set_native(NativeBackend backend) { native_ = std::make_unique<NativeBackend>(std::move(backend)); }

std::vector<NativeProbe> Registry::probes() const {
  std::vector<NativeProbe> out = probes_;
  std::sort(out.begin(), out.end(), [](const NativeProbe& a, const NativeProbe& b) {
    return a.order != b.order ? a.order < b.order : a.field < b.field;
  });
  return out;
}

std::vector<Workload*> Registry::workloads() const {
  std::vector<Workload*> out;
  for (auto& w : workloads_) out.push_back(w.get());
  std::sort(out.begin(), out.end(), [](Workload* a, Workload* b) {
    return a->order() != b->order() ? a->order() < b->order() : a->name() < b->name();
  });
  return out;
}

Workload* Registry::workload(const std::string& name) const {
  for (auto& w : workloads_)
    if (w->name() == name) return w.get();
  return nullptr;
}

std::vector<const Variant*> Registry::variants(const std::string& workload) const {
  std::vector<const Variant*> out;
  for (Workload* w : workloads()) {
    if (!workload.empty() && w->name() != workload) continue;
    for (Kind kind : {Kind::host, Kind::target, Kind::native})
      for (auto& v : variants_)
        if (v.workload == w->name() && v.kind == kind) out.push_back(&v);
  }
  return out;
}

const Variant* Registry::variant(const std::string& workload, const std::string& name) const {
  for (auto& v : variants_)
    if (v.workload == workload && v.name == name) return &v;
  return nullptr;
}

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace ompref
