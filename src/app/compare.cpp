// `ompref compare A.json B.json [...] [--threshold P|host=P,device=P]`: per
// workload, the median times of each file side by side, the speedup of each
// file against the first (by time for the same work, by figure of merit for
// work that differs only in what that figure normalises, none otherwise) and
// their geometric mean; why runs did not match, runs not in every file, runs
// whose validation differs, and with --threshold the runs slower than in the
// first file beyond their threshold and their own spread (exit 1: performance
// gating in CI). Reads DESIGN.md's JSON with nlohmann-json. This file renders
// (text, JSON) and runs the command; compare_matching.cpp reads and matches
// the files, compare_rules.cpp decides how two runs compare.
#include "app/compare.hpp"


#include <algorithm>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/io/output_file.hpp"
#include "app/compare_noise.hpp"
#include "common/usage_error.hpp"

namespace ompref {

namespace {

using nlohmann::json;

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

// What a row's note column says: files that lack it, runs that failed, runs
// that fell back to the host, and per file k how it was compared with [1]
// where not by time.
std::string row_note(const Row& row) {
  std::vector<std::string> missing, failed, fallback, basis;
  for (std::size_t k = 0; k < row.in_file.size(); ++k) {
    const ResultRun* r = row.in_file[k];
    const std::string file = fmt::format("[{}]", k + 1);
    if (!r) missing.push_back(file);
    else if (!r->valid) failed.push_back(file);
    else if (r->ran_on == "host (fallback)") fallback.push_back(file);
    if (k > 0) {
      const Comparison c = compare_in_row(row, k);
      if (c.basis == Basis::rate || c.basis == Basis::not_comparable) basis.push_back(fmt::format("{} {}", file, c.why));
    }
  }
  std::vector<std::string> notes;
  if (!missing.empty()) notes.push_back(fmt::format("not in {}", fmt::join(missing, " ")));
  if (!failed.empty()) notes.push_back(fmt::format("FAIL in {}", fmt::join(failed, " ")));
  if (!fallback.empty()) notes.push_back(fmt::format("host fallback in {}", fmt::join(fallback, " ")));
  notes.insert(notes.end(), basis.begin(), basis.end());
  return fmt::format("{}", fmt::join(notes, ", "));
}

// Two decimals, or two significant digits below 0.1 (a GPU against a 2-core host).
std::string ratio_text(double ratio) {
  return ratio < 0.1 ? fmt::format("{:.2g}x", ratio) : fmt::format("{:.2f}x", ratio);
}

std::string speedup_cell(const Row& row, std::size_t k) {
  const Comparison c = compare_in_row(row, k);
  if (!c.speedup) return "-";
  return ratio_text(*c.speedup) + (c.basis == Basis::rate ? " by rate" : "");
}

std::string geomean_cell(const Geomean& g) {
  if (!g.value) return "-";
  const std::string rate = g.by_rate > 0 ? fmt::format(", {} by rate", g.by_rate) : "";
  return fmt::format("{} ({} run{}{})", ratio_text(*g.value), g.runs, g.runs == 1 ? "" : "s", rate);
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
    for (std::size_t k = 1; k < files; ++k) line.push_back(speedup_cell(row, k));
    line.push_back(row_note(row));
    cells.push_back(line);
  }
  std::vector<std::string> mean = {"geometric mean", "", ""};
  mean.resize(3 + files);
  for (const Geomean& g : workload_geomeans(rows, workload, files)) mean.push_back(geomean_cell(g));
  mean.push_back("");
  cells.push_back(mean);
  return render_table(cells, right);
}

std::string param_value(const ResultRun& r, const std::string& key) {
  return r.params.is_object() && r.params.contains(key) ? param_text(r.params.at(key)) : std::string("(none)");
}

// "<param>: [1] <value>, [2] <value>" for each parameter whose value differs within a matched run.
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

// Runs not in every file, runs valid in one file but FAIL in another, and runs
// present in two files but not comparable.
std::string differences(const std::vector<Row>& rows, std::size_t files) {
  std::string missing, validation, incomparable;
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
    for (std::size_t k = 1; k < files; ++k) {
      const Comparison c = compare_in_row(row, k);
      if (c.basis == Basis::not_comparable)
        incomparable += fmt::format("  [{}] {}: {}\n", k + 1, run_name(row), c.why);
    }
  }
  std::string out;
  out += missing.empty() ? "runs not in every file: none\n" : "runs not in every file:\n" + missing;
  out += validation.empty() ? "validation differences: none\n"
                            : "validation differences (valid in one file, FAIL in another):\n" + validation;
  out += incomparable.empty() ? "runs not comparable with [1]: none\n"
                              : "runs not comparable with [1] (left out of the geometric means and the gate):\n" +
                                    incomparable;
  return out;
}

