// A GPP-like sum on the device, step 2: one user-defined reduction. The same
// synthetic kernel as step 1 (gpp_1_port.cpp), in one file with no framework
// (the arithmetic, the inputs and the check are gpp_example.hpp's):
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

#include "gpp_example.hpp"

#pragma omp declare target
inline void c3_combine(Complex3& out, const Complex3& in) {
  for (int i = 0; i < 3; ++i) out.v[i] = cadd(out.v[i], in.v[i]);
}
#pragma omp end declare target

// `reduction(c3sum : x)` over a Complex3: partial sums added part by part,
// every private copy starting from zero.
#pragma omp declare reduction(c3sum : Complex3 : c3_combine(omp_out, omp_in)) initializer(omp_priv = Complex3{})

int main(int argc, char** argv) {
  int nk = 128, nb = 256, ng = 512;
  if (!example::gpp_arguments(argc, argv, nk, nb, ng)) return 2;
  // No device under OMP_TARGET_OFFLOAD=MANDATORY: one line, before any target construct.
  if (example::mandatory_without_device(argv[0])) return 2;
  const example::GppInputs in(nk, nb, ng);
  const Complex *a = in.a.data(), *eps = in.eps.data(), *wt = in.wt.data();
  const double *e = in.e.data(), *v = in.v.data();

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

  return example::check("step 2 (declare reduction)", on_host, nk, nb, ng, seconds, in, acc);
}
