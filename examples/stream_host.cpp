// stream on the host: BabelStream's five kernels (copy, mul, add, triad, dot)
// as `parallel for simd` loops, in one file with no framework (what the pair
// does around its kernels, the arguments, the report and the check, is
// stream_example.hpp's). Its offload twin is stream_target.cpp:
// `diff examples/stream_host.cpp examples/stream_target.cpp` shows what
// offloading changes.
//
//   g++ -O3 -fopenmp examples/stream_host.cpp -o stream_host && ./stream_host [n] [reps]
//
// Prints the best time of each kernel and its bandwidth; checks every element
// and the dot against the same recurrence replayed on scalars: exit 0 when
// right, 1 when wrong, 2 on bad arguments.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "stream_example.hpp"

using example::scalar;

int main(int argc, char** argv) {
  long n = 1 << 24, reps = 10;
  if (!example::stream_arguments(argc, argv, n, reps)) return 2;
  std::vector<double> va(n), vb(n), vc(n);
  double* a = va.data();
  double* b = vb.data();
  double* c = vc.data();

  // First touch in parallel with the kernels' schedule: each page lands on
  // the socket of the thread that will use it.
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 0.1;
    b[i] = 0.2;
    c[i] = 0.0;
  }

  double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
  double sum = 0;
  for (long r = 0; r < reps; ++r) {
    double t0 = omp_get_wtime();
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) c[i] = a[i];
    double t1 = omp_get_wtime();
    best[0] = std::min(best[0], t1 - t0);

#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) b[i] = scalar * c[i];
    t0 = omp_get_wtime();
    best[1] = std::min(best[1], t0 - t1);

#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) c[i] = a[i] + b[i];
    t1 = omp_get_wtime();
    best[2] = std::min(best[2], t1 - t0);

#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    t0 = omp_get_wtime();
    best[3] = std::min(best[3], t0 - t1);

    sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
    for (long i = 0; i < n; ++i) sum += a[i] * b[i];
    t1 = omp_get_wtime();
    best[4] = std::min(best[4], t1 - t0);
  }

  std::printf("stream on the host: n = %ld, %ld repetitions, %d threads\n", n, reps, omp_get_max_threads());
  example::print_best(n, best);

  return example::check(n, reps, a, b, c, sum);
}
