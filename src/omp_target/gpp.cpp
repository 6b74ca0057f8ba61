// gpp on the device: the literal port of src/omp_host/gpp.cpp, the same
// program differing only in directives, the device argument and the data
// mapping (`diff src/omp_host/gpp.cpp src/omp_target/gpp.cpp`). The steps of
// the offload that follow it (the GPU hackathon report's, in OpenMP) are
// src/omp_target/gpp_1_basic.cpp .. gpp_5_multi.cpp, each a diff against the
// one before.
#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/gpp/gpp_data.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {

// The inputs go to the device once, before timing (the runner enters this
// declaration); the kernels name them with map(alloc:), which finds them
// present and moves nothing. achtemp comes back through the reductions.
// target_naive, target_basic, target_udr and target_tuned read these arrays.
DeviceData device_data(GppInstance& s) {
  return DeviceData()
      .in(s.aqsmtemp)
      .in(s.aqsntemp)
      .in(s.I_eps_array)
      .in(s.wtilde_array)
      .in(s.vcoul)
      .in(s.e_n1kq)
      .in(s.inv_igp_index)
      .in(s.indinv);
}

namespace {

// mirror: begin
// The baseline loop order: band outermost in parallel, then ig, then k
// innermost. I_eps and wtilde at [ig][k] are read in order, but factor(k, n1)
// is recomputed for every term from aqsmtemp[igp][n1], aqsntemp[igp][n1] and
// wtilde_array[igp][k]: igp jumps ncouls/ngpown rows per k (strided access).
// Six real reductions, as in the mini-app.
// On a GPU this port is the lesson of why target_basic turns the loops
// around: the band loop is the only parallel one, so number_bands threads
// (512 on the paper deck) have work, a few per multiprocessor where a GPU
// needs tens of thousands in flight to hide its latency, and each of them
// sums ncouls x ngpown terms alone.
void target_naive(GppInstance& s, RunContext& ctx) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();
  const int dev = ctx.device;
  // The data lesson: the inputs go to the device once, the kernel finds them
  // there. In this suite the runner has already entered them (device_data()
  // above, before the clock starts), so this `enter data` finds them present,
  // counts one more reference and moves nothing; a program without the
  // runner would put it before its repetitions.
#pragma omp target enter data device(dev)                                                     \
    map(to : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
             e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])

  // map(alloc:): the arrays are expected present, so nothing is copied
  // (OpenMP 5.1's `present` modifier would make an absent one an error, but
  // g++-12 rejects it). The six sums come back through the reduction.
  double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp target teams distribute parallel for schedule(static) device(dev)                              \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(+ : re0, im0, re1, im1, re2, im2)
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
  // Inputs only: their reference is given back, nothing is copied home.
#pragma omp target exit data device(dev)                                                           \
    map(release : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                  e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])
}
// mirror: end

const Registration target_naive_registration{target_variant(
    "gpp", "target_naive",
    "the literal port of host_naive: `target teams distribute parallel for` over the bands alone, number_bands "
    "threads where a GPU needs tens of thousands, which is why the next step turns the loops around",
    target_naive, device_data).mirror_of("host_naive")
        .uses({"target teams distribute parallel for", "declare target", "reduction", "target enter/exit data",
               "map(alloc)", "schedule"})};

}  // namespace
}  // namespace ompref::gpp
