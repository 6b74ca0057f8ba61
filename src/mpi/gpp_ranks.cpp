// gpp over MPI ranks: target_udr's loop with the bands split across the
// ranks (`diff src/omp_target/gpp_2_udr.cpp src/mpi/gpp_ranks.cpp`): rank r
// of n sums the bands [nb r / n, nb (r + 1) / n) on its own device, as
// target_multi splits the G rows over the devices of one process, and the
// ranks' partial achtemp meet in one MPI_Reduce. The reduction is the same
// one at every level: OpenMP's `declare reduction(c3sum)` adds the SIMD
// lanes', threads' and teams' partial sums with complex3_combine
// (common/gpp/complex.hpp), and the MPI_Op that adds the ranks' partial sums
// calls that same function, over an MPI datatype of the same three-complex
// struct (complex3_mpi.hpp). The sum is then broadcast, so that every rank validates the whole
// achtemp against the closed form or the varied-data reference.
#include <mpi.h>

#include "common/gpp/complex.hpp"
#include "common/gpp/gpp_basic.hpp"
#include "common/gpp/gpp.hpp"
#include "common/gpp/gpp_data.hpp"
#include "common/registry.hpp"
#include "mpi/complex3_mpi.hpp"

namespace ompref::gpp {

namespace {

void target_ranks(GppInstance& s, RunContext& ctx) {
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
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int n1_lo = int(long(nb) * rank / ranks), n1_hi = int(long(nb) * (rank + 1) / ranks);

  // The data lesson: the inputs go to the device once, the kernel finds them
  // there. In this suite the runner has already entered them (device_data()
  // of gpp.cpp, before the clock starts), so this `enter data` finds them present,
  // counts one more reference and moves nothing; a program without the
  // runner would put it before its repetitions.
#pragma omp target enter data device(dev)                                                     \
    map(to : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
             e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])

  // map(alloc:): the arrays are expected present, so nothing is copied
  // (OpenMP 5.1's `present` modifier would make an absent one an error, but
  // g++-12 rejects it). The six sums come back through the reduction.
  Complex3 acc = complex3_zero();
#pragma omp target teams distribute parallel for collapse(2) device(dev)                                   \
    map(alloc : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])                                   \
    reduction(c3sum : acc)
  for (int k = 0; k < ngpown; ++k) {
    for (int n1 = n1_lo; n1 < n1_hi; ++n1) {
      const Complex3 loc =
          basic_element(k, n1, nb, nc, ngpown, aqsm, aqsn, ieps, wtilde, vcoul, e_n1kq, inv_igp_index, indinv);
      complex3_combine(acc, loc);
    }
  }
  s.achtemp = complex3_sum_over_ranks(acc);
  // Inputs only: their reference is given back, nothing is copied home.
#pragma omp target exit data device(dev)                                                           \
    map(release : aqsm[0:nc * nb], aqsn[0:nc * nb], ieps[0:nc * ngpown], wtilde[0:nc * ngpown], vcoul[0:nc], \
                  e_n1kq[0:nb], inv_igp_index[0:ngpown], indinv[0:nc + 1])
}

const Registration target_ranks_registration{
    target_variant("gpp", "target_ranks",
                   "target_udr over MPI ranks: bands split, partial sums joined by MPI_Reduce with an MPI_Op that calls "
                   "the `declare reduction` combiner",
                   target_ranks, device_data)
        .split_across_ranks().follows("target_udr")
        .uses({"target teams distribute parallel for", "collapse", "declare target", "declare reduction", "reduction",
               "struct reduction", "target enter/exit data", "map(alloc)"})};

}  // namespace
}  // namespace ompref::gpp
