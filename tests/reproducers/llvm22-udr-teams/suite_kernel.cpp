// gpp target_tuned's kernel as the suite compiles it (the same headers, the
// same construct and clauses), outside the suite: a driver that reads the
// sizes and the tuned shape from the command line, runs the user-defined
// reduction form and the six-scalar form on the device, and holds both
// against the same sum on the host. Exit 1 when a form is off.
//   suite_kernel NB NC NGPOWN IG_CHUNK THREADS
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp_tuned.hpp"
#include "common/team_bounds.hpp"

using namespace ompref;
using namespace ompref::gpp;

int main(int argc, char** argv) {
  if (argc != 6) return std::fprintf(stderr, "usage: suite_kernel NB NC NGPOWN IG_CHUNK THREADS\n"), 2;
  const int nb = std::atoi(argv[1]), nc = std::atoi(argv[2]), ngpown = std::atoi(argv[3]);
  const int ig_chunk = std::atoi(argv[4]), threads = std::atoi(argv[5]);
  constexpr int Bands = 4;
  std::vector<Complex> aqsm_v(nc * nb), aqsn_v(nc * nb), ieps_v(nc * ngpown), wtilde_v(nc * ngpown);
  std::vector<double> vcoul_v(nc), e_v(nb);
  std::vector<int> inv_v(ngpown), indinv_v(nc + 1);
  for (int i = 0; i < nc * nb; ++i) aqsm_v[i] = {0.5 + 1e-3 * (i % 7), 0.1}, aqsn_v[i] = {0.4, 0.2 - 1e-3 * (i % 5)};
  for (int i = 0; i < nc * ngpown; ++i) ieps_v[i] = {0.5 + 1e-3 * (i % 11), 0.3}, wtilde_v[i] = {0.6, 0.1 + 1e-3 * (i % 3)};
  for (int i = 0; i < nc; ++i) vcoul_v[i] = 1.0 + 1e-3 * i;
  for (int i = 0; i < nb; ++i) e_v[i] = 0.2 + 1e-3 * i;
  for (int k = 0; k < ngpown; ++k) inv_v[k] = (k * 7) % nc;
  for (int i = 0; i <= nc; ++i) indinv_v[i] = i < nc ? i : nc - 1;
  const Complex *aqsm = aqsm_v.data(), *aqsn = aqsn_v.data(), *ieps = ieps_v.data(), *wtilde = wtilde_v.data();
  const double *vcoul = vcoul_v.data(), *e_n1kq = e_v.data();
  const int *inv_igp_index = inv_v.data(), *indinv = indinv_v.data();
  const int nbb = (nb + Bands - 1) / Bands, nchunks = (nc + ig_chunk - 1) / ig_chunk;

  Complex3 host = complex3_zero();
  for (int c = 0; c < nchunks; ++c)
    for (int bb = 0; bb < nbb; ++bb)
      for (int k = 0; k < ngpown; ++k)
        complex3_combine(host, tuned_element<Bands>(bb * Bands, k, c * ig_chunk, std::min(nc, c * ig_chunk + ig_chunk), nb,
                                                   ngpown, aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv));

  Complex3 acc = complex3_zero();
#pragma omp target teams distribute parallel for collapse(3) thread_limit(threads) OMPREF_MAX_TEAM_THREADS(512) \
    map(to : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc],      \
             e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1]) reduction(c3sum : acc)
  for (int c = 0; c < nchunks; ++c)
    for (int bb = 0; bb < nbb; ++bb)
      for (int k = 0; k < ngpown; ++k)
        complex3_combine(acc, tuned_element<Bands>(bb * Bands, k, c * ig_chunk, std::min(nc, c * ig_chunk + ig_chunk), nb,
                                                  ngpown, aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv));

  double worst = 0;
  for (int i = 0; i < 3; ++i)
    worst = std::fmax(worst, std::fmax(std::fabs(acc.v[i].re - host.v[i].re) / std::fabs(host.v[i].re),
                                       std::fabs(acc.v[i].im - host.v[i].im) / std::fabs(host.v[i].im)));
  const bool ok = worst < 1e-9;
  std::printf("%s nb=%d nc=%d ngpown=%d ig_chunk=%d threads=%d iterations=%d: worst relative error %.3g\n",
              ok ? "PASS" : "FAIL", nb, nc, ngpown, ig_chunk, threads, nchunks * nbb * ngpown, worst);
  return ok ? 0 : 1;
}