// "2.000 s" for a comparison by time, "<value> <figure of merit>" by rate.
std::string measure(const ResultRun& r, bool by_rate) {
  return by_rate ? fmt::format("{:.4g} {}", r.fom_value, r.fom_name) : format_time(r.median_s);
}

std::string threshold_section(const std::vector<Row>& rows, const std::vector<ResultFile>& files, const Thresholds& t) {
  const std::vector<Slower> slower = slower_than_first(rows, files, t);
  std::string beyond, within, changed;
  int counted = 0;
  for (const Slower& s : slower) {
    const ResultRun& first = *s.row->in_file[0];
    const ResultRun& other = *s.row->in_file[s.file];
    const std::string noise = s.p_value ? fmt::format("rank test p = {:.2g} over {} and {} repetitions", *s.p_value,
                                                      first.samples.size(), other.samples.size())
                                        : fmt::format("spread {:.1f}%", s.noise_percent);
    const std::string line =
        fmt::format("  [{}] {}: {} against {} in [1]{} ({:.1f}% slower; threshold {}%, {})\n", s.file + 1,
                    run_name(*s.row), measure(other, s.by_rate), measure(first, s.by_rate),
                    s.by_rate ? ", by rate" : "", s.percent, s.threshold, noise);
    if (!s.machine_changed.empty()) {
      changed += line + fmt::format("    not comparable: machine changed: {}\n", s.machine_changed);
    } else if (s.beyond_noise) {
      beyond += line;
      ++counted;
    } else {
      within += line;
    }
  }
  std::string out = fmt::format("threshold {}: ", describe(t));
  out += counted == 0 ? "no run is slower than in [1] beyond its threshold and its noise\n"
                      : fmt::format("{} run(s) slower than in [1] beyond their threshold and their noise:\n{}",
                                    counted, beyond);
  if (!within.empty())
    out += "slower than the threshold but within the noise of the two runs' repetitions (not counted):\n" + within;
  if (!changed.empty())
    out += "slower than the threshold on a machine that changed (not counted):\n" + changed;
  for (const auto& [place, value] : {std::pair<const char*, std::optional<double>>{"host", t.host}, {"device", t.device}})
    if (!value) out += fmt::format("{} runs: not gated (no {} threshold)\n", place, place);
  return out;
}

}  // namespace

std::string format_comparison(const std::vector<ResultFile>& files, const std::vector<Row>& rows,
                              const std::optional<Thresholds>& thresholds) {
  std::string out;
  for (std::size_t k = 0; k < files.size(); ++k)
    out += fmt::format("[{}] {}: {}\n", k + 1, files[k].path, files[k].header);
  std::vector<json> tops;
  for (const ResultFile& f : files) tops.push_back(f.top);
  out += settings_that_differ(tops) + load_lines(tops) + machine_change_lines(tops);
  out += "speedup of [k] = median time in [1] / median time in [k] (above 1: [k] is faster); where the size or a "
         "parameter that scales the work differs, [k]'s figure of merit / [1]'s, marked \"by rate\"; where a "
         "parameter it does not normalise differs, none (\"not comparable\"); geometric mean over the runs valid "
         "in both\n";
  out += matching_notes(files, rows);
  std::vector<std::string> workloads;
  for (const Row& row : rows)
    if (std::find(workloads.begin(), workloads.end(), row.workload) == workloads.end()) workloads.push_back(row.workload);
  for (const std::string& w : workloads) {
    out += fmt::format("\n{}\n", w);
    out += params_that_differ(rows, w, files.size());
    out += workload_table(rows, w, files.size());
  }
  out += "\n" + differences(rows, files.size());
  if (thresholds) out += threshold_section(rows, files, *thresholds);
  return out;
}

static const char* basis_name(Basis basis) {
  switch (basis) {
    case Basis::time: return "time";
    case Basis::rate: return "rate";
    case Basis::not_comparable: return "not_comparable";
    case Basis::missing: break;
  }
  return "missing";
}

