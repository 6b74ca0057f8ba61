// Two host threads, each a synchronous target reduction on device 0 over half the data.
#include <cstdio>
#include <vector>
#include <omp.h>
int main() {
  const long n = 1L << 26;
  std::vector<double> a(n);
  for (long i = 0; i < n; ++i) a[i] = double(i % 1000) * 0.5;
  double* p = a.data();
  double ref = 0;
  for (long i = 0; i < n; ++i) ref += p[i];
#pragma omp target enter data map(to : p[0:n]) device(0)
  int bad = 0;
  for (int it = 0; it < 200; ++it) {
    double sums[3] = {0, 0, 0};
    const int nt = 2 + it % 2;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; ++t) {
      const long lo = n * t / nt, hi = n * (t + 1) / nt;
      double s = 0;
#pragma omp target teams distribute parallel for device(0) map(alloc : p[lo:hi - lo]) reduction(+ : s)
      for (long i = lo; i < hi; ++i) s += p[i];
      sums[t] = s;
    }
    const double tot = sums[0] + sums[1] + sums[2];
    if (tot != ref) ++bad;
  }
  printf("threads x synchronous targets on device 0: %d of 200 wrong, on device: %d\n", bad,
         omp_get_num_devices());
  return bad ? 1 : 0;
}
