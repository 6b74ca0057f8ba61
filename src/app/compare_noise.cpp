// The rank test, the machine figures and the settings of result files, for
// `ompref compare` (compare_noise.hpp).
#include "app/compare_noise.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ompref {

namespace {

using nlohmann::json;

// U of `a`: the pairs (x in a, y in b) with x > y, ties counting a half.
double u_statistic(const std::vector<double>& a, const std::vector<double>& b) {
  double u = 0;
  for (double x : a)
    for (double y : b) u += x > y ? 1.0 : x == y ? 0.5 : 0.0;
  return u;
}

// P(U <= u) and P(U >= u) over the C(m + n, m) equally likely arrangements:
// the count of arrangements of m and n values with U = k follows
// c(m, n, k) = c(m - 1, n, k - n) + c(m, n - 1, k) (the largest value is from
// a, above all n of b, or from b).
std::pair<double, double> exact_tails(std::size_t m, std::size_t n, double u) {
  std::vector<std::vector<std::vector<double>>> c(m + 1, std::vector<std::vector<double>>(n + 1));
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j <= n; ++j) {
      std::vector<double>& here = c[i][j];
      here.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        here[0] = 1;
        continue;
      }
      for (std::size_t k = 0; k <= i * j; ++k) {
        if (k >= j && k - j < c[i - 1][j].size()) here[k] += c[i - 1][j][k - j];
        if (k < c[i][j - 1].size()) here[k] += c[i][j - 1][k];
      }
    }
  const std::vector<double>& counts = c[m][n];
  double total = 0, below = 0, above = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    total += counts[k];
    if (double(k) <= u) below += counts[k];
    if (double(k) >= u) above += counts[k];
  }
  return {below / total, above / total};
}

}  // namespace

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1.0;
  const double m = double(a.size()), n = double(b.size());
  const double u = u_statistic(a, b);
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  double ties = 0;  // sum of t^3 - t over groups of t equal values
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double t = double(j - i);
    ties += t * t * t - t;
    i = j;
  }
  if (ties == 0 && a.size() <= 20 && b.size() <= 20) {
    const auto [below, above] = exact_tails(a.size(), b.size(), u);
    return std::min(1.0, 2 * std::min(below, above));
  }
  const double total = m + n;
  const double variance = m * n / 12.0 * ((total + 1) - ties / (total * (total - 1)));
  if (!(variance > 0)) return 1.0;
  const double z = std::max(0.0, std::fabs(u - m * n / 2) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

namespace {

std::optional<double> number_at(const json& doc, const char* key) {
  if (!doc.is_object() || !doc.contains(key) || !doc.at(key).is_number()) return std::nullopt;
  return doc.at(key).get<double>();
}

json at_or_null(const json& doc, const char* key) {
  return doc.is_object() && doc.contains(key) ? doc.at(key) : json();
}

// "host" for the host's entry, "device N" for "<name> (device N)".
std::string gate_place(const std::string& ceiling_place) {
  const std::size_t at = ceiling_place.rfind("(device ");
  if (at == std::string::npos || ceiling_place.back() != ')') return "host";
  return ceiling_place.substr(at + 1, ceiling_place.size() - at - 2);
}

// The ceiling entry's parameters (how big, how measured): two entries are
// compared only where these agree.
json how_measured(const json& entry) {
  json out = json::object();
  for (const auto& item : entry.items())
    if (!item.value().is_number_float() && item.key() != "valid" && item.key() != "place" &&
        item.key() != "fp64_measured" && item.key() != "native")
      out[item.key()] = item.value();
  for (const char* key : {"triad_GBps", "triad_spread_percent", "fp64_GFLOPs", "fp64_spread_percent", "measure_s"})
    out.erase(key);
  return out;
}

// A rate in the first and the other file, beyond their noise? Adds a change when so.
void compare_rate(const std::string& place, const std::string& name, const char* unit, std::optional<double> a,
                  std::optional<double> b, std::optional<double> spread_a, std::optional<double> spread_b,
                  std::vector<MachineChange>& out) {
  if (!a || !b || !(*a > 0) || !(*b > 0)) return;
  const double change = (*b / *a - 1) * 100;
  const double quieter = std::min(spread_a.value_or(0), spread_b.value_or(0));
  const double noise = std::max(ceiling_change_percent, 2 * quieter);
  if (std::fabs(change) <= noise) return;
  out.push_back({place, fmt::format("{} {:.4g} -> {:.4g} {} ({:+.0f}%; noise {:.0f}%)", name, *a, *b, unit, change, noise)});
}

const json& object_at(const json& doc, const char* key) {
  static const json none = json::object();
  return doc.is_object() && doc.contains(key) && doc.at(key).is_object() ? doc.at(key) : none;
}

}  // namespace

bool concerns(const MachineChange& change, const std::string& place) {
  if (change.place == "host") return true;
  return place == change.place || place.rfind(change.place + " #", 0) == 0;
}

std::vector<MachineChange> machine_changes(const json& first, const json& other) {
  std::vector<MachineChange> out;
  // The ceilings measured the same way on the same place, with the same number of threads.
  const json threads_a = at_or_null(object_at(first, "host"), "threads");
  const json threads_b = at_or_null(object_at(other, "host"), "threads");
  const json none = json::array();
  const json& ca = first.contains("ceilings") && first.at("ceilings").is_array() ? first.at("ceilings") : none;
  const json& cb = other.contains("ceilings") && other.at("ceilings").is_array() ? other.at("ceilings") : none;
  for (const json& a : ca) {
    if (!a.is_object() || !a.contains("place") || !a.at("place").is_string()) continue;
    for (const json& b : cb) {
      if (!b.is_object() || b.value("place", json()) != a.at("place")) continue;
      const std::string place = gate_place(a.at("place").get<std::string>());
      if (place == "host" && threads_a != threads_b) continue;  // the settings differ, not the machine
      if (how_measured(a) == how_measured(b) && a.value("valid", false) && b.value("valid", false))
        compare_rate(place, fmt::format("{} triad ceiling", place), "GB/s", number_at(a, "triad_GBps"),
                     number_at(b, "triad_GBps"), number_at(a, "triad_spread_percent"),
                     number_at(b, "triad_spread_percent"), out);
      if (a.contains("fp64_measured") && a.value("fp64_measured", json()) == b.value("fp64_measured", json()))
        compare_rate(place, "host FP64 probe", "GFLOP/s", number_at(a, "fp64_GFLOPs"), number_at(b, "fp64_GFLOPs"),
                     number_at(a, "fp64_spread_percent"), number_at(b, "fp64_spread_percent"), out);
    }
  }
  // The load while the runs ran.
  const json& la = object_at(first, "load");
  const json& lb = object_at(other, "load");
  const auto wait_a = number_at(la, "run_queue_wait_fraction"), wait_b = number_at(lb, "run_queue_wait_fraction");
  const auto busy_a = number_at(la, "other_busy_cpus"), busy_b = number_at(lb, "other_busy_cpus");
  const auto cpus = number_at(lb, "cpus");
  if (wait_a && wait_b) {
    if (std::fabs(*wait_b - *wait_a) > wait_change)
      out.push_back({"host", fmt::format("this process's threads waited for a CPU {:.0f}% -> {:.0f}% of their runnable "
                                         "time (more than {:.0f} points apart)",
                                         *wait_a * 100, *wait_b * 100, wait_change * 100)});
  } else if (busy_a && busy_b && cpus && *cpus > 0 && std::fabs(*busy_b - *busy_a) > busy_change * *cpus) {
    out.push_back({"host", fmt::format("other processes kept {:.2g} -> {:.2g} of {:.0f} CPUs busy (more than {:.0f}% "
                                       "of the CPUs apart)",
                                       *busy_a, *busy_b, *cpus, busy_change * 100)});
  }
  const auto steal_a = number_at(la, "cpu_steal_percent"), steal_b = number_at(lb, "cpu_steal_percent");
  if (steal_a && steal_b && std::fabs(*steal_b - *steal_a) > steal_change_points)
    out.push_back({"host", fmt::format("CPU steal {:.1f}% -> {:.1f}% (more than {:.0f} points apart)", *steal_a,
                                       *steal_b, steal_change_points)});
  return out;
}

namespace {

// A value as the header shows it: text as is, other JSON compact, "(none)" where absent.
std::string shown(const json& v) {
  if (v.is_null()) return "(none)";
  if (v.is_string()) return v.get<std::string>().empty() ? std::string("(empty)") : v.get<std::string>();
  return v.dump();
}

json at_pointer(const json& doc, const std::string& pointer) {
  const json::json_pointer p(pointer);
  return doc.contains(p) ? doc.at(p) : json();
}

// "  <name>: [1] a, [2] b" where the values are not all the same; empty otherwise.
std::string line_if_differs(const std::string& name, const std::vector<json>& values) {
  std::set<std::string> distinct;
  for (const json& v : values) distinct.insert(v.dump());
  if (distinct.size() < 2) return "";
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < values.size(); ++k) parts.push_back(fmt::format("[{}] {}", k + 1, shown(values[k])));
  return fmt::format("  {}: {}\n", name, fmt::join(parts, ", "));
}

// The devices' names and what is recorded of their drivers, as one value.
json devices_of(const json& doc) {
  if (!doc.contains("devices") || !doc.at("devices").is_array()) return json();
  std::vector<std::string> names;
  for (const json& d : doc.at("devices")) names.push_back(d.is_object() ? shown(at_or_null(d, "name")) : shown(d));
  return names.empty() ? json("no offload device") : json(fmt::format("{}", fmt::join(names, ", ")));
}

// What each file holds for one setting, `value(doc)`, in the files' order.
template <class Value>
std::vector<json> per_file(const std::vector<json>& docs, Value value) {
  std::vector<json> values;
  for (const json& doc : docs) values.push_back(value(doc));
  return values;
}

// One line for each member of the object at `pointer` (the members of all the files together) whose values differ,
// named "<label> <member>"; `absent` stands for the value of a file that lacks the member.
std::string members_that_differ(const std::vector<json>& docs, const std::string& pointer, const std::string& label,
                                const json& absent) {
  std::set<std::string> members;
  for (const json& doc : docs)
    if (const json object = at_pointer(doc, pointer); object.is_object())
      for (const auto& item : object.items()) members.insert(item.key());
  std::string out;
  for (const std::string& member : members)
    out += line_if_differs(label + " " + member, per_file(docs, [&](const json& doc) {
                             const json object = at_pointer(doc, pointer);
                             return object.is_object() && object.contains(member) ? object.at(member) : absent;
                           }));
  return out;
}

}  // namespace

