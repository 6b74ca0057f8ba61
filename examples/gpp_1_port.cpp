// A GPP-like sum on the device, step 1: the first port. A small synthetic
// kernel shaped like BerkeleyGW's GPP self-energy sum (the suite's `gpp`
// workload, docs/gpp.md), in one file with no framework (the arithmetic, the
// inputs and the check, which the steps share, are gpp_example.hpp's):
//
//   acc[iw] = sum over k, n, g of  factor(k, n) * eps[g][k] / (w(n, iw) - wt[g][k]),  iw = 0, 1, 2
//
// complex throughout. Threads go over (k, n), collapsed; each sums its g loop.
// The three complex sums leave the device as six real scalars, each with its
// own `reduction(+ : ...)`: step 2 (gpp_2_udr.cpp) reduces one struct instead,
// `diff examples/gpp_1_port.cpp examples/gpp_2_udr.cpp`.
//
// The inputs enter the device for the whole computation in a `target data`
// region; the kernel finds them there (`map(present, alloc: ...)`).
//
//   NVIDIA, clang 19:  clang++-19 -O3 -fopenmp --offload-arch=sm_90 --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib -Wl,-rpath,/usr/lib/llvm-19/lib examples/gpp_1_port.cpp -o gpp_1_port
//   the host only:     g++ -O3 -fopenmp -foffload=disable examples/gpp_1_port.cpp -o gpp_1_port
//   then:              OMP_TARGET_OFFLOAD=MANDATORY ./gpp_1_port [nk nb ng]
//
// Checks the three sums against a serial host loop: exit 0 when right, 1 when
// wrong, 2 on bad arguments or when OMP_TARGET_OFFLOAD=MANDATORY finds no device.
#include <omp.h>

#include "gpp_example.hpp"

int main(int argc, char** argv) {
  int nk = 128, nb = 256, ng = 512;
  if (!example::gpp_arguments(argc, argv, nk, nb, ng)) return 2;
  // No device under OMP_TARGET_OFFLOAD=MANDATORY: one line, before any target construct.
  if (example::mandatory_without_device(argv[0])) return 2;
  const example::GppInputs in(nk, nb, ng);
  const Complex *a = in.a.data(), *eps = in.eps.data(), *wt = in.wt.data();
  const double *e = in.e.data(), *v = in.v.data();

  double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
  int on_host = 1;
  double seconds = 0;
#pragma omp target data map(to : a[0:nk * nb], eps[0:ng * nk], wt[0:ng * nk], e[0:nb], v[0:nk])
  {
#pragma omp target map(from : on_host)
    on_host = omp_is_initial_device();

    const double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for collapse(2)                                                   \
    map(PRESENT alloc : a[0:nk * nb], eps[0:ng * nk], wt[0:ng * nk], e[0:nb], v[0:nk])                         \
    map(tofrom : re0, im0, re1, im1, re2, im2) reduction(+ : re0, im0, re1, im1, re2, im2)
    for (int k = 0; k < nk; ++k) {
      for (int n = 0; n < nb; ++n) {
        const Complex factor = factor_of(a[k * nb + n], v[k]);
        Complex3 loc = {};
        for (int g = 0; g < ng; ++g) {
          for (int iw = 0; iw < 3; ++iw) {
            loc.v[iw] = cadd(loc.v[iw], term_of(factor, eps[g * nk + k], w_of(e[n], iw), wt[g * nk + k]));
          }
        }
        re0 += loc.v[0].re, im0 += loc.v[0].im;
        re1 += loc.v[1].re, im1 += loc.v[1].im;
        re2 += loc.v[2].re, im2 += loc.v[2].im;
      }
    }
    seconds = omp_get_wtime() - t0;
  }
  const Complex3 acc = {{{re0, im0}, {re1, im1}, {re2, im2}}};

  return example::check("step 1 (six real reductions)", on_host, nk, nb, ng, seconds, in, acc);
}
