// stream's tuned copy kernel alone (src/omp_target/stream_tuned.cpp: a
// combined construct with num_teams and thread_limit, one element per
// iteration): tests/device_code_check.sh compiles it per file and with device
// LTO and reads what each mode leaves in the kernel's PTX.
#include <cstddef>
#include <cstdio>
#include <vector>

#ifndef COPY_LOG2_N
#define COPY_LOG2_N 20  // 2^28 (stream's large size) for a measurement with ncu on a GPU
#endif

int main() {
  const std::size_t n = std::size_t(1) << COPY_LOG2_N;
  const int threads = 128;
  const int teams = int(n / threads);
  std::vector<double> av(n, 1.0), cv(n, 0.0);
  double* a = av.data();
  double* c = cv.data();
#pragma omp target teams distribute parallel for simd map(to : a[0:n]) map(from : c[0:n]) num_teams(teams) \
    thread_limit(threads)
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  std::printf("%g\n", c[n - 1]);
  return c[n - 1] == 1.0 ? 0 : 1;
}