std::string settings_that_differ(const std::vector<json>& docs) {
  const std::vector<std::pair<const char*, const char*>> settings = {
      {"compiler", "/compiler"},
      {"offload", "/offload"},
      {"build type", "/provenance/build_type"},
      {"compile flags", "/provenance/compile_flags"},
      {"link flags", "/provenance/link_flags"},
      {"commit", "/provenance/git_commit"},
      {"version (git describe)", "/provenance/git_describe"},
      {"OpenMP runtime", "/provenance/openmp_runtime"},
      {"device code", "/provenance/device_code"},
      {"device workarounds", "/provenance/device_workarounds"},
      {"device wait", "/provenance/device_wait"},
      {"native back end", "/native"},
      {"CPU", "/host/cpu"},
      {"host cores", "/host/cores"},
      {"OpenMP threads", "/host/threads"},
      {"host memory", "/host/memory_bytes"},
      {"hostname", "/provenance/hostname"},
  };
  std::string out;
  for (const auto& [name, pointer] : settings)
    out += line_if_differs(name, per_file(docs, [&](const json& doc) { return at_pointer(doc, pointer); }));
  out += line_if_differs("devices", per_file(docs, devices_of));
  // Every environment variable the provenance records (OMP_*, LIBOMPTARGET_*, ...), one line each.
  out += members_that_differ(docs, "/provenance/environment", "environment", json("(unset)"));
  // The machine record, where files carry one: each of its fields.
  out += members_that_differ(docs, "/machine", "machine", json());
  return out.empty() ? "settings that differ between the files: none recorded\n"
                     : "settings that differ between the files:\n" + out;
}

