// A `target teams distribute parallel for` sum into a struct of complex
// numbers, checked against the same sum on the host. It has the shape of
// gpp's target_tuned kernel (src/omp_target/gpp_4_tuned.cpp) without the
// suite: a three-complex struct, a `declare reduction` whose combiner is a
// declare-target function, collapse(3) over (chunk, band block, k),
// thread_limit(T), and optionally the kernel compiled for teams of at most
// 512 threads through clang's ompx_attribute(launch_bounds).
//
// Compile-time variant (each a separate binary, see build.sh):
//   REPRO_SCALARS=0|1      one UDR over the struct | 2*NCOMPLEX `reduction(+)` doubles
//   REPRO_LAUNCH_BOUNDS=0|512  ompx_attribute(__attribute__((launch_bounds(N)))) or none
//   REPRO_COLLAPSE=3|2     collapse(3) over (a, b, c) | collapse(2) over (a*B+b, c)
//   REPRO_NCOMPLEX=1..4    complex numbers in the struct (16 bytes each; 3 = 48 bytes)
//   REPRO_HEAVY=0|1        per iteration: a few integer-valued loads | gpp's per-thread
//                          work (4 bands x 3 frequencies of local sums, one divide per
//                          row, over L rows)
// Run time: udr_teams A,B,C,T[,L] ...  (several shapes run one after another in
// one process, as a suite run does; L defaults to 512).
// Prints one line per shape and PASS/FAIL; exits 1 if any shape fails, 2 on bad
// arguments.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef REPRO_SCALARS
#define REPRO_SCALARS 0
#endif
#ifndef REPRO_LAUNCH_BOUNDS
#define REPRO_LAUNCH_BOUNDS 512
#endif
#ifndef REPRO_COLLAPSE
#define REPRO_COLLAPSE 3
#endif
#ifndef REPRO_NCOMPLEX
#define REPRO_NCOMPLEX 3
#endif
#ifndef REPRO_HEAVY
#define REPRO_HEAVY 0
#endif

#if REPRO_LAUNCH_BOUNDS > 0 && defined(__clang__)
#define REPRO_BOUNDS ompx_attribute(__attribute__((launch_bounds(REPRO_LAUNCH_BOUNDS))))
#else
#define REPRO_BOUNDS
#endif

#pragma omp declare target
constexpr int NC = REPRO_NCOMPLEX;
constexpr int Bands = 4;
constexpr int NF = 3;  // frequencies per band in the heavy form

struct Cplx {
  double re, im;
};
struct Sum {
  Cplx v[NC];
};

inline void sum_combine(Sum& out, const Sum& in) {
  for (int i = 0; i < NC; ++i) {
    out.v[i].re += in.v[i].re;
    out.v[i].im += in.v[i].im;
  }
}
inline void sum_init(Sum& p) {
  for (int i = 0; i < NC; ++i) p.v[i] = Cplx{0.0, 0.0};
}

// The contribution of iteration (a, b, c). w holds L rows of C values.
inline Sum element(int a, int b, int c, int C, int L, const double* w) {
  Sum s;
  sum_init(s);
#if REPRO_HEAVY
  // gpp's tuned element: Bands bands, NF frequencies, rows [0, L) of column c.
  double wx[Bands][NF];
  Cplx acc[Bands][NF];
  for (int q = 0; q < Bands; ++q)
    for (int f = 0; f < NF; ++f) {
      wx[q][f] = 3.0 + 0.25 * (b * Bands + q) + 0.5 * f + 0.125 * a;
      acc[q][f] = Cplx{0.0, 0.0};
    }
  for (int r = 0; r < L; ++r) {
    const double x = w[r * C + c], y = 0.5 + 0.001 * w[((r + 1) % L) * C + c];
    for (int q = 0; q < Bands; ++q)
      for (int f = 0; f < NF; ++f) {
        const double d = wx[q][f] - x;
        const double inv = 1.0 / (d * d + y * y);
        acc[q][f].re += d * inv;
        acc[q][f].im += y * inv;
      }
  }
  for (int q = 0; q < Bands; ++q)
    for (int f = 0; f < NF; ++f) {
      s.v[f % NC].re += acc[q][f].re;
      s.v[f % NC].im += acc[q][f].im;
    }
#else
  // Integer values: the sum is exact in any order.
  for (int i = 0; i < NC; ++i) {
    s.v[i].re = w[((a + b + 2 * i) % L) * C + c] * (i + 1);
    s.v[i].im = w[((a + 2 * b + 2 * i + 1) % L) * C + c] - i;
  }
#endif
  return s;
}
#pragma omp end declare target

#pragma omp declare reduction(ssum : Sum : sum_combine(omp_out, omp_in)) initializer(sum_init(omp_priv))

