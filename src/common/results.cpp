#include "common/results.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "common/provenance.hpp"

namespace ompref {

Stats Stats::of(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  std::size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return s;
}

static nlohmann::json stats_json(const Stats& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}};
}

// JSON has no NaN or Inf: such a number is written as null.
static nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

nlohmann::json run_to_json(const RunResult& r) {
  nlohmann::json j = {
      {"workload", r.workload},
      {"variant", r.variant},
      {"kind", kind_name(r.kind)},
      {"ran_on", r.ran_on},
      {"device", r.device >= 0 ? nlohmann::json(r.device) : nlohmann::json(nullptr)},
      {"size", r.size},
      {"params", r.params},
      {"reps", r.reps},
      {"warmup", r.warmup},
      {"time_s", stats_json(r.time_s)},
      {"transfer_s", r.transfer_s},
      {"bytes", r.model.bytes},
      {"flops", r.model.flops},
      {"fom", {{"name", r.model.fom_name}, {"value", number(r.fom)}}},
      {"ceiling_fraction", r.ceiling_fraction ? number(*r.ceiling_fraction) : nlohmann::json(nullptr)},
      {"ceiling_GBps", r.ceiling_gbps ? number(*r.ceiling_gbps) : nlohmann::json(nullptr)},
      {"valid", r.check.valid},
      {"max_rel_error", number(r.check.max_rel_error)},
      {"tolerance", r.check.tolerance},
      {"reference", r.check.reference},
      {"observables", r.observables},
  };
  if (r.native_fraction) j["native_fraction"] = number(*r.native_fraction);
  if (!r.check.valid) j["failure"] = r.check.detail;
  if (!r.phases.empty()) {
    nlohmann::json phases = nlohmann::json::array();
    for (const PhaseResult& p : r.phases)
      phases.push_back({{"name", p.name}, {"time_s", stats_json(p.time_s)}, {"bytes", p.bytes}, {"GBps", number(p.gbps)},
                        {"GBps_best", number(p.gbps_best)}});
    j["phases"] = phases;
  }
  return j;
}

nlohmann::json host_to_json(const HostInfo& h) {
  return {{"cpu", h.cpu}, {"cores", h.cores}, {"threads", h.threads}, {"memory_bytes", h.memory_bytes}};
}

nlohmann::json devices_to_json(const std::vector<DeviceInfo>& devices) {
  nlohmann::json out = nlohmann::json::array();
  for (const DeviceInfo& d : devices)
    out.push_back({{"id", d.id}, {"name", d.name}, {"memory_bytes", d.memory_bytes}});
  return out;
}

std::string compiler_description() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("g++ {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

nlohmann::json report_json(const std::vector<RunResult>& runs, const nlohmann::json& ceilings) {
  nlohmann::json j = {{"suite", "ompref"},
                      {"version", OMPREF_VERSION},
                      {"compiler", compiler_description()},
                      {"offload", OMPREF_OFFLOAD_DESC},
                      {"host", host_to_json(host_info())},
                      {"devices", devices_to_json(offload_devices())},
                      {"ceilings", ceilings},
                      {"provenance", provenance()}};
  if (const NativeBackend* native = registry().native())
    j["native"] = {{"backend", native->name}, {"version", native->version()}};
  nlohmann::json list = nlohmann::json::array();
  for (const RunResult& r : runs) list.push_back(run_to_json(r));
  j["runs"] = list;
  return j;
}

static std::string fraction_text(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.3f}", *fraction) : std::string("-");
}

void print_phase_table(const RunResult& r, std::FILE* out) {
  for (const PhaseResult& p : r.phases)
    fmt::print(out, "  {:<8} {:<14} {:<7} {:>12.6f} s {:>10.1f} GB/s (best {:.1f})\n", r.workload, r.variant, p.name,
               p.time_s.median, p.gbps, p.gbps_best);
}

void print_run_table(const std::vector<RunResult>& runs, std::FILE* out) {
  const bool native = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return r.native_fraction.has_value(); });
  fmt::print(out, "{:<8} {:<16} {:<28} {:>12} {:>18} {:>8} {}{}\n", "workload", "variant", "ran_on", "median_s",
             "fom", "ceiling", native ? fmt::format("{:>8} ", "native") : "", "check");
  for (const RunResult& r : runs)
    fmt::print(out, "{:<8} {:<16} {:<28} {:>12.6f} {:>10.2f} {:<7} {:>8} {}{}\n", r.workload, r.variant, r.ran_on,
               r.time_s.median, r.fom, r.model.fom_name, fraction_text(r.ceiling_fraction),
               native ? fmt::format("{:>8} ", fraction_text(r.native_fraction)) : "", r.check.valid ? "PASS" : "FAIL");
}

std::string runs_to_csv(const std::vector<RunResult>& runs) {
  std::string out =
      "workload,variant,kind,ran_on,size,reps,time_min_s,time_median_s,time_max_s,transfer_s,bytes,flops,"
      "fom_name,fom,ceiling_fraction,valid,max_rel_error,tolerance,native_fraction";
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  // Provenance columns, the same on every row, so that two CSV files (or
  // rows pasted together) can be told apart.
  const nlohmann::json p = provenance();
  const char* provenance_columns[] = {"git_describe", "git_commit", "build_type", "compiler", "openmp_runtime",
                                      "offload",      "hostname",   "date",       "command_line"};
  std::string tail;
  for (const char* key : provenance_columns) {
    out += fmt::format(",{}", key);
    tail += "," + quoted(p.value(key, std::string()));
  }
  out += ",host_cpu\n";
  tail += "," + quoted(host_info().cpu) + "\n";
  for (const RunResult& r : runs)
    out += fmt::format("{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{:.9g},{},{},{:.3g},{:.3g},{}",
                       r.workload, r.variant, kind_name(r.kind), quoted(r.ran_on), r.size, r.reps, r.time_s.min,
                       r.time_s.median, r.time_s.max, r.transfer_s, r.model.bytes, r.model.flops,
                       quoted(r.model.fom_name), r.fom,
                       r.ceiling_fraction ? fmt::format("{:.6g}", *r.ceiling_fraction) : std::string(),
                       r.check.valid ? "true" : "false", r.check.max_rel_error, r.check.tolerance,
                       r.native_fraction ? fmt::format("{:.6g}", *r.native_fraction) : std::string()) +
           tail;
  return out;
}

}  // namespace ompref
