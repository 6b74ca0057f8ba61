#include "common/results.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/enum_names.hpp"
#include "common/known_defects.hpp"
#include "common/machine_load.hpp"
#include "common/machine_record.hpp"
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
  if (n > 1) {
    double mean = 0, squares = 0;
    for (double x : samples) mean += x / double(n);
    for (double x : samples) squares += (x - mean) * (x - mean);
    s.stdev = std::sqrt(squares / double(n - 1));
  }
  return s;
}

static nlohmann::json stats_json(const Stats& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}, {"stdev", s.stdev}};
}

// JSON has no NaN or Inf: such a number is written as null.
static nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// The run's time: its statistics and every timed repetition (samples, in order).
static nlohmann::json run_time_json(const RunResult& r) {
  nlohmann::json t = stats_json(r.time_s);
  t["samples"] = r.samples_s;
  return t;
}

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
      {"reps_requested", r.reps_requested},
      {"warmup", r.warmup},
      {"time_s", run_time_json(r)},
      {"transfer_s", r.transfer_s},
      {"setup_s", r.setup_s},
      {"validation_s", r.validation_s},
      {"observables_s", r.observables_s},
      {"wall_s", r.wall_s},
      {"bytes", r.model.bytes},
      {"flops", r.model.flops},
      {"fom", {{"name", r.model.fom_name}, {"value", number(r.fom)}}},
      {"ceiling_fraction", r.ceiling_fraction ? number(*r.ceiling_fraction) : nlohmann::json(nullptr)},
      {"fp64_fraction", r.fp64_fraction ? number(*r.fp64_fraction) : nlohmann::json(nullptr)},
      {"ceiling_GBps", r.ceiling_gbps ? number(*r.ceiling_gbps) : nlohmann::json(nullptr)},
      {"valid", r.check.valid},
      {"max_rel_error", number(r.check.max_rel_error)},
      {"tolerance", r.check.tolerance},
      {"reference", r.check.reference},
      {"observables", r.observables},
  };
  if (r.native_fraction) j["native_fraction"] = number(*r.native_fraction);
  if (!r.check.valid) {
    j["failure"] = r.check.detail;
    j["failure_kind"] = failure_kind_name(r.failure_kind);
    if (!r.failure_log.empty()) j["failure_log"] = r.failure_log;
  }
  if (!r.ranks.is_null()) j["ranks"] = r.ranks;
  if (!r.notes.empty()) j["notes"] = r.notes;
  if (!r.phases.empty()) {
    nlohmann::json phases = nlohmann::json::array();
    for (const PhaseResult& p : r.phases)
      phases.push_back({{"name", p.name}, {"time_s", stats_json(p.time_s)}, {"bytes", p.bytes}, {"GBps", number(p.gbps)},
                        {"GBps_best", number(p.gbps_best)}});
    j["phases"] = phases;
  }
  return j;
}

namespace {

const std::pair<FailureKind, const char*> failure_kind_names[] = {
    {FailureKind::validation, "validation"}, {FailureKind::crash, "crash"}, {FailureKind::timeout, "timeout"}};

}  // namespace

const char* failure_kind_name(FailureKind kind) { return enum_name(kind, failure_kind_names); }

namespace {

Stats stats_from_json(const nlohmann::json& j) {
  const auto seconds = [&](const char* key) { return j.at(key).is_number() ? j.at(key).get<double>() : NAN; };
  Stats s;
  s.min = seconds("min");
  s.median = seconds("median");
  s.max = seconds("max");
  return s;
}

// A number written by number() (null when not finite): `missing` for null.
double number_from(const nlohmann::json& v, double missing = NAN) { return v.is_number() ? v.get<double>() : missing; }

std::optional<double> optional_from(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<double>();
}

}  // namespace