static Sum device_sum(int A, int B, int C, int T, int L, const double* w) {
  Sum acc;
  sum_init(acc);
  const long n = long(L) * C;
#if REPRO_SCALARS
  // Six named doubles, as target_tuned's scalar form.
  static_assert(NC == 3, "the scalar form has three complex numbers");
  double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#define REPRO_ADD                                   \
  re0 += e.v[0].re, im0 += e.v[0].im;               \
  re1 += e.v[1].re, im1 += e.v[1].im;               \
  re2 += e.v[2].re, im2 += e.v[2].im;
#define REPRO_REDUCTION reduction(+ : re0, im0, re1, im1, re2, im2)
#else
#define REPRO_ADD sum_combine(acc, e);
#define REPRO_REDUCTION reduction(ssum : acc)
#endif
#if REPRO_COLLAPSE == 3
#pragma omp target teams distribute parallel for collapse(3) thread_limit(T) REPRO_BOUNDS map(to : w[0:n]) \
    REPRO_REDUCTION
  for (int a = 0; a < A; ++a)
    for (int b = 0; b < B; ++b)
      for (int c = 0; c < C; ++c) {
        const Sum e = element(a, b, c, C, L, w);
        REPRO_ADD
      }
#else
#pragma omp target teams distribute parallel for collapse(2) thread_limit(T) REPRO_BOUNDS map(to : w[0:n]) \
    REPRO_REDUCTION
  for (int ab = 0; ab < A * B; ++ab)
    for (int c = 0; c < C; ++c) {
      const Sum e = element(ab / B, ab % B, c, C, L, w);
      REPRO_ADD
    }
#endif
#if REPRO_SCALARS
  acc = Sum{{{re0, im0}, {re1, im1}, {re2, im2}}};
#endif
  return acc;
}

static bool parse_shape(const char* text, int v[5]) {
  v[4] = 512;
  int n = 0, used = 0;
  n = std::sscanf(text, "%d,%d,%d,%d,%d%n", &v[0], &v[1], &v[2], &v[3], &v[4], &used);
  if (n < 5) {
    used = 0;
    v[4] = 512;
    n = std::sscanf(text, "%d,%d,%d,%d%n", &v[0], &v[1], &v[2], &v[3], &used);
    if (n < 4) return false;
  }
  if (text[used] != '\0') return false;
  for (int i = 0; i < 5; ++i)
    if (v[i] < 1 || v[i] > 1 << 20) return false;
  return v[3] <= 1024 && long(v[0]) * v[1] * v[2] <= (1L << 30);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s A,B,C,T[,L] ... (positive integers, T <= 1024)\n", argv[0]);
    return 2;
  }
  std::vector<std::vector<int>> shapes;
  for (int i = 1; i < argc; ++i) {
    int v[5];
    if (!parse_shape(argv[i], v)) {
      std::fprintf(stderr, "bad shape '%s': expected A,B,C,T[,L], positive integers, T <= 1024\n", argv[i]);
      return 2;
    }
    shapes.push_back(std::vector<int>(v, v + 5));
  }
  std::printf("variant: %s, launch_bounds %d, collapse(%d), %d complex (%zu bytes), %s work\n",
              REPRO_SCALARS ? "scalars" : "udr", REPRO_LAUNCH_BOUNDS, REPRO_COLLAPSE, NC, sizeof(Sum),
              REPRO_HEAVY ? "heavy" : "light");
  int failed = 0;
  for (const std::vector<int>& s : shapes) {
    const int A = s[0], B = s[1], C = s[2], T = s[3], L = s[4];
    std::vector<double> w(std::size_t(L) * C);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = double(i * 7 % 13 + 1);  // 1..13: positive, no cancellation
    const Sum got = device_sum(A, B, C, T, L, w.data());
    // The host's sum, in long double, in loop order.
    long double ref[NC][2] = {};
    for (int a = 0; a < A; ++a)
      for (int b = 0; b < B; ++b)
        for (int c = 0; c < C; ++c) {
          const Sum e = element(a, b, c, C, L, w.data());
          for (int i = 0; i < NC; ++i) ref[i][0] += e.v[i].re, ref[i][1] += e.v[i].im;
        }
    bool ok = true;
    double worst = 0.0;
    int worst_i = 0, worst_p = 0;
    for (int i = 0; i < NC; ++i)
      for (int p = 0; p < 2; ++p) {
        const double g = p ? got.v[i].im : got.v[i].re, r = double(ref[i][p]);
        const double err = std::fabs(g - r) / std::fmax(1.0, std::fabs(r));
        // light: integer sums, exact; heavy: rounding of ~A*B*C*L terms.
        const double tol = REPRO_HEAVY ? 1e-9 : 0.0;
        if (!(err <= tol)) ok = false;
        if (!(err <= worst)) worst = err, worst_i = i, worst_p = p;
      }
    const double gw = worst_p ? got.v[worst_i].im : got.v[worst_i].re;
    std::printf("%s shape %d,%d,%d,%d,%d: iterations %ld, worst v[%d].%s = %.6f, expected %.6f (rel. error %.3g)\n",
                ok ? "PASS" : "FAIL", A, B, C, T, L, long(A) * B * C, worst_i, worst_p ? "im" : "re", gw,
                double(ref[worst_i][worst_p]), worst);
    std::fflush(stdout);
    if (!ok) ++failed;
  }
  std::printf("%s: %d of %zu shapes failed\n", failed ? "FAIL" : "PASS", failed, shapes.size());
  return failed ? 1 : 0;
}
