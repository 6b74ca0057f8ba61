// compare's rules: when two runs are comparable and how (by time, by the
// figure of merit, or not at all), as each workload declares it
// (Workload::comparability); the geometric means, --threshold and the gate.
#include "app/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/compare_noise.hpp"
#include "common/registry.hpp"
#include "common/usage_error.hpp"

namespace ompref {

namespace {

using nlohmann::json;

// Both values the generator's text, equal once the size (the number after the
// generator's name) is taken out: "cube 32" and "cube 128", not a file's name.
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

}  // namespace

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
  const Workload* workload = registry().workload(first->workload);
  if (!workload) {
    std::vector<std::string> what = differ;
    if (size_differs) what.insert(what.begin(), "size");
    return {Basis::not_comparable, std::nullopt,
            fmt::format("not comparable: {} (no figure of merit of {} known to normalise it)", differ_text(what),
                        first->workload)};
  }
  const Comparability rule = workload->comparability();
  std::vector<std::string> unnormalised, scaled;
  for (const std::string& key : differ) {
    const auto n = std::find_if(rule.params.begin(), rule.params.end(),
                                [&](const ComparedParam& p) { return key == p.param; });
    if (n == rule.params.end() || (!n->generator.empty() && !same_generator(param_or_null(*first, key),
                                                                            param_or_null(*other, key), n->generator)))
      unnormalised.push_back(key);
    else if (n->effect == ParamEffect::work)
      scaled.push_back(key);
  }
  if (!unnormalised.empty()) return {Basis::not_comparable, std::nullopt, "not comparable: " + differ_text(unnormalised)};
  if (!size_differs && scaled.empty()) return by_time();
  if (first->fom_name != rule.fom || other->fom_name != rule.fom || !(first->fom_value > 0) ||
      !(other->fom_value > 0) || !std::isfinite(first->fom_value) || !std::isfinite(other->fom_value))
    return {Basis::not_comparable, std::nullopt,
            fmt::format("not comparable: {} and no {} figure of merit in both", differ_text(size_differs ? std::vector<std::string>{"size"} : scaled),
                        rule.fom)};
  const double ratio = other->fom_value / first->fom_value;
  if (out_of_range(ratio)) return {Basis::not_comparable, std::nullopt, beyond};
  return {Basis::rate, ratio,
          fmt::format("by rate ({}): {}", rule.fom, differ_text(size_differs ? std::vector<std::string>{"size"} : scaled))};
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

}  // namespace ompref
