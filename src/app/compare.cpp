// `ompref compare A.json B.json [...] [--threshold P|host=P,device=P]`: per
// workload, the median times of each file side by side, the speedup of each
// file against the first (by time for the same work, by figure of merit for
// work that differs only in what that figure normalises, none otherwise) and
// their geometric mean; why runs did not match, runs not in every file, runs
// whose validation differs, and with --threshold the runs slower than in the
// first file beyond their threshold and their own spread (exit 1: performance
// gating in CI). Reads DESIGN.md's JSON with nlohmann-json.
#include "app/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/io/output_file.hpp"
#include "app/compare_noise.hpp"
#include "app/result_input.hpp"
#include "common/registry.hpp"
#include "common/usage_error.hpp"

namespace ompref {

namespace {

using nlohmann::json;

const char* const not_a_result = "not a result file of `ompref run --json`";

// The rate rules, the one table of them: per workload, the unit of its figure
// of merit and the params that figure normalises. A param marked `work`
// scales the work of a repetition, and the figure of merit (work / median
// time) divides it out: runs that differ in it, or in --size, are compared by
// their figures of merit, "by rate". A param marked `same_work` changes how
// the work is done (a launch shape, an order), not how much: runs that differ
// only in it are still compared by time. A param in neither list changes what
// is computed or how work is counted (a data set, a physical constant, the
// FLOP model, a mesh file): runs that differ in it are not comparable.
// `generator`: normalised only where both values are that generator's text
// at another size (mesh "cube 32" and "cube 128", not two mesh files).
enum class Effect { work, same_work };
struct Normalised {
  const char* param;
  Effect effect;
  const char* generator = nullptr;
};
struct RateRule {
  const char* workload;
  const char* fom;
  std::vector<Normalised> params;
};
const std::vector<RateRule>& rate_rules() {
  static const std::vector<RateRule> rules = {
      // bytes moved / time: the arrays' length scales the bytes.
      {"stream", "GB/s", {{"n", Effect::work}, {"array_bytes", Effect::work}}},
      // flops_per_term x terms / time, terms = number_bands x ngpown x ncouls x 3:
      // ncouls (and ngpown = ncouls / nodes_per_group, and terms with them) is
      // the deck's scale, as between the mini-app's test and benchmark decks.
      // number_bands and nodes_per_group set the deck's shape (the band loop's
      // length, G'-vectors per node), the FLOP model (flops_per_term) and the
      // data set count differently: not normalised. nvband is unused.
      {"gpp",
       "GFLOP/s",
       {{"ncouls", Effect::work},
        {"ngpown", Effect::work},
        {"terms", Effect::work},
        {"nvband", Effect::same_work},
        {"tuned_shape", Effect::same_work}}},
      // cells x steps / time: every cell does the same work at every step,
      // whatever the phase there, so the drops' radius (which follows the box)
      // does not change it; the case and the physical constants do.
      {"lbm",
       "MLUPS",
       {{"nx", Effect::work},
        {"ny", Effect::work},
        {"nz", Effect::work},
        {"steps", Effect::work},
        {"radius", Effect::work},
        {"tile", Effect::same_work},
        {"shape", Effect::same_work},
        {"block", Effect::same_work},
        {"fused_shape", Effect::same_work}}},
      // the model's bytes / time, bytes from the counts of vertices and
      // tetrahedra: normalised for the generated cube at another edge count;
      // a mesh file is another problem. renumber reorders the same mesh.
      {"mesh",
       "GB/s",
       {{"source", Effect::work, "cube "},
        {"vertices", Effect::work},
        {"tetrahedra", Effect::work},
        {"triangles", Effect::work},
        {"ball_entries", Effect::work},
        {"binned_entries", Effect::work},
        {"bins", Effect::work},
        {"renumber", Effect::same_work}}},
  };
  return rules;
}

const RateRule* rule_for(const std::string& workload) {
  for (const RateRule& rule : rate_rules())
    if (workload == rule.workload) return &rule;
  return nullptr;
}

// Both values the generator's text, equal once the size (the number after the
// generator's name) is taken out: "cube 32" and "cube 128", not "a.meshb".
bool same_generator(const nlohmann::json& a, const nlohmann::json& b, const std::string& generator) {
  auto rest = [&](const nlohmann::json& v) -> std::optional<std::string> {
    if (!v.is_string()) return std::nullopt;
    const std::string text = v.get<std::string>();
    if (text.rfind(generator, 0) != 0) return std::nullopt;
    std::size_t at = generator.size();
    const std::size_t digits = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
    if (at == digits) return std::nullopt;
    return text.substr(at);
  };
  const auto ra = rest(a), rb = rest(b);
  return ra && rb && *ra == *rb;
}

// The params whose values differ between two runs (absent in one counts), sorted.
std::vector<std::string> differing_params(const ResultRun& a, const ResultRun& b) {
  const json none = json::object();
  const json& pa = a.params.is_object() ? a.params : none;
  const json& pb = b.params.is_object() ? b.params : none;
  std::set<std::string> keys;
  for (const auto& item : pa.items()) keys.insert(item.key());
  for (const auto& item : pb.items()) keys.insert(item.key());
  std::vector<std::string> out;
  for (const std::string& key : keys)
    if (!pa.contains(key) || !pb.contains(key) || pa.at(key) != pb.at(key)) out.push_back(key);
  return out;
}

json param_or_null(const ResultRun& r, const std::string& key) {
  return r.params.is_object() && r.params.contains(key) ? r.params.at(key) : json();
}

std::string differ_text(const std::vector<std::string>& what) {
  return fmt::format("{} differ{}", fmt::join(what, ", "), what.size() == 1 ? "s" : "");
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

// "2.000 s" for a comparison by time, "40.0 MLUPS" by rate.
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

// Per workload, the sizes of a file's runs: "stream large, gpp medium".
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

Comparison compare_runs(const ResultRun* first, const ResultRun* other) {
  if (!first || !other) return {};
  const std::vector<std::string> differ = differing_params(*first, *other);
  const bool size_differs = first->size != other->size;
  // A ratio of two accepted values that a double cannot hold (1e308 s against
  // 5e-324 s) is no speedup: not comparable, said so, never inf or 0.
  const auto out_of_range = [](double ratio) { return !(ratio > 0) || !std::isfinite(ratio); };
  const char* beyond = "not comparable: the ratio is beyond the range of a double";
  auto by_time = [&]() -> Comparison {
    if (!(first->median_s > 0) || !(other->median_s > 0)) return {Basis::time, std::nullopt, ""};
    const double ratio = first->median_s / other->median_s;
    if (out_of_range(ratio)) return {Basis::not_comparable, std::nullopt, beyond};
    return {Basis::time, ratio, ""};
  };
  if (!size_differs && differ.empty()) return by_time();
  const RateRule* rule = rule_for(first->workload);
  if (!rule) {
    std::vector<std::string> what = differ;
    if (size_differs) what.insert(what.begin(), "size");
    return {Basis::not_comparable, std::nullopt,
            fmt::format("not comparable: {} (no figure of merit of {} known to normalise it)", differ_text(what),
                        first->workload)};
  }
  std::vector<std::string> unnormalised, scaled;
  for (const std::string& key : differ) {
    const auto n = std::find_if(rule->params.begin(), rule->params.end(),
                                [&](const Normalised& p) { return key == p.param; });
    if (n == rule->params.end() ||
        (n->generator && !same_generator(param_or_null(*first, key), param_or_null(*other, key), n->generator)))
      unnormalised.push_back(key);
    else if (n->effect == Effect::work)
      scaled.push_back(key);
  }
  if (!unnormalised.empty()) return {Basis::not_comparable, std::nullopt, "not comparable: " + differ_text(unnormalised)};
  if (!size_differs && scaled.empty()) return by_time();
  if (first->fom_name != rule->fom || other->fom_name != rule->fom || !(first->fom_value > 0) ||
      !(other->fom_value > 0) || !std::isfinite(first->fom_value) || !std::isfinite(other->fom_value))
    return {Basis::not_comparable, std::nullopt,
            fmt::format("not comparable: {} and no {} figure of merit in both", differ_text(size_differs ? std::vector<std::string>{"size"} : scaled),
                        rule->fom)};
  const double ratio = other->fom_value / first->fom_value;
  if (out_of_range(ratio)) return {Basis::not_comparable, std::nullopt, beyond};
  return {Basis::rate, ratio,
          fmt::format("by rate ({}): {}", rule->fom, differ_text(size_differs ? std::vector<std::string>{"size"} : scaled))};
}

Comparison compare_in_row(const Row& row, std::size_t k) { return compare_runs(row.in_file.at(0), row.in_file.at(k)); }

std::optional<double> speedup(const Row& row, std::size_t k) { return compare_in_row(row, k).speedup; }

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
    int by_rate = 0;
    for (const Row& row : rows) {
      if (row.workload != workload) continue;
      const Comparison c = compare_in_row(row, k);
      if (c.speedup && row.in_file[0]->valid && row.in_file[k]->valid) {
        ratios.push_back(*c.speedup);
        by_rate += c.basis == Basis::rate;
      }
    }
    out.push_back({geometric_mean(ratios), static_cast<int>(ratios.size()), by_rate});
  }
  return out;
}

double spread_percent(const ResultRun& run) {
  if (!(run.min_s > 0) || !(run.median_s > run.min_s)) return 0;
  return (run.median_s - run.min_s) / run.min_s * 100.0;
}

Thresholds parse_thresholds(const std::string& text) {
  const char* accepted = "accepted: P, host=P, device=P or a comma-separated mix, P a percentage of 0 or more";
  if (text.empty()) throw UsageError(fmt::format("--threshold: empty value ({})", accepted));
  std::vector<std::string> items;
  for (std::size_t from = 0;;) {
    const std::size_t comma = text.find(',', from);
    items.push_back(CLI::detail::trim_copy(text.substr(from, comma == std::string::npos ? comma : comma - from)));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  Thresholds t;
  std::optional<double> every;
  for (const std::string& item : items) {
    if (item.empty()) throw UsageError(fmt::format("--threshold '{}': an empty item ({})", text, accepted));
    const std::size_t eq = item.find('=');
    const std::string place = eq == std::string::npos ? "" : CLI::detail::trim_copy(item.substr(0, eq));
    if (eq != std::string::npos && place.empty())
      throw UsageError(fmt::format("--threshold '{}': no place before '=' ({})", text, accepted));
    const std::string value = eq == std::string::npos ? item : CLI::detail::trim_copy(item.substr(eq + 1));
    std::optional<double>* slot = place.empty() ? &every : place == "host" ? &t.host : place == "device" ? &t.device : nullptr;
    if (!slot) throw UsageError(fmt::format("--threshold '{}': unknown place '{}' ({})", text, place, accepted));
    double p = -1;
    if (!CLI::detail::lexical_cast(value, p) || !std::isfinite(p) || p < 0)
      throw UsageError(fmt::format("--threshold '{}': '{}' is not a percentage of 0 or more ({})", text, value, accepted));
    if (*slot) throw UsageError(fmt::format("--threshold '{}': {} given twice ({})", text, place.empty() ? "P" : place, accepted));
    *slot = p;
  }
  if (every) {
    if (!t.host) t.host = every;
    if (!t.device) t.device = every;
  }
  return t;
}

std::string describe(const Thresholds& t) {
  if (t.host && t.device && *t.host == *t.device) return fmt::format("{}%", *t.host);
  std::vector<std::string> parts;
  if (t.device) parts.push_back(fmt::format("device {}%", *t.device));
  if (t.host) parts.push_back(fmt::format("host {}%", *t.host));
  return fmt::format("{}", fmt::join(parts, ", "));
}

namespace {

// A run's repetitions as the comparison sees them: times, or (by rate) the
// figure of merit of each repetition, fom x median / time.
std::vector<double> compared_samples(const ResultRun& r, bool by_rate) {
  if (!by_rate) return r.samples;
  std::vector<double> rates;
  for (double t : r.samples)
    if (t > 0) rates.push_back(r.fom_value * r.median_s / t);
  return rates;
}

std::vector<Slower> slower(const std::vector<Row>& rows, std::size_t files, const Thresholds& t,
                           const std::vector<ResultFile>* of) {
  std::vector<std::vector<MachineChange>> changes(files);
  if (of)
    for (std::size_t k = 1; k < files; ++k) changes[k] = machine_changes((*of)[0].top, (*of)[k].top);
  std::vector<Slower> out;
  for (const Row& row : rows)
    for (std::size_t k = 1; k < files; ++k) {
      const Comparison c = compare_in_row(row, k);
      if (!c.speedup) continue;
      const ResultRun& first = *row.in_file[0];
      const ResultRun& other = *row.in_file[k];
      const bool on_host = first.ran_on.rfind("host", 0) == 0 || other.ran_on.rfind("host", 0) == 0;
      const std::optional<double> threshold = on_host ? t.host : t.device;
      if (!threshold) continue;
      const double slower_by = (1.0 / *c.speedup - 1.0) * 100.0;
      if (!(slower_by > *threshold)) continue;
      const double noise = std::max(spread_percent(first), spread_percent(other));
      Slower s{&row, k, slower_by, noise, *threshold, c.basis == Basis::rate, slower_by > noise, std::nullopt, ""};
      const bool by_rate = c.basis == Basis::rate;
      const std::vector<double> a = compared_samples(first, by_rate), b = compared_samples(other, by_rate);
      if (a.size() >= rank_test_min_samples && b.size() >= rank_test_min_samples) {
        s.p_value = mann_whitney_p(a, b);
        s.beyond_noise = *s.p_value < rank_test_alpha;
      }
      std::vector<std::string> why;
      for (const MachineChange& m : changes[k])
        if (concerns(m, row.place)) why.push_back(m.what);
      if (!why.empty()) {
        s.machine_changed = fmt::format("{}", fmt::join(why, "; "));
        s.beyond_noise = false;
      }
      out.push_back(s);
    }
  return out;
}

}  // namespace

std::vector<Slower> slower_than_first(const std::vector<Row>& rows, std::size_t files, const Thresholds& t) {
  return slower(rows, files, t, nullptr);
}

std::vector<Slower> slower_than_first(const std::vector<Row>& rows, const std::vector<ResultFile>& files,
                                      const Thresholds& t) {
  return slower(rows, files.size(), t, &files);
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