nlohmann::json comparison_json(const std::vector<ResultFile>& files, const std::vector<Row>& rows) {
  json out = {{"files", json::array()}, {"rows", json::array()}, {"geomeans", json::object()}, {"notes", json::array()}};
  for (const ResultFile& f : files) out["files"].push_back({{"path", f.path}, {"header", f.header}});
  // Per file k > 0: how its machine changed against the first file's (compare_noise.hpp).
  for (std::size_t k = 1; k < files.size(); ++k) {
    json changes = json::array();
    for (const MachineChange& c : machine_changes(files[0].top, files[k].top))
      changes.push_back({{"place", c.place}, {"what", c.what}});
    out["files"][k]["machine_changes"] = changes;
  }
  std::vector<std::string> workloads;
  for (const Row& row : rows) {
    if (std::find(workloads.begin(), workloads.end(), row.workload) == workloads.end()) workloads.push_back(row.workload);
    json runs = json::array(), against = json::array();
    for (std::size_t k = 0; k < files.size(); ++k) {
      const ResultRun* r = row.in_file[k];
      if (!r) {
        runs.push_back(nullptr);
      } else {
        json run = {{"index", r - files[k].runs.data()}, {"size", r->size}, {"median_s", r->median_s}, {"valid", r->valid}};
        if (!r->fom_name.empty()) run["fom"] = {{"name", r->fom_name}, {"value", r->fom_value}};
        runs.push_back(run);
      }
      if (k == 0) {
        against.push_back(nullptr);
        continue;
      }
      const Comparison c = compare_in_row(row, k);
      json entry = {{"basis", basis_name(c.basis)}, {"speedup", c.speedup ? json(*c.speedup) : json()}, {"why", c.why}};
      entry["in_geomean"] = c.speedup.has_value() && row.in_file[0]->valid && row.in_file[k]->valid;
      against.push_back(entry);
    }
    out["rows"].push_back({{"workload", row.workload},
                           {"variant", row.variant},
                           {"size", row.size},
                           {"place", row.place},
                           {"runs", runs},
                           {"against_first", against},
                           {"note", row_note(row)}});
  }
  for (const std::string& w : workloads) {
    json means = json::array({nullptr});
    for (const Geomean& g : workload_geomeans(rows, w, files.size()))
      means.push_back({{"value", g.value ? json(*g.value) : json()}, {"runs", g.runs}, {"by_rate", g.by_rate}});
    out["geomeans"][w] = means;
  }
  std::istringstream notes(matching_notes(files, rows));
  for (std::string line; std::getline(notes, line);)
    if (!line.empty()) out["notes"].push_back(line);
  return out;
}

CLI::App* add_compare_command(CLI::App& app, CompareArgs& args) {
  CLI::App* cmd = app.add_subcommand("compare", "median times of result files side by side, speedups against the first");
  cmd->add_option("files", args.files, "two or more files written by ompref run --json; the first is the reference");
  cmd->add_option_function<std::string>(
      "--threshold", [&args](const std::string& text) { args.threshold = text; },
      "exit 1 when a run is slower than in the first file by more than P percent and by more than the spread of "
      "the two runs' repetitions; P for every place, or host=P,device=Q");
  cmd->add_option("--json", args.json,
                  "also write the matched runs, how each compares with the first file and the geometric means as "
                  "JSON (- : standard output, the text then goes to standard error)");
  return cmd;
}

int run_compare(const CompareArgs& args) {
  const std::optional<Thresholds> thresholds =
      args.threshold ? std::optional<Thresholds>(parse_thresholds(*args.threshold)) : std::nullopt;
  if (args.files.size() < 2)
    throw UsageError(fmt::format("compare: needs at least two result files, given {} (accepted: ompref compare "
                                 "A.json B.json [...] [--threshold P|host=P,device=P])", args.files.size()));
  if (!args.json.empty()) {
    check_output_path(args.json, "--json");
    // Not one of the files compared (by identity: a link to one is that file).
    std::vector<NamedPath> inputs;
    for (const std::string& path : args.files) inputs.push_back({path, "compare"});
    check_outputs_spare_inputs({{args.json, "--json"}}, inputs);
  }
  std::vector<ResultFile> files;
  for (const std::string& path : args.files) files.push_back(load_result_file(path));
  const std::vector<Row> rows = match_runs(files);
  if (!args.json.empty()) write_output(args.json, comparison_json(files, rows).dump(2) + "\n", "--json");
  fmt::print(args.json == "-" ? stderr : stdout, "{}", format_comparison(files, rows, thresholds));
  if (!thresholds) return 0;
  const std::vector<Slower> slower = slower_than_first(rows, files, *thresholds);
  return std::any_of(slower.begin(), slower.end(), [](const Slower& s) { return s.beyond_noise; }) ? 1 : 0;
}

}  // namespace ompref
