#pragma once
// gpp's three-complex sum (common/gpp/complex.hpp's Complex3) as MPI sees it:
// six contiguous doubles, and the MPI_Op that adds the ranks' partial sums by
// calling complex3_combine, the same function OpenMP's `declare
// reduction(c3sum)` combines SIMD lanes, threads and teams with. One reduction
// at every level; the rank forms of gpp (gpp_ranks.cpp, gpp_tuned_ranks.cpp)
// share it.
#include <mpi.h>

#include "common/gpp/complex.hpp"

namespace ompref::gpp {

struct Complex3Mpi {
  MPI_Datatype type;
  MPI_Op sum;
};
// Made once, at the first call (after MPI_Init).
const Complex3Mpi& complex3_mpi();
// Every rank's `mine` added with complex3_combine, on rank 0 in one
// MPI_Reduce and then broadcast: every rank gets the same bits.
Complex3 complex3_sum_over_ranks(const Complex3& mine);

}  // namespace ompref::gpp