std::string load_lines(const std::vector<json>& docs) {
  std::string out;
  for (std::size_t k = 0; k < docs.size(); ++k) {
    const json& load = object_at(docs[k], "load");
    if (load.empty()) {
      out += fmt::format("  [{}] not recorded\n", k + 1);
      continue;
    }
    std::vector<std::string> parts;
    if (auto w = number_at(load, "run_queue_wait_fraction"))
      parts.push_back(fmt::format("threads waited for a CPU {:.0f}% of their runnable time", *w * 100));
    if (auto b = number_at(load, "other_busy_cpus"))
      parts.push_back(fmt::format("other processes kept {:.2g} of {} CPUs busy", *b, shown(at_or_null(load, "cpus"))));
    if (auto s = number_at(load, "cpu_steal_percent")) parts.push_back(fmt::format("steal {:.1f}%", *s));
    const auto before = number_at(load, "loadavg_before"), after = number_at(load, "loadavg_after");
    if (before && after) parts.push_back(fmt::format("load average {:.2f} -> {:.2f}", *before, *after));
    out += fmt::format("  [{}] {}\n", k + 1, parts.empty() ? std::string("no figure recorded") : fmt::format("{}", fmt::join(parts, ", ")));
  }
  return "load while each file ran:\n" + out;
}

std::string machine_change_lines(const std::vector<json>& docs) {
  std::string out;
  for (std::size_t k = 1; k < docs.size(); ++k)
    for (const MachineChange& c : machine_changes(docs[0], docs[k]))
      out += fmt::format("  [{}] against [1], {}: {}\n", k + 1, c.place, c.what);
  return out.empty() ? "machine: no change beyond noise against [1] (ceilings, FP64 probe, load)\n"
                     : "machine changed beyond noise (runs at these places are not comparable and are left out of the "
                       "gate):\n" + out;
}

}  // namespace ompref
