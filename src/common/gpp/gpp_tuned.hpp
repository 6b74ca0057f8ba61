#pragma once
// gpp: one thread's work in target_tuned's form (src/omp_target/gpp_4_tuned.cpp,
// where the step is explained): `Bands` bands at one G'-vector k over a chunk
// of ig rows, the sum over ig of conj(wdiff) / |wdiff|^2 * I_eps per band and
// frequency (add_term_factored), then multiplied by factor(k, n1) once.
// target_tuned, target_multi (gpp_5_multi.cpp) and the CUDA twin native_tuned
// (src/native_cuda/gpp.cu) call it; they differ in how threads are launched
// and how their sums are reduced, not in what a thread computes.
#include "common/gpp/complex.hpp"
#include "common/gpp/gpp_term.hpp"
#include "common/host_device.hpp"

namespace ompref::gpp {

#pragma omp declare target
// One thread's work: bands [n0, n0 + Bands) at k, rows [ig0, ig1); returns its three sums.
template <int Bands>
OMPREF_HOST_DEVICE inline Complex3 tuned_element(int n0, int k, int ig0, int ig1, int nb, int ngpown,
                                                 const Complex* aqsm, const Complex* aqsn, const Complex* ieps,
                                                 const Complex* wtilde, const double* vcoul, const double* e_n1kq,
                                                 const int* inv_igp_index, const int* indinv) {
  double wx[Bands][nfreq];
  Complex sum[Bands][nfreq];
  for (int b = 0; b < Bands; ++b) {
    const int n1 = n0 + b < nb ? n0 + b : nb - 1;  // past the last band: computed, then dropped
    for (int iw = 0; iw < nfreq; ++iw) {
      wx[b][iw] = wx_of(e_n1kq[n1], iw);
      sum[b][iw] = Complex{0.0, 0.0};
    }
  }
  for (int ig = ig0; ig < ig1; ++ig) {
    const Complex w = wtilde[ig * ngpown + k];
    const Complex e = ieps[ig * ngpown + k];
    for (int b = 0; b < Bands; ++b) add_term_factored(wx[b], w, e, sum[b]);
  }
  const int igp = indinv[inv_igp_index[k]];
  const Complex wk = wtilde[igp * ngpown + k];
  Complex3 loc = complex3_zero();
  for (int b = 0; b < Bands; ++b) {
    if (n0 + b >= nb) break;
    const int n1 = n0 + b;
    const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wk);
    for (int iw = 0; iw < nfreq; ++iw) loc.v[iw] += sum[b][iw] * factor;
  }
  return loc;
}
#pragma omp end declare target

}  // namespace ompref::gpp
