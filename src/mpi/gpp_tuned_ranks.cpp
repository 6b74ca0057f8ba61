// gpp over MPI ranks on the tuned kernel. What it changes from target_tuned
// (`diff src/omp_target/gpp_4_tuned.cpp src/mpi/gpp_tuned_ranks.cpp`):
// - rank r of n takes the rows [nc r / n, nc (r + 1) / n) of I_eps_array, as
//   target_multi (gpp_5_multi.cpp) splits them over the devices of one
//   process, and runs target_tuned's kernel (tuned_element, the same
//   --tuned-shape) over the ig chunks of its rows: each rank does a 1/n share
//   of the fastest kernel, where target_ranks (gpp_ranks.cpp) splits the
//   slower target_udr's;
// - its device holds only those rows of I_eps_array (every other input whole:
//   wtilde is also read at igp), so the largest input shrinks with the ranks;
// - the tuned shape's ig_chunk is the whole problem's: a rank's threads take
//   ig_chunk / n rows each (rounded up), so that each rank launches as many
//   teams as target_tuned does on all the rows and each thread sums 1/n of
//   its rows. (With ig_chunk rows a thread, a rank of n launched 1/n of the
//   teams, each as long as target_tuned's: the kernel's last wave of teams,
//   partly empty, weighed n times more, and 2 ranks reached 1.84x.)
// - the ranks' partial sums meet in complex3_sum_over_ranks
//   (complex3_mpi.hpp): MPI_Reduce with the MPI_Op that calls
//   complex3_combine, the `declare reduction(c3sum)` combiner, then a
//   broadcast, so that every rank validates the whole achtemp.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <mpi.h>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp.hpp"
#include "common/gpp/gpp_data.hpp"
#include "common/gpp/gpp_tuned.hpp"
#include "common/registry.hpp"
#include "common/team_bounds.hpp"
#include "mpi/complex3_mpi.hpp"

namespace ompref::gpp {

namespace {

struct Share {
  int lo, hi;
  int ranks;
};
// This rank's rows of I_eps_array.
Share rank_share(const GppInstance& s) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  return Share{int(long(s.nc) * rank / ranks), int(long(s.nc) * (rank + 1) / ranks), ranks};
}

// Rows of ig a thread sums on this rank: the tuned shape's share of it.
int rank_chunk(int ig_chunk, const Share& sh) { return int((long(ig_chunk) + sh.ranks - 1) / sh.ranks); }

// The rank's rows of I_eps_array, every other input whole: entered by the
// runner before timing, released after.
DeviceData rank_data(GppInstance& s) {
  const Share sh = rank_share(s);
  const std::size_t lo = std::size_t(sh.lo) * s.ngpown, len = std::size_t(sh.hi - sh.lo) * s.ngpown;
  return DeviceData()
      .in(s.aqsmtemp)
      .in(s.aqsntemp)
      .in(s.I_eps_array.data() + lo, std::int64_t(len))
      .in(s.wtilde_array)
      .in(s.vcoul)
      .in(s.e_n1kq)
      .in(s.inv_igp_index)
      .in(s.indinv);
}

// The data lesson, as target_tuned's: the runner has already entered the
// inputs (rank_data() above, before the clock starts), so tuned_kernel's `enter data`
// finds them present, counts one more reference and moves nothing.
template <int Bands>
Complex3 tuned_kernel(GppInstance& s, int dev, const Share& sh, int ig_chunk, int threads, bool scalars) {
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
  const int ig_lo = sh.lo, ig_hi = sh.hi;
  const int nchunks = ig_hi > ig_lo ? (ig_hi - ig_lo - 1) / ig_chunk + 1 : 0;  // no overflow near INT_MAX
  const std::size_t lo = std::size_t(ig_lo) * ngpown, len = std::size_t(ig_hi - ig_lo) * ngpown;
#pragma omp target enter data device(dev)                                                     \
    map(to : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc], \
             e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])

  // map(alloc:): the arrays are expected present, so nothing is copied
  // (OpenMP 5.1's `present` modifier would make an absent one an error, but
  // g++-12 rejects it). The six sums come back through the reduction.
  Complex3 acc = complex3_zero();
  if (scalars) {
    double re0 = 0, im0 = 0, re1 = 0, im1 = 0, re2 = 0, im2 = 0;
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) OMPREF_MAX_TEAM_THREADS(tuned_max_threads) \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc], \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(+ : re0, im0, re1, im1, re2, im2)
    for (int c = 0; c < nchunks; ++c)
      for (int bb = 0; bb < nbb; ++bb)
        for (int k = 0; k < ngpown; ++k) {
          const Complex3 loc =
              tuned_element<Bands>(bb * Bands, k, ig_lo + c * ig_chunk, std::min(ig_hi, ig_lo + c * ig_chunk + ig_chunk),
                                   nb, ngpown, aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv);
          re0 += loc.v[0].re, im0 += loc.v[0].im;
          re1 += loc.v[1].re, im1 += loc.v[1].im;
          re2 += loc.v[2].re, im2 += loc.v[2].im;
        }
    acc = Complex3{{{re0, im0}, {re1, im1}, {re2, im2}}};
  } else {
#pragma omp target teams distribute parallel for collapse(3) device(dev) thread_limit(threads) OMPREF_MAX_TEAM_THREADS(tuned_max_threads) \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc], \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(c3sum : acc)
    for (int c = 0; c < nchunks; ++c)
      for (int bb = 0; bb < nbb; ++bb)
        for (int k = 0; k < ngpown; ++k)
          complex3_combine(acc, tuned_element<Bands>(bb * Bands, k, ig_lo + c * ig_chunk,
                                                     std::min(ig_hi, ig_lo + c * ig_chunk + ig_chunk), nb, ngpown,
                                                     aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv));
  }
  // Inputs only: their reference is given back, nothing is copied home.
#pragma omp target exit data device(dev)                                                           \
    map(release : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[lo:len], wtilde[0:nc * ngpown], vcoul[0:nc], \
                  e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])
  return acc;
}

void target_tuned_ranks(GppInstance& s, RunContext& ctx) {
  const TunedShape& t = s.tuned;
  const bool sc = t.scalars;
  const Share sh = rank_share(s);
  const int chunk = rank_chunk(t.ig_chunk, sh);
  ctx.notes["ig_rows_per_thread"] = chunk;
  Complex3 mine;
  switch (t.bands) {
    case 1: mine = tuned_kernel<1>(s, ctx.device, sh, chunk, t.threads, sc); break;
    case 2: mine = tuned_kernel<2>(s, ctx.device, sh, chunk, t.threads, sc); break;
    case 8: mine = tuned_kernel<8>(s, ctx.device, sh, chunk, t.threads, sc); break;
    default: mine = tuned_kernel<4>(s, ctx.device, sh, chunk, t.threads, sc); break;
  }
  s.achtemp = complex3_sum_over_ranks(mine);
}

const Registration target_tuned_ranks_registration{
    target_variant("gpp", "target_tuned_ranks",
                   "target_tuned over MPI ranks: rows of ig split, each rank runs the tuned kernel on its rows, partial "
                   "sums joined by MPI_Reduce with an MPI_Op that calls the `declare reduction` combiner",
                   target_tuned_ranks, rank_data)
        .split_across_ranks().follows("target_tuned").reading({"--tuned-shape"})
        .uses({"target teams distribute parallel for", "collapse", "declare target", "declare reduction", "reduction",
               "struct reduction", "target enter/exit data", "map(alloc)", "thread_limit"})};

}  // namespace
}  // namespace ompref::gpp
