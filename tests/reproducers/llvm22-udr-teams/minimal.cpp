// The smallest form found of gpp target_tuned's failure under clang-22
// (ahead of time, sm_90): a collapse(3) loop with a user-defined reduction
// over a struct, whose innermost body sums a row range [c*chunk, min(n, c*chunk+chunk)).
// A chunk larger than n gives the same iterations and sums as chunk == n,
// yet only chunk == n is right on the device.
//   minimal NB N NG CHUNK    exit 0 PASS, 1 FAIL
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Sum6 { double v[6]; };
#pragma omp declare target
inline void add6(Sum6& o, const Sum6& i) { for (int j = 0; j < 6; ++j) o.v[j] += i.v[j]; }
inline void zero6(Sum6& o) { for (int j = 0; j < 6; ++j) o.v[j] = 0; }
inline Sum6 element(int c, int bb, int k, int nb, int n, int ng, int chunk, const double* w, const int* idx) {
  double s[4] = {0, 0, 0, 0};
  for (int ig = c * chunk; ig < std::min(n, c * chunk + chunk); ++ig)
    for (int b = 0; b < 4; ++b) s[b] += w[ig * ng + k] * (b + 1);
  Sum6 loc; zero6(loc);
  const int j = idx[k];
  for (int b = 0; b < 4; ++b) if (bb * 4 + b < nb) loc.v[b] += s[b] * w[j * ng + k];
  return loc;
}
#pragma omp end declare target
#pragma omp declare reduction(sum6 : Sum6 : add6(omp_out, omp_in)) initializer(zero6(omp_priv))

int main(int argc, char** argv) {
  if (argc != 5) return std::fprintf(stderr, "usage: minimal NB N NG CHUNK\n"), 2;
  const int nb = std::atoi(argv[1]), n = std::atoi(argv[2]), ng = std::atoi(argv[3]), chunk = std::atoi(argv[4]);
  std::vector<double> wv(n * ng); std::vector<int> iv(ng);
  for (int i = 0; i < n * ng; ++i) wv[i] = 1 + i % 7;
  for (int k = 0; k < ng; ++k) iv[k] = (7 * k) % n;
  const double* w = wv.data(); const int* idx = iv.data();
  const int nbb = (nb + 3) / 4, nchunks = (n + chunk - 1) / chunk;
  Sum6 host, dev; zero6(host); zero6(dev);
  for (int c = 0; c < nchunks; ++c) for (int bb = 0; bb < nbb; ++bb) for (int k = 0; k < ng; ++k)
    add6(host, element(c, bb, k, nb, n, ng, chunk, w, idx));
#pragma omp target teams distribute parallel for collapse(3) thread_limit(512) map(to : w[0:n * ng], idx[0:ng]) reduction(sum6 : dev)
  for (int c = 0; c < nchunks; ++c) for (int bb = 0; bb < nbb; ++bb) for (int k = 0; k < ng; ++k)
    add6(dev, element(c, bb, k, nb, n, ng, chunk, w, idx));
  double worst = 0;
  for (int j = 0; j < 4; ++j) worst = std::fmax(worst, std::fabs(dev.v[j] - host.v[j]) / std::fabs(host.v[j]));
  std::printf("%s nb=%d n=%d ng=%d chunk=%d: worst relative error %.3g\n", worst < 1e-12 ? "PASS" : "FAIL", nb, n, ng, chunk, worst);
  return worst < 1e-12 ? 0 : 1;
}
