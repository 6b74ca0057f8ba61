// lbm's validation: every variant's state against the host reference run
// (lbm_reference.cpp) of the same number of steps, and a state the same bits
// as one validated before in full taken at that one's verdict.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/device.hpp"
#include "common/lbm/lbm.hpp"
#include "common/validation.hpp"

namespace ompref::lbm {

namespace {

// Whether the search would move in the block [k0, k0 + len) beyond `worst`.
// |g - w| / |w| alone, without relative_error's tests: the same value where
// w is finite and not zero, NaN or infinite elsewhere (the block is then
// searched, and the search decides), so that the loop is a few vector
// operations a population.
bool block_exceeds(const double* got, const double* want, long stride, const std::uint8_t* sol, long k0, int len,
                   double worst) {
  int above = 0;
  for (int i = 0; i < Q; ++i) {
    const double *g = got + i * stride + k0, *w = want + i * stride + k0;
#pragma omp simd reduction(| : above)
    for (int b = 0; b < len; ++b) above |= !sol[k0 + b] && !(std::fabs(g[b] - w[b]) / std::fabs(w[b]) <= worst);
  }
  return above != 0;
}

}  // namespace

void compare_block(const double* got, const double* want, long stride, const std::uint8_t* sol, long k0, int len,
                   WorstPopulation& worst) {
  if (!block_exceeds(got, want, stride, sol, k0, len, worst.error)) return;
  for (long k = k0; k < k0 + len; ++k) {
    if (sol[k]) continue;
    for (int i = 0; i < Q; ++i) {
      const double err = relative_error(got[i * stride + k], want[i * stride + k]);
      if (!(err <= worst.error)) worst = {err, k, i};
    }
  }
}

WorstPopulation worst_in_pass(const double* got, const double* want, long stride, const std::uint8_t* solid, int nz,
                              const std::function<void(const BlockVisit&)>& pass) {
  std::vector<WorstPopulation> planes(static_cast<std::size_t>(nz));
  pass([&](int z, long k0, int len) { compare_block(got, want, stride, solid, k0, len, planes[std::size_t(z)]); });
  return worst_of(planes);
}

WorstPopulation worst_of(const std::vector<WorstPopulation>& planes) {
  WorstPopulation worst;
  for (const WorstPopulation& mine : planes)
    if (mine.error > worst.error || (mine.error == worst.error && mine.k >= 0 && (worst.k < 0 || mine.k < worst.k)))
      worst = mine;
  return worst;
}

// The last state validate() compared in full with the reference and found
// valid, its step count, verdict and observables. At the paper size a full
// comparison is a second of host work (the comparison, the observables and
// the digest in one pass, the ranges in another) and the variants of one
// arithmetic end in the same bits: a later state whose fluid populations are
// those bits has that verdict and those observables, found by one pass that
// reads both states (about a quarter of the work). Kept only where its copy
// fits in a quarter of the memory available.
struct LbmInstance::Seen {
  long steps = -1;
  AlignedArray<double> state;
  Check check;
  nlohmann::json observables;
};

bool same_fluid_bits(const double* a, const double* b, long stride, const std::uint8_t* sol, long n) {
  std::atomic<bool> differ{false};
#pragma omp parallel for schedule(static)
  for (long k0 = 0; k0 < n; k0 += block_cells) {
    if (differ.load(std::memory_order_relaxed)) continue;
    const int len = int(std::min<long>(block_cells, n - k0));
    int mine = 0;
    for (int i = 0; i < Q; ++i) {
      const double *x = a + i * stride + k0, *y = b + i * stride + k0;
#pragma omp simd reduction(| : mine)
      for (int c = 0; c < len; ++c) {
        std::uint64_t u, v;
        std::memcpy(&u, x + c, sizeof u);
        std::memcpy(&v, y + c, sizeof v);
        mine |= u != v && sol[k0 + c] == 0;
      }
    }
    if (mine != 0) differ.store(true, std::memory_order_relaxed);
  }
  return !differ.load();
}

Check LbmInstance::validate(int repetitions, const std::string&) const {
  const long total = long(repetitions) * p.steps;
  const Seen* seen = seen_.get();
  if (seen != nullptr && seen->steps == total &&
      same_fluid_bits(current(), seen->state.data(), grid.stride, solid.data(), grid.n)) {
    validated_ = seen->observables;
    Check c = seen->check;
    c.reference = fmt::format("{}: the same bits as a state compared with it in full before", c.reference);
    return c;
  }
  Check c = compare_with_reference(total);
  if (c.valid) keep_seen(total, c);
  return c;
}

void LbmInstance::keep_seen(long total_steps, const Check& check) const {
  const long n = grid.stride * Q;
  if (!seen_ || seen_->steps != total_steps) {
    seen_.reset();  // its memory back before the test below
    if (double(n) * sizeof(double) > 0.25 * host_info().available_bytes) return;
    seen_ = std::make_shared<Seen>();
    seen_->state = AlignedArray<double>(std::size_t(n));
  }
  copy_state(current(), seen_->state.data(), n);
  seen_->steps = total_steps;
  seen_->check = check;
  seen_->observables = validated_;
}

// Every population of every fluid cell against the reference run of the
// same number of steps, then the mass: bounce-back, periodic faces and the
// velocity-shift forcing conserve it.
Check LbmInstance::compare_with_reference(long total) const {
  const double* want = reference_state(total);
  const double* got = current();
  const long stride = grid.stride;
  const double tol = population_tolerance(total);
  Validation v(fmt::format("host reference run ({} steps, host_basic's arithmetic order)", total));
  // One pass over the state: the comparison, the mass (mass_of's sum) and
  // the observables, kept for observables().
  long double mass = 0;
  const WorstPopulation w = worst_in_pass(got, want, stride, solid.data(), grid.nz,
                                          [&](const BlockVisit& visit) { validated_ = observe(got, mass, visit); });
  v.note(w.error, tol, [&] {
    const long k = w.k;
    if (k < 0) return std::string("no fluid cell");
    return fmt::format("population {} of cell ({}, {}, {}) = {} (reference {}), relative error {:.3g} > {:.3g}", w.i,
                       k % p.nx, k / p.nx % p.ny, k / (long(p.nx) * p.ny), got[w.i * stride + k],
                       want[w.i * stride + k], w.error, tol);
  });
  note_mass(v, mass, initial_mass, total);
  return v.result();
}

double population_tolerance(long steps) {
  // 1e-12 at 20 steps; rounding differences between compilers (FMA
  // contraction, exp) grow about linearly with the steps.
  return 1e-12 * std::max(1.0, double(steps) / 20.0);
}

void note_mass(Validation& v, long double mass, long double initial, long steps) {
  const double mass_tol = 1e-12;
  const double mass_err = double(std::fabs(mass - initial) / initial);
  v.note(mass_err, mass_tol, [&] {
    return fmt::format("mass {} after {} steps, {} at the start: relative change {:.3g} > {:.0e}", double(mass), steps,
                       double(initial), mass_err, mass_tol);
  });
}

}  // namespace ompref::lbm
