// A GPP-like sum on the device, step 2: one user-defined reduction. The same
// synthetic kernel as step 1 (gpp_1_port.cpp), in one file with no framework:
//
//   acc[iw] = sum over k, n, g of  factor(k, n) * eps[g][k] / (w(n, iw) - wt[g][k]),  iw = 0, 1, 2
//
// complex throughout. What changes from step 1
// (`diff examples/gpp_1_port.cpp examples/gpp_2_udr.cpp`): the six real
// scalars become one Complex3, reduced by `reduction(c3sum : acc)`, the
// `declare reduction` below: how to combine two partial sums (omp_out, omp_in)
// and what each thread's private copy starts from (omp_priv).
//
// The inputs enter the device for the whole computation in a `target data`
// region; the kernel finds them there (`map(present, alloc: ...)`).
//
//   NVIDIA, clang 19:  clang++-19 -O3 -fopenmp --offload-arch=sm_90 --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib -Wl,-rpath,/usr/lib/llvm-19/lib examples/gpp_2_udr.cpp -o gpp_2_udr
//   the host only:     g++ -O3 -fopenmp -foffload=disable examples/gpp_2_udr.cpp -o gpp_2_udr
//   then:              OMP_TARGET_OFFLOAD=MANDATORY ./gpp_2_udr [nk nb ng]
//
// Checks the three sums against a serial host loop: exit 0 when right, 1 when
// wrong, 2 on bad arguments or when OMP_TARGET_OFFLOAD=MANDATORY finds no device.
#include <omp.h>
#include <strings.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

// `present` (OpenMP 5.1): clang 19 accepts it, g++-12 rejects the modifier
// (examples/stream_target.cpp says more).
#if defined(__clang__)
#define PRESENT present,
#else
#define PRESENT
#endif

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
inline void c3_combine(Complex3& out, const Complex3& in) {
  for (int i = 0; i < 3; ++i) out.v[i] = cadd(out.v[i], in.v[i]);
}
#pragma omp end declare target

// `reduction(c3sum : x)` over a Complex3: partial sums added part by part,
// every private copy starting from zero.
#pragma omp declare reduction(c3sum : Complex3 : c3_combine(omp_out, omp_in)) initializer(omp_priv = Complex3{})

namespace {

bool parse_positive(const char* text, int& value) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0 || v > 1 << 20) return false;
  value = int(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int nk = 128, nb = 256, ng = 512;
  if (!(argc == 1 || argc == 4) ||
      (argc == 4 && !(parse_positive(argv[1], nk) && parse_positive(argv[2], nb) && parse_positive(argv[3], ng))) ||
      long(nk) * nb > 1L << 30 || long(ng) * nk > 1L << 30) {
    std::fprintf(stderr, "usage: %s [nk nb ng], each in 1..1048576, nk*nb and ng*nk at most 2^30\n", argv[0]);
    return 2;
  }
  // Under OMP_TARGET_OFFLOAD=MANDATORY a machine without a device is an error,
  // said here in one line before any target construct (the runtime would stop
  // the program at the first one, and some runtimes crash doing so).
  const char* policy = std::getenv("OMP_TARGET_OFFLOAD");
  if (policy && strcasecmp(policy, "MANDATORY") == 0 && omp_get_num_devices() == 0) {
    std::fprintf(stderr, "%s: OMP_TARGET_OFFLOAD=MANDATORY but no offload device is available\n", argv[0]);
    return 2;
  }
  // Inputs from a fixed pseudo-random sequence. wt has an imaginary part in [0.5, 1): no denominator is zero.
  std::mt19937_64 gen(12345);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Complex> va(std::size_t(nk) * nb), veps(std::size_t(ng) * nk), vwt(std::size_t(ng) * nk);
  std::vector<double> ve(nb), vv(nk);
  for (auto& z : va) z = {u(gen) - 0.5, u(gen) - 0.5};
  for (auto& z : veps) z = {u(gen), u(gen) - 0.5};
  for (auto& z : vwt) z = {2.0 * u(gen), 0.5 + 0.5 * u(gen)};
  for (auto& x : ve) x = 2.0 * u(gen);
  for (auto& x : vv) x = 1.0 / (1.0 + u(gen));
  const Complex* a = va.data();
  const Complex* eps = veps.data();
  const Complex* wt = vwt.data();
  const double* e = ve.data();
  const double* v = vv.data();

  Complex3 acc = {};
  int on_host = 1;
  double seconds = 0;
#pragma omp target data map(to : a[0:nk * nb], eps[0:ng * nk], wt[0:ng * nk], e[0:nb], v[0:nk])
  {
#pragma omp target map(from : on_host)
    on_host = omp_is_initial_device();

    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for collapse(2)                                                   \
    map(PRESENT alloc : a[0:nk * nb], eps[0:ng * nk], wt[0:ng * nk], e[0:nb], v[0:nk])                         \
    map(tofrom : acc) reduction(c3sum : acc)
    for (int k = 0; k < nk; ++k) {
      for (int n = 0; n < nb; ++n) {
        const Complex factor = factor_of(a[k * nb + n], v[k]);
        Complex3 loc = {};
        for (int g = 0; g < ng; ++g) {
          for (int iw = 0; iw < 3; ++iw) {
            loc.v[iw] = cadd(loc.v[iw], term_of(factor, eps[g * nk + k], w_of(e[n], iw), wt[g * nk + k]));
          }
        }
        c3_combine(acc, loc);
      }
    }
    seconds = omp_get_wtime() - t0;
  }

  // The reference: the same terms summed serially on the host, with the sum of
  // their magnitudes, which scales the tolerance (the summation orders differ).
  Complex3 ref = {};
  double scale[3] = {0, 0, 0};
  for (int k = 0; k < nk; ++k) {
    for (int n = 0; n < nb; ++n) {
      for (int g = 0; g < ng; ++g) {
        for (int iw = 0; iw < 3; ++iw) {
          const Complex t = term_of(factor_of(a[k * nb + n], v[k]), eps[g * nk + k], w_of(e[n], iw), wt[g * nk + k]);
          ref.v[iw] = cadd(ref.v[iw], t);
          scale[iw] += cabs(t);
        }
      }
    }
  }
  std::printf("GPP-like sum, step 2 (declare reduction) on %s: nk = %d, nb = %d, ng = %d, %.4f s\n",
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
