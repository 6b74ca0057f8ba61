#pragma once
// A workload's constant facts, stated once at its construction: its name, its
// place in the suite's order, its default sizes on the host and on a device,
// and how two of its runs compare (common/workload.hpp says what each means).
// The workload itself writes only what it computes: its sizes, its options,
// its instances.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/usage_error.hpp"
#include "common/workload.hpp"

namespace ompref {

struct WorkloadFacts {
  std::string name;
  int order = 0;
  std::string default_size, device_size;
  Comparability comparability;
};

// Comparability's parameters: those that scale the work (ParamEffect::work),
// then those that change only how it is done (ParamEffect::same_work).
inline std::vector<ComparedParam> compared_params(const std::vector<std::string>& work,
                                                  const std::vector<std::string>& same_work = {}) {
  std::vector<ComparedParam> params;
  for (const std::string& p : work) params.push_back({p, ParamEffect::work, ""});
  for (const std::string& p : same_work) params.push_back({p, ParamEffect::same_work, ""});
  return params;
}

// A size table's names, in its order: `name` is the member of a row that
// holds its size's name.
template <class Rows, class Row, class Name>
std::vector<std::string> size_names_of(const Rows& rows, Name Row::*name) {
  std::vector<std::string> names;
  for (const Row& r : rows) names.push_back(r.*name);
  return names;
}

// The row of a size table named `size`; UsageError names the sizes it has.
template <class Rows, class Row, class Name>
const Row& size_row(const std::string& workload, const Rows& rows, Name Row::*name, const std::string& size) {
  for (const Row& r : rows)
    if (size == r.*name) return r;
  throw UsageError(fmt::format("{}: unknown size '{}' (accepted: {})", workload, size,
                               fmt::join(size_names_of(rows, name), ", ")));
}

class FactsWorkload : public Workload {
 public:
  explicit FactsWorkload(WorkloadFacts facts) : facts_(std::move(facts)) {}
  std::string name() const override { return facts_.name; }
  int order() const override { return facts_.order; }
  std::string default_size() const override { return facts_.default_size; }
  std::string device_size() const override { return facts_.device_size; }
  Comparability comparability() const override { return facts_.comparability; }

 private:
  WorkloadFacts facts_;
};

}  // namespace ompref
