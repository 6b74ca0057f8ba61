#pragma once
// gpp: one thread's work in target_basic's form (src/omp_target/gpp_1_basic.cpp,
// where the step is explained): band n1 at one G'-vector k, the sum over
// every ig row of its terms, factor(k, n1) recomputed for every term as the
// mini-app writes it. target_basic, target_udr (gpp_2_udr.cpp) and
// target_ranks (src/mpi/gpp_ranks.cpp) call it; they differ in how their
// sums are reduced and which bands a rank takes, not in what a thread computes.
#include "common/gpp/complex.hpp"
#include "common/gpp/gpp_term.hpp"

namespace ompref::gpp {

#pragma omp declare target
// One thread's work: band n1 at k over the nc rows; returns its three sums.
inline Complex3 basic_element(int k, int n1, int nb, int nc, int ngpown, const Complex* aqsm, const Complex* aqsn,
                              const Complex* ieps, const Complex* wtilde, const double* vcoul, const double* e_n1kq,
                              const int* inv_igp_index, const int* indinv) {
  const int igp = indinv[inv_igp_index[k]];
  double wx[nfreq];
  for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
  Complex3 loc = complex3_zero();
  for (int ig = 0; ig < nc; ++ig) {
    const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
    add_term(wx, wtilde[ig * ngpown + k], ieps[ig * ngpown + k], factor, loc);
  }
  return loc;
}
#pragma omp end declare target

}  // namespace ompref::gpp