RunResult run_from_json(const nlohmann::json& j) {
  RunResult r;
  r.workload = j.at("workload").get<std::string>();
  r.variant = j.at("variant").get<std::string>();
  const std::string kind = j.at("kind").get<std::string>();
  r.kind = kind == "target" ? Kind::target : kind == "native" ? Kind::native : Kind::host;
  r.kernel = j.value("kernel", std::string());
  r.ran_on = j.at("ran_on").get<std::string>();
  r.on_device = j.value("on_device", false);
  r.device = j.at("device").is_number() ? j.at("device").get<int>() : -1;
  r.size = j.at("size").get<std::string>();
  r.params = j.at("params");
  r.reps = j.at("reps").get<int>();
  r.reps_requested = j.at("reps_requested").get<int>();
  r.warmup = j.at("warmup").get<int>();
  r.time_s = stats_from_json(j.at("time_s"));
  for (auto [key, field] : {std::pair{"transfer_s", &r.transfer_s}, std::pair{"setup_s", &r.setup_s},
                            std::pair{"validation_s", &r.validation_s}, std::pair{"observables_s", &r.observables_s},
                            std::pair{"wall_s", &r.wall_s}})
    *field = number_from(j.at(key));
  r.model.bytes = number_from(j.at("bytes"));
  r.model.flops = number_from(j.at("flops"));
  r.model.fom_name = j.at("fom").at("name").get<std::string>();
  r.fom = number_from(j.at("fom").at("value"));
  r.ceiling_fraction = optional_from(j, "ceiling_fraction");
  r.fp64_fraction = optional_from(j, "fp64_fraction");
  r.ceiling_gbps = optional_from(j, "ceiling_GBps");
  r.native_fraction = optional_from(j, "native_fraction");
  r.check.valid = j.at("valid").get<bool>();
  r.check.max_rel_error = number_from(j.at("max_rel_error"), INFINITY);
  r.check.tolerance = number_from(j.at("tolerance"));
  r.check.reference = j.at("reference").get<std::string>();
  r.check.detail = j.value("failure", std::string());
  const std::string failure = j.value("failure_kind", std::string());
  r.failure_kind = enum_from_name(failure, failure_kind_names);
  r.failure_log = j.value("failure_log", std::vector<std::string>());
  r.observables = j.at("observables");
  r.notes = j.value("notes", nlohmann::json::object());
  if (j.contains("ranks")) r.ranks = j.at("ranks");
  for (const nlohmann::json& p : j.value("phases", nlohmann::json::array()))
    r.phases.push_back({p.at("name").get<std::string>(), stats_from_json(p.at("time_s")), number_from(p.at("bytes")),
                        number_from(p.at("GBps")), number_from(p.at("GBps_best"))});
  return r;
}

nlohmann::json host_to_json(const HostInfo& h) {
  return {{"cpu", h.cpu}, {"cores", h.cores}, {"threads", h.threads}, {"memory_bytes", h.memory_bytes},
          {"last_level_cache_bytes", h.last_level_cache_bytes}};
}

nlohmann::json devices_to_json(const std::vector<DeviceInfo>& devices) {
  nlohmann::json out = nlohmann::json::array();
  for (const DeviceInfo& d : devices)
    out.push_back({{"id", d.id}, {"name", d.name}, {"memory_bytes", d.memory_bytes}});
  return out;
}

