#pragma once
// What the GPP-like steps (gpp_1_port.cpp, gpp_2_udr.cpp) share around their
// kernel, written once: the complex arithmetic (compiled for the host and for
// the device), the arguments, the inputs, and the check of the three sums
// against a serial host loop. The kernel and its reduction are each step's own.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "example.hpp"

struct Complex {
  double re, im;
};
struct Complex3 {
  Complex v[3];
};

// The arithmetic, compiled for the host and for the device.
#pragma omp declare target
inline Complex cadd(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
inline Complex cmul(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
inline Complex cdiv(Complex a, Complex b) {
  const double d = b.re * b.re + b.im * b.im;
  return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}
inline double cabs(Complex a) { return std::sqrt(a.re * a.re + a.im * a.im); }
// factor(k, n) = |a[k][n]|^2 v[k]: the same for every g of one thread.
inline Complex factor_of(Complex a, double v) { return {(a.re * a.re + a.im * a.im) * v, 0.0}; }
// w(n, iw): three frequencies around the band energy.
inline double w_of(double e, int iw) { return e + 0.5 * iw; }
inline Complex term_of(Complex factor, Complex eps, double w, Complex wt) {
  return cdiv(cmul(factor, eps), Complex{w - wt.re, -wt.im});
}
#pragma omp end declare target

namespace example {

// nk, nb, ng from the command line (none, or all three), each in 1..2^20 with
// nk*nb and ng*nk at most 2^30; false, after a usage line on stderr, for
// anything else (the program then exits 2).
inline bool gpp_arguments(int argc, char** argv, int& nk, int& nb, int& ng) {
  long k = nk, b = nb, g = ng;
  if (!(argc == 1 || argc == 4) ||
      (argc == 4 && !(parse_count(argv[1], 1 << 20, k) && parse_count(argv[2], 1 << 20, b) &&
                      parse_count(argv[3], 1 << 20, g))) ||
      k * b > 1L << 30 || g * k > 1L << 30) {
    std::fprintf(stderr, "usage: %s [nk nb ng], each in 1..1048576, nk*nb and ng*nk at most 2^30\n", argv[0]);
    return false;
  }
  nk = int(k), nb = int(b), ng = int(g);
  return true;
}

// The inputs, from a fixed pseudo-random sequence. wt has an imaginary part in
// [0.5, 1): no denominator is zero.
struct GppInputs {
  std::vector<Complex> a, eps, wt;  // a[k][n], eps[g][k], wt[g][k]
  std::vector<double> e, v;         // e[n], v[k]
  GppInputs(int nk, int nb, int ng)
      : a(std::size_t(nk) * nb), eps(std::size_t(ng) * nk), wt(std::size_t(ng) * nk), e(nb), v(nk) {
    std::mt19937_64 gen(12345);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (auto& z : a) z = {u(gen) - 0.5, u(gen) - 0.5};
    for (auto& z : eps) z = {u(gen), u(gen) - 0.5};
    for (auto& z : wt) z = {2.0 * u(gen), 0.5 + 0.5 * u(gen)};
    for (auto& x : e) x = 2.0 * u(gen);
    for (auto& x : v) x = 1.0 / (1.0 + u(gen));
  }
};

// The three sums acc against the same terms summed serially on the host, with
// the sum of their magnitudes, which scales the tolerance (the summation
// orders differ). Prints the step's line, each sum and PASS (returns 0) or
// FAIL (returns 1).
inline int check(const char* step, bool on_host, int nk, int nb, int ng, double seconds, const GppInputs& in,
                 const Complex3& acc) {
  Complex3 ref = {};
  double scale[3] = {0, 0, 0};
  for (int k = 0; k < nk; ++k) {
    for (int n = 0; n < nb; ++n) {
      for (int g = 0; g < ng; ++g) {
        for (int iw = 0; iw < 3; ++iw) {
          const Complex t = term_of(factor_of(in.a[k * nb + n], in.v[k]), in.eps[g * nk + k], w_of(in.e[n], iw),
                                    in.wt[g * nk + k]);
          ref.v[iw] = cadd(ref.v[iw], t);
          scale[iw] += cabs(t);
        }
      }
    }
  }
  std::printf("GPP-like sum, %s on %s: nk = %d, nb = %d, ng = %d, %.4f s\n", step,
              on_host ? "the host (fallback)" : "the device", nk, nb, ng, seconds);
  bool ok = true;
  for (int iw = 0; iw < 3; ++iw) {
    const double err = cabs(Complex{acc.v[iw].re - ref.v[iw].re, acc.v[iw].im - ref.v[iw].im});
    const bool good = err <= 1e-12 * scale[iw];  // false for a NaN
    std::printf("  acc[%d] = (%.12e, %.12e)  reference (%.12e, %.12e)  %s\n", iw, acc.v[iw].re, acc.v[iw].im,
                ref.v[iw].re, ref.v[iw].im, good ? "ok" : "WRONG");
    ok = ok && good;
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace example
