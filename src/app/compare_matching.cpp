// compare's matching: result files read into runs, runs of several files
// matched into rows (workload, variant, size, place), and the notes on what
// did not match and why.
#include "app/compare.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/result_input.hpp"
#include "common/registry.hpp"
#include "common/results.hpp"
#include "common/usage_error.hpp"

namespace ompref {

namespace {

using nlohmann::json;

const char* const not_a_result = "not a result file of `ompref run --json`";

// What a document that is not a result file holds instead, for the one-line refusal.
std::string contents_of(const json& doc) {
  if (!doc.is_object()) return fmt::format("it is a JSON {}", doc.type_name());
  std::vector<std::string> keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  return keys.empty() ? std::string("it is an empty object") : fmt::format("it holds {}", fmt::join(keys, ", "));
}

// What a run must hold for compare and report; the first thing missing, or empty.
std::string missing_field(const json& run) {
  if (!run.is_object()) return "an object";
  for (const char* key : {"workload", "variant", "size", "ran_on"})
    if (!run.contains(key) || !run.at(key).is_string()) return fmt::format("\"{}\"", key);
  if (!run.contains("time_s") || !run.at("time_s").is_object() || !run.at("time_s").contains("median") ||
      !run.at("time_s").at("median").is_number())
    return "\"time_s\": {\"median\": ...}";
  if (!run.contains("valid") || !run.at("valid").is_boolean()) return "\"valid\"";
  return "";
}

// Where a run was meant to run, the key runs are matched by: a target run that
// fell back to the host still matches the same variant's device run.
std::string place_of(const json& run) {
  if (run.contains("device") && run.at("device").is_number_integer())
    return fmt::format("device {}", run.at("device").get<int>());
  if (run.value("kind", std::string("host")) == "host") return "host";
  return "device";
}

std::string text_or(const json& doc, const char* key, const char* otherwise) {
  return doc.contains(key) && doc.at(key).is_string() ? doc.at(key).get<std::string>() : std::string(otherwise);
}

// compiler | offload | host | devices | date (| the suite's git describe), from the top of the document.
std::string header_of(const json& doc) {
  std::string host = "host not recorded";
  if (doc.contains("host") && doc.at("host").is_object()) {
    const json& h = doc.at("host");
    host = fmt::format("host {}, {} threads", text_or(h, "cpu", "unknown CPU"), h.value("threads", 0));
  }
  std::vector<std::string> devices;
  if (doc.contains("devices") && doc.at("devices").is_array())
    for (const json& d : doc.at("devices")) devices.push_back(text_or(d, "name", "unnamed device"));
  std::string date = "date not recorded";
  if (doc.contains("provenance") && doc.at("provenance").is_object()) {
    const json& p = doc.at("provenance");
    date = text_or(p, "date", "date not recorded");
    if (p.contains("git_describe") && p.at("git_describe").is_string() && !p.at("git_describe").empty())
      date += fmt::format(" | ompref {}", p.at("git_describe").get<std::string>());
  }
  return fmt::format("{} | {} | {} | {} | {}", text_or(doc, "compiler", "compiler not recorded"),
                     text_or(doc, "offload", "offload not recorded"), host,
                     devices.empty() ? std::string("no offload device") : fmt::format("{}", fmt::join(devices, ", ")),
                     date);
}

// The size most workloads run at by default that every workload has: the
// --size to suggest for two machines (empty where there is none).
std::string size_every_workload_has() {
  const std::vector<Workload*> workloads = registry().workloads();
  std::map<std::string, int> votes;
  for (const Workload* w : workloads) ++votes[w->default_size()];
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [size, n] : votes) order.push_back({-n, size});
  std::sort(order.begin(), order.end());
  for (const auto& vote : order) {
    const std::string& size = vote.second;
    const bool everywhere = std::all_of(workloads.begin(), workloads.end(), [&](const Workload* w) {
      const std::vector<std::string> sizes = w->sizes();
      return std::find(sizes.begin(), sizes.end(), size) != sizes.end();
    });
    if (everywhere) return size;
  }
  return "";
}

// Per workload, the sizes of a file's runs: "<workload> <size>[/<size>], ...".
std::string sizes_of(const ResultFile& file) {
  std::vector<std::pair<std::string, std::vector<std::string>>> per;
  for (const ResultRun& r : file.runs) {
    auto it = std::find_if(per.begin(), per.end(), [&](const auto& p) { return p.first == r.workload; });
    if (it == per.end()) it = per.insert(per.end(), {r.workload, {}});
    if (std::find(it->second.begin(), it->second.end(), r.size) == it->second.end()) it->second.push_back(r.size);
  }
  std::vector<std::string> parts;
  for (const auto& [w, sizes] : per) parts.push_back(fmt::format("{} {}", w, fmt::join(sizes, "/")));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Where a file's target variants ran, which is what `--size auto` chose its sizes by.
std::string target_place_of(const ResultFile& file) {
  bool device = false, host = false;
  for (const ResultRun& r : file.runs)
    if (r.place != "host") (r.ran_on.rfind("host", 0) == 0 ? host : device) = true;
  if (device && !host) return "its target variants ran on a device";
  if (host && !device) return "its target variants ran on the host";
  return "";
}

std::string with_place(const ResultFile& file) {
  const std::string where = target_place_of(file);
  return where.empty() ? sizes_of(file) : fmt::format("{} ({})", sizes_of(file), where);
}

std::string same_size_advice() {
  const std::string size = size_every_workload_has();
  const std::string why = "--size auto picks device sizes where target variants run on a device, host sizes elsewhere";
  return size.empty() ? fmt::format("{}: pass the same --size to both runs", why)
                      : fmt::format("{}: pass the same --size to both runs (e.g. ompref run all --size {})", why, size);
}

}  // namespace

ResultFile load_result_file(const std::string& path) {
  json doc = read_result_document(path);  // bounded: regular file, size, depth, value ranges (app/result_input.hpp)
  if (doc.is_discarded()) throw UsageError(fmt::format("{}: not JSON ({})", path, not_a_result));
  if (!doc.is_object() || doc.value("suite", json()) != "ompref" || !doc.contains("runs") || !doc.at("runs").is_array())
    throw UsageError(fmt::format("{}: {} (no \"suite\": \"ompref\" with a \"runs\" list; {})", path,
                                 not_a_result, contents_of(doc)));
  // A file of a newer schema may mean what this program cannot read; an older
  // one (or one from before the field) is read as before.
  if (doc.contains("schema_version")) {
    const json& v = doc.at("schema_version");
    if (!v.is_number_integer() || v.get<long long>() < 1)
      throw UsageError(fmt::format("{}: schema_version {} is not a version ({})", path, v.dump(), not_a_result));
    if (v.get<long long>() > result_schema_version())
      throw UsageError(fmt::format("{}: schema_version {} is newer than this ompref reads ({}): read it with a newer ompref",
                                   path, v.get<long long>(), result_schema_version()));
  }
  ResultFile file{path, header_of(doc), {}, doc};
  file.top.erase("runs");
  for (const json& run : doc.at("runs")) {
    const std::string missing = missing_field(run);
    if (!missing.empty())
      throw UsageError(fmt::format("{}: run {} lacks {} ({})", path, file.runs.size() + 1, missing, not_a_result));
    ResultRun r;
    r.workload = run.at("workload").get<std::string>();
    r.variant = run.at("variant").get<std::string>();
    r.size = run.at("size").get<std::string>();
    r.place = place_of(run);
    r.ran_on = run.at("ran_on").get<std::string>();
    r.params = run.value("params", json::object());
    const json& time = run.at("time_s");
    r.median_s = time.at("median").get<double>();
    r.valid = run.at("valid").get<bool>();
    // Files that lack the fastest or slowest repetition: no spread known.
    r.min_s = time.contains("min") && time.at("min").is_number() ? time.at("min").get<double>() : r.median_s;
    r.max_s = time.contains("max") && time.at("max").is_number() ? time.at("max").get<double>() : r.median_s;
    if (time.contains("samples") && time.at("samples").is_array())
      for (const json& t : time.at("samples"))
        if (t.is_number()) r.samples.push_back(t.get<double>());
    if (run.contains("fom") && run.at("fom").is_object()) {
      const json& fom = run.at("fom");
      if (fom.contains("name") && fom.at("name").is_string() && fom.contains("value") && fom.at("value").is_number()) {
        r.fom_name = fom.at("name").get<std::string>();
        r.fom_value = fom.at("value").get<double>();
      }
    }
    file.runs.push_back(std::move(r));
  }
  return file;
}

std::vector<Row> match_runs(const std::vector<ResultFile>& files) {
  std::vector<Row> rows;
  std::vector<std::string> loose;  // per row: workload, variant, place (and #n), without the size
  std::map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < files.size(); ++k) {
    std::map<std::string, int> seen;  // a second run with the same key in one file: its own row
    for (const ResultRun& r : files[k].runs) {
      const std::string base = fmt::format("{}\n{}\n{}\n{}", r.workload, r.variant, r.size, r.place);
      const int n = ++seen[base];
      const std::string place = n > 1 ? fmt::format("{} #{}", r.place, n) : r.place;
      const std::string key = n > 1 ? fmt::format("{} #{}", base, n) : base;
      auto [it, added] = index.emplace(key, rows.size());
      if (added) {
        rows.push_back({r.workload, r.variant, r.size, place, std::vector<const ResultRun*>(files.size())});
        loose.push_back(fmt::format("{}\n{}\n{}", r.workload, r.variant, place));
      }
      rows[it->second].in_file[k] = &r;
    }
  }
  // A row that some files lack takes the same workload, variant and place at
  // another size from a later row that only those files hold.
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = i + 1; j < rows.size();) {
      bool disjoint = loose[i] == loose[j];
      for (std::size_t k = 0; disjoint && k < files.size(); ++k)
        disjoint = !(rows[i].in_file[k] && rows[j].in_file[k]);
      if (!disjoint) {
        ++j;
        continue;
      }
      for (std::size_t k = 0; k < files.size(); ++k)
        if (rows[j].in_file[k]) rows[i].in_file[k] = rows[j].in_file[k];
      rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(j));
      loose.erase(loose.begin() + static_cast<std::ptrdiff_t>(j));
    }
  for (Row& row : rows) {
    std::vector<std::string> sizes;  // distinct, in file order
    for (const ResultRun* r : row.in_file)
      if (r && std::find(sizes.begin(), sizes.end(), r->size) == sizes.end()) sizes.push_back(r->size);
    row.size = fmt::format("{}", fmt::join(sizes, "/"));
  }
  // Grouped by workload, in the order workloads first appear; rows keep their order.
  std::vector<std::string> order;
  for (const Row& row : rows)
    if (std::find(order.begin(), order.end(), row.workload) == order.end()) order.push_back(row.workload);
  std::vector<Row> grouped;
  for (const std::string& workload : order)
    for (const Row& row : rows)
      if (row.workload == workload) grouped.push_back(row);
  return grouped;
}

