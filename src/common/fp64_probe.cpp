#include "common/fp64_probe.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace ompref {
namespace {

constexpr int chains = 32;  // per thread: enough independent work to hide the FMA latency in SIMD registers
constexpr int iterations = 1 << 20;
constexpr double factor = 0.999999;  // bounded, never denormal: x tends to addend / (1 - factor) = 0.1
constexpr double addend = 1e-7;

double chain_start(int thread, int k) { return 1.0 + thread * 1e-6 + k * 1e-3; }

// One pass of every thread's chains: the seconds it took; sums[t] is thread t's result.
double pass(std::vector<double>& sums) {
  const double t0 = omp_get_wtime();
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    alignas(64) double x[chains];
    for (int k = 0; k < chains; ++k) x[k] = chain_start(t, k);
    for (int i = 0; i < iterations; ++i) {
#pragma omp simd aligned(x : 64)
      for (int k = 0; k < chains; ++k) x[k] = x[k] * factor + addend;
    }
    double sum = 0;
    for (int k = 0; k < chains; ++k) sum += x[k];
    sums[std::size_t(t)] = sum;
  }
  return omp_get_wtime() - t0;
}

// x_n = c + (x_0 - c) a^n with c = b / (1 - a), in long double.
bool matches_closed_form(const std::vector<double>& sums) {
  const long double a = factor, c = addend / (1.0L - a), an = std::pow(a, (long double)iterations);
  for (std::size_t t = 0; t < sums.size(); ++t) {
    long double want = 0;
    for (int k = 0; k < chains; ++k) want += c + ((long double)chain_start(int(t), k) - c) * an;
    if (!(std::fabs((long double)sums[t] - want) <= 1e-9L * std::fabs(want))) return false;
  }
  return true;
}

}  // namespace

HostFp64 measure_host_fp64() {
  const int threads = omp_get_max_threads();
  std::vector<double> sums(std::size_t(threads), 0.0);
  pass(sums);  // warm-up: threads started, clocks up
  std::vector<double> times;
  for (int rep = 0; rep < 5; ++rep) times.push_back(pass(sums));
  std::sort(times.begin(), times.end());
  const double best = times.front();
  HostFp64 r;
  r.spread_percent = (times[times.size() / 2] - best) / best * 100.0;
  r.valid = matches_closed_form(sums);
  r.gflops = 2.0 * chains * double(iterations) * threads / best / 1e9;
  r.measured = fmt::format("FP64 x = a x + b, {} threads x {} chains x {} iterations, omp simd, best of 5", threads,
                           chains, iterations);
  return r;
}

}  // namespace ompref
