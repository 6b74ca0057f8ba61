// complex3_mpi.hpp: the MPI datatype and MPI_Op of gpp's three-complex sum.
#include "mpi/complex3_mpi.hpp"

namespace ompref::gpp {

namespace {

// MPI's user function: inout[i] = in[i] (+) inout[i] with the OpenMP combiner.
void complex3_mpi_combine(void* in, void* inout, int* count, MPI_Datatype*) {
  const Complex3* from = static_cast<const Complex3*>(in);
  Complex3* to = static_cast<Complex3*>(inout);
  for (int i = 0; i < *count; ++i) complex3_combine(to[i], from[i]);
}

}  // namespace

const Complex3Mpi& complex3_mpi() {
  // Six contiguous doubles: complex.hpp asserts Complex3's size.
  static const Complex3Mpi made = [] {
    Complex3Mpi m{};
    MPI_Type_contiguous(6, MPI_DOUBLE, &m.type);
    MPI_Type_commit(&m.type);
    MPI_Op_create(complex3_mpi_combine, /*commute=*/1, &m.sum);
    return m;
  }();
  return made;
}

Complex3 complex3_sum_over_ranks(const Complex3& mine) {
  const Complex3Mpi& mpi = complex3_mpi();
  Complex3 total = complex3_zero();
  MPI_Reduce(&mine, &total, 1, mpi.type, mpi.sum, 0, MPI_COMM_WORLD);
  MPI_Bcast(&total, 1, mpi.type, 0, MPI_COMM_WORLD);
  return total;
}

}  // namespace ompref::gpp
