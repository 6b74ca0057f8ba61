// stream on the device: BabelStream's five kernels (copy, mul, add, triad,
// dot) as `target teams distribute parallel for simd` loops, in one file with
// no framework. The port of stream_host.cpp:
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
#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// `present` (OpenMP 5.1) makes a kernel fail, instead of silently copying,
// when its data is not on the device. clang 19 accepts it; g++-12 rejects the
// modifier, so there the kernels say `alloc` alone (which also moves nothing
// for data already present).
#if defined(__clang__)
#define PRESENT present,
#else
#define PRESENT
#endif

namespace {

constexpr double scalar = 0.4;

// n and reps from the command line: positive integers, or exit 2.
bool parse_positive(const char* text, long& value) {
  char* end = nullptr;
  value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value > 0 && value <= 1L << 30;
}

// The value every element of a, b, c holds after `reps` repetitions, and the
// dot of the last one: the kernels replayed on three scalars.
void expected(long n, long reps, double& a, double& b, double& c, double& dot) {
  a = 0.1, b = 0.2, c = 0.0;
  for (long r = 0; r < reps; ++r) {
    c = a;
    b = scalar * c;
    c = a + b;
    a = b + scalar * c;
  }
  dot = a * b * double(n);
}

}  // namespace

int main(int argc, char** argv) {
  long n = 1 << 24, reps = 10;
  if (argc > 3 || (argc > 1 && !parse_positive(argv[1], n)) || (argc > 2 && !parse_positive(argv[2], reps))) {
    std::fprintf(stderr, "usage: %s [n] [reps], each in 1..2^30\n", argv[0]);
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

  const char* names[5] = {"copy", "mul", "add", "triad", "dot"};
  const double bytes[5] = {2.0 * 8 * n, 2.0 * 8 * n, 3.0 * 8 * n, 3.0 * 8 * n, 2.0 * 8 * n};
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
  for (int k = 0; k < 5; ++k) std::printf("  %-5s %10.6f s  %8.1f GB/s\n", names[k], best[k], bytes[k] / best[k] * 1e-9);

  double ea, eb, ec, edot;
  expected(n, reps, ea, eb, ec, edot);
  long wrong = 0;
  for (long i = 0; i < n; ++i) {
    const double err = std::max({std::fabs(a[i] - ea) / ea, std::fabs(b[i] - eb) / eb, std::fabs(c[i] - ec) / ec});
    if (!(err <= 1e-13)) ++wrong;  // a NaN counts as wrong
  }
  const bool dot_ok = std::fabs(sum - edot) <= 1e-8 * std::fabs(edot);
  if (wrong != 0 || !dot_ok) {
    std::printf("FAIL: %ld wrong elements, dot %.17g (expected %.17g)\n", wrong, sum, edot);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