CompilerId build_compiler() {
#if defined(__clang__)
  return {"clang", fmt::format("{}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__)};
#elif defined(__GNUC__)
  return {"g++", fmt::format("{}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)};
#else
  return {"unknown", ""};
#endif
}

std::string compiler_description() {
  const CompilerId c = build_compiler();
  return c.version.empty() ? c.name : c.name + " " + c.version;
}

int result_schema_version() { return OMPREF_SCHEMA_VERSION; }  // schema/result.schema.json

nlohmann::json report_json(const std::vector<RunResult>& runs, const nlohmann::json& ceilings) {
  nlohmann::json j = {{"schema_version", result_schema_version()},  // schema/result.schema.json
                      {"suite", "ompref"},
                      {"version", OMPREF_VERSION},
                      {"compiler", compiler_description()},
                      {"offload", offload_description()},
                      {"host", host_to_json(host_info())},
                      {"devices", devices_to_json(offload_devices())},
                      {"ceilings", ceilings},
                      {"load", machine_load_json(machine_load())},
                      {"machine", machine_record()},
                      {"provenance", provenance()}};
  if (const NativeBackend* native = registry().native())
    j["native"] = {{"backend", native->name}, {"version", native->version()}};
  nlohmann::json list = nlohmann::json::array();
  for (const RunResult& r : runs) list.push_back(run_to_json(r));
  j["runs"] = list;
  return j;
}

// The table's check column: PASS, FAIL (a wrong result), FAIL (crash) or FAIL (timeout).
static std::string check_text(const RunResult& r) {
  if (r.check.valid) return "PASS";
  return r.failure_kind == FailureKind::validation ? "FAIL" : fmt::format("FAIL ({})", failure_kind_name(r.failure_kind));
}

std::string failure_message(const RunResult& r) {
  if (r.check.valid) return "";
  std::string text;
  switch (r.failure_kind) {
    case FailureKind::validation:
      text = fmt::format("failed validation: max relative error {:.3g} exceeds tolerance {:.3g}: {}",
                         r.check.max_rel_error, r.check.tolerance, r.check.detail);
      break;
    case FailureKind::crash:
    case FailureKind::timeout: text = fmt::format("{}: {}", failure_kind_name(r.failure_kind), r.check.detail); break;
  }
  const Variant* v = registry().variant(r.workload, r.variant);
  if (v && !v->features.empty()) text += fmt::format("; it uses: {}", fmt::join(v->features, ", "));
  // Device code of an affected compiler: the defect declared for this variant, named beside the FAIL.
  if (r.on_device)
    if (const std::string note = known_defect_note(r.workload, r.variant); !note.empty()) text += "; " + note;
  return text;
}

static std::string fraction_text(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.3f}", *fraction) : std::string("-");
}

void print_phase_table(const RunResult& r, std::FILE* out) {
  for (const PhaseResult& p : r.phases)
    fmt::print(out, "  {:<8} {:<14} {:<7} {:>12.6f} s {:>10.1f} GB/s (best {:.1f})\n", r.workload, r.variant, p.name,
               p.time_s.median, p.gbps, p.gbps_best);
}

// Above this many flops per byte a run is not bandwidth-bound on any current
// machine (an H200 balances at about 8, a CPU socket at 10-30 flops/byte on
// FP64 FMA against DRAM, well above 1): its fraction of a bandwidth
// ceiling would say nothing, so the table gives its fraction of the place's
// measured FP64 rate instead.
constexpr double bandwidth_bound_intensity = 1.0;

static bool compute_bound(const RunResult& r) {
  return r.model.bytes > 0 && r.model.flops / r.model.bytes > bandwidth_bound_intensity;
}

void print_run_table_legend(const std::vector<RunResult>& runs, std::FILE* out) {
  const bool above = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) {
    return r.ceiling_fraction && *r.ceiling_fraction > 1.0 && !compute_bound(r);
  });
  const bool fp64 = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return compute_bound(r); });
  fmt::print(out, "of_ceiling: bytes moved / median time, as a fraction of the best stream triad measured by this "
                  "process on the same place{}{}\n",
             fp64 ? "; F: a compute-bound run, flops / median time as a fraction of the FP64 rate measured there "
                    "(n/a: none measured there)"
                  : "",
             above ? "; *: above the triad, the data fit in a cache" : "");
}