std::string matching_notes(const std::vector<ResultFile>& files, const std::vector<Row>& rows) {
  std::string out;
  for (std::size_t k = 1; k < files.size(); ++k) {
    int comparable = 0, other_size = 0, both = 0;
    std::vector<std::string> why;  // distinct reasons, in row order
    for (const Row& row : rows) {
      const Comparison c = compare_in_row(row, k);
      if (c.basis == Basis::missing) continue;
      ++both;
      if (row.in_file[0]->size != row.in_file[k]->size) ++other_size;
      if (c.speedup) ++comparable;
      if (c.basis == Basis::not_comparable && std::find(why.begin(), why.end(), c.why) == why.end())
        why.push_back(c.why);
    }
    if (comparable > 0 && other_size > 0)
      out += fmt::format(
          "sizes differ: [1] ran {}, [{}] ran {}; runs of another size are compared by rate where the figure of merit "
          "normalises the size; {}\n",
          with_place(files[0]), k + 1, with_place(files[k]), same_size_advice());
    if (comparable > 0) continue;
    std::string reason, advice;
    if (both == 0) {
      std::set<std::string> w1, wk;
      for (const ResultRun& r : files[0].runs) w1.insert(r.workload);
      for (const ResultRun& r : files[k].runs) wk.insert(r.workload);
      std::vector<std::string> common;
      std::set_intersection(w1.begin(), w1.end(), wk.begin(), wk.end(), std::back_inserter(common));
      if (common.empty()) {
        reason = fmt::format("[1] ran {}, [{}] ran {}", fmt::join(w1, ", "), k + 1, fmt::join(wk, ", "));
        advice = "run the same workloads";
      } else {
        reason = fmt::format("both ran {}, but no variant at the same place (host, device N)", fmt::join(common, ", "));
        advice = "run the same variants (--variant) on the same --device";
      }
    } else if (other_size > 0) {
      reason = fmt::format("[1] ran {}, [{}] ran {}, and {}", with_place(files[0]), k + 1, with_place(files[k]),
                           fmt::join(why, "; "));
      advice = same_size_advice();
    } else {
      reason = fmt::format("{}", fmt::join(why, "; "));
      advice = "run both with the same workload parameters";
    }
    out += fmt::format("no run in common between [1] and [{}]: {}; {}\n", k + 1, reason, advice);
  }
  return out;
}

}  // namespace ompref
