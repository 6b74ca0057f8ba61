// stream on the device: BabelStream's five kernels (copy, mul, add, triad,
// dot) as `target teams distribute parallel for simd` loops, in one file with
// no framework (what the pair does around its kernels, the arguments, the
// report and the check, is stream_example.hpp's). The port of stream_host.cpp:
// `diff examples/stream_host.cpp examples/stream_target.cpp` shows what
// offloading changes: the arrays enter the device once (`target enter data`),
// every kernel finds them there (`map(present, alloc: ...)`: no transfer, and
// an error if they were not), only the dot's sum travels, and the results
// come back once at the end (`target exit data`).
//
//   NVIDIA, clang 19:  clang++-19 -O3 -fopenmp --offload-arch=sm_90 --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib -Wl,-rpath,/usr/lib/llvm-19/lib examples/stream_target.cpp -o stream_target
//   the host only:     g++ -O3 -fopenmp -foffload=disable examples/stream_target.cpp -o stream_target
//   then:              OMP_TARGET_OFFLOAD=MANDATORY ./stream_target [n] [reps]
//
// Prints where the kernels ran, the best time of each and its bandwidth;
// checks every element and the dot against the same recurrence replayed on
// scalars: exit 0 when right, 1 when wrong, 2 on bad arguments or when
// OMP_TARGET_OFFLOAD=MANDATORY finds no device.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "stream_example.hpp"

using example::scalar;

int main(int argc, char** argv) {
  long n = 1 << 24, reps = 10;
  if (!example::stream_arguments(argc, argv, n, reps)) return 2;
  // No device under OMP_TARGET_OFFLOAD=MANDATORY: one line, before any target construct.
  if (example::mandatory_without_device(argv[0])) return 2;
  std::vector<double> va(n), vb(n), vc(n);
  double* a = va.data();
  double* b = vb.data();
  double* c = vc.data();

  // Initialised on the host, then copied to the device once, outside the timing.
  for (long i = 0; i < n; ++i) {
    a[i] = 0.1;
    b[i] = 0.2;
    c[i] = 0.0;
  }
#pragma omp target enter data map(to : a[0:n], b[0:n], c[0:n])

  // Where the target regions run: the device, or the host when there is none
  // (unless OMP_TARGET_OFFLOAD=MANDATORY, which makes that an error).
  int on_host = 1;
#pragma omp target map(from : on_host)
  on_host = omp_is_initial_device();

  double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
  double sum = 0;
  for (long r = 0; r < reps; ++r) {
    double t0 = omp_get_wtime();
#pragma omp target teams distribute parallel for simd map(PRESENT alloc : a[0:n], c[0:n])
    for (long i = 0; i < n; ++i) c[i] = a[i];
    double t1 = omp_get_wtime();
    best[0] = std::min(best[0], t1 - t0);

#pragma omp target teams distribute parallel for simd map(PRESENT alloc : b[0:n], c[0:n])
    for (long i = 0; i < n; ++i) b[i] = scalar * c[i];
    t0 = omp_get_wtime();
    best[1] = std::min(best[1], t0 - t1);

#pragma omp target teams distribute parallel for simd map(PRESENT alloc : a[0:n], b[0:n], c[0:n])
    for (long i = 0; i < n; ++i) c[i] = a[i] + b[i];
    t1 = omp_get_wtime();
    best[2] = std::min(best[2], t1 - t0);

#pragma omp target teams distribute parallel for simd map(PRESENT alloc : a[0:n], b[0:n], c[0:n])
    for (long i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    t0 = omp_get_wtime();
    best[3] = std::min(best[3], t0 - t1);

    sum = 0;
#pragma omp target teams distribute parallel for simd map(PRESENT alloc : a[0:n], b[0:n]) \
    map(tofrom : sum) reduction(+ : sum)
    for (long i = 0; i < n; ++i) sum += a[i] * b[i];
    t1 = omp_get_wtime();
    best[4] = std::min(best[4], t1 - t0);
  }

  // The results come back once, and the device copies are freed.
#pragma omp target exit data map(from : a[0:n], b[0:n], c[0:n])

  std::printf("stream on %s: n = %ld, %ld repetitions\n", on_host ? "the host (fallback)" : "the device", n, reps);
  example::print_best(n, best);

  return example::check(n, reps, a, b, c, sum);
}