void print_run_table(const std::vector<RunResult>& runs, std::FILE* out) {
  const bool native = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return r.native_fraction.has_value(); });
  // Columns as wide as their longest entry: names of any length stay aligned.
  std::size_t wl = 8, wv = 7, wr = 6, ws = 4;
  for (const RunResult& r : runs) {
    wl = std::max(wl, r.workload.size());
    wv = std::max(wv, r.variant.size());
    wr = std::max(wr, r.ran_on.size());
    ws = std::max(ws, r.size.size());
  }
  auto ceiling_text = [](const RunResult& r) {
    if (compute_bound(r)) {
      if (r.fp64_fraction) return fmt::format("{:.3f}F", *r.fp64_fraction);
      return std::string(r.ceiling_fraction ? "n/a" : "-");
    }
    if (!r.ceiling_fraction) return std::string("-");
    return fmt::format("{:.3f}{}", *r.ceiling_fraction, *r.ceiling_fraction > 1.0 ? "*" : "");
  };
  fmt::print(out, "{:<{}} {:<{}} {:<{}} {:<{}} {:>12} {:>18} {:>10} {}{}\n", "workload", wl, "variant", wv, "ran_on",
             wr, "size", ws, "median_s", "fom", "of_ceiling", native ? fmt::format("{:>8} ", "native") : "", "check");
  for (const RunResult& r : runs)
    fmt::print(out, "{:<{}} {:<{}} {:<{}} {:<{}} {:>12.6f} {:>10.2f} {:<7} {:>10} {}{}\n", r.workload, wl, r.variant,
               wv, r.ran_on, wr, r.size, ws, r.time_s.median, r.fom, r.model.fom_name, ceiling_text(r),
               native ? fmt::format("{:>8} ", fraction_text(r.native_fraction)) : "", check_text(r));
  // A variant's notes (RunContext::notes), one line per run that has some.
  for (const RunResult& r : runs) {
    if (r.notes.empty()) continue;
    std::vector<std::string> items;
    for (const auto& [name, value] : r.notes.items())
      items.push_back(fmt::format("{} {}", name, value.is_string()         ? value.get<std::string>()
                                                  : value.is_number_float() ? fmt::format("{:.3g}", value.get<double>())
                                                                            : value.dump()));
    fmt::print(out, "  notes {} {}: {}\n", r.workload, r.variant, fmt::join(items, ", "));
  }
  // Each failed run, with what failed.
  for (const RunResult& r : runs)
    if (!r.check.valid) fmt::print(out, "  FAIL {} {} ({}): {}\n", r.workload, r.variant, r.ran_on, failure_message(r));
}

namespace {

void note_replaced() {
  static bool noted = false;
  if (noted) return;
  noted = true;
  fmt::print(stderr, "ompref: note: bytes that are not UTF-8 (in the command line, a file name, the host name or the "
                     "environment) are written as U+FFFD in the result files\n");
}

}  // namespace

std::string valid_utf8(const std::string& text) {
  const auto replace = nlohmann::json::error_handler_t::replace;
  const std::string quoted = nlohmann::json(text).dump(-1, ' ', false, replace);
  std::string out = nlohmann::json::parse(quoted).get<std::string>();
  if (out != text) note_replaced();
  return out;
}

