#pragma once
// One validation for every workload: values compared with a reference by
// relative error, NaN and Inf failing, and the worst comparison (as a multiple
// of its own tolerance) reported with where it happened.
#include <cmath>
#include <cstdint>
#include <limits>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "common/registry.hpp"

namespace ompref {

// |got - want| / scale, with scale = |want| (or `floor` where |want| is
// smaller); +inf when `got` or `want` is NaN or Inf, so that it always fails:
// a reference that holds NaN validates nothing (NaN compares false with every
// bound, and a search for the worst error would pass over it).
inline double relative_error(double got, double want, double floor = 0) {
  if (!std::isfinite(got) || !std::isfinite(want)) return std::numeric_limits<double>::infinity();
  double scale = std::fabs(want) > floor ? std::fabs(want) : floor;
  if (!(scale > 0)) scale = 1.0;
  return std::fabs(got - want) / scale;
}

// The worst element of a validation: the largest error as a multiple of its
// own tolerance, at index `at`.
struct WorstElement {
  double error = -1, tolerance = 1;
  std::int64_t at = 0;
  double ratio() const { return error / tolerance; }
};

// The worst of error(i) over [0, n), error(i) giving {error, tolerance}: the
// largest ratio, the first of equal ones, searched in parallel (the arrays
// validated hold up to 10^8 elements). An error that is NaN (a NaN in the
// output or the reference) counts as +inf, so that it fails and is reported;
// a tolerance that underflowed to 0 (a bound of the smallest double against a
// scale of 1e40) stays above 0, so that an exact result passes.
//
// With `quick` (not null), every tolerance is the same and quick(i) is
// error(i)'s value wherever that is finite (NaN or infinite elsewhere): the
// elements go by blocks, and a block whose quick values are all within the
// worst error found so far, one vector loop's test, is passed over without
// the element-by-element search, which could not move in it.
template <class Error, class Quick = std::nullptr_t>
WorstElement worst_element(std::int64_t n, Error&& error, Quick&& quick = nullptr) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr std::int64_t block = 2048;
  constexpr bool blocked = !std::is_same_v<std::decay_t<Quick>, std::nullptr_t>;
  WorstElement worst;
  const auto search = [&](std::int64_t lo, std::int64_t hi, WorstElement& mine) {
    for (std::int64_t i = lo; i < hi; ++i) {
      auto [e, tolerance] = error(i);
      if (!(tolerance > 0)) tolerance = std::numeric_limits<double>::denorm_min();
      if (std::isnan(e) || std::isnan(e / tolerance)) e = inf, tolerance = 1;
      if (!(e / tolerance <= mine.ratio())) mine = {e, tolerance, i};
    }
  };
#pragma omp parallel
  {
    WorstElement mine;
    if constexpr (blocked) {
#pragma omp for schedule(static) nowait
      for (std::int64_t lo = 0; lo < n; lo += block) {
        const std::int64_t hi = lo + block < n ? lo + block : n;
        const double bound = mine.error;
        int above = 0;
#pragma omp simd reduction(| : above)
        for (std::int64_t i = lo; i < hi; ++i) above |= !(quick(i) <= bound);
        if (above) search(lo, hi, mine);
      }
    } else {
#pragma omp for schedule(static) nowait
      for (std::int64_t i = 0; i < n; ++i) search(i, i + 1, mine);
    }
#pragma omp critical
    if (mine.ratio() > worst.ratio() || (mine.ratio() == worst.ratio() && mine.at < worst.at)) worst = mine;
  }
  return worst;
}

class Validation {
 public:
  explicit Validation(std::string reference) { check_.reference = std::move(reference); }

  // One comparison; `where()` (a callable returning std::string) is asked
  // only when this comparison becomes the worst so far.
  template <class Where>
  void compare(double got, double want, double tolerance, Where&& where, double floor = 0) {
    note(relative_error(got, want, floor), tolerance, std::forward<Where>(where));
  }

  // |got - want| / scale for a fixed, positive scale (a length of the
  // problem); +inf when `got`, `want` or the quotient is not finite.
  static double scaled_error(double got, double want, double scale) {
    const double e = std::fabs(got - want) / scale;
    return std::isfinite(got) && std::isfinite(want) && std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
  }

  // An error already computed (a norm, a sum of errors): NaN fails.
  template <class Where>
  void note(double error, double tolerance, Where&& where) {
    if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
    double ratio = error / tolerance;
    if (std::isnan(ratio)) ratio = std::numeric_limits<double>::infinity();  // a NaN tolerance, or 0 / 0
    if (!seen_ || ratio > worst_) {
      seen_ = true;
      worst_ = ratio;
      check_.max_rel_error = error;
      check_.tolerance = tolerance;
      where_ = where();
    }
  }

  // Every element i of [0, n), error(i) giving {its error, its tolerance}:
  // the worst (worst_element) is noted and described once, by where(i).
  template <class Error, class Where>
  void compare_each(std::int64_t n, Error&& error, Where&& where) {
    if (n <= 0) return;
    const WorstElement w = worst_element(n, std::forward<Error>(error));
    note(w.error, w.tolerance, [&] { return where(w.at); });
  }

  // Every element of got[0, n) against want(i), by relative_error.
  // Blocks within the worst error so far are passed by one vector test
  // (worst_element): relative_error's arithmetic without its tests for NaN
  // and Inf, NaN or infinite where they would fire.
  template <class Got, class Want, class Where>
  void compare_all(std::int64_t n, Got&& got, Want&& want, double tolerance, Where&& where, double floor = 0) {
    if (n <= 0) return;
    const WorstElement w = worst_element(
        n, [&](std::int64_t i) { return std::pair{relative_error(got(i), want(i), floor), tolerance}; },
        [&](std::int64_t i) {
          const double wanted = want(i), size = std::fabs(wanted), scale = size > floor ? size : floor;
          return std::fabs(got(i) - wanted) / (scale > 0 ? scale : 1.0);
        });
    note(w.error, w.tolerance, [&] { return where(w.at); });
  }

  // Every element of got[0, n) against want(i), the difference measured
  // against one fixed `scale` instead of |want(i)|: for coordinates, a length
  // of the problem, so that a point near the origin is held to the same
  // absolute bound as one far from it. NaN and Inf, in either, fail.
  template <class Got, class Want, class Where>
  void compare_all_to_scale(std::int64_t n, Got&& got, Want&& want, double scale, double tolerance, Where&& where) {
    compare_each(
        n, [&](std::int64_t i) { return std::pair{scaled_error(got(i), want(i), scale), tolerance}; },
        std::forward<Where>(where));
  }

  // Valid when every comparison was within its tolerance; the detail names
  // the worst one when not.
  Check result() const {
    Check c = check_;
    c.valid = seen_ && worst_ <= 1.0;
    if (!c.valid) c.detail = seen_ ? where_ : "nothing was compared";
    return c;
  }

 private:
  Check check_;
  bool seen_ = false;
  double worst_ = 0;
  std::string where_;
};

}  // namespace ompref
