#include "app/rank_results.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/ranks.hpp"

namespace ompref {
namespace {

// What rank 0 needs of one rank's run.
nlohmann::json rank_summary(const RunResult& r) {
  const RankPlace& p = rank_place();
  nlohmann::json j = {{"rank", p.rank},
                      {"host", p.host},
                      {"device", r.device >= 0 ? nlohmann::json(r.device) : nlohmann::json(nullptr)},
                      {"ran_on", r.ran_on},
                      {"time_s", {{"min", r.time_s.min}, {"median", r.time_s.median}, {"max", r.time_s.max}}},
                      {"fom", r.fom},
                      {"valid", r.check.valid},
                      {"max_rel_error", r.check.max_rel_error}};
  j["ceiling_GBps"] = r.ceiling_gbps ? nlohmann::json(*r.ceiling_gbps) : nlohmann::json(nullptr);
  j["phases_GBps"] = nlohmann::json::object();
  for (const PhaseResult& phase : r.phases) j["phases_GBps"][phase.name] = phase.gbps;
  if (!r.check.valid) j["failure"] = r.check.detail;
  if (!r.notes.empty()) j["notes"] = r.notes;
  return j;
}

double rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }
// A number of a summary; JSON writes NaN (a failed check's error) as null.
double number(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// Rank 0: the aggregate of every rank's summary, into its own result.
void aggregate(RunResult& r, const Variant& v, const std::vector<nlohmann::json>& per_rank) {
  Stats t{per_rank[0]["time_s"]["min"], 0, 0};
  std::vector<double> medians;
  double fom_sum = 0, bytes_rate_sum = 0, ceiling_sum = 0;
  bool every_ceiling = true;
  for (const nlohmann::json& one : per_rank) {
    const double median = one["time_s"]["median"];
    t.min = std::min(t.min, one["time_s"]["min"].get<double>());
    t.median = std::max(t.median, median);
    t.max = std::max(t.max, one["time_s"]["max"].get<double>());
    medians.push_back(median);
    fom_sum += one["fom"].get<double>();
    bytes_rate_sum += rate(r.model.bytes, median);
    if (one["ceiling_GBps"].is_number()) ceiling_sum += one["ceiling_GBps"].get<double>();
    else every_ceiling = false;
    if (!one["valid"].get<bool>()) {
      const double error = number(one["max_rel_error"]);
      if (!(error <= r.check.max_rel_error)) r.check.max_rel_error = error;  // NaN wins
      if (r.check.detail.empty() || r.check.valid)
        r.check.detail = fmt::format("rank {}: {}", one["rank"].get<int>(), one.value("failure", std::string()));
      r.check.valid = false;
    }
  }
  const bool split = v.splits_across_ranks;
  r.time_s = t;
  r.samples_s.clear();  // the ranks' medians combined: no repetition's time stands for them all
  r.fom = split ? rate(r.model.fom_amount, t.median) : fom_sum;
  const double bytes_rate = split ? rate(r.model.bytes, t.median) : bytes_rate_sum;
  r.ceiling_gbps.reset();
  r.ceiling_fraction.reset();
  if (every_ceiling && ceiling_sum > 0) {
    r.ceiling_gbps = ceiling_sum;
    r.ceiling_fraction = bytes_rate / 1e9 / ceiling_sum;
  }
  // Each phase's bandwidth over the ranks: the sum (replicated: every rank
  // moves its own bytes; stream's aggregate triad) or, split, the slowest rank's.
  nlohmann::json phases = nlohmann::json::object();
  for (const nlohmann::json& one : per_rank)
    for (const auto& [name, gbps] : one["phases_GBps"].items()) {
      const double value = number(gbps), so_far = phases.value(name, split ? value : 0.0);
      phases[name] = split ? std::min(so_far, value) : so_far + value;
    }
  const Stats over = Stats::of(medians);
  r.ranks = {{"count", per_rank.size()},
             {"decomposition", split ? "split" : "replicated"},
             {"what", split ? "one instance's work shared by the ranks: figure of merit over the slowest rank's median"
                            : "every rank its own copy of the instance: figures of merit added up"},
             {"median_time_s_over_ranks", {{"min", over.min}, {"median", over.median}, {"max", over.max}}},
             {"phases_GBps", phases},
             {"per_rank", per_rank}};
  std::vector<std::string> places;
  for (const nlohmann::json& one : per_rank)
    places.push_back(fmt::format("{}:{}", one["host"].get<std::string>(), one["ran_on"].get<std::string>()));
  fmt::print("ranks: {} ({}), medians {:.6f} .. {:.6f} s, aggregate {:.6g} {} on {}\n", per_rank.size(),
             split ? "one instance split" : "each its own copy", over.min, over.max, r.fom, r.model.fom_name,
             fmt::join(places, ", "));
}

}  // namespace

void combine_ranks(RunResult& run, const Variant& variant) {
  if (!several_ranks()) return;
  const std::vector<std::string> gathered = gather_to_root(json_text(rank_summary(run), -1));
  if (is_root()) {
    std::vector<nlohmann::json> per_rank;
    for (const std::string& text : gathered) per_rank.push_back(nlohmann::json::parse(text));
    aggregate(run, variant, per_rank);
    std::fflush(stdout);
  }
  run.check.valid = all_ranks(run.check.valid);
}

OutputPaths outputs_of_this_rank(OutputPaths paths) {
  if (is_root()) return paths;
  return OutputPaths{"", "", "", "", "none"};
}

}  // namespace ompref
