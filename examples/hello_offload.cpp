// hello offload: one target region that runs a loop on the device, and what
// "the device has its own memory" means, in one file with no framework.
//
//   the host only:       g++ -O2 -fopenmp -foffload=disable examples/hello_offload.cpp -o hello_offload
//   a virtual device:    clang++-19 -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu examples/hello_offload.cpp -o hello_offload
//   NVIDIA, clang 19:    clang++-19 -O2 -fopenmp --offload-arch=sm_90 --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib examples/hello_offload.cpp -o hello_offload
//   (clang: add -L/usr/lib/llvm-19/lib -Wl,-rpath,/usr/lib/llvm-19/lib, where libomp lives)
//   then:                OMP_TARGET_OFFLOAD=MANDATORY ./hello_offload [n]
//
// The virtual device is the host CPU driven through the offload runtime, with
// memory of its own: a map that is missing or goes the wrong way gives a wrong
// answer there, as on a GPU. Exit 0 when the answer is right, 1 when wrong,
// 2 on bad arguments or when OMP_TARGET_OFFLOAD=MANDATORY finds no device.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "example.hpp"

int main(int argc, char** argv) {
  long n = 1000000;
  if (argc > 2 || (argc == 2 && !((n = std::strtol(argv[1], nullptr, 10)) > 0 && n <= 1L << 28))) {
    std::fprintf(stderr, "usage: %s [n], n in 1..2^28\n", argv[0]);
    return 2;
  }
  // No device under OMP_TARGET_OFFLOAD=MANDATORY: one line, before any target
  // construct (example.hpp).
  if (example::mandatory_without_device(argv[0])) return 2;

  std::vector<double> x(n, 1.0);
  double* p = x.data();
  double sum = 0;
  // The loop runs on the device: `map(tofrom: x)` copies x there and back,
  // `reduction(+: sum)` combines the threads' partial sums, and `map(tofrom:
  // sum)` brings the total back (a scalar is firstprivate in a target region
  // unless it is mapped: the host would never see the sum).
#pragma omp target teams distribute parallel for map(tofrom : p[0:n]) map(tofrom : sum) reduction(+ : sum)
  for (long i = 0; i < n; ++i) {
    p[i] = 2.0 * p[i];
    sum += p[i];
  }
  // Where target regions run: the device, or the host when there is none.
  int on_host = 1;
#pragma omp target map(from : on_host)
  on_host = omp_is_initial_device();

  // Separate memory: `map(to:)` copies the value in and never back, so the
  // device's write is lost to the host. On the host fallback the "device
  // copy" is the host variable itself, and the write shows.
  double flag = 1.0;
#pragma omp target map(to : flag)
  flag = 2.0;

  std::printf("hello offload: %s, %d device(s); sum = %.1f (expected %.1f)\n",
              on_host ? "on the host (fallback)" : "on the device", omp_get_num_devices(), sum, 2.0 * n);
  std::printf("after map(to: flag) and a write on the device, the host sees flag = %.0f (%s)\n", flag,
              flag == 1.0 ? "the device has its own memory" : "host and device memory are one");
  const bool right = sum == 2.0 * n && x[n - 1] == 2.0 && (flag == 1.0) == !on_host;
  std::printf("%s\n", right ? "PASS" : "FAIL");
  return right ? 0 : 1;
}
