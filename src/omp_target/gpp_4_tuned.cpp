// gpp on the device, step 4: the tuned block shape. What it changes from
// target_hoisted (`diff src/omp_target/gpp_3_hoisted.cpp src/omp_target/gpp_4_tuned.cpp`):
// - k is the fastest index of the threads (loads of I_eps and wtilde at
//   [ig][k] are coalesced) and each thread takes `Bands` bands: one load of
//   I_eps[ig][k] and wtilde[ig][k] serves Bands x 3 terms from registers;
// - the ig range is cut into chunks, a third collapsed loop: millions of
//   short threads instead of n1 x k long ones, so the last wave is small;
// - factor(k, n1) leaves the ig loop altogether: sum_ig (delw I_eps) is
//   multiplied by it once (no factor array, no per-term complex product);
// - one divide for the three 1/|wdiff|^2 (add_term_factored);
// - the kernel compiled for teams of at most tuned_max_threads (512) threads
//   (OMPREF_MAX_TEAM_THREADS, common/team_bounds.hpp): clang-19 then keeps a
//   thread within 128 registers where it took 158, and an H200 holds 16
//   warps per multiprocessor instead of 12, as the CUDA twin's
//   __launch_bounds__ does.
// The shape (bands, ig chunk, thread_limit, reduction) is --tuned-shape
// (GppInstance::tuned); its default is the fastest shape measured on the H200.
// One thread's work, tuned_element, is src/common/gpp/gpp_tuned.hpp: target_multi
// (gpp_5_multi.cpp) and the CUDA twin native_tuned (src/native_cuda/gpp.cu)
// run the same function.
#include <algorithm>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/gpp/gpp_data.hpp"
#include "common/gpp/gpp_tuned.hpp"
#include "common/registry.hpp"
#include "common/team_bounds.hpp"

namespace ompref::gpp {

namespace {

// The data lesson: the inputs go to the device once, the kernel finds them
// there. In this suite the runner has already entered them (device_data()
// of gpp.cpp, before the clock starts), so tuned_kernel's `enter data` finds them present,
// counts one more reference and moves nothing; a program without the
// runner would put it before its repetitions.
template <int Bands>
Complex3 tuned_kernel(GppInstance& s, int dev, int ig_chunk, int threads, bool scalars) {
  const int nb = s.nb, nc = s.nc, ngpown = s.ngpown;
  const Complex* aqsm = s.aqsmtemp.data();
  const Complex* aqsn = s.aqsntemp.data();
  const Complex* ieps = s.I_eps_array.data();
  const Complex* wtilde = s.wtilde_array.data();
  const double* vcoul = s.vcoul.data();
  const double* e_n1kq = s.e_n1kq.data();
  const int* inv_igp_index = s.inv_igp_index.data();
  const int* indinv = s.indinv.data();
  const int nbb = (nb + Bands - 1) / Bands;
  const int nchunks = (nc - 1) / ig_chunk + 1;  // nc >= 1; nc + ig_chunk - 1 could overflow
#pragma omp target enter data device(dev)                                                     \
    map(to : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
             e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])

  // map(alloc:): the arrays are expected present, so nothing is copied
  // (OpenMP 5.1's `present` modifier would make an absent one an error, but
  // g++-12 rejects it). The six sums come back through the reduction.
  Complex3 acc = complex3_zero();
  if (scalars) {
    double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) OMPREF_MAX_TEAM_THREADS(tuned_max_threads) \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(+ : re0, im0, re1, im1, re2, im2)
    for (int c = 0; c < nchunks; ++c)
      for (int bb = 0; bb < nbb; ++bb)
        for (int k = 0; k < ngpown; ++k) {
          const Complex3 loc =
              tuned_element<Bands>(bb * Bands, k, c * ig_chunk, std::min(nc, c * ig_chunk + ig_chunk), nb, ngpown,
                                   aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv);
          re0 += loc.v[0].re, im0 += loc.v[0].im;
          re1 += loc.v[1].re, im1 += loc.v[1].im;
          re2 += loc.v[2].re, im2 += loc.v[2].im;
        }
    acc = Complex3{{{re0, im0}, {re1, im1}, {re2, im2}}};
  } else {
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) OMPREF_MAX_TEAM_THREADS(tuned_max_threads) \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(c3sum : acc)
    for (int c = 0; c < nchunks; ++c)
      for (int bb = 0; bb < nbb; ++bb)
        for (int k = 0; k < ngpown; ++k)
          complex3_combine(acc, tuned_element<Bands>(bb * Bands, k, c * ig_chunk,
                                                     std::min(nc, c * ig_chunk + ig_chunk), nb, ngpown, aqsm, aqsn,
                                                     ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv));
  }
  // Inputs only: their reference is given back, nothing is copied home.
#pragma omp target exit data device(dev)                                                           \
    map(release : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                  e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])
  return acc;
}

void target_tuned(GppInstance& s, RunContext& ctx) {
  const TunedShape& t = s.tuned;
  const bool sc = t.scalars;
  switch (t.bands) {
    case 1: s.achtemp = tuned_kernel<1>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
    case 2: s.achtemp = tuned_kernel<2>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
    case 8: s.achtemp = tuned_kernel<8>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
    default: s.achtemp = tuned_kernel<4>(s, ctx.device, t.ig_chunk, t.threads, sc); break;
  }
}

const Registration target_tuned_registration{target_variant(
    "gpp", "target_tuned",
    "coalesced k, several bands per thread, ig chunks as a third collapsed loop, factor out of the ig sum, one divide for three",
    target_tuned, device_data)
        .for_kernel("tuned").follows("target_hoisted").reading({"--tuned-shape"})
        .uses({"target teams distribute parallel for", "collapse", "declare target", "declare reduction", "reduction",
               "struct reduction", "target enter/exit data", "map(alloc)", "thread_limit"})};  // the kernel tag its CUDA twin native_tuned (src/native_cuda/gpp.cu) shares

}  // namespace
}  // namespace ompref::gpp
