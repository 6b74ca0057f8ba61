// gpp on the host: the BerkeleyGW GPP mini-app's loop as the GPU hackathon
// report's baseline runs it. Its offload port is src/omp_target/gpp.cpp: the same
// program, differing only in directives, the device argument and the data
// mapping (`diff src/omp_host/gpp.cpp src/omp_target/gpp.cpp`). The tiled
// host baseline is the next step, src/omp_host/gpp_tiled.cpp.
#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {

// Host data needs no mapping: reset() wrote the inputs.

namespace {

// mirror: begin
// The baseline loop order: band outermost in parallel, then ig, then k
// innermost. I_eps and wtilde at [ig][k] are read in order, but factor(k, n1)
// is recomputed for every term from aqsmtemp[igp][n1], aqsntemp[igp][n1] and
// wtilde_array[igp][k]: igp jumps ncouls/ngpown rows per k (strided access).
// Six real reductions, as in the mini-app. (The run context, unnamed, is
// the target port's: it reads the device number from it.)
void host_naive(GppInstance& s, RunContext&) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();

  double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : re0, im0, re1, im1, re2, im2)
  for (int n1 = 0; n1 < nb; ++n1) {
    double wx[nfreq];
    for (int iw = 0; iw < nfreq; ++iw) wx[iw] = wx_of(e_n1kq[n1], iw);
    Complex3 band = complex3_zero();  // this band's sum, then added to the totals
    for (int ig = 0; ig < nc; ++ig) {
      for (int k = 0; k < ngpown; ++k) {
        const int igp = indinv[inv_igp_index[k]];
        const Complex factor = factor_of(aqsm[igp * nb + n1], aqsn[igp * nb + n1], vcoul[igp], wtilde[igp * ngpown + k]);
        add_term(wx, wtilde[ig * ngpown + k], ieps[ig * ngpown + k], factor, band);
      }
    }
    re0 += band.v[0].re, im0 += band.v[0].im;
    re1 += band.v[1].re, im1 += band.v[1].im;
    re2 += band.v[2].re, im2 += band.v[2].im;
  }
  s.achtemp = Complex3{{{re0, im0}, {re1, im1}, {re2, im2}}};
}
// mirror: end

const Registration host_naive_registration{host_variant(
    "gpp", "host_naive",
    "the hackathon report's baseline: band loop outermost in parallel, k innermost, factor recomputed per "
    "term from strided rows",
    host_naive)
        .uses({"parallel for", "reduction", "schedule"})};

}  // namespace
}  // namespace ompref::gpp
