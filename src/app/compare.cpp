// `ompref compare A.json B.json [...] [--threshold P]`: per workload, the median
// times of each file side by side, the speedup of each file against the first
// and their geometric mean; runs not in every file, runs whose validation
// differs, and with --threshold the runs slower than in the first file (exit 1:
// performance gating in CI). Reads DESIGN.md's JSON with nlohmann-json.
#include "app/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/usage_error.hpp"

namespace ompref {

namespace {

using nlohmann::json;

const char* const not_a_result = "not a result file of `ompref run --json`";

std::string read_text(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(fmt::format("{}: no such file", path));
  if (!fs::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: not a file", path));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw UsageError(fmt::format("{}: cannot read this file", path));
  return text.str();
}

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

std::string format_time(double s) {
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

std::string param_text(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string run_name(const Row& row) { return fmt::format("{} {} {} {}", row.workload, row.variant, row.size, row.place); }

// Columns as wide as their widest cell; text left, numbers (right[c]) right, two spaces apart.
std::string render_table(const std::vector<std::vector<std::string>>& cells, const std::vector<bool>& right) {
  std::vector<std::size_t> width(right.size(), 0);
  for (const auto& line : cells)
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string out;
  for (const auto& line : cells) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c)
      text += right[c] ? fmt::format("{:>{}}  ", line[c], width[c]) : fmt::format("{:<{}}  ", line[c], width[c]);
    out += text.substr(0, text.find_last_not_of(' ') + 1) + "\n";
  }
  return out;
}

// What a row's note column says: files that lack it, runs that failed, runs that fell back to the host.
std::string row_note(const Row& row) {
  std::vector<std::string> missing, failed, fallback;
  for (std::size_t k = 0; k < row.in_file.size(); ++k) {
    const ResultRun* r = row.in_file[k];
    const std::string file = fmt::format("[{}]", k + 1);
    if (!r) missing.push_back(file);
    else if (!r->valid) failed.push_back(file);
    else if (r->ran_on == "host (fallback)") fallback.push_back(file);
  }
  std::vector<std::string> notes;
  if (!missing.empty()) notes.push_back(fmt::format("not in {}", fmt::join(missing, " ")));
  if (!failed.empty()) notes.push_back(fmt::format("FAIL in {}", fmt::join(failed, " ")));
  if (!fallback.empty()) notes.push_back(fmt::format("host fallback in {}", fmt::join(fallback, " ")));
  return fmt::format("{}", fmt::join(notes, ", "));
}

std::string workload_table(const std::vector<Row>& rows, const std::string& workload, std::size_t files) {
  std::vector<std::string> head = {"variant", "size", "place"};
  std::vector<bool> right = {false, false, false};
  for (std::size_t k = 0; k < files; ++k, right.push_back(true)) head.push_back(fmt::format("[{}] median", k + 1));
  for (std::size_t k = 1; k < files; ++k, right.push_back(true)) head.push_back(fmt::format("[{}] speedup", k + 1));
  head.push_back("note");
  right.push_back(false);
  std::vector<std::vector<std::string>> cells = {head};
  for (const Row& row : rows) {
    if (row.workload != workload) continue;
    std::vector<std::string> line = {row.variant, row.size, row.place};
    for (const ResultRun* r : row.in_file) line.push_back(r ? format_time(r->median_s) : "-");
    for (std::size_t k = 1; k < files; ++k) {
      std::optional<double> s = speedup(row, k);
      line.push_back(s ? fmt::format("{:.2f}x", *s) : "-");
    }
    line.push_back(row_note(row));
    cells.push_back(line);
  }
  std::vector<std::string> mean = {"geometric mean", "", ""};
  mean.resize(3 + files);
  for (const Geomean& g : workload_geomeans(rows, workload, files))
    mean.push_back(g.value ? fmt::format("{:.2f}x ({} run{})", *g.value, g.runs, g.runs == 1 ? "" : "s") : "-");
  mean.push_back("");
  cells.push_back(mean);
  return render_table(cells, right);
}

std::string param_value(const ResultRun& r, const std::string& key) {
  return r.params.is_object() && r.params.contains(key) ? param_text(r.params.at(key)) : std::string("(none)");
}

// "renumber: [1] none, [2] hilbert" for each parameter whose value differs within a matched run.
std::string params_that_differ(const std::vector<Row>& rows, const std::string& workload, std::size_t files) {
  std::set<std::string> keys;
  for (const Row& row : rows) {
    if (row.workload != workload) continue;
    std::set<std::string> all;
    for (const ResultRun* r : row.in_file)
      if (r && r->params.is_object())
        for (const auto& item : r->params.items()) all.insert(item.key());
    for (const std::string& key : all) {
      std::set<std::string> values;
      for (const ResultRun* r : row.in_file)
        if (r) values.insert(param_value(*r, key));
      if (values.size() > 1) keys.insert(key);
    }
  }
  std::string out;
  for (const std::string& key : keys) {
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < files; ++k) {
      std::vector<std::string> values;  // distinct, in row order
      for (const Row& row : rows)
        if (row.workload == workload && row.in_file[k]) {
          std::string v = param_value(*row.in_file[k], key);
          if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
        }
      if (!values.empty()) parts.push_back(fmt::format("[{}] {}", k + 1, fmt::join(values, "/")));
    }
    out += fmt::format("  params that differ: {}: {}\n", key, fmt::join(parts, ", "));
  }
  return out;
}

// Runs not in every file, and runs valid in one file but FAIL in another.
std::string differences(const std::vector<Row>& rows, std::size_t files) {
  std::string missing, validation;
  for (const Row& row : rows) {
    std::vector<std::string> present, absent, pass, fail;
    for (std::size_t k = 0; k < files; ++k) {
      const ResultRun* r = row.in_file[k];
      (r ? present : absent).push_back(fmt::format("[{}]", k + 1));
      if (r) (r->valid ? pass : fail).push_back(fmt::format("[{}]", k + 1));
    }
    if (!absent.empty() && present.size() == 1)
      missing += fmt::format("  {}: only in {}\n", run_name(row), present[0]);
    else if (!absent.empty())
      missing += fmt::format("  {}: in {}, not in {}\n", run_name(row), fmt::join(present, " "), fmt::join(absent, " "));
    if (!pass.empty() && !fail.empty())
      validation += fmt::format("  {}: PASS in {}, FAIL in {}\n", run_name(row), fmt::join(pass, " "), fmt::join(fail, " "));
  }
  std::string out;
  out += missing.empty() ? "runs not in every file: none\n" : "runs not in every file:\n" + missing;
  out += validation.empty() ? "validation differences: none\n"
                            : "validation differences (valid in one file, FAIL in another):\n" + validation;
  return out;
}

std::string threshold_section(const std::vector<Row>& rows, std::size_t files, double percent) {
  std::vector<Slower> slower = slower_than_first(rows, files, percent);
  if (slower.empty()) return fmt::format("threshold {}%: no run is slower than in [1] by more than {}%\n", percent, percent);
  std::string out = fmt::format("threshold {}%: {} run(s) slower than in [1] by more than {}%:\n", percent,
                                slower.size(), percent);
  for (const Slower& s : slower)
    out += fmt::format("  [{}] {}: {} against {} in [1] ({:.1f}% slower)\n", s.file + 1, run_name(*s.row),
                       format_time(s.row->in_file[s.file]->median_s), format_time(s.row->in_file[0]->median_s),
                       s.percent);
  return out;
}

}  // namespace

ResultFile load_result_file(const std::string& path) {
  const std::string text = read_text(path);
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw UsageError(fmt::format("{}: not JSON ({})", path, not_a_result));
  if (!doc.is_object() || doc.value("suite", json()) != "ompref" || !doc.contains("runs") || !doc.at("runs").is_array())
    throw UsageError(fmt::format("{}: {} (no \"suite\": \"ompref\" with a \"runs\" list; {})", path,
                                 not_a_result, contents_of(doc)));
  ResultFile file{path, header_of(doc), {}};
  for (const json& run : doc.at("runs")) {
    const std::string missing = missing_field(run);
    if (!missing.empty())
      throw UsageError(fmt::format("{}: run {} lacks {} ({})", path, file.runs.size() + 1, missing, not_a_result));
    file.runs.push_back({run.at("workload").get<std::string>(), run.at("variant").get<std::string>(),
                         run.at("size").get<std::string>(), place_of(run), run.at("ran_on").get<std::string>(),
                         run.value("params", json::object()), run.at("time_s").at("median").get<double>(),
                         run.at("valid").get<bool>()});
  }
  return file;
}

std::vector<Row> match_runs(const std::vector<ResultFile>& files) {
  std::vector<Row> rows;
  std::map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < files.size(); ++k) {
    std::map<std::string, int> seen;  // a second run with the same key in one file: its own row
    for (const ResultRun& r : files[k].runs) {
      const std::string base = fmt::format("{}\n{}\n{}\n{}", r.workload, r.variant, r.size, r.place);
      const int n = ++seen[base];
      const std::string place = n > 1 ? fmt::format("{} #{}", r.place, n) : r.place;
      const std::string key = n > 1 ? fmt::format("{} #{}", base, n) : base;
      auto [it, added] = index.emplace(key, rows.size());
      if (added) rows.push_back({r.workload, r.variant, r.size, place, std::vector<const ResultRun*>(files.size())});
      rows[it->second].in_file[k] = &r;
    }
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

std::optional<double> speedup(const Row& row, std::size_t k) {
  const ResultRun* first = row.in_file.at(0);
  const ResultRun* other = row.in_file.at(k);
  if (!first || !other || !(other->median_s > 0)) return std::nullopt;
  return first->median_s / other->median_s;
}

std::optional<double> geometric_mean(const std::vector<double>& ratios) {
  if (ratios.empty()) return std::nullopt;
  double log_sum = 0;
  for (double r : ratios) {
    if (!(r > 0) || !std::isfinite(r)) return std::nullopt;
    log_sum += std::log(r);
  }
  return std::exp(log_sum / static_cast<double>(ratios.size()));
}

std::vector<Geomean> workload_geomeans(const std::vector<Row>& rows, const std::string& workload, std::size_t files) {
  std::vector<Geomean> out;
  for (std::size_t k = 1; k < files; ++k) {
    std::vector<double> ratios;
    for (const Row& row : rows) {
      std::optional<double> s = speedup(row, k);
      if (row.workload == workload && s && row.in_file[0]->valid && row.in_file[k]->valid) ratios.push_back(*s);
    }
    out.push_back({geometric_mean(ratios), static_cast<int>(ratios.size())});
  }
  return out;
}

std::vector<Slower> slower_than_first(const std::vector<Row>& rows, std::size_t files, double percent) {
  std::vector<Slower> out;
  for (const Row& row : rows)
    for (std::size_t k = 1; k < files; ++k)
      if (std::optional<double> s = speedup(row, k)) {
        const double slower_by = (1.0 / *s - 1.0) * 100.0;
        if (slower_by > percent) out.push_back({&row, k, slower_by});
      }
  return out;
}

std::string format_comparison(const std::vector<ResultFile>& files, const std::vector<Row>& rows,
                              std::optional<double> threshold_percent) {
  std::string out;
  for (std::size_t k = 0; k < files.size(); ++k)
    out += fmt::format("[{}] {}: {}\n", k + 1, files[k].path, files[k].header);
  out += "speedup of [k] = median time in [1] / median time in [k] (above 1: [k] is faster); geometric mean over "
         "the runs valid in both\n";
  std::vector<std::string> workloads;
  for (const Row& row : rows)
    if (std::find(workloads.begin(), workloads.end(), row.workload) == workloads.end()) workloads.push_back(row.workload);
  for (const std::string& w : workloads) {
    out += fmt::format("\n{}\n", w);
    out += params_that_differ(rows, w, files.size());
    out += workload_table(rows, w, files.size());
  }
  out += "\n" + differences(rows, files.size());
  if (threshold_percent) out += threshold_section(rows, files.size(), *threshold_percent);
  return out;
}

CLI::App* add_compare_command(CLI::App& app, CompareArgs& args) {
  CLI::App* cmd = app.add_subcommand("compare", "median times of result files side by side, speedups against the first");
  cmd->add_option("files", args.files, "two or more files written by ompref run --json; the first is the reference");
  cmd->add_option("--threshold", args.threshold, "exit 1 when a run is slower than in the first file by more than P percent")
      ->check(CLI::Validator(
          [](std::string& value) {
            double p = -1;
            return CLI::detail::lexical_cast(value, p) && p >= 0 ? std::string()
                                                                 : "not a percentage of 0 or more: " + value;
          },
          "P >= 0"));
  return cmd;
}

int run_compare(const CompareArgs& args) {
  if (args.files.size() < 2)
    throw UsageError(fmt::format("compare: needs at least two result files, given {} (accepted: ompref compare "
                                 "A.json B.json [...] [--threshold P])", args.files.size()));
  std::vector<ResultFile> files;
  for (const std::string& path : args.files) files.push_back(load_result_file(path));
  const std::vector<Row> rows = match_runs(files);
  const std::optional<double> threshold = args.threshold >= 0 ? std::optional<double>(args.threshold) : std::nullopt;
  fmt::print("{}", format_comparison(files, rows, threshold));
  return threshold && !slower_than_first(rows, files.size(), *threshold).empty() ? 1 : 0;
}

}  // namespace ompref