std::string json_text(const nlohmann::json& doc, int indent) {
  try {
    return doc.dump(indent);
  } catch (const nlohmann::json::type_error&) {  // 316: invalid UTF-8 in a string
    note_replaced();
    return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

const std::vector<std::string>& csv_phase_columns() {
  static const std::vector<std::string> names = {
      "copy",         "mul",          "add",         "triad",    "dot",             // stream
      "calculate_phi", "calculate_fn", "update_boundary", "to_standard",               // lbm's passes
      "halo_psi",     "halo_populations"};                                             // lbm's halo exchanges (MPI)
  return names;
}

namespace {

// A CSV field in double quotes, its quotes doubled.
std::string csv_quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : valid_utf8(s)) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A run's phase columns: GB/s per named phase (csv_phase_columns), then
// other_phases_GBps.
std::string csv_phase_cells(const RunResult& r) {
  const std::vector<std::string>& phase_names = csv_phase_columns();
  std::string cells;
  for (const std::string& name : phase_names) {
    const auto p = std::find_if(r.phases.begin(), r.phases.end(), [&](const PhaseResult& q) { return q.name == name; });
    cells += p == r.phases.end() ? std::string(",") : fmt::format(",{:.9g}", p->gbps);
  }
  std::vector<std::string> others;
  for (const PhaseResult& p : r.phases)
    if (std::find(phase_names.begin(), phase_names.end(), p.name) == phase_names.end())
      others.push_back(fmt::format("{}={:.9g}", p.name, p.gbps));
  return cells + fmt::format(",{}", fmt::join(others, " "));
}

// A run's rank columns: ranks, decomposition, rank_median_min_s, rank_median_max_s.
std::string csv_rank_cells(const RunResult& r) {
  if (r.ranks.is_null()) return ",1,,,";
  const nlohmann::json& m = r.ranks["median_time_s_over_ranks"];
  return fmt::format(",{},{},{:.9g},{:.9g}", r.ranks["count"].get<int>(), r.ranks["decomposition"].get<std::string>(),
                     m["min"].get<double>(), m["max"].get<double>());
}

// Provenance columns, the same on every row, so that two CSV files (or
// rows pasted together) can be told apart: their names are appended to
// `header`; returns the cells that end every row.
std::string csv_provenance_cells(std::string& header) {
  const nlohmann::json p = provenance();
  const char* provenance_columns[] = {"git_describe", "git_commit",    "build_type", "compile_flags",
                                      "link_flags",   "compiler",      "openmp_runtime", "offload",
                                      "device_wait",  "hostname",      "date",       "command_line"};
  std::string tail;
  for (const char* key : provenance_columns) {
    header += fmt::format(",{}", key);
    tail += "," + csv_quoted(p.value(key, std::string()));
  }
  // The OMP_* and LIBOMPTARGET_* settings, as NAME=VALUE separated by spaces.
  std::vector<std::string> settings;
  if (p.contains("environment") && p["environment"].is_object())
    for (const auto& [name, value] : p["environment"].items())
      settings.push_back(name + "=" + (value.is_string() ? value.get<std::string>() : json_text(value, -1)));
  header += ",environment";
  tail += "," + csv_quoted(fmt::format("{}", fmt::join(settings, " ")));
  header += ",host_cpu\n";
  tail += "," + csv_quoted(host_info().cpu) + "\n";
  return tail;
}

}  // namespace

std::string runs_to_csv(const std::vector<RunResult>& runs) {
  std::string out =
      "workload,variant,kind,ran_on,size,reps,time_min_s,time_median_s,time_max_s,transfer_s,bytes,flops,"
      "fom_name,fom,ceiling_fraction,valid,max_rel_error,tolerance,native_fraction,fp64_fraction";
  // One column per timed phase of the suite's workloads (csv_phase_columns),
  // whatever ran: GB/s at the phase's median time, empty for a run without
  // that phase; a phase outside that list goes to other_phases_GBps as
  // "name=GB/s" items (DESIGN.md).
  for (const std::string& name : csv_phase_columns()) out += fmt::format(",{}_GBps", name);
  out += ",other_phases_GBps";
  // Runs over MPI ranks (docs/mpi.md): the rank count, how the work was
  // shared and the spread of the ranks' medians, before the provenance; a
  // run in one process has 1 rank and the other three empty.
  out += ",ranks,decomposition,rank_median_min_s,rank_median_max_s";
  const std::string tail = csv_provenance_cells(out);
  for (const RunResult& r : runs)
    out += fmt::format("{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{:.9g},{},{},{:.3g},{:.3g},{},{}",
                       r.workload, r.variant, kind_name(r.kind), csv_quoted(r.ran_on), r.size, r.reps, r.time_s.min,
                       r.time_s.median, r.time_s.max, r.transfer_s, r.model.bytes, r.model.flops,
                       csv_quoted(r.model.fom_name), r.fom,
                       r.ceiling_fraction ? fmt::format("{:.6g}", *r.ceiling_fraction) : std::string(),
                       r.check.valid ? "true" : "false", r.check.max_rel_error, r.check.tolerance,
                       r.native_fraction ? fmt::format("{:.6g}", *r.native_fraction) : std::string(),
                       r.fp64_fraction ? fmt::format("{:.6g}", *r.fp64_fraction) : std::string()) +
           csv_phase_cells(r) + csv_rank_cells(r) + tail;
  return out;
}

}  // namespace ompref
